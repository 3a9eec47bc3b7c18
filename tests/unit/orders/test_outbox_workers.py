"""Issue 13, several workers: the fulfilment outbox sends each paid order to the provider exactly once.

Several OrderOutbox workers, each with its own engine (connection pool) and its own HTTP client,
share one queue and one fake Printify served over real HTTP, on SQLite and PostgreSQL. A worker
that dies mid-send is simulated with WorkerKilled, a BaseException the outbox cannot catch: the
worker stops where it is and records nothing, as a killed process would. Time is a FakeClock
moved by hand (never slept on), and the fake's answers are held on threading Events.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from storefront.db import make_engine
from storefront.models import Order, OutboxJob
from storefront.services.catalog.store_catalogue import sync_store_catalogue
from storefront.services.orders.checkout import create_order
from storefront.services.orders.fulfilment import HEARTBEAT, LEASE, RETRY_MAX_SECONDS, SEND_TO_PRODUCTION, OrderOutbox
from storefront.services.orders.order_access import reissue_token
from storefront.services.orders.order_payment import SEND_ORDER, OrderPayments, card_from_form
from storefront.services.payments.gateway import TestPaymentGateway
from storefront.services.platform.background import beating
from storefront.services.printify.client import SyncPrintifyClient
from storefront.wiring import session_factory
from tests.fakes.printify_server import FakePrintifyServer, printify_server  # noqa: F401 (fixture)
from tests.ordering import GOOD_CARD, ORDER_EMAILS, FakeClock, order_payload, pick

JOIN_SECONDS = 45.0
MAX_ROUNDS = 400  # a bound on a worker's loop, far above what draining the queue needs


# --------------------------------------------------------------------------- helpers


class WorkerKilled(BaseException):  # it is an event, not an error
    """The worker's process died: not an Exception, so the outbox's handlers cannot record anything."""


class CountingOutbox(OrderOutbox):
    """OrderOutbox that counts the claims it lost to another worker (evidence the workers raced)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lost_claims = 0

    def _lease(self, session: Session, job: OutboxJob, now: datetime) -> bool:  # type: ignore[override]
        won = OrderOutbox._lease(session, job, now)
        if not won:
            self.lost_claims += 1
        return won


class DyingProvider:
    """A worker's provider whose process dies around a create-order call once `die` is set.

    `when="after"`: the request reached the provider and was processed; the worker dies before it
    can record the answer. `when="before"`: the worker dies after claiming the job, before sending."""

    def __init__(self, inner: SyncPrintifyClient, die: threading.Event, when: str = "after") -> None:
        self.inner = inner
        self.die = die
        self.when = when

    def create_order(self, shop_id: int, order: dict) -> dict:
        if self.die.is_set() and self.when == "before":
            raise WorkerKilled
        answer = self.inner.create_order(shop_id, order)
        if self.die.is_set() and self.when == "after":
            raise WorkerKilled
        return answer

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass
class Worker:
    """One outbox worker as a separate process would have it: its own engine, client and outbox."""

    engine: Engine
    client: SyncPrintifyClient
    outbox: CountingOutbox
    steps: int = 0
    died: list[BaseException] = field(default_factory=list)

    def close(self) -> None:
        self.client.close()
        self.engine.dispose()


def _client(server: FakePrintifyServer) -> SyncPrintifyClient:
    return SyncPrintifyClient(server.token, base_url=server.base_url, timeout=10.0, max_attempts=2, backoff_base=0.001)


@contextmanager
def _worker(
    database_url: str, server: FakePrintifyServer, clock: FakeClock,
    wrap: Callable[[SyncPrintifyClient], Any] | None = None,
) -> Iterator[Worker]:
    engine = make_engine(database_url)
    client = _client(server)
    provider = wrap(client) if wrap else client
    worker = Worker(engine, client, CountingOutbox(session_factory(engine), provider, server.shop_id, clock))
    try:
        yield worker
    finally:
        worker.close()


