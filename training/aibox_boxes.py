"""Locate the single die in each aibox_pi_single photo, for training labels (that set has no boxes).

The tray is plain and bright, so the die is the one compact region that differs from a heavily
blurred copy of the photo (its pips, edges and shadow); the box is that region's bounding square.
A photo whose largest such region reaches the picture's edge gets no box: there a tray wall's edge or a
dark band along the bottom outweighs the die, and taking that region for the die taught the reader that
the die itself, found elsewhere in the photo, was no die.
"""
from __future__ import annotations

import cv2
import numpy as np

MIN_AREA = 150  # px: the least the die's region covers in a 640 px photo


def locate_single_die(image_bgr: np.ndarray) -> tuple[float, float, float] | None:
    """(centre x, centre y, side) of the one die in a plain-tray photo, or None if nothing stands out."""
    lab = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2Lab).astype(np.float32)
    background = cv2.GaussianBlur(lab, (0, 0), 25)
    diff = np.linalg.norm(lab - background, axis=2)
    mask = (diff > max(18.0, np.percentile(diff, 99.0))).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))
    count, _labels, stats, _centroids = cv2.connectedComponentsWithStats(mask)
    if count < 2:
        return None
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h, area = stats[best]
    height, width = mask.shape
    if area < MIN_AREA or x == 0 or y == 0 or x + w == width or y + h == height:
        return None
    return x + w / 2.0, y + h / 2.0, float(max(w, h))
