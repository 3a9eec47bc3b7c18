"""Checkout state: the 'Complete Your Order' dialog.

Card fields never enter this state: they are uncontrolled inputs whose values the browser
sends straight to the payment API (storefront/api), so card numbers and CVVs never reach
Reflex state, which lives on the server and, with several workers, in Redis.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from typing import Any

import reflex as rx

from storefront.db import session_scope
from storefront.services import cart, checkout
from storefront.services.errors import ServiceError, ValidationError
from storefront.services.money import cents_to_dollars
from storefront.state.cart import CartState

log = logging.getLogger(__name__)

CHECKOUT_FAILED = "Checkout Failed"
GENERIC_FAILURE = "Something went wrong. Please try again."
ORDER_PLACED = "Order Placed Successfully!"
# The card inputs carry only a data-card attribute (no name, no id), so Reflex's form
# submission never collects them; these scripts read them in the browser instead.
CARD_FIELDS = ("cardNumber", "expiryDate", "cvv", "cardholderName")
#: Error keys that a field of the form shows (the rest concern the cart and become a toast).
FORM_FIELD_PREFIXES = ("customer", "shippingAddress.", "billingAddress.")

_READ_CARD = (
    "const v = key => (document.querySelector(`[data-card=\"${key}\"]`)?.value ?? ''); "
    "const cardData = {%s};" % ", ".join(f"{key}: v('{key}')" for key in CARD_FIELDS)
)

# Asks the server to check the card fields' rules without charging or keeping anything.
CARD_CHECK_SCRIPT = f"""
(async () => {{
  {_READ_CARD}
  try {{
    const r = await fetch('/api/payments/validate-card', {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{cardData}})}});
    const body = await r.json();
    return {{ok: r.ok, fieldErrors: body.fieldErrors || {{}}}};
  }} catch (e) {{ return {{ok: false, fieldErrors: {{}}}}; }}
}})()
"""


def payment_script(order_id: str, payment_id: str) -> str:
    """Posts the card fields straight from the page to the payment API; returns the response."""
    return f"""
(async () => {{
  {_READ_CARD}
  const body = {{paymentId: {json.dumps(payment_id)}, shopId: 'storefront', paymentMethod: 'card', cardData}};
  try {{
    const r = await fetch('/api/printify/orders/' + encodeURIComponent({json.dumps(order_id)}) + '/process-payment', {{method: 'POST', headers: {{'Content-Type': 'application/json', 'Idempotency-Key': {json.dumps(payment_id)}}}, body: JSON.stringify(body)}});
    let data = {{}};
    try {{ data = await r.json(); }} catch (e) {{}}
    return {{ok: r.ok, status: r.status, body: data}};
  }} catch (e) {{ return {{ok: false, status: 0, body: {{}}}}; }}
}})()
"""


def _nest(form: dict[str, Any]) -> dict[str, Any]:
    """{'shippingAddress.city': 'X'} -> {'shippingAddress': {'city': 'X'}}."""
    nested: dict[str, Any] = {}
    for key, value in form.items():
        head, _, tail = key.partition(".")
        if tail:
            nested.setdefault(head, {})[tail] = value
        else:
            nested[key] = value
    return nested


def order_payload(form: dict[str, Any], lines: list[cart.CartLine], same_as_shipping: bool) -> dict[str, Any]:
    """The spec's order payload from the form and the cart (prices as the shopper saw them)."""
    payload = _nest({k: v for k, v in form.items() if k not in CARD_FIELDS})
    payload["sameAsShipping"] = same_as_shipping
    if same_as_shipping:
        payload["billingAddress"] = dict(payload.get("shippingAddress", {}))
    subtotal = cart.subtotal_cents(lines)
    shipping = cart.shipping_cents(subtotal)
    payload["items"] = [
        {
            "productId": line.product_id,
            "printifyProductId": line.product_id,
            "printifyVariantId": line.variant_id or f"{line.product_id}_{line.size}",
            "name": line.name,
            "size": line.size,
            "price": float(cents_to_dollars(line.price_cents)),
            "quantity": line.quantity,
            "imageUrl": line.image,
        }
        for line in lines
    ]
    payload.update(
        subtotal=float(cents_to_dollars(subtotal)),
        shipping=float(cents_to_dollars(shipping)),
        tax=float(cents_to_dollars(cart.TAX_CENTS)),
        total=float(cents_to_dollars(subtotal + shipping + cart.TAX_CENTS)),
    )
    return payload


