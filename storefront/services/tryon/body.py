"""What the photo says about the body the garment goes on: its outline, what lies in front of the
torso (hands, forearms), and its light (shading, white balance, grain). Used by `local.py`.

- `silhouette`: where both of MediaPipe's masks see the person, its edge snapped to the photo's
  own edges by a guided filter (the models answer at 256 px, the photo has more detail).
- `in_front`: skin-coloured parts of the body over the torso that are hands or forearms: the
  skin's colour is learnt from the face (its chroma in YCrCb), and a patch of it counts when a hand
  landmark lies on it, or when it lies over the chest or belly apart from the neck (a neckline's
  skin belongs under the garment's collar, a hand over the chest in front of it).
- `hair`: hair falling over the shoulders: the colour of the hair above the forehead, and the
  pixels of that colour joined to it that reach below the shoulder line. When that "hair" covers
  much of the chest (dark hair above a dark top of the same colour), it is not trusted and none is
  kept in front.
- `shading`, `white_balance`, `grain`: the photo's light carried onto the garment.
"""

from __future__ import annotations

import cv2
import numpy as np

from storefront.services.tryon.pose import PoseResult

#: The photo's shading multiplies the garment colour within this range.
SHADE_RANGE = (0.72, 1.12)
#: A pixel is skin within this Mahalanobis distance of the face's skin chroma.
SKIN_DISTANCE = 3.0
#: The white balance moves a garment colour channel by at most this share.
MAX_WHITE_BALANCE = 0.12
#: The garment's added grain is at most this (a standard deviation, 0..1 of the range).
MAX_GRAIN = 0.02
#: A skin-coloured patch larger than this (in square shoulder widths) is no hand and forearm.
MAX_IN_FRONT_AREA = 0.5
#: Past this share of the chest, "hair" over the body is more likely a top of the hair's colour.
MAX_HAIR_ON_CHEST = 0.4
_HANDS = ("wrist", "index", "pinky", "thumb")


def silhouette(work: np.ndarray, pose: PoseResult, sw: float) -> np.ndarray:
    """The person (float 0..1, soft only at the edge), as the module docstring says."""
    mask = pose.mask if pose.selfie is None else np.minimum(pose.mask, pose.selfie)
    radius = max(2, round(0.02 * sw))
    guide = work.astype(np.float32) / 255.0
    refined = cv2.ximgproc.guidedFilter(guide, mask.astype(np.float32), radius, 1e-3)
    # Firm inside, a narrow soft band around the 0.5 line.
    return np.clip((refined - 0.35) / 0.3, 0.0, 1.0).astype(np.float32)


