"""Each part of `make bench`: run its measurements and turn them into table rows (plus raw figures)."""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from typing import Any

from playwright.sync_api import Browser

from bench import page_metrics, profile
from bench.hot_paths import time_hot_paths
from bench.lighthouse import CATEGORIES, lighthouse_scores
from bench.report import Row, limit_row, missing_row, ratio_row
from bench.servers import ServedApp, rss_kib
from bench.shoppers import ShopperScript, run_shoppers

LOAD_REPEATS = 5
INTERACTION_REPEATS = 5
SHOPPERS = 200
SHOPPER_ROUNDS = 5
PRODUCTS_STATE = "reflex___state____state.storefront___state___catalog____products_state"
COUNTER_STATE = "reflex___state____state.blank___blank____counter_state"
#: The listing reached the browser: as a state var, or as cards pushed into a client-side var.
LISTING_ARRIVED = ("products_rx_state_", "_client_state_products_cards")
SEARCHES = ("h", "k", "tee", "hoodie", "swdnn")
Raw = dict[str, Any]


def hot_path_rows() -> tuple[list[Row], Raw]:
    timings = time_hot_paths()
    rows = [Row("service hot paths (median / p95)", f"{t.operation}, {t.runs} runs",
                f"{t.median_ms:.3f} / {t.p95_ms:.3f} ms") for t in timings]
    return rows, {"hot_paths": [asdict(t) for t in timings]}


def page_load_rows(browser: Browser, store_pages: dict[str, str], ready: dict[str, str],
                   blank_url: str) -> tuple[list[Row], Raw]:
    """Cold FCP/LCP/bytes of every page, interleaved with the minimal page round by round."""
    loads: dict[str, list[page_metrics.ColdLoad]] = {name: [] for name in [*store_pages, "minimal"]}
    for _ in range(LOAD_REPEATS):
        for name, url in store_pages.items():
            loads[name].append(page_metrics.cold_load(browser, url, ready.get(name)))
        loads["minimal"].append(page_metrics.cold_load(browser, blank_url))
    medians = {name: page_metrics.median_cold_loads(samples) for name, samples in loads.items()}
    blank = medians["minimal"]
    rows = []
    for name in store_pages:
        m = medians[name]
        rows.append(ratio_row("cold load (median of 5)", f"{name} LCP", m["lcp_ms"], blank["lcp_ms"], "ms", 1.5))
        rows.append(ratio_row("cold load (median of 5)", f"{name} FCP", m["fcp_ms"], blank["fcp_ms"], "ms"))
        rows.append(ratio_row("cold load (median of 5)", f"{name} transferred", m["transferred_bytes"],
                              blank["transferred_bytes"], "bytes"))
    return rows, {"cold_loads": {name: [asdict(s) for s in samples] for name, samples in loads.items()},
                  "cold_load_medians": medians}


def interaction_rows(browser: Browser, products_url: str, blank_url: str) -> tuple[list[Row], Raw]:
    """Search keystroke to re-rendered list beside the minimal page's counter click to re-render."""
    search: list[float] = []
    click: list[float] = []
    for _ in range(INTERACTION_REPEATS):  # interleaved, one of each per round
        search += page_metrics.search_keystroke_ms(browser, products_url, 1)
        click += page_metrics.counter_click_ms(browser, blank_url, 1)
    row = ratio_row("interaction (median of 5)", "search keystroke -> list (no debounce)",
                    statistics.median(search), statistics.median(click), "ms", 5)
    return [row], {"search_keystroke_ms": search, "counter_click_ms": click}


def state_update_rows(browser: Browser, listing_pages: dict[str, str], ready: str) -> tuple[list[Row], Raw]:
    """The largest websocket message each listing page receives while it loads."""
    urls = list(listing_pages.values())
    largest = page_metrics.largest_state_updates(browser, urls, {url: ready for url in urls})
    rows = [limit_row("state update", f"{name} largest update", largest[url], "bytes", at_most=30 * 1024)
            for name, url in listing_pages.items()]
    return rows, {"largest_state_update_bytes": {name: largest[url] for name, url in listing_pages.items()}}


