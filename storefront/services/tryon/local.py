"""The local try-on engine: the garment cut out of its image and warped onto the photo, on the CPU.

No model is trained or downloaded: MediaPipe (see `pose.py`) finds the body's key points and
two person masks, `garment.py` cuts the garment out of the item image and measures it, `body.py`
reads the photo (outline, what is in front, light), and this module places the garment:

- the torso, by a thin-plate spline (`warp.py`, `_torso_fit`): it starts from a perspective
  transform taking the garment's shoulder seams to the top of the body's outline above the
  shoulder joints (the landmarks are joint centres; we move out and up to the outline's edge) and
  its hem a little below the hips (extrapolated from the shoulder width when the hips are out of
  the frame or hidden); then each side of the garment (armpit, waist, hem) moves in to the
  body's outline where the body is narrower;
- each sleeve, by a rotation (and the torso's scale) about a hinge near its shoulder seam so that
  it follows the upper arm, drawn under the torso's side; a long sleeve ends at a visible wrist,
  and is bent at the elbow to follow the forearm (in front of the body) when the bend is gentle
  (`MAX_ELBOW_BEND`); a sharper bend leaves the forearm to the photo.

The garment is then clipped to the person's outline (`body.silhouette`, a pixel of slack), kept
off the face and neck (above the collar), off the visible arms below short sleeves, and off the
hands, forearms and hair in front of the body (`body.in_front`, `body.hair`). The photo's light
goes onto the garment: its shading (`body.shading`), its white balance and its grain.

The work is done with the person photo scaled down so its long side is at most `work_size`
(default 1024; smaller photos are not scaled up: it would add cost and no detail). The garment
layer (premultiplied RGBA) is then scaled to the photo's own size and composited onto the original
upright photo, so the output has the input's size and every pixel away from the garment is the
photo's own. The output is PNG (lossless, so the face is untouched bit for bit).

The engine is thread-safe: the pose graph runs behind a lock (so concurrent calls queue for that
step, about 30 ms), the garment cache has its own lock, the rest is per call. It raises only the
errors of `engine.py`; anything unexpected is logged and raised as `EngineFailed`.
"""

from __future__ import annotations

import hashlib
import io
import logging
import math
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image

from storefront.services.platform.errors import ValidationError
from storefront.services.tryon import body
from storefront.services.tryon.engine import EngineFailed, decode_inputs
from storefront.services.tryon.garment import Garment, GarmentCache
from storefront.services.tryon.pose import PoseDetector, PoseResult, shared_detector
from storefront.services.tryon.warp import ThinPlateSpline, warp_into

logger = logging.getLogger(__name__)

DEFAULT_WORK_SIZE = 1024
#: PNG compression level of the result (1 fastest .. 9 smallest).
PNG_COMPRESS_LEVEL = 3
#: Torso length (shoulder joints to hip joints) in shoulder widths, when the hips cannot be seen.
TORSO_LENGTH = 1.3
#: Where the hem goes below the hip joints, in shoulder widths.
HEM_BELOW_HIPS = 0.2
#: A side of the garment moves in to the body's outline by at most this share of its half-width.
MAX_TAKE_IN = 0.3
#: How far out of the shoulder joint the shoulder seam sits, in shoulder widths.
SEAM_OUTSET = 0.07
#: A long sleeve follows the forearm only up to this bend at the elbow (radians); a sharper bend
#: (an arm folded across the body) would tear the flat sleeve apart, so it stays straight.
MAX_ELBOW_BEND = math.radians(60)
#: A long sleeve is stretched or shrunk along the arm to end at the wrist by at most this share.
MAX_SLEEVE_STRETCH = 0.3
#: A sleeve turns about the point this far down its opening (seam 0, armpit 1): near the seam, so
#: the shoulder's outline stays closed when the sleeve swings down.
HINGE = 0.3
#: The torso part keeps this much (share of the garment's width) of each sleeve's start, under
#: the turned sleeve, so no gap opens at the shoulder.
SLEEVE_STUB = 0.08


