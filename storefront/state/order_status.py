"""/order-status: the order an email's signed link opens, the order this browser placed (by its
kept token) and a number + email lookup.

The browser keeps its last order's number and access token in local storage (`last-order`),
written by the checkout when payment succeeds. The token opens that order without any typing;
nothing read back from the browser is trusted beyond what the token itself opens.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypedDict

import reflex as rx

from storefront.services.orders import cart, order_lookup
from storefront.services.orders.order_access import find_order
from storefront.services.orders.order_emails import LINK_KEY_PARAM, LINK_ORDER_PARAM
from storefront.services.orders.order_lookup import GuestOrder
from storefront.services.platform.errors import (
    NotFoundError,
    TooManyRequestsError,
    ValidationError,
)
from storefront.services.platform.money import format_usd
from storefront.state.cart import CartState
from storefront.wiring import services, session_scope

log = logging.getLogger(__name__)

LAST_ORDER_KEY = "last-order"
#: Where the tab keeps the token of the order its checkout dialog placed (session storage).
ORDER_TOKEN_KEY = "checkout-order-token"
KEPT_TOKEN = f"(window.sessionStorage.getItem({json.dumps(ORDER_TOKEN_KEY)}) || '')"
FORGET_ORDER_TOKEN_SCRIPT = f"window.sessionStorage.removeItem({json.dumps(ORDER_TOKEN_KEY)})"
#: The query parameters Stripe adds to the return address of a method that left the page.
INTENT_PARAM = "payment_intent"
INTENT_SECRET_PARAM = "payment_intent_client_secret"
NOT_FOUND_MESSAGE = "We couldn't find an order with that number and email."
LOAD_FAILED = "We couldn't load your order right now. Please try again."
LOOKUP_FAILED = "Something went wrong. Please try again."
LINK_INVALID = "This order link is not valid. Find your order below with its number and the email you used at checkout."


class OrderLine(TypedDict):
    """One bought line as the page shows it."""

    name: str
    options: str
    quantity: int
    line_total: str
    image_url: str


class OrderCard(TypedDict):
    """An order as the page shows it: labels and amounts already formatted."""

    number: str
    placed: str
    status: str
    payment: str
    subtotal: str
    #: "-$5.00" for an order placed with a discount code, else "".
    discount: str
    shipping: str
    total: str
    items: list[OrderLine]
    tracking_carrier: str
    tracking_number: str
    tracking_url: str
    #: The one customer status: its badge, colour and sentence (customer_status.py).
    status_tone: str
    status_text: str
    refunded: str
    #: Opened by its signed link and paid: the page thanks the shopper, with the email and address.
    thank_you: bool
    email: str
    address: list[str]


def _date(iso: str | None) -> str:
    """'March 5, 2030' from an ISO timestamp ('' when absent)."""
    if not iso:
        return ""
    moment = datetime.fromisoformat(iso)
    return f"{moment:%B} {moment.day}, {moment.year}"


def _options(line: dict[str, Any]) -> str:
    parts = [f"Size: {line['size']}"] if line.get("size") else []
    if line.get("color"):
        parts.append(f"Color: {line['color']}")
    return " · ".join(parts)


def order_card(order: GuestOrder) -> OrderCard:
    """The service's guest order formatted for the page (its amounts from the cents)."""
    view, customer = order.view, order.customer
    return OrderCard(
        number=view["orderNumber"],
        placed=_date(view.get("createdAt")),
        status=customer.label if customer else view["statusLabel"],
        payment=view["paymentStatusLabel"],
        subtotal=format_usd(order.subtotal_cents),
        discount=format_usd(-order.discount_cents) if order.discount_cents else "",
        shipping=format_usd(order.shipping_cents),
        total=format_usd(order.total_cents),
        items=[
            OrderLine(
                name=line["name"],
                options=_options(line),
                quantity=line["quantity"],
                line_total=format_usd(cents),
                image_url=line.get("imageUrl") or "",
            )
            for line, cents in zip(view["items"], order.line_totals_cents, strict=True)
        ],
        tracking_carrier=(view.get("trackingCarrier") or "").upper(),
        tracking_number=view.get("trackingNumber") or "",
        tracking_url=view.get("trackingUrl") or "",
        status_tone=customer.tone if customer else "gray",
        status_text=customer.sentence if customer else "",
        refunded=format_usd(order.refunded_cents) if order.refunded_cents else "",
        thank_you=bool(order.email) and order.paid and (customer is None or customer.going_ahead),
        email=order.email,
        address=list(order.address),
    )


