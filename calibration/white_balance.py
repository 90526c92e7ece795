"""White balance from the empty tray or a grey card.

At calibration the tray's colour under the table's lamp is measured and a neutral grey of
the same brightness becomes the *reference*.  When reading, the tray's colour is measured
again in each frame (the tray fills most of it; dice are small) and per-channel gains bring
it back to the reference, so a warmer lamp, cooler daylight or a dimmer room all give the
dice the colours they had at calibration.  A grey card gives fixed gains instead.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.errors import UserError

METHODS = ("tray", "grey-card", "none")

# Pixels within this BGR distance of the first (median) estimate count as tray background;
# it keeps dice, shadows and pips out of the tray's measured colour.
BACKGROUND_TOLERANCE = 40.0
# The tray is measured on every SAMPLE_STEP-th pixel of every SAMPLE_STEP-th row: plenty of
# pixels, and quick enough to do for every frame.
SAMPLE_STEP = 4
# Gains are limited to this range: beyond it the picture is too dark or too cast to rescue.
GAIN_LIMITS = (0.2, 8.0)


def background_colour(image: np.ndarray) -> np.ndarray:
    """The tray's colour (B, G, R floats): the mean of the pixels near the picture's median.

    The picture is the tray (flattened, when the profile has a tray region) or the whole frame.
    """
    step = SAMPLE_STEP if min(image.shape[:2]) >= 16 * SAMPLE_STEP else 1
    pixels = image[::step, ::step].reshape(-1, 3).astype(np.float64)
    if len(pixels) == 0:
        raise UserError("white balance: the picture has no pixels")
    median = np.median(pixels, axis=0)
    near = pixels[np.linalg.norm(pixels - median, axis=1) < BACKGROUND_TOLERANCE]
    return near.mean(axis=0) if len(near) >= max(50, len(pixels) // 10) else median


def neutral_reference(measured_bgr) -> tuple[float, float, float]:
    """A neutral grey as bright as ``measured_bgr``: what the tray should look like."""
    level = float(np.mean(measured_bgr))
    return (level, level, level)


def gains_to(reference_bgr, measured_bgr) -> tuple[float, float, float]:
    """Per-channel gains that turn ``measured_bgr`` into ``reference_bgr``."""
    measured = np.maximum(np.asarray(measured_bgr, dtype=np.float64), 1.0)
    gains = np.clip(np.asarray(reference_bgr, dtype=np.float64) / measured, *GAIN_LIMITS)
    return tuple(float(g) for g in gains)


def apply_gains(image: np.ndarray, gains_bgr) -> np.ndarray:
    """The image with each channel multiplied by its gain, clipped to 0..255."""
    levels = np.arange(256, dtype=np.float32).reshape(256, 1, 1) * np.asarray(gains_bgr, np.float32).reshape(1, 1, 3)
    return cv2.LUT(image, np.clip(levels + 0.5, 0, 255).astype(np.uint8))


@dataclass(frozen=True)
class WhiteBalance:
    """How a frame's colours are corrected before the dice colours are read.

    ``method`` "tray" re-measures the tray in every frame and brings it to ``reference_bgr``;
    "grey-card" applies the fixed ``gains_bgr`` measured on a grey card; "none" leaves
    frames alone.
    """

    method: str = "none"
    gains_bgr: tuple[float, float, float] = (1.0, 1.0, 1.0)
    reference_bgr: tuple[float, float, float] = (200.0, 200.0, 200.0)

    def correct(self, image: np.ndarray) -> np.ndarray:
        """``image`` white-balanced."""
        if self.method == "none":
            return image
        if self.method == "tray":
            return apply_gains(image, gains_to(self.reference_bgr, background_colour(image)))
        return apply_gains(image, self.gains_bgr)


def from_empty_tray(image: np.ndarray) -> WhiteBalance:
    """Calibrate from a frame of the empty tray: its colour becomes a neutral reference."""
    measured = background_colour(image)
    reference = neutral_reference(measured)
    return WhiteBalance("tray", gains_to(reference, measured), tuple(round(v, 3) for v in reference))


def from_grey_card(image: np.ndarray, box: tuple[int, int, int, int]) -> WhiteBalance:
    """Calibrate from a grey card filling ``box`` (x, y, w, h): fixed gains that make it neutral."""
    x, y, w, h = box
    patch = image[y:y + h, x:x + w]
    if patch.size == 0:
        raise UserError(f"white balance: the grey card box {box} is outside the {image.shape[1]}x{image.shape[0]} image")
    measured = patch.reshape(-1, 3).astype(np.float64).mean(axis=0)
    reference = neutral_reference(measured)
    return WhiteBalance("grey-card", gains_to(reference, measured), tuple(round(v, 3) for v in reference))
