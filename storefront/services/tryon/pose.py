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
  `MIN_SHOULDER_VISIBILITY`) inside the photo.

Point names follow MediaPipe: "left" and "right" are the person's own sides (a person facing the
camera has the left shoulder on the image's right).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from storefront.services.tryon.engine import NoPersonFound, ShouldersNotVisible

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
    "left_hip": 23,
    "right_hip": 24,
}
#: Below this share of the photo covered by the person mask, there is no person to dress.
MIN_PERSON_AREA = 0.03
#: A shoulder needs at least this visibility (and to lie inside the photo) to count as visible.
MIN_SHOULDER_VISIBILITY = 0.5
#: At least one head or shoulder point needs this visibility, or there is no person.
MIN_UPPER_BODY_VISIBILITY = 0.5
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
    """What `PoseDetector.detect` found: named key points and the person mask (H x W, 0..1)."""

    width: int
    height: int
    points: dict[str, Keypoint]
    mask: np.ndarray

    def inside(self, name: str, tolerance: float = _EDGE_TOLERANCE) -> bool:
        """Whether the point lies inside the image (`tolerance` of its size past the edge, or inside)."""
        p = self.points[name]
        tx, ty = tolerance * self.width, tolerance * self.height
        return -tx <= p.x <= self.width - 1 + tx and -ty <= p.y <= self.height - 1 + ty

    def visible(self, name: str, threshold: float = 0.5) -> bool:
        """Whether the point is inside the image with at least `threshold` visibility."""
        return self.points[name].visibility >= threshold and self.inside(name)


class PoseDetector:
    """MediaPipe pose (with its segmentation mask) behind a lock; the graph is built on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pose: Any = None

    def warm_up(self) -> None:
        """Build the graph now (and run it once), so the first photo does not pay for it."""
        with self._lock:
            pose = self._graph()
            pose.process(np.zeros((64, 64, 3), dtype=np.uint8))

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

    def detect(self, rgb: np.ndarray) -> PoseResult:
        """Key points and person mask of an RGB uint8 image, or NoPersonFound / ShouldersNotVisible."""
        height, width = rgb.shape[:2]
        with self._lock:
            result = self._graph().process(np.ascontiguousarray(rgb))
            landmarks = result.pose_landmarks
            mask = result.segmentation_mask
            mask = None if mask is None else np.array(mask, dtype=np.float32, copy=True)
        if landmarks is None or mask is None:
            raise NoPersonFound()
        marks = landmarks.landmark
        points = {
            name: Keypoint(marks[i].x * width, marks[i].y * height, float(marks[i].visibility))
            for name, i in LANDMARKS.items()
        }
        found = PoseResult(width, height, points, np.clip(mask, 0.0, 1.0))
        if float((found.mask > 0.5).mean()) < MIN_PERSON_AREA:
            raise NoPersonFound()
        if max(points[name].visibility for name in _UPPER_BODY) < MIN_UPPER_BODY_VISIBILITY:
            raise NoPersonFound()
        if not all(found.visible(side, MIN_SHOULDER_VISIBILITY) for side in ("left_shoulder", "right_shoulder")):
            raise ShouldersNotVisible()
        return found


_shared: PoseDetector | None = None
_shared_lock = threading.Lock()


def shared_detector() -> PoseDetector:
    """The process-wide detector (one MediaPipe graph per process)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = PoseDetector()
        return _shared
