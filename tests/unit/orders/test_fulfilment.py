"""Paying orders and sending them to the print provider through the outbox, on SQLite and PostgreSQL."""

from __future__ import annotations

import logging
import re
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import MetaData, inspect, select as sa_select
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.models import Order, OutboxJob
from storefront.services.orders import order_history
from storefront.services.orders.checkout import create_order, order_items
from storefront.services.orders.fulfilment import (
    LEASE,
    RETRY_MAX_SECONDS,
    SEND_TO_PRODUCTION,
    OrderOutbox,
    is_permanent,
    order_status,
    printify_order_body,
    retry_delay,
    start_outbox_worker,
)
from storefront.services.orders.order_access import find_order, reissue_token
from storefront.services.orders.order_payment import OrderPayments, card_from_form
from storefront.services.payments.gateway import CardDetails, PaymentDeclined, TestPaymentGateway
from storefront.services.platform.errors import ValidationError
from storefront.services.printify.demo import DemoPrintProvider
from storefront.services.printify.demo_catalogue import DEMO_SHOP_ID
from storefront.services.printify.errors import (
    ProviderError,
    ProviderOutcomeUnknown,
    ProviderRateLimited,
    ProviderUnauthorized,
    ProviderUnavailable,
)
from storefront.services.printify.provider import validation_error
from storefront.wiring import session_factory
from tests.ordering import DECLINED_CARD, GOOD_CARD, ORDER_EMAILS, FakeClock, order_payload, pick, seed_demo

GOOD = card_from_form(GOOD_CARD)
DECLINED = card_from_form(DECLINED_CARD)


class CountingGateway(TestPaymentGateway):
    """The test gateway, counting charge calls."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def charge(self, **kwargs):  # type: ignore[no-untyped-def]
        self.calls += 1
        return super().charge(**kwargs)


class FlakyProvider:
    """The demo provider behind a switch: raises `error` while it is set."""

    def __init__(self, inner: DemoPrintProvider, error: Exception | None) -> None:
        self.inner = inner
        self.error = error
        self.calls = 0

    def create_order(self, shop_id: int, order: dict) -> dict:
        self.calls += 1
        if self.error is not None:
            raise self.error
        return self.inner.create_order(shop_id, order)

    def find_order_by_external_id(self, shop_id: int, external_id: str) -> dict | None:
        if self.error is not None:
            raise self.error
        return self.inner.find_order_by_external_id(shop_id, external_id)

    def get_order(self, shop_id: int, order_id: str) -> dict:
        if self.error is not None:
            raise self.error
        return self.inner.get_order(shop_id, order_id)

    def send_to_production(self, shop_id: int, order_id: str) -> dict:
        if self.error is not None:
            raise self.error
        return self.inner.send_to_production(shop_id, order_id)


@pytest.fixture
def provider(engine: Engine, tmp_path: Path) -> DemoPrintProvider:
    return seed_demo(engine, tmp_path)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def order_id(engine: Engine, provider: DemoPrintProvider) -> int:
    with Session(engine) as session:
        return create_order(session, order_payload((pick(engine), 2)), "order-key").id


def _pay(engine: Engine, order_id: int | str, card: CardDetails, gateway=None, key: str = "pay_1", clock=None) -> Order:  # type: ignore[no-untyped-def]
    """Pay as the shopper would: with the order's number and its access token."""
    with Session(engine, expire_on_commit=False) as session:
        order = find_order(session, order_id)
        token = reissue_token(session, order)
        session.commit()
    payments = OrderPayments(
        session_factory(engine),
        gateway or TestPaymentGateway(),
        **({"clock": clock} if clock else {}),
        emails=ORDER_EMAILS,
    )
    return payments.pay(order.number, token, card, key)


def _order(engine: Engine, order_id: int) -> Order:
    with Session(engine) as session:
        return session.get(Order, order_id)


def _jobs(engine: Engine, kind: str = "send_order") -> list[OutboxJob]:
    with Session(engine) as session:
        return list(session.exec(select(OutboxJob).where(OutboxJob.kind == kind)).all())


def _outbox(engine: Engine, provider: object, clock: FakeClock) -> OrderOutbox:
    return OrderOutbox(session_factory(engine), provider, DEMO_SHOP_ID, clock)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- paying


