"""`make bench`: the store (1,000 products) and a minimal Reflex page, built and served in production
mode the same way, measured side by side; prints one table and writes bench/results.json.

Run it under `flock /tmp/e2e.lock` (the Makefile does): building the store writes the shared .web."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

from bench import measure, page_metrics, start_up
from bench.catalogue import seed_catalogue, store_env
from bench.provider_calls import provider_calls_per_100_views
from bench.report import Row, limit_row, missing_row, render_table, summary, write_results
from bench.servers import blank_app, store_app
from bench.tryon import tryon_rows
from bench.workers import shared_store
from storefront.services.collections import COLLECTIONS
from storefront.services.printify.demo_catalogue import hex_id
from storefront.services.shopify.demo import DEMO_FIRST_PRODUCT_ID as DEMO_STORE_PRODUCT_ID
from storefront.web.page_texts import EVENTS_ROUTE
from tests.serving import free_port

CATALOGUE_SIZE = int(os.environ.get("BENCH_PRODUCTS", "1000"))
RESULTS = Path(__file__).resolve().parent / "results.json"
LOGS = Path(__file__).resolve().parent / "logs"
CARD = "[data-testid=product-card]"
#: The parts that need the store and the minimal page built and served (the others run in-process).
SERVED_PARTS = ("cold load", "start-up", "interaction", "state update", "shoppers", "two workers", "checkouts",
                "lighthouse", "provider calls")
#: The parts run on store workers sharing a PostgreSQL database and Redis state (bench/workers.py).
SHARED_PARTS = ("two workers", "checkouts")
PARTS = ("service hot paths", "try-on", *SERVED_PARTS)
#: BENCH_PARTS="shoppers,interaction" measures only those parts (all when unset).
CHOSEN = [p.strip() for p in os.environ.get("BENCH_PARTS", "").split(",") if p.strip()] or list(PARTS)
VIEWS_PER_PAGE = 4


#: The product listings (their cards come with the websocket after the first view).
LISTINGS = ("/products", COLLECTIONS[0].route, "/new-arrivals")
#: BENCH_PAGES="/,/cart" measures only those pages (every public page when unset).
CHOSEN_PAGES = [p.strip() for p in os.environ.get("BENCH_PAGES", "").split(",") if p.strip()]


def store_pages(base: str, product_id: str, store_product_id: int) -> dict[str, str]:
    """Every public page of issue 34's list, by name (a product page by its route), to its address."""
    pages = {
        "/": f"{base}/",
        "/products": f"{base}/products",
        "/product/{id}": f"{base}/product/{product_id}",
        COLLECTIONS[0].route: f"{base}{COLLECTIONS[0].route}",
        "/new-arrivals": f"{base}/new-arrivals",
        EVENTS_ROUTE: f"{base}{EVENTS_ROUTE}",
        "/try-it-on": f"{base}/try-it-on",
        "/cart": f"{base}/cart",
        "/order-status": f"{base}/order-status",
        "/shopify": f"{base}/shopify",
        "/shopify/product/{id}": f"{base}/shopify/product/{store_product_id}",
    }
    return {name: url for name, url in pages.items() if not CHOSEN_PAGES or name in CHOSEN_PAGES}


#: What shows that a page has its own content (not the first view the server wrote), for the cold loads.
READY = {**dict.fromkeys(LISTINGS, CARD), EVENTS_ROUTE: "[data-testid=event-card]",
         "/shopify": "[data-testid=store-product-card]"}


