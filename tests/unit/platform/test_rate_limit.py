"""Fixed-window counters in the database, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from storefront.models import RateCounter
from storefront.services.platform.errors import TooManyRequestsError
from storefront.services.platform.rate_limit import MAX_WINDOW_SECONDS, RateLimiter
from storefront.wiring import session_factory
from tests.ordering import FakeClock

MESSAGE = "Slow down."


def _limiter(engine: Engine, clock: FakeClock, limit: int = 2) -> RateLimiter:
    return RateLimiter(session_factory(engine), limit=limit, window_seconds=60, message=MESSAGE, clock=clock)


def test_requests_over_the_limit_are_refused_with_the_wait(engine: Engine) -> None:
    clock = FakeClock()
    clock.advance(15)  # 15 s into a minute
    limiter = _limiter(engine, clock)
    limiter.check("pay:1.2.3.4")
    limiter.check("pay:1.2.3.4")
    with pytest.raises(TooManyRequestsError) as refused:
        limiter.check("pay:1.2.3.4")
    assert (refused.value.message, refused.value.retry_after) == (MESSAGE, 45)


def test_each_key_has_its_own_count(engine: Engine) -> None:
    limiter = _limiter(engine, FakeClock(), limit=1)
    limiter.check("pay:1.2.3.4")
    limiter.check("pay:5.6.7.8")
    with pytest.raises(TooManyRequestsError):
        limiter.check("pay:1.2.3.4")


def test_a_new_window_starts_afresh_and_old_windows_are_dropped(engine: Engine) -> None:
    clock = FakeClock()
    limiter = _limiter(engine, clock, limit=1)
    limiter.check("a")
    with pytest.raises(TooManyRequestsError):
        limiter.check("a")
    clock.advance(60)
    limiter.check("a")
    with Session(engine) as session:
        assert session.exec(select(func.count()).select_from(RateCounter)).one() == 1


def test_an_attempt_is_counted_under_every_key_even_when_refused(engine: Engine) -> None:
    limiter = _limiter(engine, FakeClock(), limit=1)
    limiter.attempt("user:a", "addr:1")
    with pytest.raises(TooManyRequestsError):
        limiter.attempt("user:a", "addr:2")
    assert (limiter.count("user:a"), limiter.count("addr:1"), limiter.count("addr:2")) == (2, 1, 1)


def test_an_attempt_given_back_frees_its_place(engine: Engine) -> None:
    limiter = _limiter(engine, FakeClock(), limit=1)
    limiter.attempt("a")
    limiter.give_back("a")
    limiter.give_back("a")  # never below zero
    assert limiter.count("a") == 0
    limiter.attempt("a")
    with pytest.raises(TooManyRequestsError):
        limiter.attempt("a")


def test_a_one_minute_limit_leaves_longer_windows_whole(engine: Engine) -> None:
    clock = FakeClock()  # on the hour
    per_hour = RateLimiter(session_factory(engine), limit=3, window_seconds=3600, message=MESSAGE, clock=clock)
    per_minute = _limiter(engine, clock, limit=1)
    for _ in range(3):
        per_hour.check("orders:1.2.3.4")
        clock.advance(61)
        per_minute.check("lookup:5.6.7.8")  # a new minute's window, for another key and limit
    assert per_hour.count("orders:1.2.3.4") == 3
    with pytest.raises(TooManyRequestsError):
        per_hour.check("orders:1.2.3.4")


def test_rows_older_than_the_longest_window_are_dropped(engine: Engine) -> None:
    clock = FakeClock()
    per_day = RateLimiter(
        session_factory(engine), limit=5, window_seconds=MAX_WINDOW_SECONDS, message=MESSAGE, clock=clock
    )
    per_day.check("day:a")
    _limiter(engine, clock).check("minute:a")
    clock.advance(MAX_WINDOW_SECONDS + 60)
    _limiter(engine, clock).check("minute:b")
    with Session(engine) as session:
        assert session.exec(select(RateCounter.key)).all() == ["minute:b"]


def test_a_window_longer_than_the_longest_is_refused(engine: Engine) -> None:
    with pytest.raises(ValueError):
        RateLimiter(session_factory(engine), limit=1, window_seconds=MAX_WINDOW_SECONDS + 1, message=MESSAGE)
