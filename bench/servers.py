"""Building and serving the store and the bench's minimal page, both in production mode, the same way."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from storefront.config import PROJECT_ROOT
from tests.serving import SERVE_BUILT_ENV, stop_process, wait_until_served

BLANK_ROOT = Path(__file__).resolve().parent / "blank"
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
        wait_until_served(self.url, self._process, self.log_path, self.name)

    def stop(self) -> None:
        if self._process is None:
            return
        if self._process.poll() is not None:  # it exited on its own (e.g. a failed build): nothing to end
            self._process = None
            return
        stop_process(self._process)
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