@dataclass(frozen=True)
class _Side:
    """One side of the body in image terms (`sign` -1 for the image's left), in work pixels."""

    sign: int
    shoulder: np.ndarray
    elbow: np.ndarray
    wrist: np.ndarray
    elbow_seen: float
    wrist_seen: float


class LocalTryOnEngine:
    """TryOnEngine on the CPU (module docstring): MediaPipe pose + a warped garment cut-out.

    `work_size`: the long side (pixels) the photo is scaled down to for the work.
    `detector`: the pose detector (default: the process-wide one, one MediaPipe graph per process).
    `cache`: the garment cache (default: a new one of 32 entries, held by the engine)."""

    def __init__(
        self,
        *,
        work_size: int = DEFAULT_WORK_SIZE,
        detector: PoseDetector | None = None,
        cache: GarmentCache | None = None,
    ) -> None:
        if work_size < 128:
            raise ValueError("work_size must be at least 128 pixels")
        self.work_size = work_size
        self._detector = detector or shared_detector()
        self.cache = cache or GarmentCache()

    def __repr__(self) -> str:
        return f"LocalTryOnEngine(work_size={self.work_size})"

    def warm_up(self) -> None:
        """Load the pose models now, so the first shopper does not wait for them."""
        self._detector.warm_up()

    def generate(self, person: bytes, garment: bytes) -> bytes:
        """PNG bytes of the person wearing the garment, the size of the (upright) photo."""
        photo, item = decode_inputs(person, garment)
        try:
            return self._generate(photo, item, garment)
        except (ValidationError, EngineFailed):  # the photo's problems, with their messages
            raise
        except Exception:
            logger.exception("local try-on failed")
            raise EngineFailed() from None

    # -- the steps -----------------------------------------------------------------------------

    def _generate(self, photo: Image.Image, item: Image.Image, garment_bytes: bytes) -> bytes:
        dressed = self.layer(photo, item, garment_bytes)
        return _composite_png(photo, dressed.premul, dressed.alpha)

    def layer(self, photo: Image.Image, item: Image.Image, garment_bytes: bytes) -> Dressed:
        """The garment layer over the photo at the work size (before it is composited), with what
        it was fitted to; `generate` composites it, the quality bench measures it."""
        width, height = photo.size
        scale = min(1.0, self.work_size / max(width, height))
        rgb = np.asarray(photo.convert("RGB"))
        if scale < 1.0:
            size = (max(1, round(width * scale)), max(1, round(height * scale)))
            work = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
        else:
            work = rgb
        pose = self._detector.detect(work)
        garment = self.cache.get(garment_bytes, lambda: item)
        premul, alpha = dress(work, pose, garment)
        return Dressed(work, pose, garment, premul, alpha)


@dataclass(frozen=True)
class Dressed:
    """The garment layer fitted to a photo, at the work size."""

    work: np.ndarray  #: the photo, RGB uint8, at the work size
    pose: PoseResult
    garment: Garment
    premul: np.ndarray  #: the garment's colour premultiplied by its alpha (H x W x 3, 0..1)
    alpha: np.ndarray  #: the garment's coverage (H x W, 0..1)