def _create_order(payload: dict[str, Any], idempotency_key: str) -> str:
    with session_scope() as session:
        return checkout.create_order(session, payload, idempotency_key).number


class CheckoutState(rx.State):
    """The checkout dialog: open/closed, submitting, and the message shown at each field."""

    dialog_open: bool = False
    submitting: bool = False
    same_as_shipping: bool = True
    field_errors: dict[str, str] = {}
    _payload: dict[str, Any] = {}
    _idempotency_key: str = ""

    @rx.event
    def set_dialog_open(self, value: bool) -> None:
        if value and not self.dialog_open:
            # One key per checkout attempt: double submits and retries reuse the same order.
            self._idempotency_key = uuid.uuid4().hex
            self.field_errors = {}
        if not self.submitting:
            self.dialog_open = value

    @rx.event
    def set_same_as_shipping(self, value: bool) -> None:
        self.same_as_shipping = value

    @rx.event
    async def submit(self, form: dict[str, Any]):
        if self.submitting:
            return
        lines = (await self.get_state(CartState))._lines()
        if not lines:
            return rx.toast.error(CHECKOUT_FAILED, description=checkout.NO_ITEMS)
        self.submitting = True
        self._payload = order_payload(form, lines, self.same_as_shipping)
        try:
            checkout.validate_order_payload(self._payload)
            self.field_errors = {}
        except ValidationError as error:
            self.field_errors = {k: v for k, v in error.field_errors.items() if k.startswith(FORM_FIELD_PREFIXES)}
            if len(self.field_errors) < len(error.field_errors) or not error.field_errors:
                # A problem with the cart itself (empty, a line no longer valid): no field shows it.
                self.submitting = False
                return rx.toast.error(CHECKOUT_FAILED, description=error.message)
        return rx.call_script(CARD_CHECK_SCRIPT, callback=CheckoutState.card_checked)

    @rx.event
    async def card_checked(self, result: dict[str, Any]):
        card_errors = {k: str(v) for k, v in (result or {}).get("fieldErrors", {}).items() if k in CARD_FIELDS}
        self.field_errors = {**self.field_errors, **card_errors}
        if self.field_errors or not (result or {}).get("ok"):
            self.submitting = False
            if not self.field_errors:
                return rx.toast.error(CHECKOUT_FAILED, description=GENERIC_FAILURE)
            return None
        try:
            order_id = await asyncio.to_thread(_create_order, self._payload, self._idempotency_key)
        except ServiceError as error:
            self.submitting = False
            if isinstance(error, ValidationError) and error.field_errors:
                self.field_errors = dict(error.field_errors)
            return rx.toast.error(CHECKOUT_FAILED, description=error.message)
        except Exception:
            log.exception("order creation failed")
            self.submitting = False
            return rx.toast.error(CHECKOUT_FAILED, description=GENERIC_FAILURE)
        return rx.call_script(
            payment_script(order_id, f"pay_{self._idempotency_key}"), callback=CheckoutState.payment_done
        )

    @rx.event
    async def payment_done(self, result: dict[str, Any]):
        self.submitting = False
        result = result or {}
        body = result.get("body") or {}
        if result.get("ok"):
            order = body.get("order") or {}
            number = order.get("number") or order.get("id") or ""
            self.dialog_open = False
            self._payload = {}
            (await self.get_state(CartState)).cart_json = cart.dump_cart([])
            return rx.toast.success(ORDER_PLACED, description=f"Order {number} has been submitted for fulfilment.")
        details = body.get("details")
        if isinstance(details, dict):
            self.field_errors = {k: str(v) for k, v in details.items() if k in CARD_FIELDS}
        reason = details if isinstance(details, str) else body.get("error")
        return rx.toast.error(CHECKOUT_FAILED, description=reason or GENERIC_FAILURE)
