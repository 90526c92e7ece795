"""Synthetic dice photos with exact truth, for training, tests and the simulated camera.

:func:`render_scene` draws a dice tray seen from above: a textured floor, dice of the
requested values and colours at random positions, rotations and sizes (no two dice
overlap, touching is allowed, every die lies fully inside the frame), real die-face pip
layouts, rounded corners and bevels, soft shadows, a lighting gradient, glare spots,
blur and sensor noise.  The same arguments and seed always give the same image.

Every tunable number lives in :data:`DEFAULTS` (a :class:`RenderSettings`); pass
``settings=RenderSettings(...)`` or keyword overrides to change it.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

import cv2
import numpy as np

from companion.engine import Die
from companion.errors import UserError
from vision.dice_net import squashed
from vision.solid_die import Lamp, SolidDie, render_solid_die

__all__ = [
    "BACKGROUNDS",
    "COLOURED_PIPS",
    "DEFAULTS",
    "DEFAULT_PIP_COLOUR",
    "DIE_COLOURS",
    "LIGHTS",
    "PIP_COLOURS",
    "PIP_SHAPES",
    "SYMBOL_KINDS",
    "RenderSettings",
    "SynthDie",
    "pip_layout",
    "random_scene",
    "render_scene",
]

# Base body colours (BGR) of plain plastic dice, named as the reader's default palette names them.
DIE_COLOURS: dict[str, tuple[int, int, int]] = {
    "white": (238, 240, 240),
    "ivory": (174, 215, 236),
    "yellow": (30, 205, 245),
    "orange": (25, 125, 240),
    "red": (40, 35, 200),
    "green": (70, 160, 35),
    "blue": (190, 95, 25),
    "purple": (125, 40, 110),
    "black": (32, 30, 30),
    "brown": (41, 77, 111),
}

PIP_COLOURS: dict[str, tuple[int, int, int]] = {
    "white": (240, 240, 240),
    "black": (25, 25, 25),
    "red": (35, 30, 210),
    "yellow": (40, 215, 245),
    "gold": (60, 180, 215),
    "blue": (200, 90, 20),
}

# Pips real dice of each body colour usually have (dark pips on light dice, white on dark).
DEFAULT_PIP_COLOUR: dict[str, str] = {
    "white": "black", "ivory": "black", "yellow": "black", "orange": "black",
    "red": "white", "green": "white", "blue": "white", "purple": "white",
    "black": "white", "brown": "white",
}

# Coloured pips seen on real dice sets (the hard case "coloured pips").
COLOURED_PIPS: dict[str, tuple[str, ...]] = {
    "white": ("red", "blue"), "ivory": ("red", "blue"), "yellow": ("red", "blue"),
    "orange": ("blue", "white"), "red": ("yellow", "gold"), "green": ("yellow", "gold"),
    "blue": ("red", "yellow"), "purple": ("yellow", "gold"), "black": ("red", "yellow"),
    "brown": ("gold", "yellow"),
}

# Tray floors (BGR base colour, texture kind).
BACKGROUNDS: dict[str, tuple[tuple[int, int, int], str]] = {
    "grey_card": ((172, 176, 178), "speckle"),
    "green_felt": ((55, 105, 40), "felt"),
    "wood": ((70, 120, 165), "wood"),
    "light_wood": ((190, 208, 222), "wood"),
    "white_sheet": ((222, 224, 226), "speckle"),
    "dark_felt": ((62, 56, 56), "felt"),
    "blue_felt": ((120, 70, 35), "felt"),
}


# The colour of the light on the tray, as per-channel (B, G, R) gains over the whole frame, glare included:
# what a camera's white balance leaves of a lamp's colour.  Each keeps a grey's brightness (the camera's
# auto exposure), so a bright die may clip in one channel as it does in photos.  Warm is a tungsten lamp
# (about 3000 K) seen by a camera set for daylight, cool is shade or overcast daylight (about 8000 K)
# seen by a camera set for indoor light: red / blue about 1.5 and 1 / 1.5.
PIP_SHAPES = ("round", "ring", "square")
"""Pip shapes :func:`render_scene` draws; the reader's networks were trained on round pips only."""
SYMBOL_KINDS = ("star", "crescent", "sun", "letter")  # what a maker puts on a face in place of its pips
MIN_TOP_FACE_SHRINK = 0.3  # the most a slanted camera foreshortens a top face (a tilt of 73 degrees)

LIGHTS: dict[str, tuple[float, float, float]] = {
    "neutral": (1.0, 1.0, 1.0),
    "warm": (0.77, 0.96, 1.16),
    "cool": (1.22, 1.05, 0.83),
}


