"""Where a die's top face is when the camera sees the die from low down.

A camera looking at the table from a low angle sees a die's side faces below its top face, pips and
all: the die's outline grows long along the camera's tilt, and a crop of the whole outline shows
three faces, any of which the reader may take for the value.  The top face is at one end of the long
outline (the far end: the top of the picture for a camera held upright), so the reader looks at each
end on its own.

Where the camera's mount is known (:class:`SideFaceParams`, learnt by "learn my dice", or voted on from the
camera's own recent frames, :class:`SideFaceVote`), a die's side faces lie the same way from its top face all over
the picture: a find there, of the die's colour, is that side face and no die of its own.

The same outline tells a die's square face from a disc (:func:`outline_fill`): a number token or a coin the reader
takes for a die with a symbol face.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

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
    die_disc: float = 0.45  # share_unlike_table: the pixels this many sides from a find's centre at most (its die) ...
    table_ring: tuple[float, float] = (0.75, 0.95)  # ... against the table's colour, the median over this ring ...
    unlike_table: float = 0.15  # ... one channel more than this (natural log of the ratio, about 16 %) above or below
    dark_offset: float = 4.0  # it (every channel counted this much brighter first: the darkest pixels' noise is no
    # colour), measured on the find's window brought down to window_px across at most
    window_px: int = 128


DEFAULT_TOP_FACE = TopFaceParams()


def die_outline(image_bgr: np.ndarray, centre: tuple[float, float], side: float,
                params: TopFaceParams = DEFAULT_TOP_FACE) -> tuple[int, int, int, int] | None:
    """The box (x, y, w, h) around the die at ``centre`` (found ``side`` px across): the pixels that differ from the
    table's colour (the median of a window's rim, ``side`` out from the centre) and connect to the centre; None when
    the centre is the table's colour or the outline reaches the window's rim (not a die on a table)."""
    found = _outline_pixels(image_bgr, centre, side, params)
    if found is None:
        return None
    pixels, (x0, y0) = found
    x, y, w, h = cv2.boundingRect(pixels)
    return x + x0, y + y0, w, h


def outline_fill(image_bgr: np.ndarray, centre: tuple[float, float], side: float,
                 params: TopFaceParams = DEFAULT_TOP_FACE) -> float | None:
    """How much of the smallest rectangle around the outline of :func:`die_outline` the outline fills (its convex
    hull): about 1 for a die's square face, even rounded or seen slanted, pi/4 for a disc such as a number token or a
    coin; None where :func:`die_outline` finds no outline."""
    found = _outline_pixels(image_bgr, centre, side, params)
    if found is None:
        return None
    hull = cv2.convexHull(cv2.findNonZero(found[0]))
    _, (width, height), _ = cv2.minAreaRect(hull)
    return float(cv2.contourArea(hull)) / max(width * height, 1.0)


def share_unlike_table(image_bgr: np.ndarray, centre: tuple[float, float], side: float,
                       params: TopFaceParams = DEFAULT_TOP_FACE) -> float | None:
    """The share of the pixels within ``params.die_disc`` x ``side`` of ``centre`` that are unlike the table: one of
    their channels more than ``params.unlike_table`` (natural log of the ratio) above or below the table's, the
    median over ``params.table_ring``. Ratios keep their size under a dim or coloured light. A die, even a white one
    on a light table, fills much of that disc with its body, pips, edges and shading; a speck, a stain or a glint on
    a plain table covers a few hundredths of it. None where the table's ring leaves the image."""
    reach = params.table_ring[1] * side
    x0, y0 = math.floor(centre[0] - reach), math.floor(centre[1] - reach)
    x1, y1 = math.ceil(centre[0] + reach) + 1, math.ceil(centre[1] + reach) + 1
    rows, cols = image_bgr.shape[:2]
    if x0 < 0 or y0 < 0 or x1 > cols or y1 > rows or side < 4:
        return None
    window = image_bgr[y0:y1, x0:x1]
    scale = min(1.0, params.window_px / max(window.shape[:2]))
    if scale < 1.0:   # a big die's window brought down to window_px across: shares keep, the time does not grow
        window = cv2.resize(window, (max(1, round(window.shape[1] * scale)), max(1, round(window.shape[0] * scale))),
                            interpolation=cv2.INTER_AREA)
    pixels = window.astype(np.float32) + params.dark_offset
    yy, xx = np.mgrid[: window.shape[0], : window.shape[1]]
    across = (x1 - x0) / window.shape[1], (y1 - y0) / window.shape[0]   # frame pixels per window pixel
    away = np.hypot(x0 + (xx + 0.5) * across[0] - 0.5 - centre[0], y0 + (yy + 0.5) * across[1] - 0.5 - centre[1]) / side
    table = np.median(pixels[(away >= params.table_ring[0]) & (away <= params.table_ring[1])], axis=0)
    unlike = np.abs(np.log(pixels[away <= params.die_disc] / table)).max(axis=1) > params.unlike_table
    return float(np.mean(unlike))


