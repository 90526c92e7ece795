"""A die's pips counted without a network: round spots on its face that stand out from the body around them
and lie as a real face's pips do.

The face network reads the dice it was trained on almost perfectly and dice it never saw much worse; spots
counted this way do not depend on what the network learnt, so the reader asks for them when the network is
unsure of a value (``ReaderParams.pip_count``). Counting is careful rather than complete: it gives no value
when the spots it finds do not all belong to one real face (a glint, a side face's pips, marbling), so that a
count it gives can be trusted more than the network's doubtful one.

Steps, each a small function: :func:`spot_contrast` (each pixel's CIELAB distance from the body's colour),
:func:`find_spots` (round spots of that contrast, found over several thresholds), :func:`face_value` (the
spots forming a real face's layout) and :func:`plain_where_no_pips` (nothing pip-like where that face has no
pip: a pip hidden by a glint must not make a 5 a 4).  Where the spots are no real face, a second look by colour
(:func:`pip_likeness`) keeps only what has the colour of one of them: the swirls of a marbled die, a glint at
a pip's edge, a fleck beside the pips fade, and the pips are counted as before.  Where neither look gives a count,
both are taken again with the body's colour measured over a wider square (big pips crowd the narrow one), and
last :func:`round_pips_value` counts the roundest spots alone: a slanted die's top face, its side faces' pips
foreshortened into ovals beside it.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from itertools import combinations

import cv2
import numpy as np

from vision import dice_net, remember


@dataclass(frozen=True)
class PipCountParams:
    """How pips are looked for; lengths and areas are shares of the die's side (areas of its square) but min_side."""

    min_side: float = 20.0  # px in the frame: a smaller die's pips are a few pixels each, lost to blur and JPEG
    crop_px: int = 96  # the die's crop (side x dice_net.CROP_MARGIN) is resampled to this many px across
    face_radius: float = 0.5  # spots are looked for this far from the die's centre at most
    body_kernel: float = 0.3  # the body colour around a pixel is the median over a square this wide ...
    wide_body_kernel: float = 0.45  # ... or, where that gives no count, this wide: big pips crowd the narrow
    # square, so that the median there is a pip's colour and the pips stand out only at their rims (0: never)
    body_middle: float = 0.3  # ... or the median within this distance of the die's centre, whichever is nearer
    min_contrast: float = 15.0  # a spot differs from the body around it by at least this CIELAB distance
    min_area: float = 0.002  # a spot's area lies between these
    max_area: float = 0.07
    min_circularity: float = 0.6  # a spot is this round at least (4 pi area / perimeter squared) ...
    min_inertia: float = 0.4  # ... no more elongated than this (least / greatest second moment) ...
    min_convexity: float = 0.8  # ... and this convex (area / convex hull's area)
    spot_area_range: tuple[float, float] = (0.35, 3.0)  # spots whose area lies outside this range of the spots'
    # median area are something else (a glint, a speck, a shadow)
    area_spread: float = 2.0  # the pips of one face differ in area by at most this factor
    symmetry: float = 0.22  # each pip's mirror image through the face's centre lies this near another pip
    # (share of the farthest pip's distance from the centre)
    centre_pip: float = 0.3  # a pip this near the face's centre (same share) is its middle pip
    reach: tuple[float, float] = (0.1, 0.55)  # the farthest pip lies this far from the face's centre
    face_centre: float = 0.2  # the face's centre lies this near the die's centre
    lone_pip: float = 0.14  # a face's only spot is its 1 when it lies this near the die's centre
    colour_seeds: int = 3  # spots that are no real face are looked at again by colour (:func:`pip_likeness`), the
    # pips' colour taken from each of this many of them in turn, strongest first: a face's pips share one colour,
    # marbling and glints do not (0: never)
    loose_circularity: float = 0.4  # spots this loosely round (circularity, inertia, convexity) are looked for too:
    loose_inertia: float = 0.3  # where the first look finds no spot they give the pips' colour (a pip with a glint
    loose_convexity: float = 0.6  # at its edge is round in its own colour), and one as strong as the pips lying
    # apart from the face's places means no count (a slanted side face's pips beside the face)
    pip_weight: float = 2.0  # the second look weighs a pixel's distance from the pips' colour this many times its
    # distance from the body
    plain: float = 0.5  # where the face's value puts no pip (its middle, other corners, sides' middles), the
    # contrast stays below this share of its pips' (else a pip was missed: a glint on it, a pip worn pale)
    round_inertia: float = 0.65  # where no look above gives a count, the spots at least this round (inertia and
    round_circularity: float = 0.7  # circularity) are counted alone, their face up to off_centre_face from the die's
    off_centre_face: float = 0.3  # centre: a slanted die's top face, whose side faces' pips are foreshortened into
    # ovals beside it (3-6 only: two round spots are as often two pips of a row; round_inertia 0: never), ...
    round_plain: float = 0.4  # ... with its empty places plainer than for the looks above (plain)