def dress(work: np.ndarray, pose: PoseResult, garment: Garment) -> tuple[np.ndarray, np.ndarray]:
    """The garment layer over `work` (RGB uint8): premultiplied colour (H x W x 3, 0..1) and alpha."""
    h, w = work.shape[:2]
    left, right = _sides(pose)
    sw = float(np.linalg.norm(right.shoulder - left.shoulder))
    across = (right.shoulder - left.shoulder) / max(sw, 1e-6)
    down = body.down_direction(left.shoulder, right.shoulder)
    mid = (left.shoulder + right.shoulder) / 2
    if pose.visible("left_hip") and pose.visible("right_hip"):
        hips = (pose.points["left_hip"].xy + pose.points["right_hip"].xy) / 2
        if np.dot(hips - mid, down) < 0.6 * sw:  # implausibly short torso: do not trust it
            hips = mid + down * TORSO_LENGTH * sw
    else:
        hips = mid + down * TORSO_LENGTH * sw
    person = body.silhouette(work, pose, sw)
    seam_l = _shoulder_top(person, left.shoulder, -across, down, sw)
    seam_r = _shoulder_top(person, right.shoulder, across, down, sw)
    p = garment.points
    g_seam_l, g_seam_r = np.array(p.left_shoulder), np.array(p.right_shoulder)
    g_hem_l, g_hem_r = np.array(p.hem_left), np.array(p.hem_right)
    g_seam_w = max(float(np.linalg.norm(g_seam_r - g_seam_l)), 1.0)
    sx = float(np.linalg.norm(seam_r - seam_l)) / g_seam_w  # garment pixels -> work pixels
    hem_centre = hips + down * HEM_BELOW_HIPS * sw
    hem_half = float(np.linalg.norm(g_hem_r - g_hem_l)) * sx / 2
    hem_l, hem_r = hem_centre - across * hem_half, hem_centre + across * hem_half
    src = np.array([g_seam_l, g_seam_r, g_hem_r, g_hem_l], dtype=np.float32)
    dst = np.array([seam_l, seam_r, hem_r, hem_l], dtype=np.float32)
    start = cv2.getPerspectiveTransform(src, dst)  # the garment squared to the body: the fit starts here
    forward, backward, box = _torso_fit(garment, start, person, mid, across, down, sw)

    layers = _garment_parts(garment)
    g_premul = layers["premul"]
    # Torso (with the collar hole cut) first, then each sleeve over it.
    out = warp_into(g_premul * layers["torso"][..., None], backward, (w, h), box)
    arm_keep_out = np.zeros((h, w), np.uint8)
    in_front: list[np.ndarray] = []
    for side, opening, cuff, part in (
        (left, _hinge(g_seam_l, np.array(p.left_armpit)), np.array(p.left_cuff), layers["left"]),
        (right, _hinge(g_seam_r, np.array(p.right_armpit)), np.array(p.right_cuff), layers["right"]),
    ):
        pivot = forward(opening[None, :])[0]
        under, over, sleeve_end = _sleeve(g_premul * part[..., None], opening, cuff, side, pivot, sx, down,
                                          p.long_sleeves, (w, h))
        for layer in under:
            out = out + layer * (1.0 - out[..., 3:4])  # under the torso: a sleeve comes out from behind its side
        in_front += over
        _mark_arm(arm_keep_out, side, sleeve_end, sw, p.long_sleeves)
    for layer in in_front:
        out = layer + out * (1.0 - layer[..., 3:4])

    # Clip to the person (a pixel of slack for loose fabric), off the head, the bare arms and the
    # hands and forearms in front of the body.
    slack = cv2.dilate(person, np.ones((3, 3), np.uint8))
    keep_out = np.maximum(_head_mask(pose, (w, h), sw), arm_keep_out.astype(np.float32))
    keep_out = cv2.GaussianBlur(keep_out, (0, 0), sigmaX=max(1.0, 0.006 * sw))
    # What is in front keeps its own edge: the garment's soft edge falls just outside it.
    front = np.maximum(body.in_front(work, pose, person, sw), body.hair(work, pose, person, sw))
    front = cv2.dilate(front, np.ones((5, 5), np.uint8))
    keep_out = np.maximum(keep_out, cv2.GaussianBlur(front, (0, 0), sigmaX=1.0))
    out = out * (slack * (1.0 - keep_out))[..., None]

    alpha = np.ascontiguousarray(out[..., 3])
    light = body.shading(work, alpha, person, sw)[..., None] * body.white_balance(work)[None, None, :]
    premul = out[..., :3] * light
    sigma = body.grain(work, person)
    if sigma > 0.002:
        noise = np.random.default_rng(_seed(work)).normal(0.0, sigma, (h, w, 1)).astype(np.float32)
        premul = premul + noise * alpha[..., None]
    return np.clip(premul, 0.0, alpha[..., None]), np.clip(alpha, 0.0, 1.0)


