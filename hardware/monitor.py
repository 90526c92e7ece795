"""Keep a camera running in the background, notice when it fails, and bring it back.

:class:`CameraMonitor` opens a source with the function it is given and reads it on a
worker thread, keeping the newest frame.  A watchdog thread notices a source that
raises, returns no picture, or hangs (no frame for ``stall_seconds``), reports it once
in plain words, and keeps opening a fresh source until frames flow again, when it
reports the recovery.  Nothing in the monitor ever blocks its caller on the camera, so
the rest of the app (entering dice by hand) keeps working meanwhile.
"""
from __future__ import annotations

import logging
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Self

import numpy as np

from hardware.camera import CameraError, CameraSource, FrameStamp, default_spec, open_camera

__all__ = ["CameraMonitor", "CameraStatus", "MonitoredCamera", "open_monitored"]

log = logging.getLogger(__name__)

SIM_PATIENCE_SECONDS = 10.0   # how long the simulated camera may pause before it is reopened
STOP_WAIT_SECONDS = 5.0       # how long stopping a monitor (or the app's frame grabber) waits for its threads


@dataclass(frozen=True)
class CameraStatus:
    """The camera's health: ``ok`` and a sentence for a person; ``since`` is a monotonic time."""

    ok: bool
    message: str
    since: float


