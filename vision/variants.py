"""Harder versions of a labelled photo, for measuring how the reader holds up (``companion bench vision``).

Each variant is a pure function ``(image, boxes, rng) -> (image, boxes)``: the photo changed as a camera,
a room or a table could change it, and every label box ``(x, y, w, h)`` (or None, for a photo labelled
without boxes) moved with it.  A geometric change maps a box's four corners and keeps their bounds.

The variants are the rows of the robustness table the reader's goals are stated on: turned a quarter and a
half turn, shrunk to 320 px and enlarged to 1920 px on the long side, saved as JPEG quality 30, at 40 %
brightness, under a tungsten lamp with the camera set for daylight, seen from 50 degrees off straight down,
and shrunk so that the dice are 12 to 16 px inside a 4000 x 3000 frame.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import cv2
import numpy as np

Box = tuple[float, float, float, float] | None
Variant = Callable[[np.ndarray, Sequence[Box], np.random.Generator], tuple[np.ndarray, list[Box]]]

#: Channel gains (B, G, R) of a tungsten lamp (about 2800 K) photographed with daylight white balance;
#: a grey's brightness is kept.  Stronger than the synthetic renderer's "warm" light on purpose.
TUNGSTEN_BGR = (0.62, 0.95, 1.30)
DIM = 0.4  # brightness of the "dim" variant
JPEG_QUALITY = 30
OBLIQUE_DEG = 50.0  # camera tilt from straight down in the "oblique" variant
SMALL_DIE_PX = (12.0, 16.0)  # the dice's side in the "tiny dice" variant, px
BIG_FRAME = (4000, 3000)  # that variant's frame, px


def _mapped_boxes(boxes: Sequence[Box], mapping: Callable[[np.ndarray], np.ndarray]) -> list[Box]:
    """Each box's corners through ``mapping`` ((n, 2) points -> (n, 2) points), as the bounds' box."""
    out: list[Box] = []
    for box in boxes:
        if box is None:
            out.append(None)
            continue
        x, y, w, h = box
        pts = mapping(np.array([[x, y], [x + w, y], [x, y + h], [x + w, y + h]], np.float64))
        (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
        out.append((float(x0), float(y0), float(x1 - x0), float(y1 - y0)))
    return out


def quarter_turn(image, boxes, rng=None):
    """Turned 90 degrees clockwise."""
    rows = image.shape[0]
    return cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE), _mapped_boxes(
        boxes, lambda p: np.stack([rows - p[:, 1], p[:, 0]], axis=1))


def half_turn(image, boxes, rng=None):
    """Turned 180 degrees."""
    rows, cols = image.shape[:2]
    return cv2.rotate(image, cv2.ROTATE_180), _mapped_boxes(boxes, lambda p: np.stack([cols - p[:, 0], rows - p[:, 1]], axis=1))


def resized_to(long_side: int) -> Variant:
    """A variant scaling the photo so that its long side is ``long_side`` px."""
    def resize(image, boxes, rng=None):
        scale = long_side / max(image.shape[:2])
        size = (max(round(image.shape[1] * scale), 1), max(round(image.shape[0] * scale), 1))
        interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
        return cv2.resize(image, size, interpolation=interp), _mapped_boxes(boxes, lambda p: p * scale)
    resize.__doc__ = f"Scaled to {long_side} px on its long side."
    return resize


def jpeg(image, boxes, rng=None, quality: int = JPEG_QUALITY):
    """Saved and read back as a JPEG of low quality."""
    _, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(data, cv2.IMREAD_COLOR), list(boxes)


def dim(image, boxes, rng=None, brightness: float = DIM):
    """Every pixel at ``brightness`` of its value (an underexposed photo)."""
    return tungsten(image, boxes, gains=(brightness,) * 3)


def tungsten(image, boxes, rng=None, gains=TUNGSTEN_BGR):
    """Under a tungsten lamp with the camera's white balance left on daylight (or any per-channel ``gains``)."""
    out = image.astype(np.float32) * np.array(gains, np.float32)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8), list(boxes)


def oblique(image, boxes, rng=None, tilt_deg: float = OBLIQUE_DEG):
    """The table seen by a camera tilted ``tilt_deg`` from straight down (the flat photo as a plane, turned
    about its horizontal midline and projected with a focal length of the photo's width), same long side."""
    rows, cols = image.shape[:2]
    tilt, focal = math.radians(tilt_deg), float(max(rows, cols))
    corners = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float64)
    x, y = corners[:, 0] - cols / 2, corners[:, 1] - rows / 2
    depth = focal + y * math.sin(tilt)
    projected = np.stack([focal * x / depth, focal * y * math.cos(tilt) / depth], axis=1)
    projected -= projected.min(axis=0)
    projected *= max(rows, cols) / projected.max()
    out_w, out_h = (math.ceil(v) for v in projected.max(axis=0))
    matrix = cv2.getPerspectiveTransform(corners.astype(np.float32), projected.astype(np.float32))
    warped = cv2.warpPerspective(image, matrix, (out_w, out_h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return warped, _mapped_boxes(boxes, lambda p: cv2.perspectiveTransform(p[None].astype(np.float64), matrix)[0])


def tiny_dice(die_side: float) -> Variant:
    """A variant shrinking the photo (whose dice are about ``die_side`` px) until the dice are 12-16 px, and
    placing it at a random spot of a 4000 x 3000 frame of the photo's own border colour with a little noise."""
    def shrink(image, boxes, rng):
        target = rng.uniform(*SMALL_DIE_PX)
        scale = min(target / max(die_side, 1.0), 0.9 * min(BIG_FRAME[0] / image.shape[1], BIG_FRAME[1] / image.shape[0]))
        small, small_boxes = resized_to(round(max(image.shape[:2]) * scale))(image, boxes)
        edge = np.concatenate([small[0], small[-1], small[:, 0], small[:, -1]]).astype(np.float32)
        frame = np.empty((BIG_FRAME[1], BIG_FRAME[0], 3), np.float32)
        frame[:] = np.median(edge, axis=0)
        frame += rng.normal(0.0, 3.0, frame.shape).astype(np.float32)
        frame = np.clip(frame, 0, 255).astype(np.uint8)
        x0 = int(rng.integers(0, BIG_FRAME[0] - small.shape[1] + 1))
        y0 = int(rng.integers(0, BIG_FRAME[1] - small.shape[0] + 1))
        frame[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
        return frame, _mapped_boxes(small_boxes, lambda p: p + [x0, y0])
    shrink.__doc__ = "Dice of 12-16 px in a 4000 x 3000 frame."
    return shrink


def variants(die_side: float) -> dict[str, Variant]:
    """The robustness table's rows by name, for a photo whose dice are about ``die_side`` px."""
    return {
        "turned 90°": quarter_turn,
        "turned 180°": half_turn,
        "320 px": resized_to(320),
        "1920 px": resized_to(1920),
        "JPEG quality 30": jpeg,
        "40 % brightness": dim,
        "tungsten light": tungsten,
        "50° oblique": oblique,
        "dice 12-16 px in 4000 px": tiny_dice(die_side),
    }
