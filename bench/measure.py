"""Each part of `make bench`: run its measurements and turn them into table rows (plus raw figures)."""

from __future__ import annotations

import asyncio
import functools
import statistics
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser

from bench import page_metrics, profile
from bench.checkouts import run_checkouts
from bench.hot_paths import time_hot_paths
from bench.lighthouse import MOBILE, PRESETS, LighthouseRun, lighthouse_run
from bench.lighthouse_report import MINIMAL, page_table, target_rows
from bench.report import Row, fmt, limit_row, missing_row, ratio, ratio_row
from bench.servers import ServedApp, rss_kib
from bench.shoppers import ShopperScript, run_shoppers
from bench.workers import CpuUse, SharedStore, cpu_since, cpu_snapshot

LOAD_REPEATS = 5
INTERACTION_REPEATS = 5
SHOPPERS = 200
SHOPPER_ROUNDS = 5
PRODUCTS_STATE = "reflex___state____state.storefront___state___catalog____products_state"
COUNTER_STATE = "reflex___state____state.blank___blank____counter_state"
#: The listing reached the browser: as a state var, or as cards pushed into a client-side var.
LISTING_ARRIVED = ("products_rx_state_", "_client_state_products_cards")
SEARCHES = ("h", "k", "tee", "hoodie", "swdnn")
#: Events one shopper sends back to back, alone on the backend, for "one search alone".
ALONE_EVENTS = 200
#: Issue 34's targets: one search alone, and one worker's rate with 200 shoppers searching at once.
ALONE_TARGET_MS = 3.5
ONE_WORKER_TARGET_PER_S = 361
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


#: Issue 34: a search keystroke reaches the list within 1.5x the minimal page's counter click.
KEYSTROKE_TARGET = 1.5


def interaction_rows(browser: Browser, products_url: str, blank_url: str) -> tuple[list[Row], Raw]:
    """Search keystroke to re-rendered list beside the minimal page's counter click to re-render."""
    search: list[float] = []
    click: list[float] = []
    for _ in range(INTERACTION_REPEATS):  # interleaved, one of each per round
        search += page_metrics.search_keystroke_ms(browser, products_url, 1)
        click += page_metrics.counter_click_ms(browser, blank_url, 1)
    row = ratio_row("interaction (median of 5)", "search keystroke -> list (no debounce)",
                    statistics.median(search), statistics.median(click), "ms", KEYSTROKE_TARGET)
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
                app.url, script, SHOPPERS, SHOPPER_ROUNDS, functools.partial(rss_kib, app.pid))).result()
        with ThreadPoolExecutor(max_workers=1) as pool:
            alone, _ = pool.submit(asyncio.run, run_shoppers(
                app.url, replace(script, think_s=(0.0, 0.0)), 1, ALONE_EVENTS)).result()
        results[name] = {"idle_rss_kib": idle, "connected_rss_kib": busy, **asdict(load),
                         "alone_p50_ms": alone.p50_ms, "alone_p95_ms": alone.p95_ms}
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
        limit_row("1 shopper alone, 1 worker, no think time",
                  f"one search alone, p50 of {ALONE_EVENTS} (counter for the minimal page)", s["alone_p50_ms"], "ms",
                  at_most=ALONE_TARGET_MS, reference=fmt(b["alone_p50_ms"], "ms")),
    ]
    return rows, {"shoppers": results}


def lighthouse_rows(pages: dict[str, str], blank_url: str, chromium: str) -> tuple[list[Row], Raw]:
    """Lighthouse on every page and the minimal page, mobile preset then desktop: the mobile targets as rows,
    every page's figures as a table of their own (raw["lighthouse_table"], printed after the main table)."""
    urls = {MINIMAL: blank_url, **pages}
    runs: dict[str, dict[str, LighthouseRun]] = {name: {} for name in urls}
    for preset in PRESETS:
        for name, url in urls.items():
            runs[name][preset] = lighthouse_run(url, chromium, preset)
    store = {name: by_preset[MOBILE] for name, by_preset in runs.items() if name != MINIMAL}
    raw: Raw = {"lighthouse": {name: {preset: asdict(run) for preset, run in by_preset.items()}
                               for name, by_preset in runs.items()},
                "lighthouse_table": page_table(runs)}
    return target_rows(store, runs[MINIMAL][MOBILE]), raw


