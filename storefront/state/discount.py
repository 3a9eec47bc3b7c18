"""The discount code field of the cart and the checkout dialog: the code the shopper applied (kept
in the browser's storage, as the cart is) and what the server priced it at. The browser never
computes a discount: each change of the cart asks the server again (services.discounts.quotes),
and placing the order checks the code once more (services.orders.order_discounts)."""

from __future__ import annotations

import asyncio
from typing import Any

import reflex as rx

from storefront.services.discounts import quotes
from storefront.services.discounts.rules import describe_applied
from storefront.services.orders import cart
from storefront.services.platform.money import format_usd
from storefront.wiring import services, session_scope

CODE_STORAGE_KEY = "discount-code"
CODE_REQUIRED = "Enter a discount code."
MAX_CODE_CHARS = 40


def _price(text: str, lines: list[cart.CartLine]) -> tuple[quotes.Quote, cart.Totals]:
    """The code on the cart's own lines, and the cart's totals with it (without it when refused)."""
    plain = cart.cart_totals(lines)
    with session_scope() as session:
        found = quotes.quote(
            session, text, [(line.product_id, line.line_total_cents) for line in lines], services().clock()
        )
    applied = found.applied
    if applied is None:
        return found, plain
    return found, cart.totals_for(plain.subtotal_cents, applied.discount_cents, applied.free_shipping)


class DiscountState(rx.State):
    """The applied code and its priced effect on the cart's summary."""

    #: The code as applied (the staff's spelling), "" for none; kept with the cart in the browser.
    code: str = rx.LocalStorage("", name=CODE_STORAGE_KEY, sync=True)
    #: What the field holds as the shopper types.
    typed: str = ""
    #: Why the code does not apply ("" when it does, or without one).
    message: str = ""
    applied: bool = False
    #: "SAVE10 · 10% off"
    label: str = ""
    #: The summary's lines with the code: "-$2.50", shipping and total.
    discount: str = ""
    shipping: str = ""
    total: str = ""
    total_cents: int = 0
    busy: bool = False

    @rx.event
    def set_typed(self, value: str) -> None:
        self.typed = value[:MAX_CODE_CHARS]

    @rx.event
    def key_down(self, key: str):
        """Enter in the field applies the code (the field is in no form)."""
        return DiscountState.apply if key == "Enter" else None

    def _clear(self) -> None:
        self.applied = False
        self.label = self.discount = self.shipping = self.total = ""
        self.total_cents = 0

    async def _own_lines(self) -> list[cart.CartLine]:
        from storefront.state.cart import CartState  # the cart's state imports this one

        return cart.own_lines((await self.get_state(CartState))._lines())

    async def _quote(self, text: str) -> None:
        """Price `text` on the cart now: applied, or refused with the reason (the code is dropped)."""
        lines = await self._own_lines()
        if not lines:
            self._clear()
            return
        self.busy = True
        try:
            found, totals = await asyncio.to_thread(_price, text, lines)
        finally:
            self.busy = False
        applied = found.applied
        if applied is None:
            self._clear()
            self.code = ""
            self.message = found.refusal
            return
        self.code = self.typed = applied.code
        self.message = ""
        self.applied = True
        self.label = describe_applied(applied.code, applied.discount_cents, applied.free_shipping)
        self.discount = format_usd(-totals.discount_cents)
        self.shipping = format_usd(totals.shipping_cents)
        self.total = format_usd(totals.total_cents)
        self.total_cents = totals.total_cents

    @rx.event
    async def apply(self) -> None:
        text = self.typed.strip()
        if not text:
            self.message = CODE_REQUIRED
            return
        await self._quote(text)

    @rx.event
    def remove(self) -> None:
        self.forget()

    @rx.event
    async def requote(self, _result: Any = None) -> None:
        """Price the kept code again (the cart changed, or the page opened with one)."""
        if self.code:
            await self._quote(self.code)
        else:
            self._clear()

    def forget(self) -> None:
        """The order was placed: its code is not carried to the next cart."""
        self.code = self.typed = self.message = ""
        self._clear()

    def refused(self, message: str) -> None:
        """The order refused the code (it no longer applies): the summary goes back to no discount."""
        self.code = ""
        self.message = message
        self._clear()
