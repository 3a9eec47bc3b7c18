"""Engine and session helpers for SQLite (embedded default) and PostgreSQL (DB_URL)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from alembic.config import Config as AlembicConfig
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

from alembic import command
from storefront.config import PROJECT_ROOT, get_settings
from storefront.services.platform.private_files import private_sqlite


def make_engine(url: str) -> Engine:
    """An engine for this URL; SQLite gets its folder created, foreign keys and WAL."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
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
