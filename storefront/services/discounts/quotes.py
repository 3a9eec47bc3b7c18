"""Pricing a cart with a code: what the code takes off these lines now, or why it does not apply.

The cart's page and the checkout ask this to show the discount; placing the order asks it again
and then claims a use (claims.py), so what was shown is never what decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from storefront.models import CatalogProduct, DiscountCode
from storefront.services.discounts import codes
from storefront.services.discounts.rules import (
    CODE_UNKNOWN,
    FREE_SHIPPING,
    DiscountLine,
    DiscountRule,
    discount_cents,
    refusal,
)


@dataclass(frozen=True, slots=True)
class AppliedDiscount:
    """A code that applies: its row, the code as staff wrote it, and what it takes off."""

    discount_id: int
    code: str
    discount_cents: int
    free_shipping: bool
    per_customer_limit: int | None


@dataclass(frozen=True, slots=True)
class Quote:
    """The code's effect on a cart: `applied`, or the `refusal` saying why not (both empty without a code)."""

    applied: AppliedDiscount | None = None
    refusal: str = ""


def discount_lines(session: Session, lines: Sequence[tuple[str, int]]) -> list[DiscountLine]:
    """(product id, line total in cents) lines with each product's collection from the catalogue."""
    ids = sorted({product_id for product_id, _ in lines})
    collections: dict[str, str] = {}
    if ids:
        query = select(CatalogProduct.id, CatalogProduct.collection_key).where(col(CatalogProduct.id).in_(ids))
        collections = {product_id: key for product_id, key in session.exec(query).all()}
    return [DiscountLine(product_id, collections.get(product_id, ""), total) for product_id, total in lines]


def apply_code(code: DiscountCode, lines: Sequence[DiscountLine], now: datetime, *, holds_use: bool = False) -> Quote:
    """The code on these lines now (no database); `holds_use` for an order holding one of its uses."""
    reason = refusal(code, lines, now, holds_use=holds_use)
    if reason:
        return Quote(refusal=reason)
    assert code.id is not None
    return Quote(
        AppliedDiscount(
            discount_id=code.id,
            code=code.code,
            discount_cents=discount_cents(DiscountRule.of(code), lines),
            free_shipping=code.kind == FREE_SHIPPING,
            per_customer_limit=code.per_customer_limit,
        )
    )


def quote(
    session: Session, text: str, lines: Sequence[tuple[str, int]], now: datetime, *, holding: int | None = None
) -> Quote:
    """The typed code on (product id, line total in cents) lines; an empty Quote without a code.
    `holding`: the code an order being amended already holds a use of."""
    if not text.strip():
        return Quote()
    code = codes.find_code(session, text)
    if code is None:
        return Quote(refusal=CODE_UNKNOWN)
    return apply_code(code, discount_lines(session, lines), now, holds_use=code.id == holding)