def _skin_model(work: np.ndarray, pose: PoseResult) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The mean and inverse covariance of the face's skin chroma (Cr, Cb) and its mean luma, or None
    without a face."""
    p = pose.points
    if min(p[n].visibility for n in ("nose", "left_eye", "right_eye", "mouth_left", "mouth_right")) < 0.5:
        return None
    eyes = (p["left_eye"].xy + p["right_eye"].xy) / 2
    mouth = (p["mouth_left"].xy + p["mouth_right"].xy) / 2
    eye_gap = float(np.linalg.norm(p["left_eye"].xy - p["right_eye"].xy))
    # The cheeks and the nose: below the eyes, above the mouth, as wide as the eyes are apart.
    centre = (eyes * 0.4 + mouth * 0.6)
    half = max(2, round(0.55 * eye_gap)), max(2, round(0.35 * float(np.linalg.norm(mouth - eyes))))
    x0, x1 = max(0, round(centre[0]) - half[0]), min(work.shape[1], round(centre[0]) + half[0])
    y0, y1 = max(0, round(centre[1]) - half[1]), min(work.shape[0], round(centre[1]) + half[1])
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    ycc = cv2.cvtColor(work[y0:y1, x0:x1], cv2.COLOR_RGB2YCrCb).reshape(-1, 3).astype(np.float64)
    chroma = ycc[:, 1:]
    mean = chroma.mean(axis=0)
    cov = np.cov(chroma.T) + np.eye(2) * 4.0  # a floor: a flat-lit face would give a needle-thin model
    return mean, np.linalg.inv(cov), float(ycc[:, 0].mean())


def in_front(work: np.ndarray, pose: PoseResult, body: np.ndarray, sw: float) -> np.ndarray:
    """Hands and forearms over the body, as the module docstring says (float 0/1, the work size)."""
    h, w = body.shape
    found = np.zeros((h, w), np.float32)
    model = _skin_model(work, pose)
    if model is None:
        return found
    mean, inv, luma = model
    ycc = cv2.cvtColor(work, cv2.COLOR_RGB2YCrCb).astype(np.float32)
    chroma = ycc[..., 1:] - mean.astype(np.float32)
    d2 = (
        inv[0, 0] * chroma[..., 0] ** 2
        + 2 * inv[0, 1] * chroma[..., 0] * chroma[..., 1]
        + inv[1, 1] * chroma[..., 1] ** 2
    )
    lit = (ycc[..., 0] > 0.45 * luma) & (ycc[..., 0] < 1.5 * luma + 10)  # a hand in shade, not a white shirt
    skin = ((d2 < SKIN_DISTANCE**2) & lit & (body > 0.5)).astype(np.uint8)
    r = max(1, round(0.015 * sw))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    skin = cv2.morphologyEx(skin, cv2.MORPH_OPEN, kernel)
    skin = cv2.morphologyEx(skin, cv2.MORPH_CLOSE, kernel)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(skin, connectivity=8)
    if count <= 1:
        return found
    p = pose.points
    left, right = p["left_shoulder"].xy, p["right_shoulder"].xy
    below, aside = _body_axes((h, w), left, right, sw)
    neck = (below < 0) & (aside < 0.35 * sw)  # skin there is the neck, and a neckline joins it
    hands = [p[f"{side}_{part}"] for side in ("left", "right") for part in _HANDS]
    min_area, max_area = (0.06 * sw) ** 2, MAX_IN_FRONT_AREA * sw**2
    rc = max(1, round(0.05 * sw))
    core = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rc + 1, 2 * rc + 1))
    for label in range(1, count):
        if not min_area <= stats[label, cv2.CC_STAT_AREA] <= max_area:
            continue  # a speck, or a top of the skin's colour
        patch = labels == label
        on_hand = any(
            hand.visibility >= 0.5
            and 0 <= round(hand.y) < h
            and 0 <= round(hand.x) < w
            and labels[round(hand.y), round(hand.x)] == label
            for hand in hands
        )
        over_torso = (
            not (patch & neck).any()
            and float(below[patch].mean()) > 0.3 * sw
            and cv2.erode(patch.astype(np.uint8), core).any()  # as broad as a hand, not a strap or a seam
        )
        if on_hand or over_torso:
            found[patch] = 1.0
    return found


def hair(work: np.ndarray, pose: PoseResult, body: np.ndarray, sw: float) -> np.ndarray:
    """Hair over the shoulders, as the module docstring says (float 0/1, the work size)."""
    h, w = body.shape
    found = np.zeros((h, w), np.float32)
    p = pose.points
    if min(p[n].visibility for n in ("left_eye", "right_eye", "nose")) < 0.5:
        return found
    left, right = p["left_shoulder"].xy, p["right_shoulder"].xy
    down = down_direction(left, right)
    eyes = (p["left_eye"].xy + p["right_eye"].xy) / 2
    gap = float(np.linalg.norm(p["left_eye"].xy - p["right_eye"].xy))
    # Above the forehead, on the body's mask: the hair (or a hat, which never reaches the shoulders).
    centre = eyes - down * 1.3 * gap
    r = max(2, round(0.25 * gap))
    x0, x1 = max(0, round(centre[0]) - r), min(w, round(centre[0]) + r + 1)
    y0, y1 = max(0, round(centre[1]) - r), min(h, round(centre[1]) + r + 1)
    if x1 - x0 < 3 or y1 - y0 < 3 or float(body[y0:y1, x0:x1].mean()) < 0.8:
        return found
    lab = cv2.cvtColor(work, cv2.COLOR_RGB2LAB).astype(np.float32)
    sample = lab[y0:y1, x0:x1].reshape(-1, 3)
    colour = np.median(sample, axis=0)
    spread = float(np.median(np.sqrt(((sample - colour) ** 2).sum(axis=1))))
    near = np.sqrt(((lab - colour) ** 2).sum(axis=2)) < max(14.0, 2.5 * spread)
    same = (near & (body > 0.5)).astype(np.uint8)
    count, labels = cv2.connectedComponents(same, connectivity=8)
    seed = labels[y0:y1, x0:x1]
    seed = seed[seed > 0]
    if not len(seed):
        return found
    strand = labels == np.bincount(seed).argmax()
    below, _ = _body_axes((h, w), left, right, sw)
    over = strand & (below > -0.15 * sw)
    chest = (below > 0.2 * sw) & (below < 0.9 * sw) & (body > 0.5)
    if not over.any() or (over & chest).sum() > MAX_HAIR_ON_CHEST * max(1, int(chest.sum())):
        return found
    found[over] = 1.0
    return found


def down_direction(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """The body's down (unit vector): square to the line between the shoulders, down the image."""
    line = right - left
    down = np.array([-line[1], line[0]]) / max(float(np.linalg.norm(line)), 1e-6)
    return down if down[1] >= 0 else -down