def _seed(work: np.ndarray) -> int:
    """A seed from the photo, so the same photo gets the same grain (results repeat exactly)."""
    return int(np.frombuffer(hashlib.blake2b(work[::17, ::17].tobytes(), digest_size=8).digest(), np.uint64)[0])


def _torso_fit(
    garment: Garment,
    start: np.ndarray,
    person: np.ndarray,
    mid: np.ndarray,
    across: np.ndarray,
    down: np.ndarray,
    sw: float,
) -> tuple[ThinPlateSpline, ThinPlateSpline, tuple[int, int, int, int]]:
    """The torso's warp (garment -> photo, photo -> garment) and the photo box it covers.

    Control points: the shoulder seams, the collar, the chest and hem centres, and each side at
    the armpit, the waist and the hem. They start where `start` (a perspective transform taking the
    seams to the shoulders and the hem below the hips) puts them; each side point then moves in
    to the body's outline where the body is narrower there (never out: an arm hanging beside the
    body is not the torso), by at most `MAX_TAKE_IN` of its distance from the middle."""
    p = garment.points
    g_seam_y = (p.left_shoulder[1] + p.right_shoulder[1]) / 2
    waist_y = (p.left_armpit[1] + p.right_armpit[1]) / 4 + p.hem_centre[1] / 2
    sides = [
        np.array(p.left_armpit), np.array(p.right_armpit),
        np.array([_edge_at(garment.torso_left, waist_y), waist_y]),
        np.array([_edge_at(garment.torso_right, waist_y), waist_y]),
        np.array(p.hem_left), np.array(p.hem_right),
    ]
    fixed = [
        np.array(p.left_shoulder), np.array(p.right_shoulder), np.array(p.neck),
        np.array(p.hem_centre), np.array([p.neck[0], (g_seam_y + p.hem_centre[1]) / 2]),
    ]
    src = np.array(fixed + sides, np.float64)
    dst = cv2.perspectiveTransform(src.reshape(-1, 1, 2).astype(np.float32), start).reshape(-1, 2).astype(np.float64)
    for i in range(len(fixed), len(src)):
        dst[i] = _take_in(person, dst[i], mid, across, down, sw)
    forward = ThinPlateSpline(src, dst)
    backward = ThinPlateSpline(dst, src)
    gh, gw = garment.rgba.shape[:2]
    corners = np.array([[0, 0], [gw, 0], [gw, gh], [0, gh]], dtype=np.float32).reshape(-1, 1, 2)
    reach = np.vstack([forward(corners.reshape(-1, 2)), dst])
    pad = 0.1 * sw
    x0, y0 = np.floor(reach.min(axis=0) - pad).astype(int)
    x1, y1 = np.ceil(reach.max(axis=0) + pad).astype(int)
    return forward, backward, (int(x0), int(y0), int(x1), int(y1))


def _edge_at(edge: np.ndarray, y: float) -> float:
    """The torso's edge (x) at row `y`, or at the nearest row that has one."""
    rows = np.flatnonzero(~np.isnan(edge))
    row = rows[np.argmin(np.abs(rows - y))]
    return float(edge[row])