@dataclass(frozen=True)
class RenderSettings:
    """The numbers behind a synthetic scene; each range is (low, high), drawn per scene or per die."""

    die_size: tuple[float, float] = (25.0, 250.0)   # side of a die in pixels (25-250 px across)
    size_spread: float = 0.06          # per-die size variation around the scene's size (fraction)
    corner_radius: tuple[float, float] = (0.10, 0.20)   # rounded corner radius, fraction of the side
    bevel: tuple[float, float] = (0.05, 0.09)   # width of the darker rounded edge, fraction of the side
    pip_offset: tuple[float, float] = (0.25, 0.29)      # pip grid offset from the centre, fraction of the side
    pip_radius: tuple[float, float] = (0.075, 0.095)   # pip radius, fraction of the side
    brightness_jitter: float = 0.08    # +- share of brightness a die's body colour varies by
    colour_jitter: float = 0.05        # +- gain per BGR channel on top of that (a tint, as white balance gives)
    min_gap: float = 3.0               # pixels between dice that are not touching
    frame_margin: float = 2.0          # pixels between a die and the frame edge
    touching: float = 0.0              # chance that a die is placed against another one
    glare: float = 0.15                # chance that a die carries a glare spot
    glare_strength: tuple[float, float] = (50.0, 110.0)   # added brightness at a glare spot's centre
    coloured_pips: float = 0.0         # chance that a die has coloured pips instead of black/white
    symbol_faces: float = 0.0          # chance that a die showing 1 or 6 has a maker's symbol there instead of pips
    symbol_kinds: tuple[str, ...] = SYMBOL_KINDS   # the symbols drawn, each as likely
    pip_shape: str = "round"           # one of PIP_SHAPES: round, ring (engraved outline) or square
    marble: float = 0.1                # chance that a die's plastic is marbled
    veined: float = 0.0                # chance that a flat die's face is swirled with veins of a second colour
    vein_width: tuple[float, float] = (0.06, 0.25)   # how wide its veins are (share of the swirl's spread)
    vein_strength: tuple[float, float] = (0.5, 1.0)  # how fully a vein's middle takes the second colour
    translucent: float = 0.0           # chance that a flat die's plastic shows the pips of its hidden faces through it
    see_through: tuple[float, float] = (0.15, 0.45)  # how strongly the nearest hidden pips show (they fade with depth)
    parallax: tuple[float, float] = (0.05, 0.3)      # how far the bottom face's pips lie off the top face's, in sides
    slanted_view: float = 0.0          # chance that the camera looks at a slant, showing side faces
    slant: tuple[float, float] = (0.12, 0.35)   # how far side faces show, fraction of the side
    slant_direction_deg: float | None = None   # the way side faces show from the top face (0 right, 90 down); None: any
    tray_wall: float = 0.0             # chance that the tray's walls show at the frame's edges
    tray_wall_width: tuple[float, float] = (0.04, 0.10)  # wall width, fraction of the frame's short side
    light_gradient: tuple[float, float] = (0.0, 0.30)   # brightness change across the frame
    vignette: tuple[float, float] = (0.0, 0.18)         # darkening in the corners
    light: str = "neutral"             # the light's colour, one of LIGHTS
    shadow_strength: tuple[float, float] = (0.25, 0.5)  # darkening under a die's shadow
    shadow_offset: tuple[float, float] = (0.03, 0.10)   # shadow shift, fraction of the side
    blur_sigma: tuple[float, float] = (0.0, 0.9)        # Gaussian blur of the whole frame, pixels
    noise_sigma: tuple[float, float] = (1.0, 5.0)       # Gaussian sensor noise, grey levels
    jpeg: float = 0.3                  # chance that the frame goes through JPEG compression, as photos do
    jpeg_quality: tuple[int, int] = (70, 95)            # JPEG quality when it does
    max_placement_tries: int = 400     # random positions tried per die before shrinking the dice
    solid_dice: float = 0.0            # chance that a die is drawn as a lit solid (vision.solid_die) instead of flat
    solid_corner_radius: tuple[float, float] = (0.08, 0.16)  # rounding of a solid die's edges, share of the side
    pip_depth: tuple[float, float] = (0.25, 0.6)        # a solid die's pip hollows, deep by this share of their radius
    lamp_elevation_deg: tuple[float, float] = (30.0, 85.0)   # the lamp's height above the table, for solid dice
    ambient: tuple[float, float] = (0.25, 0.6)          # share of a solid die's colour seen away from the lamp
    gloss: tuple[float, float] = (0.05, 0.5)            # brightness of a solid die's highlight
    shininess: tuple[float, float] = (8.0, 60.0)        # how tight that highlight is (Blinn-Phong exponent)
    engraved_pips: float = 0.1         # chance that a solid die's pips are hollows left unpainted


DEFAULTS = RenderSettings()


@dataclass(frozen=True)
class SynthDie:
    """The truth about one drawn die: what the reader should report for it."""

    value: int
    colour: str
    pip_colour: str
    center: tuple[float, float]
    bbox: tuple[float, float, float, float]
    rotation: float      # degrees, counter-clockwise, of the face's pip grid
    side: float          # pixels
    touching: bool = False
    glare: bool = False
    symbol: bool = False  # the top face shows a symbol, not pips: no number to read

    def to_die(self) -> Die:
        return Die(self.value, self.colour)

    def to_json(self) -> dict:
        return {
            "value": self.value,
            "colour": self.colour,
            "pip_colour": self.pip_colour,
            "center": [round(c, 1) for c in self.center],
            "bbox": [round(c, 1) for c in self.bbox],
            "rotation": round(self.rotation, 1),
            **({"pips_visible": False} if self.symbol else {}),
        }


def pip_layout(value: int, turned: bool = False) -> list[tuple[float, float]]:
    """Pip centres of a die face in grid units (-1, 0, 1); ``turned`` mirrors 2, 3 and 6."""
    layouts = {
        1: [(0, 0)],
        2: [(-1, -1), (1, 1)],
        3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
    }
    points = layouts[value]
    if turned and value in (2, 3, 6):
        points = [(y, -x) for x, y in points]   # a quarter turn: the other diagonal, rows instead of columns
    return [(float(x), float(y)) for x, y in points]


@dataclass
class _Placed:
    value: int
    colour: str
    pip_colour: str
    cx: float
    cy: float
    side: float
    angle: float          # radians
    touching: bool = False
    lift: tuple[float, float] = (0.0, 0.0)   # where the die's base shows, seen from a slanted camera
    symbol: bool = False                     # a symbol on the top face instead of pips

    def corners(self) -> np.ndarray:
        """The top face's sharp corners, in frame pixels, in order around the square."""
        half = self.side / 2
        c, s = math.cos(self.angle), math.sin(self.angle)
        local = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        rot = np.array([[c, -s], [s, c]])
        return local @ rot.T + (self.cx, self.cy)

    @cached_property
    def polygon(self) -> np.ndarray:
        """Everything of the die the camera sees: the top face and any side faces (convex)."""
        top = self.corners()
        if self.lift == (0.0, 0.0):
            return top
        both = np.vstack([top, top + self.lift]).astype(np.float32)
        return cv2.convexHull(both).reshape(-1, 2).astype(np.float64)

    @property
    def reach(self) -> float:
        """Radius of a circle round the centre that holds the whole die."""
        return self.side / math.sqrt(2) + math.hypot(*self.lift)


def _gap(a: _Placed, b: _Placed) -> float:
    """Separating distance between two dice's outlines (negative when they overlap)."""
    pa, pb = a.polygon, b.polygon
    edges = np.vstack([np.roll(pa, -1, axis=0) - pa, np.roll(pb, -1, axis=0) - pb])
    lengths = np.hypot(edges[:, 0], edges[:, 1])
    keep = lengths > 1e-9
    axes = np.stack([-edges[keep, 1], edges[keep, 0]], axis=1) / lengths[keep, None]
    proj_a, proj_b = pa @ axes.T, pb @ axes.T
    return float(np.max(np.maximum(proj_b.min(0) - proj_a.max(0), proj_a.min(0) - proj_b.max(0))))


def _apart(a: _Placed, b: _Placed, need: float) -> bool:
    """True when the two dice are at least ``need`` pixels apart (negative: may overlap that much)."""
    if math.hypot(a.cx - b.cx, a.cy - b.cy) - a.reach - b.reach >= need:
        return True          # far apart: no need for the exact test
    return _gap(a, b) >= need


