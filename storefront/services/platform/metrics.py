"""The figures each process of the store counts as it works, for /metrics (Prometheus' client
library): calls to outside services (the print provider, Stripe) with their latency and errors,
Reflex event handler latency, and try-ons. What the database holds (orders, payments, the
queues) is read from it at each scrape instead (services/operations/metrics.py), so every worker
answers the same.

With several worker processes, set PROMETHEUS_MULTIPROC_DIR (an empty folder, emptied before each
start) and these are summed over all workers; without it each worker answers its own."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import Counter, Histogram

#: Seconds: a provider call is tens of milliseconds to a few seconds (rate-limit waits aside).
CALL_BUCKETS = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
EVENT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)

EXTERNAL_CALL_SECONDS = Histogram(
    "storefront_external_call_seconds",
    "Time of one HTTP call to an outside service, by service and outcome (ok or error).",
    ["service", "outcome"],
    buckets=CALL_BUCKETS,
)
EXTERNAL_CALL_ERRORS = Counter(
    "storefront_external_call_errors",
    "Calls to an outside service that failed (no answer, or an error status).",
    ["service"],
)
EVENT_HANDLER_SECONDS = Histogram(
    "storefront_event_handler_seconds",
    "Time from a Reflex event reaching this process to its first state update, by handler.",
    ["handler"],
    buckets=EVENT_BUCKETS,
)
TRYONS = Counter("storefront_tryons", "Try-ons run, by outcome (ok, refused, failed).", ["outcome"])


@contextmanager
def external_call(service: str, answers: tuple[type[BaseException], ...] = ()) -> Iterator[dict[str, bool]]:
    """Time the block as one call to `service`; it is an error if it sets `failed` or raises
    anything but `answers` (the service's own answers raised as errors: a declined card)."""
    outcome = {"failed": False}
    started = time.perf_counter()
    try:
        yield outcome
    except answers:
        raise
    except BaseException:
        outcome["failed"] = True
        raise
    finally:
        failed = outcome["failed"]
        EXTERNAL_CALL_SECONDS.labels(service, "error" if failed else "ok").observe(time.perf_counter() - started)
        if failed:
            EXTERNAL_CALL_ERRORS.labels(service).inc()
