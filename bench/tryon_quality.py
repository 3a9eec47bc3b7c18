"""How worn a try-on looks, measured on photos of people: the numbers `make bench` prints and the
try-on tests assert.

For each photo and garment the local engine's layer is measured at its work size:

- spill: the share of garment pixels (alpha > 0.5) outside the person's silhouette. On a photo
  composed here the silhouette is known (where the person was pasted); on a photo as it ships it
  is what both MediaPipe's pose segmentation and its selfie segmentation call the person, before
  the engine's refinement (stricter than either; there is no hand-drawn outline);
- torso covered: the share of the torso region (the quadrilateral of the shoulder and hip joints,
  inside the silhouette) that the garment covers;
- background and face SSIM: the structural similarity of the dressed photo against the input,
  averaged over the background (outside the silhouette and a margin) and over the face;
- the print (when its colour is given): its width, and its margin to the garment's edge on its
  rows (the nearer side), both as shares of the garment's width there, read off the chest (the
  middle of the torso region) where pixels are nearer the print's colour than the garment's. A
  print cropped by the garment's edge has no margin left.

Item pictures (`item_pictures`): the garment as the page wears it (the store's transparent cut-out)
and as a client of `POST /api/try-on` may send it without the store recognising it: the demo mockup
on its gradient backdrop with its floor shadow (the page's 640 px WebP rendition, re-encoded), the
same garment re-shot on a white flat-lay with a soft drop shadow (JPEG), and on a transparent
background with a wide margin (PNG).

Photos (`sample_photos`): scikit-image's astronaut and matplotlib's Grace Hopper as they ship, and
two composed from them: the astronaut mirrored on a plain studio backdrop with the picture moved
down and to the side (another framing, and a backdrop whose spill would show), and Grace Hopper
at two thirds of her size in a wide frame over scikit-image's brick wall (a textured backdrop).
On these two the person's outline is known, so their spill is measured against it. The packages
ship no other photo of a person facing the camera: scikit-image's cameraman
is in profile, bent over a camera, and the engine refuses him (`refused_photos`).
"""

from __future__ import annotations

import io
import math
import time
from dataclasses import dataclass

import cv2
import numpy as np
from matplotlib import cbook
from PIL import Image, ImageFilter
from skimage import data as samples
from skimage.metrics import structural_similarity

from storefront.services.tryon.local import Dressed, LocalTryOnEngine
from storefront.services.tryon.pose import PoseResult, shared_detector

#: The issue's targets.
MAX_SPILL_PCT = 2.0
MIN_TORSO_COVERED_PCT = 90.0
MIN_SSIM = 0.98
#: The print's margin to the garment's edge, as a share of the garment's width: it is inside.
MIN_PRINT_MARGIN_PCT = 3.0


@dataclass(frozen=True)
class Quality:
    """One try-on measured (percentages 0..100, SSIM 0..1, time in ms)."""

    photo: str
    garment: str
    spill_pct: float
    torso_covered_pct: float
    background_ssim: float
    face_ssim: float
    ms: float
    #: The print's width and its margin to the garment's edge (% of the garment's width); NaN unmeasured.
    print_width_pct: float = float("nan")
    print_margin_pct: float = float("nan")
    #: How the garment's picture came (`item_pictures`); "" for the store's cut-out alone.
    way: str = ""

    def misses(self) -> list[str]:
        """The targets this try-on misses, named."""
        missed = []
        if self.spill_pct > MAX_SPILL_PCT:
            missed.append(f"spill {self.spill_pct:.1f}% > {MAX_SPILL_PCT}%")
        if self.torso_covered_pct < MIN_TORSO_COVERED_PCT:
            missed.append(f"torso covered {self.torso_covered_pct:.1f}% < {MIN_TORSO_COVERED_PCT}%")
        if self.background_ssim < MIN_SSIM:
            missed.append(f"background SSIM {self.background_ssim:.3f} < {MIN_SSIM}")
        if self.face_ssim < MIN_SSIM:
            missed.append(f"face SSIM {self.face_ssim:.3f} < {MIN_SSIM}")
        if math.isnan(self.print_margin_pct):
            return missed  # the print was not measured
        if math.isnan(self.print_width_pct):
            missed.append("no print seen")
        elif self.print_margin_pct < MIN_PRINT_MARGIN_PCT:
            missed.append(f"print margin {self.print_margin_pct:.1f}% < {MIN_PRINT_MARGIN_PCT}%")
        return missed


def astronaut() -> Image.Image:
    """scikit-image's astronaut (Eileen Collins, waist up, 512 x 512)."""
    return Image.fromarray(samples.astronaut())


def grace_hopper() -> Image.Image:
    """matplotlib's Grace Hopper portrait (chest up, 512 x 600)."""
    with cbook.get_sample_data("grace_hopper.jpg") as handle:
        return Image.open(handle).convert("RGB")


@dataclass(frozen=True)
class Sample:
    """A photo of a person; `truth`: where the person is (bool), known when the photo was composed."""

    photo: Image.Image
    truth: np.ndarray | None = None


