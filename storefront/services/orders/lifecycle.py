"""An order's life as one table of moves, one function per move, and what staff may do to it.

An order stands where its status and its payment status say (statuses.py); its progress at the print
provider (sent, in production, shipped, delivered) and a person's attention are kept beside them.
`MOVES` says, for every move, the statuses it may start from, where it leads, the line it writes in
the order's history and the email it queues. Each move is a compare-and-set on the order's row from
the states the table allows (so two requests never both make it), and writes its history line and
queues its email in the caller's transaction (the caller commits), as Saleor's order/actions.py does.

The payments (order_payment.py, intent_payments.py), the fulfilment outbox, the provider's webhooks
and the poll, refunds, cancellations and expiry, and the back office all move orders through here.
The `can_*` predicates say which staff actions the services accept, so the back office offers only
those.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, update

from storefront.models import Order
from storefront.services.discounts import claims
from storefront.services.orders import order_emails, order_history
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.orders.statuses import PAYABLE, UNPAID, WAS_PAID, OrderStatus, PaymentStatus
from storefront.services.platform.errors import ConflictError

ILLEGAL_MOVE = "This order cannot be {move} now: it is {status}, payment {payment}."


class Move(StrEnum):
    """What can happen to an order."""

    #: The gateway took the order's total: it is paid and goes to the print provider.
    PAID = "paid"
    #: The gateway says the payment in progress failed; the shopper may pay again.
    PAYMENT_FAILED = "payment_failed"
    #: The print provider accepted the order (it holds it until it is sent to production).
    SENT = "sent"
    #: The print provider is printing it.
    IN_PRODUCTION = "in_production"
    #: The print provider shipped it (the shipping notice goes out).
    SHIPPED = "shipped"
    #: The carrier delivered it.
    DELIVERED = "delivered"
    #: An order nobody paid is cancelled (by staff, or expired), and can never be paid afterwards.
    CANCELLED = "cancelled"
    #: A paid order that was refunded is taken out of printing (cancelled at the provider or unqueued).
    WITHDRAWN = "withdrawn"
    #: Staff asked the gateway for a refund of the whole order; it is not confirmed yet.
    REFUND_REQUESTED = "refund_requested"
    #: The gateway confirmed the refund.
    REFUNDED = "refunded"
    #: The gateway refused or undid the refund: the order is paid again.
    REFUND_FAILED = "refund_failed"
    #: The gateway took back part of the amount paid: the order is paid, with less left to refund.
    PARTIALLY_REFUNDED = "partially_refunded"
    #: Something only a person can settle (a refusal by the provider, money that does not fit).
    NEEDS_ATTENTION = "needs_attention"
    #: Staff settled it: a paid order the provider refused is sent to it once more.
    RESOLVED = "resolved"
    #: Staff settled what needed a person by hand, with a note: the order needs attention no more.
    ATTENTION_RESOLVED = "attention_resolved"


#: A move that may start whatever the order's status (or payment status) is.
ANY_STATUS = ANY_PAYMENT = None


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the table: where a move may start, where it leads, what it writes and sends."""

    #: The order statuses and payment statuses the move may start from (None: any).
    statuses: frozenset[str] | None
    payments: frozenset[str] | None
    #: The order status and payment status after the move (None: unchanged).
    status: OrderStatus | None = None
    payment: PaymentStatus | None = None
    #: The order history's action for the move (order_history), None when it writes none.
    history: str | None = None
    #: The kind of email the move queues (order_emails), None when it sends none.
    email: str | None = None


