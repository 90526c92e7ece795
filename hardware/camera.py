"""Camera sources: one interface, four backends chosen by a spec string.

``open_camera(spec)`` understands:

* ``sim`` - the simulated camera: draws the dice a player must roll with
  :mod:`vision.synth`, tumbling for a few frames and then at rest, and tells the truth
  of what it drew (:attr:`SimCamera.truth`).
* ``pi`` - the Raspberry Pi camera through picamera2 (imported only here).
* ``usb`` or ``usb:INDEX`` (INDEX 0 to 63, as ``/dev/video0`` to ``/dev/video63``; or
  ``usb:/dev/videoN``) - a webcam through OpenCV.
* ``replay:PATH`` - a folder of images or a video file, played in a loop; an image that
  cannot be read is skipped with a one-line warning (logged), and a folder with no
  readable image is refused when it is opened.

Every source has ``read() -> BGR uint8 image`` (a :class:`CameraError`, one line, when
no frame can be had), ``close()``, and works as a context manager.  ``frame_name`` is a
name for the last frame (the image's path when replaying), or None; ``frame_time`` is
the last frame's time in seconds on the source's own clock (a virtual clock for the sim
and replays that are not paced), or None where the wall clock is the only one.  ``stamp()``
gathers what the source knows of the frame it has just given (:class:`FrameStamp`), for
code that reads frames on another thread than the one that uses them.
"""
from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.engine import DiceRequest
from companion.errors import CompanionError, UserError
from vision.image_files import load_scaled_image
from vision.reader import as_bgr8
from vision.synth import DIE_COLOURS, SynthDie, render_scene

__all__ = [
    "IMAGE_SUFFIXES", "MAX_USB_INDEX", "CameraError", "CameraSource", "EndOfReplay", "FrameStamp", "PiCamera",
    "ReplayCamera", "SimCamera", "UsbCamera", "default_spec", "is_raspberry_pi", "open_camera", "parse_camera_spec",
]

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
MAX_USB_INDEX = 63   # V4L2 numbers webcams /dev/video0 to /dev/video63

log = logging.getLogger(__name__)


class CameraError(CompanionError):
    """A camera that cannot give a frame (missing, unplugged, failed), in one line."""


class EndOfReplay(CameraError):
    """A replay that does not loop has shown its last frame."""


@dataclass(frozen=True)
class FrameStamp:
    """What a source knew of a frame when it gave it: its name (the image's path when replaying)
    and, from the simulated camera, the throw it belongs to and that throw's truth."""

    name: str | None = None
    throw: int | None = None
    truth: tuple[SynthDie, ...] | None = None


