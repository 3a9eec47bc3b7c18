"""Event handler latency for /metrics: Reflex runs every event handler through one function of its
event processor (`process_event`); it is wrapped once per process to time each run by handler
(services/platform/metrics.py). Reflex 0.10 calls no middleware after an event, so this is the
one place that sees a handler end. Should a Reflex release move that function, the store logs so
and runs without the figure rather than failing."""

from __future__ import annotations

import functools
import logging
import time
from typing import Any

from storefront.services.platform.metrics import EVENT_HANDLER_SECONDS

logger = logging.getLogger(__name__)


def handler_name(handler: Any) -> str:
    """`CartState.add_item` for a handler (its function's qualified name)."""
    function = getattr(handler, "fn", None)
    return getattr(function, "__qualname__", None) or "unknown"


def install() -> bool:
    """Time every event handler this process runs; False when Reflex offers no place to do it."""
    try:
        from reflex_base.event.processor import base_state_processor as processor
    except ImportError:
        logger.warning("Event handler latency is not measured: Reflex's event processor was not found")
        return False
    original = getattr(processor, "process_event", None)
    if original is None:
        logger.warning("Event handler latency is not measured: Reflex's process_event was not found")
        return False
    if getattr(original, "_storefront_timed", False):
        return True

    @functools.wraps(original)
    async def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await original(*args, **kwargs)
        finally:
            handler = kwargs.get("handler", args[0] if args else None)
            EVENT_HANDLER_SECONDS.labels(handler_name(handler)).observe(time.perf_counter() - started)

    timed._storefront_timed = True  # type: ignore[attr-defined]
    processor.process_event = timed
    return True