DEFAULT_PIP_COUNT = PipCountParams()


@dataclass(frozen=True)
class Spot:
    """A round spot in a crop: its centre (px) and area (px squared)."""

    x: float
    y: float
    area: float


def spot_contrast(crop_bgr: np.ndarray, side_px: float, params: PipCountParams = DEFAULT_PIP_COUNT) -> np.ndarray:
    """How far each pixel's colour lies from the die's body, x2, as uint8: the smaller of its CIELAB distance
    from the median colour around it (a square ``params.body_kernel`` x ``side_px`` wide: a marbled body's
    colour where it is) and from the median colour of the face's middle (``params.body_middle`` x ``side_px``
    around the crop's centre: the body's colour where big pips crowd the square around a pixel)."""
    lab = cv2.cvtColor(crop_bgr, cv2.COLOR_BGR2LAB)
    local = cv2.medianBlur(lab, max(3, int(params.body_kernel * side_px) | 1)).astype(np.float32)
    lab = lab.astype(np.float32)
    whole = np.median(lab[_disc(crop_bgr.shape[0], params.body_middle * side_px)], axis=0)
    distance = np.sqrt(np.minimum(_squared_length(lab - local), _squared_length(lab - whole)))
    return np.clip(distance * 2.0, 0, 255).astype(np.uint8)


def _squared_length(colours: np.ndarray) -> np.ndarray:
    """Each pixel's squared length of its three channels (numpy's sum over a last axis of 3 is several times slower)."""
    return colours[..., 0] * colours[..., 0] + colours[..., 1] * colours[..., 1] + colours[..., 2] * colours[..., 2]


@functools.lru_cache(maxsize=8)
def _disc(size: int, radius: float) -> np.ndarray:
    """A size x size mask of the pixels within ``radius`` of the middle."""
    yy, xx = np.mgrid[:size, :size]
    middle = (size - 1) / 2.0
    return (xx - middle) ** 2 + (yy - middle) ** 2 <= radius ** 2


