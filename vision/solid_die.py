"""One die drawn as a lit solid: a rounded cube with hollow pips, seen by a camera straight down or tilted.

The flat dice of :mod:`vision.synth` are painted polygons. A photographed die differs from them in ways a
reader trained on renders notices: its edges are rounded and catch the light, its pips are painted hollows
with a lit and a shaded rim, plastic has a glossy highlight, and its side faces are as bright as the lamp
makes them rather than darker by a fixed share. :func:`render_solid_die` draws one die that way by sphere
tracing a rounded-cube distance field (an orthographic camera), with each pip a spherical hollow.

Units: the die's side is 1; the die's frame has its top face at z = +0.5 and its local a and b axes turned
by ``angle`` from the picture's x and y (the flat renderer's pip grid axes), so a die drawn here and one
drawn flat with the same angle show the same pip layout.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

TRACE_STEPS = 40        # sphere-tracing steps per ray (a ray hitting the die converges in well under this)
HIT_DISTANCE = 2e-3     # distance (share of the side) at which a ray counts as on the die
FACE_AXES = (2, 0, 1)   # the axis (a, b, z = 0, 1, 2) each pair of faces in SolidDie.faces is across
RENDER_SIDE = 112.0     # most pixels a die's side is traced at; a bigger die is traced smaller and scaled up
HOLLOW_SHADE = 0.45     # share of the lamp's ambient light and highlight the bottom of a pip's hollow loses


@dataclass(frozen=True)
class Lamp:
    """The light on the table: ``direction`` is a unit vector toward the lamp (picture x right, y down, z up)."""

    direction: tuple[float, float, float]
    ambient: float = 0.4       # share of the body's colour seen where the lamp does not reach
    specular: float = 0.3      # brightness of the glossy highlight, share of full white
    shininess: float = 30.0    # how tight the highlight is (Blinn-Phong exponent)


@dataclass(frozen=True)
class SolidDie:
    """How one die is built: its faces' pips, shape and colours (BGR, 0-255)."""

    faces: tuple[tuple[tuple[float, float], ...], ...]  # pip centres on a grid of -1..1, faces +z, -z, +a, -a, +b, -b
    body: tuple[float, float, float]
    pip: tuple[float, float, float]         # the paint in the pips (the body's own colour for engraved pips)
    corner_radius: float = 0.12             # rounding of edges and corners, share of the side
    pip_offset: float = 0.27                # pip grid offset from a face's centre, share of the side
    pip_radius: float = 0.085               # share of the side
    pip_depth: float = 0.4                  # depth of a pip's hollow, share of its radius


def _rounded_box_distance(p: np.ndarray, radius: float) -> np.ndarray:
    """Signed distance from points ``p`` (..., 3) to a cube of side 1 with edges rounded by ``radius``."""
    q = np.abs(p) - (0.5 - radius)
    outside = np.linalg.norm(np.maximum(q, 0.0), axis=-1)
    inside = np.minimum(q.max(axis=-1), 0.0)
    return outside + inside - radius


