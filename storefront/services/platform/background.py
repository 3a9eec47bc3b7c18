"""Background threads that repeat a piece of work (the outbox, the order poll, the catalogue sync)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

logger = logging.getLogger(__name__)

#: A step of work: returns the seconds to wait before the next step, or None when the work is over.
Step = Callable[[], float | None]
#: Runs `beat` every `interval` seconds while its block runs: (name, beat, interval) -> context manager.
KeepAlive = Callable[[str, Callable[[], bool], float], AbstractContextManager[None]]


@dataclass
class Worker:
    """A running background thread; stop() ends it after the current step."""

    thread: threading.Thread
    stop_event: threading.Event

    def stop(self, timeout: float | None = 5.0) -> None:
        self.stop_event.set()
        self.thread.join(timeout)


def start_worker(name: str, step: Step, *, error_wait: float = 5.0) -> Worker:
    """Run `step` in a daemon thread until it returns None or the worker is stopped.

    A step that raises is logged and tried again after `error_wait` seconds: a database or
    provider hiccup must not end the worker."""
    stop_event = threading.Event()

    def loop() -> None:
        while not stop_event.is_set():
            try:
                wait = step()
            except Exception:  # logged; the worker goes on
                logger.exception("Background work %r failed", name)
                wait = error_wait
            if wait is None:
                return
            if wait > 0:
                stop_event.wait(wait)

    thread = threading.Thread(target=loop, name=name, daemon=True)
    thread.start()
    return Worker(thread=thread, stop_event=stop_event)


@contextmanager
def beating(name: str, beat: Callable[[], bool], interval_seconds: float) -> Iterator[None]:
    """Call `beat` every `interval_seconds` in a daemon thread while the block runs (a heartbeat that
    keeps a claim alive during a long call); a beat that returns False ends the beats, one that
    raises is logged and the next one tried. No beat runs once the block has ended."""
    stop_event = threading.Event()

    def loop() -> None:
        while not stop_event.wait(interval_seconds):
            try:
                if not beat():
                    return
            except Exception:  # logged; the next beat may get through
                logger.exception("Heartbeat %r failed", name)

    thread = threading.Thread(target=loop, name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop_event.set()
        thread.join()
