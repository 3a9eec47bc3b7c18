"""Checkout state: the 'Complete Your Order' dialog.

Card fields never enter this state. With the built-in test gateway they are uncontrolled inputs
whose values the browser sends straight to the payment API (storefront/api); with Stripe the
card is typed into Stripe's Payment Element and goes from the browser to Stripe only, and the
order is paid once the server has asked Stripe (services/orders/intent_payments.py). So card numbers
and CVVs never reach Reflex state, which lives on the server and, with several workers, in Redis.

Nor does the placed order's access token: it goes to the page at once and is kept in the tab's
session storage; the scripts hand it back with the events that need it (a retry, Stripe's
confirmation), and a paid order moves it to local storage for /order-status.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import time
import uuid
from typing import Any

import reflex as rx

from storefront import config
from storefront.services.orders import cart, checkout, order_access, order_emails, ship_to
from storefront.services.orders.intent_payments import Handoff
from storefront.services.orders.statuses import PaymentStatus
from storefront.services.payments.gateway import CARD_FIELDS
from storefront.services.platform.errors import ServiceError, ValidationError
from storefront.state.cart import CartState
from storefront.state.discount import DiscountState
from storefront.state.order_status import (
    FORGET_ORDER_TOKEN_SCRIPT,
    KEPT_TOKEN,
    ORDER_TOKEN_KEY,
    remember_order_script,
)
from storefront.wiring import services, session_scope

log = logging.getLogger(__name__)

CHECKOUT_FAILED = "Checkout Failed"
GENERIC_FAILURE = "Something went wrong. Please try again."
ORDER_PLACED = "Order Placed Successfully!"
#: Spec section 8's second success toast, shown when the order's confirmation email was queued.
ORDER_PLACED_EMAILED = "Order placed successfully!"
ORDER_EMAILED_TEXT = "Order {number} has been submitted for fulfilment. We have sent you a confirmation email."
#: Error keys that a field of the form shows (the rest concern the cart and become a toast).
FORM_FIELD_PREFIXES = ("customer", "shippingAddress.", "billingAddress.")

#: The dialog's browser side (the card fields, Stripe's Payment Element): an ES module in assets/,
#: served at the root. Its address names its content, so a browser never runs an older copy.
CHECKOUT_JS = config.PROJECT_ROOT / "assets" / "checkout.js"
CHECKOUT_JS_URL = f"/checkout.js?v={hashlib.sha256(CHECKOUT_JS.read_bytes()).hexdigest()[:12]}"


def checkout_call(function: str, *args: object) -> str:
    """The script that runs `function` of assets/checkout.js with `args` and hands back what it
    resolves to; {ok: false} when the module cannot be loaded (the callback then shows the failure)."""
    arguments = ", ".join(json.dumps(arg) for arg in args)
    return (
        f"import({json.dumps(CHECKOUT_JS_URL)})"
        f".then((checkout) => checkout.{function}({arguments}), () => ({{ok: false}}))"
    )


_KEPT_TOKEN = KEPT_TOKEN


def _keep_token(access_token: str) -> str:
    """The statement that keeps a newly issued order token in the tab ('' when none was issued)."""
    if not access_token:
        return ""
    return f"window.sessionStorage.setItem({json.dumps(ORDER_TOKEN_KEY)}, {json.dumps(access_token)});"


def _kept_token(result: dict[str, Any]) -> str:
    """The order token a script handed back with its result ('' for none)."""
    token = result.get("orderToken")
    return token if isinstance(token, str) else ""


#: Where Stripe's Payment Element is mounted in the dialog.
PAYMENT_ELEMENT_ID = "payment-element"
PAYMENT_FORM_NOT_READY = "The payment form could not be loaded. Please close the dialog and try again."
PAYMENT_PROCESSING = "Payment Processing"
PAYMENT_PROCESSING_TEXT = "Order {number} is sent for printing as soon as your bank confirms the payment."


def _stripe_handoff(number: str) -> Handoff | None:
    intents = services().intents
    assert intents is not None
    return intents.handoff(number)


def _stripe_confirm(number: str, token: str) -> str:
    """Ask Stripe whether the order's intent succeeded; the order's payment status afterwards."""
    intents = services().intents
    assert intents is not None
    return intents.confirm(number, token).payment_status


def _order_page(number: str) -> str:
    """The order's own page (the signed link its emails carry): where a paid checkout ends."""
    with session_scope() as session:
        return services().emails.order_path(order_access.find_order(session, number))


