"""Fixed-window request counters kept in the database, so a limit holds across every worker."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, delete

from storefront.models import RateCounter, utcnow
from storefront.services.errors import TooManyRequestsError

MAX_KEY_CHARS = 200


def _upsert(session: Session):  # type: ignore[no-untyped-def]
    """The dialect's INSERT that supports ON CONFLICT (SQLite and PostgreSQL alike)."""
    return postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert


def count_hit(session: Session, key: str, window_seconds: int, now: datetime) -> int:
    """Count one request under `key` in the current window; returns the window's count so far."""
    window = int(now.timestamp()) // window_seconds * window_seconds
    key = key[:MAX_KEY_CHARS]
    insert = _upsert(session)
    statement = (
        insert(RateCounter)
        .values(key=key, window_start=window, count=1)
        .on_conflict_do_update(
            index_elements=[RateCounter.key, RateCounter.window_start],
            set_={"count": RateCounter.count + 1},  # type: ignore[operator]
        )
        .returning(RateCounter.count)
    )
    count = int(session.execute(statement).scalar_one())
    # Finished windows are never read again.
    session.execute(delete(RateCounter).where(col(RateCounter.window_start) < window))
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
        if limit < 1 or window_seconds < 1:
            raise ValueError("limit and window_seconds must be positive")
        self._session_factory = session_factory
        self.limit = limit
        self.window_seconds = window_seconds
        self.message = message
        self._clock = clock

    def check(self, key: str) -> None:
        """Count a request; TooManyRequestsError once the key is over its limit in this window."""
        now = self._clock()
        with self._session_factory() as session:
            count = count_hit(session, key, self.window_seconds, now)
            session.commit()
        if count > self.limit:
            elapsed = int(now.timestamp()) % self.window_seconds
            raise TooManyRequestsError(self.message, retry_after=self.window_seconds - elapsed)