class CameraSource:
    """What every backend offers: ``read()``, ``close()`` and ``with`` support."""

    name = "camera"
    frame_name: str | None = None
    frame_time: float | None = None

    def read(self) -> np.ndarray:
        raise NotImplementedError

    def stamp(self) -> FrameStamp:
        """What the source knows of the frame ``read()`` gave last."""
        return FrameStamp(self.frame_name)

    def close(self) -> None:
        """Release the device; safe to call twice."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# --- simulated camera --------------------------------------------------------------

DEFAULT_SIM_REQUEST = DiceRequest("sim", (None,) * 5, "simulated roll")
SENSOR_NOISE_FRAMES = 3   # distinct noise patterns the simulated sensor cycles through


class SimCamera(CameraSource):
    """A camera looking at simulated dice, for desktops and tests.

    :meth:`throw` rolls the dice of a :class:`DiceRequest` (random values from the seed,
    or the values given); the next ``rolling_frames`` reads show them tumbling, then
    every read shows them at rest (the same picture with fresh sensor noise).
    :attr:`truth` is what the resting picture shows.  With ``auto_throw`` the sim
    throws again by itself after ``rest_frames`` frames at rest.  ``frame_time`` is the
    frame's time in seconds: a virtual clock at ``fps`` unless ``realtime`` is set, in
    which case reads are paced to ``fps`` and stamped with ``time.monotonic()``.
    """

    name = "sim"

    def __init__(self, request: DiceRequest | None = None, *, seed: int = 0, size: tuple[int, int] = (640, 480),
                 fps: float = 30.0, rolling_frames: int = 6, rest_frames: int = 20, auto_throw: bool = False,
                 realtime: bool = False, sensor_noise: float = 2.0, **render_options: Any):
        if fps <= 0 or rolling_frames < 1 or rest_frames < 1:
            raise CameraError("sim camera: fps, rolling_frames and rest_frames must be positive")
        self.request = request or DEFAULT_SIM_REQUEST
        self.size = (int(size[0]), int(size[1]))
        self.fps = float(fps)
        self.rolling_frames = int(rolling_frames)
        self.rest_frames = int(rest_frames)
        self.auto_throw = auto_throw
        self.realtime = realtime
        self.sensor_noise = float(sensor_noise)
        self.render_options = render_options
        self._rng = np.random.default_rng(seed)
        self._next_values: list[int] | None = None
        self.truth: list[SynthDie] = []
        self.throws = 0
        self.frame_time = 0.0
        self._frame_index = 0
        self._started = time.monotonic()
        self._tumble_left = 0
        self._rest_count = 0
        self._rest_image, _ = render_scene([], seed=seed, size=self.size, **render_options)
        # A few frames of sensor noise, cycled: every resting frame differs from the last, cheaply.
        self._noise = [self._rng.normal(0, self.sensor_noise, self._rest_image.shape).astype(np.int16)
                       for _ in range(SENSOR_NOISE_FRAMES)]
        self._closed = False
        if auto_throw:
            self.throw()

    def set_values(self, values: Sequence[int]) -> None:
        """Make the next throw show exactly these values (one per requested die)."""
        self._next_values = [int(v) for v in values]

    def throw(self, request: DiceRequest | None = None, values: Sequence[int] | None = None) -> list[SynthDie]:
        """Roll the requested dice now; returns the truth of where they will come to rest."""
        if request is not None:
            self.request = request
        if values is not None:
            self.set_values(values)
        values = self._next_values or [int(v) for v in self._rng.integers(1, 7, self.request.count)]
        self._next_values = None
        if len(values) != self.request.count:
            raise CameraError(f"sim camera: {len(values)} values given for {self.request.count} dice")
        names = list(DIE_COLOURS)
        dice = [(v, c or names[int(self._rng.integers(len(names)))]) for v, c in zip(values, self.request.colours)]
        scene_seed = int(self._rng.integers(1 << 31))
        self._rest_image, self.truth = render_scene(dice, seed=scene_seed, size=self.size, **self.render_options)
        self._tumble_left = self.rolling_frames
        self._rest_count = 0
        self.throws += 1
        return self.truth

    @property
    def rolling(self) -> bool:
        """True while the dice are still tumbling."""
        return self._tumble_left > 0

    def stamp(self) -> FrameStamp:
        """The last frame's throw and truth (the sim may have thrown again before another thread uses it)."""
        return FrameStamp(self.frame_name, self.throws, tuple(self.truth))

    def _tumble_frame(self) -> np.ndarray:
        """The tumbling dice: the tray turned and shifted a little more each frame, and smeared."""
        h, w = self._rest_image.shape[:2]
        angle = float(self._rng.uniform(-25, 25))
        shift = self._rng.uniform(-0.08, 0.08, 2) * (w, h)
        m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
        m[:, 2] += shift
        moved = cv2.warpAffine(self._rest_image, m, (w, h), borderMode=cv2.BORDER_REFLECT)
        length = 9
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        return cv2.filter2D(moved, -1, kernel)

    def read(self) -> np.ndarray:
        if self._closed:
            raise CameraError("sim camera is closed")
        self._frame_index += 1
        if self.realtime:
            due = self._started + self._frame_index / self.fps
            time.sleep(max(0.0, due - time.monotonic()))
            self.frame_time = time.monotonic()
        else:
            self.frame_time = self._frame_index / self.fps
        if self._tumble_left > 0:
            self._tumble_left -= 1
            return self._tumble_frame()
        self._rest_count += 1
        if self.auto_throw and self._rest_count > self.rest_frames:
            self.throw()
            self._tumble_left -= 1
            return self._tumble_frame()
        noise = self._noise[self._frame_index % len(self._noise)]
        return cv2.add(self._rest_image, noise, dtype=cv2.CV_8U)

    def close(self) -> None:
        self._closed = True