async def _thank_you(number: str) -> list[rx.event.EventSpec]:
    """The redirect to the order's page; none when its link cannot be made (the toasts still say it)."""
    try:
        return [rx.redirect(await asyncio.to_thread(_order_page, number))]
    except Exception:
        log.exception("making the page of order %s failed", number)
        return []


def _confirmation_queued(number: str) -> bool:
    with session_scope() as session:
        return order_emails.confirmation_queued(session, number)


def new_payment_id() -> str:
    """The spec's client payment id: 'pay_', a timestamp and a random string (one per attempt)."""
    return f"pay_{int(time.time() * 1000)}_{secrets.token_hex(6)}"


def _place_order(payload: dict[str, Any], idempotency_key: str, access_token: str, client: str) -> checkout.PlacedOrder:
    with session_scope() as session:
        return checkout.place_order(
            session,
            payload,
            idempotency_key,
            access_token or None,
            limiter=services().order_limiter,
            client=client,
            ship_to=services().settings.ship_to,
        )


def _new_token(placed: checkout.PlacedOrder, result: dict[str, Any]) -> str:
    """The token the page must keep after placing: a new order's ('' when the page already has it)."""
    return placed.access_token if placed.access_token and placed.access_token != _kept_token(result) else ""


def _as_list(events: Any) -> list[Any]:
    return events if isinstance(events, list) else [events]


