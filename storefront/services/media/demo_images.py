"""Pillow drawings of garments and collection tiles used as demo product images."""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Literal

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from storefront.services.collections import Collection

GarmentKind = Literal["tee", "hoodie", "crewneck"]
RGB = tuple[int, int, int]
Point = tuple[float, float]

#: zlib level for PNGs: as small as optimize=True within ~2 % on these flat drawings, at a quarter of the time.
_PNG_COMPRESS_LEVEL = 6
#: Drawings are made this many times larger and scaled down, which smooths their edges.
_SUPERSAMPLE = 2


# --------------------------------------------------------------------------- colours


def hex_to_rgb(value: str) -> RGB:
    """'#c8102e' or 'c8102e' (or the 3-digit form) as an (r, g, b) tuple."""
    raw = value.strip().lstrip("#")
    if len(raw) == 3:
        raw = "".join(ch * 2 for ch in raw)
    if len(raw) != 6:
        raise ValueError(f"not a hex colour: {value!r}")
    return (int(raw[0:2], 16), int(raw[2:4], 16), int(raw[4:6], 16))


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    """The colour t of the way from a to b."""
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def _shade(c: RGB, amount: float) -> RGB:
    """A darker (amount < 0) or lighter (amount > 0) version of the colour."""
    return _mix(c, (0, 0, 0), -amount) if amount < 0 else _mix(c, (255, 255, 255), amount)


def _luminance(c: RGB) -> float:
    """WCAG relative luminance of the colour."""

    def channel(v: int) -> float:
        """One sRGB channel linearised."""
        s = v / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c[0]) + 0.7152 * channel(c[1]) + 0.0722 * channel(c[2])


def _contrast(a: RGB, b: RGB) -> float:
    """WCAG contrast ratio between two colours (1..21)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _edge(c: RGB) -> RGB:
    """An outline colour that stays visible on the colour (darker, or grey on black)."""
    return _shade(c, 0.25) if _luminance(c) < 0.03 else _shade(c, -0.35)


def _background_for(primary: RGB) -> tuple[RGB, RGB]:
    """Top and bottom colours of a soft backdrop that is clearly not the garment colour."""
    top = _mix(primary, (255, 255, 255), 0.86)
    if _contrast(top, primary) < 1.35:  # white or very pale garments: use a cool grey studio wall
        top = (214, 219, 228)
    return top, _shade(top, -0.10)


# --------------------------------------------------------------------------- fonts and text


@lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """PIL's built-in font at `size` pixels (scalable since Pillow 10.1)."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: fixed bitmap font only
        return ImageFont.load_default()


def _fit_font(draw: ImageDraw.ImageDraw, text: str, max_w: float, max_h: float, stroke: int = 0):
    """The largest default font (and its size) whose rendering of `text` fits the box."""
    size = max(8, int(max_h))
    while size > 8:
        font = _font(size)
        left, top, right, bottom = draw.textbbox((0, 0), text, font=font, stroke_width=stroke)
        if right - left <= max_w and bottom - top <= max_h:
            return font, size
        size = int(size * 0.92)
    return _font(8), 8


def _draw_label(
    draw: ImageDraw.ImageDraw,
    text: str,
    centre: Point,
    max_w: float,
    max_h: float,
    fill: RGB,
    background: RGB,
) -> None:
    """Text centred at `centre`, as large as fits, outlined only when it would be hard to read."""
    if not text:
        return
    needs_outline = _contrast(fill, background) < 2.2
    bold = max(1, int(max_h * 0.025))  # a same-colour stroke makes the regular default font bold
    halo = bold + max(2, int(max_h * 0.05)) if needs_outline else bold
    font, _ = _fit_font(draw, text, max_w, max_h, halo)
    if needs_outline:
        outline = (20, 20, 20) if _luminance(fill) > 0.35 else (250, 250, 250)
        draw.text(centre, text, font=font, fill=outline, anchor="mm", stroke_width=halo, stroke_fill=outline)
    draw.text(centre, text, font=font, fill=fill, anchor="mm", stroke_width=bold, stroke_fill=fill)


# --------------------------------------------------------------------------- geometry helpers