# --- replay ------------------------------------------------------------------------

UNPACED_REPLAY_FPS = 30.0   # the frame rate an unpaced replay's virtual clock assumes


class ReplayCamera(CameraSource):
    """Plays a folder of images (sorted by name) or a video file as camera frames, looping.

    Each image is shown for ``frames_per_image`` reads (a real camera sees a still
    tray many times).  With ``fps`` set, reads are paced to that rate.  An image that
    cannot be read (empty, damaged, gone, no permission) is skipped with a logged
    warning, once; a folder none of whose images can be read is a CameraError.
    """

    name = "replay"

    def __init__(self, path: str | Path, *, frames_per_image: int = 1, fps: float | None = None, loop: bool = True):
        self.path = Path(path)
        if frames_per_image < 1:
            raise CameraError("replay: frames_per_image must be at least 1")
        self.frames_per_image = frames_per_image
        self.fps = fps
        self.loop = loop
        self.frame_time = 0.0
        self._frames_read = 0
        self._video: cv2.VideoCapture | None = None
        self._images: list[Path] = []
        self._index = 0
        self._repeat = 0
        self._current: np.ndarray | None = None
        self._first: np.ndarray | None = None
        self._last_read = 0.0
        if self.path.is_dir():
            self._images = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._images:
                raise CameraError(f"replay: no images ({', '.join(IMAGE_SUFFIXES)}) in {self.path}")
            self._first = self._next_image()   # refuses a folder with no readable image now, not at a read
        elif self.path.is_file():
            self._video = cv2.VideoCapture(str(self.path))
            if not self._video.isOpened():
                raise CameraError(f"replay: cannot open {self.path} as a video")
        else:
            raise CameraError(f"replay: {self.path} is not a folder of photos or a video file"
                              if self.path.exists() else f"replay: {self.path} does not exist")

    @property
    def images(self) -> list[Path]:
        """The images played, in order (empty for a video); those found unreadable are left out."""
        return list(self._images)

    def _pace(self) -> None:
        """Wait for the next frame's turn at ``fps``; without it, step a virtual clock at 30 fps."""
        self._frames_read += 1
        if not self.fps:
            self.frame_time = self._frames_read / UNPACED_REPLAY_FPS
            return
        wait = self._last_read + 1.0 / self.fps - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self._last_read = self.frame_time = time.monotonic()

    def read(self) -> np.ndarray:
        self._pace()
        if self._video is not None:
            return self._read_video()
        if self._current is not None and self._repeat < self.frames_per_image:
            self._repeat += 1
            return self._current.copy()
        if self._first is not None:
            frame, self._first = self._first, None
        else:
            frame = self._next_image()
        self._current, self._repeat = frame, 1
        return frame.copy()

    def _next_image(self) -> np.ndarray:
        """The next readable image in the folder (looping), dropping unreadable ones with a warning."""
        while self._images:
            if self._index >= len(self._images):
                if not self.loop:
                    raise EndOfReplay(f"replay: end of {self.path}")
                self._index = 0
            image_path = self._images[self._index]
            try:
                frame = as_bgr8(load_scaled_image(image_path)[0])
            except UserError:
                log.warning("replay: skipped %s, which is not a readable image", image_path)
            else:
                self._index += 1
                self.frame_name = str(image_path)
                return frame
            del self._images[self._index]
        raise CameraError(f"replay: every image in {self.path} has gone or cannot be read")

    def _read_video(self) -> np.ndarray:
        if not self.path.exists():
            raise CameraError(f"replay: {self.path} has gone")
        if self._current is not None and self._repeat < self.frames_per_image:
            self._repeat += 1
            return self._current.copy()
        ok, frame = self._video.read()
        if not ok and self.loop:
            self._video.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = self._video.read()
        if not ok or frame is None:
            raise CameraError(f"replay: no more frames in {self.path}")
        self._current, self._repeat = frame, 1
        self.frame_name = f"{self.path}#{int(self._video.get(cv2.CAP_PROP_POS_FRAMES))}"
        return frame.copy()

    def close(self) -> None:
        if self._video is not None:
            self._video.release()


