"""The camera and the reader run off the UI thread, so the UI thread only draws.

:class:`FrameGrabber` keeps the newest camera frame (a thread); :class:`ReaderProcess`
reads dice from a frame in a lower-priority process and hands the reading back to the
UI thread.
"""
from __future__ import annotations

import multiprocessing
import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from vision.types import Reading


class FrameGrabber:
    """Reads frames from a camera source on a background thread and keeps the newest."""

    def __init__(self, source: Any, interval: float,
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


READER_NICENESS = 10
"""How much lower than the app the reader process runs: the live view and touches come first."""


class ReaderProcess:
    """Reads dice in a separate, lower-priority process.

    A process rather than a thread: the reader's Python work then never holds the app's
    GIL, and the operating system gives the live view the CPU first.  :meth:`poll`
    (called by the UI every frame) hands a finished reading to ``deliver(reading, frame)``.
    """

    def __init__(self, deliver: Callable[[Reading, np.ndarray], None], niceness: int = READER_NICENESS):
        self.deliver = deliver
        self.niceness = niceness
        self.busy = False
        self._frame: np.ndarray | None = None
        self._process = None
        self._conn = None

    def _start(self) -> None:
        context = multiprocessing.get_context("spawn")  # never fork a process that holds a GL context
        self._conn, child = context.Pipe()
        self._process = context.Process(target=serve_readings, args=(child, self.niceness), name="dice-reader",
                                        daemon=True)
        self._process.start()
        child.close()

    def submit(self, frame: np.ndarray, palette: Any = None) -> bool:
        """Send a frame to be read; False while a reading is already under way."""
        if self.busy:
            return False
        if self._process is None or not self._process.is_alive():
            self._start()
        self._conn.send((frame, palette))
        self._frame = frame
        self.busy = True
        return True

    def poll(self) -> None:
        if not self.busy:
            return
        try:
            if not self._conn.poll():
                return
            reading = self._conn.recv()
        except (EOFError, OSError):
            reading = Reading(error="the reader stopped; it restarts at the next reading")
            self._process = None
        self.busy = False
        self.deliver(reading, self._frame)

    def stop(self) -> None:
        if self._process is None:
            return
        try:
            self._conn.send(None)
        except OSError:
            pass
        self._process.join(timeout=2)
        if self._process.is_alive():
            self._process.terminate()
        self._process = None


def serve_readings(conn, niceness: int) -> None:
    """The reader process: read each frame sent, answer with a Reading (its error set on failure)."""
    os.nice(niceness)
    from vision.reader import read_frame

    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        frame, palette = job
        try:
            reading = read_frame(frame, palette=palette)
        except Exception as exc:  # noqa: BLE001 - any failure becomes a one-line message on screen
            reading = Reading(error=" ".join(f"{type(exc).__name__}: {exc}".split())[:200])
        conn.send(reading)
