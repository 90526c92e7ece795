"""Undoing a slanted camera: a camera that looks at the tray from an angle sees square die faces
squashed along one direction; stretching the frame back along it lets the reader see squares again.

"Learn my dice" (:mod:`calibration.learn_dice`) picks the slant that reads the player's confirmed
rolls best.  Without it, :func:`surest_slant` looks for it in the frame itself: a squashed face is a
face the reader is unsure of, so the stretch whose dice the reader is surest of undoes the squash.
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


STRAIGHT = Stretch()
"""No stretch: a camera looking straight down."""
SLANT_DIRECTIONS = (0.0, 45.0, 90.0, 135.0)
"""Directions a slant is looked for in (degrees; 0: left-right, 90: up-down)."""
SLANT_FIRST_STRETCH = 1.3
"""The stretch each direction is first tried with (a camera tilted about 40 degrees)."""
SLANT_FURTHER_STRETCHES = (1.5, 1.75, 2.0)
"""Further stretches tried along the best direction while they read surer (2.0: tilted 60 degrees)."""


def mean_confidence(reading: Reading) -> float:
    """The mean confidence of a reading's dice (0 without dice)."""
    return sum(d.confidence for d in reading.dice) / len(reading.dice) if reading.dice else 0.0


def surest_slant(read_through, straight: Reading, margin: float) -> tuple[Reading, Stretch]:
    """The reading through the stretch whose dice ``read_through(stretch)`` (a frame's reading through
    ``stretch``, in the frame's pixels) is surest of, and that stretch; ``straight`` (the frame read as
    it is) and no stretch unless a stretch's dice average at least ``margin`` more confidence, no fewer
    of them.  Each of :data:`SLANT_DIRECTIONS` is tried at :data:`SLANT_FIRST_STRETCH`, then the best
    one further while it gains: 5 to 7 readings."""
    tried = [(read_through(stretch), stretch)
             for stretch in (Stretch(angle, SLANT_FIRST_STRETCH) for angle in SLANT_DIRECTIONS)]
    best, stretch = max(tried, key=lambda pair: mean_confidence(pair[0]))
    for factor in SLANT_FURTHER_STRETCHES:
        further = Stretch(stretch.angle_deg, factor)
        reading = read_through(further)
        if mean_confidence(reading) <= mean_confidence(best):
            break
        best, stretch = reading, further
    if mean_confidence(best) >= mean_confidence(straight) + margin and len(best.dice) >= len(straight.dice):
        return best, stretch
    return straight, STRAIGHT
