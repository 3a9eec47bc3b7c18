"""Repricing an order's lines from the catalogue: the browser's prices are never trusted, only
compared with ours to catch a stale cart (spec section 5)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session

from storefront.services.orders.cart import Totals, totals_for
from storefront.services.orders.order_request import PRICE_MISMATCH, PRICE_TOLERANCE_CENTS, OrderLineRequest
from storefront.services.orders.shopping import LinePick, price_lines
from storefront.services.platform.errors import ServiceError, ValidationError


@dataclass(frozen=True, slots=True)
class PricedLine:
    """A cart line priced from the catalogue."""

    product_id: str
    variant_id: str
    name: str
    size: str
    quantity: int
    unit_price_cents: int
    image_url: str
    color: str = ""

    @property
    def line_total_cents(self) -> int:
        return self.unit_price_cents * self.quantity


# --------------------------------------------------------------------------- pricing


def reprice_lines(session: Session, items: Sequence[OrderLineRequest]) -> list[PricedLine]:
    """Price every line from the catalogue; PRICE_MISMATCH when a browser price is off by > 0.01."""
    priced: list[PricedLine] = []
    picks = [LinePick(item.product_id, item.size, item.quantity, item.color) for item in items]
    for index, (item, line) in enumerate(zip(items, price_lines(session, picks), strict=True)):
        if isinstance(line, ValidationError):  # colour or size no longer offered: point at the line
            field = "color" if "color" in line.field_errors else "size"
            message = line.field_errors.get(field, line.message)
            raise ValidationError(message, {f"items.{index}.{field}": message}) from line
        if isinstance(line, ServiceError):
            raise line
        if abs(line.price_cents - item.price_cents) > PRICE_TOLERANCE_CENTS:
            raise ValidationError(PRICE_MISMATCH)
        priced.append(
            PricedLine(
                product_id=line.product_id,
                variant_id=line.variant_id or "",
                name=line.name,
                size=line.size,
                quantity=line.quantity,
                unit_price_cents=line.price_cents,
                image_url=line.image,
                color=line.color,
            )
        )
    return priced


def check_browser_subtotal(items: Sequence[OrderLineRequest], subtotal_cents: int) -> None:
    """PRICE_MISMATCH unless the browser's prices times quantities add up to its subtotal."""
    browser_sum = sum(item.price_cents * item.quantity for item in items)
    if abs(browser_sum - subtotal_cents) > PRICE_TOLERANCE_CENTS:
        raise ValidationError(PRICE_MISMATCH)


def order_totals(lines: Sequence[PricedLine]) -> Totals:
    """Subtotal, shipping (free over $100), tax (always 0) and total, in cents."""
    return totals_for(sum(line.line_total_cents for line in lines))
