"""Provider calls per page view: the store served against the fake Printify, its request log counted."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench.catalogue import store_env
from bench.servers import ServedApp
from storefront.config import PROJECT_ROOT
from tests.fakes.printify_server import FakePrintifyServer

#: Products the fake shop holds (the store copies them in when it starts).
FAKE_PRODUCTS = 60


def _wait_until_quiet(fake: FakePrintifyServer, quiet_s: float = 3.0, limit_s: float = 120.0) -> None:
    """Wait until the store has made no provider call for `quiet_s` (its start-up sync is done)."""
    deadline = time.monotonic() + limit_s
    seen, since = len(fake.requests), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.5)
        if len(fake.requests) != seen:
            seen, since = len(fake.requests), time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            return


def provider_calls_per_100_views(store: ServedApp, data_dir: Path,
                                 view_pages: Callable[[str], int]) -> tuple[float, int, list[str]]:
    """Serve the store on the fake provider, call `view_pages(product_id)` (it returns how many page
    views it made), and scale the provider requests made meanwhile to 100 views."""
    with FakePrintifyServer() as fake:
        products = [fake.add_product(f"Bench Tee {n}") for n in range(FAKE_PRODUCTS)]
        overrides = {"DATA_DIR": str(data_dir), "PRINTIFY_API_TOKEN": fake.token,
                     "PRINTIFY_API_BASE": fake.base_url}
        subprocess.run([sys.executable, "-m", "storefront.manage", "prepare"], cwd=PROJECT_ROOT,
                       env=store_env(data_dir, store.port, overrides), check=True, capture_output=True)
        store.serve(overrides)
        try:
            _wait_until_quiet(fake)
            before = len(fake.requests)
            views = view_pages(str(products[0]["id"]))
            time.sleep(2)
            made = fake.requests[before:]
        finally:
            store.stop()
    paths = sorted({f"{r.method} {r.path}" for r in made})
    return len(made) * 100 / max(views, 1), views, paths[:5]
