"""Shared fixtures: a migrated database on SQLite and, when TEST_DATABASE_URL is set, PostgreSQL
(each test gets a copy of a database migrated once per run)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.engine import Engine

from storefront import wiring
from storefront.config import Settings
from storefront.container import Services
from storefront.db import make_engine, migrate
from tests.databases import temporary_database

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL", "").strip()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to the newest revision once per run; each test gets a copy."""
    path = tmp_path_factory.mktemp("template") / "migrated.db"
    migrate(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def postgres_template() -> Iterator[str]:
    """The name of a PostgreSQL database migrated once per run; each test gets a copy of it
    (CREATE DATABASE ... TEMPLATE), which is far quicker than migrating every test's database."""
    if not TEST_DATABASE_URL:
        pytest.skip("PostgreSQL tests need TEST_DATABASE_URL (set by .ci/run)")
    with temporary_database(TEST_DATABASE_URL, "storefront_template") as url:
        migrate(url)
        name = make_url(url).database
        assert name is not None
        # A copy needs the template to have no connections: end any the migration left behind.
        admin = create_engine(make_url(TEST_DATABASE_URL), isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            )
        admin.dispose()
        yield name


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database migrated to the newest revision, of its own, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        path = tmp_path / "test.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        yield f"sqlite:///{path}"
        return
    template = request.getfixturevalue("postgres_template")
    with temporary_database(TEST_DATABASE_URL, "storefront_test", template=template) as url:
        yield url


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on a database migrated to the newest revision."""
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def install_services() -> Iterator[Callable[..., Services]]:
    """Builds services (settings plus any of engine, gateway, provider, clock, try-on engine, store
    catalogue) and makes them the process's for the test, as the store's are: the Reflex states use
    them, and `create_api(services=...)` hands the same ones to the API. The process's own come back after."""
    replaced: list[Services | None] = []

    def install(settings: Settings, **injected: Any) -> Services:
        services = Services(settings, **injected)
        replaced.append(wiring.use(services))
        return services

    yield install
    if replaced:
        wiring.use(replaced[0])


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
