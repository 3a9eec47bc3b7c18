"""Cart state: the cart lives in the browser's local storage; rules come from services.orders.cart."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TypedDict

import reflex as rx

from storefront.services.orders import cart, store_lines
from storefront.services.orders.shopping import (
    NO_VARIANTS_TEXT,
    NO_VARIANTS_TITLE,
    new_cart_line,
    quick_add_line,
    refresh_lines,
)
from storefront.services.platform.errors import NotFoundError, ValidationError
from storefront.services.platform.money import format_usd
from storefront.services.shopify.catalogue import (
    STATUS_CONNECTED,
    STATUS_DEMO,
    STATUS_ERROR,
    StoreCatalogue,
    StoreStatus,
    StoreUnavailable,
)
from storefront.services.shopify.graphql import set_buyer_ip
from storefront.services.shopify.health import StoreHealth
from storefront.state.discount import DiscountState
from storefront.wiring import services, session_scope

ADDED_TITLE = "Added to cart"
ITEMS_REMOVED = "Some items are no longer available and were removed from your cart."
# The store catalogue's toasts (spec section 8).
STORE_ADDED_TITLE = "Added to Cart"
STORE_PRODUCT_ERROR_TITLE = "Error Loading Product"
STORE_PRODUCT_ERROR = store_lines.STORE_PRODUCT_ERROR
#: What the store group's Checkout button says when it cannot open the store's cart.
STORE_CHECKOUT_DEMO = (
    "The store catalogue is in demo mode: checking out these items needs a connected Shopify store "
    "(SHOPIFY_STORE_DOMAIN and SHOPIFY_STOREFRONT_TOKEN)."
)
STORE_CHECKOUT_REFUSED_TITLE = "Cannot check out on the store"
STORE_CHECKOUT_FAILED_TITLE = "Checkout unavailable"
STORE_CHECKOUT_CHECKING = "Checking the store..."
STORE_UNREACHABLE = "Could not reach the store. Please try again later."
STORE_NAME_FALLBACK = "the store"
#: The window event fired each time the stored cart changes (spec section 4: after a placed order).
CART_UPDATED_EVENT = "cart-updated"
# An event sent after the state update, so a listener already reads the new cart in local storage;
# then the server prices the applied discount code on the new cart.
_CART_UPDATED = rx.call_script(
    f"window.dispatchEvent(new Event('{CART_UPDATED_EVENT}'))", callback=DiscountState.requote
)


def store_catalogue(client_ip: str = "") -> StoreCatalogue:
    """The process's store catalogue (the demo one without Shopify settings); its requests in this
    task are made for the shopper at `client_ip`."""
    set_buyer_ip(client_ip)
    return services().store_catalogue


def store_health() -> StoreHealth:
    """The process's cached status of the store catalogue."""
    return services().store_health


class CartRow(TypedDict):
    """One cart line as the cart page shows it."""

    id: str
    name: str
    size: str
    color: str
    #: "" for our catalogue, "shopify" for the store catalogue.
    source: str
    #: "Size: M · Color: Black" (just "Size: M" for a product in one colour).
    options: str
    #: "M · Black" (just "M"), for the checkout summary.
    options_short: str
    image: str
    quantity: int
    price: str
    line_total: str


def options_text(line: cart.CartLine) -> str:
    if not line.is_ours:
        return line.size  # the store's variant title, e.g. "Black / M"
    return f"Size: {line.size} · Color: {line.color}" if line.color else f"Size: {line.size}"


def options_short(line: cart.CartLine) -> str:
    return f"{line.size} · {line.color}" if line.color else line.size


def added_text(line: cart.CartLine) -> str:
    """The 'Added to cart' toast's text: the product, its size and, when chosen, its colour."""
    return f"{line.name} - Size {options_short(line)}"


def _priced_line(product_id: str, size: str, color: str) -> cart.CartLine:
    with session_scope() as session:
        return new_cart_line(session, product_id, size, color=color)


def _quick_add_line(product_id: str) -> cart.CartLine:
    with session_scope() as session:
        return quick_add_line(session, product_id)


def _refusal_toast(error: ValidationError | NotFoundError) -> rx.event.EventSpec:
    """The spec's toast for a pick the catalogue refuses."""
    if error.message == NO_VARIANTS_TEXT:
        return rx.toast.error(NO_VARIANTS_TITLE, description=NO_VARIANTS_TEXT)
    return rx.toast.error(error.message)


def _refreshed(lines: list[cart.CartLine]) -> tuple[list[cart.CartLine], int]:
    with session_scope() as session:
        return refresh_lines(session, lines)


def _row(line: cart.CartLine) -> CartRow:
    return CartRow(
        id=line.product_id,
        name=line.name,
        size=line.size,
        color=line.color,
        source=line.source,
        options=options_text(line),
        options_short=options_short(line),
        image=line.image,
        quantity=line.quantity,
        price=format_usd(line.price_cents),
        line_total=format_usd(line.line_total_cents),
    )


