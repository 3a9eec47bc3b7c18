"""Browser tests: the store built and served in production mode, driven in headless Chromium."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from storefront.config import PROJECT_ROOT
from tests.serving import SERVE_BUILT_ENV, free_port, stop_process, wait_until_served

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# Generous timeouts: the CI machine has two cores shared by the store, its build and Chromium.
expect.set_options(timeout=15_000)

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass(frozen=True)
class StoreServer:
    """A running store: where it answers and where it keeps its data."""

    url: str
    data_dir: Path

    @property
    def db_url(self) -> str:
        return f"sqlite:///{self.data_dir / 'storefront.db'}"


class StoreProcess:
    """The store's server process on one port; built once, restartable with other settings.

    The compiled front end has the port baked in, so every configuration is served on the same
    port, one at a time, from the one build (a restart without a build takes seconds)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.url = f"http://localhost:{port}"
        self.env: dict[str, str] = {}
        self._process: subprocess.Popen | None = None
        #: A data directory migrated and seeded with the demo catalogue before any test changed it.
        self.pristine: Path | None = None
        #: The demo store's data directory.
        self.demo_dir: Path | None = None
        #: What is served now: the data directory and the settings it was started with.
        self.serving: tuple[Path, tuple[tuple[str, str], ...]] | None = None

    def environment(self, data_dir: Path, overrides: dict[str, str] | None = None) -> dict[str, str]:
        """The store's environment for `data_dir`: nothing inherited from the shell but the basics."""
        env = {
            **os.environ,
            "DATA_DIR": str(data_dir),
            "PORT": str(self.port),
            "REFLEX_USE_NPM": "1",
            "PYTHONUNBUFFERED": "1",
            "OUTBOX_INTERVAL_SECONDS": "0.5",
            # Every test's orders come from one address: the per-address order limit has its own tests.
            "ORDERS_PER_HOUR": "100000",
        }
        for name in ("DB_URL", "UPLOAD_DIR", "REDIS_URL", *PRINTIFY_SETTINGS):
            env.pop(name, None)
        env.update(overrides or {})
        return env

    def prepare(self, data_dir: Path, overrides: dict[str, str] | None = None) -> None:
        """Migrate and seed `data_dir` as `make run` does."""
        subprocess.run(
            [sys.executable, "-m", "storefront.manage", "prepare"], cwd=PROJECT_ROOT,
            env=self.environment(data_dir, overrides), check=True,
        )

    def start(self, data_dir: Path, overrides: dict[str, str] | None = None, *, build: bool) -> StoreServer:
        """Migrate and prepare `data_dir`, then serve the store (building the front end if asked)."""
        env = self.environment(data_dir, overrides)
        self.env = env
        self.prepare(data_dir, overrides)
        if build:
            command = [str(Path(sys.executable).parent / "reflex"), "run", "--env", "prod", "--loglevel", "info"]
        else:
            # What `reflex run --env prod` runs once the front end is built: the backend serving it.
            env.update(SERVE_BUILT_ENV)
            command = [sys.executable, "-m", "uvicorn", "--factory", "storefront.storefront:app",
                       "--host", "0.0.0.0", "--port", str(self.port), "--log-level", "info"]
        log_path = data_dir / "store.log"
        with log_path.open("a") as log:
            self._process = subprocess.Popen(
                command, cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        wait_until_served(self.url, self._process, log_path)
        self.serving = _configuration(data_dir, overrides)
        return StoreServer(url=self.url, data_dir=data_dir)

    def stop(self) -> None:
        self.serving = None
        if self._process is None:
            return
        stop_process(self._process)
        self._process = None

    @property
    def serving_demo(self) -> bool:
        return self.demo_dir is not None and self.serving == _configuration(self.demo_dir, None)

    def serve(self, data_dir: Path, overrides: dict[str, str] | None = None) -> StoreServer:
        """Serve `data_dir` with `overrides`, restarting the store only if something else is served now."""
        running = self._process is not None and self._process.poll() is None
        if not running or self.serving != _configuration(data_dir, overrides):
            self.stop()
            self.seed_like_demo(data_dir, overrides or {})
            self.start(data_dir, overrides, build=False)
        return StoreServer(url=self.url, data_dir=data_dir)

    def serve_demo(self) -> None:
        """Serve the demo store again if another configuration replaced it (else nothing to do)."""
        if self.demo_dir is not None:
            self.serve(self.demo_dir)

    def seed_like_demo(self, data_dir: Path, overrides: dict[str, str]) -> None:
        """Give a store on the demo provider a copy of the pristine demo data (its `prepare` then
        finds everything done), unless the test already put a database of its own there."""
        if self.pristine is None or "PRINTIFY_API_TOKEN" in overrides or (data_dir / "storefront.db").exists():
            return
        shutil.copytree(self.pristine, data_dir, dirs_exist_ok=True)


def _configuration(data_dir: Path, overrides: dict[str, str] | None) -> tuple[Path, tuple[tuple[str, str], ...]]:
    return data_dir, tuple(sorted((overrides or {}).items()))


#: Settings a test store never inherits from the shell that runs the tests.
PRINTIFY_SETTINGS = (
    "PRINTIFY_API_TOKEN", "PRINTIFY_SHOP_ID", "PRINTIFY_API_BASE", "PRINTIFY_WEBHOOK_SECRET",
    "STRIPE_SECRET_KEY", "STRIPE_PUBLISHABLE_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_API_BASE", "STRIPE_JS_URL",
    "STORE_ENV", "ALLOW_TEST_PAYMENTS", "UNPAID_ORDER_TTL_HOURS",
)


@pytest.fixture(scope="session")
def store_process() -> Iterator[StoreProcess]:
    process = StoreProcess(free_port())
    yield process
    process.stop()


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory, store_process: StoreProcess) -> Iterator[StoreServer]:
    """Migrate and seed a fresh SQLite demo store, build it and serve it in production mode."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}; .ci/run installs Debian's chromium")
    # Seeded once, kept pristine: the demo store and each reconfigured store on the demo provider
    # start from a copy instead of seeding the catalogue and its images again.
    pristine = tmp_path_factory.mktemp("pristine-data")
    store_process.prepare(pristine)
    store_process.pristine = pristine
    data_dir = tmp_path_factory.mktemp("store-data")
    shutil.copytree(pristine, data_dir, dirs_exist_ok=True)
    store_process.demo_dir = data_dir
    server = store_process.start(data_dir, build=True)
    yield server
    store_process.stop()


@pytest.fixture(autouse=True)
def _demo_store_served(request: pytest.FixtureRequest) -> None:
    """Before a test of the demo store, serve it again if a reconfigured test replaced it (it is
    put back on demand, so reconfigured tests, which run last, do not restart it between them)."""
    if "store_process" in request.fixturenames and request.node.get_closest_marker("reconfigures_store") is None:
        request.getfixturevalue("store_process").serve_demo()


@contextlib.contextmanager
def reconfigured_store(
    store: StoreServer, store_process: StoreProcess, data_dir: Path, overrides: dict[str, str]
) -> Iterator[StoreServer]:
    """The store served with other settings and data for a while (the demo store comes back before
    the next test that needs it). On the demo provider, `data_dir` starts as the pristine demo data."""
    store_process.stop()
    store_process.seed_like_demo(data_dir, overrides)
    try:
        yield store_process.start(data_dir, overrides, build=False)
    finally:
        store_process.stop()


@dataclass(frozen=True)
class SharedStore:
    """A configuration several tests of a module share, with its own data directory: started for the
    first of them, and again only if another configuration replaced it in between. What one test
    changes (orders placed, a fake's data and faults) must be reset by its fixture or not matter."""

    data_dir: Path
    overrides: dict[str, str]

    def serve(self, store_process: StoreProcess) -> StoreServer:
        return store_process.serve(self.data_dir, self.overrides)


def shared_store(tmp_path_factory: pytest.TempPathFactory, name: str, overrides: dict[str, str]) -> SharedStore:
    """A configuration for a module- or session-scoped fixture; tests get it served with `.serve()`."""
    return SharedStore(tmp_path_factory.mktemp(name), overrides)


@pytest.fixture(scope="session")
def store_url(store: StoreServer) -> str:
    return store.url


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser, store_url: str) -> Iterator[Page]:
    """A fresh browser context (empty local storage) on a desktop-sized viewport."""
    context = browser.new_context(base_url=store_url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def admin(page: Page) -> Iterator[Page]:
    """The desktop page, signed in to the back office."""
    from tests.e2e.admin import sign_in

    sign_in(page)
    yield page


@pytest.fixture
def phone_page(browser: Browser, store_url: str) -> Iterator[Page]:
    """A fresh browser context with a phone-sized viewport."""
    context = browser.new_context(
        base_url=store_url, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    context.set_default_timeout(20_000)
    page = context.new_page()
    yield page
    context.close()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "reconfigures_store: restarts the store with other settings (runs last; the demo store is not served in it)",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that restart the store with other settings run after every test of the demo store."""
    items.sort(key=lambda item: item.get_closest_marker("reconfigures_store") is not None)