class _Pen:
    """Draws in unit coordinates (0..1 of the canvas side) on a supersampled canvas."""

    def __init__(self, image: Image.Image) -> None:
        """Draw on `image` (square); units are fractions of its width."""
        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.s = image.width

    def p(self, pts: list[Point]) -> list[tuple[float, float]]:
        """Unit points as pixel points."""
        return [(x * self.s, y * self.s) for x, y in pts]

    def w(self, width: float) -> int:
        """A unit line width in whole pixels (at least 1)."""
        return max(1, round(width * self.s))

    def poly(self, pts: list[Point], fill: RGB | None, outline: RGB | None = None, width: float = 0.004) -> None:
        """A filled polygon with an optional smooth-jointed outline."""
        self.draw.polygon(self.p(pts), fill=fill)
        if outline is not None:
            closed = self.p(pts + pts[:1])
            self.draw.line(closed, fill=outline, width=self.w(width), joint="curve")

    def line(self, pts: list[Point], fill: RGB, width: float) -> None:
        """A polyline with rounded joints."""
        self.draw.line(self.p(pts), fill=fill, width=self.w(width), joint="curve")

    def ellipse(self, box: tuple[float, float, float, float], fill: RGB | None, outline: RGB | None = None,
                width: float = 0.004) -> None:
        """An ellipse inside the unit box (x0, y0, x1, y1)."""
        x0, y0, x1, y1 = box
        self.draw.ellipse(
            (x0 * self.s, y0 * self.s, x1 * self.s, y1 * self.s),
            fill=fill,
            outline=outline,
            width=self.w(width) if outline is not None else 0,
        )


def _arc_points(cx: float, cy: float, rx: float, ry: float, start_deg: float, end_deg: float,
                steps: int = 24) -> list[Point]:
    """Points along an elliptical arc (screen angles: 90° points down)."""
    out = []
    for i in range(steps + 1):
        a = math.radians(start_deg + (end_deg - start_deg) * i / steps)
        out.append((cx + rx * math.cos(a), cy + ry * math.sin(a)))
    return out


def _lerp(a: Point, b: Point, t: float) -> Point:
    """The point t of the way from a to b."""
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def _band(outer_a: Point, outer_b: Point, inner_a: Point, inner_b: Point, t: float) -> list[Point]:
    """Quad covering the last `t` of the strip from (inner_a, inner_b) to (outer_a, outer_b)."""
    return [outer_a, outer_b, _lerp(outer_b, inner_b, t), _lerp(outer_a, inner_a, t)]


def _ribs(pen: _Pen, a0: Point, a1: Point, b0: Point, b1: Point, colour: RGB, count: int) -> None:
    """Rib lines across a band whose long edges are a0->a1 and b0->b1."""
    for i in range(1, count):
        t = i / count
        pen.line([_lerp(a0, a1, t), _lerp(b0, b1, t)], colour, 0.0025)


# --------------------------------------------------------------------------- garments


def _mirror(pts: list[Point]) -> list[Point]:
    """The points mirrored around the vertical centre line, in reverse order."""
    return [(1 - x, y) for x, y in reversed(pts)]


def _draw_tee(pen: _Pen, body: RGB, trim: RGB, back: bool) -> tuple[Point, float, float]:
    """A short-sleeved T-shirt; returns chest centre, label width and label height."""
    edge = _edge(body)
    inside = _shade(body, -0.45)
    neck_l, neck_r = (0.415, 0.175), (0.585, 0.175)
    left = [
        (0.315, 0.205),  # shoulder
        (0.135, 0.345),  # sleeve top outer
        (0.205, 0.475),  # sleeve bottom outer
        (0.318, 0.405),  # armpit
        (0.312, 0.865),  # hem
    ]
    scoop = _arc_points(0.5, 0.175, 0.085, 0.025 if back else 0.065, 180, 0)
    scoop.reverse()  # from right to left along the bottom of the neckline
    # Back of the collar, seen through the neck opening (front view only).
    if not back:
        pen.ellipse((0.415, 0.155, 0.585, 0.195), trim, _edge(trim), 0.003)
        pen.ellipse((0.425, 0.165, 0.575, 0.20), inside)
    outline_pts = [neck_l] + left + _mirror(left) + [neck_r] + scoop[1:-1]
    pen.poly(outline_pts, body, edge, 0.004)
    # Collar rib along the neckline.
    pen.line([neck_l] + list(reversed(scoop[1:-1])) + [neck_r], trim, 0.02)
    # Sleeve hems: the band along each sleeve's open end.
    for sign in (False, True):
        sh, so, sb, arm = ((1 - x, y) if sign else (x, y) for x, y in left[:4])
        pen.poly(_band(so, sb, sh, arm, 0.16), trim, edge, 0.003)
    # Bottom hem.
    pen.poly([(0.312, 0.865), (0.688, 0.865), (0.6885, 0.835), (0.3125, 0.835)], trim, edge, 0.003)
    # A couple of soft folds.
    fold = _shade(body, -0.12)
    pen.line([(0.335, 0.45), (0.36, 0.62)], fold, 0.004)
    pen.line([(0.665, 0.45), (0.64, 0.62)], fold, 0.004)
    return (0.5, 0.36 if back else 0.43), 0.30, 0.13


