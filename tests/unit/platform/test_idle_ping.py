"""PostgreSQL connections are pinged on checkout only after sitting idle in the pool: one the server
ended meanwhile is replaced before a query meets it; one used a moment ago costs no round trip."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine

from storefront import db
from tests.conftest import TEST_DATABASE_URL


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    moved = Clock()
    monkeypatch.setattr(db, "monotonic", moved)
    return moved


@pytest.fixture
def postgres(clock: Clock) -> Iterator[Engine]:
    if not TEST_DATABASE_URL:
        pytest.skip("PostgreSQL tests need TEST_DATABASE_URL (set by .ci/run)")
    engine = db.make_engine(TEST_DATABASE_URL)
    yield engine
    engine.dispose()


def backend_pid(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.execute(text("SELECT pg_backend_pid()")).scalar_one())


def count_pings(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    pings: list[object] = []
    ping = engine.dialect.do_ping
    monkeypatch.setattr(engine.dialect, "do_ping", lambda connection: pings.append(connection) or ping(connection))
    return pings


def test_a_connection_the_server_ended_while_idle_is_replaced_before_use(postgres: Engine, clock: Clock) -> None:
    ended = backend_pid(postgres)
    admin = create_engine(TEST_DATABASE_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": ended})
    admin.dispose()
    clock.now += db.IDLE_PING_SECONDS + 1
    assert backend_pid(postgres) != ended  # no error: the ping found it dead and the pool connected anew


def test_only_a_connection_idle_past_the_window_is_pinged(
    postgres: Engine, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = backend_pid(postgres)
    pings = count_pings(postgres, monkeypatch)
    clock.now += db.IDLE_PING_SECONDS - 1
    assert backend_pid(postgres) == first and pings == []
    clock.now += db.IDLE_PING_SECONDS + 1
    assert backend_pid(postgres) == first and len(pings) == 1
