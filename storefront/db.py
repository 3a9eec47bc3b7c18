"""Engine and session helpers for SQLite (embedded default) and PostgreSQL (DB_URL)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from alembic.config import Config as AlembicConfig
from sqlalchemy import event, exc
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

from alembic import command
from storefront.config import PROJECT_ROOT, get_settings
from storefront.services.platform.private_files import private_sqlite

#: A pooled server connection idle longer than this is pinged before it is used (PostgreSQL may
#: have ended it meanwhile); one checked in a moment ago is used as it is. Pinging every checkout
#: cost a round trip per query, most of a listing query's own time.
IDLE_PING_SECONDS = 10.0
#: The clock idle time is read on (tests move it).
monotonic = time.monotonic


def _ping_when_idle(engine: Engine) -> None:
    """Ping a connection on checkout only after it sat idle in the pool; a dead one is replaced.
    A connection ended within the window fails its first statement instead, and that error makes
    the pool replace every connection older than it."""

    @event.listens_for(engine, "connect")
    @event.listens_for(engine, "checkin")
    def _fresh(_dbapi_connection, record) -> None:  # type: ignore[no-untyped-def]
        record.info["fresh_at"] = monotonic()

    @event.listens_for(engine, "checkout")
    def _ping(dbapi_connection, record, _proxy) -> None:  # type: ignore[no-untyped-def]
        if monotonic() - record.info.get("fresh_at", 0.0) <= IDLE_PING_SECONDS:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as error:
            raise exc.DisconnectionError(str(error)) from error
        if not alive:
            raise exc.DisconnectionError("the connection did not answer a ping")


def make_engine(url: str) -> Engine:
    """An engine for this URL; SQLite gets its folder created, foreign keys and WAL."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        engine = create_engine(url)
        _ping_when_idle(engine)
        return engine
    if parsed.database and parsed.database != ":memory:":
        private_sqlite(Path(parsed.database))
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()

    return engine


@lru_cache(maxsize=4)
def _engine_for(url: str) -> Engine:
    return make_engine(url)


def get_engine() -> Engine:
    """The engine of the configured database (one per URL and process)."""
    return _engine_for(get_settings().db_url)


@contextmanager
def session_scope(engine: Engine | None = None) -> Iterator[Session]:
    """A session committed on success and rolled back on error."""
    with Session(engine or get_engine(), expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


@contextmanager
def read_scope(engine: Engine | None = None) -> Iterator[Session]:
    """A session for reads only, each statement its own transaction (autocommit): on PostgreSQL a
    read then costs no BEGIN and COMMIT round trips. Nothing written in it is kept."""
    with (
        (engine or get_engine()).connect().execution_options(isolation_level="AUTOCOMMIT") as connection,
        Session(connection, expire_on_commit=False) as session,
    ):
        yield session


def alembic_config(url: str) -> AlembicConfig:
    cfg = AlembicConfig(str(PROJECT_ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(PROJECT_ROOT / "alembic"))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrate(url: str | None = None) -> None:
    """Bring the database schema up to the newest Alembic revision."""
    url = url or get_settings().db_url
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        private_sqlite(Path(parsed.database))
    command.upgrade(alembic_config(url), "head")
