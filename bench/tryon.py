"""The local try-on engine timed at 1024 px on the sample photos (no server, no browser)."""

from __future__ import annotations

import io
import statistics
import time
from dataclasses import asdict, dataclass
from typing import Any

from matplotlib import cbook
from PIL import Image
from skimage import data as samples

from bench.report import Row, limit_row
from storefront.services.media.demo_images import render_garment_cutout
from storefront.services.tryon.local import LocalTryOnEngine

SECTION = "try-on (local engine)"
WORK_SIZE = 1024
RUNS = 5
#: The issue's target for a warm try-on on a 2-core machine.
TARGET_MS = 1500.0


@dataclass(frozen=True)
class TryOnTiming:
    photo: str
    size: tuple[int, int]
    first_ms: float
    median_ms: float
    max_ms: float


def _jpeg_at(image: Image.Image, long_side: int) -> tuple[bytes, tuple[int, int]]:
    scale = long_side / max(image.size)
    resized = image.convert("RGB").resize((round(image.width * scale), round(image.height * scale)), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    resized.save(out, "JPEG", quality=92)
    return out.getvalue(), resized.size


def _photos() -> dict[str, Image.Image]:
    with cbook.get_sample_data("grace_hopper.jpg") as handle:
        hopper = Image.open(handle)
        hopper.load()
    return {"astronaut": Image.fromarray(samples.astronaut()), "Grace Hopper": hopper}


def _garment() -> bytes:
    out = io.BytesIO()
    render_garment_cutout("tee", "#1d4ed8", "#f8fafc", "HWDKN", 800).save(out, "PNG")
    return out.getvalue()


def _ms(run: Any) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000


def time_try_ons() -> tuple[float, list[TryOnTiming]]:
    """The engine's start (models loaded) and each photo's first and warm try-on times."""
    engine = LocalTryOnEngine()
    start_ms = _ms(engine.warm_up)
    garment = _garment()
    timings = []
    for name, image in _photos().items():
        photo, size = _jpeg_at(image, WORK_SIZE)
        first = _ms(lambda: engine.generate(photo, garment))
        warm = [_ms(lambda: engine.generate(photo, garment)) for _ in range(RUNS)]
        timings.append(TryOnTiming(name, size, first, statistics.median(warm), max(warm)))
    return start_ms, timings


def tryon_rows() -> tuple[list[Row], dict[str, Any]]:
    start_ms, timings = time_try_ons()
    rows = [limit_row(SECTION, "models loaded (once per process)", start_ms, "ms")]
    for t in timings:
        rows.append(limit_row(SECTION, f"{t.photo} {t.size[0]}x{t.size[1]}, first try-on with a new garment",
                              t.first_ms, "ms"))
        rows.append(limit_row(SECTION, f"{t.photo} {t.size[0]}x{t.size[1]}, warm (median of {RUNS})",
                              t.median_ms, "ms", at_most=TARGET_MS, reference=f"max {t.max_ms:.0f} ms"))
    return rows, {"tryon": {"start_ms": start_ms, "timings": [asdict(t) for t in timings]}}
