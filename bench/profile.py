"""`BENCH_PROFILE=1 make bench`: sample the store's backend with py-spy while the shoppers run."""

from __future__ import annotations

import collections
import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

PROFILE_DIR = Path(__file__).resolve().parent
ENABLED = os.environ.get("BENCH_PROFILE", "") not in ("", "0")
#: BENCH_PROFILE=gil samples only the thread holding the GIL: where the CPU goes, without the waits.
GIL_ONLY = os.environ.get("BENCH_PROFILE", "") == "gil"


def _py_spy() -> str | None:
    local = Path(sys.executable).with_name("py-spy")
    return str(local) if local.exists() else shutil.which("py-spy")


@contextlib.contextmanager
def sampled(pid: int, name: str) -> Iterator[None]:
    """Record collapsed stacks of `pid` (with idle threads left out) into bench/profile-<name>.txt."""
    py_spy = _py_spy() if ENABLED else None
    if py_spy is None:
        if ENABLED:
            print("bench: BENCH_PROFILE is set but py-spy is not installed", file=sys.stderr)
        yield
        return
    out = PROFILE_DIR / f"profile-{name}.txt"
    recorder = subprocess.Popen([py_spy, "record", "--pid", str(pid), "--format", "raw", "--rate", "200",
                                 *(["--gil"] if GIL_ONLY else []), "--subprocesses", "--output", str(out)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield
    finally:
        recorder.send_signal(2)  # py-spy writes its file on SIGINT
        recorder.wait(timeout=60)
        print(summary(out), file=sys.stderr)


def summary(collapsed: Path, top: int = 25) -> str:
    """The functions holding the most samples, by own time and by total time."""
    own: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    samples = 0
    for line in collapsed.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        frames = stack.split(";")
        samples += int(count)
        own[frames[-1]] += int(count)
        for frame in set(frames):
            total[frame] += int(count)
    lines = [f"profile {collapsed.name}: {samples} samples", "own time:"]
    lines += [f"  {100 * n / samples:5.1f}%  {frame}" for frame, n in own.most_common(top)]
    lines += ["total time:"]
    lines += [f"  {100 * n / samples:5.1f}%  {frame}" for frame, n in total.most_common(top)]
    return "\n".join(lines)