def _long_sleeve_body(pen: _Pen, body: RGB, trim: RGB, neck_y: float) -> None:
    """The torso, long sleeves, ribbed cuffs and waistband shared by hoodie and crewneck."""
    edge = _edge(body)
    left = [
        (0.30, neck_y + 0.035),  # shoulder
        (0.215, 0.33),  # upper arm outer
        (0.165, 0.74),  # cuff outer
        (0.255, 0.755),  # cuff inner
        (0.29, 0.46),  # inner arm
        (0.315, 0.425),  # armpit
        (0.305, 0.87),  # hem
    ]
    pts = [(0.41, neck_y)] + left + _mirror(left) + [(0.59, neck_y)]
    pen.poly(pts, body, edge, 0.004)
    # Sleeve seam lines for definition.
    fold = _shade(body, -0.14)
    pen.line([(0.305, 0.42), (0.29, 0.46), (0.255, 0.74)], fold, 0.004)
    pen.line([(0.695, 0.42), (0.71, 0.46), (0.745, 0.74)], fold, 0.004)
    # Ribbed cuffs (drawn slightly past the sleeve end) and waistband.
    rib = _shade(trim, -0.18)
    for mirror in (False, True):
        a0, a1 = (0.168, 0.70), (0.259, 0.715)
        b0, b1 = (0.162, 0.785), (0.254, 0.80)
        if mirror:
            a0, a1, b0, b1 = (1 - a0[0], a0[1]), (1 - a1[0], a1[1]), (1 - b0[0], b0[1]), (1 - b1[0], b1[1])
        pen.poly([a0, a1, b1, b0], trim, _edge(trim), 0.003)
        _ribs(pen, a0, a1, b0, b1, rib, 7)
    w0, w1, w2, w3 = (0.305, 0.82), (0.695, 0.82), (0.70, 0.895), (0.30, 0.895)
    pen.poly([w0, w1, w2, w3], trim, _edge(trim), 0.003)
    _ribs(pen, w0, w1, w3, w2, rib, 26)


def _draw_hoodie(pen: _Pen, body: RGB, trim: RGB, back: bool) -> tuple[Point, float, float]:
    """A pullover hoodie with hood, drawstrings and kangaroo pocket; returns the label area."""
    edge = _edge(body)
    hood = _shade(body, -0.08)
    if back:
        _long_sleeve_body(pen, body, trim, 0.19)
        # The hood lies flat over the upper back, with a centre seam.
        shape = _arc_points(0.5, 0.20, 0.135, 0.09, 180, 360) + _arc_points(0.5, 0.20, 0.135, 0.22, 0, 180)
        pen.poly(shape, hood, edge, 0.004)
        pen.line([(0.5, 0.115), (0.5, 0.41)], _shade(body, -0.25), 0.004)
        return (0.5, 0.56), 0.30, 0.11
    # Hood behind the neck first, then the body, then the visible hood opening.
    pen.ellipse((0.355, 0.055, 0.645, 0.30), hood, edge, 0.004)
    _long_sleeve_body(pen, body, trim, 0.20)
    pen.ellipse((0.395, 0.085, 0.605, 0.295), trim, _edge(trim), 0.004)  # lining rim
    pen.ellipse((0.425, 0.11, 0.575, 0.27), _shade(body, -0.55))  # opening shadow
    # Hood front edges crossing at the neck.
    pen.poly([(0.395, 0.2), (0.5, 0.315), (0.41, 0.275)], hood, edge, 0.003)
    pen.poly([(0.605, 0.2), (0.5, 0.315), (0.59, 0.275)], hood, edge, 0.003)
    # Drawstrings with aglets.
    for x0, x1 in ((0.47, 0.462), (0.53, 0.538)):
        pen.line([(x0, 0.295), (x1, 0.405)], trim, 0.008)
        pen.line([(x1, 0.405), (x1 + (x1 - x0) * 0.2, 0.43)], _shade(trim, -0.35), 0.011)
    # Kangaroo pocket with curved side openings.
    pocket = [(0.385, 0.635), (0.615, 0.635), (0.655, 0.72), (0.665, 0.82), (0.335, 0.82), (0.345, 0.72)]
    pen.poly(pocket, _shade(body, -0.06), edge, 0.004)
    pen.line([(0.615, 0.635), (0.635, 0.70), (0.665, 0.72)], edge, 0.004)
    pen.line([(0.385, 0.635), (0.365, 0.70), (0.335, 0.72)], edge, 0.004)
    return (0.5, 0.525), 0.30, 0.115