def _take_in(person: np.ndarray, point: np.ndarray, mid: np.ndarray, across: np.ndarray, down: np.ndarray,
             sw: float) -> np.ndarray:
    """`point` (a side of the garment) moved in to the body's outline where the body is narrower."""
    centre = mid + down * float(np.dot(point - mid, down))
    half = float(np.dot(point - centre, across))
    outward = across if half >= 0 else -across
    half = abs(half)
    if half < 1:
        return point
    steps = np.linspace(0.0, half, 64)
    values = _sample(person, centre[None, :] + outward[None, :] * steps[:, None])
    if values[0] < 0.5:  # the middle is not on the body here: nothing to follow
        return point
    outside = np.flatnonzero(values < 0.5)
    if not len(outside):
        return point
    taken = max(float(steps[outside[0]]) + 0.01 * sw, (1 - MAX_TAKE_IN) * half)
    return centre + outward * taken if taken < half else point


def _sides(pose: PoseResult) -> tuple[_Side, _Side]:
    """The body's two sides ordered by the image: (image left, image right)."""
    sides = []
    for name in ("left", "right"):
        pts = pose.points
        sides.append(
            _Side(
                sign=0,
                shoulder=pts[f"{name}_shoulder"].xy,
                elbow=pts[f"{name}_elbow"].xy,
                wrist=pts[f"{name}_wrist"].xy,
                elbow_seen=pts[f"{name}_elbow"].visibility,
                wrist_seen=pts[f"{name}_wrist"].visibility,
            )
        )
    sides.sort(key=lambda s: s.shoulder[0])
    a, b = sides
    return (
        _Side(-1, a.shoulder, a.elbow, a.wrist, a.elbow_seen, a.wrist_seen),
        _Side(+1, b.shoulder, b.elbow, b.wrist, b.elbow_seen, b.wrist_seen),
    )


