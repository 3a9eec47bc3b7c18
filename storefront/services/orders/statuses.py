"""The statuses an order, its payment and its charge attempts move through (stored as their values),
and the labels shoppers and staff see for them."""

from __future__ import annotations

from enum import StrEnum


class OrderStatus(StrEnum):
    """Where an order stands (spec section 4)."""

    PENDING = "pending"
    PROCESSING = "processing"
    FULFILLED = "fulfilled"
    CANCELLED = "cancelled"


class PaymentStatus(StrEnum):
    """Where an order's payment stands; CHARGING marks an order claimed by one payment request."""

    PENDING = "pending"
    CHARGING = "charging"
    PAID = "paid"
    FAILED = "failed"
    #: A refund was asked of the gateway and it has not confirmed it yet.
    REFUNDING = "refunding"
    REFUNDED = "refunded"


#: Payment statuses from which a new charge may start (and the order may still be changed).
PAYABLE = (PaymentStatus.PENDING, PaymentStatus.FAILED)
#: Payment statuses of an order nobody has paid (yet): 'Awaiting payment' in the back office.
UNPAID = (PaymentStatus.PENDING, PaymentStatus.FAILED, PaymentStatus.CHARGING)
#: Payment statuses of an order that was paid, whatever happened to the money since.
WAS_PAID = (PaymentStatus.PAID, PaymentStatus.REFUNDING, PaymentStatus.REFUNDED)


class AttemptStatus(StrEnum):
    """The outcome of one charge attempt sent to the gateway."""

    STARTED = "started"
    APPROVED = "approved"
    DECLINED = "declined"
    #: The card failed the gateway's own checks (number, expiry, CVV); nothing was charged.
    INVALID = "invalid"
    #: The gateway call failed unexpectedly; the outcome is unknown to us.
    ERROR = "error"


UNKNOWN = "Unknown"
STATUS_LABELS: dict[str, str] = {
    OrderStatus.PENDING: "Pending",
    OrderStatus.PROCESSING: "Processing",
    OrderStatus.FULFILLED: "Fulfilled",
    OrderStatus.CANCELLED: "Cancelled",
}
PAYMENT_LABELS: dict[str, str] = {
    PaymentStatus.PENDING: "Pending",
    # A charge in flight has not been paid yet: to staff it is still pending.
    PaymentStatus.CHARGING: "Pending",
    PaymentStatus.PAID: "Paid",
    PaymentStatus.FAILED: "Failed",
    PaymentStatus.REFUNDING: "Refund pending",
    PaymentStatus.REFUNDED: "Refunded",
}


def status_label(value: str | None) -> str:
    """The order status as shown ('Processing'); anything outside the spec's set is 'Unknown'."""
    return STATUS_LABELS.get(value or "", UNKNOWN)


def payment_label(value: str | None) -> str:
    """The payment status as shown ('Paid'); anything outside the spec's set is 'Unknown'."""
    return PAYMENT_LABELS.get(value or "", UNKNOWN)
