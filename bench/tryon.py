"""The local try-on engine on the sample photos of `tryon_quality.py` (no server, no browser): how
worn it looks with each of the three garments (spill, torso covered, background and face SSIM, the
print's margin to the garment's edge), each garment brought as the page brings it (the store's
cut-out) and as `POST /api/try-on` may be sent it without the store recognising it (the page's
rendition, a white flat-lay, a transparent PNG: `tryon_quality.item_pictures`), and its time at
1024 px (warm: the garment already cut, as for any picture seen before)."""

from __future__ import annotations

import functools
import io
import statistics
import time
from dataclasses import asdict, dataclass
from typing import Any

from PIL import Image

from bench.report import Row, limit_row
from bench.tryon_quality import (
    API_FLAT_LAY,
    MAX_SPILL_PCT,
    MIN_PRINT_MARGIN_PCT,
    MIN_SSIM,
    MIN_TORSO_COVERED_PCT,
    Quality,
    item_pictures,
    measure,
    png,
    sample_photos,
)
from storefront.services.media.demo_images import hex_to_rgb, render_garment_cutout
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
    resized = image.convert("RGB").resize(
        (round(image.width * scale), round(image.height * scale)), Image.Resampling.LANCZOS
    )
    out = io.BytesIO()
    resized.save(out, "JPEG", quality=92)
    return out.getvalue(), resized.size


#: The three items of the try-on page, as the demo catalogue draws them.
GARMENTS = {"tee": "#1d4ed8", "hoodie": "#2e7d32", "crewneck": "#c62828"}
TRIM = "#f8fafc"
LABEL = "HWDKN"


def _garments() -> dict[str, Image.Image]:
    return {kind: render_garment_cutout(kind, colour, TRIM, LABEL, 800) for kind, colour in GARMENTS.items()}  # type: ignore[arg-type]


def _garment() -> bytes:
    return png(_garments()["tee"])


def _ms(run: Any) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000


def time_try_ons() -> tuple[float, list[TryOnTiming]]:
    """The engine's start (models loaded) and each photo's first and warm try-on times, with the
    store's cut-out and (the API's case) with the garment on a white flat-lay."""
    engine = LocalTryOnEngine()
    start_ms = _ms(engine.warm_up)
    garments = {
        "": _garment(),
        f", {API_FLAT_LAY}": item_pictures("tee", GARMENTS["tee"], TRIM, LABEL)[API_FLAT_LAY][1],
    }
    timings = []
    for way, garment in garments.items():
        for name, sample in sample_photos().items():
            photo, size = _jpeg_at(sample.photo, WORK_SIZE)
            first = _ms(functools.partial(engine.generate, photo, garment))
            warm = [_ms(functools.partial(engine.generate, photo, garment)) for _ in range(RUNS)]
            timings.append(TryOnTiming(name + way, size, first, statistics.median(warm), max(warm)))
    return start_ms, timings


def measure_quality() -> list[Quality]:
    """Every sample photo with every garment brought every way, measured."""
    engine = LocalTryOnEngine()
    ink = hex_to_rgb(TRIM)
    return [
        measure(engine, sample.photo, item, data, name=name, garment_name=kind, truth=sample.truth,
                print_colour=ink, way=way)
        for kind, colour in GARMENTS.items()
        for way, (item, data) in item_pictures(kind, colour, TRIM, LABEL).items()
        for name, sample in sample_photos().items()
    ]


def quality_rows(results: list[Quality]) -> list[Row]:
    """Per photo and way, each measure at its worst over the garments (all of them in the reference
    column); the API's ways beside the page's."""
    rows = []
    for photo, way in dict.fromkeys((q.photo, q.way) for q in results):
        mine = [q for q in results if q.photo == photo and q.way == way]
        case = f"{photo}, {way}" if way else photo

        def each(field: str, digits: int, unit: str = "", mine: list[Quality] = mine) -> str:
            return ", ".join(f"{q.garment} {getattr(q, field):.{digits}f}{unit}" for q in mine)

        spill = max(q.spill_pct for q in mine)
        covered = min(q.torso_covered_pct for q in mine)
        background = min(q.background_ssim for q in mine)
        face = min(q.face_ssim for q in mine)
        margin = min(q.print_margin_pct for q in mine)
        rows += [
            limit_row(SECTION, f"{case}: garment outside the silhouette (worst)", round(spill, 2), "%",
                      at_most=MAX_SPILL_PCT, reference=each("spill_pct", 2, "%")),
            limit_row(SECTION, f"{case}: torso covered (worst)", round(covered, 1), "%",
                      at_least=MIN_TORSO_COVERED_PCT, reference=each("torso_covered_pct", 1, "%")),
            limit_row(SECTION, f"{case}: background SSIM (worst)", round(background, 4), "",
                      at_least=MIN_SSIM, reference=each("background_ssim", 4)),
            limit_row(SECTION, f"{case}: face SSIM (worst)", round(face, 4), "",
                      at_least=MIN_SSIM, reference=each("face_ssim", 4)),
            limit_row(SECTION, f"{case}: print's margin inside the garment's edge (worst)", round(margin, 1), "%",
                      at_least=MIN_PRINT_MARGIN_PCT, reference="print width " + each("print_width_pct", 0, "%")),
        ]
    return rows


def tryon_rows() -> tuple[list[Row], dict[str, Any]]:
    start_ms, timings = time_try_ons()  # first: it loads the models
    quality = measure_quality()
    rows = quality_rows(quality)
    rows.append(limit_row(SECTION, "models loaded (once per process)", start_ms, "ms"))
    for t in timings:
        rows.append(limit_row(SECTION, f"{t.photo} {t.size[0]}x{t.size[1]}, first try-on with a new garment",
                              t.first_ms, "ms"))
        rows.append(limit_row(SECTION, f"{t.photo} {t.size[0]}x{t.size[1]}, warm (median of {RUNS})",
                              t.median_ms, "ms", at_most=TARGET_MS, reference=f"max {t.max_ms:.0f} ms"))
    raw = {"start_ms": start_ms, "timings": [asdict(t) for t in timings], "quality": [asdict(q) for q in quality]}
    return rows, {"tryon": raw}
