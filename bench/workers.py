"""Store backends that share one PostgreSQL database and Reflex's state in Redis, as several workers
of a production store do: the catalogue seeded into a database of the bench's own, worker processes
started from the built front end on ports of their own, and the machine's CPU time while they run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import redis

from bench.catalogue import add_clones, store_env
from bench.servers import ServedApp, store_app
from storefront.config import PROJECT_ROOT
from storefront.db import make_engine
from tests.databases import temporary_database
from tests.serving import free_port

#: The PostgreSQL server the bench creates its database on (trust auth on this machine).
PG_SERVER = os.environ.get("BENCH_PG_SERVER", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
#: Reflex's state for the shared workers: a Redis database of the bench's own, flushed before and after.
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
#: The payment limit is per client address and every bench request comes from 127.0.0.1.
PAYMENTS_PER_MINUTE = "1000000"


def bench_database() -> AbstractContextManager[str]:
    """An empty PostgreSQL database for this run, dropped afterwards."""
    return temporary_database(PG_SERVER, "storefront_bench")


def flush_redis() -> None:
    client = redis.Redis.from_url(REDIS_URL)
    try:
        client.flushdb()
    finally:
        client.close()


def seed_database(data_dir: Path, db_url: str, total: int) -> int:
    """bench.catalogue.seed_catalogue on `db_url`: `manage prepare` (migrate, demo seed, image
    renditions into data_dir) with DB_URL set, then numbered clones of the demo products up to `total`."""
    prepared = subprocess.run([sys.executable, "-m", "storefront.manage", "prepare"], cwd=PROJECT_ROOT,
                   env=store_env(data_dir, 3000, {"DB_URL": db_url}), check=False, capture_output=True, text=True)
    if prepared.returncode:
        raise RuntimeError(f"manage prepare on PostgreSQL failed:\n{(prepared.stdout + prepared.stderr)[-3000:]}")
    engine = make_engine(db_url)
    try:
        return add_clones(engine, total)
    finally:
        engine.dispose()


@dataclass
class SharedStore:
    """The built store's backend, started as often as asked, every process on one database and Redis."""

    data_dir: Path
    db_url: str
    log_dir: Path
    #: The port baked into the front end (the served store's); every worker gets the same environment.
    built_port: int
    workers: list[ServedApp] = field(default_factory=list)

    @property
    def env(self) -> dict[str, str]:
        return store_env(self.data_dir, self.built_port, {
            "DB_URL": self.db_url, "REDIS_URL": REDIS_URL, "PAYMENT_REQUESTS_PER_MINUTE": PAYMENTS_PER_MINUTE})

    def start_worker(self) -> ServedApp:
        """One more backend process (uvicorn, one worker) serving the built store on a new port."""
        number = len(self.workers) + 1
        app = store_app(self.env, free_port(), self.log_dir)
        app.name = f"store worker {number}"
        app.log_path = self.log_dir / f"store-worker-{number}.log"
        app.serve()
        self.workers.append(app)
        return app

    def stop(self) -> None:
        for app in self.workers:
            app.stop()
        self.workers.clear()


@contextmanager
def shared_store(work: Path, total: int, built_port: int) -> Iterator[SharedStore]:
    """A seeded PostgreSQL database and a flushed Redis database; the workers stop and both are
    emptied on the way out."""
    data_dir = work / "shared-data"
    data_dir.mkdir(exist_ok=True)
    flush_redis()
    with bench_database() as db_url:
        started = time.monotonic()
        seeded = seed_database(data_dir, db_url, total)
        print(f"bench: {seeded} products seeded into PostgreSQL in {time.monotonic() - started:.0f} s",
              file=sys.stderr, flush=True)
        store = SharedStore(data_dir, db_url, work, built_port)
        try:
            yield store
        finally:
            store.stop()
            flush_redis()


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def machine_busy_seconds() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, all cores (Linux /proc/stat)."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    total = sum(values[:8])
    return (total - idle) / CLOCK_TICKS, total / CLOCK_TICKS


#: Other programs whose CPU time is shown on its own (by process name): the database and Redis.
SERVICES = {"postgres": "PostgreSQL", "redis-server": "Redis"}


def service_seconds() -> dict[int, tuple[str, float]]:
    """CPU time so far of every PostgreSQL and Redis process, by pid."""
    found: dict[int, tuple[str, float]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        if name in SERVICES:
            fields = text.rsplit(")", 1)[1].split()
            found[int(stat.parent.name)] = (SERVICES[name], (int(fields[11]) + int(fields[12])) / CLOCK_TICKS)
    return found


@dataclass
class CpuUse:
    """Where the machine's CPU went during one run, in cores (CPU seconds per second of wall time)."""

    wall_s: float
    machine_cores: float
    workers_cores: list[float]
    client_cores: float
    #: PostgreSQL's and Redis's processes alive at the end (a connection closed meanwhile is not counted).
    services_cores: dict[str, float] = field(default_factory=dict)

    def describe(self) -> str:
        workers = " + ".join(f"{c:.2f}" for c in self.workers_cores)
        services = ", ".join(f"{name} {cores:.2f}" for name, cores in sorted(self.services_cores.items()))
        rest = self.machine_cores - sum(self.workers_cores) - self.client_cores - sum(self.services_cores.values())
        return (f"{self.machine_cores:.2f} of {os.cpu_count()} cores busy: workers {workers}, "
                f"shoppers' client {self.client_cores:.2f}, {services}, the rest {rest:.2f}")


@dataclass(frozen=True)
class CpuSnapshot:
    wall: float
    workers: list[float]
    client: float
    machine_busy: float
    services: dict[int, tuple[str, float]]


def cpu_snapshot(worker_pids: list[int]) -> CpuSnapshot:
    """The CPU time the workers, this process (the shoppers' client) and the machine have used so far."""
    return CpuSnapshot(time.monotonic(), [cpu_seconds(pid) for pid in worker_pids], cpu_seconds(os.getpid()),
                       machine_busy_seconds()[0], service_seconds())


def cpu_since(before: CpuSnapshot, worker_pids: list[int]) -> CpuUse:
    now = cpu_snapshot(worker_pids)
    elapsed = now.wall - before.wall
    services: dict[str, float] = dict.fromkeys(SERVICES.values(), 0.0)
    for pid, (name, seconds) in now.services.items():
        # A process started meanwhile (a new database connection) counts from its start.
        services[name] += (seconds - before.services[pid][1] if pid in before.services else seconds) / elapsed
    return CpuUse(
        wall_s=elapsed,
        machine_cores=(now.machine_busy - before.machine_busy) / elapsed,
        workers_cores=[(b - a) / elapsed for a, b in zip(before.workers, now.workers, strict=True)],
        client_cores=(now.client - before.client) / elapsed,
        services_cores=services,
    )
