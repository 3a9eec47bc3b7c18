"""Body key points and a person mask from one photo, for the local try-on engine (MediaPipe, CPU).

A thin wrapper over MediaPipe's legacy `solutions.pose` graph (model complexity 1, segmentation on),
whose models ship inside the wheel: nothing is downloaded. The graph is created lazily, once per
`PoseDetector`, and kept; MediaPipe graphs are not thread-safe, so every `detect` holds the
detector's lock while the graph runs (about 30 ms a photo on a small CPU).

`detect` takes an RGB array and answers a `PoseResult` (named key points in pixels with their
visibility, and a float person mask of the photo's size), or raises the engine's typed errors:

- `NoPersonFound`: no landmarks at all, a person mask covering less than `MIN_PERSON_AREA` of the
  photo, or none of the head and shoulder points visible;
- `ShouldersNotVisible`: a person, but not both shoulders visible (visibility below
  `MIN_SHOULDER_VISIBILITY`) inside the photo;
- `PoseNotSuitable`, with its reason: the photo upside down or on its side (the nose not above the
  shoulders, or the hips not below them), the person's back or side to the camera (their left
  shoulder on the image's left, the face unseen, or both ears on one side of the nose), a wrist or
  elbow raised above the eyes, or less than `MIN_TORSO_SHOWN` shoulder widths of the body below the
  shoulders in the photo.

Besides the pose graph's own person mask, the selfie-segmentation model (also in the wheel) gives
a second one: the engine clips the garment to where both see the person (the pose mask alone takes
a held object for part of the body less often, the selfie mask follows the outline more closely).

Point names follow MediaPipe: "left" and "right" are the person's own sides (a person facing the
camera has the left shoulder on the image's right).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from storefront.services.tryon.engine import (
    ARMS_RAISED,
    FACING_AWAY,
    TORSO_CUT_OFF,
    UPSIDE_DOWN,
    NoPersonFound,
    PoseNotSuitable,
    ShouldersNotVisible,
)

#: MediaPipe pose landmark indices of the points the engine uses.
LANDMARKS: dict[str, int] = {
    "nose": 0,
    "left_eye": 2,
    "right_eye": 5,
    "left_ear": 7,
    "right_ear": 8,
    "mouth_left": 9,
    "mouth_right": 10,
    "left_shoulder": 11,
    "right_shoulder": 12,
    "left_elbow": 13,
    "right_elbow": 14,
    "left_wrist": 15,
    "right_wrist": 16,
    "left_pinky": 17,
    "right_pinky": 18,
    "left_index": 19,
    "right_index": 20,
    "left_thumb": 21,
    "right_thumb": 22,
    "left_hip": 23,
    "right_hip": 24,
}
#: Below this share of the photo covered by the person mask, there is no person to dress.
MIN_PERSON_AREA = 0.03
#: A shoulder needs at least this visibility (and to lie inside the photo) to count as visible.
MIN_SHOULDER_VISIBILITY = 0.5
#: At least one head or shoulder point needs this visibility, or there is no person.
MIN_UPPER_BODY_VISIBILITY = 0.5
#: At least this much of the body (in shoulder widths below the shoulder joints) must be in the photo.
MIN_TORSO_SHOWN = 0.35
#: How far (share of the photo's size) a point may lie past the edge and still count as inside;
#: negative: it must lie that far inside (a shoulder cut by the edge is pinned to it by MediaPipe).
_EDGE_TOLERANCE = -0.01
_UPPER_BODY = ("nose", "left_eye", "right_eye", "left_shoulder", "right_shoulder")


@dataclass(frozen=True)
class Keypoint:
    """One landmark: position in pixels of the analysed image and MediaPipe's visibility (0..1)."""

    x: float
    y: float
    visibility: float

    @property
    def xy(self) -> np.ndarray:
        """The position as a float array [x, y]."""
        return np.array([self.x, self.y], dtype=np.float64)


@dataclass(frozen=True)
class PoseResult:
    """What `PoseDetector.detect` found: named key points and the person masks (H x W, 0..1):
    the pose graph's (`mask`) and the selfie-segmentation model's (`selfie`; None when not run)."""

    width: int
    height: int
    points: dict[str, Keypoint]
    mask: np.ndarray
    selfie: np.ndarray | None = None

    def inside(self, name: str, tolerance: float = _EDGE_TOLERANCE) -> bool:
        """Whether the point lies inside the image (`tolerance` of its size past the edge, or inside)."""
        p = self.points[name]
        tx, ty = tolerance * self.width, tolerance * self.height
        return -tx <= p.x <= self.width - 1 + tx and -ty <= p.y <= self.height - 1 + ty

    def visible(self, name: str, threshold: float = 0.5) -> bool:
        """Whether the point is inside the image with at least `threshold` visibility."""
        return self.points[name].visibility >= threshold and self.inside(name)