#: The order's states and the moves between them: the one place that says what may happen when.
MOVES: Mapping[Move, Rule] = {
    Move.PAID: Rule(
        frozenset({OrderStatus.PENDING}),
        frozenset(UNPAID),
        OrderStatus.PROCESSING,
        PaymentStatus.PAID,
        order_history.PAID,
        order_emails.CONFIRMED,
    ),
    Move.PAYMENT_FAILED: Rule(ANY_STATUS, frozenset({PaymentStatus.PENDING}), payment=PaymentStatus.FAILED),
    Move.SENT: Rule(ANY_STATUS, frozenset({PaymentStatus.PAID}), history=order_history.SENT),
    Move.IN_PRODUCTION: Rule(ANY_STATUS, ANY_PAYMENT, history=order_history.IN_PRODUCTION),
    Move.SHIPPED: Rule(ANY_STATUS, ANY_PAYMENT, history=order_history.SHIPPED, email=order_emails.SHIPPED),
    Move.DELIVERED: Rule(ANY_STATUS, ANY_PAYMENT, history=order_history.DELIVERED),
    Move.CANCELLED: Rule(
        frozenset({OrderStatus.PENDING}),
        frozenset(PAYABLE),
        OrderStatus.CANCELLED,
        history=order_history.CANCELLED,
        email=order_emails.CANCELLED,
    ),
    Move.WITHDRAWN: Rule(ANY_STATUS, frozenset(WAS_PAID), OrderStatus.CANCELLED),
    Move.REFUND_REQUESTED: Rule(
        ANY_STATUS,
        frozenset({PaymentStatus.PAID}),
        payment=PaymentStatus.REFUNDING,
        history=order_history.REFUND_REQUESTED,
    ),
    Move.REFUNDED: Rule(
        ANY_STATUS,
        frozenset({PaymentStatus.PAID, PaymentStatus.REFUNDING}),
        payment=PaymentStatus.REFUNDED,
        history=order_history.REFUNDED,
        email=order_emails.REFUNDED,
    ),
    Move.REFUND_FAILED: Rule(
        ANY_STATUS,
        # Paid: a part refund the gateway confirmed, then undid.
        frozenset({PaymentStatus.REFUNDING, PaymentStatus.REFUNDED, PaymentStatus.PAID}),
        payment=PaymentStatus.PAID,
        history=order_history.REFUND_FAILED,
    ),
    Move.PARTIALLY_REFUNDED: Rule(
        ANY_STATUS,
        frozenset({PaymentStatus.REFUNDING}),
        payment=PaymentStatus.PAID,
        history=order_history.PARTIALLY_REFUNDED,
    ),
    Move.NEEDS_ATTENTION: Rule(ANY_STATUS, ANY_PAYMENT),
    Move.RESOLVED: Rule(ANY_STATUS, frozenset({PaymentStatus.PAID})),
    Move.ATTENTION_RESOLVED: Rule(ANY_STATUS, ANY_PAYMENT, history=order_history.RESOLVED),
}


class IllegalMove(ConflictError):
    """The table does not allow this move from where the order stands."""

    def __init__(self, move: Move, order: Order) -> None:
        super().__init__(
            ILLEGAL_MOVE.format(move=move.value.replace("_", " "), status=order.status, payment=order.payment_status)
        )
        self.move = move


def allowed(move: Move, order: Order) -> bool:
    """Whether the table lets `move` start from where `order` stands."""
    rule = MOVES[move]
    return (rule.statuses is None or order.status in rule.statuses) and (
        rule.payments is None or order.payment_status in rule.payments
    )


def require(move: Move, order: Order) -> None:
    """IllegalMove unless the table lets `move` start from where `order` stands."""
    if not allowed(move, order):
        raise IllegalMove(move, order)


def queue_email(session: Session, order: Order, kind: str | None, emails: OrderEmails | None, now: datetime) -> None:
    if emails is None or kind is None:
        return
    if kind == order_emails.CONFIRMED:
        emails.order_paid(session, order, now)
    elif kind == order_emails.SHIPPED:
        emails.order_shipped(session, order, now)
    elif kind == order_emails.REFUNDED:
        emails.order_refunded(session, order, now)
    elif kind == order_emails.CANCELLED:
        emails.order_cancelled(session, order, now)