def _draw_crewneck(pen: _Pen, body: RGB, trim: RGB, back: bool) -> tuple[Point, float, float]:
    """A long-sleeved crewneck sweatshirt with ribbed collar, cuffs and hem; returns the label area."""
    neck_y = 0.17
    if not back:
        pen.ellipse((0.41, 0.148, 0.59, 0.192), trim, _edge(trim), 0.003)
        pen.ellipse((0.42, 0.158, 0.58, 0.20), _shade(body, -0.45))
    _long_sleeve_body(pen, body, trim, neck_y)
    # Ribbed round collar.
    depth = 0.03 if back else 0.07
    outer = _arc_points(0.5, neck_y, 0.09, depth + 0.02, 0, 180)
    inner = _arc_points(0.5, neck_y, 0.09, depth - 0.005, 0, 180)
    rib = _shade(trim, -0.18)
    pen.poly(outer + list(reversed(inner)), trim, _edge(trim), 0.003)
    for i in range(1, 18):
        t = i / 18
        a = math.radians(180 * t)
        pen.line(
            [(0.5 + 0.09 * math.cos(a), neck_y + (depth - 0.005) * math.sin(a)),
             (0.5 + 0.09 * math.cos(a), neck_y + (depth + 0.02) * math.sin(a))],
            rib, 0.0022,
        )
    # Raglan-style seams from collar to underarm.
    seam = _shade(body, -0.14)
    pen.line([(0.415, neck_y + 0.04), (0.315, 0.42)], seam, 0.004)
    pen.line([(0.585, neck_y + 0.04), (0.685, 0.42)], seam, 0.004)
    return (0.5, 0.40 if back else 0.44), 0.32, 0.13


_DRAWERS: dict[str, Callable[[_Pen, RGB, RGB, bool], tuple[Point, float, float]]] = {
    "tee": _draw_tee,
    "hoodie": _draw_hoodie,
    "crewneck": _draw_crewneck,
}


def _draw_garment(image: Image.Image, kind: str, primary: RGB, secondary: RGB, label: str, back: bool) -> None:
    """Draw the garment and its label over the whole (square) image."""
    if kind not in _DRAWERS:
        raise ValueError(f"unknown garment kind: {kind!r}")
    pen = _Pen(image)
    centre, max_w, max_h = _DRAWERS[kind](pen, primary, secondary, back)
    if back:
        max_w, max_h = max_w * 0.8, max_h * 0.75
    big = image.width
    _draw_label(pen.draw, label, (centre[0] * big, centre[1] * big), max_w * big, max_h * big, secondary, primary)


def _garment_layer(kind: str, primary: RGB, secondary: RGB, label: str, size: int, back: bool) -> Image.Image:
    """The garment alone on a transparent RGBA canvas of size x size."""
    layer = Image.new("RGBA", (size * _SUPERSAMPLE, size * _SUPERSAMPLE), (0, 0, 0, 0))
    _draw_garment(layer, kind, primary, secondary, label, back)
    return layer.reduce(_SUPERSAMPLE) if _SUPERSAMPLE > 1 else layer


def _vertical_gradient(size: tuple[int, int], top: RGB, bottom: RGB) -> Image.Image:
    """An RGB image fading from `top` to `bottom`."""
    w, h = size
    column = Image.new("RGB", (1, 256))
    column.putdata([_mix(top, bottom, i / 255) for i in range(256)])
    # Stretch the column first, then widen it with NEAREST: much faster than one 2-D resize.
    return column.resize((1, h), Image.Resampling.BILINEAR).resize((w, h), Image.Resampling.NEAREST)


def _diagonal_gradient(size: tuple[int, int], a: RGB, b: RGB) -> Image.Image:
    """An RGB image fading from `a` (top left) to `b` (bottom right)."""
    w, h = size
    small = Image.new("RGB", (64, 64))
    small.putdata([_mix(a, b, (x + y) / 126) for y in range(64) for x in range(64)])
    return small.resize((w, h), Image.Resampling.BICUBIC)