def _normalise(item) -> tuple[int, str | None, str | None]:
    if isinstance(item, Die):
        value, colour, pips = item.value, item.colour, None
    elif isinstance(item, int):
        value, colour, pips = item, None, None
    elif isinstance(item, (tuple, list)) and 1 <= len(item) <= 3:
        value, colour, pips = (list(item) + [None, None])[:3]
    else:
        raise UserError(f"synthetic die must be a Die, a value or (value, colour[, pip colour]), not {item!r}")
    if not isinstance(value, (int, np.integer)) or not 1 <= int(value) <= 6:
        raise UserError(f"synthetic die value must be 1 to 6, not {value!r}")
    if colour is not None and colour not in DIE_COLOURS:
        raise UserError(f"unknown die colour {colour!r} (known: {', '.join(DIE_COLOURS)})")
    if pips is not None and pips not in PIP_COLOURS:
        raise UserError(f"unknown pip colour {pips!r} (known: {', '.join(PIP_COLOURS)})")
    return int(value), colour, pips


def _rng_range(rng: np.random.Generator, bounds: tuple[float, float]) -> float:
    return float(rng.uniform(bounds[0], bounds[1])) if bounds[1] > bounds[0] else float(bounds[0])


def _smooth_noise(rng: np.random.Generator, w: int, h: int, cell: int) -> np.ndarray:
    """Low-frequency noise in about -1..1, ``cell`` pixels per random sample."""
    small = rng.standard_normal((max(2, h // cell + 2), max(2, w // cell + 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _background(rng: np.random.Generator, w: int, h: int, name: str) -> np.ndarray:
    base, texture = BACKGROUNDS[name]
    base_arr = np.array(base, np.float32) + rng.uniform(-12, 12, 3).astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base_arr
    blotches = _smooth_noise(rng, w, h, 48)[..., None] * 6.0
    if texture == "wood":
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        theta = rng.uniform(0, math.pi)
        along = xs * math.cos(theta) + ys * math.sin(theta)
        warp = _smooth_noise(rng, w, h, 150) * 30.0        # grain lines wander gently
        phase = (along + warp) * rng.uniform(0.04, 0.1)
        grain = 0.7 * np.sin(phase) + 0.3 * np.sin(2.7 * phase + 1.0)
        img *= (1.0 + 0.06 * grain[..., None] + 0.03 * _smooth_noise(rng, w, h, 6)[..., None])
    elif texture == "felt":
        img += rng.standard_normal((h, w, 1), dtype=np.float32) * np.float32(4.0)
    else:  # speckle: card or paper with a few dark fibres
        img += rng.standard_normal((h, w, 1), dtype=np.float32) * np.float32(2.5)
        for _ in range(int(w * h / 40000)):
            x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
            cv2.circle(img, (x, y), 1, tuple(float(c) * 0.6 for c in base_arr), -1, cv2.LINE_AA)
    return img + blotches


def _draw_tray_wall(rng: np.random.Generator, img: np.ndarray, width: float) -> float:
    """Paint the tray's walls along the frame's edges, with the shade they cast; returns their width."""
    h, w = img.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    inside = np.minimum(np.minimum(xs, w - 1 - xs), np.minimum(ys, h - 1 - ys))   # distance from the edge
    wall_colour = np.array(rng.choice([(40, 38, 36), (25, 25, 30), (150, 150, 155), (60, 90, 130)]), np.float32)
    wall = np.clip((width - inside) / 1.5, 0, 1)[..., None]           # the wall itself, anti-aliased
    shade = np.clip(1 - (inside - width) / (0.6 * width), 0, 1)[..., None] * (1 - wall) * 0.35
    texture = 1 + 0.06 * _smooth_noise(rng, w, h, 24)[..., None]
    img *= 1 - shade
    img[:] = img * (1 - wall) + wall_colour * texture * wall
    return float(np.ceil(width)) + 1


def _window(frame_shape, x0: int, y0: int, patch_shape) -> tuple[tuple[slice, slice], tuple[slice, slice]]:
    """Slices of the frame and of a patch placed with its corner at (x0, y0), clipped to the frame."""
    fh, fw = frame_shape[:2]
    ph, pw = patch_shape[:2]
    lx, ly = max(0, -x0), max(0, -y0)
    hx, hy = min(pw, fw - x0), min(ph, fh - y0)
    return (slice(y0 + ly, y0 + hy), slice(x0 + lx, x0 + hx)), (slice(ly, hy), slice(lx, hx))


def _rounded_square(side: float, radius: float, angle: float, centre: tuple[float, float], k: float) -> np.ndarray:
    """Polygon of a rounded square (supersampled by ``k``) as int32 points for cv2."""
    half = side / 2
    r = min(radius, half)
    points = []
    for qx, qy, start in ((1, 1, 0), (-1, 1, 90), (-1, -1, 180), (1, -1, 270)):
        cx, cy = qx * (half - r), qy * (half - r)
        for step in range(0, 91, 10):
            a = math.radians(start + step)
            points.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    pts = np.array(points)
    c, s = math.cos(angle), math.sin(angle)
    pts = pts @ np.array([[c, -s], [s, c]]).T + centre
    return np.round(pts * k).astype(np.int32)


def _draw_die(rng: np.random.Generator, die: _Placed, cfg: RenderSettings, lamp: Lamp | None = None):
    """Render one die into a small patch (as a lit solid under ``lamp``, by the chance ``cfg.solid_dice``).

    Returns (x0, y0, colour float32 HxWx3, alpha float32 HxW, face polygon, outline polygon),
    the polygons in frame pixels.  A camera that sees side faces ``d`` of a side deep looks at the tray
    tilted by asin(d), so the top face shrinks to cos of that tilt along the slant: the die is drawn with
    side faces 1/cos as deep and the patch squashed along the slant.
    """
    depth = math.hypot(*die.lift) / die.side
    shrink = math.sqrt(max(1.0 - depth ** 2, MIN_TOP_FACE_SHRINK ** 2))
    # drawn only when solid dice are asked for, so that every other scene stays as it was
    if lamp is not None and not die.symbol and rng.random() < cfg.solid_dice:
        return _draw_solid_die(rng, die, cfg, lamp, math.acos(shrink))
    if depth == 0.0:
        return _draw_upright_die(rng, die, cfg)
    x0, y0, colour, alpha, face_pts, outline_pts = _draw_upright_die(
        rng, replace(die, lift=(die.lift[0] / shrink, die.lift[1] / shrink)), cfg)
    squash = _squash(shrink, np.array(die.lift) / (depth * die.side))
    matrix = squashed(np.eye(2, 3), squash, (die.cx - x0, die.cy - y0))
    size = (alpha.shape[1], alpha.shape[0])
    colour = cv2.warpAffine(colour, matrix, size, flags=cv2.INTER_LINEAR)
    alpha = cv2.warpAffine(alpha, matrix, size, flags=cv2.INTER_LINEAR)
    at_die = np.array([die.cx, die.cy])
    face_pts, outline_pts = (((pts - at_die) @ squash.T + at_die).astype(np.float32) for pts in (face_pts, outline_pts))
    return x0, y0, colour, alpha, face_pts, outline_pts


def _squash(shrink: float, direction: np.ndarray) -> np.ndarray:
    """The 2x2 map that shrinks pictures to ``shrink`` along the unit vector ``direction`` (a tilted camera's view)."""
    return np.eye(2) + (shrink - 1.0) * np.outer(direction, direction)


def _patch_bounds(die: _Placed, pad: int = 3) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1) of a frame patch holding ``die``'s top face turned any way and its side faces."""
    lx, ly = die.lift
    extent = die.side * math.sqrt(2) / 2 + pad
    return (math.floor(die.cx - extent + min(lx, 0)), math.floor(die.cy - extent + min(ly, 0)),
            math.ceil(die.cx + extent + max(lx, 0)), math.ceil(die.cy + extent + max(ly, 0)))


def _body_colour(rng: np.random.Generator, name: str, cfg: RenderSettings) -> np.ndarray:
    """A die's plastic: the colour ``name`` with its own brightness and tint (``cfg``'s jitters), BGR float32."""
    body = np.array(DIE_COLOURS[name], np.float32) * (1 + rng.uniform(-1, 1) * cfg.brightness_jitter)
    body *= 1 + rng.uniform(-cfg.colour_jitter, cfg.colour_jitter, 3).astype(np.float32)
    return np.clip(body, 0, 255)


def _maybe_marbled(rng: np.random.Generator, colour: np.ndarray, side: float, cfg: RenderSettings) -> np.ndarray:
    """``colour`` (a die's patch) swirled as marbled plastic, by the chance ``cfg.marble``."""
    if rng.random() < cfg.marble:
        rows, cols = colour.shape[:2]
        swirl = np.clip(_smooth_noise(rng, cols, rows, max(3, int(side / 5))), -1, 1)[..., None]
        colour *= 1.0 + 0.18 * swirl
    return colour


def _draw_veins(rng: np.random.Generator, canvas: np.ndarray, face: np.ndarray, side_px: float,
                cfg: RenderSettings) -> None:
    """Swirled plastic on a die's ``face`` (a polygon in ``canvas``, the die ``side_px`` across there): veins of
    white, black or another body colour along the level lines of smooth noise, before the pips are painted on."""
    rows, cols = canvas.shape[:2]
    swirl = _smooth_noise(rng, cols, rows, max(3, int(side_px / rng.uniform(1.5, 4.0))))
    width = _rng_range(rng, cfg.vein_width)
    share = np.exp(-((swirl - rng.uniform(-0.5, 0.5)) / width) ** 2) * _rng_range(rng, cfg.vein_strength)
    inside = np.zeros((rows, cols), np.uint8)
    cv2.fillPoly(inside, [face], 1)
    share = (share * inside)[..., None]
    kind = rng.random()
    second = (DIE_COLOURS["white"] if kind < 0.4 else DIE_COLOURS["black"] if kind < 0.7
              else DIE_COLOURS[str(rng.choice(list(DIE_COLOURS)))])
    canvas[:] = np.clip(canvas * (1.0 - share) + np.array(second, np.float32) * share, 0, 255).astype(canvas.dtype)


def _draw_hidden_pips(rng: np.random.Generator, canvas: np.ndarray, face: np.ndarray, centre: tuple[float, float],
                      side_px: float, die: _Placed, offset: float, pip_r: float, pip: np.ndarray,
                      cfg: RenderSettings) -> None:
    """Translucent plastic on a die's ``face`` (a polygon in ``canvas``; centre, side, pip offset and radius in
    canvas pixels): the pips of its bottom and side faces seen through the body, as a camera a little off straight
    above sees a clear cube (each point moved along one direction in proportion to its depth), softened and fading
    with depth, before the top face's pips are painted on."""
    side_values = _side_values(rng, die.value, 2)
    across, down, depth = np.eye(3)  # in sides: across and down the top face, and down into the die
    # each hidden face: its value, its middle and two directions along it (the bottom seen from above is mirrored)
    hidden = ((7 - die.value, depth, (-across, down)),
              (side_values[0], 0.5 * across + 0.5 * depth, (down, depth)),
              (7 - side_values[0], -0.5 * across + 0.5 * depth, (down, depth)),
              (side_values[1], 0.5 * down + 0.5 * depth, (across, depth)),
              (7 - side_values[1], -0.5 * down + 0.5 * depth, (across, depth)))
    way = rng.uniform(0, 2 * math.pi)
    shift = _rng_range(rng, cfg.parallax) * side_px * np.array([math.cos(way), math.sin(way)])
    turn = np.array([[math.cos(die.angle), -math.sin(die.angle)], [math.sin(die.angle), math.cos(die.angle)]])
    ghosts = np.zeros(canvas.shape[:2], np.float32)
    ring = np.linspace(0, 2 * math.pi, 12, endpoint=False)
    for value, middle, along in hidden:
        for gx, gy in pip_layout(value, turned=bool(rng.integers(0, 2))):
            edge = np.array([middle + (along[0] * (gx * offset + pip_r * math.cos(t))
                                       + along[1] * (gy * offset + pip_r * math.sin(t))) / side_px for t in ring])
            seen = edge[:, :2] * side_px + edge[:, 2:] * shift   # deeper points lie further along the shift
            outline = (seen @ turn.T + centre) * 16
            fading = 1.0 - 0.6 * float(edge[:, 2].mean())
            cv2.fillPoly(ghosts, [np.round(outline).astype(np.int32)], fading, cv2.LINE_AA, 4)
    inside = np.zeros(canvas.shape[:2], np.float32)
    cv2.fillPoly(inside, [face], 1.0)
    soft = cv2.GaussianBlur(ghosts, (0, 0), max(0.5, 0.03 * side_px)) * inside * _rng_range(rng, cfg.see_through)
    canvas[:] = np.clip(canvas * (1.0 - soft[..., None]) + pip * soft[..., None], 0, 255).astype(canvas.dtype)


def _draw_upright_die(rng: np.random.Generator, die: _Placed, cfg: RenderSettings):
    """:func:`_draw_die` with the top face square, side faces (if any) just added beside it."""
    side = die.side
    x0, y0, x1, y1 = _patch_bounds(die)
    pw, ph = x1 - x0, y1 - y0
    k = 4 if side < 60 else 2 if side < 140 else 1
    centre = (die.cx - x0, die.cy - y0)

    body = _body_colour(rng, die.colour, cfg)
    bevel_frac = _rng_range(rng, cfg.bevel)
    radius_frac = _rng_range(rng, cfg.corner_radius)
    canvas = np.zeros((ph * k, pw * k, 3), np.uint8)
    alpha = np.zeros((ph * k, pw * k), np.uint8)

    outline = _rounded_square(side, side * radius_frac, die.angle, centre, k)
    if die.lift != (0.0, 0.0):
        outline = _draw_sides(rng, canvas, alpha, die, outline, body, (centre[0] - die.cx, centre[1] - die.cy), k, cfg)
    top = _rounded_square(side, side * radius_frac, die.angle, centre, k)
    cv2.fillPoly(alpha, [top], 255, cv2.LINE_AA)
    edge = tuple(float(c) for c in body * 0.72)
    cv2.fillPoly(canvas, [top], edge, cv2.LINE_AA)
    face_side = side * (1 - 2 * bevel_frac)
    face = _rounded_square(face_side, face_side * radius_frac * 0.8, die.angle, centre, k)
    cv2.fillPoly(canvas, [face], tuple(float(c) for c in body), cv2.LINE_AA)
    if cfg.veined and rng.random() < cfg.veined:
        _draw_veins(rng, canvas, face, side * k, cfg)

    c, s = math.cos(die.angle), math.sin(die.angle)
    offset = side * _rng_range(rng, cfg.pip_offset)
    pip_r = side * _rng_range(rng, cfg.pip_radius) * (0.92 if die.value == 6 else 1.0)
    if die.value == 1:
        pip_r *= rng.uniform(0.8, 1.35)
    pip = PIP_COLOURS[die.pip_colour]
    rim = tuple(float(v) for v in np.array(pip, np.float32) * 0.55)
    if cfg.translucent and rng.random() < cfg.translucent:
        _draw_hidden_pips(rng, canvas, face, (centre[0] * k, centre[1] * k), side * k, die, offset * k, pip_r * k,
                          np.array(pip, np.float32), cfg)
    if die.symbol:
        _draw_symbol(rng, canvas, (centre[0] * k, centre[1] * k), face_side * 0.32 * k, die.angle, pip, body,
                     cfg.symbol_kinds)
    else:
        for gx, gy in pip_layout(die.value, turned=bool(rng.integers(0, 2))):
            lx, ly = gx * offset, gy * offset
            px, py = centre[0] + lx * c - ly * s, centre[1] + lx * s + ly * c
            _draw_pip(canvas, (px * k, py * k), pip_r * k, die.angle, (pip, rim, body), cfg.pip_shape)

    if k > 1:
        canvas = cv2.resize(canvas, (pw, ph), interpolation=cv2.INTER_AREA)
        alpha = cv2.resize(alpha, (pw, ph), interpolation=cv2.INTER_AREA)
    colour = _maybe_marbled(rng, canvas.astype(np.float32), side, cfg)
    # A soft light falloff across the die adds a little depth.
    ys, xs = np.mgrid[0:ph, 0:pw].astype(np.float32)
    tilt = rng.uniform(-1, 1, 2) * 0.08 / max(side, 1)
    colour *= (1.0 + (xs - centre[0]) * tilt[0] + (ys - centre[1]) * tilt[1])[..., None]
    face_pts = face.astype(np.float32) / k + (x0, y0)
    outline_pts = outline.astype(np.float32) / k + (x0, y0)
    return x0, y0, colour, alpha.astype(np.float32) / 255.0, face_pts, outline_pts


def _draw_solid_die(rng: np.random.Generator, die: _Placed, cfg: RenderSettings, lamp: Lamp, tilt: float):
    """:func:`_draw_die` as a lit solid (:func:`vision.solid_die.render_solid_die`) seen by a camera ``tilt``
    radians from straight down, its side faces showing along ``die.lift``."""
    lx, ly = die.lift
    x0, y0, x1, y1 = _patch_bounds(die)
    top = die.value
    along_a, along_b = _side_values(rng, top, 2)
    faces = tuple(tuple(pip_layout(value, turned=bool(rng.integers(0, 2))))
                  for value in (top, 7 - top, along_a, 7 - along_a, along_b, 7 - along_b))
    body = _body_colour(rng, die.colour, cfg)
    pip = body * 0.8 if rng.random() < cfg.engraved_pips else np.array(PIP_COLOURS[die.pip_colour], np.float32)
    corner_radius, pip_offset = _rng_range(rng, cfg.solid_corner_radius), _rng_range(rng, cfg.pip_offset)
    pip_radius = _rng_range(rng, cfg.pip_radius) * (0.92 if top == 6 else rng.uniform(0.8, 1.35) if top == 1 else 1.0)
    build = SolidDie(faces, tuple(float(c) for c in body), tuple(float(c) for c in pip), corner_radius=corner_radius,
                     pip_offset=pip_offset, pip_radius=pip_radius, pip_depth=_rng_range(rng, cfg.pip_depth))
    direction = math.atan2(ly, lx) if (lx, ly) != (0.0, 0.0) else 0.0
    centre = (die.cx - x0, die.cy - y0)
    colour, alpha = render_solid_die(build, lamp, shape=(y1 - y0, x1 - x0), centre=centre, side=die.side,
                                     angle=die.angle, tilt=tilt, tilt_direction=direction)
    colour = _maybe_marbled(rng, colour, die.side, cfg)
    face_side = die.side * 0.88   # where a glare spot may lie: the top face inside its rounded edges
    face = _rounded_square(face_side, face_side * 0.12, die.angle, centre, 1).astype(np.float32)
    squash = _squash(math.cos(tilt), np.array([math.cos(direction), math.sin(direction)]))
    face_pts = (face - centre) @ squash.T + (die.cx, die.cy)
    seen = cv2.findNonZero((alpha > 0.5).astype(np.uint8))
    outline_pts = cv2.convexHull(seen).reshape(-1, 2).astype(np.float32) + (x0, y0)
    return x0, y0, colour, alpha, face_pts.astype(np.float32), outline_pts


def _lamp(rng: np.random.Generator, cfg: RenderSettings) -> Lamp:
    """The lamp over a scene's solid dice: from any side, at a height drawn from ``cfg.lamp_elevation_deg``."""
    azimuth = rng.uniform(0, 2 * math.pi)
    elevation = math.radians(_rng_range(rng, cfg.lamp_elevation_deg))
    return Lamp((math.cos(elevation) * math.cos(azimuth), math.cos(elevation) * math.sin(azimuth), math.sin(elevation)),
                ambient=_rng_range(rng, cfg.ambient), specular=_rng_range(rng, cfg.gloss),
                shininess=_rng_range(rng, cfg.shininess))


def _draw_pip(canvas: np.ndarray, centre: tuple[float, float], radius: float, angle: float,
              colours: tuple, shape: str) -> None:
    """One pip of ``shape`` (see :data:`PIP_SHAPES`) at ``centre`` (canvas pixels); ``colours`` are the
    pip's, its darker rim's and the die body's."""
    x, y = centre
    colour, rim, body = colours
    if shape == "square":
        for half, fill in ((radius * 0.9, rim), (radius * 0.74, colour)):
            corners = cv2.boxPoints(((x, y), (2 * half, 2 * half), math.degrees(angle)))
            cv2.fillPoly(canvas, [np.round(corners * 16).astype(np.int32)], fill, cv2.LINE_AA, 4)
        return
    point = (round(x * 16), round(y * 16))
    cv2.circle(canvas, point, round(radius * 16), rim, -1, cv2.LINE_AA, 4)
    inner = (round((x + 0.12 * radius) * 16), round((y + 0.12 * radius) * 16))
    cv2.circle(canvas, inner, round(radius * 0.82 * 16), colour, -1, cv2.LINE_AA, 4)
    if shape == "ring":   # an engraved outline: the die's own plastic shows inside the ring
        cv2.circle(canvas, inner, round(radius * 0.5 * 16), tuple(float(v) for v in body), -1, cv2.LINE_AA, 4)


def _draw_symbol(rng: np.random.Generator, canvas: np.ndarray, centre: tuple[float, float], radius: float,
                 angle: float, colour: tuple, body: np.ndarray, kinds: tuple[str, ...] = SYMBOL_KINDS) -> None:
    """A maker's symbol in place of a face's pips (canvas pixels), one of ``kinds`` (see :data:`SYMBOL_KINDS`)."""
    x, y = centre
    kind = kinds[int(rng.integers(len(kinds)))]
    if kind == "star":
        turns = angle + np.arange(10) * math.pi / 5 - math.pi / 2
        reach = np.where(np.arange(10) % 2 == 0, radius, radius * 0.42)
        star = np.stack([x + reach * np.cos(turns), y + reach * np.sin(turns)], axis=1)
        cv2.fillPoly(canvas, [np.round(star * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)
    elif kind == "crescent":
        cv2.circle(canvas, (round(x * 16), round(y * 16)), round(radius * 16), colour, -1, cv2.LINE_AA, 4)
        bite = (x + 0.45 * radius * math.cos(angle), y + 0.45 * radius * math.sin(angle))
        cv2.circle(canvas, (round(bite[0] * 16), round(bite[1] * 16)), round(radius * 0.85 * 16),
                   tuple(float(v) for v in body), -1, cv2.LINE_AA, 4)
    elif kind == "sun":
        cv2.circle(canvas, (round(x * 16), round(y * 16)), round(radius * 0.5 * 16), colour, -1, cv2.LINE_AA, 4)
        for turn in angle + np.arange(8) * math.pi / 4:
            start = (x + 0.65 * radius * math.cos(turn), y + 0.65 * radius * math.sin(turn))
            end = (x + radius * math.cos(turn), y + radius * math.sin(turn))
            cv2.line(canvas, (round(start[0] * 16), round(start[1] * 16)), (round(end[0] * 16), round(end[1] * 16)),
                     colour, max(1, round(radius * 0.14)), cv2.LINE_AA, 4)
    else:  # a letter, the maker's initial, drawn on its own square and turned with the die
        letter = str(rng.choice(list("ABDEGHKMNPRSWZ")))
        box = max(8, round(radius * 2.4))
        ink = np.zeros((box, box), np.uint8)
        scale = box / 30.0
        (w, h), _ = cv2.getTextSize(letter, cv2.FONT_HERSHEY_DUPLEX, scale, max(1, round(scale * 2.2)))
        cv2.putText(ink, letter, ((box - w) // 2, (box + h) // 2), cv2.FONT_HERSHEY_DUPLEX, scale, 255,
                    max(1, round(scale * 2.2)), cv2.LINE_AA)
        turn = cv2.getRotationMatrix2D((box / 2, box / 2), -math.degrees(angle), 1.0)
        turn[:, 2] += (x - box / 2, y - box / 2)
        cover = cv2.warpAffine(ink, turn, canvas.shape[1::-1]).astype(np.float32)[..., None] / 255.0
        canvas[:] = canvas * (1 - cover) + np.array(colour, np.float32) * cover


def _side_values(rng: np.random.Generator, top: int, count: int) -> list[int]:
    """Values for ``count`` side faces next to ``top``: never ``top``, its opposite, or each other's opposite."""
    chosen: list[int] = []
    for _ in range(count):
        allowed = [v for v in range(1, 7) if v not in (top, 7 - top) and all(v not in (c, 7 - c) for c in chosen)]
        chosen.append(int(rng.choice(allowed)))
    return chosen


def _draw_sides(rng: np.random.Generator, canvas: np.ndarray, alpha: np.ndarray, die: _Placed, outline: np.ndarray,
                body: np.ndarray, shift: tuple[float, float], k: int, cfg: RenderSettings) -> np.ndarray:
    """Draw the side faces a slanted camera sees (darker, with their own foreshortened pips).

    ``shift`` moves frame coordinates into the patch.  Returns the die's whole outline (supersampled).
    """
    lift = np.array(die.lift)
    hull = cv2.convexHull(np.vstack([outline, outline + np.round(lift * k).astype(np.int32)]))
    cv2.fillPoly(alpha, [hull], 255, cv2.LINE_AA)
    cv2.fillPoly(canvas, [hull], tuple(float(c) for c in body * 0.5), cv2.LINE_AA)
    corners = die.corners() + shift
    visible = []
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        normal = np.array([b[1] - a[1], a[0] - b[0]])   # outward for corners in this order
        if normal @ lift > 0.2 * np.linalg.norm(normal) * np.linalg.norm(lift):
            visible.append((a, b, float(normal @ lift) / (np.linalg.norm(normal) * np.linalg.norm(lift))))
    depth = float(np.linalg.norm(lift))
    pip = PIP_COLOURS[die.pip_colour]
    for (a, b, facing), value in zip(visible, _side_values(rng, die.value, len(visible))):
        quad = np.array([a, b, b + lift, a + lift])
        shade = tuple(float(c) for c in body * (0.45 + 0.3 * facing))
        cv2.fillPoly(canvas, [np.round(quad * k).astype(np.int32)], shade, cv2.LINE_AA)
        along = b - a
        angle = math.degrees(math.atan2(along[1], along[0]))
        offset = _rng_range(rng, cfg.pip_offset)
        radius = die.side * _rng_range(rng, cfg.pip_radius)
        axes = (round(radius * k * 16), max(1, round(radius * depth / die.side * facing * k * 16)))
        for gx, gy in pip_layout(value, turned=bool(rng.integers(0, 2))):
            centre = a + (0.5 + gx * offset) * along + (0.5 + gy * offset) * lift
            cv2.ellipse(canvas, (round(centre[0] * k * 16), round(centre[1] * k * 16)), axes, angle, 0, 360,
                        pip, -1, cv2.LINE_AA, 4)
    return hull.reshape(-1, 2)


def _add_glare(rng: np.random.Generator, img: np.ndarray, die: _Placed, face_pts: np.ndarray,
               cfg: RenderSettings) -> None:
    """Add a soft bright spot on the die's top face, off its centre."""
    spot_r = die.side * rng.uniform(0.12, 0.22)
    ang = rng.uniform(0, 2 * math.pi)
    dist = die.side * rng.uniform(0.15, 0.35)
    gx, gy = die.cx + dist * math.cos(ang), die.cy + dist * math.sin(ang)
    x0, y0 = int(face_pts[:, 0].min()) - 1, int(face_pts[:, 1].min()) - 1
    pw, ph = int(face_pts[:, 0].max()) + 2 - x0, int(face_pts[:, 1].max()) + 2 - y0
    ys, xs = np.mgrid[y0:y0 + ph, x0:x0 + pw].astype(np.float32)
    spot = np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * spot_r ** 2))
    mask = np.zeros((ph, pw), np.float32)
    cv2.fillPoly(mask, [np.round(face_pts - (x0, y0)).astype(np.int32)], 1.0, cv2.LINE_AA)
    dst, src = _window(img.shape, x0, y0, mask.shape)
    img[dst] += (_rng_range(rng, cfg.glare_strength) * spot * mask)[src][..., None]


def _place(rng: np.random.Generator, items, area: tuple[float, float, float, float], cfg: RenderSettings,
           base: float, slant: tuple[float, float]) -> list[_Placed] | None:
    """Positions for every die inside ``area`` (x0, y0, x1, y1), or None when they do not fit.

    ``slant`` is the side-face offset per pixel of die side (0, 0 for a camera looking straight down).
    """
    placed: list[_Placed] = []
    left, top, right, bottom = area
    for value, colour, pips, symbol in items:
        side = base * (1 + rng.uniform(-cfg.size_spread, cfg.size_spread))
        ok = False
        for _ in range(cfg.max_placement_tries):
            touching = bool(placed) and rng.random() < cfg.touching
            if touching:
                partner = placed[int(rng.integers(0, len(placed)))]
                angle = partner.angle
                direction = int(rng.integers(0, 4)) * math.pi / 2 + angle
                slide = rng.uniform(-0.3, 0.3) * min(side, partner.side)
                # Seen at a slant, the side faces between the two dice take room too.
                facing = abs(slant[0] * math.cos(direction) + slant[1] * math.sin(direction))
                dist = (side + partner.side) / 2 + facing * max(side, partner.side) + rng.uniform(0.0, 0.8)
                cx = partner.cx + dist * math.cos(direction) - slide * math.sin(direction)
                cy = partner.cy + dist * math.sin(direction) + slide * math.cos(direction)
            else:
                angle = rng.uniform(0, math.pi / 2)
                cx, cy = rng.uniform(left, right), rng.uniform(top, bottom)
            cand = _Placed(value, colour, pips, float(cx), float(cy), float(side), float(angle), touching,
                           (slant[0] * side, slant[1] * side), symbol)
            pts = cand.polygon
            if pts[:, 0].min() < left or pts[:, 1].min() < top or pts[:, 0].max() > right or pts[:, 1].max() > bottom:
                continue
            if all(_apart(cand, other, -0.01 if touching and other is partner else cfg.min_gap)
                   for other in placed):
                placed.append(cand)
                ok = True
                break
        if not ok:
            return None
    return placed


def render_scene(dice: Sequence, *, seed: int, size: tuple[int, int] = (640, 480),
                 settings: RenderSettings | None = None, background: str | None = None,
                 motion_blur: float = 0.0, **overrides) -> tuple[np.ndarray, list[SynthDie]]:
    """Draw ``dice`` (Die, value, or (value, colour[, pip colour])) on a tray; return (BGR image, truth).

    A die without a colour gets a random one.  ``settings``/``overrides`` change any
    :class:`RenderSettings` field (e.g. ``touching=0.5, glare=1.0, coloured_pips=1.0,
    die_size=(30, 40)``); ``background`` names one of :data:`BACKGROUNDS`;
    ``motion_blur`` (pixels) smears the frame as if the dice were still rolling.
    Truth is listed in the order the dice were given.
    """
    cfg = replace(settings or DEFAULTS, **overrides)
    w, h = int(size[0]), int(size[1])
    if w < 32 or h < 32:
        raise UserError(f"synthetic frame must be at least 32x32 pixels, not {w}x{h}")
    if background is not None and background not in BACKGROUNDS:
        raise UserError(f"unknown background {background!r} (known: {', '.join(BACKGROUNDS)})")
    if cfg.pip_shape not in PIP_SHAPES:
        raise UserError(f"unknown pip shape {cfg.pip_shape!r} (known: {', '.join(PIP_SHAPES)})")
    if cfg.light not in LIGHTS:
        raise UserError(f"unknown light {cfg.light!r} (known: {', '.join(LIGHTS)})")
    rng = np.random.default_rng(seed)
    items = []
    for item in dice:
        value, colour, pips = _normalise(item)
        colour = colour or list(DIE_COLOURS)[int(rng.integers(0, len(DIE_COLOURS)))]
        if pips is None:
            coloured = rng.random() < cfg.coloured_pips
            pips = COLOURED_PIPS[colour][int(rng.integers(0, 2))] if coloured else DEFAULT_PIP_COLOUR[colour]
        # drawn only when symbol faces are asked for, so that every other scene stays as it was
        symbol = cfg.symbol_faces > 0 and value in (1, 6) and rng.random() < cfg.symbol_faces
        items.append((value, colour, pips, bool(symbol)))

    # A slanted camera shows every die's side faces, offset the same way across the tray.
    slant = (0.0, 0.0)
    if rng.random() < cfg.slanted_view:
        direction, amount = rng.uniform(0, 2 * math.pi), _rng_range(rng, cfg.slant)
        if cfg.slant_direction_deg is not None:     # one camera's mount: drawn all the same, so scenes stay as they were
            direction = math.radians(cfg.slant_direction_deg)
        slant = (amount * math.cos(direction), amount * math.sin(direction))
    bg_name = background or list(BACKGROUNDS)[int(rng.integers(0, len(BACKGROUNDS)))]
    img = _background(rng, w, h, bg_name)
    margin = cfg.frame_margin
    if rng.random() < cfg.tray_wall:
        margin += _draw_tray_wall(rng, img, _rng_range(rng, cfg.tray_wall_width) * min(w, h))
    area = (margin, margin, w - 1 - margin, h - 1 - margin)

    low, high = cfg.die_size
    base = math.exp(rng.uniform(math.log(low), math.log(high)))
    # Big dice must still fit: cap the size by the free area per die, then shrink until placement works.
    free_w, free_h = area[2] - area[0], area[3] - area[1]
    if items:
        base = max(low, min(base, math.sqrt(free_w * free_h * 0.3 / len(items)), min(free_w, free_h) / 1.6))
    placed = _place(rng, items, area, cfg, base, slant)
    while placed is None:
        if base <= low:
            raise UserError(f"cannot fit {len(items)} dice of {low:.0f}+ px in a {w}x{h} frame")
        base = max(low, base * 0.9)
        placed = _place(rng, items, area, cfg, base, slant)

    lamp = _lamp(rng, cfg) if cfg.solid_dice > 0 else None
    patches = [_draw_die(rng, die, cfg, lamp) for die in placed]

    # Soft shadows: each die's silhouette, shifted away from the light and blurred.
    light = rng.uniform(0, 2 * math.pi)
    shade = np.zeros((h, w), np.float32)
    strength = _rng_range(rng, cfg.shadow_strength)
    for die, (x0, y0, _, alpha, _, _) in zip(placed, patches):
        shift = die.side * _rng_range(rng, cfg.shadow_offset)
        sigma = max(0.8, die.side * 0.06)
        pad = math.ceil(shift + 3 * sigma) + 1
        ph, pw = alpha.shape
        m = np.float32([[1, 0, pad + shift * math.cos(light)], [0, 1, pad + shift * math.sin(light)]])
        layer = cv2.GaussianBlur(cv2.warpAffine(alpha, m, (pw + 2 * pad, ph + 2 * pad)), (0, 0), sigma)
        dst, src = _window(shade.shape, x0 - pad, y0 - pad, layer.shape)
        shade[dst] = np.maximum(shade[dst], layer[src])
    img *= (1.0 - strength * shade)[..., None]

    for x0, y0, colour, alpha, _, _ in patches:
        # The patch's padding may reach past the frame edge; the die itself never does.
        dst, src = _window(img.shape, x0, y0, alpha.shape)
        a = alpha[src][..., None]
        img[dst] = img[dst] * (1 - a) + colour[src] * a

    # Lighting: a linear gradient and a vignette over the whole frame.
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    theta = rng.uniform(0, 2 * math.pi)
    along = ((xs - w / 2) * math.cos(theta) + (ys - h / 2) * math.sin(theta)) / max(w, h)
    gain = 1.0 + _rng_range(rng, cfg.light_gradient) * along
    radius2 = ((xs - w / 2) ** 2 + (ys - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    gain *= 1.0 - _rng_range(rng, cfg.vignette) * radius2
    img *= gain[..., None]

    truth = []
    for die, (_, _, _, _, face_pts, outline) in zip(placed, patches):
        glare = bool(rng.random() < cfg.glare)
        if glare:
            _add_glare(rng, img, die, face_pts, cfg)
        x_lo, y_lo = outline[:, 0].min(), outline[:, 1].min()
        bbox = (float(x_lo), float(y_lo), float(outline[:, 0].max() - x_lo), float(outline[:, 1].max() - y_lo))
        truth.append(SynthDie(die.value, die.colour, die.pip_colour, (die.cx, die.cy), bbox,
                              math.degrees(die.angle) % 360, die.side, die.touching, glare, die.symbol))

    img *= np.array(LIGHTS[cfg.light], np.float32)

    if motion_blur > 0:
        length = max(2, round(motion_blur))
        kernel = np.zeros((length, length), np.float32)
        cv2.line(kernel, (0, int(rng.integers(0, length))), (length - 1, int(rng.integers(0, length))), 1.0, 1)
        img = cv2.filter2D(img, -1, kernel / kernel.sum())
    sigma = _rng_range(rng, cfg.blur_sigma)
    if sigma > 0.2:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img += rng.standard_normal(img.shape, dtype=np.float32) * np.float32(_rng_range(rng, cfg.noise_sigma))
    out = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < cfg.jpeg:
        quality = int(rng.integers(cfg.jpeg_quality[0], cfg.jpeg_quality[1] + 1))
        out = cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)
    return out, truth


def random_scene(seed: int, *, count: tuple[int, int] = (1, 12), colours: Iterable[str] | None = None,
                 size: tuple[int, int] = (640, 480), **kwargs) -> tuple[np.ndarray, list[SynthDie]]:
    """A scene with a random number of random dice (values and colours drawn from ``seed``)."""
    rng = np.random.default_rng([seed, 1])
    names = list(colours) if colours is not None else list(DIE_COLOURS)
    n = int(rng.integers(count[0], count[1] + 1))
    dice = [(int(rng.integers(1, 7)), names[int(rng.integers(0, len(names)))]) for _ in range(n)]
    return render_scene(dice, seed=seed, size=size, **kwargs)
