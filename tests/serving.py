"""Serving a production-built Reflex app for browser tests and `make bench`: one set of steps."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import httpx

STARTUP_TIMEOUT_S = 900
#: What `reflex run --env prod` runs once the front end is built: the backend serving it too.
SERVE_BUILT_ENV = {
    "__REFLEX_SKIP_COMPILE": "true",
    "__REFLEX_MOUNT_FRONTEND_COMPILED_APP": "true",
    "REFLEX_ENV_MODE": "prod",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_served(base_url: str, process: subprocess.Popen, log_path: Path, name: str = "the store") -> None:
    """Poll until the backend and the built front end both answer (a build takes a while)."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited while starting:\n{log_path.read_text()[-4000:]}")
        try:
            if (
                httpx.get(f"{base_url}/ping", timeout=2).status_code == 200
                and httpx.get(f"{base_url}/", timeout=5).status_code == 200
            ):
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"{name} did not start in time:\n{log_path.read_text()[-4000:]}")


def stop_process(process: subprocess.Popen) -> None:
    """End a server started with start_new_session=True, with everything it started."""
    os.killpg(process.pid, 15)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        process.wait(timeout=30)