def _paste_with_shadow(canvas: Image.Image, layer: Image.Image, pos: tuple[int, int]) -> None:
    """Composite an RGBA layer onto the canvas with a soft drop shadow below it."""
    alpha = layer.getchannel("A")
    shadow = Image.new("RGBA", layer.size, (0, 0, 0, 0))
    shadow.putalpha(alpha.point(lambda v: v * 70 // 255).filter(ImageFilter.GaussianBlur(layer.width / 60)))
    offset = max(2, layer.width // 70)
    canvas.alpha_composite(shadow, (pos[0] + offset, pos[1] + offset * 2))
    canvas.alpha_composite(layer, pos)


@lru_cache(maxsize=4)
def _floor_shadow(size: int) -> Image.Image:
    """Mask ("L") of the blurred floor shadow for the bottom 20 % of a size x size image."""
    small = max(16, size // 8)
    strip = Image.new("L", (small, small // 5), 0)
    ImageDraw.Draw(strip).ellipse((small * 0.24, small * 0.07, small * 0.76, small * 0.15), fill=55)
    strip = strip.filter(ImageFilter.GaussianBlur(small / 90))
    return strip.resize((size, size // 5), Image.Resampling.BICUBIC)


def _backdrop(size: int, top: RGB, bottom: RGB) -> Image.Image:
    """The soft gradient wall with a shadow on the floor."""
    canvas = _vertical_gradient((size, size), top, bottom)
    shadow = _floor_shadow(size)
    canvas.paste((0, 0, 0), (0, size - shadow.height), mask=shadow)
    return canvas


def render_garment(
    kind: GarmentKind,
    primary: str,
    secondary: str,
    label: str,
    size: int = 800,
    *,
    back: bool = False,
) -> Image.Image:
    """A square RGB picture of a tee, hoodie or crewneck in `primary` with `secondary` trim and label."""
    body, trim = hex_to_rgb(primary), hex_to_rgb(secondary)
    top, bottom = _background_for(body)
    canvas = _backdrop(size * _SUPERSAMPLE, top, bottom)
    _draw_garment(canvas, kind, body, trim, label, back)
    return canvas.reduce(_SUPERSAMPLE) if _SUPERSAMPLE > 1 else canvas


def render_garment_cutout(
    kind: GarmentKind,
    primary: str,
    secondary: str,
    label: str,
    size: int = 800,
) -> Image.Image:
    """The front of the garment of `render_garment` alone on a transparent RGBA canvas (for try-on)."""
    return _garment_layer(kind, hex_to_rgb(primary), hex_to_rgb(secondary), label, size, False)


def render_collection_tile(collection: Collection, size: tuple[int, int] = (800, 600)) -> Image.Image:
    """A home-page tile: gradient in the collection colours, two garments and the collection title."""
    w, h = size
    primary, secondary = hex_to_rgb(collection.primary), hex_to_rgb(collection.secondary)
    canvas = _diagonal_gradient(size, _shade(primary, -0.15), _mix(primary, secondary, 0.55)).convert("RGBA")
    # Two garments: a hoodie in the collection colours and a tee with the colours swapped.
    g = int(min(w * 0.62, h * 0.95))
    hoodie = _garment_layer("hoodie", primary, secondary, collection.label, g, False)
    tee = _garment_layer("tee", secondary, primary, collection.label, int(g * 0.86), False)
    _paste_with_shadow(canvas, tee, (int(w * 0.50 - tee.width * 0.08), int(h * 0.02)))
    _paste_with_shadow(canvas, hoodie, (int(w * 0.5 - g * 0.82), int(h * -0.04)))
    # Title band along the bottom.
    band_h = int(h * 0.22)
    band = Image.new("RGBA", (w, band_h), (*_shade(primary, -0.6), 200))
    canvas.alpha_composite(band, (0, h - band_h))
    draw = ImageDraw.Draw(canvas)
    title_colour = secondary if _contrast(secondary, _shade(primary, -0.6)) >= 3 else (255, 255, 255)
    _draw_label(draw, collection.title, (w / 2, h - band_h * 0.62), w * 0.9, band_h * 0.42, title_colour,
                _shade(primary, -0.6))
    _draw_label(draw, collection.tagline, (w / 2, h - band_h * 0.22), w * 0.8, band_h * 0.2,
                (235, 235, 235), _shade(primary, -0.6))
    return canvas.convert("RGB")


def ensure_png(path: Path, render: Callable[[], Image.Image]) -> bool:
    """Write render() to `path` as a compressed PNG unless the file exists; True when written."""
    path = Path(path)
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    image = render()
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".png.tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            image.save(handle, format="PNG", compress_level=_PNG_COMPRESS_LEVEL)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    return True
