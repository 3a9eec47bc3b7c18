"""The heartbeat that keeps a claim alive while a long call runs (services/platform/background.py)."""

from __future__ import annotations

import threading

import pytest

from storefront.services.platform.background import beating

WAIT_SECONDS = 10.0


def test_beats_run_while_the_block_runs_and_none_after_it() -> None:
    beats: list[int] = []
    third = threading.Event()

    def beat() -> bool:
        beats.append(1)
        if len(beats) == 3:
            third.set()
        return True

    with beating("test-heartbeat", beat, 0.001):
        assert third.wait(WAIT_SECONDS)
    after = len(beats)
    threading.Event().wait(0.05)  # time for many more beats, had the thread gone on
    assert len(beats) == after >= 3


def test_a_beat_that_fails_is_logged_and_one_that_returns_false_ends_the_beats(
    caplog: pytest.LogCaptureFixture,
) -> None:
    answers = iter([RuntimeError("database away"), False])
    ended = threading.Event()
    calls: list[int] = []

    def beat() -> bool:
        calls.append(1)
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        ended.set()
        return answer

    with beating("test-heartbeat", beat, 0.001):
        assert ended.wait(WAIT_SECONDS)
        threading.Event().wait(0.05)
    assert len(calls) == 2
    assert "Heartbeat 'test-heartbeat' failed" in caplog.text