def _sample(mask: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """The mask at points (N x 2, x y), 0 outside the image (nearest pixel)."""
    h, w = mask.shape
    x = np.round(pts[:, 0]).astype(int)
    y = np.round(pts[:, 1]).astype(int)
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    values = np.zeros(len(pts), np.float32)
    values[inside] = mask[y[inside], x[inside]]
    return values


def _shoulder_top(mask: np.ndarray, joint: np.ndarray, outward: np.ndarray, down: np.ndarray, sw: float) -> np.ndarray:
    """Where the garment's shoulder seam goes: out of the joint, then up to the mask's top edge.

    Out: part of the way to the body's outer edge at the joint's height (between `SEAM_OUTSET`
    and 20 % of the shoulder width, so bulky clothes widen the garment a little). Up: to the
    mask's edge, climbing between 5 % and 30 % of the shoulder width (long hair or a high collar
    in the mask would otherwise lift it away)."""
    steps = np.linspace(0.0, 0.6 * sw, 64)
    values = _sample(mask, joint[None, :] + outward[None, :] * steps[:, None])
    outside = np.flatnonzero(values < 0.5)
    edge = steps[outside[0]] if len(outside) else 0.2 * sw
    start = joint + outward * float(np.clip(0.5 * edge, SEAM_OUTSET * sw, 0.2 * sw))
    steps = np.linspace(0.0, 0.45 * sw, 64)
    values = _sample(mask, start[None, :] - down[None, :] * steps[:, None])
    outside = np.flatnonzero(values < 0.5)
    climb = steps[outside[0]] if len(outside) else 0.2 * sw
    climb = float(np.clip(climb, 0.05 * sw, 0.3 * sw))
    return start - down * climb


def _garment_parts(garment: Garment) -> dict[str, np.ndarray]:
    """The garment premultiplied (H x W x 4 float, 0..1) and its part masks: torso, left, right.

    A sleeve is what lies beyond the line from its shoulder seam to its armpit (above the armpit)
    or beyond the torso's edge (below it). The torso keeps the first stretch of each sleeve, so no
    gap opens when the sleeve turns, and loses the collar hole (the neck shows through) and what
    rises well above the shoulder line (a hood, the back of the collar)."""
    if "torso" in garment.derived:
        return garment.derived
    rgba = garment.rgba.astype(np.float32) / 255.0
    premul = np.concatenate([rgba[..., :3] * rgba[..., 3:4], rgba[..., 3:4]], axis=2)
    gh, gw = rgba.shape[:2]
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    p = garment.points
    parts: dict[str, np.ndarray] = {"premul": premul}
    sleeve_any = np.zeros((gh, gw), bool)
    for name, seam, armpit, edge, sign in (
        ("left", p.left_shoulder, p.left_armpit, garment.torso_left, -1),
        ("right", p.right_shoulder, p.right_armpit, garment.torso_right, +1),
    ):
        (sx_, sy_), (ax, ay) = seam, armpit
        # Signed distance beyond the seam-armpit line, outward positive.
        nx, ny = ay - sy_, -(ax - sx_)
        norm = math.hypot(nx, ny) or 1.0
        nx, ny = nx / norm, ny / norm
        if (p.hem_centre[0] - sx_) * nx + (p.hem_centre[1] - sy_) * ny > 0:
            nx, ny = -nx, -ny
        beyond = (xs - sx_) * nx + (ys - sy_) * ny
        row_edge = edge[np.clip(ys.astype(int), 0, gh - 1)]
        below = (ys > ay) & (np.isnan(row_edge) | ((xs - np.nan_to_num(row_edge)) * sign > 1))
        sleeve = ((ys <= ay) & (beyond > 0)) | below
        parts[name] = sleeve.astype(np.float32)
        sleeve_any |= sleeve & ~((ys <= ay) & (beyond < SLEEVE_STUB * gw))
    # The collar hole: an ellipse below the neck, between the seams, and everything above it.
    seam_w = p.right_shoulder[0] - p.left_shoulder[0]
    seam_y = (p.left_shoulder[1] + p.right_shoulder[1]) / 2
    cx, cy = p.neck[0], seam_y - 0.02 * seam_w
    rx, ry = 0.21 * seam_w, 0.10 * seam_w
    hole = (((xs - cx) / rx) ** 2 + ((ys - cy) / ry) ** 2 <= 1.0) | ((ys < cy) & (np.abs(xs - cx) < rx))
    # Nothing far above the shoulder line either (the back of the collar, a hood): the head is there.
    hole |= ys < seam_y - 0.12 * seam_w
    torso = (~sleeve_any & ~hole).astype(np.float32)
    parts["torso"] = cv2.GaussianBlur(torso, (0, 0), sigmaX=1.0)
    garment.derived.update(parts)  # kept with the cached garment
    return garment.derived


def _hinge(seam: np.ndarray, armpit: np.ndarray) -> np.ndarray:
    """The point of the sleeve's opening it turns about (`HINGE` of the way from seam to armpit)."""
    return seam + (armpit - seam) * HINGE


def _rotation(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s], [s, c]])


def _similarity(src_pivot: np.ndarray, dst_pivot: np.ndarray, angle: float, scale: float) -> np.ndarray:
    """2 x 3 affine: rotate by `angle` and scale about `src_pivot`, landing on `dst_pivot`."""
    m = _rotation(angle) * scale
    t = dst_pivot - m @ src_pivot
    return np.hstack([m, t[:, None]]).astype(np.float32)


def _angle(v: np.ndarray) -> float:
    return math.atan2(float(v[1]), float(v[0]))


