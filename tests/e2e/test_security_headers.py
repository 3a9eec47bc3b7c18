"""Issue 23: the served store answers only its own origin (CORS and the websocket), every page
loads under its Content-Security-Policy with no console error or violation, the back office cannot
be framed, and the Stripe checkout still works under the policy."""

from __future__ import annotations

import base64
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Page, expect

from storefront.api.security_headers import REFERRER_POLICY
from storefront.pages.admin.products import ROUTE as ADMIN_PRODUCTS
from storefront.pages.try_on import ROUTE as TRY_ON
from tests.e2e import test_shopping as shopping
from tests.e2e.admin import sign_in
from tests.e2e.conftest import StoreProcess, StoreServer, reconfigured_store
from tests.e2e.test_served_routes import PRERENDERED_PAGES
from tests.e2e.test_stripe_checkout import GOOD_CARD, fill_customer, fill_stripe_card, order_number
from tests.fakes.stripe_server import FakeStripe

EVIL = "https://evil.example"
NOT_FOUND = "/no-such-page"
NOT_FOUND_STATUS = "Failed to load resource: the server responded with a status of 404 (Not Found)"
PUBLIC_PAGES = [*PRERENDERED_PAGES, "/product/sample-1", TRY_ON, "/shopify", NOT_FOUND, "/admin/login"]
#: Collects every policy violation from the first script of each document on.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
"""


class Problems:
    """Console errors, page errors and CSP violations of a page, across its navigations."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.add_init_script(RECORD_VIOLATIONS)
        page.on("console", lambda m: self.errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))

    def collect(self) -> list[str]:
        violations = self.page.evaluate("() => window.__violations || []")
        found = [*self.errors, *(f"{self.page.url}: CSP {v}" for v in violations)]
        # The not-found page's own 404 is reported as a failed load; nothing else may be.
        return [
            p for p in found if not (p.endswith(NOT_FOUND_STATUS) and urlsplit(p.split(": ", 1)[0]).path == NOT_FOUND)
        ]


@pytest.fixture
def problems(page: Page) -> Problems:
    return Problems(page)


def _visit(page: Page, path: str) -> str:
    """Opens `path`, waits until it is hydrated and connected, and returns its policy header."""
    response = page.goto(path)
    assert response is not None
    page.wait_for_selector("[data-hydrated='true']", state="attached")
    page.wait_for_load_state("load")
    return response.headers.get("content-security-policy", "")


def test_every_public_page_loads_under_its_policy_without_an_error(page: Page, problems: Problems) -> None:
    found = []
    for path in PUBLIC_PAGES:
        policy = _visit(page, path)
        assert "script-src 'self'" in policy and "'sha256-" in policy and "frame-ancestors 'none'" in policy, path
        found += problems.collect()
        problems.errors.clear()
    # The scripts Reflex runs for the backend (rx.call_script) work: adding to the cart updates the badge.
    shopping.add_to_cart(page, shopping.product_links(page, "tee")[0], "M")
    expect(shopping.badge_count(page)).to_have_text("1")
    assert found + problems.collect() == []


def test_the_back_office_loads_under_its_policy_without_an_error(page: Page, problems: Problems) -> None:
    sign_in(page)
    found = problems.collect()
    for path in (ADMIN_PRODUCTS, "/admin/dashboard"):
        assert "frame-ancestors 'none'" in _visit(page, path)
        found += problems.collect()
    for tab in ("Orders", "Sync & Pricing", "Product Editor"):
        page.get_by_role("tab", name=tab).click()
        page.wait_for_load_state("load")
    assert found + problems.collect() == []


def test_the_admin_login_cannot_be_framed(store: StoreServer) -> None:
    for path in ("/admin/login", "/admin", "/"):
        answer = httpx.get(store.url + path)
        assert answer.status_code == 200
        assert answer.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        assert answer.headers["referrer-policy"] == REFERRER_POLICY
        assert "strict-transport-security" not in answer.headers  # not a production store


def test_another_origin_is_not_answered_with_credentials_but_the_store_itself_is(store: StoreServer) -> None:
    for path in ("/api/printify/status", "/api/events", "/ping"):
        evil = httpx.get(store.url + path, headers={"Origin": EVIL})
        assert "access-control-allow-origin" not in evil.headers, (path, evil.headers)
        own = httpx.get(store.url + path, headers={"Origin": store.url})
        assert own.headers["access-control-allow-origin"] == store.url, path
        assert own.headers["access-control-allow-credentials"] == "true"
    preflight = httpx.options(
        store.url + "/api/orders/lookup",
        headers={
            "Origin": EVIL,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert "access-control-allow-origin" not in preflight.headers


def _websocket_handshake(url: str, origin: str) -> str:
    """The status line the backend answers a socket.io websocket handshake from `origin` with."""
    address = urlsplit(url)
    key = base64.b64encode(os.urandom(16)).decode()
    request = "\r\n".join([
        "GET /_event/?EIO=4&transport=websocket HTTP/1.1", f"Host: {address.netloc}", "Upgrade: websocket",
        "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13", f"Origin: {origin}", "", "",
    ])
    with socket.create_connection((address.hostname, address.port), timeout=30) as connection:
        connection.sendall(request.encode())
        answer = b""
        while b"\r\n" not in answer and (chunk := connection.recv(4096)):
            answer += chunk
    return answer.split(b"\r\n", 1)[0].decode()


def test_the_websocket_refuses_another_origin(store: StoreServer) -> None:
    assert _websocket_handshake(store.url, store.url).split()[1] == "101"
    assert _websocket_handshake(store.url, EVIL).split()[1] in ("400", "403")


@pytest.fixture
def fake(store_process: StoreProcess) -> Iterator[FakeStripe]:
    with FakeStripe(webhook_url=f"{store_process.url}/api/stripe/webhooks") as stripe_fake:
        yield stripe_fake


@pytest.mark.reconfigures_store
def test_the_stripe_checkout_works_under_the_policy(
    page: Page, problems: Problems, store: StoreServer, store_process: StoreProcess, fake: FakeStripe, tmp_path: Path
) -> None:
    with reconfigured_store(store, store_process, tmp_path, fake.env()):
        shopping.add_to_cart(page, shopping.product_links(page, "tee")[0], "M")
        policy = _visit(page, "/cart")
        assert "script-src 'self'" in policy and fake.api_base in policy
        shopping.open_checkout(page)
        fill_customer(page)
        fill_stripe_card(page, GOOD_CARD)
        page.get_by_role("dialog").get_by_test_id("place-order").click()
        assert order_number(page).startswith("SF-")
        assert problems.collect() == []