def _body_axes(shape: tuple[int, int], left: np.ndarray, right: np.ndarray, sw: float) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel: how far below the shoulder line, and how far from the body's middle line."""
    mid, down = (left + right) / 2, down_direction(left, right)
    ys, xs = np.mgrid[0 : shape[0], 0 : shape[1]].astype(np.float32)
    below = (xs - mid[0]) * down[0] + (ys - mid[1]) * down[1]
    aside = np.abs((xs - mid[0]) * down[1] - (ys - mid[1]) * down[0])
    return below, aside


def shading(work: np.ndarray, alpha: np.ndarray, person: np.ndarray, sw: float) -> np.ndarray:
    """The photo's blurred luminance over the garment (outliers clamped), normalised, within SHADE_RANGE."""
    luma = cv2.cvtColor(work, cv2.COLOR_RGB2GRAY).astype(np.float32)
    inside = (alpha > 0.5) & (person > 0.5)
    if inside.sum() < 50:
        return np.ones_like(alpha)
    # Clothes' own patterns (a white badge on a dark jacket) are not light: clamp the outliers.
    low, high = np.percentile(luma[inside], (5, 80))
    luma = np.clip(luma, low, high)
    sigma = max(1.5, 0.025 * sw)
    # Blur only within the body, so the backdrop's light does not bleed in at the edges.
    weight = cv2.GaussianBlur(person, (0, 0), sigmaX=sigma) + 1e-3
    blurred = cv2.GaussianBlur(luma * person, (0, 0), sigmaX=sigma) / weight
    reference = float(np.median(blurred[inside]))
    shade = (blurred / max(reference, 1.0)) ** 0.6
    return np.clip(shade, *SHADE_RANGE).astype(np.float32)


def white_balance(work: np.ndarray) -> np.ndarray:
    """Per-channel gains (3,) that tint a neutral garment as the photo's light tints its scene
    (grey-world over the photo, halved and bounded: a warm room warms the shirt a little)."""
    means = work.reshape(-1, 3).mean(axis=0).astype(np.float64) + 1.0
    gains = (means / means.mean()) ** 0.5
    return np.clip(gains, 1 - MAX_WHITE_BALANCE, 1 + MAX_WHITE_BALANCE).astype(np.float32)


def grain(work: np.ndarray, person: np.ndarray) -> float:
    """The photo's noise (standard deviation, 0..1 of the range) inside the person: a garment drawn
    clean on a grainy photo looks pasted on.

    Read where the photo is flat (the quarter of the person's pixels with the least gradient), so
    edges and texture are not taken for noise, and bounded by `MAX_GRAIN`."""
    grey = cv2.cvtColor(work, cv2.COLOR_RGB2GRAY).astype(np.float32) / 255.0
    smooth = cv2.GaussianBlur(grey, (0, 0), sigmaX=1.0)
    residual = grey - smooth
    inside = person > 0.5
    if inside.sum() < 200:
        return 0.0
    gradient = np.hypot(cv2.Sobel(smooth, cv2.CV_32F, 1, 0), cv2.Sobel(smooth, cv2.CV_32F, 0, 1))
    flat = inside & (gradient <= np.percentile(gradient[inside], 25))
    # The median absolute residual ignores what edges remain; 1.4826 makes it a standard deviation.
    return float(np.clip(1.4826 * np.median(np.abs(residual[flat])), 0.0, MAX_GRAIN))