def test_a_good_card_pays_the_order_and_queues_it(engine: Engine, order_id: int, clock: FakeClock) -> None:
    order = _pay(engine, order_id, GOOD, clock=clock)
    assert (order.payment_status, order.status) == ("paid", "processing")
    assert (order.card_brand, order.card_last4) == ("visa", "4242")
    assert order.payment_id and order.payment_id.startswith("pay_")
    jobs = _jobs(engine)
    assert [(j.kind, j.order_id, j.attempts, j.done_at) for j in jobs] == [("send_order", order_id, 0, None)]
    assert jobs[0].next_attempt_at == clock.now


def test_paying_a_paid_order_again_changes_nothing(engine: Engine, order_id: int) -> None:
    gateway = CountingGateway()
    first = _pay(engine, order_id, GOOD, gateway, key="pay_1")
    again = _pay(engine, order_id, GOOD, gateway, key="pay_2")
    assert again.payment_id == first.payment_id
    assert gateway.calls == 1
    assert len(_jobs(engine)) == 1


def test_the_order_number_works_as_the_reference(engine: Engine, order_id: int) -> None:
    number = _order(engine, order_id).number
    assert _pay(engine, number, GOOD).id == order_id


def test_a_declined_card_fails_the_payment_and_keeps_the_order(engine: Engine, order_id: int) -> None:
    with pytest.raises(PaymentDeclined) as caught:
        _pay(engine, order_id, DECLINED)
    assert caught.value.reason == "Your card was declined."
    order = _order(engine, order_id)
    assert (order.payment_status, order.status) == ("failed", "pending")
    assert order.payment_id is None and order.card_last4 is None
    assert _jobs(engine) == []


def test_another_card_may_pay_after_a_decline(engine: Engine, order_id: int) -> None:
    with pytest.raises(PaymentDeclined):
        _pay(engine, order_id, DECLINED, key="pay_1")
    assert _pay(engine, order_id, GOOD, key="pay_2").payment_status == "paid"


def test_an_invalid_card_leaves_the_payment_pending(engine: Engine, order_id: int) -> None:
    bad = CardDetails(number="4242 4242 4242 4241", expiry="12/39", cvv="12", cardholder_name="")
    with pytest.raises(ValidationError) as caught:
        _pay(engine, order_id, bad)
    assert set(caught.value.field_errors) == {"cardNumber", "cvv", "cardholderName"}
    assert _order(engine, order_id).payment_status == "pending"


def test_card_form_accepts_expiry_month_and_year() -> None:
    card = card_from_form({"cardNumber": "4242424242424242", "expiryMonth": 3, "expiryYear": 2031, "cvv": "123"})
    assert card.expiry == "03/31"
    assert card.cardholder_name == ""


# --------------------------------------------------------------------------- the outbox


def test_the_outbox_sends_a_paid_order_to_the_provider(
    engine: Engine, order_id: int, provider: DemoPrintProvider, clock: FakeClock
) -> None:
    _pay(engine, order_id, GOOD, clock=clock)
    assert _outbox(engine, provider, clock).run_due() == 1
    order = _order(engine, order_id)
    assert order.printify_status == "pending"
    sent = provider.get_order(DEMO_SHOP_ID, order.printify_order_id)
    assert sent["metadata"]["shop_order_id"] == order.number
    assert [(line["product_id"], line["quantity"]) for line in sent["line_items"]] == [(pick(engine).product_id, 2)]
    assert sent["shipping_method"] == 1
    address = sent["address_to"]
    assert (address["country"], address["region"], address["email"]) == ("US", "NY", "ada@example.com")
    (job,) = _jobs(engine)
    assert job.done_at == clock.now and job.attempts == 1
    assert _outbox(engine, provider, clock).run_due() == 0  # nothing sent twice
    with Session(engine) as session:
        lines = [(row.action, row.detail) for row in order_history.history(session, order_id)]
    assert lines == [(order_history.PAID, lines[0][1]), (order_history.SENT, order.printify_order_id)]


def test_a_job_read_by_two_workers_is_claimed_by_one(engine: Engine, order_id: int, clock: FakeClock) -> None:
    _pay(engine, order_id, GOOD, clock=clock)
    with Session(engine) as first, Session(engine) as second:
        seen_by_first = first.exec(select(OutboxJob)).one()
        seen_by_second = second.exec(select(OutboxJob)).one()
        assert OrderOutbox._lease(first, seen_by_first, clock.now) is True
        assert OrderOutbox._lease(second, seen_by_second, clock.now) is False


