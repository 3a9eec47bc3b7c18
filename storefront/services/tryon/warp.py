"""A thin-plate-spline warp: the smooth map that takes a few control points exactly where they go
and bends the picture between them as little as it can (used to fit the garment to the body)."""

from __future__ import annotations

import cv2
import numpy as np

#: Evaluate the spline on a grid this many pixels apart, then interpolate (the map is smooth).
GRID_STEP = 4


def _kernel(d2: np.ndarray) -> np.ndarray:
    """The spline's radial function U(r) = r^2 log r^2 of squared distances (0 at 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(d2 > 0, d2 * np.log(np.maximum(d2, 1e-12)), 0.0)


class ThinPlateSpline:
    """The spline taking `source` points (N x 2) to `target` points (N x 2), N >= 3 not all in a line.

    `smoothing` > 0 lets the spline pass near the points rather than through them (it keeps a bad
    point from folding the picture)."""

    def __init__(self, source: np.ndarray, target: np.ndarray, smoothing: float = 0.0) -> None:
        source = np.asarray(source, np.float64)
        target = np.asarray(target, np.float64)
        # Work in coordinates of unit size about the points' centre: the system stays well conditioned.
        self._centre = source.mean(axis=0)
        self._scale = max(float(np.abs(source - self._centre).max()), 1e-6)
        s = (source - self._centre) / self._scale
        n = len(s)
        k = _kernel(((s[:, None, :] - s[None, :, :]) ** 2).sum(axis=2)) + smoothing * np.eye(n)
        p = np.hstack([np.ones((n, 1)), s])
        system = np.zeros((n + 3, n + 3))
        system[:n, :n], system[:n, n:], system[n:, :n] = k, p, p.T
        rhs = np.zeros((n + 3, 2))
        rhs[:n] = target
        self._weights = np.linalg.lstsq(system, rhs, rcond=None)[0]
        self._points = s

    def __call__(self, points: np.ndarray) -> np.ndarray:
        """Where the spline takes `points` (M x 2)."""
        s = (np.asarray(points, np.float64).reshape(-1, 2) - self._centre) / self._scale
        u = _kernel(((s[:, None, :] - self._points[None, :, :]) ** 2).sum(axis=2))
        n = len(self._points)
        return u @ self._weights[:n] + self._weights[n] + s @ self._weights[n + 1 :]

    def maps(self, box: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
        """`cv2.remap` maps (float32) over `box` (x0, y0, x1, y1): for each pixel, where the spline takes it."""
        x0, y0, x1, y1 = box
        width, height = x1 - x0, y1 - y0
        gx = np.arange(x0, x1 + GRID_STEP, GRID_STEP, dtype=np.float64)
        gy = np.arange(y0, y1 + GRID_STEP, GRID_STEP, dtype=np.float64)
        grid = np.stack(np.meshgrid(gx, gy), axis=2).reshape(-1, 2)
        coarse = self(grid).reshape(len(gy), len(gx), 2).astype(np.float32)
        # Bilinear interpolation of the coarse grid at every pixel of the box (exact at the nodes).
        fx = (np.arange(width, dtype=np.float32) / GRID_STEP)[None, :].repeat(height, 0)
        fy = (np.arange(height, dtype=np.float32) / GRID_STEP)[:, None].repeat(width, 1)
        fine = cv2.remap(coarse, fx, fy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return np.ascontiguousarray(fine[..., 0]), np.ascontiguousarray(fine[..., 1])


def warp_into(
    image: np.ndarray, backward: ThinPlateSpline, size: tuple[int, int], box: tuple[int, int, int, int]
) -> np.ndarray:
    """`image` (H x W x C float) drawn onto a blank canvas of `size` (w, h) inside `box`, where
    `backward` takes canvas pixels back to image pixels."""
    w, h = size
    x0, y0 = max(0, box[0]), max(0, box[1])
    x1, y1 = min(w, box[2]), min(h, box[3])
    out = np.zeros((h, w, image.shape[2]), np.float32)
    if x1 <= x0 or y1 <= y0:
        return out
    map_x, map_y = backward.maps((x0, y0, x1, y1))
    out[y0:y1, x0:x1] = cv2.remap(image, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out