def move(
    session: Session,
    order: Order,
    which: Move,
    *,
    now: datetime,
    actor: order_history.Who = order_history.SYSTEM,
    detail: str = "",
    values: Mapping[str, Any] | None = None,
    where: Iterable[ColumnElement[bool]] = (),
    history: str | None | bool = True,
    emails: OrderEmails | None = None,
    email: str | None | bool = True,
) -> bool:
    """Make `which` happen to the order in this transaction, if it still stands where the table (and
    `where`, which may narrow it) allows: a compare-and-set on its row that also sets `values`. Then
    write the move's history line (`history` names another action, False writes none) and queue its
    email through `emails` (`email` names another kind, False sends none); the order is refreshed.
    False, with nothing written, when the order had moved on."""
    rule = MOVES[which]
    assert order.id is not None
    changes: dict[str, Any] = {"updated_at": now, **(values or {})}
    if rule.status is not None:
        changes["status"] = rule.status
    if rule.payment is not None:
        changes["payment_status"] = rule.payment
    conditions = [col(Order.id) == order.id, *where]
    if rule.statuses is not None:
        conditions.append(col(Order.status).in_(rule.statuses))
    if rule.payments is not None:
        conditions.append(col(Order.payment_status).in_(rule.payments))
    done = session.exec(update(Order).where(*conditions).values(**changes)).rowcount
    if done != 1:
        return False
    if rule.status == OrderStatus.CANCELLED:
        claims.release_order(session, order)  # a cancelled or expired order gives its code's use back
    action = rule.history if history is True else (history or None)
    if action is not None:
        order_history.record(session, order.id, actor, action, detail, at=now, order_number=order.number)
    if order in session:
        session.refresh(order)
    else:  # read in an earlier session: the email is written from the order as it is now
        order = session.get(Order, order.id, populate_existing=True) or order
    queue_email(session, order, rule.email if email is True else (email or None), emails, now)
    return True


# --------------------------------------------------------------------------- one function per move


def paid(
    session: Session,
    order: Order,
    *,
    actor: order_history.Who,
    detail: str,
    payment: Mapping[str, Any],
    now: datetime,
    emails: OrderEmails | None,
    where: Iterable[ColumnElement[bool]] = (),
) -> bool:
    """The gateway took the order's total (`payment`: payment id, card, provider): mark it paid,
    write 'Paid' in its history and queue its confirmation. The caller queues it for the provider."""
    values = {**payment, "payment_claimed_at": None}
    return move(
        session, order, Move.PAID, now=now, actor=actor, detail=detail, values=values, where=where, emails=emails
    )


def payment_failed(session: Session, order: Order, *, now: datetime, where: Iterable[ColumnElement[bool]] = ()) -> bool:
    """The payment in progress failed; the shopper may pay again."""
    return move(session, order, Move.PAYMENT_FAILED, now=now, where=where)


def cancelled(
    session: Session,
    order: Order,
    *,
    actor: order_history.Who,
    detail: str,
    now: datetime,
    emails: OrderEmails | None,
    action: str = order_history.CANCELLED,
) -> bool:
    """Cancel an order nobody paid, so it can never be paid (staff, or `action` EXPIRED for an
    abandoned checkout, which sends no email: pass emails=None)."""
    return move(session, order, Move.CANCELLED, now=now, actor=actor, detail=detail, history=action, emails=emails)


def withdrawn(
    session: Session,
    order: Order,
    *,
    actor: order_history.Who,
    action: str | None,
    detail: str,
    now: datetime,
    values: Mapping[str, Any] | None = None,
) -> bool:
    """A refunded order is out of printing (`action`: the provider cancelled it, or it was unqueued)."""
    return move(
        session, order, Move.WITHDRAWN, now=now, actor=actor, detail=detail, values=values, history=action or False
    )


def refund_requested(
    session: Session,
    order: Order,
    *,
    actor: order_history.Who,
    detail: str,
    now: datetime,
    where: Iterable[ColumnElement[bool]] = (),
) -> bool:
    """Staff asked for a refund of a paid order (claims it: a second click refunds nothing)."""
    return move(session, order, Move.REFUND_REQUESTED, now=now, actor=actor, detail=detail, where=where)


def refunded(
    session: Session,
    order: Order,
    *,
    actor: order_history.Who,
    detail: str,
    now: datetime,
    emails: OrderEmails | None,
    email: str | bool = True,
    values: Mapping[str, Any] | None = None,
    where: Iterable[ColumnElement[bool]] = (),
) -> bool:
    """The gateway confirmed the refund: the payment is refunded and the customer told (`email`
    CANCELLED when staff cancelled the paid order)."""
    return move(
        session,
        order,
        Move.REFUNDED,
        now=now,
        actor=actor,
        detail=detail,
        values=values,
        where=where,
        emails=emails,
        email=email,
    )


def partially_refunded(
    session: Session,
    order: Order,
    *,
    actor: order_history.Who,
    detail: str,
    now: datetime,
    values: Mapping[str, Any],
    where: Iterable[ColumnElement[bool]] = (),
) -> bool:
    """The gateway took back part of the amount paid (`values` adds it to refunded_cents): the order
    is paid again, with less left to refund. The caller tells the customer."""
    return move(
        session, order, Move.PARTIALLY_REFUNDED, now=now, actor=actor, detail=detail, values=values, where=where
    )