def _undone_due(engine: Engine, now: datetime) -> int:
    with Session(engine) as session:
        return len(session.exec(
            select(OutboxJob.id).where(col(OutboxJob.done_at).is_(None), col(OutboxJob.next_attempt_at) <= now)
        ).all())


def _drain(worker: Worker, clock: FakeClock, start: threading.Barrier) -> None:
    """Run the worker until no job is due any more (jobs claimed by others are theirs to finish)."""
    start.wait(timeout=JOIN_SECONDS)
    for _ in range(MAX_ROUNDS):
        steps = worker.outbox.run_due(limit=5)
        worker.steps += steps
        if steps == 0 and _undone_due(worker.engine, clock()) == 0:
            return
    raise AssertionError("the worker never emptied the queue")


def _run_concurrently(workers: list[Worker], clock: FakeClock) -> None:
    """Drain the queue with every worker in its own thread, started together; re-raise any failure."""
    start = threading.Barrier(len(workers))
    failures: list[BaseException] = []

    def body(worker: Worker) -> None:
        try:
            _drain(worker, clock, start)
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [
        threading.Thread(target=body, args=(w,), name=f"outbox-worker-{i}", daemon=True) for i, w in enumerate(workers)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_SECONDS)
    assert not any(t.is_alive() for t in threads), "a worker hung"
    assert failures == [], failures


def _in_thread(target: Callable[[], Any], died: list[BaseException]) -> threading.Thread:
    def body() -> None:
        try:
            target()
        except BaseException as exc:  # noqa: BLE001 - the test looks at it
            died.append(exc)

    thread = threading.Thread(target=body, name="dying-outbox-worker", daemon=True)
    thread.start()
    return thread


def _catalogue(engine: Engine, server: FakePrintifyServer) -> None:
    server.add_product("Worker Tee")
    with _client(server) as client:
        sync_store_catalogue(session_factory(engine), client, server.shop_id)


def _paid_orders(engine: Engine, count: int, prefix: str = "o") -> list[str]:
    """Place and pay `count` orders (queued at the real time, due for a FakeClock); their numbers."""
    payments = OrderPayments(session_factory(engine), TestPaymentGateway(), emails=ORDER_EMAILS)
    product = pick(engine)
    numbers = []
    for n in range(count):
        with Session(engine, expire_on_commit=False) as session:
            order = create_order(session, order_payload((product, 1)), f"{prefix}-key-{n}")
            token = reissue_token(session, order)
            session.commit()
        payments.pay(order.number, token, card_from_form(GOOD_CARD), f"{prefix}-pay-{n}")
        numbers.append(order.number)
    return numbers


def _orders(engine: Engine) -> dict[str, Order]:
    with Session(engine) as session:
        return {o.number: o for o in session.exec(select(Order)).all()}


def _jobs(engine: Engine, kind: str = SEND_ORDER) -> dict[int, OutboxJob]:
    with Session(engine) as session:
        return {j.order_id: j for j in session.exec(select(OutboxJob).where(OutboxJob.kind == kind)).all()}


def _accepted_creates(server: FakePrintifyServer) -> list[str]:
    """External ids of the create-order requests the fake accepted (answered 200), in order."""
    return [r.json()["external_id"] for r in server.requests_to("POST", "/orders.json") if r.status == 200]


def _assert_each_at_the_provider_once(engine: Engine, server: FakePrintifyServer, numbers: list[str]) -> None:
    """The provider holds each order exactly once, and each order in the database names that one."""
    at_provider = server.all_orders()
    counts = Counter(o["metadata"]["shop_order_id"] for o in at_provider)
    assert {n: c for n, c in counts.items() if c != 1} == {}, "orders sent more than once"
    assert sorted(counts) == sorted(numbers), "orders lost or unknown orders sent"
    by_number = {o["metadata"]["shop_order_id"]: o for o in at_provider}
    orders = _orders(engine)
    assert sorted(orders) == sorted(numbers)
    for number, order in orders.items():
        assert order.payment_status == "paid"
        assert order.attention_reason is None
        assert order.printify_order_id == by_number[number]["id"], number
    jobs = list(_jobs(engine).values()) + list(_jobs(engine, SEND_TO_PRODUCTION).values())
    assert len(jobs) == 2 * len(numbers)
    assert [j for j in jobs if j.done_at is None] == []