def test_a_worker_that_lost_the_race_does_not_send(
    engine: Engine, order_id: int, provider: DemoPrintProvider, clock: FakeClock
) -> None:
    _pay(engine, order_id, GOOD, clock=clock)
    with Session(engine) as other:
        OrderOutbox._lease(other, other.exec(select(OutboxJob)).one(), clock.now)
    counting = FlakyProvider(provider, None)
    assert _outbox(engine, counting, clock).run_due() == 0
    assert counting.calls == 0


def test_an_abandoned_lease_is_taken_over_when_it_runs_out(
    engine: Engine, order_id: int, provider: DemoPrintProvider, clock: FakeClock
) -> None:
    _pay(engine, order_id, GOOD, clock=clock)
    with Session(engine) as crashed_worker:
        OrderOutbox._lease(crashed_worker, crashed_worker.exec(select(OutboxJob)).one(), clock.now)
    later = FakeClock(clock.now + LEASE + timedelta(minutes=1))
    assert _outbox(engine, provider, later).run_due() == 1


def test_unpaid_orders_are_not_sent(
    engine: Engine, order_id: int, provider: DemoPrintProvider, clock: FakeClock
) -> None:
    assert _outbox(engine, provider, clock).run_due() == 0
    assert provider.list_orders(DEMO_SHOP_ID)["total"] == 0


def test_a_provider_outage_delays_the_order_and_a_later_run_sends_it(
    engine: Engine, order_id: int, provider: DemoPrintProvider, clock: FakeClock
) -> None:
    _pay(engine, order_id, GOOD, clock=clock)
    flaky = FlakyProvider(provider, ProviderUnavailable("Print provider unavailable", status=503))
    outbox = _outbox(engine, flaky, clock)

    assert outbox.run_due() == 0
    order = _order(engine, order_id)
    assert (order.payment_status, order.status, order.printify_order_id) == ("paid", "processing", None)
    (job,) = _jobs(engine)
    assert (job.attempts, job.done_at) == (1, None)
    assert job.next_attempt_at == clock.now + timedelta(seconds=30)
    assert "ProviderUnavailable" in job.last_error

    flaky.error = None
    clock.advance(29)
    assert outbox.run_due() == 0  # not due yet
    assert flaky.calls == 1
    clock.advance(1)
    assert outbox.run_due() == 1
    assert _order(engine, order_id).printify_order_id
    (job,) = _jobs(engine)
    assert job.done_at == clock.now and job.attempts == 2


def test_a_rate_limit_waits_at_least_retry_after(
    engine: Engine, order_id: int, provider: DemoPrintProvider, clock: FakeClock
) -> None:
    _pay(engine, order_id, GOOD, clock=clock)
    _outbox(engine, FlakyProvider(provider, ProviderRateLimited(retry_after=120)), clock).run_due()
    (job,) = _jobs(engine)
    assert job.next_attempt_at == clock.now + timedelta(seconds=120)


def _status(engine: Engine, order_id: int) -> dict:
    with Session(engine) as session:
        return order_status(session.get(Order, order_id))