class PoseDetector:
    """MediaPipe pose (with its segmentation mask) and selfie segmentation behind a lock; the
    graphs are built on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pose: Any = None
        self._selfie: Any = None

    def warm_up(self) -> None:
        """Build the graph now (and run it once), so the first photo does not pay for it."""
        with self._lock:
            blank = np.zeros((64, 64, 3), dtype=np.uint8)
            self._graph().process(blank)
            self._selfie_graph().process(blank)

    def _graph(self) -> Any:
        """The pose graph, created on first call; call with the lock held."""
        if self._pose is None:
            import mediapipe as mp  # heavy import, paid only by processes that run the local engine

            self._pose = mp.solutions.pose.Pose(
                static_image_mode=True,
                model_complexity=1,  # 2 would download a model at first use
                enable_segmentation=True,
                min_detection_confidence=0.5,
            )
        return self._pose

    def _selfie_graph(self) -> Any:
        """The selfie-segmentation graph (general model), created on first call; call with the lock held."""
        if self._selfie is None:
            import mediapipe as mp

            self._selfie = mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=0)
        return self._selfie

    def detect(self, rgb: np.ndarray) -> PoseResult:
        """Key points and person masks of an RGB uint8 image, or the refusal saying why not (module docstring)."""
        height, width = rgb.shape[:2]
        contiguous = np.ascontiguousarray(rgb)
        with self._lock:
            result = self._graph().process(contiguous)
            landmarks = result.pose_landmarks
            mask = result.segmentation_mask
            mask = None if mask is None else np.array(mask, dtype=np.float32, copy=True)
            selfie = None
            if landmarks is not None and mask is not None:
                selfie = np.array(self._selfie_graph().process(contiguous).segmentation_mask, np.float32, copy=True)
        if landmarks is None or mask is None:
            raise NoPersonFound()
        assert selfie is not None  # segmented whenever a person was found
        marks = landmarks.landmark
        points = {
            name: Keypoint(marks[i].x * width, marks[i].y * height, float(marks[i].visibility))
            for name, i in LANDMARKS.items()
        }
        found = PoseResult(width, height, points, np.clip(mask, 0.0, 1.0), np.clip(selfie, 0.0, 1.0))
        if float((found.mask > 0.5).mean()) < MIN_PERSON_AREA:
            raise NoPersonFound()
        if max(points[name].visibility for name in _UPPER_BODY) < MIN_UPPER_BODY_VISIBILITY:
            raise NoPersonFound()
        if not all(found.visible(side, MIN_SHOULDER_VISIBILITY) for side in ("left_shoulder", "right_shoulder")):
            raise ShouldersNotVisible()
        refusal = unsuitable(found)
        if refusal:
            raise PoseNotSuitable(refusal)
        return found


def unsuitable(pose: PoseResult) -> str | None:
    """Why no garment can be fitted to this pose (a message for the shopper), or None."""
    p = pose.points
    left, right = p["left_shoulder"].xy, p["right_shoulder"].xy
    mid = (left + right) / 2
    sw = float(np.linalg.norm(left - right))
    across = abs(float(left[0] - right[0]))
    ears = [p[e].xy - p["nose"].xy for e in ("left_ear", "right_ear")]
    line = (left - right) / max(sw, 1e-6)  # along the shoulders, whichever way the photo is turned
    if (
        min(p[e].visibility for e in ("left_ear", "right_ear")) >= 0.5
        and np.dot(ears[0], line) * np.dot(ears[1], line) > 0
    ):
        return FACING_AWAY  # in profile: both ears on one side of the nose
    nose_above = p["nose"].visibility < 0.5 or p["nose"].y < mid[1] - 0.1 * sw
    hips = [p[h] for h in ("left_hip", "right_hip") if pose.visible(h)]
    hips_below = all(h.y > mid[1] for h in hips)
    if not nose_above or not hips_below or across < 0.5 * sw:
        return UPSIDE_DOWN
    face_seen = max(p[n].visibility for n in ("nose", "left_eye", "right_eye")) >= 0.5
    if left[0] < right[0] or not face_seen:
        return FACING_AWAY  # the back to the camera: the person's left shoulder on the image's left
    eyes_y = min(p["left_eye"].y, p["right_eye"].y)
    for joint in ("left_wrist", "right_wrist", "left_elbow", "right_elbow"):
        if pose.visible(joint) and p[joint].y < eyes_y:
            return ARMS_RAISED
    if pose.height - 1 - mid[1] < MIN_TORSO_SHOWN * sw:
        return TORSO_CUT_OFF
    return None


_shared: PoseDetector | None = None
_shared_lock = threading.Lock()


def shared_detector() -> PoseDetector:
    """The process-wide detector (one MediaPipe graph per process)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = PoseDetector()
        return _shared