# --------------------------------------------------------------------------- 1. workers in parallel


@pytest.mark.parametrize("worker_count", [3])
def test_concurrent_workers_send_each_of_fifty_orders_exactly_once(
    engine: Engine, database_url: str, printify_server: FakePrintifyServer, worker_count: int  # noqa: F811
) -> None:
    _catalogue(engine, printify_server)
    numbers = _paid_orders(engine, 50)
    clock = FakeClock()
    with (
        _worker(database_url, printify_server, clock) as a,
        _worker(database_url, printify_server, clock) as b,
        _worker(database_url, printify_server, clock) as c,
    ):
        workers = [a, b, c][:worker_count]
        _run_concurrently(workers, clock)

    creates = _accepted_creates(printify_server)
    assert len(printify_server.requests_to("POST", "/orders.json")) == 50  # no create was even attempted twice
    assert sorted(creates) == sorted(numbers)
    _assert_each_at_the_provider_once(engine, printify_server, numbers)
    # The second step also happened once per order, and nothing needed a second attempt.
    assert len(printify_server.requests_to("POST", "/send_to_production.json")) == 50
    assert all(o.printify_status == "sending-to-production" for o in _orders(engine).values())
    assert {j.attempts for j in _jobs(engine).values()} == {1}
    assert {j.attempts for j in _jobs(engine, SEND_TO_PRODUCTION).values()} == {1}
    # Every step reached the provider through exactly one worker, and the work was shared.
    assert sum(w.steps for w in workers) == 100
    assert sum(1 for w in workers if w.steps) >= 2, [w.steps for w in workers]


# --------------------------------------------------------------------------- 2. a worker dies mid-send


