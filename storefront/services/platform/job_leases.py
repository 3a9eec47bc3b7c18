"""One process at a time for the background jobs every process starts (the catalogue sync, the
order poll, the image preparer), when several workers or hosts serve one store.

A job's lease is one row (`job_lease`): its holder and until when it holds it. A process claims a
job by an atomic UPDATE that succeeds only when the lease has run out or is already its own, or by
inserting the row when there is none; the database settles any race (a row lock on PostgreSQL, the
write lock on SQLite). A holder renews its lease at every step, so a process that dies hands the
job over once its lease runs out. The fulfilment outbox does not need this: it claims each order.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from storefront.models import JobLease, utcnow
from storefront.services.platform.background import Step

_holder: tuple[int, str] | None = None


def process_holder() -> str:
    """This process as lease holder: host, process id and a random part (pids are reused).

    Made in the process that asks: Reflex's production server imports the app once and forks its
    workers from it, and each of them must hold its leases as itself."""
    global _holder
    pid = os.getpid()
    if _holder is None or _holder[0] != pid:
        _holder = (pid, f"{socket.gethostname()}:{pid}:{uuid.uuid4().hex[:8]}")
    return _holder[1]


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite hands datetimes back without their zone; every time here is UTC."""
    return moment.replace(tzinfo=UTC) if moment is not None and moment.tzinfo is None else moment


class JobLeases:
    """Claims, renews and ends job leases for one holder (the process using them, unless a test names one)."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        holder: str | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self._session_factory = session_factory
        self._holder = holder
        self.clock = clock

    @property
    def holder(self) -> str:
        """Who claims: the given name, else the process using these leases (see process_holder)."""
        return self._holder or process_holder()

    def claim(self, name: str, seconds: float, *, unless_finished_since: datetime | None = None) -> bool:
        """Hold the job `name` for `seconds` from now: True when it is free, ran out or is ours.

        With `unless_finished_since`, a run finished since then also refuses the claim, in the same
        statement: a holder that finishes between a look at the lease and this claim is not run after."""
        now = self.clock()
        until = now + timedelta(seconds=seconds)
        with self._session_factory() as session:
            claim = (
                update(JobLease)
                .where(col(JobLease.name) == name)
                .where(or_(col(JobLease.held_until) <= now, col(JobLease.holder) == self.holder))
            )
            if unless_finished_since is not None:
                claim = claim.where(
                    or_(col(JobLease.finished_at).is_(None), col(JobLease.finished_at) < unless_finished_since)
                )
            taken = session.exec(claim.values(holder=self.holder, held_until=until)).rowcount
            session.commit()
        if taken == 1:
            return True
        with self._session_factory() as session:
            session.add(JobLease(name=name, holder=self.holder, held_until=until))
            try:
                session.commit()
            except IntegrityError:  # the row exists: another holder has the job
                session.rollback()
                return False
        return True

    def finish(self, name: str) -> None:
        """A run of the job is done: note when, and let the job go."""
        now = self.clock()
        with self._session_factory() as session:
            session.execute(
                update(JobLease)
                .where(col(JobLease.name) == name, col(JobLease.holder) == self.holder)
                .values(held_until=now, finished_at=now)
            )
            session.commit()

    def release(self, name: str) -> None:
        """Let the job go now (this process stops), so another process takes it over at once."""
        now = self.clock()
        with self._session_factory() as session:
            session.execute(
                update(JobLease)
                .where(col(JobLease.name) == name, col(JobLease.holder) == self.holder)
                .values(held_until=now)
            )
            session.commit()

    def lease(self, name: str) -> JobLease | None:
        """The job's lease as stored (times in UTC), None when it was never claimed."""
        with self._session_factory() as session:
            row = session.get(JobLease, name)
            if row is None:
                return None
            return JobLease(
                name=row.name,
                holder=row.holder,
                held_until=_aware(row.held_until) or self.clock(),
                finished_at=_aware(row.finished_at),
            )

    def seconds_left(self, name: str) -> float:
        """How long until the job's current lease runs out (0 when it has, or there is none)."""
        lease = self.lease(name)
        if lease is None:
            return 0.0
        return max(0.0, (lease.held_until - self.clock()).total_seconds())


def one_at_a_time(leases: JobLeases, name: str, step: Step, *, lease_seconds: float, idle_seconds: float) -> Step:
    """`step`, run only by the process holding the job's lease (renewed at each step); any other
    process waits `idle_seconds` and asks again, so it takes over when the holder is gone.
    `lease_seconds` must be longer than one step and the wait after it."""

    def guarded() -> float | None:
        if not leases.claim(name, lease_seconds):
            return idle_seconds
        return step()

    return guarded