def refund_failed(
    session: Session,
    order: Order,
    *,
    actor: order_history.Who,
    detail: str,
    now: datetime,
    values: Mapping[str, Any] | None = None,
    where: Iterable[ColumnElement[bool]] = (),
) -> bool:
    """The refund did not go through: the order is paid again."""
    return move(session, order, Move.REFUND_FAILED, now=now, actor=actor, detail=detail, values=values, where=where)


def needs_attention(
    session: Session,
    order: Order,
    reason: str,
    *,
    now: datetime,
    actor: order_history.Who = order_history.SYSTEM,
    action: str | None = None,
    detail: str = "",
    touch: bool = True,
) -> bool:
    """Flag the order for a person with `reason` (and a history line `action`, when given)."""
    values: dict[str, Any] = {"attention_reason": reason[:2000]}
    if not touch:  # a note beside another move: the order's own time stays
        values["updated_at"] = order.updated_at
    return move(
        session,
        order,
        Move.NEEDS_ATTENTION,
        now=now,
        actor=actor,
        detail=detail,
        values=values,
        history=action or False,
    )


def resolved(session: Session, order: Order, *, now: datetime) -> bool:
    """Staff send a paid order the provider refused to it once more: its reason is cleared."""
    return move(
        session,
        order,
        Move.RESOLVED,
        now=now,
        values={"attention_reason": None},
        where=[col(Order.attention_reason).is_not(None)],
    )


def attention_resolved(
    session: Session, order: Order, *, actor: order_history.Who, note: str, now: datetime
) -> bool:
    """Staff settled what the order needed a person for (`note` says how, kept in its history)."""
    return move(
        session,
        order,
        Move.ATTENTION_RESOLVED,
        now=now,
        actor=actor,
        detail=note,
        values={"attention_reason": None},
        where=[col(Order.attention_reason).is_not(None)],
    )


# The provider's side. These apply to the order loaded in the caller's session (webhooks and the poll
# read the provider's copy into it), in any order and as often as the provider reports them: nothing
# moves an order backwards, and each step writes its history line once per order.

#: Provider statuses after which an order changes no more (contract §7).
PROVIDER_FINAL = frozenset({"fulfilled", "canceled"})
#: Provider statuses of an order it has not started on; "sent to production" moves past them.
PROVIDER_BEFORE_PRODUCTION = frozenset(
    {"pending", "cost-calculation", "on-hold", "payment-not-received", "sending-to-production"}
)
PROVIDER_IN_PRODUCTION = "in-production"
#: Our statuses that nothing the provider says moves an order out of.
FINAL_ORDER_STATUSES = frozenset({OrderStatus.FULFILLED, OrderStatus.CANCELLED})


def order_status_for(provider_status: str) -> OrderStatus:
    """Our status for a provider status: canceled -> cancelled, fulfilled -> fulfilled, else processing."""
    if provider_status in ("canceled", "cancelled"):
        return OrderStatus.CANCELLED
    if provider_status == "fulfilled":
        return OrderStatus.FULFILLED
    return OrderStatus.PROCESSING


def _step(session: Session, order: Order, which: Move, *, now: datetime, detail: str = "") -> None:
    """Write `which`'s history line unless the order's history has it already (a step happens once)."""
    action = MOVES[which].history
    assert order.id is not None and action is not None
    if not order_history.has(session, order.id, action):
        order_history.record(session, order.id, order_history.SYSTEM, action, detail, at=now)


def sent(session: Session, order: Order, provider_order_id: str, provider_status: str, now: datetime) -> None:
    """The print provider accepted the order as `provider_order_id`: 'Sent to the print provider'."""
    require(Move.SENT, order)
    order.printify_order_id = provider_order_id
    order.printify_status = provider_status
    order.updated_at = now
    _step(session, order, Move.SENT, now=now, detail=provider_order_id)


