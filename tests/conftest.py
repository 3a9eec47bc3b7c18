"""Shared fixtures: a migrated database on SQLite and, when TEST_DATABASE_URL is set, PostgreSQL."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

from storefront.db import make_engine, migrate
from tests.databases import temporary_database

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL", "").strip()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path) -> Iterator[str]:
    """An empty database URL, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'test.db'}"
        return
    if not TEST_DATABASE_URL:
        pytest.skip("PostgreSQL tests need TEST_DATABASE_URL (set by .ci/run)")
    with temporary_database(TEST_DATABASE_URL, "storefront_test") as url:
        yield url


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