def _hold_next_create(server: FakePrintifyServer) -> tuple[threading.Event, threading.Event]:
    """Make the fake process the next create-order request, then hold its answer until `release`."""
    processed, release = threading.Event(), threading.Event()
    handle = server.handle

    def holding(method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        answer = handle(method, path, query, body)
        if method == "POST" and path.endswith("/orders.json") and not processed.is_set():
            processed.set()
            release.wait(JOIN_SECONDS)
        return answer

    server.handle = holding  # type: ignore[method-assign]
    return processed, release


def test_a_worker_dying_after_the_provider_took_the_order_is_taken_over_without_a_second_order(
    engine: Engine, database_url: str, printify_server: FakePrintifyServer  # noqa: F811
) -> None:
    _catalogue(engine, printify_server)
    numbers = _paid_orders(engine, 3)
    first = numbers[0]
    first_id = _orders(engine)[first].id
    clock_a, clock_b = FakeClock(), FakeClock()
    die = threading.Event()
    processed, release = _hold_next_create(printify_server)
    with (
        _worker(database_url, printify_server, clock_a, lambda c: DyingProvider(c, die)) as a,
        _worker(database_url, printify_server, clock_b) as b,
    ):
        # A claims the oldest job and sends it; the provider creates the order, its answer is held.
        thread_a = _in_thread(lambda: a.outbox.run_due(limit=1), a.died)
        try:
            assert processed.wait(JOIN_SECONDS)
            leased = _jobs(engine)[first_id]
            assert leased.done_at is None and leased.outcome_unknown
            # While A holds the lease, B sends the other orders and leaves A's alone, even 1 s before it runs out.
            assert b.outbox.run_due(limit=10) == 4  # two orders sent, each also sent to production
            clock_b.advance(LEASE.total_seconds() - 1)
            assert b.outbox.run_due(limit=10) == 0
            assert _orders(engine)[first].printify_order_id is None
            sent = [r.json()["external_id"] for r in printify_server.requests_to("POST", "/orders.json")]
            assert Counter(sent) == Counter(numbers)  # A's (answer held) and B's two

            # A's lease runs out: B takes the job over, finds the order A created by its external id.
            clock_b.advance(2)
            lookups_before = len(printify_server.requests_to("GET", "/orders.json"))
            assert b.outbox.run_due(limit=10) == 2  # found (no resend), then sent to production
            assert len(printify_server.requests_to("GET", "/orders.json")) > lookups_before
        finally:
            # Only now does A's process die (its answer arrives to a dead worker): it records nothing.
            die.set()
            release.set()
            thread_a.join(JOIN_SECONDS)
        assert not thread_a.is_alive()
        assert [type(e) for e in a.died] == [WorkerKilled]

    assert len(printify_server.requests_to("POST", "/orders.json")) == 3  # A's order was never sent again
    _assert_each_at_the_provider_once(engine, printify_server, numbers)
    job = _jobs(engine)[first_id]
    assert (job.attempts, job.outcome_unknown, job.last_error) == (1, False, None)
    assert _orders(engine)[first].printify_status == "sending-to-production"


def test_a_worker_dying_before_its_request_left_loses_no_order(
    engine: Engine, database_url: str, printify_server: FakePrintifyServer  # noqa: F811
) -> None:
    _catalogue(engine, printify_server)
    (number,) = _paid_orders(engine, 1)
    clock_a, clock_b = FakeClock(), FakeClock()
    die = threading.Event()
    die.set()
    with (
        _worker(database_url, printify_server, clock_a, lambda c: DyingProvider(c, die, when="before")) as a,
        _worker(database_url, printify_server, clock_b) as b,
    ):
        thread_a = _in_thread(lambda: a.outbox.run_due(limit=1), a.died)
        thread_a.join(JOIN_SECONDS)
        assert [type(e) for e in a.died] == [WorkerKilled]
        assert printify_server.all_orders() == []
        (job,) = _jobs(engine).values()
        assert job.done_at is None and job.outcome_unknown  # claimed, outcome unknown to anyone else

        assert b.outbox.run_due() == 0  # leased by the dead worker
        clock_b.advance(LEASE.total_seconds() + 1)
        assert b.outbox.run_due() == 2  # looked up (not there), sent once, sent to production
    assert len(printify_server.requests_to("POST", "/orders.json")) == 1
    _assert_each_at_the_provider_once(engine, printify_server, [number])


class GatedSleep:
    """A PrintifyClient's sleep that waits for the test (`wake`) instead of the clock; `sleeping` tells it began."""

    def __init__(self) -> None:
        self.sleeping, self.wake = threading.Event(), threading.Event()
        self.asked: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)
        self.sleeping.set()
        await asyncio.get_running_loop().run_in_executor(None, self.wake.wait, JOIN_SECONDS)


class ManualBeats:
    """Stands in for the heartbeat thread of a worker's outbox: the test renews the running step's
    claim by calling beat(), at the clock times it chooses."""

    def __init__(self) -> None:
        self._beats: list[Callable[[], bool]] = []

    @contextmanager
    def __call__(self, name: str, beat: Callable[[], bool], interval_seconds: float) -> Iterator[None]:
        assert 0 < interval_seconds <= HEARTBEAT.total_seconds()
        self._beats.append(beat)
        try:
            yield
        finally:
            self._beats.remove(beat)

    def beat(self) -> bool:
        (running,) = self._beats
        return running()