def provider_status(session: Session, order: Order, status: str, *, now: datetime) -> bool:
    """The provider's status (lower case, 'canceled'): kept unless it would replace a final one with
    an earlier one; our status follows it unless the order is fulfilled or cancelled already. The
    first time the provider prints the order, 'In production'. True when anything changed."""
    before = (order.printify_status, order.status)
    if order.printify_status not in PROVIDER_FINAL or status in PROVIDER_FINAL:
        order.printify_status = status
    ours = order_status_for(status)
    if order.status not in FINAL_ORDER_STATUSES:
        order.status = ours
    if order.printify_status == PROVIDER_IN_PRODUCTION and before[0] != PROVIDER_IN_PRODUCTION:
        _step(session, order, Move.IN_PRODUCTION, now=now)
    return before != (order.printify_status, order.status)


def in_production(session: Session, order: Order, *, now: datetime) -> bool:
    """The provider sent the order to production: a provider status from before production moves on
    (a later one, reported earlier, stays)."""
    if order.printify_status is None or order.printify_status in PROVIDER_BEFORE_PRODUCTION:
        return provider_status(session, order, PROVIDER_IN_PRODUCTION, now=now)
    return False


def shipped(
    session: Session,
    order: Order,
    *,
    carrier: str | None,
    number: str | None,
    url: str | None,
    shipped_at: datetime | None,
    delivered_at: datetime | None,
    now: datetime,
) -> bool:
    """The provider shipped (part of) the order: the latest shipment's tracking wins, what it leaves
    out is kept; without a shipping time it counts as shipped when first heard of. 'Shipped' the
    first time, 'Delivered' when it carries a delivery time. The shipping notice is queued by
    `notify` once the whole report is applied. True when the order changed."""
    was_shipped = order.shipped_at is not None
    before = (order.tracking_carrier, order.tracking_number, order.tracking_url, order.shipped_at)
    order.tracking_carrier = carrier or order.tracking_carrier
    order.tracking_number = number or order.tracking_number
    order.tracking_url = url or order.tracking_url
    order.shipped_at = shipped_at or order.shipped_at or delivered_at or now
    if not was_shipped:
        tracking = ((order.tracking_carrier or "").upper(), order.tracking_number or "")
        detail = " ".join(part for part in tracking if part)
        _step(session, order, Move.SHIPPED, now=now, detail=detail)
    changed = before != (order.tracking_carrier, order.tracking_number, order.tracking_url, order.shipped_at)
    if delivered_at is not None:
        changed |= delivered(session, order, delivered_at, now=now)
    return changed


def delivered(session: Session, order: Order, delivered_at: datetime, *, now: datetime) -> bool:
    """The carrier delivered the order at `delivered_at`: 'Delivered' the first time."""
    if order.delivered_at == delivered_at:
        return False
    first = order.delivered_at is None
    order.delivered_at = delivered_at
    if order.shipped_at is None:
        order.shipped_at = delivered_at
    if first:
        _step(session, order, Move.DELIVERED, now=now)
    return True


def notify(session: Session, order: Order, emails: OrderEmails | None, now: datetime) -> bool:
    """Queue the email of where the provider's report left the order: the shipping notice of a
    shipped order (once per order)."""
    if order.shipped_at is None or emails is None:
        return False
    return emails.order_shipped(session, order, now)


# --------------------------------------------------------------------------- what staff may do


def can_refund(order: Order) -> bool:
    """Refund is accepted: the order is paid through a payment the gateway can refund."""
    return allowed(Move.REFUND_REQUESTED, order) and bool(order.payment_id)


def can_cancel(order: Order) -> bool:
    """Cancel is accepted: an unpaid order no payment is running for, or a paid order (refunded
    as Refund does). Not one being charged, already cancelled, or refunded."""
    return allowed(Move.CANCELLED, order) or (order.status != OrderStatus.CANCELLED and can_refund(order))


def can_retry(order: Order) -> bool:
    """Retry is accepted where it can succeed: a paid order that needs attention, not cancelled,
    refunded in full or past the provider's printing (a refund's note is settled with Resolve)."""
    return (
        allowed(Move.RESOLVED, order)
        and order.attention_reason is not None
        and order.status != OrderStatus.CANCELLED
        and order.refunded_cents < order.total_cents
        and (order.printify_status or "") not in PROVIDER_FINAL | {PROVIDER_IN_PRODUCTION}
        and order.shipped_at is None
    )


def can_resolve(order: Order) -> bool:
    """Mark resolved is accepted: the order needs attention."""
    return order.attention_reason is not None


def can_resend(order: Order) -> bool:
    """Resend confirmation is accepted: an order that was paid, with an email address."""
    return order.payment_status in WAS_PAID and bool(order.customer_email.strip())