class CameraMonitor:
    """Reads a camera on a background thread, reports faults once and reconnects by itself.

    ``open_source`` makes a new, open source (e.g. ``lambda: open_camera("usb:0")``).
    ``on_status(CameraStatus)`` is called from the watchdog thread when the camera fails
    and when it comes back.  Timings: a running camera that sends nothing for
    ``stall_seconds`` counts as hung, or for ``stall_frames`` times its usual time between
    pictures when that is longer (a slow machine rendering the simulated camera, a long
    exposure: slow is not hung); a freshly opened one gets ``start_seconds`` for its
    first frame; failed attempts are retried every ``retry_seconds``, doubling up to
    ``max_retry_seconds``; the watchdog looks every ``check_seconds``.
    """

    def __init__(self, open_source: Callable[[], CameraSource], *,
                 on_status: Callable[[CameraStatus], None] | None = None,
                 stall_seconds: float = 1.0, start_seconds: float = 1.5, retry_seconds: float = 0.5,
                 max_retry_seconds: float = 5.0, check_seconds: float = 0.1, stall_frames: float = 5.0):
        self.open_source = open_source
        self.on_status = on_status
        self.stall_seconds = stall_seconds
        self.stall_frames = stall_frames
        self._intervals: deque[float] = deque(maxlen=9)  # the latest times between pictures, s
        self.start_seconds = start_seconds
        self.retry_seconds = retry_seconds
        self.max_retry_seconds = max_retry_seconds
        self.check_seconds = check_seconds
        self._lock = threading.Lock()
        self._new_frame = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._generation = 0
        self._workers: list[threading.Thread] = []   # readers that may still be finishing, the one in use last
        self._worker_fault: str | None = None
        self._source: CameraSource | None = None
        self._started_at = 0.0
        self._last_frame_at: float | None = None
        self._frame: np.ndarray | None = None
        self._stamp: FrameStamp | None = None
        self._count = 0
        self._status = CameraStatus(True, "camera starting", time.monotonic())
        self._watchdog = threading.Thread(target=self._watch, name="camera-watchdog", daemon=True)

    # -- public ------------------------------------------------------------------------
    def start(self) -> CameraMonitor:
        self._launch()
        self._watchdog.start()
        return self

    def stop(self) -> None:
        """Stop reading and wait (up to ``STOP_WAIT_SECONDS`` in all) for the watchdog and every reader
        thread it started; no new reader starts once this is called."""
        with self._lock:
            self._stop.set()
            self._generation += 1
            self._new_frame.notify_all()
        deadline = time.monotonic() + STOP_WAIT_SECONDS
        for thread in [self._watchdog, *self._workers]:
            if thread.is_alive():
                thread.join(timeout=max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def status(self) -> CameraStatus:
        return self._status

    @property
    def source(self) -> CameraSource | None:
        """The source now in use (None while reconnecting)."""
        return self._source

    def latest(self) -> tuple[int, np.ndarray | None]:
        """(frame count, newest frame); never waits for the camera."""
        with self._lock:
            return self._count, self._frame

    def latest_stamped(self) -> tuple[int, np.ndarray | None, FrameStamp | None]:
        """:meth:`latest` with the source's :class:`FrameStamp` of that frame, taken when it was read."""
        with self._lock:
            return self._count, self._frame, self._stamp

    def wait_for_frame(self, after: int, timeout: float) -> tuple[int, np.ndarray | None]:
        """Wait up to ``timeout`` s for a frame newer than count ``after``; returns latest()."""
        count, frame, _ = self.wait_for_stamped_frame(after, timeout)
        return count, frame

    def wait_for_stamped_frame(self, after: int, timeout: float
                               ) -> tuple[int, np.ndarray | None, FrameStamp | None]:
        """:meth:`wait_for_frame` with the source's :class:`FrameStamp` of that frame, taken when it was read."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._count <= after and not self._stop.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._new_frame.wait(left)
            return self._count, self._frame, self._stamp

    def wait_for_source(self, timeout: float) -> CameraSource | None:
        """Wait up to ``timeout`` s for the worker to have a source open; returns it (None if not yet)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._source is None and not self._stop.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._new_frame.wait(left)
            return self._source

    # -- worker: open and read ------------------------------------------------------------
    def _launch(self) -> None:
        with self._lock:
            if self._stop.is_set():      # the watchdog decided to reconnect as the monitor was stopped
                return
            self._generation += 1
            generation = self._generation
            self._worker_fault = None
            self._last_frame_at = None
            self._started_at = time.monotonic()
            worker = threading.Thread(target=self._read_loop, args=(generation,),
                                      name=f"camera-reader-{generation}", daemon=True)
            self._workers = [older for older in self._workers if older.is_alive()] + [worker]
            worker.start()

    def _read_loop(self, generation: int) -> None:
        source = None
        try:
            source = self.open_source()
            with self._lock:
                if generation != self._generation:
                    return
                self._source = source
                self._new_frame.notify_all()
            while generation == self._generation:
                frame = source.read()
                if frame is None or not isinstance(frame, np.ndarray) or frame.size == 0:
                    raise RuntimeError("the camera gave an empty picture")
                stamp = source.stamp()
                with self._lock:
                    if generation != self._generation:
                        return
                    now = time.monotonic()   # the first picture's wait counts as an interval too
                    self._intervals.append(now - (self._last_frame_at or self._started_at))
                    self._frame, self._stamp, self._last_frame_at = frame, stamp, now
                    self._count += 1
                    self._new_frame.notify_all()
        except Exception as exc:  # noqa: BLE001 - any camera failure becomes a status, never a crash
            with self._lock:
                if generation == self._generation:
                    self._worker_fault = " ".join(str(exc).split()) or type(exc).__name__
        finally:
            with self._lock:
                if self._source is source:
                    self._source = None
            if source is not None:
                try:
                    source.close()
                except Exception:
                    log.debug("closing a failed camera raised", exc_info=True)

    # -- watchdog ---------------------------------------------------------------------------
    def _problem(self, now: float) -> str | None:
        with self._lock:
            fault, started, last = self._worker_fault, self._started_at, self._last_frame_at
            usual = statistics.median(self._intervals) if self._intervals else 0.0
        if fault:
            return f"camera failed: {fault}"
        if last is None and now - started > self.start_seconds:
            return f"camera sent no picture for {now - started:.1f} s"
        if last is not None and now - last > max(self.stall_seconds, self.stall_frames * usual):
            return f"camera stopped sending pictures {now - last:.1f} s ago"
        if self._workers and not self._workers[-1].is_alive() and not self._stop.is_set():
            return "camera reader stopped"
        return None

    def _report(self, ok: bool, message: str) -> None:
        self._status = CameraStatus(ok, message, time.monotonic())
        log.log(logging.INFO if ok else logging.WARNING, message)
        if self.on_status:
            try:
                self.on_status(self._status)
            except Exception:
                log.exception("camera status listener failed")

    def _watch(self) -> None:
        retry = self.retry_seconds
        last_attempt = time.monotonic()
        while not self._stop.wait(self.check_seconds):
            now = time.monotonic()
            problem = self._problem(now)
            if problem is None:
                if self._last_frame_at is None:
                    continue                   # a fresh source still has time for its first frame
                if not self._status.ok:
                    self._report(True, "camera is working again")
                elif self._status.message == "camera starting":
                    self._status = CameraStatus(True, "camera working", now)
                retry = self.retry_seconds
                continue
            if self._status.ok:
                self._report(False, f"{problem}; dice can still be entered by hand, reconnecting...")
                last_attempt = now - retry     # first reconnection attempt right away
            if now - last_attempt >= retry:
                last_attempt = now
                retry = min(retry * 2, self.max_retry_seconds)
                self._launch()


class MonitoredCamera(CameraSource):
    """A camera source whose ``read()`` never hangs: frames come from a :class:`CameraMonitor`.

    ``read()`` returns the newest frame, or raises :class:`CameraError` with the
    monitor's plain-words message while the camera is failing; it heals by itself when
    the camera comes back.  Attributes it lacks (``throw``, ``truth`` of the sim) are
    looked up on the source in use, so code written for a plain source keeps working.
    """

    def __init__(self, open_source: Callable[[], CameraSource], *, first_frame_seconds: float = 2.0,
                 **monitor_options):
        self.first_frame_seconds = first_frame_seconds
        self.monitor = CameraMonitor(open_source, **monitor_options).start()
        self.name = "monitored"
        self._stamp = FrameStamp()

    def read(self) -> np.ndarray:
        status = self.monitor.status
        if not status.ok:
            raise CameraError(status.message)
        count, frame, stamp = self.monitor.latest_stamped()
        if frame is None:
            count, frame, stamp = self.monitor.wait_for_stamped_frame(count, self.first_frame_seconds)
        if frame is None:
            raise CameraError(self.monitor.status.message if not self.monitor.status.ok
                              else "the camera has sent no picture yet")
        self._stamp = stamp or FrameStamp()
        return frame

    @property
    def frame_name(self) -> str | None:
        return self._stamp.name

    def stamp(self) -> FrameStamp:
        return self._stamp

    def __getattr__(self, name: str):
        if name.startswith("_") or name == "monitor":
            raise AttributeError(name)
        source = self.monitor.source
        if source is None:      # AttributeError, so hasattr() stays a plain yes/no question
            raise AttributeError(f"{name}: the camera is reconnecting")
        return getattr(source, name)

    def close(self) -> None:
        self.monitor.stop()


def patience_for(spec: str | None) -> dict[str, float]:
    """The monitor's stall and start limits for camera ``spec``: the defaults, or the simulated
    camera's ``SIM_PATIENCE_SECONDS`` (see :func:`open_monitored`)."""
    if (spec or default_spec()).split(":")[0] == "sim":
        return {"stall_seconds": SIM_PATIENCE_SECONDS, "start_seconds": SIM_PATIENCE_SECONDS}
    return {}


def open_monitored(spec: str | None = None, *, keep_trying: bool = False, **options) -> MonitoredCamera:
    """``open_camera(spec, **options)`` behind a monitor.

    A camera that cannot open at all raises now, unless ``keep_trying`` is set: then the
    monitor reports it (``camera failed: ...``) and keeps trying to open it, as it does
    for a camera lost mid-game.

    The simulated camera runs at its real frame rate here, as a live camera does.  It has
    no cable to fail, so a pause in its pictures only means the machine is busy: it gets
    ``SIM_PATIENCE_SECONDS`` before it counts as hung, since reopening it would clear the
    dice lying on its table.
    """
    if (spec or default_spec()).split(":")[0] == "sim":
        options.setdefault("realtime", True)
    try:
        first = [open_camera(spec, **options)]
    except CameraError:
        if not keep_trying:
            raise
        first = []

    def reopen() -> CameraSource:
        return first.pop() if first else open_camera(spec, **options)

    opened = bool(first)
    camera = MonitoredCamera(reopen, **patience_for(spec))
    if opened:   # its reader takes it over in a moment: wait, so that ``throw`` and ``truth`` are there from the start
        camera.monitor.wait_for_source(camera.first_frame_seconds)
    return camera