def _lookups(server: FakePrintifyServer) -> int:
    return len(server.requests_to("GET", "/orders.json"))


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_killed_senders_order_reaches_the_provider_within_three_minutes_once(
    engine: Engine, database_url: str, printify_server: FakePrintifyServer, when: str  # noqa: F811
) -> None:
    _catalogue(engine, printify_server)
    (number,) = _paid_orders(engine, 1)
    clock = FakeClock()
    die = threading.Event()
    die.set()
    with (
        _worker(database_url, printify_server, clock, lambda c: DyingProvider(c, die, when=when)) as a,
        _worker(database_url, printify_server, clock) as b,
    ):
        with pytest.raises(WorkerKilled):  # A claims the order and dies mid-send, its claim left behind
            a.outbox.run_due(limit=1)
        killed_at = clock.now
        while _orders(engine)[number].printify_order_id is None:
            assert clock.now - killed_at <= timedelta(minutes=3), "still held by the dead sender's claim"
            clock.advance(5)  # B's outbox looks every 5 s (OUTBOX_INTERVAL_SECONDS)
            b.outbox.run_due()
    assert len(printify_server.requests_to("POST", "/orders.json")) == 1
    _assert_each_at_the_provider_once(engine, printify_server, [number])


def test_a_live_slow_send_is_never_taken_over(
    engine: Engine, database_url: str, printify_server: FakePrintifyServer  # noqa: F811
) -> None:
    _catalogue(engine, printify_server)
    (number,) = _paid_orders(engine, 1)
    clock = FakeClock()
    beats = ManualBeats()
    processed, release = _hold_next_create(printify_server)
    with _worker(database_url, printify_server, clock) as a, _worker(database_url, printify_server, clock) as b:
        a.outbox = CountingOutbox(session_factory(a.engine), a.client, printify_server.shop_id, clock, keep_alive=beats)
        thread_a = _in_thread(lambda: a.outbox.run_due(limit=1), a.died)
        try:
            assert processed.wait(JOIN_SECONDS)  # the provider has the order; A's answer is slow
            for _ in range(45):  # longer than any call the client makes (22.5 minutes), and than the old lease
                clock.advance(HEARTBEAT.total_seconds() * 2)
                assert beats.beat() is True
                assert b.outbox.run_due() == 0
            assert _lookups(printify_server) == 0 and _orders(engine)[number].printify_order_id is None
        finally:
            release.set()
            thread_a.join(JOIN_SECONDS)
        assert not thread_a.is_alive() and a.died == []
        assert b.outbox.run_due() == 1  # the second step, sent to production
    assert len(printify_server.requests_to("POST", "/orders.json")) == 1
    _assert_each_at_the_provider_once(engine, printify_server, [number])
    (job,) = _jobs(engine).values()
    assert (job.attempts, job.outcome_unknown) == (1, False)


def test_the_heartbeat_thread_renews_a_live_claim(
    engine: Engine, database_url: str, printify_server: FakePrintifyServer  # noqa: F811
) -> None:
    _catalogue(engine, printify_server)
    (number,) = _paid_orders(engine, 1)
    clock = FakeClock()
    processed, release = _hold_next_create(printify_server)
    quick = lambda name, beat, interval: beating(name, beat, 0.01)  # noqa: E731 - real thread, quick beats
    with _worker(database_url, printify_server, clock) as a, _worker(database_url, printify_server, clock) as b:
        a.outbox = CountingOutbox(session_factory(a.engine), a.client, printify_server.shop_id, clock, keep_alive=quick)
        thread_a = _in_thread(lambda: a.outbox.run_due(limit=1), a.died)
        try:
            assert processed.wait(JOIN_SECONDS)
            for _ in range(4):
                clock.advance(LEASE.total_seconds() - 1)
                renewed = clock.now + LEASE
                _until(
                    lambda renewed=renewed: _as_utc(next(iter(_jobs(engine).values())).next_attempt_at) == renewed,
                    "a renewal",
                )
                assert b.outbox.run_due() == 0
        finally:
            release.set()
            thread_a.join(JOIN_SECONDS)
        assert a.died == []
    assert len(printify_server.requests_to("POST", "/orders.json")) == 1
    assert _orders(engine)[number].printify_order_id


