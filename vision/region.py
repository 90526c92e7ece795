"""Where in a frame the dice can be: the part of the frame that has detail.

A phone held above the table, or a camera set high, sees the dice as a small cluster in a big plain
frame; scaled down whole for the finder they shrink to a few pixels. Reading only the part of the frame
that has detail (dice, a tray, a board) lets the finder see them at a useful size.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class RegionParams:
    """How the detailed part of a frame is found."""

    detail_size: int = 512  # long side of the frame when its detail is measured, px
    detail_ratio: float = 4.0  # a pixel has detail when its edge strength is this many times the frame's median
    detail_floor: float = 12.0  # ... and at least this much (grey levels per pixel), so that sensor noise never does
    pad: float = 0.15  # the region grows by this share of its own size on every side
    pad_px: int = 3  # ... and by this many pixels of the measuring scale (a die cut by the edge is read whole)


DEFAULT_REGION = RegionParams()


def detailed_region(image_bgr: np.ndarray, params: RegionParams = DEFAULT_REGION) -> tuple[int, int, int, int] | None:
    """The box (x, y, w, h) in the frame's pixels around every pixel with detail, padded; None when nothing
    in the frame has detail (a plain frame)."""
    rows, cols = image_bgr.shape[:2]
    scale = min(1.0, params.detail_size / max(rows, cols))
    # Sampled (bilinear), not averaged: averaging a 12-megapixel frame takes 40-90 ms here, sampling 2.
    small = cv2.resize(image_bgr, (max(round(cols * scale), 1), max(round(rows * scale), 1)), interpolation=cv2.INTER_LINEAR)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)
    strength = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)) / 4.0
    busy = strength > max(params.detail_ratio * float(np.median(strength)), params.detail_floor)
    ys, xs = np.nonzero(busy)
    if len(xs) == 0:
        return None
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    grow_x = params.pad * (x1 - x0) + params.pad_px
    grow_y = params.pad * (y1 - y0) + params.pad_px
    left, top = max(0.0, (x0 - grow_x) / scale), max(0.0, (y0 - grow_y) / scale)
    right, bottom = min(float(cols), (x1 + grow_x) / scale), min(float(rows), (y1 + grow_y) / scale)
    return int(left), int(top), int(np.ceil(right - left)), int(np.ceil(bottom - top))
