"""Shared fixtures: a migrated database on SQLite and, when TEST_DATABASE_URL is set, PostgreSQL."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine, make_url

from storefront.db import make_engine, migrate

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL", "").strip()


def _postgres_database() -> Iterator[str]:
    """Create a uniquely named database on the server of TEST_DATABASE_URL, drop it afterwards."""
    server = make_url(TEST_DATABASE_URL)
    name = f"storefront_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """An empty database URL, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.db'}"
        return
    if not TEST_DATABASE_URL:
        pytest.skip("PostgreSQL tests need TEST_DATABASE_URL (set by .ci/run)")
    yield from _postgres_database()


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on a database migrated to the newest revision."""
    migrate(database_url)
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    """Say how many database tests ran on each backend, so a skipped PostgreSQL run is visible."""
    counts: dict[str, dict[str, int]] = {}
    for outcome in ("passed", "failed", "skipped", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            for backend in ("sqlite", "postgresql"):
                if f"[{backend}" in getattr(report, "nodeid", ""):
                    counts.setdefault(backend, {}).setdefault(outcome, 0)
                    counts[backend][outcome] += 1
    for backend, outcomes in counts.items():
        summary = ", ".join(f"{n} {outcome}" for outcome, n in sorted(outcomes.items()))
        terminalreporter.write_line(f"database tests on {backend}: {summary}")