def remembered_order(number: str, token: str) -> str:
    """What local storage keeps for the browser's last order."""
    return json.dumps({"number": number, "token": token})


READ_REMEMBERED_SCRIPT = f"window.localStorage.getItem({json.dumps(LAST_ORDER_KEY)}) || ''"


def remember_order_script(number: str, token_expression: str) -> str:
    """The script that keeps the browser's last order, its token read by `token_expression` in the
    page (the server never holds it); nothing is kept when that gives no token."""
    return (
        f"(() => {{ const token = {token_expression}; if (token) window.localStorage.setItem("
        f"{json.dumps(LAST_ORDER_KEY)}, JSON.stringify({{number: {json.dumps(number)}, token}})); }})()"
    )


def forget_remembered_script(kept: str) -> str:
    """The script that drops the browser's last order, unless another one replaced it meanwhile."""
    key = json.dumps(LAST_ORDER_KEY)
    return f"if (window.localStorage.getItem({key}) === {json.dumps(kept)}) window.localStorage.removeItem({key})"


def _read_remembered(value: str) -> tuple[str, str] | None:
    try:
        kept = json.loads(value) if value else None
    except ValueError:
        return None
    if not isinstance(kept, dict):
        return None
    number, token = kept.get("number"), kept.get("token")
    if not isinstance(number, str) or not isinstance(token, str) or not number or not token:
        return None
    return number, token


def _view_by_token(number: str, token: str) -> GuestOrder:
    with session_scope() as session:
        return order_lookup.guest_order_by_token(session, number, token)


def _view_by_link(number: str, key: str) -> GuestOrder:
    with session_scope() as session:
        return order_lookup.guest_order_by_link(session, number, key, services().emails)


def _returned(intent_id: str, client_secret: str) -> tuple[str, str, bool]:
    """Apply a returning payment's intent: the order's number, its own page, and whether it is paid
    or being processed."""
    intents = services().intents
    if intents is None:
        raise NotFoundError(LINK_INVALID)
    number, settled = intents.returned(intent_id, client_secret)
    with session_scope() as session:
        return number, services().emails.order_path(find_order(session, number)), settled


def _lookup(client: str, number: str, email: str) -> GuestOrder:
    """Count the lookup against the client's address (shared with the API), then look it up."""
    services().lookup_limiter.check(order_lookup.lookup_key(client))
    with session_scope() as session:
        return order_lookup.lookup_guest_order(session, number, email)