def _composed(backdrop: Image.Image, person: Image.Image, at: tuple[int, int]) -> Sample:
    """`person` cut out (by `person_mask`) and pasted onto `backdrop` at `at`."""
    alpha = Image.fromarray((person_mask(np.asarray(person.convert("RGB"))) * 255).astype(np.uint8))
    layer = Image.new("L", backdrop.size, 0)
    layer.paste(alpha, at)
    composed = backdrop.copy()
    composed.paste(person, at, alpha)
    return Sample(composed, np.asarray(layer) > 127)


def astronaut_in_studio() -> Sample:
    """The astronaut mirrored, cut out and set lower and to the side on a plain grey backdrop."""
    photo = astronaut().transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    return _composed(Image.new("RGB", (640, 560), (206, 210, 214)), photo, (110, 48))


def grace_hopper_by_a_wall() -> Sample:
    """Grace Hopper at two thirds of her size, cut out, in a wide frame over a brick wall."""
    small = grace_hopper().resize((342, 400), Image.Resampling.LANCZOS)
    wall = Image.fromarray(samples.brick()).convert("RGB").resize((720, 480), Image.Resampling.LANCZOS)
    return _composed(wall, small, (220, 80))


def sample_photos() -> dict[str, Sample]:
    """The four photos of people the quality is measured on (see the module docstring)."""
    return {
        "astronaut": Sample(astronaut()),
        "Grace Hopper": Sample(grace_hopper()),
        "astronaut, studio": astronaut_in_studio(),
        "Grace Hopper, brick wall": grace_hopper_by_a_wall(),
    }


def person_mask(rgb: np.ndarray) -> np.ndarray:
    """Where both of MediaPipe's segmentations see the person (float 0..1, the photo's size)."""
    return _both(shared_detector().detect(rgb))


def _both(pose: PoseResult) -> np.ndarray:
    """Where the pose graph's mask and the selfie model's both see the person (0..1)."""
    return pose.mask if pose.selfie is None else np.minimum(pose.mask, pose.selfie)


def composite(dressed: Dressed) -> np.ndarray:
    """The dressed photo at the work size (RGB uint8), as the engine composites it."""
    colour = dressed.premul * 255.0 + dressed.work.astype(np.float32) * (1.0 - dressed.alpha[..., None])
    return np.clip(np.rint(colour), 0, 255).astype(np.uint8)


def torso_region(pose: PoseResult) -> np.ndarray:
    """The quadrilateral of the shoulder and hip joints (bool, the work size)."""
    p = pose.points
    corners = np.array([p["left_shoulder"].xy, p["right_shoulder"].xy, p["right_hip"].xy, p["left_hip"].xy])
    region = np.zeros((pose.height, pose.width), np.uint8)
    cv2.fillConvexPoly(region, np.round(corners).astype(np.int32), 1)
    return region.astype(bool)


def face_region(pose: PoseResult) -> np.ndarray:
    """The face: an ellipse over the eyes, nose and mouth (bool, the work size)."""
    p = pose.points
    pts = np.array([p[n].xy for n in ("left_eye", "right_eye", "nose", "mouth_left", "mouth_right")])
    centre = pts.mean(axis=0)
    eyes = float(np.linalg.norm(p["left_eye"].xy - p["right_eye"].xy))
    region = np.zeros((pose.height, pose.width), np.uint8)
    axes = (max(2, round(eyes * 0.9)), max(2, round(eyes * 1.1)))
    cv2.ellipse(region, (round(centre[0]), round(centre[1])), axes, 0, 0, 360, 1, -1)
    return region.astype(bool)


def measure(
    engine: LocalTryOnEngine,
    photo: Image.Image,
    item: Image.Image,
    item_bytes: bytes,
    *,
    name: str = "",
    garment_name: str = "",
    truth: np.ndarray | None = None,
    print_colour: tuple[int, int, int] | None = None,
    way: str = "",
) -> Quality:
    """The try-on of `item` on `photo` measured (see the module docstring). `truth`: where the
    person really is (bool, the photo's size), used as the silhouette; `print_colour`: the
    print's, to measure it."""
    start = time.perf_counter()
    dressed = engine.layer(photo, item, item_bytes)
    ms = (time.perf_counter() - start) * 1000
    work, pose = dressed.work, dressed.pose
    if truth is None:
        silhouette = _both(pose) > 0.5  # the masks the engine was given, before its refinement
    else:
        silhouette = (
            cv2.resize(truth.astype(np.uint8), (work.shape[1], work.shape[0]), interpolation=cv2.INTER_NEAREST) > 0
        )
    garment = dressed.alpha > 0.5
    spill = float((garment & ~silhouette).sum()) / max(1, int(garment.sum()))
    torso = torso_region(pose) & silhouette
    covered = float((garment & torso).sum()) / max(1, int(torso.sum()))
    after = composite(dressed)
    _, ssim = structural_similarity(work, after, channel_axis=2, data_range=255, full=True)
    ssim = ssim.mean(axis=2)
    margin = max(3, round(0.01 * max(work.shape[:2])))
    either = pose.mask if pose.selfie is None else np.maximum(pose.mask, pose.selfie)
    person = silhouette if truth is not None else either > 0.5
    near_person = cv2.dilate(
        person.astype(np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * margin + 1, 2 * margin + 1))
    ).astype(bool)
    background = ~near_person
    face = face_region(pose)
    width_pct, margin_pct = (
        print_extent(dressed, print_colour) if print_colour is not None else (float("nan"), float("nan"))
    )
    return Quality(
        photo=name,
        garment=garment_name,
        spill_pct=100 * spill,
        torso_covered_pct=100 * covered,
        background_ssim=float(ssim[background].mean()) if background.any() else 1.0,
        face_ssim=float(ssim[face].mean()) if face.any() else 1.0,
        ms=ms,
        print_width_pct=width_pct,
        print_margin_pct=margin_pct,
        way=way,
    )


