"""An order's history for staff: refunds, cancellations and expiry, each with its time and who did it."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from storefront.models import OrderHistory, utcnow

#: Actors that are not a person.
SYSTEM = "system"
STRIPE = "stripe"

REFUND_REQUESTED = "refund_requested"
REFUNDED = "refunded"
REFUND_FAILED = "refund_failed"
CANCELLED = "cancelled"
PROVIDER_CANCELLED = "provider_cancelled"
PROVIDER_PRINTING = "provider_printing"
UNQUEUED = "unqueued"
EXPIRED = "expired"
PAID = "paid"
PAYMENT_MISMATCH = "payment_mismatch"
LINKS_REVOKED = "links_revoked"

LABELS: dict[str, str] = {
    REFUND_REQUESTED: "Refund requested",
    REFUNDED: "Refunded",
    REFUND_FAILED: "Refund failed",
    CANCELLED: "Order cancelled",
    PROVIDER_CANCELLED: "Print order cancelled",
    PROVIDER_PRINTING: "Already being printed",
    UNQUEUED: "Taken out of the print queue",
    EXPIRED: "Expired unpaid",
    PAID: "Paid",
    PAYMENT_MISMATCH: "Payment does not match the order",
    LINKS_REVOKED: "Email links revoked",
}


def record(session: Session, order_id: int, actor: str, action: str, detail: str = "", at: datetime | None = None) -> None:
    """Add one line to the order's history (committed with the caller's transaction)."""
    session.add(OrderHistory(order_id=order_id, actor=actor[:100], action=action, detail=detail, at=at or utcnow()))


def history(session: Session, order_id: int) -> list[OrderHistory]:
    """The order's history, oldest first."""
    query = select(OrderHistory).where(col(OrderHistory.order_id) == order_id).order_by(col(OrderHistory.id))
    return list(session.exec(query).all())


def label(action: str) -> str:
    return LABELS.get(action, action.replace("_", " ").capitalize())
