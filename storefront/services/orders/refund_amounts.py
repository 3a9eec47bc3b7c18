"""What a refund request asks for: the rest of the order, an amount, or some of its lines, checked
against what the order paid and what earlier refunds took back (partial refunds add up to at most the
amount paid). Money stays in cents; the request gives dollars, as the API's other money does."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from storefront.models import Order, OrderItem, OrderRefund
from storefront.services.orders.checkout import order_items
from storefront.services.platform.errors import ConflictError, ValidationError
from storefront.services.platform.money import dollars_to_cents, format_usd

#: An OrderRefund's statuses; a failed one gave nothing back.
REQUESTED, SUCCEEDED, PENDING, FAILED = "requested", "succeeded", "pending", "failed"

BOTH_GIVEN = "Give an amount or lines to refund, not both."
AMOUNT_INVALID = "The refund amount must be a number of dollars above zero, with at most two decimals."
LINES_INVALID = 'Lines to refund are a list of {"itemId": ..., "quantity": ...} with a quantity of 1 or more.'
LINE_UNKNOWN = "Line {item} is not a line of this order."
LINE_TOO_MANY = "Only {left} of {name} can still be refunded: {asked} is more than that."
MORE_THAN_PAID = "Only {left} of this order can still be refunded: {asked} is more than that."
NOTHING_LEFT = "This order is refunded in full: nothing is left to refund."
MAX_LINES = 100


@dataclass(frozen=True, slots=True)
class RefundRequest:
    """What staff asked to refund: `amount_cents`, or `lines` ((item id, quantity), ...), or the rest."""

    amount_cents: int | None = None
    lines: tuple[tuple[int, int], ...] = ()

    @property
    def whole(self) -> bool:
        """Nothing named: the rest of the order, as a refund always did."""
        return self.amount_cents is None and not self.lines


def _count(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def refund_request(payload: Mapping[str, Any] | None) -> RefundRequest:
    """The request's amount (dollars) or lines; ValidationError with the field's message otherwise."""
    payload = payload or {}
    amount, lines = payload.get("amount"), payload.get("lines")
    if amount is not None and lines is not None:
        raise ValidationError(BOTH_GIVEN, {"amount": BOTH_GIVEN})
    if amount is not None:
        try:
            cents = dollars_to_cents(amount)
        except ValueError:
            raise ValidationError(AMOUNT_INVALID, {"amount": AMOUNT_INVALID}) from None
        if cents <= 0 or _more_than_cents(amount):
            raise ValidationError(AMOUNT_INVALID, {"amount": AMOUNT_INVALID})
        return RefundRequest(amount_cents=cents)
    if lines is None:
        return RefundRequest()
    if not isinstance(lines, list) or not lines or len(lines) > MAX_LINES:
        raise ValidationError(LINES_INVALID, {"lines": LINES_INVALID})
    wanted: dict[int, int] = {}
    for line in lines:
        item = _count(line.get("itemId")) if isinstance(line, Mapping) else None
        quantity = _count(line.get("quantity", 1)) if isinstance(line, Mapping) else None
        if item is None or quantity is None or quantity < 1:
            raise ValidationError(LINES_INVALID, {"lines": LINES_INVALID})
        wanted[item] = wanted.get(item, 0) + quantity
    return RefundRequest(lines=tuple(sorted(wanted.items())))


def _more_than_cents(amount: object) -> bool:
    """Whether the amount has a fraction of a cent ('12.505'): refused rather than rounded."""
    text = str(amount).strip()
    if "e" in text.lower() or "." not in text:
        return False
    return len(text.split(".", 1)[1]) > 2


def refunds(session: Session, order_id: int) -> list[OrderRefund]:
    """The order's refunds, oldest first."""
    query = select(OrderRefund).where(col(OrderRefund.order_id) == order_id).order_by(col(OrderRefund.id))
    return list(session.exec(query).all())


def refunded_quantities(session: Session, order_id: int) -> dict[int, int]:
    """How many of each line earlier refunds (not failed ones) took back."""
    taken: dict[int, int] = {}
    for refund in refunds(session, order_id):
        if refund.status == FAILED or not refund.lines_json:
            continue
        for item, quantity in json.loads(refund.lines_json):
            taken[int(item)] = taken.get(int(item), 0) + int(quantity)
    return taken


def left_to_refund(order: Order) -> int:
    """What of the amount paid has not been refunded yet, in cents."""
    return max(order.total_cents - order.refunded_cents, 0)


def amount_to_refund(session: Session, order: Order, request: RefundRequest) -> tuple[int, str | None]:
    """The cents this request refunds, and its lines as JSON (None for an amount or the rest);
    ConflictError when the order has less left to refund than that."""
    assert order.id is not None
    left = left_to_refund(order)
    if left <= 0:
        raise ConflictError(NOTHING_LEFT)
    if request.whole:
        return left, None
    if request.amount_cents is not None:
        amount, lines_json = request.amount_cents, None
    else:
        amount, lines_json = (
            discounted_share(order, _lines_amount(session, order.id, request.lines)),
            json.dumps([list(line) for line in request.lines]),
        )
    if amount > left:
        raise ConflictError(MORE_THAN_PAID.format(left=format_usd(left), asked=format_usd(amount)))
    return amount, lines_json


def discounted_share(order: Order, lines_cents: int) -> int:
    """What lines worth `lines_cents` at their price were paid, with the order's discount spread over
    its subtotal (rounded half up): a line of a discounted order refunds what was paid for it."""
    if not order.discount_cents or order.subtotal_cents <= 0:
        return lines_cents
    paid = order.subtotal_cents - order.discount_cents
    return (lines_cents * paid + order.subtotal_cents // 2) // order.subtotal_cents


def _lines_amount(session: Session, order_id: int, lines: Sequence[tuple[int, int]]) -> int:
    items: dict[int, OrderItem] = {item.id: item for item in order_items(session, order_id) if item.id is not None}
    taken = refunded_quantities(session, order_id)
    total = 0
    for item_id, quantity in lines:
        item = items.get(item_id)
        if item is None:
            raise ValidationError(LINE_UNKNOWN.format(item=item_id), {"lines": LINE_UNKNOWN.format(item=item_id)})
        left = item.quantity - taken.get(item_id, 0)
        if quantity > left:
            raise ConflictError(LINE_TOO_MANY.format(left=left, name=item.name, asked=quantity))
        total += item.unit_price_cents * quantity
    return total
