"""Undoing a slanted camera: a camera that looks at the tray from an angle sees square die faces
squashed along one direction; stretching the frame back along it lets the reader see squares again.

The slant (direction and amount) is not measured here: "learn my dice"
(:mod:`calibration.learn_dice`) picks the one that reads the player's confirmed rolls best.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.types import Reading


@dataclass(frozen=True)
class Stretch:
    """Stretch a frame by ``factor`` along the direction ``angle_deg`` (0: left-right, 90: up-down)."""

    angle_deg: float = 0.0
    factor: float = 1.0

    @property
    def is_identity(self) -> bool:
        return self.factor == 1.0

    def matrix(self, shape: tuple[int, ...]) -> tuple[np.ndarray, tuple[int, int]]:
        """The 2x3 affine matrix from frame to stretched frame for a frame of ``shape``, and the
        stretched frame's (width, height), every corner of the frame inside it."""
        a = math.radians(self.angle_deg)
        u = np.array([math.cos(a), math.sin(a)])
        linear = np.eye(2) + (self.factor - 1.0) * np.outer(u, u)
        rows, cols = shape[:2]
        corners = linear @ np.array([[0, cols, cols, 0], [0, 0, rows, rows]], np.float64)
        low = corners.min(axis=1)
        size = np.ceil(corners.max(axis=1) - low).astype(int)
        return np.hstack([linear, -low[:, None]]), (int(size[0]), int(size[1]))

    def apply(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The stretched frame and the matrix that made it."""
        matrix, size = self.matrix(frame.shape)
        return cv2.warpAffine(frame, matrix, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), matrix

    def undo(self, reading: Reading, matrix: np.ndarray) -> Reading:
        """``reading`` of the stretched frame with every die placed back in the frame's own pixels
        (a die's box keeps its area)."""
        back = cv2.invertAffineTransform(matrix)
        shrink = 1.0 / math.sqrt(self.factor)
        dice = []
        for die in reading.dice:
            cx, cy = back @ np.array([die.center[0], die.center[1], 1.0])
            side = die.bbox[2] * shrink
            dice.append(replace(die, center=(float(cx), float(cy)),
                                bbox=(float(cx) - side / 2, float(cy) - side / 2, side, side)))
        return replace(reading, dice=tuple(dice))


def read_stretched(frame: np.ndarray, stretch: Stretch, read) -> Reading:
    """``read(frame)`` through ``stretch``: positions in ``frame``'s pixels."""
    if stretch.is_identity:
        return read(frame)
    stretched, matrix = stretch.apply(frame)
    return stretch.undo(read(stretched), matrix)
