"""A design drawn on a blank's picture where it is placed: the demo provider's mockups and the
create form's preview.

The print area of a side is drawn as a box on the chest of the square garment pictures of
`demo_images` (PRINT_BOX, fractions of the picture); a placement's x and y are the design's centre
in that box and scale its width as a share of the box's width, as Printify's are.
"""

from __future__ import annotations

from PIL import Image

#: The print area on a garment picture: left, top, width, height as fractions of its side.
PRINT_BOX = (0.335, 0.27, 0.33, 0.374)


def place_design(
    garment: Image.Image, design: Image.Image, x: float, y: float, scale: float, angle: int = 0
) -> Image.Image:
    """The garment picture with the design over its print area (what falls outside is cut off)."""
    side = garment.width
    left, top, width, height = (round(part * side) for part in PRINT_BOX)
    box = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    layer = design.convert("RGBA")
    placed_width = max(1, round(width * scale))
    placed_height = max(1, round(layer.height * placed_width / layer.width))
    layer = layer.resize((placed_width, placed_height), Image.Resampling.LANCZOS)
    if angle:
        layer = layer.rotate(-angle, resample=Image.Resampling.BICUBIC, expand=True)
    _paste_clipped(box, layer, x, y)
    picture = garment.convert("RGBA")
    picture.alpha_composite(box, (left, top))
    return picture.convert(garment.mode) if garment.mode != "RGBA" else picture


def _paste_clipped(box: Image.Image, layer: Image.Image, x: float, y: float) -> None:
    """Paste the part of `layer` that falls inside `box` (alpha_composite takes no negative offsets)."""
    left, top = round(x * box.width - layer.width / 2), round(y * box.height - layer.height / 2)
    crop = (max(0, -left), max(0, -top), min(layer.width, box.width - left), min(layer.height, box.height - top))
    if crop[2] <= crop[0] or crop[3] <= crop[1]:
        return
    box.alpha_composite(layer.crop(crop), (max(0, left), max(0, top)))
