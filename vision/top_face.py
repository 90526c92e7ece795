"""Where a die's top face is when the camera sees the die from low down.

A camera looking at the table from a low angle sees a die's side faces below its top face, pips and
all: the die's outline grows long along the camera's tilt, and a crop of the whole outline shows
three faces, any of which the reader may take for the value.  The top face is at one end of the long
outline (the far end: the top of the picture for a camera held upright), so the reader looks at each
end on its own.

Where the camera's mount is known (:class:`SideFaceParams`, learnt by "learn my dice"), a die's side faces
lie the same way from its top face all over the picture: a find there, of the die's colour, is that side
face and no die of its own.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class TopFaceParams:
    """How a die's outline is measured and where its top face is looked for."""

    table_distance: float = 20.0  # CIELAB distance (lightness counted half) from the surrounding table's colour
    # from which a pixel belongs to the die
    elongation: float = 1.4  # an outline at least this many times as long as it is wide shows side faces
    longest: float = 1.5  # an outline longer than this many times the finder's side is more than one die: not measured
    inset: float = 0.4  # the top face's centre lies this many outline widths in from an end of the outline ...
    crop_side: float = 1.2  # ... and is read as a die this many outline widths across


DEFAULT_TOP_FACE = TopFaceParams()


def die_outline(image_bgr: np.ndarray, centre: tuple[float, float], side: float,
                params: TopFaceParams = DEFAULT_TOP_FACE) -> tuple[int, int, int, int] | None:
    """The box (x, y, w, h) around the die at ``centre`` (found ``side`` px across): the pixels that differ from the
    table's colour (the median of a window's rim, ``side`` out from the centre) and connect to the centre; None when
    the centre is the table's colour or the outline reaches the window's rim (not a die on a table)."""
    rows, cols = image_bgr.shape[:2]
    x0, y0 = int(max(centre[0] - side, 0)), int(max(centre[1] - side, 0))
    x1, y1 = int(min(centre[0] + side, cols)), int(min(centre[1] + side, rows))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    lab = cv2.cvtColor(image_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2LAB).astype(np.float32)
    rim = np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]])
    distance = np.linalg.norm((lab - np.median(rim, axis=0)) * np.array([0.5, 1.0, 1.0], np.float32), axis=2)
    mask = cv2.morphologyEx((distance > params.table_distance).astype(np.uint8), cv2.MORPH_CLOSE,
                            np.ones((5, 5), np.uint8))
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    label = labels[min(int(centre[1]) - y0, y1 - y0 - 1), min(int(centre[0]) - x0, x1 - x0 - 1)]
    if label == 0:
        return None
    x, y, w, h = (int(v) for v in stats[label, :4])
    if x == 0 or y == 0 or x + w == x1 - x0 or y + h == y1 - y0:
        return None
    return x + x0, y + y0, w, h


def top_face_looks(outline: tuple[int, int, int, int], side: float,
                   params: TopFaceParams = DEFAULT_TOP_FACE) -> list[tuple[float, float, float]]:
    """Where to read a die whose outline is ``outline`` for its top face alone: (x, y, side) at each end of a long
    outline; none for an outline not long enough to show side faces, or too long for one die found ``side`` across."""
    x, y, w, h = outline
    long, short = max(w, h), min(w, h)
    if short <= 0 or long < params.elongation * short or long > params.longest * side:
        return []
    crop, inset = params.crop_side * short, params.inset * short
    if h >= w:
        return [(x + w / 2, y + inset, crop), (x + w / 2, y + h - inset, crop)]
    return [(x + inset, y + h / 2, crop), (x + w - inset, y + h / 2, crop)]


@dataclass(frozen=True)
class SideFaceParams:
    """Where a die's side faces show in this camera's picture, and how closely a find must match to be one."""

    offset: tuple[float, float]  # from a die's centre to the centre of its side faces, in die sides (x right, y down)
    reach: float = 0.4  # a find within this many of the die's sides from that point ...
    lightness: float = 40.0  # ... whose body's CIELAB lightness differs from the die's by at most this (side faces
    # are shaded) ...
    colour: float = 25.0  # ... and its colour (a, b) by at most this, is the die's side face


def side_face_finds(centres: Sequence[tuple[float, float]], sides: Sequence[float], bodies_lab: Sequence[np.ndarray],
                    params: SideFaceParams) -> set[int]:
    """The indices of the finds that are another find's side face: they lie ``params.offset`` sides from it
    (within ``reach``) with a body of its colour.  The closest matches are taken first; a find taken for a
    side face has no side faces of its own, and one that has side faces is a die."""
    matches = []
    for a, (centre, side) in enumerate(zip(centres, sides)):
        expected = np.add(centre, np.multiply(params.offset, side))
        for b, other in enumerate(centres):
            gap = float(np.hypot(*(np.subtract(other, expected)))) / side
            if b != a and gap <= params.reach and _alike(bodies_lab[a], bodies_lab[b], params):
                matches.append((gap, a, b))
    side_faces: set[int] = set()
    dice: set[int] = set()
    for _, a, b in sorted(matches):
        if a not in side_faces and b not in dice:
            side_faces.add(b)
            dice.add(a)
    return side_faces


def _alike(lab_a: np.ndarray, lab_b: np.ndarray, params: SideFaceParams) -> bool:
    return abs(float(lab_a[0] - lab_b[0])) <= params.lightness and \
        float(np.hypot(*(lab_a[1:] - lab_b[1:]))) <= params.colour
