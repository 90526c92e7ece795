"""The camera and the reader, each on its own thread, so the UI thread only draws.

:class:`FrameGrabber` keeps the newest camera frame; :class:`ReaderWorker` reads dice
from a frame in the background and hands the reading back on the UI thread.
"""
from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

FRAME_INTERVAL = 1 / 30
"""Seconds between camera reads; the live view never needs more than 30 frames a second."""


class FrameGrabber:
    """Reads frames from a camera source on a background thread and keeps the newest."""

    def __init__(self, source: Any, interval: float = FRAME_INTERVAL,
                 prepare: Callable[[np.ndarray], np.ndarray] | None = None):
        self.source = source
        self.prepare = prepare
        self.interval = interval
        self.frame: np.ndarray | None = None
        self.count = 0
        self.error: str | None = None
        self._stop = threading.Event()
        self._errands: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="frame-grabber", daemon=True)

    def start(self) -> FrameGrabber:
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            started = time.perf_counter()
            try:
                while not self._errands.empty():
                    self._errands.get_nowait()(self.source)
                frame = self.source.read()
                if frame is not None and self.prepare is not None:
                    frame = self.prepare(frame)
            except Exception as exc:  # noqa: BLE001 - a camera fault must reach the screen, not kill the app
                self.error = f"camera: {exc}"
                frame = None
            if frame is not None:
                self.frame, self.error = frame, None
                self.count += 1
            self._stop.wait(max(0.0, self.interval - (time.perf_counter() - started)))

    def latest(self) -> tuple[int, np.ndarray | None]:
        return self.count, self.frame

    def call_soon(self, fn: Callable[[Any], Any]) -> None:
        """Run ``fn(source)`` on the camera thread before its next read (e.g. throwing the
        simulated dice, which takes a while to draw); an error shows as a camera error."""
        self._errands.put(fn)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)
        close = getattr(self.source, "close", None)
        if close:
            close()


class ReaderWorker:
    """Runs ``read(frame)`` off the UI thread; ``deliver(reading, frame)`` runs on the UI thread."""

    def __init__(self, read: Callable[[np.ndarray], Any], deliver: Callable[[Any, np.ndarray], None]):
        self.read = read
        self.deliver = deliver
        self.busy = False
        self._jobs: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="dice-reader", daemon=True)
        self._thread.start()

    def submit(self, frame: np.ndarray) -> bool:
        """Queue a frame for reading; False while a reading is already under way."""
        if self.busy:
            return False
        self.busy = True
        self._jobs.put(frame.copy())
        return True

    def _loop(self) -> None:
        from kivy.clock import Clock

        while True:
            frame = self._jobs.get()
            if frame is None:
                return
            try:
                reading = self.read(frame)
            except Exception as exc:  # noqa: BLE001 - shown as a one-line error, the game is unchanged
                reading = exc
            Clock.schedule_once(lambda _dt, r=reading, f=frame: self._finish(r, f))

    def _finish(self, reading: Any, frame: np.ndarray) -> None:
        self.busy = False
        self.deliver(reading, frame)

    def stop(self) -> None:
        self._jobs.put(None)
        self._thread.join(timeout=2)
