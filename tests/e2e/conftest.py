"""Browser tests: the store built and served in production mode, driven in headless Chromium."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from storefront.config import PROJECT_ROOT

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
STARTUP_TIMEOUT_S = 900
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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_served(base_url: str, process: subprocess.Popen, log_path: Path) -> None:
    """Poll until the backend and the built front end both answer (the build takes a while)."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the store exited while starting:\n{log_path.read_text()[-4000:]}")
        try:
            if (
                httpx.get(f"{base_url}/ping", timeout=2).status_code == 200
                and httpx.get(f"{base_url}/", timeout=5).status_code == 200
            ):
                return
        except httpx.HTTPError:
            pass
        time.sleep(1)
    raise RuntimeError(f"the store did not start in time:\n{log_path.read_text()[-4000:]}")


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

    def start(self, data_dir: Path, overrides: dict[str, str] | None = None, *, build: bool) -> StoreServer:
        """Migrate and prepare `data_dir`, then serve the store (building the front end if asked)."""
        env = {
            **os.environ,
            "DATA_DIR": str(data_dir),
            "PORT": str(self.port),
            "REFLEX_USE_NPM": "1",
            "PYTHONUNBUFFERED": "1",
            "OUTBOX_INTERVAL_SECONDS": "0.5",
        }
        for name in ("DB_URL", "UPLOAD_DIR", "REDIS_URL", *PRINTIFY_SETTINGS):
            env.pop(name, None)
        env.update(overrides or {})
        self.env = env
        subprocess.run(
            [sys.executable, "-m", "storefront.manage", "prepare"], cwd=PROJECT_ROOT, env=env, check=True
        )
        if build:
            command = [str(Path(sys.executable).parent / "reflex"), "run", "--env", "prod", "--loglevel", "info"]
        else:
            # What `reflex run --env prod` runs once the front end is built: the backend serving it.
            env.update({"__REFLEX_SKIP_COMPILE": "true", "__REFLEX_MOUNT_FRONTEND_COMPILED_APP": "true", "REFLEX_ENV_MODE": "prod"})
            command = [sys.executable, "-m", "uvicorn", "--factory", "storefront.storefront:app",
                       "--host", "0.0.0.0", "--port", str(self.port), "--log-level", "info"]
        log_path = data_dir / "store.log"
        with log_path.open("a") as log:
            self._process = subprocess.Popen(
                command, cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        _wait_until_served(self.url, self._process, log_path)
        return StoreServer(url=self.url, data_dir=data_dir)

    def stop(self) -> None:
        if self._process is None:
            return
        os.killpg(self._process.pid, 15)
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self._process.pid, 9)
            self._process.wait(timeout=30)
        self._process = None


#: Settings a test store never inherits from the shell that runs the tests.
PRINTIFY_SETTINGS = ("PRINTIFY_API_TOKEN", "PRINTIFY_SHOP_ID", "PRINTIFY_API_BASE", "PRINTIFY_WEBHOOK_SECRET")


@pytest.fixture(scope="session")
def store_process() -> Iterator[StoreProcess]:
    process = StoreProcess(_free_port())
    yield process
    process.stop()


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory, store_process: StoreProcess) -> Iterator[StoreServer]:
    """Migrate and seed a fresh SQLite demo store, build it and serve it in production mode."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}; .ci/run installs Debian's chromium")
    server = store_process.start(tmp_path_factory.mktemp("store-data"), build=True)
    yield server
    store_process.stop()


@contextlib.contextmanager
def reconfigured_store(
    store: StoreServer, store_process: StoreProcess, data_dir: Path, overrides: dict[str, str]
) -> Iterator[StoreServer]:
    """The store served with other settings and data for a while, then the demo store again."""
    store_process.stop()
    try:
        yield store_process.start(data_dir, overrides, build=False)
    finally:
        store_process.stop()
        store_process.start(store.data_dir, build=False)


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
def phone_page(browser: Browser, store_url: str) -> Iterator[Page]:
    """A fresh browser context with a phone-sized viewport."""
    context = browser.new_context(base_url=store_url, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    context.set_default_timeout(20_000)
    page = context.new_page()
    yield page
    context.close()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "reconfigures_store: restarts the store with other settings (runs last)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that restart the store with other settings run after every test of the demo store."""
    items.sort(key=lambda item: item.get_closest_marker("reconfigures_store") is not None)