def _sleeve(
    part: np.ndarray,
    opening: np.ndarray,
    cuff: np.ndarray,
    side: _Side,
    pivot: np.ndarray,
    scale: float,
    down: np.ndarray,
    long_sleeves: bool,
    size: tuple[int, int],
) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """The sleeve warped onto the arm: the layers under the torso, those over it (a forearm's part
    of a sleeve bent at the elbow lies in front of the body), and where the sleeve's end lands.

    A long sleeve follows a gently bent forearm; a forearm bent sharply (folded across the body)
    cannot be followed by a flat sleeve, so the sleeve stops at the elbow and the photo's own
    forearm stays in front (`_mark_arm`)."""
    # The upper arm's direction; a barely seen elbow is pulled towards hanging straight down.
    hanging = _rotation(-0.2 * side.sign) @ down
    upper = side.elbow - side.shoulder
    upper_len = float(np.linalg.norm(upper))
    trust = float(np.clip((side.elbow_seen - 0.1) / 0.4, 0.0, 1.0)) if upper_len > 1 else 0.0
    direction = trust * upper / max(upper_len, 1e-6) + (1 - trust) * hanging
    direction /= max(float(np.linalg.norm(direction)), 1e-6)
    axis = cuff - opening
    axis_len = float(np.linalg.norm(axis))
    if axis_len < 2:
        return [], [], pivot
    turn = _angle(direction) - _angle(axis)
    forearm = side.wrist - side.elbow
    forearm_len = float(np.linalg.norm(forearm))
    arm_seen = long_sleeves and trust >= 0.99 and side.wrist_seen >= 0.5 and forearm_len > 0.4 * upper_len > 1
    if arm_seen:
        # A long sleeve ends at the wrist: its length is the arm's, within reason of the torso's scale.
        reach = float(np.linalg.norm(side.elbow - pivot)) + forearm_len
        scale = float(np.clip(reach / axis_len, (1 - MAX_SLEEVE_STRETCH) * scale, (1 + MAX_SLEEVE_STRETCH) * scale))
    first = _similarity(opening, pivot, turn, scale)
    bent_by = _bend(side)
    if not arm_seen or bent_by <= 0.2:
        layer = cv2.warpAffine(part, first, size, flags=cv2.INTER_LINEAR)
        return [layer], [], first[:, :2] @ cuff + first[:, 2]
    # The garment's elbow is at the upper arm's share of the sleeve.
    t_elbow = upper_len / (upper_len + forearm_len)
    gh, gw = part.shape[:2]
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    along = ((xs - opening[0]) * axis[0] + (ys - opening[1]) * axis[1]) / (axis_len**2)
    upper_part = part * (along <= t_elbow + 0.02)[..., None]
    g_elbow = opening + axis * t_elbow
    elbow_at = first[:, :2] @ g_elbow + first[:, 2]
    under = [cv2.warpAffine(upper_part, first, size, flags=cv2.INTER_LINEAR)]
    if bent_by >= MAX_ELBOW_BEND:
        return under, [], elbow_at
    lower_part = part * (along > t_elbow - 0.02)[..., None]
    second = _similarity(g_elbow, elbow_at, _angle(forearm) - _angle(axis), scale)
    over = [cv2.warpAffine(lower_part, second, size, flags=cv2.INTER_LINEAR)]
    return under, over, second[:, :2] @ cuff + second[:, 2]


def _bend(side: _Side) -> float:
    """How far the forearm turns from the upper arm's direction at the elbow (radians, 0..pi)."""
    upper, forearm = side.elbow - side.shoulder, side.wrist - side.elbow
    if float(np.linalg.norm(upper)) <= 1 or float(np.linalg.norm(forearm)) <= 1:
        return 0.0
    return abs(math.remainder(_angle(forearm) - _angle(upper), math.tau))


def _mark_arm(keep_out: np.ndarray, side: _Side, sleeve_end: np.ndarray, sw: float, long_sleeves: bool) -> None:
    """Draw into `keep_out` the arm below a short sleeve, a forearm a long sleeve could not follow
    (bent sharply at the elbow, see `_sleeve`) and the hand, where the pose sees them."""
    thick = max(2, round(0.16 * sw))
    if side.elbow_seen >= 0.5 and not long_sleeves:
        cv2.line(keep_out, _px(sleeve_end), _px(side.elbow), 1, thick, cv2.LINE_AA)
    if side.elbow_seen >= 0.5 and side.wrist_seen >= 0.5:
        hand = side.wrist + (side.wrist - side.elbow) * 0.3
        if not long_sleeves or _bend(side) >= MAX_ELBOW_BEND:
            cv2.line(keep_out, _px(side.elbow), _px(side.wrist), 1, thick, cv2.LINE_AA)
        cv2.line(keep_out, _px(side.wrist + (side.wrist - side.elbow) * 0.08), _px(hand), 1, thick, cv2.LINE_AA)