# --- USB webcam --------------------------------------------------------------------

class UsbCamera(CameraSource):
    """A webcam through OpenCV: MJPG, a one-frame buffer, stale frames dropped before each read.

    ``device`` is an index (``/dev/videoN``) or a device path.  ``stale_frames`` frames
    are grabbed and thrown away before each read, so a reading never sees the tray as
    it was before the dice landed, even where the driver ignores the buffer size.
    """

    name = "usb"

    def __init__(self, device: int | str = 0, *, size: tuple[int, int] | None = (1280, 720),
                 fps: float | None = 30.0, stale_frames: int = 1):
        self.device = device
        self.stale_frames = max(0, int(stale_frames))
        backend = cv2.CAP_V4L2 if isinstance(device, int) and hasattr(cv2, "CAP_V4L2") else cv2.CAP_ANY
        log_level = cv2.getLogLevel()
        cv2.setLogLevel(0)   # silent: a missing camera gets our own one-line error instead
        try:
            self._cap = cv2.VideoCapture(device, backend)
        finally:
            cv2.setLogLevel(log_level)
        if not self._cap.isOpened():
            self._cap.release()
            raise CameraError(f"USB camera {device} not found (is it plugged in? try usb:1)")
        self._cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
        self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        if size:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
        if fps:
            self._cap.set(cv2.CAP_PROP_FPS, fps)

    def read(self) -> np.ndarray:
        for _ in range(self.stale_frames):
            self._cap.grab()
        ok, frame = self._cap.read()
        if not ok or frame is None or frame.size == 0:
            raise CameraError(f"USB camera {self.device} gave no picture (unplugged?)")
        if frame.ndim == 2:
            frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
        return frame

    def close(self) -> None:
        self._cap.release()


# --- Raspberry Pi camera -----------------------------------------------------------

PI_FRAME_WIDTH = 1280   # default width of Pi camera frames: dice of 25+ px on a tray filling the view


