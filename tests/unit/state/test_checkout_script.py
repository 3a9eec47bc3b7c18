"""The checkout dialog's browser script is a real module in assets/, called with the server's values."""

from __future__ import annotations

import json
import re

from storefront.state import checkout

EXPORTED = re.compile(r"^export (?:async )?function (\w+)\(([^)]*)\)", re.MULTILINE)


def _exports() -> dict[str, list[str]]:
    source = checkout.CHECKOUT_JS.read_text(encoding="utf-8")
    return {name: [p.strip() for p in params.split(",") if p.strip()] for name, params in EXPORTED.findall(source)}


def test_the_module_exports_each_step_the_checkout_calls() -> None:
    assert _exports() == {
        "formatCardFields": [],
        "checkCard": ["tokenKey", "cardFields"],
        "payByCard": ["tokenKey", "cardFields", "orderNumber", "newToken", "paymentId"],
        "mountStripe": ["publishableKey", "jsUrl", "amount", "elementId"],
        "submitStripe": ["tokenKey"],
        "confirmStripe": ["tokenKey", "clientSecret", "newToken", "returnPath"],
    }


def test_a_call_imports_the_module_by_its_content_and_passes_the_values_as_json() -> None:
    script = checkout.checkout_call("payByCard", "checkout-order-token", ["cardNumber"], "SF-1", "", 'a"b')
    assert re.fullmatch(r"/checkout\.js\?v=[0-9a-f]{12}", checkout.CHECKOUT_JS_URL)
    assert script == (
        f"import({json.dumps(checkout.CHECKOUT_JS_URL)}).then((checkout) => checkout.payByCard("
        '"checkout-order-token", ["cardNumber"], "SF-1", "", "a\\"b"), () => ({ok: false}))'
    )