class OrderStatusState(rx.State):
    """The order shown on /order-status, how it got there, and the lookup form's messages."""

    # The browser's last order (number and token) stays in its local storage: the page sends it
    # with `load_remembered` and the state never keeps it.
    order: OrderCard | None = None
    #: True while the browser's own order loads; the page shows a skeleton meanwhile.
    loading: bool = False
    load_failed: bool = False
    searching: bool = False
    lookup_error: str = ""
    #: Shown instead of an order when an email's link does not verify.
    link_error: str = ""
    field_errors: dict[str, str] = {}
    # Counts the lookups sent, so the browser's own order, loading meanwhile, never replaces one.
    _lookups: int = 0

    @rx.var
    def has_order(self) -> bool:
        return self.order is not None

    @rx.event
    def open_page(self):
        """on_load (and 'Try again'): the order of an email's link when the address carries one,
        else ask the browser for its last order, then show it."""
        query = self.router.url.query_parameters
        number, key = query.get(LINK_ORDER_PARAM, ""), query.get(LINK_KEY_PARAM, "")
        intent_id = query.get(INTENT_PARAM, "")
        if intent_id:
            return OrderStatusState.returned_from_payment(intent_id, query.get(INTENT_SECRET_PARAM, ""))
        if number or key:
            return OrderStatusState.load_linked(number, key)
        self.link_error = ""
        return rx.call_script(READ_REMEMBERED_SCRIPT, callback=OrderStatusState.load_remembered)

    async def _show(self, fetch: Callable[[], GuestOrder], what: str) -> bool:
        """Load an order with `fetch` (in a thread) and show it, unless a lookup sent meanwhile owns
        the page; False when no such order opens (the caller says why), True otherwise."""
        async with self:
            self.order, self.lookup_error, self.field_errors, self.load_failed = None, "", {}, False
            self.link_error, self.loading = "", True
            lookups = self._lookups
        try:
            view = await asyncio.to_thread(fetch)
        except NotFoundError:
            async with self:
                self.loading = False
            return False
        except Exception:
            log.exception("loading %s failed", what)
            async with self:
                self.loading, self.load_failed = False, self._lookups == lookups
            return True
        async with self:
            # A lookup sent meanwhile owns the page, whether it found an order or not.
            if self._lookups == lookups:
                self.order = order_card(view)
            self.loading = False
        return True

    @rx.event(background=True)
    async def load_linked(self, number: str, key: str):
        """Show the order an email's link opens; a forged or wrong key shows nothing of it."""
        number, key = (number if isinstance(number, str) else ""), (key if isinstance(key, str) else "")
        if not await self._show(lambda: _view_by_link(number, key), "the order of an email link"):
            async with self:
                self.link_error = LINK_INVALID

    @rx.event(background=True)
    async def returned_from_payment(self, intent_id: str, client_secret: str):
        """A payment method that left the page came back: apply its payment, close the checkout as a
        paid one does (the cart lets its lines go, the browser keeps the order), then open the
        order's own page."""
        async with self:
            self.order, self.link_error, self.load_failed, self.loading = None, "", False, True
        try:
            number, path, settled = await asyncio.to_thread(_returned, str(intent_id), str(client_secret))
        except NotFoundError:
            async with self:
                self.loading, self.link_error = False, LINK_INVALID
            return
        except Exception:
            log.exception("applying a returning payment failed")
            async with self:
                self.loading, self.load_failed = False, True
            return
        if settled:
            async with self:
                cart_state = await self.get_state(CartState)
                updated = cart_state._save(cart.store_lines(cart_state._lines()))
            yield rx.call_script(f"{remember_order_script(number, KEPT_TOKEN)}; {FORGET_ORDER_TOKEN_SCRIPT}")
            if updated is not None:
                yield updated
        yield rx.redirect(path)

    @rx.event(background=True)
    async def load_remembered(self, remembered: str):
        """Show the order this browser placed last (as the page sent it), opened by its token."""
        remembered = remembered if isinstance(remembered, str) else ""
        kept = _read_remembered(remembered)
        if kept is None:
            async with self:
                self.order, self.lookup_error, self.field_errors, self.load_failed = None, "", {}, False
                self.link_error, self.loading = "", False
            return
        if not await self._show(lambda: _view_by_token(*kept), "the remembered order"):
            # The token no longer opens it (or the order is gone): nothing left to show.
            yield rx.call_script(forget_remembered_script(remembered))

    @rx.event(background=True)
    async def find_order(self, form: dict[str, Any]):
        """The 'Find order' form: number and email, throttled per client address. Its answer
        replaces the order shown: a lookup that finds nothing leaves no other order on screen."""
        async with self:
            if self.searching:
                return
            self._lookups += 1
            self.loading, self.load_failed, self.link_error = False, False, ""
            self.lookup_error, self.field_errors = "", {}
            try:
                number, email = order_lookup.lookup_request(form)
            except ValidationError as error:
                self.order, self.field_errors = None, error.field_errors
                return
            self.searching = True
            client = self.router.session.client_ip or "unknown"
        error = ""
        view: GuestOrder | None = None
        try:
            view = await asyncio.to_thread(_lookup, client, number, email)
        except NotFoundError:
            error = NOT_FOUND_MESSAGE
        except TooManyRequestsError as refused:
            error = refused.message
        except Exception:
            log.exception("order lookup failed")
            error = LOOKUP_FAILED
        async with self:
            self.searching, self.lookup_error = False, error
            self.order = order_card(view) if view is not None else None