def _search_script(auth: dict) -> ShopperScript:
    return ShopperScript(auth, "/products", [(f"{PRODUCTS_STATE}.set_query",
                                              lambda r: {"value": SEARCHES[r % len(SEARCHES)]})],
                         done_markers=LISTING_ARRIVED, connect_markers=LISTING_ARRIVED)


def _counter_script(auth: dict) -> ShopperScript:
    return ShopperScript(auth, "/", [(f"{COUNTER_STATE}.increment", lambda r: {})],
                         done_markers=("count_rx_state_",), connect_markers=('"is_hydrated_rx_state_":true',))


def shopper_rows(browser: Browser, store: ServedApp, blank: ServedApp) -> tuple[list[Row], Raw]:
    """Backend memory idle and with 200 shoppers connected; event latency and throughput under them."""
    scripts: dict[str, tuple[ServedApp, Callable[[dict], ShopperScript], str]] = {
        "store": (store, _search_script, f"{store.url}/products"),
        "minimal": (blank, _counter_script, f"{blank.url}/"),
    }
    results: Raw = {}
    for name, (app, make_script, page_url) in scripts.items():
        script = make_script(page_metrics.connect_payload(browser, page_url))
        idle = rss_kib(app.pid)
        # Playwright's sync API owns this thread's event loop: the shoppers get a thread of their own.
        with ThreadPoolExecutor(max_workers=1) as pool, profile.sampled(app.pid, f"shoppers-{name}"):
            load, busy = pool.submit(asyncio.run, run_shoppers(
                app.url, script, SHOPPERS, SHOPPER_ROUNDS, lambda: rss_kib(app.pid))).result()
        results[name] = {"idle_rss_kib": idle, "connected_rss_kib": busy, **asdict(load)}
    s, b = results["store"], results["minimal"]
    section = f"{SHOPPERS} shoppers, 1 worker, 1-3 s think time"
    rows = [
        ratio_row("backend memory", "idle (RSS)", s["idle_rss_kib"], b["idle_rss_kib"], "kib"),
        ratio_row("backend memory", f"{SHOPPERS} shoppers connected (RSS)", s["connected_rss_kib"],
                  b["connected_rss_kib"], "kib"),
        limit_row(section, "p95 event latency (search / counter)", s["p95_ms"], "ms", below=200,
                  reference=f"{b['p95_ms']:.0f} ms") if s["events"] else
        missing_row(section, "p95 event latency (search / counter)",
                    (s["errors"] or ["no event answered"])[0][:160], target="< 200 ms"),
        ratio_row(section, "p50 event latency", s["p50_ms"], b["p50_ms"], "ms"),
        ratio_row(section, "events per second", s["events_per_s"], b["events_per_s"], "/s"),
        Row(section, "shoppers connected / events answered",
            f"{s['connected']}/{SHOPPERS}, {s['events']}", f"{b['connected']}/{SHOPPERS}, {b['events']}"),
    ]
    return rows, {"shoppers": results}


def lighthouse_rows(pages: dict[str, str], blank_url: str, chromium: str) -> tuple[list[Row], Raw]:
    """Lighthouse scores of every page beside the minimal page's."""
    blank = lighthouse_scores(blank_url, chromium)
    raw: Raw = {"minimal": asdict(blank)}
    if blank.error:
        return [missing_row("lighthouse", "minimal page", blank.error)], {"lighthouse": raw}
    rows = []
    for name, url in pages.items():
        result = lighthouse_scores(url, chromium)
        raw[name] = asdict(result)
        if result.error:
            rows.append(missing_row("lighthouse", name, result.error))
            continue
        for category in CATEGORIES:
            value = result.scores.get(category, float("nan"))
            floor = blank.scores.get(category, 100) if category == "performance" else 100
            rows.append(limit_row("lighthouse", f"{name} {category}", value, "", at_least=floor,
                                  reference=f"{blank.scores.get(category, float('nan')):g}"))
    return rows, {"lighthouse": raw}
