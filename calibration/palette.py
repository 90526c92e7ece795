"""Learning a colour palette from dice of known colour, and checking how well it separates.

Each colour's samples (``die_colour_features`` of dice of that colour) are grouped into a
few *shades* by k-means: a "red" set may hold solid red and marbled maroon dice, which sit
far apart in CIELAB.  Every shade becomes a :class:`PaletteColour` with the colour's name.
All shades share one spread (the pooled distance of the samples to their shade, measured as
``Palette.classify`` measures it), so the nearest centre wins: on the byler_d6 photos that
read colours better (0.983) than a spread per colour (0.972) or per shade (0.968).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from companion.errors import UserError
from vision.colour import Palette, PaletteColour

#: At most this many shades per colour ...
MAX_SHADES = 30
#: ... and at least this many samples behind each shade.
SAMPLES_PER_SHADE = 4
#: The shared spread never goes below this (Lab units): a handful of identical samples
#: would otherwise make every other die "unknown colour".
MIN_SPREAD = 2.0
#: A die is "unknown colour" beyond UNKNOWN_MARGIN x the 99th percentile of the learning
#: samples' distances to their own shade (in spreads).
UNKNOWN_QUANTILE = 0.99
UNKNOWN_MARGIN = 3.0
#: A colour is reported too close to another when, learning from half its dice and reading
#: the other half (both ways), fewer than this share are read right.
MIN_READ_RIGHT = 0.95
#: How a die that matches no colour is named in the report.
UNKNOWN = "unknown colour"


def kmeans(points: np.ndarray, k: int, iterations: int = 50) -> np.ndarray:
    """``k`` centres of ``points``: deterministic farthest-point start, then Lloyd's steps."""
    points = np.asarray(points, dtype=np.float64)
    k = max(1, min(k, len(points)))
    first = np.argmin(np.linalg.norm(points - points.mean(axis=0), axis=1))
    centres = [points[first]]
    for _ in range(1, k):
        gap = np.min(np.linalg.norm(points[:, None, :] - np.array(centres)[None], axis=2), axis=1)
        centres.append(points[int(np.argmax(gap))])
    centres = np.array(centres)
    for _ in range(iterations):
        nearest = np.argmin(np.linalg.norm(points[:, None, :] - centres[None], axis=2), axis=1)
        moved = np.array([points[nearest == i].mean(axis=0) if np.any(nearest == i) else centres[i]
                          for i in range(k)])
        if np.allclose(moved, centres):
            break
        centres = moved
    return centres


def learn_palette(samples: dict[str, np.ndarray], max_shades: int = MAX_SHADES) -> Palette:
    """A palette from Lab samples per colour name (each an N x 3 array, N >= 1)."""
    if not samples:
        raise UserError("no dice to learn colours from")
    shades: list[tuple[str, np.ndarray]] = []
    distances: list[np.ndarray] = []
    for name, points in samples.items():
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        if len(points) == 0:
            raise UserError(f"no dice of colour {name!r} to learn from")
        k = min(max_shades, max(1, len(points) // SAMPLES_PER_SHADE))
        centres = [tuple(round(float(v), 3) for v in c) for c in kmeans(points, k)]
        shades += [(name, c) for c in centres]
        distances.append(_distances_to(centres, points))
    unit = np.concatenate(distances)
    spread = max(float(np.sqrt(np.mean(unit ** 2))), MIN_SPREAD)
    max_distance = float(UNKNOWN_MARGIN * np.quantile(unit / spread, UNKNOWN_QUANTILE))
    colours = tuple(PaletteColour(name, centre, round(spread, 3)) for name, centre in shades)
    return Palette(colours, round(max(max_distance, 1.0), 3))


def _distances_to(centres: list[tuple[float, float, float]], points: np.ndarray) -> np.ndarray:
    """Each point's distance to its nearest centre, measured as the reader's Palette measures it."""
    nearest = Palette(tuple(PaletteColour("shade", c, 1.0) for c in centres), float("inf"))
    return np.array([nearest.classify(p)[1] for p in points])


@dataclass(frozen=True)
class Separation:
    """How one colour stands apart from the others under this light."""

    colour: str
    samples: int
    read_right: float           # cross-checked share of its dice read right (see ``separation``)
    confused_with: str | None   # the colour its misread dice were most often taken for
    nearest: str | None         # the closest other colour ...
    delta_e: float              # ... and the Lab distance between their closest shades

    @property
    def too_close(self) -> bool:
        return self.read_right < MIN_READ_RIGHT

    def line(self) -> str:
        near = f"nearest {self.nearest} (delta E {self.delta_e:.1f})" if self.nearest else "the only colour"
        if not self.too_close:
            return f"{self.colour:<10} {self.samples:4d} dice  {self.read_right:6.1%} read right  {near}  ok"
        other = self.confused_with or self.nearest
        problem = "often not recognised" if other == UNKNOWN else f"too close to {other}"
        return (f"{self.colour:<10} {self.samples:4d} dice  {self.read_right:6.1%} read right  {near}  "
                f"WARNING: {problem}: add more of these dice or improve the light")


def _halves(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return points[0::2], points[1::2]


def separation(palette: Palette, samples: dict[str, np.ndarray], max_shades: int = MAX_SHADES) -> list[Separation]:
    """Per colour: how many of its dice a palette learnt from the *other* half reads right, and
    its nearest other colour in ``palette``.

    The dice are split alternately in two halves; a palette learnt from one half reads the
    other, both ways round.  A colour with a single die is read by a palette learnt from all.
    """
    samples = {name: np.asarray(p, dtype=np.float64).reshape(-1, 3) for name, p in samples.items()}
    first = {n: _halves(p)[0] for n, p in samples.items()}
    second = {n: _halves(p)[1] for n, p in samples.items()}
    checks = []
    for learn, read in ((first, second), (second, first)):
        usable = {n: p for n, p in learn.items() if len(p)}
        checks.append((learn_palette(usable, max_shades) if usable else palette, read))
    report = []
    for name, points in samples.items():
        wrong: Counter[str] = Counter()
        readings = ([(check_palette, read[name]) for check_palette, read in checks] if len(points) >= 2
                    else [(palette, points)])
        right = total = 0
        for check_palette, read in readings:
            for p in read:
                got = check_palette.classify(p)[0]
                total += 1
                right += got == name
                if got != name:
                    wrong[got or UNKNOWN] += 1
        own = [c for c in palette.colours if c.name == name]
        others = [c for c in palette.colours if c.name != name]
        nearest, best = None, float("inf")
        for a in own:
            for b in others:
                gap = float(np.linalg.norm(np.subtract(a.centre_lab, b.centre_lab)))
                if gap < best:
                    nearest, best = b.name, gap
        report.append(Separation(name, len(points), right / total if total else 1.0,
                                 wrong.most_common(1)[0][0] if wrong else None,
                                 nearest, best if nearest else 0.0))
    return report
