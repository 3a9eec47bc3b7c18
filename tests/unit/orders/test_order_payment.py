"""Charging an order exactly once, on SQLite and PostgreSQL: claims, races, attempts, declines."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.models import Order, OutboxJob, PaymentAttempt
from storefront.services.orders.checkout import PlacedOrder, place_order
from storefront.services.orders.order_payment import CLAIM_LEASE, OrderPayments, card_from_form
from storefront.services.payments.gateway import CardDetails, PaymentDeclined, PaymentResult, TestPaymentGateway
from storefront.services.platform.errors import ConflictError, NotFoundError, TooManyRequestsError, ValidationError
from storefront.wiring import session_factory
from tests.ordering import DECLINED_CARD, GOOD_CARD, ORDER_EMAILS, FakeClock, order_payload, pick, seed_demo

GOOD = card_from_form(GOOD_CARD)
DECLINED = card_from_form(DECLINED_CARD)
RACERS = 20


class RaceGateway(TestPaymentGateway):
    """The test gateway, counting charges; each charge waits until every other racer has finished,
    so a second charge let through by a broken claim would overlap the first one for sure."""

    def __init__(self, racers: int) -> None:
        super().__init__()
        self.charges = 0
        self._racers = racers
        self._finished = 0
        self._lock = threading.Lock()
        self._others_done = threading.Condition(self._lock)

    def charge(self, *, amount_cents: int, card: CardDetails, idempotency_key: str) -> PaymentResult:
        with self._lock:
            self.charges += 1
            self._others_done.wait_for(lambda: self._finished >= self._racers - self.charges, timeout=10)
        return super().charge(amount_cents=amount_cents, card=card, idempotency_key=idempotency_key)

    def racer_finished(self) -> None:
        with self._lock:
            self._finished += 1
            self._others_done.notify_all()


@pytest.fixture
def placed(engine: Engine, tmp_path: Path) -> PlacedOrder:
    seed_demo(engine, tmp_path)
    with Session(engine, expire_on_commit=False) as session:
        return place_order(session, order_payload((pick(engine), 1)), "checkout-1")


def _count(engine: Engine, model: type, *where) -> int:  # type: ignore[no-untyped-def]
    with Session(engine) as session:
        return session.exec(select(func.count()).select_from(model).where(*where)).one()


def _order(engine: Engine) -> Order:
    with Session(engine) as session:
        return session.exec(select(Order)).one()


def test_twenty_parallel_payments_charge_the_order_once(engine: Engine, placed: PlacedOrder) -> None:
    gateway = RaceGateway(RACERS)
    payments = OrderPayments(session_factory(engine), gateway, emails=ORDER_EMAILS)
    start = threading.Barrier(RACERS)
    outcomes: list[str] = []

    def racer(n: int) -> None:
        start.wait()
        try:
            payments.pay(placed.order.number, placed.access_token, GOOD, f"pay_{n}")
            outcomes.append("paid")
        except ConflictError:
            outcomes.append("in progress")
        finally:
            gateway.racer_finished()

    threads = [threading.Thread(target=racer, args=(n,)) for n in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert gateway.charges == 1
    assert len(outcomes) == RACERS and "paid" in outcomes
    assert _order(engine).payment_status == "paid"
    assert _count(engine, OutboxJob) == 1
    assert _count(engine, PaymentAttempt) == 1


def test_a_payment_while_another_is_charging_is_refused(engine: Engine, placed: PlacedOrder) -> None:
    clock = FakeClock()
    seen: list[Exception] = []

    class ReentrantGateway(TestPaymentGateway):
        def charge(self, **kwargs):  # type: ignore[no-untyped-def]
            try:  # a second request arrives while this charge is at the gateway
                payments.pay(placed.order.number, placed.access_token, GOOD, "pay_second")
            except ConflictError as exc:
                seen.append(exc)
            return super().charge(**kwargs)

    payments = OrderPayments(session_factory(engine), ReentrantGateway(), clock=clock, emails=ORDER_EMAILS)
    assert payments.pay(placed.order.number, placed.access_token, GOOD, "pay_first").payment_status == "paid"
    assert [str(e) for e in seen] == ["A payment for this order is already being processed. Please wait a moment."]


def test_a_claim_left_by_a_dead_request_is_taken_over_after_the_lease(engine: Engine, placed: PlacedOrder) -> None:
    clock = FakeClock()
    with Session(engine) as session:
        order = session.exec(select(Order)).one()
        order.payment_status, order.payment_claimed_at = "charging", clock.now
        session.add(order)
        session.commit()
    payments = OrderPayments(session_factory(engine), TestPaymentGateway(), clock=clock, emails=ORDER_EMAILS)
    with pytest.raises(ConflictError):
        payments.pay(placed.order.number, placed.access_token, GOOD, "pay_1")
    clock.advance((CLAIM_LEASE + timedelta(seconds=1)).total_seconds())
    assert payments.pay(placed.order.number, placed.access_token, GOOD, "pay_2").payment_status == "paid"


def test_every_attempt_is_recorded_without_card_data(engine: Engine, placed: PlacedOrder) -> None:
    payments = OrderPayments(session_factory(engine), TestPaymentGateway(), emails=ORDER_EMAILS)
    with pytest.raises(PaymentDeclined):
        payments.pay(placed.order.number, placed.access_token, DECLINED, "pay_1")
    bad = CardDetails(number="4242 4242 4242 4241", expiry="12/39", cvv="123", cardholder_name="Ada")
    with pytest.raises(ValidationError):
        payments.pay(placed.order.number, placed.access_token, bad, "pay_2")
    payments.pay(placed.order.number, placed.access_token, GOOD, "pay_3")
    with Session(engine) as session:
        attempts = session.exec(select(PaymentAttempt).order_by(PaymentAttempt.id)).all()
    assert [(a.status, a.card_last4) for a in attempts] == [("declined", None), ("invalid", None), ("approved", "4242")]
    assert attempts[0].reason == "Your card was declined."
    assert all(a.finished_at is not None and a.gateway_key.startswith(placed.order.number) for a in attempts)
    stored = " ".join(str(value) for a in attempts for value in a.model_dump().values())
    assert "4242424242424242" not in stored.replace(" ", "") and "4000000000000002" not in stored.replace(" ", "")


def test_a_wrong_token_cannot_pay(engine: Engine, placed: PlacedOrder) -> None:
    payments = OrderPayments(session_factory(engine), TestPaymentGateway(), emails=ORDER_EMAILS)
    for token in (None, "", placed.access_token + "x"):
        with pytest.raises(NotFoundError):
            payments.pay(placed.order.number, token, GOOD, "pay_1")
    assert _count(engine, PaymentAttempt) == 0


def test_declines_stop_at_the_limit_without_reaching_the_gateway(engine: Engine, placed: PlacedOrder) -> None:
    class Counting(TestPaymentGateway):
        calls = 0

        def charge(self, **kwargs):  # type: ignore[no-untyped-def]
            Counting.calls += 1
            return super().charge(**kwargs)

    payments = OrderPayments(session_factory(engine), Counting(), max_declines=2, emails=ORDER_EMAILS)
    for n in range(2):
        with pytest.raises(PaymentDeclined):
            payments.pay(placed.order.number, placed.access_token, DECLINED, f"pay_{n}")
    with pytest.raises(TooManyRequestsError):
        payments.pay(placed.order.number, placed.access_token, GOOD, "pay_good")
    assert Counting.calls == 2
