"""Cart state: the cart lives in the browser's local storage; rules come from services.cart."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TypedDict

import reflex as rx

from storefront.db import session_scope
from storefront.services import cart
from storefront.services.errors import NotFoundError, ValidationError
from storefront.services.money import format_usd
from storefront.services.shopping import (
    NO_VARIANTS_TEXT,
    NO_VARIANTS_TITLE,
    new_cart_line,
    quick_add_line,
    refresh_lines,
)

ADDED_TITLE = "Added to cart"
ITEMS_REMOVED = "Some items are no longer available and were removed from your cart."


class CartRow(TypedDict):
    """One cart line as the cart page shows it."""

    id: str
    name: str
    size: str
    color: str
    #: "Size: M · Color: Black" (just "Size: M" for a product in one colour).
    options: str
    #: "M · Black" (just "M"), for the checkout summary.
    options_short: str
    image: str
    quantity: int
    price: str
    line_total: str


def options_text(line: cart.CartLine) -> str:
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


class CartState(rx.State):
    """The shopper's cart, stored as JSON under `cart-storage`."""

    cart_json: str = rx.LocalStorage("[]", name=cart.CART_STORAGE_KEY, sync=True)

    def _lines(self) -> list[cart.CartLine]:
        return cart.load_cart(self.cart_json)

    def _save(self, lines: object) -> None:
        self.cart_json = cart.dump_cart(lines)  # type: ignore[arg-type]

    @rx.var
    def total_quantity(self) -> int:
        return cart.total_quantity(self._lines())

    @rx.var
    def rows(self) -> list[CartRow]:
        return [
            CartRow(
                id=line.product_id,
                name=line.name,
                size=line.size,
                color=line.color,
                options=options_text(line),
                options_short=options_short(line),
                image=line.image,
                quantity=line.quantity,
                price=format_usd(line.price_cents),
                line_total=format_usd(line.line_total_cents),
            )
            for line in self._lines()
        ]

    @rx.var
    def subtotal(self) -> str:
        return format_usd(cart.cart_totals(self._lines()).subtotal_cents)

    @rx.var
    def shipping(self) -> str:
        return format_usd(cart.cart_totals(self._lines()).shipping_cents)

    @rx.var
    def total(self) -> str:
        return format_usd(cart.cart_totals(self._lines()).total_cents)

    @rx.event
    def increment(self, product_id: str, size: str, color: str = "") -> None:
        self._save(cart.increment(self._lines(), product_id, size, color))

    @rx.event
    def decrement(self, product_id: str, size: str, color: str = "") -> None:
        self._save(cart.decrement(self._lines(), product_id, size, color))

    @rx.event
    def remove(self, product_id: str, size: str, color: str = "") -> None:
        self._save(cart.remove_line(self._lines(), product_id, size, color))

    @rx.event
    def clear(self) -> None:
        self._save([])

    @rx.event(background=True)
    async def refresh_prices(self):
        """Bring the stored lines up to today's catalogue, so checkout never meets a stale price."""
        async with self:
            lines = self._lines()
        if not lines:
            return
        fresh, dropped = await asyncio.to_thread(_refreshed, lines)
        async with self:
            if self._lines() == lines:  # the shopper changed nothing meanwhile
                self._save(fresh)
        if dropped:
            yield rx.toast.warning(ITEMS_REMOVED)

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
            self._save(cart.add_line(self._lines(), line))
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
