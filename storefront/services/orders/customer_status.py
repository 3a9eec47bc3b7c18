"""The one status a customer is told about an order: a badge and a sentence per state of the order's
lifecycle, the same on the order page, in the emails and in the API's status answer.

Staff-only states (an order that needs attention, a provider's error) never reach the customer as an
alarm: the customer sees where the order stands for them (confirmed, printing, shipped) and staff
settle the rest. A refund made after the garment was printed says so plainly.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from storefront.models import Order
from storefront.services.orders.statuses import OrderStatus, PaymentStatus
from storefront.services.platform.money import format_usd

#: The provider statuses of an order being printed (or printed already).
PRINTING = frozenset({"in-production", "partially-fulfilled", "fulfilled"})
#: What staff are told before they refund an order the provider already prints.
PRINTED_WARNING = "The garment is already printed and will still be delivered."
STILL_DELIVERED = "The garment was already printed and will still be delivered to you."


class Stage(StrEnum):
    """The customer's states of an order (the API's `customerStatus`)."""

    AWAITING_PAYMENT = "awaiting_payment"
    PAYMENT_PROCESSING = "payment_processing"
    PAYMENT_FAILED = "payment_failed"
    CANCELLED = "cancelled"
    CONFIRMED = "confirmed"
    PRINTING = "printing"
    SHIPPED = "shipped"
    DELIVERED = "delivered"
    REFUND_PENDING = "refund_pending"
    PARTIALLY_REFUNDED = "partially_refunded"
    REFUNDED = "refunded"


LABELS: dict[Stage, str] = {
    Stage.AWAITING_PAYMENT: "Awaiting payment",
    Stage.PAYMENT_PROCESSING: "Payment processing",
    Stage.PAYMENT_FAILED: "Payment failed",
    Stage.CANCELLED: "Cancelled",
    Stage.CONFIRMED: "Confirmed",
    Stage.PRINTING: "Printing",
    Stage.SHIPPED: "Shipped",
    Stage.DELIVERED: "Delivered",
    Stage.REFUND_PENDING: "Refund in progress",
    Stage.PARTIALLY_REFUNDED: "Partially refunded",
    Stage.REFUNDED: "Refunded",
}
#: The badge's colour per state (the page's and the emails').
TONES: dict[Stage, str] = {
    Stage.AWAITING_PAYMENT: "amber",
    Stage.PAYMENT_PROCESSING: "amber",
    Stage.PAYMENT_FAILED: "red",
    Stage.CANCELLED: "gray",
    Stage.CONFIRMED: "blue",
    Stage.PRINTING: "blue",
    Stage.SHIPPED: "green",
    Stage.DELIVERED: "green",
    Stage.REFUND_PENDING: "amber",
    Stage.PARTIALLY_REFUNDED: "violet",
    Stage.REFUNDED: "gray",
}
#: The states of an order that goes ahead (a part refund leaves the rest on its way).
GOING_AHEAD = frozenset({Stage.CONFIRMED, Stage.PRINTING, Stage.SHIPPED, Stage.DELIVERED, Stage.PARTIALLY_REFUNDED})
PROGRESS_SENTENCES: dict[Stage, str] = {
    Stage.CONFIRMED: "We have your order and are preparing it for printing.",
    Stage.PRINTING: "Your order is being printed.",
    Stage.SHIPPED: "Your order is on its way.",
    Stage.DELIVERED: "Your order was delivered.",
}


@dataclass(frozen=True, slots=True)
class CustomerStatus:
    """Where the order stands for its customer: a state, its badge and one sentence."""

    stage: Stage
    sentence: str

    @property
    def label(self) -> str:
        return LABELS[self.stage]

    @property
    def tone(self) -> str:
        return TONES[self.stage]

    @property
    def going_ahead(self) -> bool:
        """Whether the order is on its way to the customer (their page thanks them and says what
        happens next); not once it is cancelled or being refunded in full."""
        return self.stage in GOING_AHEAD


def printed(order: Order) -> bool:
    """Whether the garment is printed (or being printed): a refund no longer stops its delivery."""
    return (order.printify_status or "") in PRINTING or order.shipped_at is not None or order.delivered_at is not None


def progress(order: Order) -> Stage:
    """How far a paid order has come: confirmed, printing, shipped or delivered."""
    if order.delivered_at is not None:
        return Stage.DELIVERED
    if order.shipped_at is not None or order.status == OrderStatus.FULFILLED:
        return Stage.SHIPPED
    if (order.printify_status or "") in PRINTING:
        return Stage.PRINTING
    return Stage.CONFIRMED


def customer_status(order: Order) -> CustomerStatus:
    """The one status the customer is told about `order`."""
    payment = order.payment_status
    if payment in (PaymentStatus.PENDING, PaymentStatus.FAILED, PaymentStatus.CHARGING):
        if order.status == OrderStatus.CANCELLED:
            return CustomerStatus(Stage.CANCELLED, "This order was cancelled. You were not charged.")
        if payment == PaymentStatus.FAILED:
            return CustomerStatus(Stage.PAYMENT_FAILED, "The payment did not go through. You were not charged.")
        if payment == PaymentStatus.CHARGING or order.payment_intent_id:
            return CustomerStatus(Stage.PAYMENT_PROCESSING, "We are waiting for your bank to confirm the payment.")
        return CustomerStatus(Stage.AWAITING_PAYMENT, "We have not received the payment for this order yet.")
    stage = progress(order)
    if payment == PaymentStatus.REFUNDING:
        return CustomerStatus(Stage.REFUND_PENDING, "Your refund is being processed.")
    refunded = format_usd(order.refunded_cents or order.total_cents)
    if payment == PaymentStatus.REFUNDED:
        if order.status == OrderStatus.CANCELLED and not printed(order):
            return CustomerStatus(Stage.REFUNDED, f"Your order was cancelled and refunded in full ({refunded}).")
        tail = "It was delivered." if stage == Stage.DELIVERED else STILL_DELIVERED
        return CustomerStatus(Stage.REFUNDED, f"We refunded your order in full ({refunded}). {tail}")
    if order.refunded_cents:
        return CustomerStatus(
            Stage.PARTIALLY_REFUNDED,
            f"We refunded {refunded} of {format_usd(order.total_cents)}. {PROGRESS_SENTENCES[stage]}",
        )
    return CustomerStatus(stage, PROGRESS_SENTENCES[stage])


def answer_payment_status(order: Order) -> str:
    """The payment status the order's answers give: 'partially_refunded' while part of a paid
    order is refunded, else the stored status."""
    if order.payment_status == PaymentStatus.PAID and order.refunded_cents:
        return "partially_refunded"
    return order.payment_status