def _px(p: np.ndarray) -> tuple[int, int]:
    return round(float(np.clip(p[0], -1e5, 1e5))), round(float(np.clip(p[1], -1e5, 1e5)))


def _head_mask(pose: PoseResult, size: tuple[int, int], sw: float) -> np.ndarray:
    """The face and chin (an ellipse from the eyes, ears, nose and mouth) as float 0/1."""
    w, h = size
    pts = pose.points
    face = [pts[n] for n in ("nose", "left_eye", "right_eye", "left_ear", "right_ear", "mouth_left", "mouth_right")]
    if max(p.visibility for p in face) < 0.5:
        return np.zeros((h, w), np.float32)
    eyes = (pts["left_eye"].xy + pts["right_eye"].xy) / 2
    mouth = (pts["mouth_left"].xy + pts["mouth_right"].xy) / 2
    ears = float(np.linalg.norm(pts["left_ear"].xy - pts["right_ear"].xy))
    face_w = max(ears, 2.2 * float(np.linalg.norm(pts["left_eye"].xy - pts["right_eye"].xy)), 0.25 * sw)
    chin = mouth + (mouth - eyes) * 1.0
    top = eyes - (mouth - eyes) * 2.2
    centre = (chin + top) / 2
    half_h = float(np.linalg.norm(chin - top)) / 2
    angle = math.degrees(_angle(chin - top)) - 90
    mask = np.zeros((h, w), np.float32)
    cv2.ellipse(mask, _px(centre), (max(1, int(face_w * 0.6)), max(1, int(half_h))), angle, 0, 360, 1.0, -1)
    return mask


def _composite_png(photo: Image.Image, premul: np.ndarray, alpha: np.ndarray) -> bytes:
    """The garment layer scaled to the photo's size, composited over it (only where it is), as PNG."""
    width, height = photo.size
    base = np.array(photo)  # RGB or RGBA, upright
    wh, ww = alpha.shape
    ys, xs = np.nonzero(alpha > 1e-4)
    if len(xs):
        fx, fy = width / ww, height / wh
        # The layer's bounding box in photo pixels, with a margin for the resampling.
        x0, x1 = max(0, int((xs.min() - 2) * fx)), min(width, math.ceil((xs.max() + 3) * fx))
        y0, y1 = max(0, int((ys.min() - 2) * fy)), min(height, math.ceil((ys.max() + 3) * fy))
        # Map photo pixel centres back to layer coordinates, exactly as a full-size resize would.
        map_x = ((np.arange(x0, x1, dtype=np.float32) + 0.5) / fx - 0.5)[None, :].repeat(y1 - y0, 0)
        map_y = ((np.arange(y0, y1, dtype=np.float32) + 0.5) / fy - 0.5)[:, None].repeat(x1 - x0, 1)
        layer = np.dstack([premul, alpha]).astype(np.float32)
        big = cv2.remap(layer, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        a = np.clip(big[..., 3:4], 0.0, 1.0)
        region = base[y0:y1, x0:x1].astype(np.float32)
        colour = big[..., :3] * 255.0 + region[..., :3] * (1.0 - a)
        base[y0:y1, x0:x1, :3] = np.clip(np.rint(colour), 0, 255).astype(np.uint8)
        if base.shape[2] == 4:
            over = a[..., 0] * 255.0 + region[..., 3] * (1.0 - a[..., 0])
            base[y0:y1, x0:x1, 3] = np.clip(np.rint(over), 0, 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(base).save(out, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()
