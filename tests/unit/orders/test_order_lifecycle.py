"""An order's life, on SQLite and PostgreSQL: the table of moves refuses what it does not allow, a
payment with the test gateway writes 'Paid' in the history, and the back office offers Cancel,
Refund, Retry and Resend exactly when the services accept them."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select, update

from storefront.models import Order, OrderHistory
from storefront.services.admin import admin_orders
from storefront.services.orders import lifecycle, order_history
from storefront.services.orders.checkout import create_order, place_order
from storefront.services.orders.lifecycle import IllegalMove, Move
from storefront.services.orders.order_access import find_order
from storefront.services.orders.order_cancellation import OrderCancellations
from storefront.services.orders.order_emails import OrderEmails
from storefront.services.orders.order_payment import OrderPayments, card_from_form
from storefront.services.orders.statuses import OrderStatus, PaymentStatus
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.platform.errors import ServiceError
from storefront.services.platform.money import format_usd
from storefront.services.platform.signing import LinkSigner
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.demo_catalogue import DEMO_SHOP_ID
from storefront.wiring import session_factory
from tests.ordering import GOOD_CARD, order_payload, pick, seed_demo

EMAILS = OrderEmails("https://shop.example", LinkSigner(b"test-signing-key"))
#: Every state an order can be found in: each order status with each payment status.
EVERY_STATE = list(itertools.product(OrderStatus, PaymentStatus))


@pytest.fixture
def provider(engine: Engine, tmp_path: Path) -> DemoPrintProvider:
    return seed_demo(engine, tmp_path)


def _place(engine: Engine, key: str) -> str:
    with Session(engine) as session:
        return create_order(session, order_payload((pick(engine), 1)), key).number


def _put(engine: Engine, number: str, status: str, payment: str) -> Order:
    """Stand the order in (status, payment), paid through a payment id, needing attention."""
    with Session(engine, expire_on_commit=False) as session:
        session.execute(
            update(Order).where(Order.number == number)  # type: ignore[arg-type]
            .values(status=status, payment_status=payment, payment_id="pay_test_1", attention_reason="Refused")
        )
        session.commit()
        return find_order(session, number)


def _state(engine: Engine, number: str) -> tuple[str, str, str | None]:
    with Session(engine) as session:
        order = find_order(session, number)
        return order.status, order.payment_status, order.attention_reason


def _history(engine: Engine, number: str) -> list[OrderHistory]:
    with Session(engine) as session:
        order = find_order(session, number)
        return list(session.exec(select(OrderHistory).where(OrderHistory.order_id == order.id)).all())


# --------------------------------------------------------------------------- the table


def test_the_table_refuses_to_pay_a_cancelled_order(engine: Engine, provider: DemoPrintProvider) -> None:
    order = _put(engine, _place(engine, "lc-1"), OrderStatus.CANCELLED, PaymentStatus.PENDING)
    assert not lifecycle.allowed(Move.PAID, order)
    with pytest.raises(IllegalMove):
        lifecycle.require(Move.PAID, order)


def test_an_illegal_move_changes_nothing_and_writes_no_history(engine: Engine, provider: DemoPrintProvider) -> None:
    number = _place(engine, "lc-2")
    _put(engine, number, OrderStatus.CANCELLED, PaymentStatus.REFUNDED)
    with Session(engine) as session:
        order = find_order(session, number)
        moved = lifecycle.paid(session, order, actor="test", detail="", payment={"payment_id": "pay_late"},
                               now=order.updated_at, emails=EMAILS)
        session.commit()
    assert moved is False
    assert _state(engine, number)[:2] == (OrderStatus.CANCELLED, PaymentStatus.REFUNDED)
    assert _history(engine, number) == []


def test_an_unpaid_order_cannot_be_sent_to_the_provider(engine: Engine, provider: DemoPrintProvider) -> None:
    with Session(engine) as session:
        order = find_order(session, _place(engine, "lc-3"))
        with pytest.raises(IllegalMove):
            lifecycle.sent(session, order, "provider-1", "pending", order.updated_at)
        assert order.printify_order_id is None


def test_every_move_of_the_table_leads_somewhere_it_may_start_from_or_stays() -> None:
    # A move that leads to a payment status outside every rule would strand the order.
    reachable = {rule.payment for rule in lifecycle.MOVES.values() if rule.payment is not None}
    starts = set().union(*(rule.payments or PaymentStatus for rule in lifecycle.MOVES.values()))
    assert reachable <= starts


# --------------------------------------------------------------------------- payment


def test_a_test_gateway_payment_writes_paid_in_the_history(engine: Engine, provider: DemoPrintProvider) -> None:
    with Session(engine) as session:
        placed = place_order(session, order_payload((pick(engine), 1)), "lc-pay")
        number, access = placed.order.number, placed.access_token
    payments = OrderPayments(session_factory(engine), TestPaymentGateway(), emails=EMAILS)
    order = payments.pay(number, access, card_from_form(GOOD_CARD), "pay-1")
    assert order.payment_status == PaymentStatus.PAID
    history = _history(engine, number)
    assert [(row.actor, row.action, order_history.label(row.action)) for row in history] == [
        ("test", order_history.PAID, "Paid")
    ]
    assert history[0].detail == f"{format_usd(order.total_cents)} ({order.payment_id})"


# --------------------------------------------------------------------------- what staff are offered


def _accepted(engine: Engine, number: str, action: Callable[[], object]) -> bool:
    """Whether the service took the action: it answered without an error and the order moved."""
    before = _state(engine, number)
    try:
        action()
    except ServiceError:
        assert _state(engine, number) == before
        return False
    return _state(engine, number) != before


def _cancellations(engine: Engine, provider: DemoPrintProvider) -> OrderCancellations:
    gateway = TestPaymentGateway()
    return OrderCancellations(session_factory(engine), {gateway.name: gateway}, provider, lambda: DEMO_SHOP_ID,
                              emails=EMAILS)


def test_cancel_is_offered_exactly_when_the_service_cancels(engine: Engine, provider: DemoPrintProvider) -> None:
    service = _cancellations(engine, provider)
    for n, (status, payment) in enumerate(EVERY_STATE):
        number = _place(engine, f"lc-cancel-{n}")
        order = _put(engine, number, status, payment)
        offered = lifecycle.can_cancel(order)
        assert offered == _accepted(engine, number, partial(service.cancel, number, "owner")), (status, payment)


def test_cancel_is_not_offered_while_a_payment_is_being_charged(engine: Engine, provider: DemoPrintProvider) -> None:
    order = _put(engine, _place(engine, "lc-charging"), OrderStatus.PENDING, PaymentStatus.CHARGING)
    assert not lifecycle.can_cancel(order)


def test_refund_is_offered_exactly_when_the_service_refunds(engine: Engine, provider: DemoPrintProvider) -> None:
    service = _cancellations(engine, provider)
    for n, (status, payment) in enumerate(EVERY_STATE):
        number = _place(engine, f"lc-refund-{n}")
        order = _put(engine, number, status, payment)
        offered = lifecycle.can_refund(order)
        assert offered == _accepted(engine, number, partial(service.refund, number, "owner")), (status, payment)


def test_retry_is_offered_exactly_when_the_service_retries(engine: Engine, provider: DemoPrintProvider) -> None:
    for n, (status, payment) in enumerate(EVERY_STATE):
        number = _place(engine, f"lc-retry-{n}")
        order = _put(engine, number, status, payment)
        offered = lifecycle.can_retry(order)

        def retry(number: str = number) -> None:
            with Session(engine) as session:
                admin_orders.retry_fulfilment(session, number)

        assert offered == _accepted(engine, number, retry), (status, payment)


def test_retry_is_not_offered_for_a_refunded_order_that_needs_attention(
    engine: Engine, provider: DemoPrintProvider
) -> None:
    order = _put(engine, _place(engine, "lc-refunded"), OrderStatus.PROCESSING, PaymentStatus.REFUNDED)
    assert order.attention_reason is not None
    assert not lifecycle.can_retry(order)


def test_resend_is_offered_exactly_when_the_service_resends(engine: Engine, provider: DemoPrintProvider) -> None:
    for n, (status, payment) in enumerate(EVERY_STATE):
        number = _place(engine, f"lc-resend-{n}")
        order = _put(engine, number, status, payment)
        with Session(engine) as session:
            try:
                queued = admin_orders.resend_confirmation(session, number, f"click-{n}", EMAILS)
            except ServiceError:
                queued = False
        assert lifecycle.can_resend(order) == queued, (status, payment)
