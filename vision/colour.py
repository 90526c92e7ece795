"""Naming a die's colour: features from the die's pixels, matched to a palette.

The step is swappable: :func:`die_colour_features` is a pure function of (image, bbox)
and a :class:`Palette` is plain data, so a calibration profile can learn its own
palette centres from the same features and hand that palette to the reader.

The default palette (``default_palette.json``) names ten colours, each by one to three shades
(how dice of that colour look: solid and marbled, bright and dark):

- DYCE's eight: white (the round counter), blue, red and yellow (natural whiskies), green, orange,
  purple and black (blended whiskies);
- ivory and brown, common in other dice sets.

A game whose dice come in known colours names only those: ``default_palette().only(names)`` (or
``companion read --colours a,b,...``), so that, say, a white die under a warm lamp cannot be "ivory".
Before naming, the reader undoes the light's colour (:mod:`vision.light`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

DEFAULT_PALETTE_FILE = Path(__file__).with_name("default_palette.json")

#: Share of the box (centred) whose pixels describe the top face's body colour.
BODY_WINDOW = 0.6
BODY_SAMPLES = 32  # most pixels across the body window that are looked at
#: The table is sampled in a ring around the box, from this many times its size to this many (the ring's median
#: colour; dice touching the die are fewer than half of it).
TABLE_RING = (1.15, 1.5)
TABLE_SAMPLES = 16  # most pixels across the ring's outer square that are looked at (plenty for a median)
#: A window pixel this far (CIELAB, lightness counted at TABLE_LIGHTNESS_WEIGHT) from the table's colour is not
#: table; when at least MIN_BODY_SHARE of the window is not table, the body is looked for among those pixels
#: only, so that a die seen at a slant (squashed inside its square box) is not named after the table showing
#: above and below it.  A die of the table's own colour leaves less than that (its pips), and its whole window
#: is used, as before.  On the public sets' untouched photos the share is 0.61 or more for 95 % of the coloured
#: dice (0.44 at least) and 0.35 or less for 95 % of the white ones (a wood die with five big pips reaches 0.45,
#: a white die ringed by other dice more).  Byler at 50° oblique: 167 -> 176 of 179 held-out colours right; no die of any
#: set or robustness row named worse.
TABLE_DISTANCE = 15.0
TABLE_LIGHTNESS_WEIGHT = 0.5
MIN_BODY_SHARE = 0.5


@dataclass(frozen=True)
class PaletteColour:
    """One named colour: its centre in CIELAB (L 0-100, a/b signed) and its spread.

    ``spread`` is the typical distance (in Lab units) of this colour's dice from the
    centre; distances are divided by it, so a wide colour accepts more.
    """

    name: str
    centre_lab: tuple[float, float, float]
    spread: float

    def __post_init__(self):
        if len(self.centre_lab) != 3 or self.spread <= 0:
            raise ValueError(f"colour {self.name!r}: needs 3 Lab values and a positive spread")


@dataclass(frozen=True)
class Palette:
    """Colours to choose from; a die farther than ``max_distance`` spreads from all gets no name.

    Several entries may share a name (a colour as it looks in dim and in bright light).
    Differences in lightness count ``lightness_weight`` times as much as in hue, since the
    light on the table changes L far more than a and b.
    """

    colours: tuple[PaletteColour, ...]
    max_distance: float
    lightness_weight: float = 0.5

    def classify(self, features: np.ndarray) -> tuple[str | None, float]:
        """The nearest colour's name (or None when none is near enough) and its distance in spreads."""
        name, distance, _ = self.classify_with_margin(features)
        return name, distance

    def margin(self, features: np.ndarray) -> float:
        """How much farther (in spreads) the nearest colour of another name is than the nearest colour:
        small when two names fit the die almost as well."""
        return self.classify_with_margin(features)[2]

    def classify_with_margin(self, features: np.ndarray) -> tuple[str | None, float, float]:
        """:meth:`classify`'s name and distance, and :meth:`margin`, from one look at the palette."""
        ranked = sorted(self._distances_by_name(features).items(), key=lambda item: item[1])
        if not ranked:
            return None, float("inf"), float("inf")
        name, distance = ranked[0]
        margin = ranked[1][1] - distance if len(ranked) > 1 else float("inf")
        return (name if distance <= self.max_distance else None), distance, margin

    def _distances_by_name(self, features: np.ndarray) -> dict[str, float]:
        """Each name's distance in spreads from the Lab colour ``features``: that of its nearest shade."""
        lab = np.asarray(features, dtype=np.float64)[:3]
        weights = np.array([self.lightness_weight, 1.0, 1.0])
        distances: dict[str, float] = {}
        for colour in self.colours:
            dist = float(np.linalg.norm((lab - np.asarray(colour.centre_lab)) * weights) / colour.spread)
            distances[colour.name] = min(dist, distances.get(colour.name, float("inf")))
        return distances

    def nearest_distances(self, lab: np.ndarray) -> np.ndarray:
        """Each Lab row's distance (in spreads, measured as :meth:`classify` does) to its nearest colour."""
        lab = np.asarray(lab, dtype=np.float64).reshape(-1, 3)
        weights = np.array([self.lightness_weight, 1.0, 1.0])
        centres = np.array([c.centre_lab for c in self.colours])
        spreads = np.array([c.spread for c in self.colours])
        gaps = np.linalg.norm((lab[:, None, :] - centres[None]) * weights, axis=2) / spreads
        return gaps.min(axis=1)

    def only(self, names) -> Palette:
        """This palette with only the colours named in ``names`` (a game whose dice come in known colours);
        ValueError for a name the palette lacks."""
        names, known = set(names), list(dict.fromkeys(c.name for c in self.colours))
        missing = names - set(known)
        if missing:
            raise ValueError(f"the palette has no colour {', '.join(sorted(missing))} (it has {', '.join(known)})")
        return Palette(tuple(c for c in self.colours if c.name in names), self.max_distance, self.lightness_weight)

    def to_json(self) -> dict:
        return {
            "max_distance": self.max_distance,
            "lightness_weight": self.lightness_weight,
            "colours": [{"name": c.name, "centre_lab": list(c.centre_lab), "spread": c.spread} for c in self.colours],
        }

    @classmethod
    def from_json(cls, data: dict) -> Palette:
        colours = tuple(
            PaletteColour(str(c["name"]), tuple(float(v) for v in c["centre_lab"]), float(c["spread"]))
            for c in data["colours"]
        )
        if not colours:
            raise ValueError("a palette needs at least one colour")
        return cls(colours, float(data["max_distance"]), float(data.get("lightness_weight", 0.5)))