class PiCamera(CameraSource):
    """The Raspberry Pi camera through picamera2, with its settings locked for a steady picture.

    The sensor runs in a full field-of-view mode; frames come out as BGR (picamera2's
    ``RGB888`` is blue-green-red in memory, OpenCV's order).  ``controls`` (a dict in
    picamera2's names, or a calibration profile's camera controls with
    ``as_controls()``) are locked at start; without them the camera runs automatic
    exposure, white balance and focus for ``settle_seconds``, then locks what it chose.
    Frames are ``width`` pixels wide with the sensor mode's aspect ratio, unless ``size``
    names both sides.
    """

    name = "pi"

    def __init__(self, controls: Mapping[str, Any] | Any = None, *, width: int = PI_FRAME_WIDTH,
                 size: tuple[int, int] | None = None, settle_seconds: float = 1.0):
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise CameraError("the Pi camera needs picamera2, which is only on Raspberry Pi OS "
                              "(sudo apt install python3-picamera2); use --camera sim or usb here") from None
        if controls is not None and hasattr(controls, "as_controls"):
            controls = controls.as_controls()
        try:
            self._cam = Picamera2()
        except Exception as exc:  # noqa: BLE001 - libcamera raises many kinds; the user needs one line
            raise CameraError(f"Pi camera not found: {exc}") from None
        try:
            mode = self._full_view_mode(size or (width, 1))
            if size is None:     # keep the sensor's shape, so the picture is neither cropped nor squashed
                size = (width, 2 * round(width * mode["size"][1] / mode["size"][0] / 2))
            config = self._cam.create_video_configuration(
                main={"size": tuple(size), "format": "RGB888"},
                sensor={"output_size": mode["size"], "bit_depth": mode.get("bit_depth", 10)},
                buffer_count=2,
            )
            self._cam.configure(config)
            self._cam.start()
            self.locked_controls = dict(controls) if controls else self._settle_and_read(settle_seconds)
            self._cam.set_controls(self.locked_controls)
        except CameraError:
            self.close()
            raise
        except Exception as exc:  # noqa: BLE001 - as above
            self.close()
            raise CameraError(f"Pi camera failed to start: {exc}") from None

    def _full_view_mode(self, size: tuple[int, int]) -> dict:
        """The smallest sensor mode that sees the whole sensor and is at least ``size``."""
        modes = list(self._cam.sensor_modes)
        if not modes:
            raise CameraError("Pi camera reports no sensor modes")
        full = self._cam.camera_properties.get("PixelArraySize")
        if full:
            whole = [m for m in modes if tuple(m.get("crop_limits", (0, 0) + tuple(full)))[2:] == tuple(full)]
            modes = whole or modes
        big_enough = [m for m in modes if m["size"][0] >= size[0] and m["size"][1] >= size[1]]
        pool = big_enough or modes
        pick = min if big_enough else max
        return pick(pool, key=lambda m: m["size"][0] * m["size"][1])

    def _settle_and_read(self, seconds: float) -> dict[str, Any]:
        """Let automatic exposure, white balance and focus settle once, then return them to lock."""
        if "AfMode" in self._cam.camera_controls:
            self._cam.set_controls({"AfMode": 1})     # one autofocus cycle
            self._cam.autofocus_cycle()
        deadline = time.monotonic() + seconds
        metadata = self._cam.capture_metadata()
        while time.monotonic() < deadline:
            metadata = self._cam.capture_metadata()
        locked: dict[str, Any] = {}
        if "ExposureTime" in metadata:
            locked.update(AeEnable=False, ExposureTime=int(metadata["ExposureTime"]))
        if "AnalogueGain" in metadata:
            locked.update(AeEnable=False, AnalogueGain=float(metadata["AnalogueGain"]))
        if "ColourGains" in metadata:
            locked.update(AwbEnable=False, ColourGains=tuple(float(g) for g in metadata["ColourGains"]))
        if "LensPosition" in metadata and "AfMode" in self._cam.camera_controls:
            locked.update(AfMode=0, LensPosition=float(metadata["LensPosition"]))
        return locked

    def read(self) -> np.ndarray:
        try:
            frame = self._cam.capture_array("main")
        except Exception as exc:  # noqa: BLE001 - as above
            raise CameraError(f"Pi camera: {exc}") from None
        if frame is None or frame.size == 0:
            raise CameraError("Pi camera gave no picture")
        return np.ascontiguousarray(frame[..., :3])

    def close(self) -> None:
        cam, self._cam = getattr(self, "_cam", None), None
        if cam is None:
            return
        try:
            cam.stop()
        finally:
            cam.close()


# --- choosing a source -------------------------------------------------------------

def is_raspberry_pi() -> bool:
    try:
        return "raspberry pi" in Path("/proc/device-tree/model").read_text(errors="ignore").lower()
    except OSError:
        return False


def default_spec() -> str:
    """``pi`` on a Raspberry Pi, ``sim`` elsewhere."""
    return "pi" if is_raspberry_pi() else "sim"


def parse_camera_spec(spec: str) -> tuple[str, int | str | None]:
    """``(kind, argument)`` of a camera spec (sim, pi, usb[:INDEX], usb:/dev/PATH, replay:PATH),
    the usb index checked to be 0..MAX_USB_INDEX; a one-line CameraError otherwise."""
    kind, _, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind in ("sim", "pi") and not arg:
        return kind, None
    if kind == "usb":
        if not arg:
            return kind, 0
        if arg.startswith("/dev/"):
            return kind, arg
        if re.fullmatch(r"[0-9]+", arg) and int(arg) <= MAX_USB_INDEX:
            return kind, int(arg)
        raise CameraError(f"camera {spec!r}: usb takes a number from 0 to {MAX_USB_INDEX} or a /dev/video path, "
                          "e.g. usb:1")
    if kind == "replay" and arg:
        return kind, arg
    raise CameraError(f"unknown camera {spec!r}: use sim, pi, usb, usb:INDEX or replay:PATH")


def open_camera(spec: str | None = None, **options: Any) -> CameraSource:
    """Open the camera named by ``spec`` (see :func:`parse_camera_spec`); options go to its backend."""
    kind, arg = parse_camera_spec(spec or default_spec())
    if kind == "sim":
        return SimCamera(**options)
    if kind == "pi":
        return PiCamera(**options)
    if kind == "usb":
        return UsbCamera(arg, **options)
    return ReplayCamera(arg, **options)