def guarded(section: str, rows: list[Row], raw: dict, run: Callable[[], tuple[list[Row], dict]]) -> None:
    """Run one part; a part that fails becomes a 'not measured' row instead of stopping the bench."""
    if section not in CHOSEN:
        return
    started = time.monotonic()
    print(f"bench: {section} ...", file=sys.stderr, flush=True)
    try:
        part_rows, part_raw = run()
    except Exception as error:  # noqa: BLE001 - shown in the table, traceback on stderr
        traceback.print_exc()
        rows.append(missing_row(section, "(whole part)", f"{type(error).__name__}: {str(error)[:120]}"))
        raw.setdefault("errors", {})[section] = repr(error)
        return
    rows += part_rows
    raw.update(part_raw)
    print(f"bench: {section} done in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)


def viewer(browser: Browser, base: str) -> Callable[[str], int]:
    def view_pages(product_id: str) -> int:
        views = 0
        for _ in range(VIEWS_PER_PAGE):
            for url in store_pages(base, product_id, DEMO_STORE_PRODUCT_ID).values():
                page_metrics.cold_load(browser, url)
                views += 1
        return views
    return view_pages


def main() -> None:
    unknown = [part for part in CHOSEN if part not in PARTS]
    if unknown:
        sys.exit(f"bench: BENCH_PARTS names unknown parts {unknown}; the parts are {', '.join(PARTS)}")
    rows: list[Row] = []
    raw: dict = {"catalogue_products": CATALOGUE_SIZE}
    guarded("service hot paths", rows, raw, measure.hot_path_rows)
    guarded("try-on", rows, raw, tryon_rows)
    if any(part in CHOSEN for part in SERVED_PARTS):
        served_rows(rows, raw)
    print(render_table(rows))
    print()
    if "lighthouse_table" in raw:
        print("Lighthouse, every page (mobile: Lighthouse's default preset, simulated throttling; desktop: "
              "--preset=desktop):")
        print(raw["lighthouse_table"])
        print()
    print(summary(rows))
    write_results(RESULTS, rows, raw)
    print(f"results written to {RESULTS.relative_to(Path.cwd()) if RESULTS.is_relative_to(Path.cwd()) else RESULTS}")


def served_rows(rows: list[Row], raw: dict) -> None:
    """The parts measured on the built store and the minimal page, served on this machine."""
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        work = Path(tmp)
        data_dir = work / "store-data"
        data_dir.mkdir()
        print(f"bench: seeding {CATALOGUE_SIZE} products ...", file=sys.stderr, flush=True)
        raw["catalogue_products"] = seed_catalogue(data_dir, CATALOGUE_SIZE)
        store_port, blank_port = free_port(), free_port()
        store = store_app(store_env(data_dir, store_port), store_port, work)
        blank = blank_app(blank_port, work)
        try:
            print("bench: building the minimal page and the store (production) ...", file=sys.stderr, flush=True)
            blank.build()
            store.build()
            blank.serve()
            store.serve()
            pages = store_pages(store.url, hex_id("bench-product-0"), DEMO_STORE_PRODUCT_ID)
            listings = {name: url for name, url in pages.items() if name in LISTINGS}
            ready = {name: READY[name] for name in pages if name in READY}
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=page_metrics.CHROMIUM, headless=True,
                                                     args=page_metrics.CHROMIUM_ARGS)
                guarded("cold load", rows, raw,
                        lambda: measure.page_load_rows(browser, pages, ready, f"{blank.url}/"))
                guarded("start-up", rows, raw, lambda: start_up.start_up_rows(browser, pages))
                guarded("interaction", rows, raw,
                        lambda: measure.interaction_rows(browser, f"{store.url}/products", f"{blank.url}/"))
                guarded("state update", rows, raw, lambda: measure.state_update_rows(browser, listings, CARD))
                guarded("shoppers", rows, raw, lambda: measure.shopper_rows(browser, store, blank))
                shared_rows(browser, store, work, rows, raw)
                guarded("lighthouse", rows, raw,
                        lambda: measure.lighthouse_rows(pages, f"{blank.url}/", page_metrics.CHROMIUM))
                store.stop()
                guarded("provider calls", rows, raw, lambda: provider_rows(browser, store, work / "provider-data"))
                browser.close()
        finally:
            store.stop()
            blank.stop()
            keep_logs(work)


def shared_rows(browser: Browser, store, work: Path, rows: list[Row], raw: dict) -> None:
    """The parts on workers sharing PostgreSQL and Redis: seeded once, stopped and emptied after."""
    chosen = [part for part in SHARED_PARTS if part in CHOSEN]
    if not chosen:
        return
    try:
        with shared_store(work, CATALOGUE_SIZE, store.port) as shared:
            guarded("two workers", rows, raw, lambda: measure.two_worker_rows(browser, store, shared))
            guarded("checkouts", rows, raw, lambda: measure.checkout_rows(shared))
    except Exception as error:  # noqa: BLE001 - the seeding or the cleanup; shown in the table
        traceback.print_exc()
        for part in chosen:
            rows.append(missing_row(part, "(PostgreSQL + Redis setup)", f"{type(error).__name__}: {str(error)[:120]}"))
        raw.setdefault("errors", {})["shared store"] = repr(error)


def keep_logs(work: Path) -> None:
    """Copy the servers' logs next to the results (bench/logs/, ignored by git)."""
    LOGS.mkdir(exist_ok=True)
    for log in work.glob("*.log"):
        shutil.copyfile(log, LOGS / log.name)


def provider_rows(browser: Browser, store, data_dir: Path) -> tuple[list[Row], dict]:
    data_dir.mkdir()
    per_100, views, paths = provider_calls_per_100_views(store, data_dir, viewer(browser, store.url))
    row = limit_row("provider", f"calls per 100 page views ({views} views, fake Printify)", per_100, "",
                    at_most=0)
    return [row], {"provider_calls": {"per_100_views": per_100, "views": views, "example_calls": paths}}


if __name__ == "__main__":
    main()