def print_extent(dressed: Dressed, print_colour: tuple[int, int, int]) -> tuple[float, float]:
    """The print's width and its smaller margin to the garment's edge on its rows, as % of the
    garment's width there (see the module docstring); (NaN, 0) when no print is seen."""
    on = dressed.alpha > 0.5
    colour = dressed.premul / np.maximum(dressed.alpha[..., None], 1e-6) * 255.0
    body = np.array(dressed.garment.dominant_colour(), np.float32)
    ink = np.array(print_colour, np.float32)
    nearer_ink = np.linalg.norm(colour - ink, axis=2) < np.linalg.norm(colour - body, axis=2)
    torso = torso_region(dressed.pose)
    rows = np.flatnonzero(torso.any(axis=1))
    chest = np.zeros_like(torso)
    top, bottom = rows[0], rows[-1]
    chest[round(top + 0.15 * (bottom - top)) : round(top + 0.85 * (bottom - top))] = True
    printed = nearer_ink & on & chest & _widened(torso, 0.25)
    ys, xs = np.nonzero(printed)
    if len(xs) < 50:
        return float("nan"), 0.0
    left, right = np.percentile(xs, [1, 99])
    band = slice(int(np.percentile(ys, 10)), int(np.percentile(ys, 90)) + 1)
    garment_cols = np.flatnonzero(on[band].mean(axis=0) > 0.5)
    g_left, g_right = float(garment_cols[0]), float(garment_cols[-1])
    width = max(1.0, g_right - g_left)
    return 100 * (right - left) / width, 100 * min(left - g_left, g_right - right) / width


def _widened(region: np.ndarray, share: float) -> np.ndarray:
    """A region made wider on each side by `share` of its width (the print may reach past the joints)."""
    cols = np.flatnonzero(region.any(axis=0))
    grow = max(1, round(share * (cols[-1] - cols[0])))
    return cv2.dilate(region.astype(np.uint8), np.ones((1, 2 * grow + 1), np.uint8)).astype(bool)


#: The ways an item picture reaches the engine (see the module docstring).
ON_THE_PAGE = "page (store cut-out)"
API_RENDITION = "API, the page's picture"
API_FLAT_LAY = "API, white flat-lay"
API_TRANSPARENT = "API, transparent PNG"


def item_pictures(kind: str, colour: str, trim: str, label: str) -> dict[str, tuple[Image.Image, bytes]]:
    """The garment as each way brings it: the decoded picture and its bytes, by way."""
    from storefront.services.media.demo_images import render_garment, render_garment_cutout

    cutout = render_garment_cutout(kind, colour, trim, label, 800)  # type: ignore[arg-type]
    mockup = render_garment(kind, colour, trim, label, 800).resize((640, 640), Image.Resampling.LANCZOS)  # type: ignore[arg-type]
    flat = Image.new("RGBA", (900, 900), (250, 250, 248, 255))
    smaller = cutout.resize((700, 700), Image.Resampling.LANCZOS)
    shadow = Image.new("RGBA", smaller.size, (0, 0, 0, 0))
    shadow.putalpha(smaller.getchannel("A").point(lambda v: v * 60 // 255).filter(ImageFilter.GaussianBlur(10)))
    flat.alpha_composite(shadow, (108, 114))
    flat.alpha_composite(smaller, (100, 100))
    clear = Image.new("RGBA", (1000, 1000), (0, 0, 0, 0))
    clear.alpha_composite(cutout, (120, 90))
    return {
        ON_THE_PAGE: (cutout, png(cutout)),
        API_RENDITION: _encoded(mockup, "WEBP", quality=80),
        API_FLAT_LAY: _encoded(flat.convert("RGB"), "JPEG", quality=88),
        API_TRANSPARENT: _encoded(clear, "PNG"),
    }


def _encoded(image: Image.Image, fmt: str, **options: int) -> tuple[Image.Image, bytes]:
    """The image as it arrives in that format: decoded from its bytes, and the bytes."""
    out = io.BytesIO()
    image.save(out, fmt, **options)
    decoded = Image.open(io.BytesIO(out.getvalue()))
    decoded.load()
    return decoded, out.getvalue()


def png(image: Image.Image) -> bytes:
    """The image as PNG bytes."""
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()