def pip_likeness(crop_bgr: np.ndarray, contrast: np.ndarray, pip: Spot,
                 params: PipCountParams = DEFAULT_PIP_COUNT) -> np.ndarray:
    """How much each pixel looks like the pip at ``pip`` rather than the body, x255, as uint8: d_body^2 /
    (d_body^2 + (params.pip_weight x d_pip)^2), d_body from ``contrast`` (:func:`spot_contrast`), d_pip the CIELAB
    distance from the pip's median colour. The pips of one die share a colour, so marbling, swirls and glints
    that differ from the body as much as its pips, but in another colour, fade."""
    lab = cv2.cvtColor(crop_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    mask = np.zeros(contrast.shape, np.uint8)
    cv2.circle(mask, (round(pip.x), round(pip.y)), max(1, round(0.5 * math.sqrt(pip.area / math.pi))), 1, -1)
    pip_colour = np.median(lab[mask > 0], axis=0)
    body = contrast.astype(np.float32) / 2.0
    to_pip = params.pip_weight * np.sqrt(_squared_length(lab - pip_colour))
    likeness = body ** 2 / np.maximum(body ** 2 + to_pip ** 2, 1e-6)
    return np.clip(likeness * 255.0, 0, 255).astype(np.uint8)


def strongest_first(contrast: np.ndarray, spots: list[Spot]) -> list[Spot]:
    """``spots``, those whose middle stands out most in ``contrast`` first."""
    return sorted(spots, key=lambda s: -_mean_around(contrast, (s.x, s.y), 0.5 * math.sqrt(s.area / math.pi)))


def find_spots(contrast: np.ndarray, side_px: float, params: PipCountParams = DEFAULT_PIP_COUNT) -> list[Spot]:
    """Round spots of ``contrast`` (:func:`spot_contrast`) found at two thresholds or more, centred within
    ``params.face_radius`` of the crop's centre, those whose area is far from the others' median left out."""
    blob = cv2.SimpleBlobDetector_Params()
    blob.blobColor = 255
    blob.minThreshold, blob.maxThreshold, blob.thresholdStep = 2.0 * params.min_contrast, 220.0, 10.0
    blob.minRepeatability = 2
    blob.filterByArea = True
    blob.minArea, blob.maxArea = params.min_area * side_px ** 2, params.max_area * side_px ** 2
    blob.filterByCircularity, blob.minCircularity = True, params.min_circularity
    blob.filterByInertia, blob.minInertiaRatio = True, params.min_inertia
    blob.filterByConvexity, blob.minConvexity = True, params.min_convexity
    blob.minDistBetweenBlobs = 0.08 * side_px
    middle = (contrast.shape[0] - 1) / 2.0
    spots = [Spot(k.pt[0], k.pt[1], math.pi * (k.size / 2.0) ** 2)
             for k in cv2.SimpleBlobDetector_create(blob).detect(contrast)
             if math.hypot(k.pt[0] - middle, k.pt[1] - middle) <= params.face_radius * side_px]
    if len(spots) > 1:
        median = float(np.median([s.area for s in spots]))
        low, high = params.spot_area_range
        spots = [s for s in spots if low * median <= s.area <= high * median]
    return spots


def layout_value(points: np.ndarray, side_px: float, params: PipCountParams = DEFAULT_PIP_COUNT) -> int | None:
    """The value of a face whose pips lie at ``points`` (2-6 of them, px), or None when they do not lie as a
    real face's do.  Only shapes a slanted camera keeps are asked for: pips in mirror pairs through the centre,
    a middle pip on odd faces alone, four corners not in a line, a six's middle pips halfway along two sides."""
    count = len(points)
    offsets = points - points.mean(axis=0)
    radii = np.linalg.norm(offsets, axis=1)
    farthest = float(radii.max())
    if not (params.reach[0] * side_px <= farthest <= params.reach[1] * side_px):
        return None
    middle = radii < params.centre_pip * farthest
    if middle.sum() != count % 2:
        return None
    outer = offsets[~middle]
    mirrored = np.linalg.norm(outer[:, None] + outer[None], axis=2).min(axis=1)
    if (mirrored > params.symmetry * farthest).any():
        return None
    if count in (4, 5):
        spread = max(abs(outer[0][0] * o[1] - outer[0][1] * o[0]) for o in outer) / farthest ** 2
        return count if spread > 0.3 else None
    if count == 6:
        by_radius = outer[np.argsort(np.linalg.norm(outer, axis=1))]
        middle_pip, corners = by_radius[0], by_radius[2:]
        halfway = any(np.linalg.norm((a + b) / 2.0 - middle_pip) <= params.symmetry * farthest
                      for a, b in combinations(corners, 2))
        return 6 if halfway else None
    return count


def empty_places(points: np.ndarray, value: int) -> np.ndarray:
    """Where a face of ``value`` (2-6) whose pips lie at ``points`` has no pip: its middle (even values), the
    corners of the other diagonal (2, 3) and the middles of its sides (4, 5; a six's other two)."""
    centre = points.mean(axis=0)
    offsets = points - centre
    radii = np.linalg.norm(offsets, axis=1)
    if value in (2, 3):
        corner = offsets[radii.argmax()]
        across = np.array([-corner[1], corner[0]])
        places = [across, -across]
    else:
        corners = offsets[np.argsort(radii)[-4:]]
        a = corners[0]
        b = next(c for c in corners[1:] if np.linalg.norm(c + a) > 0.5 * radii.max())
        sides = [(a + b) / 2.0, (a - b) / 2.0]
        if value == 6:
            in_use = min(sides, key=lambda m: min(np.linalg.norm(offsets - m, axis=1)))
            sides = [m for m in sides if m is not in_use]
        places = [m for side_middle in sides for m in (side_middle, -side_middle)]
    if value % 2 == 0:
        places.append(np.zeros(2))
    return centre + np.array(places)


def _mean_around(contrast: np.ndarray, place, radius: float) -> float:
    """The mean of ``contrast`` over the disc of ``radius`` (at least 1 px) at ``place`` (0 outside the map)."""
    x, y, r = round(place[0]), round(place[1]), max(1, round(radius))
    x0, y0 = max(0, x - r), max(0, y - r)
    window = contrast[y0:max(0, y + r + 1), x0:max(0, x + r + 1)]
    if window.size == 0:
        return 0.0
    mask = np.zeros(window.shape, np.uint8)
    cv2.circle(mask, (x - x0, y - y0), r, 1, -1)
    return float(window[mask > 0].mean()) if mask.any() else 0.0


def plain_where_no_pips(contrast: np.ndarray, spots: list[Spot], value: int,
                        params: PipCountParams = DEFAULT_PIP_COUNT) -> bool:
    """True when, at each of the :func:`empty_places` of a face of ``value`` with pips at ``spots``, the
    contrast stays below ``params.plain`` x its pips' (a 1 has none to look at)."""
    if value < 2:
        return True
    points = np.array([(s.x, s.y) for s in spots])
    pip_radius, strength = _pip_strength(contrast, spots)
    return all(_mean_around(contrast, p, 0.7 * pip_radius) < params.plain * strength
               for p in empty_places(points, value))


def _pip_strength(spot_map: np.ndarray, pips: list[Spot]) -> tuple[float, float]:
    """The pips' median radius (px) and how much they stand out in ``spot_map``: the median of its mean over the
    middle of each (0.7 of that radius)."""
    pip_radius = math.sqrt(float(np.median([s.area for s in pips])) / math.pi)
    return pip_radius, float(np.median([_mean_around(spot_map, (s.x, s.y), 0.7 * pip_radius) for s in pips]))


def face_value(spots: list[Spot], side_px: float, die_centre: tuple[float, float],
               params: PipCountParams = DEFAULT_PIP_COUNT) -> int | None:
    """The value the spots show when every one of them is a pip of one real face centred on the die (a lone
    spot: a 1 near the die's centre), else None."""
    if not spots or len(spots) > 6:
        return None
    points = np.array([(s.x, s.y) for s in spots])
    if len(spots) == 1:
        return 1 if np.linalg.norm(points[0] - die_centre) <= params.lone_pip * side_px else None
    areas = [s.area for s in spots]
    if max(areas) > params.area_spread * min(areas):
        return None
    if np.linalg.norm(points.mean(axis=0) - die_centre) > params.face_centre * side_px:
        return None
    return layout_value(points, side_px, params)


def count_pips(image_bgr: np.ndarray, centre: tuple[float, float], side: float,
               params: PipCountParams = DEFAULT_PIP_COUNT) -> int | None:
    """The pips on the die at ``centre`` (side ``side`` px) of an 8-bit BGR image, or None when the spots
    there are not one real face's, by contrast or by one spot's colour, the body's colour taken around each
    pixel (``params.body_kernel``, then ``params.wide_body_kernel``), nor the roundest spots alone
    (:func:`round_pips_value`), or the die is smaller than ``params.min_side``."""
    if side < params.min_side:
        return None
    crop = dice_net.crop_die(image_bgr, centre, side, size=params.crop_px)
    return remember.once(("pips", params), crop, lambda: _count_in_die_crop(crop, params))


def _count_in_die_crop(crop: np.ndarray, params: PipCountParams) -> int | None:
    """:func:`count_pips` of a die's crop (``params.crop_px`` across)."""
    side_px = params.crop_px / dice_net.CROP_MARGIN
    kernels = (params.body_kernel, params.wide_body_kernel) if params.wide_body_kernel > 0 else (params.body_kernel,)
    contrasts = []
    for kernel in kernels:
        contrast = spot_contrast(crop, side_px, replace(params, body_kernel=kernel))
        value = _count_in_crop(crop, contrast, side_px, params)
        if value is not None:
            return value
        contrasts.append(contrast)
    for contrast in contrasts:
        value = round_pips_value(contrast, side_px, params)
        if value is not None:
            return value
    return None


def _count_in_crop(crop: np.ndarray, contrast: np.ndarray, side_px: float, params: PipCountParams) -> int | None:
    """The face shown by the spots of ``contrast`` (the crop's :func:`spot_contrast`), or after a second look by
    the colour of one of them (:func:`pip_likeness`)."""
    spots = find_spots(contrast, side_px, params)
    value = _face_value_shown(contrast, spots, side_px, params)
    if value is not None:
        return value
    seeds = spots or find_spots(contrast, side_px, loosely_round(params))
    for seed in strongest_first(contrast, seeds)[:params.colour_seeds]:
        likeness = pip_likeness(crop, contrast, seed, params)
        again = find_spots(likeness, side_px, params)
        value = _face_value_shown(likeness, again, side_px, params)
        if value is not None and plain_where_no_pips(contrast, again, value, params):
            return value
    return None


def round_pips_value(contrast: np.ndarray, side_px: float, params: PipCountParams = DEFAULT_PIP_COUNT) -> int | None:
    """The face (3-6) shown by the spots of ``contrast`` at least ``params.round_inertia`` and
    ``params.round_circularity`` round, centred up to ``params.off_centre_face`` of the side from the die's centre,
    with nothing pip-like where it has no pip (``params.round_plain``): a slanted die's top face, the foreshortened
    pips of its side faces left out (None: no such face, or round_inertia 0)."""
    if params.round_inertia <= 0:
        return None
    round_only = replace(params, min_inertia=params.round_inertia, min_circularity=params.round_circularity,
                         face_centre=params.off_centre_face, plain=params.round_plain)
    spots = find_spots(contrast, side_px, round_only)
    middle = (contrast.shape[0] - 1) / 2.0
    value = face_value(spots, side_px, (middle, middle), round_only)
    if value is None or value < 3 or not plain_where_no_pips(contrast, spots, value, round_only):
        return None
    return value


def _face_value_shown(spot_map: np.ndarray, spots: list[Spot], side_px: float, params: PipCountParams) -> int | None:
    """:func:`face_value` of ``spots`` found in ``spot_map`` (a crop's contrast or pip likeness), when
    :func:`plain_where_no_pips` agrees on that map."""
    middle = (spot_map.shape[0] - 1) / 2.0
    value = face_value(spots, side_px, (middle, middle), params)
    if value is None or not plain_where_no_pips(spot_map, spots, value, params):
        return None
    return None if strong_spot_left_out(spot_map, find_spots(spot_map, side_px, loosely_round(params)), spots, value,
                                        params) else value


def loosely_round(params: PipCountParams) -> PipCountParams:
    """``params`` with the ``loose_`` roundness in place of the pips' own."""
    return replace(params, min_circularity=params.loose_circularity, min_inertia=params.loose_inertia,
                   min_convexity=params.loose_convexity)


def strong_spot_left_out(spot_map: np.ndarray, loose: list[Spot], pips: list[Spot], value: int,
                         params: PipCountParams = DEFAULT_PIP_COUNT) -> bool:
    """Whether a spot of ``loose`` (:func:`loosely_round`'s, in ``spot_map``) lies more than a pip's diameter from
    every place of a face of ``value`` with ``pips`` (the pips and :func:`empty_places`, where
    :func:`plain_where_no_pips` rules) and stands out at least ``params.plain`` x as much as the pips: a slanted side
    face's pips beside the face counted."""
    points = np.array([(s.x, s.y) for s in pips])
    places = np.vstack([points, empty_places(points, value)]) if value >= 2 else points
    pip_radius, strength = _pip_strength(spot_map, pips)
    for spot in loose:
        apart = bool((np.hypot(*(places - (spot.x, spot.y)).T) > 2.0 * pip_radius).all())
        if apart and _mean_around(spot_map, (spot.x, spot.y), 0.7 * math.sqrt(spot.area / math.pi)) >= \
                params.plain * strength:
            return True
    return False
