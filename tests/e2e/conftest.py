"""Browser tests: the store built and served in production mode, driven in headless Chromium."""

from __future__ import annotations

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


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StoreServer]:
    """Migrate and seed a fresh SQLite store, build it and serve it in production mode."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}; .ci/run installs Debian's chromium")
    data_dir = tmp_path_factory.mktemp("store-data")
    port = _free_port()
    env = {
        **os.environ,
        "DATA_DIR": str(data_dir),
        "PORT": str(port),
        "REFLEX_USE_NPM": "1",
        "PYTHONUNBUFFERED": "1",
        "OUTBOX_INTERVAL_SECONDS": "0.5",
    }
    for name in ("DB_URL", "UPLOAD_DIR", "REDIS_URL", "PRINTIFY_API_TOKEN"):
        env.pop(name, None)
    subprocess.run(
        [sys.executable, "-m", "storefront.manage", "prepare"], cwd=PROJECT_ROOT, env=env, check=True
    )
    log_path = data_dir / "store.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [str(Path(sys.executable).parent / "reflex"), "run", "--env", "prod", "--loglevel", "info"],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base_url = f"http://localhost:{port}"
    try:
        _wait_until_served(base_url, process, log_path)
        yield StoreServer(url=base_url, data_dir=data_dir)
    finally:
        os.killpg(process.pid, 15)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)


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