def _outline_pixels(image_bgr: np.ndarray, centre: tuple[float, float], side: float,
                    params: TopFaceParams) -> tuple[np.ndarray, tuple[int, int]] | None:
    """The mask of :func:`die_outline`'s pixels in its window, and the window's top-left corner in the image."""
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
    return (labels == label).astype(np.uint8), (x0, y0)


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


@dataclass(frozen=True)
class SideFaceVote:
    """How a camera's own frames tell where it shows side faces, without "learn my dice".  Two dice lying side by
    side are at least a side apart; two finds of one colour closer than that are a die and its side face, or dice
    lying at a slant to each other.  A camera held at a slant shows every die's side faces the same way, so such
    pairs agree on their way from the surer find to the less sure one; between dice lying together they point any
    way."""

    closest: float = 0.4   # a pair's two finds lie at least this many die sides apart ...
    farthest: float = 0.9  # ... and at most this many
    remembered: int = 20   # the vote counts the camera's latest this many pairs
    same_within: float = 0.25  # a pair is one seen before when its middle moved at most this many die sides ...
    same_way_within: float = 0.1  # ... and its way (in die sides) changed at most this much
    agreeing: int = 12     # at least this many of them must lie within a side face's reach of one way ...
    opposed: float = 0.5   # ... and at most this share as many the opposite way (seen from low down, a side face is
    # sometimes read surer than its top face: when that is common, which find is the top face is not known)
    side_faces: SideFaceParams = field(default_factory=lambda: SideFaceParams((0.0, 0.0)))  # colour match and reach


DEFAULT_SIDE_FACE_VOTE = SideFaceVote()


class ClosePair(NamedTuple):
    """Two finds of one colour closer than a die's side: the way from the surer to the less sure, in die sides
    (x right, y down), the point halfway between them and the larger find's side, in pixels."""

    way: tuple[float, float]
    centre: tuple[float, float]
    side: float

    def same_as(self, other: ClosePair, vote: SideFaceVote = DEFAULT_SIDE_FACE_VOTE) -> bool:
        """Whether ``other`` is this pair seen again (in the next frame of a still tray), within ``vote``'s
        ``same_within`` and ``same_way_within``."""
        moved = float(np.hypot(self.centre[0] - other.centre[0], self.centre[1] - other.centre[1]))
        turned = float(np.hypot(self.way[0] - other.way[0], self.way[1] - other.way[1]))
        return moved <= vote.same_within * self.side and turned <= vote.same_way_within


def close_pairs(centres: Sequence[tuple[float, float]], sides: Sequence[float], bodies_lab: Sequence[np.ndarray],
                confidences: Sequence[float], vote: SideFaceVote = DEFAULT_SIDE_FACE_VOTE) -> list[ClosePair]:
    """Each pair of finds of one colour lying ``vote.closest`` to ``vote.farthest`` die sides apart (the larger
    find's side), with its way from the surer find to the less sure one."""
    pairs = []
    for a in range(len(centres)):
        for b in range(a + 1, len(centres)):
            sure, unsure = (a, b) if confidences[a] >= confidences[b] else (b, a)
            side = max(sides[a], sides[b])
            way = np.subtract(centres[unsure], centres[sure]) / side
            if vote.closest <= float(np.hypot(*way)) <= vote.farthest and \
                    _alike(bodies_lab[a], bodies_lab[b], vote.side_faces):
                centre = (centres[a][0] + centres[b][0]) / 2, (centres[a][1] + centres[b][1]) / 2
                pairs.append(ClosePair((float(way[0]), float(way[1])), centre, float(side)))
    return pairs


def voted_offset(ways: Sequence[tuple[float, float]], vote: SideFaceVote = DEFAULT_SIDE_FACE_VOTE) -> tuple[float, float] | None:
    """The way at least ``vote.agreeing`` of ``ways`` agree on (the median of those within the side faces' reach
    of the way most lie near), or None when no way has that many, or when more than ``vote.opposed`` as many
    point the opposite way."""
    if len(ways) < vote.agreeing:
        return None
    points = np.asarray(ways, np.float64)
    near = np.hypot(*(points[:, None, :] - points[None, :, :]).transpose(2, 0, 1)) <= vote.side_faces.reach
    densest = int(np.argmax(near.sum(axis=1)))
    agreeing = int(near[densest].sum())
    opposed = int((np.hypot(*(points + points[densest]).T) <= vote.side_faces.reach).sum())
    if agreeing < vote.agreeing or opposed > vote.opposed * agreeing:
        return None
    offset = np.median(points[near[densest]], axis=0)
    return round(float(offset[0]), 3), round(float(offset[1]), 3)
