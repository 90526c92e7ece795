"""Settling: watch a stream of frames and give one reading once the dice have come to rest.

A :class:`Settler` is fed frames with their timestamps.  It tells *moving* from *still*
by differencing small, blurred grey copies of consecutive frames (and of the first
still frame, so a slow slide is caught too).  Once the dice have been still for
``still_seconds`` it runs the injected reader on each new frame until
``agreeing_readings`` consecutive readings name the same dice, then reports that
reading once.  The next motion starts the cycle again.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from companion.errors import UserError
from vision.types import Reading

__all__ = ["DEFAULT_SETTLE", "SettleEvent", "SettleSettings", "Settler", "dice_key"]


@dataclass(frozen=True)
class SettleSettings:
    """How settling is judged; every number is named here, not buried in the code."""

    motion_width: int = 160          # width in pixels of the grey copy used to detect motion
    motion_blur: float = 1.0         # Gaussian sigma (in grey-copy pixels) that hides sensor noise
    pixel_threshold: int = 12        # grey levels a pixel must change by to count as changed
    moving_fraction: float = 0.002   # share of changed pixels that means something moved
    still_seconds: float = 0.25      # how long the dice must stay still before the first reading
    agreeing_readings: int = 2       # consecutive readings that must name the same dice
    report_empty: bool = False       # report a reading with no dice in it (an empty tray)

    def __post_init__(self) -> None:
        if self.motion_width < 16:
            raise UserError(f"settle motion_width must be at least 16 pixels, not {self.motion_width}")
        if not 0 < self.moving_fraction < 1:
            raise UserError(f"settle moving_fraction must be between 0 and 1, not {self.moving_fraction}")
        if self.still_seconds < 0:
            raise UserError(f"settle still_seconds cannot be negative ({self.still_seconds})")
        if self.agreeing_readings < 1:
            raise UserError(f"settle agreeing_readings must be at least 1, not {self.agreeing_readings}")
        if not 0 <= self.pixel_threshold <= 255:
            raise UserError(f"settle pixel_threshold must be 0-255, not {self.pixel_threshold}")


DEFAULT_SETTLE = SettleSettings()


@dataclass(frozen=True)
class SettleEvent:
    """What one frame told the settler.

    ``state`` is ``"moving"``, ``"still"`` (at rest, reading not yet agreed) or
    ``"settled"`` (the reading for this rest has been given).  ``reading`` is set on
    exactly one frame per rest; ``settle_to_reading_ms`` is then the time from the
    last frame with motion (when the dice came to rest) to the reading being ready:
    the frames' timestamps plus the last reading's own duration.  ``motion`` is the share of changed pixels.
    """

    state: str
    motion: float
    reading: Reading | None = None
    settle_to_reading_ms: float | None = None


def dice_key(reading: Reading) -> tuple:
    """What two readings must share to agree: the multiset of (value, colour)."""
    counts = Counter((d.value if d.value is not None else 0, d.colour or "") for d in reading.dice)
    return tuple(sorted(counts.items()))


class Settler:
    """Turns a stream of (frame, timestamp) into one reading per rest of the dice."""

    def __init__(self, reader: Callable[[np.ndarray], Reading], settings: SettleSettings = DEFAULT_SETTLE):
        self.reader = reader
        self.settings = settings
        self.reset()

    def reset(self) -> None:
        """Forget the past: the next frame starts a fresh watch."""
        self._previous: np.ndarray | None = None
        self._rest_reference: np.ndarray | None = None
        self._still_since: float | None = None
        self._agreed_key: tuple | None = None
        self._agree_count = 0
        self._reported = False
        self.state = "moving"

    def _grey(self, frame: np.ndarray) -> np.ndarray:
        if frame is None or not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
            raise UserError("settle: a frame must be a non-empty image array")
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if grey.dtype != np.uint8:
            grey = cv2.normalize(grey, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
        h, w = grey.shape
        width = min(self.settings.motion_width, w)
        small = cv2.resize(grey, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (0, 0), self.settings.motion_blur)

    def _changed(self, a: np.ndarray, b: np.ndarray | None) -> float:
        if b is None or a.shape != b.shape:
            return 1.0
        return float(np.count_nonzero(cv2.absdiff(a, b) > self.settings.pixel_threshold)) / a.size

    def feed(self, frame: np.ndarray, timestamp: float) -> SettleEvent:
        """Take the next frame (BGR or grey) seen at ``timestamp`` seconds; say what it shows."""
        grey = self._grey(frame)
        motion = max(self._changed(grey, self._previous), self._changed(grey, self._rest_reference))
        self._previous = grey
        cfg = self.settings
        if motion > cfg.moving_fraction:
            self._rest_reference = grey
            self._still_since = timestamp
            self._agreed_key, self._agree_count, self._reported = None, 0, False
            self.state = "moving"
            return SettleEvent("moving", motion)
        if self._reported:
            return SettleEvent("settled", motion)
        if self._still_since is None:
            self._still_since = timestamp
        self.state = "still"
        if timestamp - self._still_since < cfg.still_seconds:
            return SettleEvent("still", motion)
        reading = self.reader(frame)
        key = dice_key(reading)
        if key == self._agreed_key:
            self._agree_count += 1
        else:
            self._agreed_key, self._agree_count = key, 1
        if self._agree_count < cfg.agreeing_readings or (not reading.dice and not cfg.report_empty):
            return SettleEvent("still", motion)
        self._reported = True
        self.state = "settled"
        waited_ms = (timestamp - self._still_since) * 1000.0 + reading.ms
        return SettleEvent("settled", motion, reading, waited_ms)
