"""An order's history for staff: payment, the print provider's steps, refunds, cancellations and expiry,
each with its time and who did it."""

from __future__ import annotations

from datetime import datetime
from typing import TypeAlias

from sqlmodel import Session, col, select

from storefront.models import OrderHistory, utcnow
from storefront.services.staff import activity

#: Actors that are not a person.
SYSTEM = "system"
STRIPE = "stripe"

REFUND_REQUESTED = "refund_requested"
REFUNDED = "refunded"
REFUND_FAILED = "refund_failed"
PARTIALLY_REFUNDED = "partially_refunded"
RESOLVED = "resolved"
CANCELLED = "cancelled"
PROVIDER_CANCELLED = "provider_cancelled"
PROVIDER_PRINTING = "provider_printing"
UNQUEUED = "unqueued"
EXPIRED = "expired"
PAID = "paid"
PAYMENT_MISMATCH = "payment_mismatch"
LINKS_REVOKED = "links_revoked"
SENT = "sent"
IN_PRODUCTION = "in_production"
SHIPPED = "shipped"
DELIVERED = "delivered"

LABELS: dict[str, str] = {
    REFUND_REQUESTED: "Refund requested",
    REFUNDED: "Refunded",
    REFUND_FAILED: "Refund failed",
    PARTIALLY_REFUNDED: "Partially refunded",
    RESOLVED: "Marked resolved",
    CANCELLED: "Order cancelled",
    PROVIDER_CANCELLED: "Print order cancelled",
    PROVIDER_PRINTING: "Print order not cancelled: the provider is already printing it",
    UNQUEUED: "Taken out of the print queue",
    EXPIRED: "Expired unpaid",
    PAID: "Paid",
    PAYMENT_MISMATCH: "Payment does not match the order",
    LINKS_REVOKED: "Email links revoked",
    SENT: "Sent to the print provider",
    IN_PRODUCTION: "In production",
    SHIPPED: "Shipped",
    DELIVERED: "Delivered",
}


#: The activity log's action for each history line a person (not the system or a gateway) causes.
STAFF_ACTIVITY: dict[str, str] = {
    REFUND_REQUESTED: activity.REFUND,
    REFUNDED: activity.REFUND,
    PARTIALLY_REFUNDED: activity.REFUND,
    REFUND_FAILED: activity.REFUND,
    CANCELLED: activity.CANCEL,
    UNQUEUED: activity.CANCEL,
    PROVIDER_CANCELLED: activity.CANCEL,
    RESOLVED: activity.ORDER_CHANGE,
    LINKS_REVOKED: activity.ORDER_CHANGE,
}


#: Who moves an order: a name (SYSTEM, STRIPE, a gateway's) or a person with the address they act
#: from (what the activity log's row names; a bare name logs no address).
Who: TypeAlias = str | activity.Actor


def actor_of(who: Who) -> activity.Actor:
    """`who` as the activity log names it."""
    return who if isinstance(who, activity.Actor) else activity.Actor(who)


def name_of(who: Who) -> str:
    """`who`'s name, as the order's history keeps it."""
    return actor_of(who).username


def record(
    session: Session, order_id: int, actor: Who, action: str, detail: str = "", at: datetime | None = None,
    *, order_number: str | None = None,
) -> None:
    """Add one line to the order's history and, for a person's action, the activity log's row
    naming them and their address (both committed with the caller's transaction)."""
    at = at or utcnow()
    who = actor_of(actor)
    session.add(OrderHistory(order_id=order_id, actor=who.username[:100], action=action, detail=detail, at=at))
    if who.username not in (SYSTEM, STRIPE) and action in STAFF_ACTIVITY:
        target = f"order {order_number}" if order_number else f"order #{order_id}"
        activity.record(session, who, STAFF_ACTIVITY[action], target,
                        after={"history": LABELS.get(action, action), **({"detail": detail} if detail else {})}, now=at)


def history(session: Session, order_id: int) -> list[OrderHistory]:
    """The order's history, oldest first."""
    query = select(OrderHistory).where(col(OrderHistory.order_id) == order_id).order_by(col(OrderHistory.id))
    return list(session.exec(query).all())


def has(session: Session, order_id: int, action: str) -> bool:
    """Whether the order's history has a line `action` (pending lines of the session count)."""
    query = select(OrderHistory.id).where(col(OrderHistory.order_id) == order_id, col(OrderHistory.action) == action)
    return session.exec(query).first() is not None


#: Lines that say what happened at the print provider, whoever's refund led to it: no 'by ...'.
PROVIDER_OUTCOMES = frozenset({PROVIDER_CANCELLED, PROVIDER_PRINTING, UNQUEUED})


def label(action: str) -> str:
    return LABELS.get(action, action.replace("_", " ").capitalize())


def byline(action: str, actor: str) -> str:
    """Who did it, as the line goes on: ' by admin', ' (Stripe)', or '' for the store's own steps."""
    if action in PROVIDER_OUTCOMES or actor == SYSTEM or not actor:
        return ""
    return " (Stripe)" if actor == STRIPE else f" by {actor}"


def detail_sentence(action: str, detail: str) -> str:
    """The line's detail as a sentence ('The print provider answered: Operation failed.')."""
    if action == PROVIDER_PRINTING and detail:
        return f"The print provider answered: {detail}"
    if action == RESOLVED and detail:
        return f"Note: {detail}"
    return detail
