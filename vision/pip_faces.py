"""Which pip layouts are real die faces, and drawing of close-up faces with any layout.

A face's pips sit on a 3x3 grid (cells (row, col), 0..2).  Every real face is symmetric
about its centre and has 1-6 pips; :func:`is_real_layout` says whether a set of cells is
one of them.  The reader network is trained to call faces with other layouts "not a die"
(training/train_dice_nets.py draws them with :func:`draw_face`), which is how the reader
checks that what it counts is a real die face.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from vision import dice_net

Cell = tuple[int, int]
CORNERS = {(0, 0), (0, 2), (2, 0), (2, 2)}
REAL_LAYOUTS: dict[int, tuple[frozenset[Cell], ...]] = {
    1: (frozenset({(1, 1)}),),
    2: (frozenset({(0, 0), (2, 2)}), frozenset({(0, 2), (2, 0)})),
    3: (frozenset({(0, 0), (1, 1), (2, 2)}), frozenset({(0, 2), (1, 1), (2, 0)})),
    4: (frozenset(CORNERS),),
    5: (frozenset(CORNERS | {(1, 1)}),),
    6: (frozenset(CORNERS | {(1, 0), (1, 2)}), frozenset(CORNERS | {(0, 1), (2, 1)})),
}


def is_real_layout(cells) -> bool:
    """True when the cells are the pips of a real face (1-6, in either orientation)."""
    cells = frozenset(cells)
    return any(cells in layouts for layouts in REAL_LAYOUTS.values())


def odd_layout(rng: np.random.Generator) -> frozenset[Cell]:
    """A random pip layout no real face has: 7-9 pips, or a set not symmetric about the centre."""
    grid = [(r, c) for r in range(3) for c in range(3)]
    while True:
        n = int(rng.integers(2, 10))
        cells = frozenset(grid[i] for i in rng.choice(9, size=n, replace=False))
        symmetric = all((2 - r, 2 - c) in cells for r, c in cells)
        if n >= 7 or not symmetric:
            return cells


def draw_face(rng: np.random.Generator, cells, background: np.ndarray | None = None,
              size: int = dice_net.CROP_SIZE) -> np.ndarray:
    """A ``size`` px close-up of a die-like face with pips in ``cells``, framed as the reader's crops are."""
    up = 4
    big = size * up
    canvas = (cv2.resize(background, (big, big)) if background is not None
              else np.full((big, big, 3), rng.integers(40, 220, 3), np.uint8)).copy()
    side = big / dice_net.CROP_MARGIN * math.exp(rng.uniform(-0.1, 0.1))
    body = tuple(int(v) for v in rng.integers(0, 256, 3))
    pip = tuple(255 - v if abs(255 - 2 * v) > 60 else (0 if v > 127 else 255) for v in body)
    angle = rng.uniform(0, 2 * math.pi)
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    centre = np.array([big / 2, big / 2]) + rng.uniform(-0.05, 0.05, 2) * side
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * side / 2
    cv2.fillPoly(canvas, [np.round(corners @ rot.T + centre).astype(np.int32)], body, cv2.LINE_AA)
    offset, radius = side * rng.uniform(0.24, 0.29), side * rng.uniform(0.07, 0.1)
    for r, c in cells:
        at = np.array([(c - 1) * offset, (r - 1) * offset]) @ rot.T + centre
        cv2.circle(canvas, tuple(int(v) for v in np.round(at)), round(radius), pip, -1, cv2.LINE_AA)
    return cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)
