"""What decoding a try-on photo costs in memory, measured as the growth of a fresh process's peak
resident size (Linux's VmHWM, reset after the imports; tracemalloc does not see Pillow's, libwebp's
or libheif's buffers): a small file
declaring a huge canvas is refused before it is decoded, and any photo that is decoded stays near
TRYON_DECODE_BYTES, which is what `decode_cost` and its table promise."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from storefront.services.media.images import DECODE_BYTES_PER_PIXEL, IMAGE_TOO_COSTLY
from storefront.services.tryon.engine import TRYON_DECODE_BYTES, TRYON_MAX_SIDE

PROJECT_ROOT = Path(__file__).resolve().parents[3]
MB = 1024 * 1024
#: The most refusing a photo may grow the process by.
CEILING = 100 * MB
#: The most decoding an admitted photo may: the budget, its reduced copy (a quarter at most) and
#: the allocator's slack.
PROMISED = TRYON_DECODE_BYTES * 5 // 4 + 8 * MB

#: Runs in a fresh interpreter: decodes the file as the try-on does and reports the peak's growth
#: from the resident size just before (the codecs' libraries are loaded first).
_MEASURE = """
import json, sys
from PIL import Image, JpegImagePlugin, PngImagePlugin, WebPImagePlugin
from storefront.services.platform.errors import ServiceError
from storefront.services.tryon import fitting
from storefront.services.tryon.engine import decode_photo

Image.init()
data = open(sys.argv[1], "rb").read()


def status(field):
    with open("/proc/self/status") as lines:
        return next(int(line.split()[1]) for line in lines if line.startswith(field + ":")) * 1024


with open("/proc/self/clear_refs", "w") as clear:
    clear.write("5")  # the peak so far (imports) is forgotten: VmHWM starts again from here
before = status("VmRSS")
try:
    result = CALL
    size = result.size if hasattr(result, "size") else Image.open(__import__("io").BytesIO(result)).size
    outcome = {"size": list(size)}
except ServiceError as refused:
    outcome = {"refused": refused.message}
outcome["grew"] = status("VmHWM") - before
print(json.dumps(outcome))
"""


def _measure(path: Path, call: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE.replace("CALL", call), str(path)],
        cwd=PROJECT_ROOT, capture_output=True, text=True, check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _saved(tmp_path: Path, image: Image.Image, fmt: str, **params: object) -> Path:
    out = io.BytesIO()
    image.save(out, fmt, **params)
    path = tmp_path / f"photo.{fmt.lower()}"
    path.write_bytes(out.getvalue())
    return path


def _canvas(width: int, height: int) -> Image.Image:
    """A photo-sized picture that compresses well (a gradient with a figure), made quickly."""
    image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    image.paste((30, 60, 200), (width // 3, height // 4, 2 * width // 3, height))
    return image


def test_a_6300_by_6300_png_of_100_kb_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    path = _saved(tmp_path, _canvas(6300, 6300), "PNG", optimize=True)
    assert path.stat().st_size < 1 * MB  # the attack: a small upload, 40 million pixels
    for call in ("decode_photo(data)", "fitting.prepare_photo(data)"):
        outcome = _measure(path, call)
        assert outcome.get("refused") == IMAGE_TOO_COSTLY, outcome
        assert outcome["grew"] < CEILING, outcome


@pytest.mark.parametrize(
    ("fmt", "size"),
    [
        ("PNG", (4032, 3024)),  # a 12-megapixel phone photo: the largest PNG the budget takes
        ("JPEG", (8000, 5000)),  # 40 megapixels: a JPEG is decoded at a fraction of its size
        ("JPEG", (19500, 2047)),  # long and thin: still scaled while it is decoded
        ("WEBP", (2048, 1536)),
        ("HEIF", (2560, 1920)),  # 4.9 megapixels
    ],
)
def test_a_photo_within_the_budget_is_decoded_small_and_costs_no_more_than_promised(
    tmp_path: Path, fmt: str, size: tuple[int, int]
) -> None:
    image = _canvas(*size)
    per_pixel = DECODE_BYTES_PER_PIXEL.get(fmt, 4)
    if fmt != "JPEG":
        assert size[0] * size[1] * per_pixel <= TRYON_DECODE_BYTES  # the photo is one the budget admits
    outcome = _measure(_saved(tmp_path, image, fmt), "decode_photo(data)")
    assert "refused" not in outcome, outcome
    width, height = outcome["size"]  # type: ignore[misc]
    assert TRYON_MAX_SIDE // 2 <= max(width, height) <= TRYON_MAX_SIDE
    assert abs(width / height - size[0] / size[1]) < 0.02
    assert outcome["grew"] < PROMISED, outcome


def test_the_budget_takes_a_phone_photo_and_refuses_twice_its_pixels() -> None:
    phone = Image.new("RGB", (4032, 3024))
    assert phone.width * phone.height * 4 <= TRYON_DECODE_BYTES < phone.width * phone.height * 8
