"""Fixed-window request counters kept in the database, so a limit holds across every worker."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, delete, select, update

from storefront.models import RateCounter, utcnow
from storefront.services.platform.errors import TooManyRequestsError

MAX_KEY_CHARS = 200
#: The longest window any limit may count over: rows older than this are read by no limit, so
#: every hit prunes them (the table stays bounded without knowing each row's own window).
MAX_WINDOW_SECONDS = 24 * 3600


def dialect_insert(session: Session) -> Callable[..., Any]:
    """The dialect's INSERT that supports ON CONFLICT (SQLite and PostgreSQL alike)."""
    return postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert


def _window(now: datetime, window_seconds: int) -> int:
    return int(now.timestamp()) // window_seconds * window_seconds


def count_hit(session: Session, key: str, window_seconds: int, now: datetime) -> int:
    """Count one request under `key` in the current window; returns the window's count so far.

    A key is counted under one window length (each limit prefixes its keys), so the key's own
    earlier windows are finished; other keys' rows are left to their own windows."""
    window = _window(now, window_seconds)
    key = key[:MAX_KEY_CHARS]
    insert = dialect_insert(session)
    statement = (
        insert(RateCounter)
        .values(key=key, window_start=window, count=1)
        .on_conflict_do_update(
            index_elements=[RateCounter.key, RateCounter.window_start],
            set_={"count": RateCounter.count + 1},
        )
        .returning(RateCounter.count)
    )
    count = int(session.execute(statement).scalar_one())
    # Pruning every key by this window would wipe the hour-long windows of the other limits.
    session.execute(delete(RateCounter).where(col(RateCounter.key) == key, col(RateCounter.window_start) < window))
    oldest = int(now.timestamp()) - MAX_WINDOW_SECONDS
    session.execute(delete(RateCounter).where(col(RateCounter.window_start) < oldest))
    return count


class RateLimiter:
    """At most `limit` requests per key in each window of `window_seconds`; the rest get `message`."""

    def __init__(
        self,
        session_factory: Callable[[], Session],
        *,
        limit: int,
        window_seconds: int,
        message: str,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        if limit < 1 or not 1 <= window_seconds <= MAX_WINDOW_SECONDS:
            raise ValueError(f"limit must be positive and window_seconds between 1 and {MAX_WINDOW_SECONDS}")
        self._session_factory = session_factory
        self.limit = limit
        self.window_seconds = window_seconds
        self.message = message
        self._clock = clock

    def check(self, key: str) -> None:
        """Count a request; TooManyRequestsError once the key is over its limit in this window."""
        if self.record(key) > self.limit:
            self._refuse()

    def record(self, key: str) -> int:
        """Count a request under `key`; returns the count in this window so far."""
        with self._session_factory() as session:
            count = count_hit(session, key, self.window_seconds, self._clock())
            session.commit()
        return count

    def attempt(self, *keys: str) -> None:
        """Count one attempt under each key, then refuse it when any key is over its limit.

        Counting comes first and is atomic in the database, so parallel requests on any number of
        workers cannot all slip past a check that has not counted them yet."""
        counts = [self.record(key) for key in keys]
        if any(count > self.limit for count in counts):
            self._refuse()

    def give_back(self, *keys: str) -> None:
        """Take one attempt off each key's count in this window (an attempt that turned out fine)."""
        window = _window(self._clock(), self.window_seconds)
        with self._session_factory() as session:
            session.execute(
                update(RateCounter)
                .where(
                    col(RateCounter.key).in_([key[:MAX_KEY_CHARS] for key in keys]),
                    col(RateCounter.window_start) == window,
                    col(RateCounter.count) > 0,
                )
                .values(count=RateCounter.count - 1)
            )
            session.commit()

    def count(self, key: str) -> int:
        """How many requests `key` made in this window so far (counts nothing)."""
        window = _window(self._clock(), self.window_seconds)
        with self._session_factory() as session:
            found = session.exec(
                select(RateCounter.count).where(
                    col(RateCounter.key) == key[:MAX_KEY_CHARS], col(RateCounter.window_start) == window
                )
            ).first()
        return found or 0

    def _refuse(self) -> None:
        elapsed = int(self._clock().timestamp()) % self.window_seconds
        raise TooManyRequestsError(self.message, retry_after=self.window_seconds - elapsed)
