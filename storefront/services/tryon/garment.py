"""The garment of an item image, cut out and measured, for the local try-on engine.

`cut_garment(image)` answers a `Garment`: the garment alone (straight RGBA, cropped to its bounding
box, at most `MAX_GARMENT_SIZE` pixels on its long side) and its key points in those pixels.

The cut-out comes from the image's alpha channel when it has one that is really used (some pixels
transparent). Otherwise the background is estimated from the image border: one colour per row,
from the left and right border columns (so a vertical gradient backdrop works), blended across the
row; pixels close to it, or an evenly darker shade of it (a soft shadow: on the floor, or dropped
beside a flat-lay), connected to the border without crossing an edge of the image (Canny: the
garment's outline, so a white trim on a white backdrop stays), are background. The rest, largest
component kept, holes filled and lightly cleaned, is the garment, with a slightly feathered edge;
its outer few pixels take the colour from just inside (no fringe of the backdrop).

Key points are read off the silhouette's row and column profiles, not from known drawings:

- hem: the lowest rows of the torso (left, right and centre), at least three quarters as wide as
  the torso usually is (a sliver of soft edge under it is no hem);
- armpits: going up from a little above the hem, the row where the torso's run of pixels suddenly widens (the
  sleeve joins it), on each side;
- shoulder seams: the top of the silhouette above each armpit;
- neck: the top of the silhouette at the centre (the collar; the hood's top for a hoodie);
- cuffs: the centre of the open end of each sleeve (halfway between its outermost and lowest point);
- long sleeves: a sleeve longer than `LONG_SLEEVE_RATIO` of the shoulder-to-hem height.

"left" and "right" are the image's sides here. No garment (an empty mask, or one covering nearly
the whole image) raises `UnsupportedImage` for the item field, and so does a silhouette that is no
top seen from the front (`looks_like_a_top`: a landscape, a logo, a person). `GarmentCache` keeps the last few
garments cut, keyed by the SHA-256 of the item image's bytes.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
from PIL import Image

from storefront.services.tryon.engine import GARMENT_FIELD, UnsupportedImage

NO_GARMENT = "We could not find the garment in the item image."
NOT_A_TOP = (
    "The item image does not show a top from the front. Use a picture of one T-shirt, hoodie or "
    "sweatshirt, laid flat or on a plain background."
)
#: A top seen from the front is nearly mirror-symmetric (the silhouette and its mirror image overlap this much)...
MIN_SYMMETRY = 0.8
#: ...has notches (at the neck and under the arms), so it fills at most this share of its convex hull...
MAX_SOLIDITY = 0.95
#: ...lies inside the picture (at most this share of the picture's edge is garment)...
MAX_EDGE_SHARE = 0.15
#: ...and is neither a band nor a pole (width over height).
ASPECT_RANGE = (0.5, 2.0)
#: The cut-out is scaled down to at most this many pixels on its long side.
MAX_GARMENT_SIZE = 800
#: A sleeve longer than this share of the shoulder-to-hem height is a long sleeve.
LONG_SLEEVE_RATIO = 0.6
#: The garment must cover between these shares of the image.
MIN_GARMENT_AREA = 0.01
MAX_GARMENT_AREA = 0.97
#: Max RGB distance from the row's background colour still counted as background.
_BG_DISTANCE = 28.0
#: A shadow darkens the backdrop to no less than this share of its brightness.
_SHADOW_RATIO = 0.68
#: Canny's thresholds (L2 gradient of the 8-bit image) for the garment's outline: a soft shadow or
#: a gradient backdrop stays below the low one, an outline or a garment's edge is above the high one.
_EDGE_LOW, _EDGE_HIGH = 60, 140
DEFAULT_CACHE_SIZE = 32

Point = tuple[float, float]


@dataclass(frozen=True)
class GarmentPoints:
    """Key points of a garment, in cut-out pixels (x, y); left/right are the image's sides."""

    neck: Point
    left_shoulder: Point
    right_shoulder: Point
    left_armpit: Point
    right_armpit: Point
    hem_left: Point
    hem_right: Point
    hem_centre: Point
    left_cuff: Point
    right_cuff: Point
    long_sleeves: bool