def test_an_order_the_provider_refuses_stops_retrying_and_needs_attention(
    engine: Engine, order_id: int, provider: DemoPrintProvider, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    _pay(engine, order_id, GOOD, clock=clock)
    refused = FlakyProvider(provider, validation_error("address_to.zip: The address to.zip is invalid."))
    outbox = _outbox(engine, refused, clock)
    with caplog.at_level(logging.WARNING, logger="storefront.services.orders.fulfilment"):
        assert outbox.run_due() == 0
        for _ in range(3):
            clock.advance(RETRY_MAX_SECONDS)
            assert outbox.run_due() == 0
    assert refused.calls == 1
    (job,) = _jobs(engine)
    assert job.done_at == clock.now - timedelta(seconds=3 * RETRY_MAX_SECONDS)
    assert "address_to.zip" in (job.last_error or "")
    status = _status(engine, order_id)
    # Staff settle it: the customer is not alarmed, the order is confirmed for them.
    assert "needsAttention" not in status and "attentionReason" not in status
    assert (status["customerStatus"], status["customerStatusLabel"]) == ("confirmed", "Confirmed")
    with Session(engine) as session:
        assert session.get(Order, order_id).attention_reason == "address_to.zip: The address to.zip is invalid."
    assert (status["paymentStatus"], status["printifyOrderId"]) == ("paid", None)
    assert [r.levelname for r in caplog.records] == ["ERROR"]


@pytest.mark.parametrize(
    "error",
    [
        ProviderUnavailable("Print provider unavailable", status=503),
        ProviderRateLimited(retry_after=5),
        ProviderUnauthorized(),
        ProviderError("Request Timeout", status=408),
    ],
    ids=["503", "429", "401", "408"],
)
def test_temporary_provider_errors_keep_the_backoff(
    engine: Engine, order_id: int, provider: DemoPrintProvider, clock: FakeClock, error: Exception
) -> None:
    _pay(engine, order_id, GOOD, clock=clock)
    _outbox(engine, FlakyProvider(provider, error), clock).run_due()
    (job,) = _jobs(engine)
    assert (job.done_at, job.attempts) == (None, 1)
    assert _status(engine, order_id)["customerStatus"] == "confirmed"


@pytest.mark.parametrize(
    ("status", "permanent"),
    [(400, True), (404, True), (422, True), (401, False), (403, False), (429, False), (500, False)],
)
def test_which_provider_errors_are_permanent(status: int, permanent: bool) -> None:
    assert is_permanent(ProviderError("x", status=status)) is permanent


@pytest.mark.parametrize(
    ("attempts", "seconds"), [(1, 30), (2, 60), (3, 120), (7, 1920), (8, 3600), (50, 3600), (10_000, 3600)]
)
def test_retries_back_off_exponentially_up_to_an_hour(attempts: int, seconds: int) -> None:
    assert retry_delay(attempts) == timedelta(seconds=seconds)


def test_the_worker_thread_runs_the_outbox_and_stops(
    engine: Engine, order_id: int, provider: DemoPrintProvider
) -> None:
    _pay(engine, order_id, GOOD)
    worker = start_outbox_worker(OrderOutbox(session_factory(engine), provider, DEMO_SHOP_ID), interval_seconds=0.01)
    try:
        for _ in range(500):
            if _order(engine, order_id).printify_order_id:
                break
            worker.stop_event.wait(0.01)
    finally:
        worker.stop()
    assert _order(engine, order_id).printify_order_id
    assert not worker.thread.is_alive()


# --------------------------------------------------------------------------- unknown outcomes and production


class LostAnswerProvider(FlakyProvider):
    """Creates the order at the provider, then loses the answer (a timeout after the request left)."""

    def __init__(self, inner: DemoPrintProvider) -> None:
        super().__init__(inner, None)
        self.lose_answers = 1

    def create_order(self, shop_id: int, order: dict) -> dict:
        answer = super().create_order(shop_id, order)
        if self.lose_answers:
            self.lose_answers -= 1
            raise ProviderOutcomeUnknown("No answer from Printify; the POST may have taken effect")
        return answer


def test_a_lost_answer_is_found_by_external_id_not_sent_twice(
    engine: Engine, order_id: int, provider: DemoPrintProvider, clock: FakeClock
) -> None:
    _pay(engine, order_id, GOOD, clock=clock)
    lossy = LostAnswerProvider(provider)
    outbox = _outbox(engine, lossy, clock)
    assert outbox.run_due() == 0
    (job,) = _jobs(engine)
    assert job.outcome_unknown is True and job.done_at is None
    clock.advance(30)
    assert outbox.run_due() == 1
    assert lossy.calls == 1  # looked up, not created again
    (only,) = provider.list_orders(DEMO_SHOP_ID)["data"]
    assert _order(engine, order_id).printify_order_id == only["id"]
    (job,) = _jobs(engine)
    assert job.outcome_unknown is False and job.done_at == clock.now


def test_a_worker_that_died_after_sending_leaves_an_order_that_is_found(
    engine: Engine, order_id: int, provider: DemoPrintProvider, clock: FakeClock
) -> None:
    _pay(engine, order_id, GOOD, clock=clock)
    with Session(engine) as crashed_worker:
        job = crashed_worker.exec(select(OutboxJob)).one()
        OrderOutbox._lease(crashed_worker, job, clock.now)
        order = crashed_worker.get(Order, order_id)
        provider.create_order(DEMO_SHOP_ID, printify_order_body(order, order_items(crashed_worker, order_id)))
    clock.advance(LEASE.total_seconds() + 60)  # the lease runs out
    counting = FlakyProvider(provider, None)
    assert _outbox(engine, counting, clock).run_due() == 1
    assert counting.calls == 0
    assert provider.list_orders(DEMO_SHOP_ID)["total"] == 1


def test_an_unknown_outcome_is_not_resent_while_the_lookup_fails(
    engine: Engine, order_id: int, provider: DemoPrintProvider, clock: FakeClock
) -> None:
    _pay(engine, order_id, GOOD, clock=clock)
    lossy = LostAnswerProvider(provider)
    _outbox(engine, lossy, clock).run_due()
    lossy.error = ProviderUnavailable("Print provider unavailable", status=503)
    clock.advance(30)
    assert _outbox(engine, lossy, clock).run_due() == 0
    (job,) = _jobs(engine)
    assert job.outcome_unknown is True  # still in doubt: the next attempt looks again
    assert provider.list_orders(DEMO_SHOP_ID)["total"] == 1


def test_a_sent_order_goes_to_production_once_costed(
    engine: Engine, order_id: int, tmp_path: Path, clock: FakeClock
) -> None:
    provider = DemoPrintProvider(media_dir=tmp_path / "demo", clock=clock, costing_seconds=60)
    _pay(engine, order_id, GOOD, clock=clock)
    outbox = _outbox(engine, provider, clock)
    assert outbox.run_due() == 1  # sent; still being costed, so production waits
    (production,) = _jobs(engine, SEND_TO_PRODUCTION)
    assert production.done_at is None and "cost" in (production.last_error or "")
    assert _order(engine, order_id).printify_status == "pending"
    clock.advance(60)
    assert outbox.run_due() == 1
    order = _order(engine, order_id)
    assert order.printify_status == "in-production"
    assert provider.get_order(DEMO_SHOP_ID, order.printify_order_id)["status"] == "in-production"
    (production,) = _jobs(engine, SEND_TO_PRODUCTION)
    assert production.done_at == clock.now
    assert outbox.run_due() == 0


def test_an_order_approved_elsewhere_is_not_sent_to_production_again(
    engine: Engine, order_id: int, tmp_path: Path, clock: FakeClock
) -> None:
    provider = DemoPrintProvider(media_dir=tmp_path / "demo", clock=clock, costing_seconds=0)
    _pay(engine, order_id, GOOD, clock=clock)
    outbox = _outbox(engine, FlakyProvider(provider, None), clock)
    with Session(engine) as session:
        production_jobs = session.exec(select(OutboxJob).where(OutboxJob.kind == SEND_TO_PRODUCTION)).all()
    assert production_jobs == []
    outbox.run_due(limit=1)  # only the send
    provider.send_to_production(DEMO_SHOP_ID, _order(engine, order_id).printify_order_id)  # e.g. auto-approval
    assert outbox.run_due() == 1
    assert _order(engine, order_id).printify_status == "in-production"


# --------------------------------------------------------------------------- card data


def _contains(text: str, secret: str) -> bool:
    """The secret as a whole token (not inside a longer run of digits or hex)."""
    return re.search(rf"(?<![0-9a-fA-F]){re.escape(secret)}(?![0-9a-fA-F])", text) is not None


def test_no_card_number_or_cvv_is_stored_or_logged(
    engine: Engine, order_id: int, provider: DemoPrintProvider, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    # SQLAlchemy pins its logger at WARNING; open it so every statement and its parameters are scanned too.
    caplog.set_level(logging.DEBUG, logger="sqlalchemy.engine")
    invalid = CardDetails(number="4242 4242 4242 4241", expiry="12/39", cvv="739", cardholder_name="Ada")
    with pytest.raises(ValidationError):
        _pay(engine, order_id, invalid, key="pay_a")
    with pytest.raises(PaymentDeclined):
        _pay(engine, order_id, DECLINED, key="pay_b")
    _pay(engine, order_id, GOOD, key="pay_c", clock=clock)
    _outbox(engine, provider, clock).run_due()

    secrets = [
        "4242424242424242",
        "4242 4242 4242 4242",
        "4000000000000002",
        "4000 0000 0000 0002",
        "4242424242424241",
        "4242 4242 4242 4241",
        "739",
    ]
    metadata = MetaData()
    metadata.reflect(engine)
    stored: list[str] = []
    with engine.connect() as connection:
        for table in metadata.sorted_tables:
            for row in connection.execute(sa_select(table)):
                stored.extend(str(value) for value in row)
    assert set(inspect(engine).get_table_names()) >= {"orders", "order_item", "outbox_job"}
    assert stored
    logged = caplog.text + "\n".join(str(record.args) for record in caplog.records)
    assert "Payment declined" in caplog.text  # the app logs were captured
    assert "UPDATE orders" in caplog.text  # and the SQL with its parameters
    for secret in secrets:
        assert not any(_contains(value, secret) for value in stored), secret
        assert not _contains(logged, secret), secret