class CheckoutState(rx.State):
    """The checkout dialog: open/closed, submitting, and the message shown at each field."""

    dialog_open: bool = False
    submitting: bool = False
    #: How this store takes payments: 'stripe' (Payment Element) or 'test' (card fields); '' until known.
    payment_provider: str = ""
    same_as_shipping: bool = True
    field_errors: dict[str, str] = {}
    #: The contact and address fields as last typed (never the card fields), kept for the tab's
    #: life so that closing the dialog, after a decline say, loses nothing; a placed order empties it.
    typed_fields: dict[str, str] = {}
    #: The ship-to countries (SHIP_TO_COUNTRIES) as {'value': code, 'label': name}, set on opening:
    #: the shipping address picks from these (a billing address may be anywhere).
    country_options: list[dict[str, str]] = []
    #: The country picked in each address's select ("shippingAddress" -> "CA"), to show the US
    #: state select or a text field.
    picked_countries: dict[str, str] = {}
    _payload: dict[str, Any] = {}
    _idempotency_key: str = ""
    # The order this dialog placed: a retry after a decline pays (or amends) that order instead
    # of placing another. The token that opens it is kept by the page, never here.
    _order_number: str = ""

    @rx.var
    def uses_stripe(self) -> bool:
        return self.payment_provider == "stripe"

    @rx.var
    def form_values(self) -> dict[str, str]:
        """What the form's fields start with when the dialog opens (a kept country no longer
        shipped to starts as the first one that is)."""
        values = {**checkout.FORM_DEFAULTS, **self.typed_fields}
        codes = [option["value"] for option in self.country_options]
        key = f"{checkout.SHIPPING_FIELD}.country_code"
        if codes and values.get(key, "").upper() not in codes:
            values[key] = codes[0]
        return values

    @rx.var
    def address_countries(self) -> dict[str, str]:
        """The country each address's select shows now."""
        values = self.form_values
        return {
            prefix: self.picked_countries.get(prefix) or values.get(f"{prefix}.country_code", "")
            for prefix in (checkout.SHIPPING_FIELD, checkout.BILLING_FIELD)
        }

    @rx.event
    def pick_country(self, prefix: str, code: str) -> None:
        self.picked_countries = {**self.picked_countries, prefix: code}

    def _keep_typed(self, form: dict[str, Any]) -> None:
        self.typed_fields = {**self.typed_fields, **checkout.kept_form_fields(form)}

    @rx.event
    async def set_dialog_open(self, value: bool, typed: dict[str, Any] | None = None):
        """Open or close the dialog; `typed` is the form's fields as they were when it closed."""
        if typed and not self.submitting:
            self._keep_typed(typed)
        opening = value and not self.dialog_open
        if opening:
            # One key per checkout attempt: double submits and retries reuse the same order.
            self._idempotency_key = uuid.uuid4().hex
            self._order_number = ""
            self.field_errors = {}
        if not self.submitting:
            self.dialog_open = value
        settings = services().settings
        self.payment_provider = "stripe" if settings.uses_stripe else "test"
        self.country_options = ship_to.country_options(settings.ship_to)
        if opening:
            self.picked_countries = {}
        if not opening:
            return None
        events = [rx.call_script(FORGET_ORDER_TOKEN_SCRIPT)]
        if not settings.uses_stripe:
            events.append(rx.call_script(checkout_call("formatCardFields")))
        if settings.uses_stripe:
            lines = (await self.get_state(CartState))._lines()
            total = cart.cart_totals([line for line in lines if line.source == cart.SOURCE_OURS]).total_cents
            discount = await self.get_state(DiscountState)
            total = discount.total_cents if discount.applied else total
            events.append(
                rx.call_script(
                    checkout_call(
                        "mountStripe",
                        settings.stripe_publishable_key,
                        settings.stripe_js_url,
                        int(max(total, 1)),
                        PAYMENT_ELEMENT_ID,
                    ),
                    callback=CheckoutState.payment_form_ready,
                )
            )
        return events

    @rx.event
    def payment_form_ready(self, result: dict[str, Any]):
        if not (result or {}).get("ok"):
            log.warning("Stripe's Payment Element could not be mounted")
            return rx.toast.error(CHECKOUT_FAILED, description=PAYMENT_FORM_NOT_READY)
        return None

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
        self._keep_typed(form)
        self._payload = checkout.checkout_payload(form, lines, self.same_as_shipping)
        discount = await self.get_state(DiscountState)
        if discount.applied and discount.code:
            self._payload["discountCode"] = discount.code  # priced and checked again by the server
        try:
            checkout.validate_order_payload(self._payload, services().settings.ship_to)
            self.field_errors = {}
        except ValidationError as error:
            self.field_errors = {k: v for k, v in error.field_errors.items() if k.startswith(FORM_FIELD_PREFIXES)}
            if len(self.field_errors) < len(error.field_errors) or not error.field_errors:
                # A problem with the cart itself (empty, a line no longer valid): no field shows it.
                self.submitting = False
                return rx.toast.error(CHECKOUT_FAILED, description=error.message)
        if self.uses_stripe:
            if self.field_errors:
                self.submitting = False
                return None
            return rx.call_script(checkout_call("submitStripe", ORDER_TOKEN_KEY), callback=CheckoutState.stripe_checked)
        return rx.call_script(
            checkout_call("checkCard", ORDER_TOKEN_KEY, list(CARD_FIELDS)), callback=CheckoutState.card_checked
        )

    async def _placed(self, kept_token: str) -> Any:
        """Place (or amend) this dialog's order, with the token the page kept for it; the placed
        order, or the toast that says why not."""
        try:
            client = self.router.session.client_ip or "unknown"
            placed = await asyncio.to_thread(_place_order, self._payload, self._idempotency_key, kept_token, client)
        except ServiceError as error:
            self.submitting = False
            if isinstance(error, checkout.DiscountRefused):
                # The code stopped applying: the summary shows the total without it before any charge.
                (await self.get_state(DiscountState)).refused(error.message)
            elif isinstance(error, ValidationError) and error.field_errors:
                self.field_errors = dict(error.field_errors)
            return rx.toast.error(CHECKOUT_FAILED, description=error.message)
        except Exception:
            log.exception("order creation failed")
            self.submitting = False
            return rx.toast.error(CHECKOUT_FAILED, description=GENERIC_FAILURE)
        self._order_number = placed.order.number
        return placed

    @rx.event
    async def stripe_checked(self, result: dict[str, Any]):
        """Stripe's fields are complete: place the order, then confirm its intent from the page."""
        result = result or {}
        if not result.get("ok"):
            self.submitting = False
            return rx.toast.error(CHECKOUT_FAILED, description=result.get("error") or PAYMENT_FORM_NOT_READY)
        placed = await self._placed(_kept_token(result))
        if not isinstance(placed, checkout.PlacedOrder):
            return placed
        new_token = _new_token(placed, result)
        try:
            handoff = await asyncio.to_thread(_stripe_handoff, self._order_number)
        except ServiceError as error:
            self.submitting = False
            return rx.toast.error(CHECKOUT_FAILED, description=error.message)
        except Exception:
            log.exception("creating the payment of order %s failed", self._order_number)
            self.submitting = False
            return rx.toast.error(CHECKOUT_FAILED, description=GENERIC_FAILURE)
        if handoff is None:  # not payable any more: paid by a retry whose answer was lost, or cancelled
            confirmed = await self.stripe_confirmed({"ok": True, "orderToken": new_token or _kept_token(result)})
            keep = rx.call_script(_keep_token(new_token)) if new_token else None
            return [event for event in [keep, *_as_list(confirmed)] if event is not None]
        # The client secret goes to this page's script only: it is never kept in the state. A method
        # that leaves the page (3-D Secure, a bank's page) comes back to the order's own page.
        try:
            return_path = await asyncio.to_thread(_order_page, self._order_number)
        except Exception:
            log.exception("making the page of order %s failed", self._order_number)
            return_path = "/order-status"
        return rx.call_script(
            checkout_call("confirmStripe", ORDER_TOKEN_KEY, handoff.client_secret, new_token, return_path),
            callback=CheckoutState.stripe_confirmed,
        )

    @rx.event
    async def stripe_confirmed(self, result: dict[str, Any]):
        """Stripe.js is done: a decline is shown for a retry; otherwise the server asks Stripe."""
        result = result or {}
        if not result.get("ok"):
            self.submitting = False
            return rx.toast.error(CHECKOUT_FAILED, description=result.get("error") or GENERIC_FAILURE)
        try:
            status = await asyncio.to_thread(_stripe_confirm, self._order_number, _kept_token(result))
        except ServiceError as error:
            self.submitting = False
            return rx.toast.error(CHECKOUT_FAILED, description=error.message)
        except Exception:
            log.exception("confirming the payment of order %s failed", self._order_number)
            self.submitting = False
            return rx.toast.error(CHECKOUT_FAILED, description=GENERIC_FAILURE)
        if status == PaymentStatus.PAID:
            return await self._finish_paid()
        # Stripe has not said 'succeeded' yet (a bank transfer, a slow card): its webhook will.
        number = self._order_number
        closed = await self._close_for(number)
        toast = rx.toast.info(PAYMENT_PROCESSING, description=PAYMENT_PROCESSING_TEXT.format(number=number))
        return [*closed, toast, *await _thank_you(number)]

    async def _close_for(self, number: str) -> list[rx.event.EventSpec]:
        """Close the dialog on a placed order: the browser remembers it (with the token the tab
        kept) and the cart lets its lines go; returns the events that do it in the browser."""
        self.submitting = False
        self.dialog_open = False
        self._payload = {}
        self.typed_fields = {}
        self._order_number = ""
        # The paid lines leave the cart; store-catalogue lines (checked out on the store) stay.
        cart_state = await self.get_state(CartState)
        (await self.get_state(DiscountState)).forget()
        cart_updated = cart_state._save(cart.store_lines(cart_state._lines()))
        remember = rx.call_script(f"{remember_order_script(number, _KEPT_TOKEN)}; {FORGET_ORDER_TOKEN_SCRIPT}")
        return [event for event in (remember, cart_updated) if event is not None]

    async def _finish_paid(self) -> list[rx.event.EventSpec]:
        number = self._order_number
        closed = await self._close_for(number)
        try:
            emailed = await asyncio.to_thread(_confirmation_queued, number)
        except Exception:
            log.exception("checking the confirmation email of order %s failed", number)
            emailed = False
        if emailed:
            toast = rx.toast.success(ORDER_PLACED_EMAILED, description=ORDER_EMAILED_TEXT.format(number=number))
        else:
            toast = rx.toast.success(ORDER_PLACED, description=f"Order {number} has been submitted for fulfilment.")
        return [*closed, toast, *await _thank_you(number)]

    @rx.event
    async def card_checked(self, result: dict[str, Any]):
        card_errors = {k: str(v) for k, v in (result or {}).get("fieldErrors", {}).items() if k in CARD_FIELDS}
        self.field_errors = {**self.field_errors, **card_errors}
        if self.field_errors or not (result or {}).get("ok"):
            self.submitting = False
            if not self.field_errors:
                return rx.toast.error(CHECKOUT_FAILED, description=(result or {}).get("error") or GENERIC_FAILURE)
            return None
        placed = await self._placed(_kept_token(result or {}))
        if not isinstance(placed, checkout.PlacedOrder):
            return placed
        return rx.call_script(
            checkout_call(
                "payByCard",
                ORDER_TOKEN_KEY,
                list(CARD_FIELDS),
                self._order_number,
                _new_token(placed, result or {}),
                new_payment_id(),
            ),
            callback=CheckoutState.payment_done,
        )

    @rx.event
    async def payment_done(self, result: dict[str, Any]):
        self.submitting = False
        result = result or {}
        body = result.get("body") or {}
        if result.get("ok"):
            # This browser keeps the order so /order-status shows it without any typing.
            return await self._finish_paid()
        details = body.get("details")
        if isinstance(details, dict):
            self.field_errors = {k: str(v) for k, v in details.items() if k in CARD_FIELDS}
        reason = details if isinstance(details, str) else body.get("error")
        return rx.toast.error(CHECKOUT_FAILED, description=reason or GENERIC_FAILURE)