TWO_WORKER_TARGET = 1.7
#: Rounds of the saturated run (no think time): enough events for a rate, short enough for the bench.
SATURATED_ROUNDS = 10
CHECKOUTS = 100


def _shoppers_on(urls: list[str], script: ShopperScript, rounds: int, pids: list[int]) -> tuple[Raw, CpuUse]:
    """The shoppers split evenly over `urls`; the CPU the machine spent while they sent events."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        load, before = pool.submit(asyncio.run, run_shoppers(
            urls, script, SHOPPERS, rounds, lambda: cpu_snapshot(pids))).result()
    return asdict(load), cpu_since(before, pids)


def _workers_ratio_row(section: str, measure: str, two: Raw, one: Raw, target: float | None) -> Row:
    r = ratio(two["events_per_s"], one["events_per_s"])
    return Row(section, measure, fmt(two["events_per_s"], "/s"), f"{fmt(one['events_per_s'], '/s')} (1 worker)", r,
               f">= {target:g}x 1 worker" if target else "", None if target is None or r is None else r >= target)


def two_worker_rows(browser: Browser, store: ServedApp, shared: SharedStore) -> tuple[list[Row], Raw]:
    """The shoppers' search run on one backend and on two sharing PostgreSQL and Redis state, in one run;
    then the same shoppers without think time, which is what a second worker can raise."""
    script = _search_script(page_metrics.connect_payload(browser, f"{store.url}/products"))
    saturated = replace(script, think_s=(0.0, 0.0))
    first, second = shared.start_worker(), shared.start_worker()
    one_url, both = [first.url], [first.url, second.url]
    one_pid, both_pids = [first.pid], [first.pid, second.pid]
    # Warm both processes (first queries, connections) before anything is measured.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, run_shoppers(both, saturated, 20, 2)).result()
    runs: Raw = {}
    for name, urls, pids, chosen, rounds in (("one", one_url, one_pid, script, SHOPPER_ROUNDS),
                                             ("two", both, both_pids, script, SHOPPER_ROUNDS),
                                             ("one saturated", one_url, one_pid, saturated, SATURATED_ROUNDS),
                                             ("two saturated", both, both_pids, saturated, SATURATED_ROUNDS)):
        load, cpu = _shoppers_on(urls, chosen, rounds, pids)
        runs[name] = {**load, "cpu": {**asdict(cpu), "described": cpu.describe()}}
    one, two = runs["one"], runs["two"]
    section = f"{SHOPPERS} shoppers, 2 workers (PostgreSQL, Redis state), 1-3 s think time"
    rows = [
        # No target here: with think time the shoppers offer a fixed load one worker already serves.
        _workers_ratio_row(section, "two workers / one worker events per second", two, one, None),
        limit_row(section, "p95 event latency, 2 workers", two["p95_ms"], "ms", below=200,
                  reference=f"{fmt(one['p95_ms'], 'ms')} (1 worker)") if two["events"] else
        missing_row(section, "p95 event latency, 2 workers", (two["errors"] or ["no event answered"])[0][:160],
                    target="< 200 ms"),
        Row(section, "p50 event latency, 2 workers", fmt(two["p50_ms"], "ms"), f"{fmt(one['p50_ms'], 'ms')} (1 worker)",
            ratio(two["p50_ms"], one["p50_ms"])),
        Row(section, "shoppers connected / events answered", f"{two['connected']}/{SHOPPERS}, {two['events']}",
            f"{one['connected']}/{SHOPPERS}, {one['events']} (1 worker)"),
        Row(section, "CPU while 2 workers served", two["cpu"]["described"]),
    ]
    one_s, two_s = runs["one saturated"], runs["two saturated"]
    section = f"{SHOPPERS} shoppers, 2 workers (PostgreSQL, Redis state), no think time"
    rows += [
        limit_row(section, "events per second, 1 worker", one_s["events_per_s"], "/s", at_least=ONE_WORKER_TARGET_PER_S,
                  reference=f"p95 {fmt(one_s['p95_ms'], 'ms')}"),
        # The target where a second worker can show: shoppers sending as fast as they are answered.
        _workers_ratio_row(section, "two workers / one worker events per second", two_s, one_s, TWO_WORKER_TARGET),
        Row(section, "p95 event latency, 2 workers", fmt(two_s["p95_ms"], "ms"),
            f"{fmt(one_s['p95_ms'], 'ms')} (1 worker)", ratio(two_s["p95_ms"], one_s["p95_ms"])),
        Row(section, "CPU while 1 worker served", one_s["cpu"]["described"]),
        Row(section, "CPU while 2 workers served", two_s["cpu"]["described"]),
    ]
    return rows, {"two_workers": runs}


def checkout_rows(shared: SharedStore) -> tuple[list[Row], Raw]:
    """100 checkouts at once through the HTTP API of the shared store's workers."""
    while len(shared.workers) < 2:  # started by the two workers part, or here when it is not chosen
        shared.start_worker()
    logs = [w.log_path for w in shared.workers[:2]]
    timeouts_before = sum(_pool_timeouts(log) for log in logs)
    run = run_checkouts([w.url for w in shared.workers[:2]], shared.db_url, CHECKOUTS)
    run.pool_timeouts = sum(_pool_timeouts(log) for log in logs) - timeouts_before
    section = f"{CHECKOUTS} concurrent checkouts, each sent twice at once ({run.workers} workers, PostgreSQL)"
    create_p50, create_p95 = run.percentiles(run.create_ms)
    pay_p50, pay_p95 = run.percentiles(run.pay_ms)
    met = run.orders == CHECKOUTS and run.duplicates == 0 and run.distinct_numbers == run.orders
    rows = [
        Row(section, "orders created / duplicates", f"{run.orders} / {run.duplicates}",
            f"{run.distinct_keys} keys, {run.distinct_numbers} numbers", None,
            f"{CHECKOUTS} / 0", met),
        Row(section, "paid orders / charges", f"{run.paid} / {run.charges}", "", None,
            f"{CHECKOUTS} / {CHECKOUTS}", run.paid == CHECKOUTS and run.charges == CHECKOUTS),
        Row(section, "create order round trip p50 / p95 (client-side)",
            f"{fmt(create_p50, 'ms')} / {fmt(create_p95, 'ms')}", f"{len(run.create_ms)} requests"),
        Row(section, "process-payment round trip p50 / p95 (client-side)",
            f"{fmt(pay_p50, 'ms')} / {fmt(pay_p95, 'ms')}", f"{len(run.pay_ms)} requests"),
        Row(section, "answers (create; pay)",
            f"{_codes(run.statuses.get('create', {}))}; {_codes(run.statuses.get('pay', {}))}",
            f"all in {run.wall_s:.1f} s"),
        Row(section, "server errors: connection pool timeouts (workers' logs)", f"{run.pool_timeouts}",
            f"tokens reissued {run.reissued_tokens}, none valid {run.stale_tokens}"),
    ]
    if run.errors:
        rows.append(Row(section, "first errors", " | ".join(run.errors[:3])[:300]))
    return rows, {"checkouts": asdict(run)}


def _codes(statuses: dict[int, int]) -> str:
    return ", ".join(f"{n}x {code}" for code, n in sorted(statuses.items())) or "none"


def _pool_timeouts(log: Path) -> int:
    """SQLAlchemy's 'QueuePool limit ... connection timed out' errors in a worker's log so far."""
    return log.read_text(errors="replace").count("QueuePool limit") if log.exists() else 0
