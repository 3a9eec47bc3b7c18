"""Designs for creating products in tests: PNGs with a transparent background, big enough to print sharp."""

from __future__ import annotations

import base64
import io
from functools import lru_cache

from PIL import Image, ImageDraw

#: Sharp on a tee's 4500 px wide front at full width: 150 dpi needs 2250 px.
SHARP_WIDTH, SHARP_HEIGHT = 2400, 2720


@lru_cache(maxsize=8)
def design_png(width: int = SHARP_WIDTH, height: int = SHARP_HEIGHT, colour: str = "#c8102e") -> bytes:
    """A PNG of a filled circle on a transparent background."""
    image = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    ImageDraw.Draw(image).ellipse((width // 8, height // 8, width * 7 // 8, height * 7 // 8), fill=colour)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def design_data_url(width: int = SHARP_WIDTH, height: int = SHARP_HEIGHT, colour: str = "#c8102e") -> str:
    """design_png as the data URL the create form sends."""
    return "data:image/png;base64," + base64.b64encode(design_png(width, height, colour)).decode("ascii")