class CartState(rx.State):
    """The shopper's cart, stored as JSON under `cart-storage`."""

    cart_json: str = rx.LocalStorage("[]", name=cart.CART_STORAGE_KEY, sync=True)

    def _lines(self) -> list[cart.CartLine]:
        return cart.load_cart(self.cart_json)

    #: The store catalogue as the cart last saw it ("" until the cart page asks): its status
    #: ('demo', 'connected', 'error'), name, domain and message.
    store_status: str = ""
    store_name: str = ""
    store_domain: str = ""
    store_message: str = ""
    #: What the store refused at the last 'Checkout on <store>' (a sold-out line, a quantity over
    #: stock), in plain words; cleared by the next try or a change of the cart.
    store_checkout_problems: list[str] = []
    store_checkout_busy: bool = False

    def _save(self, lines: Iterable[cart.CartLine]) -> rx.event.EventSpec | None:
        """Store the cart; the cart-updated event to send when that changed it, else None. Every
        write of the cart goes through here, so the event is never forgotten."""
        stored = cart.dump_cart(lines)
        if stored == self.cart_json:
            return None
        self.cart_json = stored
        self.store_checkout_problems = []  # they were about the cart as it was
        return _CART_UPDATED

    def _add_line(self, line: cart.CartLine) -> tuple[rx.event.EventSpec | None, str]:
        """Add a priced line: (the cart-updated event or None, "") or (None, why it was refused)."""
        try:
            return self._save(cart.add_line(self._lines(), line)), ""
        except ValidationError as refusal:  # the cart already holds MAX_CART_LINES lines
            return None, refusal.message

    def _own_lines(self) -> list[cart.CartLine]:
        return cart.own_lines(self._lines())

    @rx.var
    def total_quantity(self) -> int:
        """Every line, ours and the store's: what the header badge shows."""
        return cart.total_quantity(self._lines())

    @rx.var
    def rows(self) -> list[CartRow]:
        """Our lines: what our order summary and checkout sell."""
        return [_row(line) for line in self._own_lines()]

    @rx.var
    def store_rows(self) -> list[CartRow]:
        """The store-catalogue lines, checked out on the store."""
        return [_row(line) for line in cart.store_lines(self._lines())]

    @rx.var
    def has_own_lines(self) -> bool:
        return bool(self._own_lines())

    @rx.var
    def has_store_lines(self) -> bool:
        return bool(cart.store_lines(self._lines()))

    @rx.var
    def subtotal(self) -> str:
        return format_usd(cart.cart_totals(self._own_lines()).subtotal_cents)

    @rx.var
    def shipping(self) -> str:
        return format_usd(cart.cart_totals(self._own_lines()).shipping_cents)

    @rx.var
    def total(self) -> str:
        return format_usd(cart.cart_totals(self._own_lines()).total_cents)

    @rx.var
    def store_subtotal(self) -> str:
        return format_usd(cart.subtotal_cents(cart.store_lines(self._lines())))

    @rx.var
    def store_label(self) -> str:
        """The store's name for the 'Checkout on <store name>' button."""
        return self.store_name or self.store_domain or STORE_NAME_FALLBACK

    @rx.var
    def store_checkout_ready(self) -> bool:
        """Whether 'Checkout on <store>' can hand the store lines over (the store is connected)."""
        return self.store_status == STATUS_CONNECTED and any(
            store_lines.checkout_line(line) is not None for line in cart.store_lines(self._lines()))

    @rx.var
    def store_checkout_note(self) -> str:
        """Why the store's Checkout button is disabled ("" when it can hand the lines over)."""
        if self.store_status == STATUS_CONNECTED:
            return "" if self.store_checkout_ready else self.store_message
        if self.store_status == STATUS_DEMO:
            return STORE_CHECKOUT_DEMO
        return self.store_message or STORE_CHECKOUT_CHECKING

    @rx.event
    def increment(self, product_id: str, size: str, color: str = "", source: str = "") -> rx.event.EventSpec | None:
        return self._save(cart.increment(self._lines(), product_id, size, color, source))

    @rx.event
    def decrement(self, product_id: str, size: str, color: str = "", source: str = "") -> rx.event.EventSpec | None:
        return self._save(cart.decrement(self._lines(), product_id, size, color, source))

    @rx.event
    def remove(self, product_id: str, size: str, color: str = "", source: str = "") -> rx.event.EventSpec | None:
        return self._save(cart.remove_line(self._lines(), product_id, size, color, source))

    @rx.event
    def clear(self) -> rx.event.EventSpec | None:
        return self._save([])

    @rx.event(background=True)
    async def refresh_prices(self):
        """Bring the stored lines up to today's catalogues, so checkout never meets a stale price.

        Our lines are repriced from our catalogue cache; store-catalogue lines from the store, each
        product read once, and left as they are while the store cannot answer (never dropped for
        an outage). The store's status is read too, for the store group's Checkout button."""
        async with self:
            stored = cart.read_cart(self.cart_json)
            lines = stored.lines
            trimmed = self._save(lines) if stored.trimmed else None
        if trimmed:
            yield trimmed
        if stored.trimmed:
            yield rx.toast.warning(cart.CART_TRIMMED)
        if not lines:
            return
        ours, theirs = cart.split_by_source(lines)
        catalogue = store_catalogue(self.router.session.client_ip)
        if theirs:  # only a cart with store lines shows the store's Checkout button
            try:
                status = await store_health().status()  # the store is asked at most once a minute
            except Exception:  # noqa: BLE001 - a health check: an error shows as the reason, never as a crash
                status = StoreStatus(STATUS_ERROR, STORE_UNREACHABLE)
            async with self:
                self.store_status, self.store_message = status.status, status.message
                self.store_name, self.store_domain = status.shop_name, status.domain
        fresh, dropped = await asyncio.to_thread(_refreshed, ours) if ours else ([], 0)
        store_fresh = theirs
        if theirs:
            try:
                store_fresh, store_dropped = await store_lines.repriced_store_lines(catalogue, theirs)
                dropped += store_dropped
            except StoreUnavailable:
                store_fresh = theirs
        updated = None
        async with self:
            if self._lines() == lines:  # the shopper changed nothing meanwhile
                updated = self._save([*fresh, *store_fresh])
        if updated:
            yield updated
        if dropped:
            yield rx.toast.warning(ITEMS_REMOVED)

    @rx.event(background=True)
    async def checkout_on_store(self):
        """'Checkout on <store>': a cart on the store (Shopify's cartCreate) holding the store lines,
        then the shopper goes to its checkout. What the store refuses (a sold-out line, a quantity
        over stock) is shown in plain words and nobody leaves."""
        async with self:
            if self.store_checkout_busy:
                return
            lines = cart.store_lines(self._lines())
            self.store_checkout_busy, self.store_checkout_problems = True, []
        try:
            handoff = await store_lines.store_checkout(store_catalogue(self.router.session.client_ip), lines)
        except ValidationError as refusal:  # nothing to hand over, or the demo catalogue
            yield rx.toast.error(STORE_CHECKOUT_REFUSED_TITLE, description=refusal.message)
            return
        except StoreUnavailable as error:
            yield rx.toast.error(STORE_CHECKOUT_FAILED_TITLE, description=error.message)
            return
        finally:
            async with self:
                self.store_checkout_busy = False
        if handoff.problems:
            async with self:
                self.store_checkout_problems = list(handoff.problems)
            yield rx.toast.error(STORE_CHECKOUT_REFUSED_TITLE, description=" ".join(handoff.problems))
            return
        yield rx.redirect(handoff.checkout_url)

    @rx.event(background=True)
    async def add_store_item(self, product_id: str, variant_id: str, quantity: int = 1):
        """Add a store-catalogue variant: price, name, image and size (the variant title) come from
        the store catalogue on the server, never from the browser; quantity within 1..99. The demo
        catalogue's items are refused here too, whatever the page's button allowed."""
        try:
            status = await store_health().status()
            catalogue = store_catalogue(self.router.session.client_ip)
            line = await store_lines.priced_store_line(catalogue, product_id, variant_id, quantity, status=status)
        except ValidationError as refusal:  # the demo catalogue sells nothing
            yield rx.toast.error(refusal.message)
            return
        except (NotFoundError, StoreUnavailable):
            yield rx.toast.error(STORE_PRODUCT_ERROR_TITLE, description=STORE_PRODUCT_ERROR)
            return
        async with self:
            updated, refusal = self._add_line(line)
        if refusal:
            yield rx.toast.error(refusal)
            return
        if updated:
            yield updated
        yield rx.toast.success(STORE_ADDED_TITLE, description=f"{line.name} - {line.size}")

    async def _add_priced(
        self, price_line: Callable[[], cart.CartLine], then_go_to: str = ""
    ) -> AsyncIterator[rx.event.EventSpec]:
        """Price a line off the event loop, add it, and yield the toasts (and Buy Now's redirect)."""
        try:
            line = await asyncio.to_thread(price_line)
        except (ValidationError, NotFoundError) as error:
            yield _refusal_toast(error)
            return
        async with self:
            updated, refusal = self._add_line(line)
        if refusal:
            yield rx.toast.error(refusal)
            return
        if updated:
            yield updated
        yield rx.toast.success(ADDED_TITLE, description=added_text(line))
        if then_go_to:
            yield rx.redirect(then_go_to)

    @rx.event(background=True)
    async def add(self, product_id: str, size: str, then_go_to: str = "", color: str = ""):
        """Price the pick from the catalogue and add it; `then_go_to` is for Buy Now."""
        async for event in self._add_priced(lambda: _priced_line(product_id, size, color), then_go_to):
            yield event

    @rx.event(background=True)
    async def quick_add(self, product_id: str):
        """Quick Add on a card whose product comes in one size and one colour: add that."""
        async for event in self._add_priced(lambda: _quick_add_line(product_id)):
            yield event
