"""An order's discount code at checkout: priced on the repriced lines, checked again when the order
is placed, and one of its uses claimed in the transaction that saves the order (or given back when
an amended order drops it). A code that no longer applies is refused with the order's total
without it, before anything is charged."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, update

from storefront.models import Order
from storefront.services.discounts import claims, quotes
from storefront.services.discounts.rules import NEW_TOTAL
from storefront.services.orders.cart import Totals, totals_for
from storefront.services.orders.order_request import DISCOUNT_FIELD, OrderRequest
from storefront.services.orders.repricing import PricedLine
from storefront.services.platform.errors import ValidationError
from storefront.services.platform.money import format_usd


class DiscountRefused(ValidationError):
    """The order's code does not apply (any more): why, with the order's total without it."""

    def __init__(self, reason: str, total_cents: int) -> None:
        message = NEW_TOTAL.format(reason=reason, total=format_usd(total_cents))
        super().__init__(message, {DISCOUNT_FIELD: message})
        self.reason = reason
        self.total_cents = total_cents


@dataclass(frozen=True, slots=True)
class DiscountedTotals:
    """An order's totals with its code (`totals`) and without (`plain`), and the code that applies."""

    totals: Totals
    plain: Totals
    applied: quotes.AppliedDiscount | None

    def order_fields(self) -> dict[str, Any]:
        """The order's discount columns (the claim flag is set apart, when the use is taken)."""
        applied = self.applied
        return {
            "discount_id": applied.discount_id if applied else None,
            "discount_code": applied.code if applied else None,
            "discount_cents": self.totals.discount_cents,
        }


def discounted_totals(
    session: Session,
    request: OrderRequest,
    lines: Sequence[PricedLine],
    plain: Totals,
    now: datetime,
    *,
    holding: int | None = None,
) -> DiscountedTotals:
    """The request's code on its repriced lines; DiscountRefused when it does not apply."""
    if not request.discount_code:
        return DiscountedTotals(plain, plain, None)
    found = quotes.quote(
        session, request.discount_code, [(line.product_id, line.line_total_cents) for line in lines], now,
        holding=holding,
    )
    if found.applied is None:
        raise DiscountRefused(found.refusal, plain.total_cents)
    applied = found.applied
    return DiscountedTotals(
        totals_for(plain.subtotal_cents, applied.discount_cents, applied.free_shipping), plain, applied
    )


def claim_use(session: Session, order_id: int, email: str, priced: DiscountedTotals) -> None:
    """Take a use of the order's code in this transaction; on refusal the transaction is rolled
    back (the order with it) and DiscountRefused raised."""
    applied = priced.applied
    if applied is None:
        return
    reason = claims.claim(session, applied.discount_id, email, applied.per_customer_limit)
    if reason:
        session.rollback()
        raise DiscountRefused(reason, priced.plain.total_cents)
    session.exec(
        update(Order)
        .where(col(Order.id) == order_id)
        .values(discount_claimed=True)
        .execution_options(synchronize_session=False)
    )


@dataclass(frozen=True, slots=True)
class HeldUse:
    """The use an order held before it was amended."""

    order_id: int
    discount_id: int | None
    email: str
    claimed: bool

    @classmethod
    def of(cls, order: Order) -> HeldUse:
        assert order.id is not None
        return cls(order.id, order.discount_id, order.customer_email, order.discount_claimed)

    @property
    def holding(self) -> int | None:
        return self.discount_id if self.claimed else None


def reclaim_use(session: Session, held: HeldUse, email: str, priced: DiscountedTotals) -> None:
    """After an amendment: keep the use of the same code for the same address, else give the old
    one back and claim the new code's (DiscountRefused, rolled back, when it cannot be had)."""
    applied = priced.applied
    same = (
        held.claimed
        and applied is not None
        and applied.discount_id == held.discount_id
        and claims.email_key(email) == claims.email_key(held.email)
    )
    if same:
        return
    if held.claimed and held.discount_id is not None:
        claims.release(session, held.order_id, held.discount_id, held.email)
    claim_use(session, held.order_id, email, priced)