def _as_utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _until(condition: Callable[[], bool], what: str) -> None:
    """Wait (on an Event, a few ms at a time) until the heartbeat thread has done `what`."""
    waited = threading.Event()
    for _ in range(2000):
        if condition():
            return
        waited.wait(0.005)
    raise AssertionError(f"timed out waiting for {what}")


# --------------------------------------------------------------------------- 3. an outage during a burst


def test_a_provider_outage_during_a_burst_of_twenty_orders_loses_none_and_duplicates_none(
    engine: Engine, database_url: str, printify_server: FakePrintifyServer  # noqa: F811
) -> None:
    _catalogue(engine, printify_server)
    clock = FakeClock()
    with (
        _worker(database_url, printify_server, clock) as a,
        _worker(database_url, printify_server, clock) as b,
    ):
        printify_server.fail_with(500, times=None)  # down for the whole burst
        numbers = []
        for n in range(20):
            numbers += _paid_orders(engine, 1, prefix=f"burst{n}")
            assert a.outbox.run_due(limit=10) == 0
            assert b.outbox.run_due(limit=10) == 0
        assert printify_server.all_orders() == []
        refused = printify_server.requests_to("POST", "/orders.json")
        assert sorted(r.json()["external_id"] for r in refused) == sorted(numbers)  # each tried once
        assert {r.status for r in refused} == {500}
        orders = _orders(engine)
        for job in _jobs(engine).values():
            assert (job.done_at, job.attempts, job.outcome_unknown) == (None, 1, True)
            assert "status 500" in (job.last_error or "")
        assert all(o.payment_status == "paid" and o.printify_order_id is None for o in orders.values())

        printify_server.clear_faults()
        clock.advance(RETRY_MAX_SECONDS + 1)  # every retry is due
        _run_concurrently([a, b], clock)

    assert sorted(_accepted_creates(printify_server)) == sorted(numbers)
    _assert_each_at_the_provider_once(engine, printify_server, numbers)
    assert {j.attempts for j in _jobs(engine).values()} == {2}
    assert all(j.last_error is None and not j.outcome_unknown for j in _jobs(engine).values())


# --------------------------------------------------------------------------- 4. a restarted worker


def test_a_restarted_worker_delivers_the_queued_orders_once(
    engine: Engine, database_url: str, printify_server: FakePrintifyServer  # noqa: F811
) -> None:
    _catalogue(engine, printify_server)
    numbers = _paid_orders(engine, 12)
    clock = FakeClock()
    die = threading.Event()
    # The first process sends five orders, then dies while sending the sixth (the provider has it).
    with _worker(database_url, printify_server, clock, lambda c: DyingProvider(c, die)) as first:
        assert first.outbox.run_due(limit=5) == 5
        die.set()
        with pytest.raises(WorkerKilled):
            first.outbox.run_due(limit=1)
    assert len(printify_server.all_orders()) == 6
    unsent = [n for n, o in _orders(engine).items() if o.printify_order_id is None]
    assert len(unsent) == 7

    # A fresh process (new engine, new client, new outbox) at once: the six queued orders go, the
    # dying one's job waits for its lease; once the lease runs out it is found, not sent again.
    with _worker(database_url, printify_server, clock) as restarted:
        _run_concurrently([restarted], clock)
        assert len(printify_server.requests_to("POST", "/orders.json")) == 12
        assert len([o for o in _orders(engine).values() if o.printify_order_id is None]) == 1
        clock.advance(LEASE.total_seconds() + 1)
        _run_concurrently([restarted], clock)
    assert len(printify_server.requests_to("POST", "/orders.json")) == 12
    _assert_each_at_the_provider_once(engine, printify_server, numbers)
    assert sum(1 for j in _jobs(engine).values() if j.attempts != 1) == 0
