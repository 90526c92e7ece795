"""A fake ``picamera2`` module for tests: the parts of Picamera2 the Pi backend uses.

It behaves like picamera2 on an IMX708 (Camera Module 3) where the backend can tell:
sensor modes with their crop limits, configurations, controls, metadata that reflects
locked controls, and ``capture_array`` honouring the pixel format (``RGB888`` is
blue-green-red in memory, ``BGR888`` red-green-blue).  Tests inject it with
``monkeypatch.setitem(sys.modules, "picamera2", fake_module)``.
"""
from __future__ import annotations

import numpy as np

PIXEL_ARRAY = (4608, 2592)
SENSOR_MODES = [
    {"size": (1536, 864), "crop_limits": (768, 432, 3072, 1728), "bit_depth": 10, "format": "SRGGB10_CSI2P"},
    {"size": (2304, 1296), "crop_limits": (0, 0, 4608, 2592), "bit_depth": 10, "format": "SRGGB10_CSI2P"},
    {"size": (4608, 2592), "crop_limits": (0, 0, 4608, 2592), "bit_depth": 10, "format": "SRGGB10_CSI2P"},
]
AUTO_METADATA = {"ExposureTime": 16667, "AnalogueGain": 2.5, "ColourGains": (1.9, 1.6), "LensPosition": 2.75}

instances: list[Picamera2] = []
fail_to_open: str | None = None       # set to a message to make Picamera2() raise like libcamera does


class Picamera2:
    def __init__(self, camera_num: int = 0):
        if fail_to_open:
            raise RuntimeError(fail_to_open)
        self.sensor_modes = [dict(m) for m in SENSOR_MODES]
        self.camera_properties = {"Model": "imx708", "PixelArraySize": PIXEL_ARRAY}
        self.camera_controls = {name: (0, 1, 0) for name in
                                ("AeEnable", "ExposureTime", "AnalogueGain", "AwbEnable", "ColourGains",
                                 "AfMode", "LensPosition")}
        self.config: dict | None = None
        self.controls: dict = {}
        self.control_calls: list[dict] = []
        self.started = self.stopped = self.closed = False
        self.autofocus_cycles = 0
        self.capture_error: Exception | None = None
        self.scene_rgb = np.zeros((8, 8, 3), np.uint8)   # what the lens sees, in R, G, B
        self.scene_rgb[:, :4] = (255, 0, 0)              # left half red
        self.scene_rgb[:, 4:] = (0, 0, 255)              # right half blue
        instances.append(self)

    def create_video_configuration(self, main=None, lores=None, raw=None, sensor=None, controls=None,
                                   buffer_count=6, **kwargs):
        main = dict(main or {})
        main.setdefault("size", (1280, 720))
        main.setdefault("format", "XBGR8888")
        return {"use_case": "video", "main": main, "sensor": dict(sensor or {}), "controls": dict(controls or {}),
                "buffer_count": buffer_count}

    def configure(self, config):
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        self.config = config

    def start(self):
        if self.config is None:
            raise RuntimeError("Camera has not been configured")
        self.started = True

    def stop(self):
        self.stopped = True
        self.started = False

    def close(self):
        self.closed = True

    def set_controls(self, controls):
        unknown = set(controls) - set(self.camera_controls)
        if unknown:
            raise RuntimeError(f"Control {min(unknown)} is not advertised by libcamera")
        self.control_calls.append(dict(controls))
        self.controls.update(controls)

    def autofocus_cycle(self):
        self.autofocus_cycles += 1
        return True

    def capture_metadata(self):
        meta = dict(AUTO_METADATA)
        for name in ("ExposureTime", "AnalogueGain", "ColourGains", "LensPosition"):
            if name in self.controls:
                meta[name] = self.controls[name]
        return meta

    def capture_array(self, name="main"):
        if not self.started:
            raise RuntimeError("Camera is not running")
        if self.capture_error:
            raise self.capture_error
        w, h = self.config[name]["size"]
        rgb = np.ascontiguousarray(np.repeat(np.repeat(self.scene_rgb, h // 8, 0), w // 8, 1))
        fmt = self.config[name]["format"]
        if fmt == "RGB888":          # DRM naming: bytes in memory are B, G, R
            return rgb[..., ::-1].copy()
        if fmt == "BGR888":
            return rgb
        if fmt in ("XBGR8888", "XRGB8888"):
            order = rgb if fmt == "XBGR8888" else rgb[..., ::-1]
            return np.dstack([order, np.full((h, w), 255, np.uint8)])
        raise RuntimeError(f"unsupported format {fmt}")