def render_solid_die(die: SolidDie, lamp: Lamp, *, shape: tuple[int, int], centre: tuple[float, float],
                     side: float, angle: float = 0.0, tilt: float = 0.0, tilt_direction: float = 0.0,
                     supersample: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``die`` into a patch of ``shape`` (rows, cols).

    ``centre`` is where the top face's centre lies in the patch (pixels), ``side`` the die's side in pixels,
    ``angle`` (radians) the turn of its pip grid, ``tilt`` (radians) the camera's tilt from straight down and
    ``tilt_direction`` (radians, 0 along +x) the way the side faces show from the top face: the top face is
    foreshortened to cos(tilt) along it and the side faces show sin(tilt) of a side deep.
    Returns (colour float32 rows x cols x 3, alpha float32 rows x cols in 0..1).
    """
    rows, cols = shape
    scale = min(float(supersample), RENDER_SIDE / max(side, 1.0))
    grid_rows, grid_cols = max(2, round(rows * scale)), max(2, round(cols * scale))
    ys, xs = np.mgrid[0:grid_rows, 0:grid_cols].astype(np.float64)
    px = ((xs + 0.5) * cols / grid_cols - centre[0]) / side
    py = ((ys + 0.5) * rows / grid_rows - centre[1]) / side

    sin_t, cos_t = math.sin(tilt), math.cos(tilt)
    along = px * math.cos(tilt_direction) + py * math.sin(tilt_direction)
    across = -px * math.sin(tilt_direction) + py * math.cos(tilt_direction)
    # A ray starts above the die (z0) where it projects to its pixel: along = x_along * cos - (z - 0.5) * sin.
    z0 = 0.5 + 0.75
    x_along = (along + (z0 - 0.5) * sin_t) / cos_t
    turn = tilt_direction - angle
    ca, sa = math.cos(turn), math.sin(turn)
    start = np.stack([x_along * ca - across * sa, x_along * sa + across * ca, np.full_like(px, z0)], axis=-1)
    direction = np.array([-sin_t * ca, -sin_t * sa, -cos_t])   # from the camera into the scene, die frame

    travelled = np.zeros(px.shape)
    flat_start, flat_travelled = start.reshape(-1, 3), travelled.reshape(-1)
    active = np.arange(flat_travelled.size)   # rays neither on the die nor past it
    for _ in range(TRACE_STEPS):
        step = _rounded_box_distance(flat_start[active] + flat_travelled[active, None] * direction, die.corner_radius)
        flat_travelled[active] += np.clip(step, 0.0, None)
        active = active[(step > HIT_DISTANCE / 4) & (flat_travelled[active] < 2 * z0 + 1.0)]
        if not active.size:
            break
    point = start + travelled[..., None] * direction
    hit = _rounded_box_distance(point, die.corner_radius) < HIT_DISTANCE

    q = np.maximum(np.abs(point) - (0.5 - die.corner_radius), 0.0)
    normal = np.sign(point) * q / np.maximum(np.linalg.norm(q, axis=-1, keepdims=True), 1e-9)
    albedo = np.broadcast_to(np.array(die.body, np.float64), point.shape).copy()
    occlusion = np.ones(px.shape)
    _hollow_pips(die, point, direction, hit, normal, albedo, occlusion)

    c, s = math.cos(-angle), math.sin(-angle)   # the lamp and the eye in the die's frame
    lx, ly, lz = lamp.direction
    to_lamp = np.array([lx * c - ly * s, lx * s + ly * c, lz])
    to_lamp /= np.linalg.norm(to_lamp)
    halfway = to_lamp - direction
    halfway /= np.linalg.norm(halfway)
    diffuse = np.clip(normal @ to_lamp, 0.0, None)
    gloss = np.clip(normal @ halfway, 0.0, None) ** lamp.shininess
    light = (lamp.ambient * occlusion + (1.0 - lamp.ambient) * diffuse)[..., None]
    colour = albedo * light + 255.0 * lamp.specular * gloss[..., None] * occlusion[..., None]
    colour[~hit] = 0.0
    alpha = hit.astype(np.float32)
    interpolation = cv2.INTER_AREA if scale > 1 else cv2.INTER_LINEAR
    colour = cv2.resize(colour.astype(np.float32), (cols, rows), interpolation=interpolation)
    alpha = cv2.resize(alpha, (cols, rows), interpolation=interpolation)
    # Edge pixels were averaged with black: bring their colour back up to the die's own.
    colour /= np.maximum(alpha, 1e-3)[..., None]
    return np.clip(colour, 0.0, 255.0 * (1.0 + lamp.specular)), np.clip(alpha, 0.0, 1.0)


def _hollow_pips(die: SolidDie, point: np.ndarray, direction: np.ndarray, hit: np.ndarray, normal: np.ndarray,
                 albedo: np.ndarray, occlusion: np.ndarray) -> None:
    """Where a ray meets a face inside a pip, follow it into the pip's spherical hollow: the point's normal
    becomes the hollow's, its colour the paint's, and the hollow's depth hides part of the ambient light
    (:data:`HOLLOW_SHADE` at its bottom)."""
    radius = die.pip_radius
    depth = max(die.pip_depth * radius, 1e-3)
    sphere = (radius ** 2 + depth ** 2) / (2 * depth)   # a sphere cutting the face in the pip's circle
    axis = np.argmax(np.abs(point), axis=-1)
    for face, pips in enumerate(die.faces):
        k, sign = FACE_AXES[face // 2], 1.0 if face % 2 == 0 else -1.0
        on_face = hit & (axis == k) & (np.sign(point[..., k]) == sign)
        if not on_face.any():
            continue
        u_axis, v_axis = [i for i in range(3) if i != k]
        at = point[on_face]
        nearest = np.full(len(at), np.inf)
        centres = np.zeros((len(at), 3))
        for gx, gy in pips:
            centre = np.zeros(3)
            centre[u_axis], centre[v_axis], centre[k] = gx * die.pip_offset, gy * die.pip_offset, sign * 0.5
            gap = np.hypot(at[:, u_axis] - centre[u_axis], at[:, v_axis] - centre[v_axis])
            closer = gap < nearest
            nearest[closer] = gap[closer]
            centres[closer] = centre
        inside = nearest < radius
        if not inside.any():
            continue
        face_normal = np.zeros(3)
        face_normal[k] = sign
        sphere_centre = centres[inside] + (sphere - depth) * face_normal
        offset = at[inside] - sphere_centre
        b = offset @ direction
        c = np.einsum("ij,ij->i", offset, offset) - sphere ** 2
        travel = -b + np.sqrt(np.clip(b * b - c, 0.0, None))
        floor = at[inside] + travel[:, None] * direction
        index = np.flatnonzero(on_face)[inside]
        rows, cols = np.unravel_index(index, hit.shape)
        normal[rows, cols] = (sphere_centre - floor) / sphere
        albedo[rows, cols] = die.pip
        sunk = np.clip(-(floor - sphere_centre) @ face_normal - (sphere - depth), 0.0, None) / depth
        occlusion[rows, cols] = 1.0 - HOLLOW_SHADE * np.clip(sunk, 0.0, 1.0)
