"""Building and serving the store and the bench's minimal page, both in production mode, the same way."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from storefront.config import PROJECT_ROOT

BLANK_ROOT = Path(__file__).resolve().parent / "blank"
STARTUP_TIMEOUT_S = 900
#: What `reflex run --env prod` runs once the front end is built: the backend serving it too.
SERVE_BUILT_ENV = {"__REFLEX_SKIP_COMPILE": "true", "__REFLEX_MOUNT_FRONTEND_COMPILED_APP": "true",
                   "REFLEX_ENV_MODE": "prod"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class ServedApp:
    """A Reflex app built once on a port (baked into the build) and served from there by uvicorn."""

    name: str
    root: Path
    factory: str
    port: int
    env: dict[str, str]
    log_path: Path
    _process: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"http://localhost:{self.port}"

    @property
    def pid(self) -> int:
        assert self._process is not None, f"{self.name} is not running"
        return self._process.pid

    def build(self) -> None:
        """`reflex run --env prod` until it serves (the production build), then stop it."""
        reflex = str(Path(sys.executable).parent / "reflex")
        self._spawn([reflex, "run", "--env", "prod", "--loglevel", "info"], self.env)
        self.stop()

    def serve(self, extra_env: dict[str, str] | None = None) -> None:
        """Serve the built app with one uvicorn worker (no rebuild)."""
        env = {**self.env, **SERVE_BUILT_ENV, **(extra_env or {})}
        self._spawn([sys.executable, "-m", "uvicorn", "--factory", self.factory, "--host", "0.0.0.0",
                     "--port", str(self.port), "--log-level", "warning"], env)

    def _spawn(self, command: list[str], env: dict[str, str]) -> None:
        with self.log_path.open("a") as log:
            self._process = subprocess.Popen(command, cwd=self.root, env=env, stdout=log,
                                             stderr=subprocess.STDOUT, start_new_session=True)
        self._wait_until_served()

    def _wait_until_served(self) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                raise RuntimeError(f"{self.name} exited while starting:\n{self.log_path.read_text()[-4000:]}")
            try:
                if (httpx.get(f"{self.url}/ping", timeout=2).status_code == 200
                        and httpx.get(f"{self.url}/", timeout=5).status_code == 200):
                    return
            except httpx.HTTPError:
                pass
            time.sleep(1)
        raise RuntimeError(f"{self.name} did not start in time:\n{self.log_path.read_text()[-4000:]}")

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


def store_app(env: dict[str, str], port: int, log_dir: Path) -> ServedApp:
    return ServedApp("store", PROJECT_ROOT, "storefront.storefront:app", port, env, log_dir / "store.log")


def blank_app(port: int, log_dir: Path) -> ServedApp:
    env = {**os.environ, "PORT": str(port), "REFLEX_USE_NPM": "1", "PYTHONUNBUFFERED": "1"}
    return ServedApp("minimal page", BLANK_ROOT, "blank.blank:app", port, env, log_dir / "blank.log")


def rss_kib(pid: int) -> int:
    """Resident memory of one process in KiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0
