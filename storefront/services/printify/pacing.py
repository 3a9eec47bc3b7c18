"""Pacing of Printify requests: start times that keep every rate limit (contract §2); waiting is the caller's."""

from __future__ import annotations

import threading
from collections import deque

#: Printify's limits (contract §2): (requests, seconds).
OVERALL_LIMIT = (600, 60.0)
CATALOG_LIMIT = (100, 60.0)
PUBLISH_LIMIT = (200, 1800.0)


class SlidingWindow:
    """At most `limit` request starts in any `window` seconds."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._starts: deque[float] = deque()

    def earliest(self, now: float) -> float:
        """The earliest moment from `now` at which one more request may start."""
        start = max(now, self._starts[-1]) if self._starts else now
        if len(self._starts) >= self.limit:
            start = max(start, self._starts[-self.limit] + self.window)
        return start

    def record(self, start: float) -> None:
        """Count a request starting at `start` (never earlier than the last recorded start)."""
        self._starts.append(start)
        while len(self._starts) > self.limit:
            self._starts.popleft()


class RequestPacer:
    """Hands out start times that keep every window; waiting is the caller's job."""

    def __init__(
        self,
        overall: tuple[int, float] = OVERALL_LIMIT,
        catalog: tuple[int, float] = CATALOG_LIMIT,
        publish: tuple[int, float] = PUBLISH_LIMIT,
    ) -> None:
        self._windows: dict[str, SlidingWindow] = {
            "overall": SlidingWindow(*overall),
            "catalog": SlidingWindow(*catalog),
            "publish": SlidingWindow(*publish),
        }
        self._paused_until = 0.0
        # The sync facade and async callers may share one pacer; a reservation must be atomic.
        self._lock = threading.Lock()

    def reserve(self, kind: str, now: float) -> float:
        """Reserve a start for a request of `kind` ("default", "catalog", "publish"); seconds to wait."""
        windows = [self._windows["overall"]] + ([self._windows[kind]] if kind in self._windows else [])
        with self._lock:
            start = max([now, self._paused_until] + [w.earliest(now) for w in windows])
            for window in windows:
                window.record(start)
        return start - now

    def pause_until(self, moment: float) -> None:
        """Hold every request until `moment` (after a 429 the whole account is throttled)."""
        with self._lock:
            self._paused_until = max(self._paused_until, moment)
