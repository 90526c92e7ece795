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

import cv2
import numpy as np

from hardware.monitor import STOP_WAIT_SECONDS
from vision.types import Reading


class FrameGrabber:
    """Reads frames from a camera source on a background thread and keeps the newest."""

    def __init__(self, source: Any, interval: float,
                 prepare: Callable[[np.ndarray], np.ndarray] | None = None):
        self.source = source
        self.prepare = prepare
        self.interval = interval
        self.frame: np.ndarray | None = None
        self.display: np.ndarray | None = None      # the same frame in RGB, ready for a texture
        self.frame_time = 0.0
        self.count = 0
        self.error: str | None = None
        self._raw: np.ndarray | None = None
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
                if frame is self._raw:          # a monitored camera repeats its newest frame
                    frame = None
                else:
                    self._raw = frame
                    if frame is not None and self.prepare is not None:
                        frame = self.prepare(frame)
            except Exception as exc:  # noqa: BLE001 - a camera fault must reach the screen, not kill the app
                message = str(exc) or type(exc).__name__
                self.error = message if "camera" in message.lower() else f"camera: {message}"
                frame = None
            if frame is not None:
                self.display = cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)   # here, not on the UI thread
                self.frame, self.frame_time, self.error = frame, time.monotonic(), None
                self.count += 1
            self._stop.wait(max(0.0, self.interval - (time.perf_counter() - started)))

    def latest(self) -> tuple[int, np.ndarray | None]:
        return self.count, self.frame

    def latest_display(self) -> tuple[int, np.ndarray | None]:
        return self.count, self.display

    def call_soon(self, fn: Callable[[Any], Any]) -> None:
        """Run ``fn(source)`` on the camera thread before its next read (e.g. throwing the
        simulated dice, which takes a while to draw); an error shows as a camera error."""
        self._errands.put(fn)

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=STOP_WAIT_SECONDS)   # left inside OpenCV at exit, it would abort Python
        close = getattr(self.source, "close", None)
        if close:
            close()


WARM_UP_FRAME = np.full((96, 128, 3), 128, np.uint8)
"""A plain grey picture read once at start: it makes the reader load its networks."""
READER_NICENESS = 10
"""How much lower than the app the reader process runs: the live view and touches come first."""


class ReaderProcess:
    """Reads dice in a separate, lower-priority process.

    A process rather than a thread: the reader's Python work then never holds the app's
    GIL, and the operating system gives the live view the CPU first.  Two kinds of job,
    one at a time: :meth:`read` reads one frame now; :meth:`watch` feeds a frame to a
    :class:`vision.settle.Settler` in the process, which reads by itself once the dice
    have come to rest.  :meth:`poll` (called by the UI every frame) hands each reading
    to ``deliver(reading, frame, settled)`` and keeps :attr:`motion` ("moving", "still",
    "settled") up to date.
    """

    def __init__(self, deliver: Callable[[Reading, np.ndarray, bool], None], niceness: int = READER_NICENESS,
                 on_learnt: Callable[[Any], None] | None = None):
        self.deliver = deliver
        self.on_learnt = on_learnt
        self.niceness = niceness
        self.busy = False
        self._kind = ""
        self.motion = ""
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

    def _send(self, job: tuple, frame: np.ndarray) -> bool:
        if self.busy:
            return False
        if self._process is None or not self._process.is_alive():
            self._start()
        self._conn.send(job)
        self._frame = frame
        self._kind = job[0]
        self.busy = True
        return True

    def warm_up(self) -> None:
        """Start the process and load the reader's networks now, so the first roll reads fast."""
        self._send(("warm", WARM_UP_FRAME, (None, None), None), WARM_UP_FRAME)

    def read(self, frame: np.ndarray, palette: Any = None, my_dice: Any = None) -> bool:
        """Read this frame now (with ``palette`` and the profile's learnt dice, when given); False while
        another job is under way."""
        return self._send(("read", frame, (palette, my_dice), None), frame)

    def watch(self, frame: np.ndarray, timestamp: float, palette: Any = None, restart: bool = False,
              my_dice: Any = None) -> bool:
        """Feed the settler one frame (``restart``: forget earlier frames); False while busy."""
        return self._send(("watch", frame, (palette, my_dice), (timestamp, restart)), frame)

    def learn(self, rolls: list, profile: Any) -> bool:
        """Learn the player's dice from confirmed ``rolls`` into ``profile`` here, where the networks are;
        ``on_learnt`` gets the new profile, or a one-line message if learning failed.  False while busy."""
        return self._send(("learn", WARM_UP_FRAME, (None, None), (rolls, profile)), WARM_UP_FRAME)

    def poll(self) -> None:
        if not self.busy:
            return
        try:
            if not self._conn.poll():
                return
            kind, result = self._conn.recv()
        except (EOFError, OSError):
            kind, result = self._kind, "the reader stopped; it restarts at the next reading"
            if kind != "learn":
                kind, result = "read", Reading(error=result)
            self._process = None
        self.busy = False
        if kind == "warm":
            return
        if kind == "learn":
            if self.on_learnt:
                self.on_learnt(result)
            return
        if kind == "watch":
            self.motion = result.state
            if result.reading is not None:
                self.deliver(result.reading, self._frame, True)
        else:
            self.deliver(result, self._frame, False)

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
    """The reader process: answer each job with ("read", Reading) or ("watch", SettleEvent).

    A failed reading comes back as a Reading with its ``error`` set."""
    os.nice(niceness)
    from vision.reader import CameraReader
    from vision.settle import Settler

    how_now: list = [(None, None)]    # the palette and the profile's learnt dice (calibration.profile.MyDice)
    camera_reader = CameraReader()    # without learnt dice, the camera's slant and side faces are found from its frames

    def read(frame: np.ndarray) -> Reading:
        palette, my_dice = how_now[0]
        try:
            return camera_reader.read(frame, palette) if my_dice is None else my_dice.read(frame, palette)
        except Exception as exc:  # noqa: BLE001 - any failure becomes a one-line message on screen
            return Reading(error=" ".join(f"{type(exc).__name__}: {exc}".split())[:200])

    settler = Settler(read)
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        kind, frame, how_now[0], extra = job
        if kind in ("read", "warm"):
            conn.send((kind, read(frame)))
            continue
        if kind == "learn":
            conn.send((kind, _learn(*extra)))
            continue
        timestamp, restart = extra
        if restart:
            settler.reset()
        conn.send(("watch", settler.feed(frame, timestamp)))


def _learn(rolls: list, profile: Any) -> Any:
    """``profile`` with the dice learnt from ``rolls`` (calibration.learn_dice), or a one-line message."""
    from calibration.learn_dice import learn_my_dice

    try:
        return learn_my_dice(rolls, profile)
    except Exception as exc:  # noqa: BLE001 - any failure becomes a one-line message on screen
        return " ".join(str(exc).split())[:200] or type(exc).__name__
