"""Checkout state: the 'Complete Your Order' dialog.

Card fields never enter this state: they are uncontrolled inputs whose values the browser
sends straight to the payment API (storefront/api), so card numbers and CVVs never reach
Reflex state, which lives on the server and, with several workers, in Redis.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import uuid
from typing import Any

import reflex as rx

from storefront.db import session_scope
from storefront.services import cart, checkout
from storefront.services.errors import ServiceError, ValidationError
from storefront.services.payments import CARD_FIELDS
from storefront.state.cart import CartState
from storefront.state.order_status import OrderStatusState, remembered_order

log = logging.getLogger(__name__)

CHECKOUT_FAILED = "Checkout Failed"
GENERIC_FAILURE = "Something went wrong. Please try again."
ORDER_PLACED = "Order Placed Successfully!"
#: Error keys that a field of the form shows (the rest concern the cart and become a toast).
FORM_FIELD_PREFIXES = ("customer", "shippingAddress.", "billingAddress.")

# The card inputs carry only a data-card attribute (no name, no id), so Reflex's form
# submission never collects them; these scripts read them in the browser instead.
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
    return {{ok: r.ok, fieldErrors: body.fieldErrors || {{}}, error: body.error || ''}};
  }} catch (e) {{ return {{ok: false, fieldErrors: {{}}}}; }}
}})()
"""


def payment_script(order_number: str, access_token: str, payment_id: str) -> str:
    """Posts the card fields straight from the page to the payment API; returns the response."""
    return f"""
(async () => {{
  {_READ_CARD}
  const body = {{paymentId: {json.dumps(payment_id)}, shopId: 'storefront', paymentMethod: 'card', cardData}};
  const headers = {{'Content-Type': 'application/json', 'Idempotency-Key': {json.dumps(payment_id)}, 'X-Order-Token': {json.dumps(access_token)}}};
  try {{
    const r = await fetch('/api/printify/orders/' + encodeURIComponent({json.dumps(order_number)}) + '/process-payment', {{method: 'POST', headers, body: JSON.stringify(body)}});
    let data = {{}};
    try {{ data = await r.json(); }} catch (e) {{}}
    return {{ok: r.ok, status: r.status, body: data}};
  }} catch (e) {{ return {{ok: false, status: 0, body: {{}}}}; }}
}})()
"""


def new_payment_id() -> str:
    """The spec's client payment id: 'pay_', a timestamp and a random string (one per attempt)."""
    return f"pay_{int(time.time() * 1000)}_{secrets.token_hex(6)}"


def _place_order(payload: dict[str, Any], idempotency_key: str, access_token: str) -> checkout.PlacedOrder:
    with session_scope() as session:
        return checkout.place_order(session, payload, idempotency_key, access_token or None)


class CheckoutState(rx.State):
    """The checkout dialog: open/closed, submitting, and the message shown at each field."""

    dialog_open: bool = False
    submitting: bool = False
    same_as_shipping: bool = True
    field_errors: dict[str, str] = {}
    _payload: dict[str, Any] = {}
    _idempotency_key: str = ""
    # The order this dialog placed and the token that opens it: a retry after a decline pays
    # (or amends) that order instead of placing another.
    _order_number: str = ""
    _access_token: str = ""

    @rx.event
    def set_dialog_open(self, value: bool) -> None:
        if value and not self.dialog_open:
            # One key per checkout attempt: double submits and retries reuse the same order.
            self._idempotency_key = uuid.uuid4().hex
            self._order_number, self._access_token = "", ""
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
        self._payload = checkout.checkout_payload(form, lines, self.same_as_shipping)
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
                return rx.toast.error(CHECKOUT_FAILED, description=(result or {}).get("error") or GENERIC_FAILURE)
            return None
        try:
            placed = await asyncio.to_thread(_place_order, self._payload, self._idempotency_key, self._access_token)
        except ServiceError as error:
            self.submitting = False
            if isinstance(error, ValidationError) and error.field_errors:
                self.field_errors = dict(error.field_errors)
            return rx.toast.error(CHECKOUT_FAILED, description=error.message)
        except Exception:
            log.exception("order creation failed")
            self.submitting = False
            return rx.toast.error(CHECKOUT_FAILED, description=GENERIC_FAILURE)
        self._order_number, self._access_token = placed.order.number, placed.access_token
        return rx.call_script(
            payment_script(self._order_number, self._access_token, new_payment_id()),
            callback=CheckoutState.payment_done,
        )

    @rx.event
    async def payment_done(self, result: dict[str, Any]):
        self.submitting = False
        result = result or {}
        body = result.get("body") or {}
        if result.get("ok"):
            number = self._order_number
            # This browser keeps the order so /order-status shows it without any typing.
            (await self.get_state(OrderStatusState)).last_order = remembered_order(number, self._access_token)
            self.dialog_open = False
            self._payload = {}
            self._order_number, self._access_token = "", ""
            # The paid lines leave the cart; store-catalogue lines (checked out on the store) stay.
            cart_state = await self.get_state(CartState)
            cart_state.cart_json = cart.dump_cart(cart.store_lines(cart_state._lines()))
            return rx.toast.success(ORDER_PLACED, description=f"Order {number} has been submitted for fulfilment.")
        details = body.get("details")
        if isinstance(details, dict):
            self.field_errors = {k: str(v) for k, v in details.items() if k in CARD_FIELDS}
        reason = details if isinstance(details, str) else body.get("error")
        return rx.toast.error(CHECKOUT_FAILED, description=reason or GENERIC_FAILURE)