def default_palette() -> Palette:
    """The palette used until a calibration profile exists (``default_palette.json``)."""
    return Palette.from_json(json.loads(DEFAULT_PALETTE_FILE.read_text()))


def _to_lab(pixels_bgr: np.ndarray) -> np.ndarray:
    """BGR uint8 pixels (N x 3) to CIELAB with L 0-100 and signed a/b."""
    lab = cv2.cvtColor(np.ascontiguousarray(pixels_bgr).reshape(-1, 1, 3).astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)
    return lab.reshape(-1, 3)


def _sampled(image_bgr: np.ndarray, cx: float, cy: float, half_w: float, half_h: float, samples: int = BODY_SAMPLES):
    """The pixels of the window centred on (cx, cy), about ``samples`` across at most (a big window is sampled
    evenly): (rows x cols x 3 BGR, the columns' x, the rows' y), or None when it lies outside the image."""
    rows, cols = image_bgr.shape[:2]
    x0, x1 = int(max(cx - half_w, 0)), int(min(cx + half_w + 1, cols))
    y0, y1 = int(max(cy - half_h, 0)), int(min(cy + half_h + 1, rows))
    if x1 <= x0 or y1 <= y0:
        return None
    step = max(1, round(max(x1 - x0, y1 - y0) / samples))  # a die's colour needs no more pixels
    return np.ascontiguousarray(image_bgr[y0:y1:step, x0:x1:step]), np.arange(x0, x1, step), np.arange(y0, y1, step)


def _table_colour(image_bgr: np.ndarray, cx: float, cy: float, w: float, h: float) -> np.ndarray | None:
    """The CIELAB colour of the ring around a die's box (its pixels' median, see :data:`TABLE_RING`), or None
    off the image."""
    inner, outer = TABLE_RING
    around = _sampled(image_bgr, cx, cy, w * outer / 2.0, h * outer / 2.0, TABLE_SAMPLES)
    if around is None:
        return None
    pixels, xs, ys = around
    ring = (np.abs(xs - cx) > w * inner / 2.0)[None, :] | (np.abs(ys - cy) > h * inner / 2.0)[:, None]
    return _to_lab(np.median(pixels[ring], axis=0))[0] if ring.sum() >= 8 else None


def die_body(image_bgr: np.ndarray, bbox) -> tuple[np.ndarray, np.ndarray]:
    """The die body's pixels, the top face without its pips: (N x 3 BGR uint8, the same in CIELAB).

    Takes the central window of ``bbox`` (x, y, w, h), leaves out the table's colour when most of the window
    is something else (see :data:`MIN_BODY_SHARE`), and keeps the pixels nearest the median colour of the rest
    (the body is most of the face; pips and glare are the rest).
    """
    x, y, w, h = (float(v) for v in bbox)
    cx, cy = x + w / 2.0, y + h / 2.0
    sampled = _sampled(image_bgr, cx, cy, max(w * BODY_WINDOW / 2.0, 1.0), max(h * BODY_WINDOW / 2.0, 1.0))
    if sampled is None:
        rows, cols = image_bgr.shape[:2]
        raise ValueError(f"box {tuple(bbox)} lies outside the {cols}x{rows} image")
    bgr, lab = sampled[0].reshape(-1, 3), _to_lab(sampled[0])
    table = _table_colour(image_bgr, cx, cy, w, h)
    if table is not None:
        weights = np.array([TABLE_LIGHTNESS_WEIGHT, 1.0, 1.0])
        not_table = np.linalg.norm((lab - table) * weights, axis=1) > TABLE_DISTANCE
        if not_table.mean() >= MIN_BODY_SHARE:
            bgr, lab = bgr[not_table], lab[not_table]
    dist = np.linalg.norm(lab - np.median(lab, axis=0), axis=1)
    body = dist <= np.percentile(dist, 60)
    return bgr[body], lab[body]


def body_features(body_bgr: np.ndarray, gains_bgr=None) -> np.ndarray:
    """``[L, a, b]``: the mean CIELAB colour of body pixels, seen under a light corrected by ``gains_bgr``
    (per-channel gains; None: as they are)."""
    pixels = np.asarray(body_bgr, dtype=np.float32).reshape(-1, 3)
    if gains_bgr is not None:
        pixels = np.clip(pixels * np.asarray(gains_bgr, np.float32), 0, 255)
    return _to_lab(pixels).mean(axis=0)


def die_colour_features(image_bgr: np.ndarray, bbox) -> np.ndarray:
    """The die body's colour: ``[L, a, b]`` (CIELAB) of the top face without its pips (see :func:`die_body`)."""
    return die_body(image_bgr, bbox)[1].mean(axis=0)
