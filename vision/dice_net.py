"""The small networks behind the reader and the image preparation they share with training.

- the *finder* (``dice_finder.onnx``): a fully-convolutional centre-heatmap network run on the
  frame scaled to :data:`FINDER_SIZE` on its long side; per cell of a 1/:data:`FINDER_STRIDE`
  grid it gives a die-centre score, the die's side (log pixels) and a sub-cell offset;
- the *reader* (``dice_reader.onnx``): a classifier of :data:`CROP_SIZE` px crops around each
  found die (side x :data:`CROP_MARGIN`), giving the top face's value 1-6, "not a die", or a die whose
  top face shows a maker's symbol instead of pips (no number to read);
- the *print check* (``print_check.onnx``): a network of its own on a find's crop and one
  :data:`CONTEXT_SCALE` times as wide (:func:`print_check_input`), giving the log-odds that the find is
  something flat (dots printed on a domino half or a card, a number token) or another thing (a spoon,
  a face, a leaf), not a die.

All run with OpenCV's dnn module; training (``training/train_dice_nets.py``) uses the same
preparation functions so that crops and inputs match exactly.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

MODEL_DIR = Path(__file__).with_name("models")
FINDER_FILE = MODEL_DIR / "dice_finder.onnx"
READER_FILE = MODEL_DIR / "dice_reader.onnx"
PRINT_CHECK_FILE = MODEL_DIR / "print_check.onnx"

FINDER_SIZE = 384  # long side of the frame as the finder sees it, px
FINDER_STRIDE = 4  # finder output cell, px of the finder's input
CROP_SIZE = 40  # reader input, px
CROP_MARGIN = 1.3  # crop side / die side
CONTEXT_SCALE = 2.0  # the print check's second crop is this many times as wide as the die's
NOT_A_DIE = 6  # reader class index after values 1..6 (indices 0..5)
SYMBOL = 7  # reader class of a die with a symbol on its top face
N_CLASSES = 8


def normalise(image_bgr_u8: np.ndarray) -> np.ndarray:
    """uint8 BGR (H, W, 3) or (N, H, W, 3) to float32 NCHW in [-1, 1]."""
    x = image_bgr_u8.astype(np.float32)
    x = (x - 127.5) / 127.5
    if x.ndim == 3:
        x = x[None]
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def finder_input(image_bgr: np.ndarray, long_side: int = FINDER_SIZE) -> tuple[np.ndarray, float]:
    """The frame scaled so its long side is ``long_side`` and padded to a multiple of 32; and the scale."""
    rows, cols = image_bgr.shape[:2]
    scale = long_side / max(rows, cols)
    new_w, new_h = max(round(cols * scale), 1), max(round(rows * scale), 1)
    whole = int(1 / scale) if scale < 0.5 else 1
    if whole > 1:  # a whole-number reduction first: OpenCV averages whole blocks three times faster
        image_bgr = cv2.resize(image_bgr, (0, 0), fx=1 / whole, fy=1 / whole, interpolation=cv2.INTER_AREA)
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(image_bgr, (new_w, new_h), interpolation=interp)
    pad_w, pad_h = (-new_w) % 32, (-new_h) % 32
    if pad_w or pad_h:
        resized = cv2.copyMakeBorder(resized, 0, pad_h, 0, pad_w, cv2.BORDER_REPLICATE)
    return resized, scale


def crop_die(image_bgr: np.ndarray, centre: tuple[float, float], side: float, angle_deg: float = 0.0,
             margin: float = CROP_MARGIN, size: int = CROP_SIZE, squash: np.ndarray | None = None) -> np.ndarray:
    """A ``size`` px square crop centred on ``centre`` covering ``side * margin`` px, optionally rotated, and
    optionally squashed by the 2x2 matrix ``squash`` about its centre (training's foreshortened faces)."""
    scale = size / max(side * margin, 1.0)
    matrix = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), angle_deg, scale)
    matrix[0, 2] += size / 2.0 - centre[0]
    matrix[1, 2] += size / 2.0 - centre[1]
    if squash is not None:
        matrix = squashed(matrix, squash, (size / 2.0, size / 2.0))
    return cv2.warpAffine(image_bgr, matrix, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def print_check_input(image_bgr: np.ndarray, centre: tuple[float, float], side: float, angle_deg: float = 0.0,
                      squash: np.ndarray | None = None) -> np.ndarray:
    """The print check's input for a find: its crop and one :data:`CONTEXT_SCALE` times as wide (where a domino's
    other half, a token's rim or a card's edge shows), both turned and squashed alike, as one (CROP_SIZE,
    CROP_SIZE, 6) uint8 array."""
    return np.concatenate([crop_die(image_bgr, centre, side * scale, angle_deg, squash=squash)
                           for scale in (1.0, CONTEXT_SCALE)], axis=2)


def squashed(matrix: np.ndarray, squash: np.ndarray, centre: tuple[float, float]) -> np.ndarray:
    """The 2x3 affine ``matrix`` followed by the 2x2 map ``squash`` about the output point ``centre``."""
    c = np.asarray(centre, np.float64)
    out = np.empty((2, 3), np.float64)
    out[:, :2] = squash @ matrix[:, :2]
    out[:, 2] = squash @ (matrix[:, 2] - c) + c
    return out