@dataclass(frozen=True)
class Garment:
    """A garment cut out of its image: straight RGBA (uint8, H x W x 4) and its key points."""

    rgba: np.ndarray
    points: GarmentPoints
    #: Per row, the left and right edge (x) of the torso's run of pixels (NaN where none).
    torso_left: np.ndarray
    torso_right: np.ndarray
    #: Derived arrays an engine keeps with the garment (so they are cached with it too).
    derived: dict[str, np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    @property
    def alpha(self) -> np.ndarray:
        """The cut-out's alpha as float 0..1."""
        return self.rgba[..., 3].astype(np.float32) / 255.0

    @property
    def size(self) -> tuple[int, int]:
        """Width and height of the cut-out."""
        return self.rgba.shape[1], self.rgba.shape[0]

    def dominant_colour(self) -> tuple[int, int, int]:
        """The median colour of the garment's opaque pixels."""
        opaque = self.rgba[self.rgba[..., 3] > 200][:, :3]
        if not len(opaque):
            return (0, 0, 0)
        r, g, b = np.median(opaque, axis=0)
        return int(r), int(g), int(b)


def garment_mask(image: Image.Image) -> np.ndarray:
    """The garment's alpha (float 0..1, the image's size): its own alpha or the backdrop removed."""
    own = _own_alpha(image)
    return own if own is not None else _backdrop_removed(np.asarray(image.convert("RGB")))


def _own_alpha(image: Image.Image) -> np.ndarray | None:
    """The image's alpha (float 0..1) when it really uses one (some pixels transparent), else None."""
    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        alpha = np.asarray(image.convert("RGBA"))[..., 3]
        if (alpha < 128).mean() > 0.001:
            return alpha.astype(np.float32) / 255.0
    return None


def _without_fringe(rgb: np.ndarray, solid: np.ndarray) -> np.ndarray:
    """The garment's colours with its outer few pixels (mixed with the backdrop when it was cut
    from one: a light fringe on a white flat-lay) replaced by the nearest colour further inside."""
    h, w = solid.shape
    band = max(2, min(w, h) // 200)
    inside = cv2.erode(solid.astype(np.uint8), np.ones((2 * band + 1, 2 * band + 1), np.uint8))
    if inside.sum() < 0.5 * solid.sum():
        return rgb  # too thin to have an inside: keep it as it is
    _, labels = cv2.distanceTransformWithLabels(1 - inside, cv2.DIST_L2, 3, labelType=cv2.DIST_LABEL_PIXEL)
    ys, xs = np.nonzero(inside)
    source = np.zeros((int(labels.max()) + 1, 3), np.uint8)
    # Each zero pixel of the distance input (an inside pixel) has its own label, in scan order.
    source[labels[ys, xs]] = rgb[ys, xs]
    nearest = source[labels]
    out = rgb.copy()
    edge = ~inside.astype(bool)
    out[edge] = nearest[edge]
    return out


def _backdrop_removed(rgb: np.ndarray) -> np.ndarray:
    """Alpha of what is not the border-coloured backdrop (see the module docstring)."""
    h, w = rgb.shape[:2]
    img = rgb.astype(np.float32)
    k = max(2, min(w, h) // 100)
    left: np.ndarray = np.median(img[:, :k], axis=1)  # (h, 3)
    right: np.ndarray = np.median(img[:, -k:], axis=1)
    # Smooth the border colours down the rows, so a stray pixel at the border does not matter.
    left = cv2.GaussianBlur(left[:, None, :], (1, 0), sigmaX=0.1, sigmaY=max(1.0, h / 200))[:, 0, :]
    right = cv2.GaussianBlur(right[:, None, :], (1, 0), sigmaX=0.1, sigmaY=max(1.0, h / 200))[:, 0, :]
    t = np.linspace(0.0, 1.0, w, dtype=np.float32)[None, :, None]
    background = left[:, None, :] * (1 - t) + right[:, None, :] * t
    distance = np.sqrt(((img - background) ** 2).sum(axis=2))
    # Border noise raises the threshold a little (JPEG, textured paper).
    border = np.concatenate([distance[:, :k].ravel(), distance[:, -k:].ravel(), distance[:k].ravel()])
    threshold = max(_BG_DISTANCE, float(np.percentile(border, 99)) * 1.5)
    like = distance < threshold
    # A shadow (on the floor, or dropped beside a flat-lay): the backdrop darkened evenly (the same
    # ratio in each channel) and softly, so it never has an edge of its own.
    ratio = img / np.maximum(background, 1.0)
    even = (ratio.max(axis=2) - ratio.min(axis=2)) < 0.06
    darker = (ratio.mean(axis=2) > _SHADOW_RATIO) & (ratio.mean(axis=2) < 1.03)
    shadow = even & darker
    # A shadow is an area: a small opening drops lines a pixel wide (a faint outline) from it, and
    # keeps the shadow in a narrow gap (between a sleeve and the body).
    shadow = cv2.morphologyEx(shadow.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)).astype(bool)
    # The garment's outline stops the backdrop: a trim of the backdrop's colour (a white rib on a
    # white flat-lay) or a grey garment on its own shadow stays the garment.
    edges = cv2.dilate(cv2.Canny(rgb, _EDGE_LOW, _EDGE_HIGH, L2gradient=True), np.ones((3, 3), np.uint8)) > 0
    open_ground = (like | shadow) & ~edges
    # Background = backdrop-like pixels connected to the border without crossing an edge.
    _, labels = cv2.connectedComponents(open_ground.astype(np.uint8), connectivity=4)
    edge_labels = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    edge_labels = edge_labels[edge_labels > 0]
    background_mask = np.isin(labels, edge_labels)
    # The edge pixels on the backdrop's side of the outline (a pixel or two) are backdrop too.
    grow = (like | shadow) & ~background_mask
    for _ in range(2):
        background_mask |= grow & cv2.dilate(background_mask.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    garment: np.ndarray = (~background_mask).astype(np.uint8)
    r = max(1, min(w, h) // 300)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    garment = cv2.morphologyEx(garment, cv2.MORPH_OPEN, kernel)
    garment = _largest_component(garment)
    garment = _fill_holes(garment)
    soft = cv2.GaussianBlur(garment.astype(np.float32), (0, 0), sigmaX=max(0.6, r * 0.7))
    return np.clip(soft, 0.0, 1.0)


def _largest_component(mask: np.ndarray) -> np.ndarray:
    """The largest 8-connected component of a 0/1 mask (uint8)."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count <= 1:
        return mask
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return (labels == biggest).astype(np.uint8)


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    """The 0/1 mask with every region not reachable from the border filled."""
    h, w = mask.shape
    padded = np.zeros((h + 2, w + 2), np.uint8)
    padded[1:-1, 1:-1] = mask
    flood = padded.copy()
    cv2.floodFill(flood, np.zeros((h + 4, w + 4), np.uint8), (0, 0), 1)
    holes = flood[1:-1, 1:-1] == 0
    return (mask.astype(bool) | holes).astype(np.uint8)


def cut_garment(image: Image.Image) -> Garment:
    """The garment of an item image, cut out, cropped and measured; UnsupportedImage when none."""
    alpha = garment_mask(image)
    solid = alpha > 0.5
    share = float(solid.mean())
    if share < MIN_GARMENT_AREA or share > MAX_GARMENT_AREA:
        raise UnsupportedImage(NO_GARMENT, GARMENT_FIELD)
    solid_u8 = _largest_component(solid.astype(np.uint8))
    if not looks_like_a_top(solid_u8.astype(bool)):
        raise UnsupportedImage(NOT_A_TOP, GARMENT_FIELD)
    ys, xs = np.nonzero(solid_u8)
    pad = 2
    x0, x1 = max(0, xs.min() - pad), min(alpha.shape[1], xs.max() + pad + 1)
    y0, y1 = max(0, ys.min() - pad), min(alpha.shape[0], ys.max() + pad + 1)
    rgb = np.asarray(image.convert("RGB"))[y0:y1, x0:x1]
    if _own_alpha(image) is None:
        rgb = _without_fringe(rgb, solid_u8[y0:y1, x0:x1].astype(bool))
    keep = cv2.dilate(solid_u8, np.ones((5, 5), np.uint8))[y0:y1, x0:x1].astype(np.float32)
    a = np.round(alpha[y0:y1, x0:x1] * keep * 255).astype(np.uint8)
    rgba = np.dstack([rgb, a])
    long_side = max(rgba.shape[:2])
    if long_side > MAX_GARMENT_SIZE:
        scale = MAX_GARMENT_SIZE / long_side
        size = (max(1, round(rgba.shape[1] * scale)), max(1, round(rgba.shape[0] * scale)))
        rgba = cv2.resize(rgba, size, interpolation=cv2.INTER_AREA)
    points, torso_left, torso_right = measure(rgba[..., 3] > 127)
    return Garment(rgba=np.ascontiguousarray(rgba), points=points, torso_left=torso_left, torso_right=torso_right)


def looks_like_a_top(mask: np.ndarray) -> bool:
    """Whether a silhouette (bool, the picture's size) can be a top seen from the front: nearly
    symmetric, notched, inside the picture and of a top's proportions (a landscape, a logo, a
    person or an animal is not)."""
    edge = np.concatenate([mask[0], mask[-1], mask[:, 0], mask[:, -1]])
    if edge.mean() > MAX_EDGE_SHARE:
        return False
    ys, xs = np.nonzero(mask)
    box = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    height, width = box.shape
    if not ASPECT_RANGE[0] <= width / height <= ASPECT_RANGE[1]:
        return False
    mirrored = box[:, ::-1]
    if (box & mirrored).sum() / max(1, (box | mirrored).sum()) < MIN_SYMMETRY:
        return False
    contours, _ = cv2.findContours(box.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea)
    hull = cv2.contourArea(cv2.convexHull(outline))
    return hull > 0 and cv2.contourArea(outline) / hull <= MAX_SOLIDITY


def measure(mask: np.ndarray) -> tuple[GarmentPoints, np.ndarray, np.ndarray]:
    """Key points of a garment silhouette (bool H x W) and the torso's edges per row."""
    h, w = mask.shape
    rows = np.flatnonzero(mask.any(axis=1))
    cols = np.flatnonzero(mask.any(axis=0))
    if not len(rows):
        raise UnsupportedImage(NO_GARMENT, GARMENT_FIELD)
    top, bottom = int(rows[0]), int(rows[-1])
    cx = (cols[0] + cols[-1]) / 2.0
    # The torso's run: per row, the contiguous run of pixels around the centre column.
    c = round(float(cx))
    torso_left = np.full(h, np.nan)
    torso_right = np.full(h, np.nan)
    for y in range(top, bottom + 1):
        row = mask[y]
        if not row[c]:
            continue
        gaps_left = np.flatnonzero(~row[:c])
        gaps_right = np.flatnonzero(~row[c:])
        torso_left[y] = gaps_left[-1] + 1 if len(gaps_left) else 0
        torso_right[y] = c + gaps_right[0] - 1 if len(gaps_right) else w - 1
    filled = np.flatnonzero(~np.isnan(torso_left))
    if not len(filled):
        raise UnsupportedImage(NO_GARMENT, GARMENT_FIELD)
    # A sliver under the hem (a row or two of the cut's soft edge, a trace of a shadow) is no hem:
    # the torso ends at the lowest row at least three quarters as wide as the torso usually is.
    widths = torso_right[filled] - torso_left[filled]
    wide = filled[widths >= 0.75 * float(np.median(widths))]
    torso_left[wide[-1] + 1 :] = np.nan
    torso_right[wide[-1] + 1 :] = np.nan
    filled = filled[filled <= wide[-1]]
    height = bottom - top + 1
    hem_y = float(filled[-1])
    hem_row = int(max(filled[0], hem_y - max(1, round(height * 0.01))))
    hem_left = (float(torso_left[hem_row]), hem_y)
    hem_right = (float(torso_right[hem_row]), hem_y)
    left_armpit_y = _armpit_row(torso_left, filled, -1, w, top, height)
    right_armpit_y = _armpit_row(torso_right, filled, +1, w, top, height)
    left_armpit = (float(torso_left[left_armpit_y]), float(left_armpit_y))
    right_armpit = (float(torso_right[right_armpit_y]), float(right_armpit_y))
    top_profile = np.where(mask.any(axis=0), mask.argmax(axis=0), h)
    left_shoulder = (left_armpit[0], float(top_profile[round(left_armpit[0])]))
    right_shoulder = (right_armpit[0], float(top_profile[round(right_armpit[0])]))
    neck = (float(cx), float(top_profile[c]))
    # The sliver under the hem is no sleeve either.
    sleeves = mask.copy()
    sleeves[int(hem_y) + 1 :, int(hem_left[0]) : int(hem_right[0]) + 1] = False
    left_cuff = _cuff(sleeves, torso_left, left_armpit, left_shoulder, -1)
    right_cuff = _cuff(sleeves, torso_right, right_armpit, right_shoulder, +1)
    torso_height = hem_y - (left_shoulder[1] + right_shoulder[1]) / 2
    sleeve = max(
        np.hypot(left_cuff[0] - left_shoulder[0], left_cuff[1] - left_shoulder[1]),
        np.hypot(right_cuff[0] - right_shoulder[0], right_cuff[1] - right_shoulder[1]),
    )
    points = GarmentPoints(
        neck=neck,
        left_shoulder=left_shoulder,
        right_shoulder=right_shoulder,
        left_armpit=left_armpit,
        right_armpit=right_armpit,
        hem_left=hem_left,
        hem_right=hem_right,
        hem_centre=(float(cx), hem_y),
        left_cuff=left_cuff,
        right_cuff=right_cuff,
        long_sleeves=bool(sleeve > LONG_SLEEVE_RATIO * max(torso_height, 1.0)),
    )
    return points, torso_left, torso_right


def _armpit_row(edge: np.ndarray, filled: np.ndarray, outward: int, width: int, top: int, height: int) -> int:
    """Going up from the hem, the last row before the torso's edge jumps outward (a sleeve joins).

    Without such a jump (sleeves drawn against the body, a sleeveless top) the armpit is put at
    35 % of the garment's height."""
    jump = max(3.0, width * 0.02)
    # Bottom to top, from a little above the hem (a corner of the hem cut unevenly is no sleeve).
    rows = filled[filled <= filled[-1] - round(0.03 * height)][::-1]
    if not len(rows):
        rows = filled[::-1]
    previous = edge[rows[0]]
    for y in rows[1:]:
        value = edge[y]
        if (value - previous) * outward > jump:
            return int(y + 1) if not np.isnan(edge[y + 1]) else int(y)
        previous = value
    fallback = int(top + 0.35 * height)
    candidates = filled[filled >= fallback]
    return int(candidates[0]) if len(candidates) else int(filled[-1])


def _cuff(mask: np.ndarray, torso_edge: np.ndarray, armpit: Point, shoulder: Point, outward: int) -> Point:
    """The centre of the far end of the sleeve on one side (the armpit itself when there is none).

    Sleeve pixels are those beyond the armpit's column and (below the armpit) the torso's edge; the cuff is halfway
    between the sleeve's outermost and its lowest point."""
    ys, xs = np.nonzero(mask)
    ax, ay = armpit
    # Sleeve pixels: beyond the armpit's column on this side, and beyond the torso's edge of the row.
    edge = torso_edge[ys]
    # (By a little more than the cut's soft edge and what a shadow leaves beside it.)
    slack = max(1.0, 0.015 * mask.shape[1])
    beyond_edge = np.isnan(edge) | (ys <= ay) | ((xs - np.nan_to_num(edge)) * outward > slack)
    side = ((xs - ax) * outward > 1) & beyond_edge
    if side.sum() < 10:
        return armpit
    sx, sy = xs[side].astype(np.float64), ys[side].astype(np.float64)
    # The sleeve's outermost and lowest points are the two corners of its open end.
    outer = sx * outward >= (sx * outward).max() - 1.5
    low = sy >= sy.max() - 1.5
    return (
        float((sx[outer].mean() + sx[low].mean()) / 2),
        float((sy[outer].mean() + sy[low].mean()) / 2),
    )


class GarmentCache:
    """A thread-safe LRU of cut garments keyed by the SHA-256 of the item image's bytes."""

    def __init__(self, max_entries: int = DEFAULT_CACHE_SIZE) -> None:
        self._max = max_entries
        self._entries: OrderedDict[str, Garment] = OrderedDict()
        self._lock = threading.Lock()
        self.misses = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def get(self, data: bytes, load: Callable[[], Image.Image]) -> Garment:
        """The garment of `data`, cut from `load()` (the decoded image) the first time it is seen.

        Two threads asking for the same new garment at once may both cut it; one result is kept."""
        key = hashlib.sha256(data).hexdigest()
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        garment = cut_garment(load())
        with self._lock:
            self.misses += 1
            self._entries[key] = garment
            self._entries.move_to_end(key)
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return garment
