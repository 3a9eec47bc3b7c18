"""The production backend command of docs/production.md (step 4), run as written:
`reflex run --env prod --backend-only` on PostgreSQL and Redis. Reflex's production server imports
the app once and forks its workers from it; every worker must hold its background jobs as itself,
not as the parent it was forked from."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
from sqlalchemy import text

from storefront.config import PROJECT_ROOT
from storefront.db import make_engine
from storefront.services.events.upload_sweep import SWEEP_JOB
from storefront.services.orders.order_tracking import TRACKING_JOB
from storefront.storefront import IMAGES_JOB
from tests.e2e.conftest import PRINTIFY_SETTINGS
from tests.e2e.workers import poll, postgres_database
from tests.serving import free_port, stop_process

REDIS_URL = "redis://127.0.0.1:6379/6"
WORKERS = 2


def _serving(server: subprocess.Popen, url: str, log_path: Path) -> bool:
    if server.poll() is not None:
        raise AssertionError(f"the backend exited while starting:\n{log_path.read_text()[-4000:]}")
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_the_documented_backend_command_serves_the_api_from_forked_workers(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log_path = tmp_path / "backend.log"
    with postgres_database() as db_url:
        env = {key: value for key, value in os.environ.items()
               if key not in ("UPLOAD_DIR", *PRINTIFY_SETTINGS) and not key.startswith("__REFLEX")}
        env.update({
            "DATA_DIR": str(tmp_path / "data"),
            "DB_URL": db_url,
            "REDIS_URL": REDIS_URL,
            "PORT": str(port),
            "GRANIAN_WORKERS": str(WORKERS),
            "PYTHONUNBUFFERED": "1",
        })
        subprocess.run([sys.executable, "-m", "storefront.manage", "prepare"], cwd=PROJECT_ROOT, env=env, check=True)
        with log_path.open("w") as log:
            server = subprocess.Popen(
                [str(Path(sys.executable).parent / "reflex"), "run", "--env", "prod", "--backend-only",
                 "--loglevel", "info"],
                cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        engine = make_engine(db_url)
        try:
            poll("the backend answering /ping", lambda: _serving(server, f"{base}/ping", log_path), timeout=180)
            events = httpx.get(f"{base}/api/events", timeout=10)
            assert events.status_code == 200 and events.json(), events.text  # the seeded demo events

            def holders() -> dict[str, str]:
                with engine.connect() as connection:
                    rows = connection.execute(text("SELECT name, holder FROM job_lease")).all()
                found = {name: holder for name, holder in rows}
                return found if {TRACKING_JOB, IMAGES_JOB, SWEEP_JOB} <= set(found) else {}

            leases = poll("every start-up job claimed", holders, timeout=60)
            # The holder names its process: a worker's, never the parent's that imported the app.
            pids = {int(holder.split(":")[1]) for holder in leases.values()}
            assert server.pid not in pids, (server.pid, leases)
        finally:
            engine.dispose()
            if server.poll() is None:
                stop_process(server)
        log = log_path.read_text()
        assert "Cannot specify --frontend-port" not in log
        assert "Traceback" not in log, log[-4000:]
