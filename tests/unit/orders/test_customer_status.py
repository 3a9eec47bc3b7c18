"""The one status a customer is told (customer_status.py) for each state of the lifecycle, and Retry
offered only where it can succeed."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from storefront.models import Order
from storefront.services.orders import lifecycle
from storefront.services.orders.customer_status import PRINTED_WARNING, answer_payment_status, customer_status
from storefront.services.orders.statuses import OrderStatus, PaymentStatus

SHIPPED = datetime(2030, 3, 5, tzinfo=UTC)


def _order(**values: Any) -> Order:
    fields: dict[str, Any] = {
        "number": "SF-000001",
        "idempotency_key": "k",
        "request_fingerprint": "f",
        "access_token_hash": "h",
        "customer_email": "ada@example.com",
        "customer_name": "Ada Lovelace",
        "first_name": "Ada",
        "last_name": "Lovelace",
        "address1": "1 Main Street",
        "city": "Springfield",
        "state_code": "IL",
        "zip": "62701",
        "country_code": "US",
        "subtotal_cents": 4000,
        "shipping_cents": 999,
        "total_cents": 4999,
        "status": OrderStatus.PROCESSING,
        "payment_status": PaymentStatus.PAID,
        "payment_id": "pay_1",
    }
    return Order(**{**fields, **values})


@pytest.mark.parametrize(
    ("values", "label", "sentence"),
    [
        (
            {"status": OrderStatus.PENDING, "payment_status": PaymentStatus.PENDING},
            "Awaiting payment",
            "We have not received the payment for this order yet.",
        ),
        (
            {"status": OrderStatus.CANCELLED, "payment_status": PaymentStatus.PENDING},
            "Cancelled",
            "This order was cancelled. You were not charged.",
        ),
        ({}, "Confirmed", "We have your order and are preparing it for printing."),
        (
            {"attention_reason": "address_to.zip is invalid"},
            "Confirmed",
            "We have your order and are preparing it for printing.",
        ),
        ({"printify_status": "in-production"}, "Printing", "Your order is being printed."),
        ({"shipped_at": SHIPPED, "tracking_number": "9400"}, "Shipped", "Your order is on its way."),
        (
            {"refunded_cents": 1500},
            "Partially refunded",
            "We refunded $15.00 of $49.99. We have your order and are preparing it for printing.",
        ),
        (
            {"status": OrderStatus.CANCELLED, "payment_status": PaymentStatus.REFUNDED, "refunded_cents": 4999},
            "Refunded",
            "Your order was cancelled and refunded in full ($49.99).",
        ),
        # Refunded after it shipped: one status, no alarm, and the garment still comes.
        (
            {
                "status": OrderStatus.FULFILLED,
                "payment_status": PaymentStatus.REFUNDED,
                "refunded_cents": 4999,
                "shipped_at": SHIPPED,
                "printify_status": "fulfilled",
                "attention_reason": "Refunded while the print provider was already printing it",
            },
            "Refunded",
            "We refunded your order in full ($49.99). The garment was already printed and will still be"
            " delivered to you.",
        ),
    ],
)
def test_each_state_has_one_badge_and_one_sentence(values: dict[str, Any], label: str, sentence: str) -> None:
    told = customer_status(_order(**values))
    assert (told.label, told.sentence) == (label, sentence)


def test_the_answers_say_partially_refunded_while_part_is_refunded() -> None:
    assert answer_payment_status(_order(refunded_cents=100)) == "partially_refunded"
    assert answer_payment_status(_order()) == "paid"
    assert answer_payment_status(_order(payment_status=PaymentStatus.REFUNDED, refunded_cents=4999)) == "refunded"
    assert "will still be delivered" in PRINTED_WARNING


@pytest.mark.parametrize(
    ("values", "retry"),
    [
        ({"attention_reason": "address_to.zip is invalid"}, True),
        ({}, False),
        ({"attention_reason": "refused", "payment_status": PaymentStatus.REFUNDED, "refunded_cents": 4999}, False),
        ({"attention_reason": "refused", "status": OrderStatus.CANCELLED}, False),
        ({"attention_reason": "Refunded while printing", "printify_status": "in-production"}, False),
        ({"attention_reason": "refused", "shipped_at": SHIPPED}, False),
    ],
)
def test_retry_is_offered_only_where_it_can_succeed(values: dict[str, Any], retry: bool) -> None:
    order = _order(**values)
    assert lifecycle.can_retry(order) is retry
    assert lifecycle.can_resolve(order) is bool(values.get("attention_reason"))


def test_only_an_order_going_ahead_is_thanked_for() -> None:
    assert customer_status(_order()).going_ahead
    assert customer_status(_order(refunded_cents=1500)).going_ahead
    assert customer_status(_order(shipped_at=SHIPPED, tracking_number="9400")).going_ahead
    refunded = {"status": OrderStatus.CANCELLED, "payment_status": PaymentStatus.REFUNDED, "refunded_cents": 4999}
    assert not customer_status(_order(**refunded)).going_ahead
    assert not customer_status(_order(status=OrderStatus.CANCELLED, payment_status=PaymentStatus.PENDING)).going_ahead
