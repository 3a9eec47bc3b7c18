"""Staff views of discount codes: a page of codes, newest first, each with its uses and the revenue
its paid orders brought (net of refunds), and every code as CSV."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, func, select

from storefront.models import DiscountCode, Order
from storefront.services.discounts import codes
from storefront.services.discounts.rules import describe, scope_values
from storefront.services.orders.statuses import WAS_PAID
from storefront.services.platform.csv_cells import csv_safe, csv_text
from storefront.services.platform.errors import ValidationError
from storefront.services.platform.money import cents_to_dollars, format_usd

MAX_PAGE = 100
INVALID_CURSOR = "Invalid cursor"
CSV_HEADER = (
    "Code", "Discount", "Active", "Starts (UTC)", "Ends (UTC)", "Minimum Subtotal", "Scope", "Usage Limit",
    "Per Customer", "Uses", "Paid Orders", "Discount Given", "Revenue",
)


@dataclass(frozen=True, slots=True)
class CodeUsage:
    """What a code's paid orders brought: how many, what the code took off them, and their revenue."""

    paid_orders: int = 0
    discount_cents: int = 0
    revenue_cents: int = 0


def usage(session: Session, discount_ids: Sequence[int]) -> dict[int, CodeUsage]:
    """Each code's paid orders (paid, refunding or refunded), counted by the database in one query."""
    if not discount_ids:
        return {}
    rows = session.exec(
        select(
            Order.discount_id,
            func.count(),
            func.coalesce(func.sum(Order.discount_cents), 0),
            func.coalesce(func.sum(col(Order.total_cents) - col(Order.refunded_cents)), 0),
        )
        .where(col(Order.discount_id).in_(discount_ids), col(Order.payment_status).in_(WAS_PAID))
        .group_by(col(Order.discount_id))
    ).all()
    return {int(did): CodeUsage(int(n), int(given), int(revenue)) for did, n, given, revenue in rows if did is not None}


def _row(code: DiscountCode, used: CodeUsage) -> dict[str, Any]:
    return {
        **codes.code_values(code),
        "paidOrders": used.paid_orders,
        "discountGiven": float(cents_to_dollars(used.discount_cents)),
        "revenue": float(cents_to_dollars(used.revenue_cents)),
        "revenueText": format_usd(used.revenue_cents),
    }


def _cursor(value: str | None) -> int | None:
    if value is None or value == "":
        return None
    if not value.isascii() or not value.isdigit() or len(value) > 18:
        raise ValidationError(INVALID_CURSOR, {"cursor": INVALID_CURSOR})
    return int(value)


def list_codes(session: Session, *, limit: int = MAX_PAGE, cursor: str | None = None) -> dict[str, Any]:
    """A page of codes, newest first: {data, nextCursor, hasMore}, each code with its usage."""
    after = _cursor(cursor)
    query = select(DiscountCode).order_by(col(DiscountCode.id).desc()).limit(limit + 1)
    if after is not None:
        query = query.where(col(DiscountCode.id) < after)
    found = list(session.exec(query).all())
    page, more = found[:limit], len(found) > limit
    used = usage(session, [code.id for code in page if code.id is not None])
    return {
        "data": [_row(code, used.get(code.id or 0, CodeUsage())) for code in page],
        "nextCursor": str(page[-1].id) if more and page else None,
        "hasMore": more,
    }


def code_detail(session: Session, code: DiscountCode) -> dict[str, Any]:
    assert code.id is not None
    return _row(code, usage(session, [code.id]).get(code.id, CodeUsage()))


def _time(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value is not None else ""


def _csv_rows(session: Session) -> Iterable[list[str]]:
    every = list(session.exec(select(DiscountCode).order_by(col(DiscountCode.id).desc())).all())
    used = usage(session, [code.id for code in every if code.id is not None])
    for code in every:
        got = used.get(code.id or 0, CodeUsage())
        scope = code.scope if code.scope == "all" else f"{code.scope}: {', '.join(scope_values(code))}"
        yield [
            csv_safe(code.code),
            describe(code),
            "yes" if code.active else "no",
            _time(code.starts_at),
            _time(code.ends_at),
            f"{cents_to_dollars(code.min_subtotal_cents):.2f}",
            csv_safe(scope),
            "" if code.usage_limit is None else str(code.usage_limit),
            "" if code.per_customer_limit is None else str(code.per_customer_limit),
            str(code.used_count),
            str(got.paid_orders),
            f"{cents_to_dollars(got.discount_cents):.2f}",
            f"{cents_to_dollars(got.revenue_cents):.2f}",
        ]


def export_csv(session: Session) -> str:
    """Every code, newest first, with its uses and revenue, as CSV text under CSV_HEADER."""
    return csv_text(CSV_HEADER, _csv_rows(session))
