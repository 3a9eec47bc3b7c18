"""Job leases on SQLite and PostgreSQL: one holder at a time however many processes race for a job,
taken over when the holder's lease runs out or it lets go; the start-up catalogue sync run by one
process of several, and the order poll and image preparer guarded the same way."""

from __future__ import annotations

import multiprocessing
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session

from storefront.services.catalog import store_catalogue
from storefront.services.platform.job_leases import JobLeases, one_at_a_time
from storefront.services.printify.demo import DemoPrintProvider

JOB = "nightly-job"


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 23, 3, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def leases(engine: Engine, holder: str, clock: Clock | None = None) -> JobLeases:
    return JobLeases(lambda: Session(engine), holder=holder, clock=clock or Clock())


def test_one_holder_at_a_time_until_its_lease_runs_out(engine: Engine) -> None:
    clock = Clock()
    a, b = leases(engine, "host-a:1", clock), leases(engine, "host-b:2", clock)
    assert a.claim(JOB, 60)
    assert not b.claim(JOB, 60)
    clock.now += timedelta(seconds=59)
    assert a.claim(JOB, 60)  # the holder renews
    clock.now += timedelta(seconds=61)
    assert b.claim(JOB, 60)  # a's lease ran out: b takes the job over
    assert not a.claim(JOB, 60)
    lease = b.lease(JOB)
    assert lease is not None and lease.holder == "host-b:2"
    assert lease.held_until == clock.now + timedelta(seconds=60)


def test_a_released_or_finished_job_is_free_at_once(engine: Engine) -> None:
    clock = Clock()
    a, b = leases(engine, "host-a:1", clock), leases(engine, "host-b:2", clock)
    assert a.claim(JOB, 600)
    b.release(JOB)  # only the holder can let go
    assert not b.claim(JOB, 600)
    a.release(JOB)
    assert b.claim(JOB, 600)
    b.finish(JOB)
    lease = a.lease(JOB)
    assert lease is not None and lease.finished_at == clock.now and a.seconds_left(JOB) == 0
    assert a.claim(JOB, 600)


def test_a_run_finished_between_a_look_and_a_claim_is_not_run_again(engine: Engine) -> None:
    """The start-up sync's race: b starts while a syncs, looks (not finished), a finishes, b claims."""
    clock = Clock()
    a, b = leases(engine, "host-a:1", clock), leases(engine, "host-b:2", clock)
    assert a.claim(JOB, 600)
    clock.now += timedelta(seconds=1)
    b_started = clock.now
    lease = b.lease(JOB)
    assert lease is not None and lease.finished_at is None  # b's look: a is still at it
    clock.now += timedelta(seconds=1)
    a.finish(JOB)
    assert not b.claim(JOB, 600, unless_finished_since=b_started)
    assert b.claim(JOB, 600, unless_finished_since=clock.now + timedelta(seconds=1))  # a later start runs it
    fresh = leases(engine, "host-c:3", clock)
    assert fresh.claim("never-run", 60, unless_finished_since=b_started)  # no run yet: free


def test_of_many_processes_racing_for_a_job_exactly_one_gets_it(engine: Engine) -> None:
    racers = 8
    start = threading.Barrier(racers)
    won: list[str] = []

    def race(number: int) -> None:
        contender = leases(engine, f"host-{number}:{number}")
        start.wait(timeout=10)
        if contender.claim("contested", 60):
            won.append(contender.holder)

    threads = [threading.Thread(target=race, args=(n,)) for n in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(won) == 1
    assert leases(engine, "observer").lease("contested").holder == won[0]  # type: ignore[union-attr]


def _claim_in_child(engine: Engine, parent: JobLeases, answers: multiprocessing.Queue) -> None:
    engine.dispose(close=False)  # a forked child opens its own connections (SQLAlchemy's advice)
    answers.put((parent.holder, parent.claim("forked", 60)))


def test_workers_forked_from_one_parent_each_hold_leases_as_themselves(engine: Engine) -> None:
    """Reflex's production server imports the app once, then forks its workers from it: leases made
    before the fork must not let every worker claim the same job as one holder."""
    parent = JobLeases(lambda: Session(engine))
    before = parent.holder
    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    children = [context.Process(target=_claim_in_child, args=(engine, parent, answers)) for _ in range(2)]
    for child in children:
        child.start()
    results = [answers.get(timeout=60) for _ in children]
    for child in children:
        child.join(timeout=30)
        assert child.exitcode == 0
    holders = {holder for holder, _ in results}
    assert len(holders) == 2 and before not in holders
    assert sorted(won for _, won in results) == [False, True]
    assert parent.holder == before


def test_a_guarded_step_runs_only_in_the_holder(engine: Engine) -> None:
    clock = Clock()
    ran: list[str] = []
    a, b = leases(engine, "host-a:1", clock), leases(engine, "host-b:2", clock)
    step_a = one_at_a_time(a, JOB, lambda: ran.append("a") or 1.0, lease_seconds=90, idle_seconds=30)
    step_b = one_at_a_time(b, JOB, lambda: ran.append("b") or 1.0, lease_seconds=90, idle_seconds=30)
    assert (step_a(), step_b(), step_a()) == (1.0, 30, 1.0)
    clock.now += timedelta(seconds=91)  # a is gone: b takes over
    assert step_b() == 1.0
    assert ran == ["a", "a", "b"]


class CountingProvider(DemoPrintProvider):
    """The demo provider, counting the catalogue reads a sync makes."""

    def __init__(self, media_dir: Path) -> None:
        super().__init__(media_dir=media_dir)
        self.listed = 0
        self._count_lock = threading.Lock()

    def list_products(self, shop_id: int, page: int = 1, limit: int = 50) -> dict:
        with self._count_lock:
            self.listed += page == 1
        return super().list_products(shop_id, page, limit)


def test_of_processes_starting_together_one_syncs_the_catalogue_and_the_others_take_it_as_done(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_catalogue, "WAIT_FOR_HOLDER_SECONDS", 0.02)
    provider = CountingProvider(tmp_path / "demo")
    shop = int(provider.list_shops()[0]["id"])
    workers = [
        store_catalogue.start_catalogue_sync(
            lambda: Session(engine), provider, lambda: shop, leases=JobLeases(lambda: Session(engine), holder=f"p{n}")
        )
        for n in range(3)
    ]
    for worker in workers:
        worker.thread.join(timeout=120)
    assert not any(worker.thread.is_alive() for worker in workers)
    assert provider.listed == 1  # one process read the catalogue
    lease = JobLeases(lambda: Session(engine), holder="observer").lease(store_catalogue.SYNC_JOB)
    assert lease is not None and lease.finished_at is not None


def test_a_process_started_after_the_last_sync_syncs_again(engine: Engine, tmp_path: Path) -> None:
    provider = CountingProvider(tmp_path / "demo")
    shop = int(provider.list_shops()[0]["id"])
    for holder in ("first-deploy", "second-deploy"):
        worker = store_catalogue.start_catalogue_sync(
            lambda: Session(engine), provider, lambda: shop, leases=JobLeases(lambda: Session(engine), holder=holder)
        )
        worker.thread.join(timeout=120)
        assert not worker.thread.is_alive()
    assert provider.listed == 2  # a restart (new settings, say) syncs; only a sync since it started counts
