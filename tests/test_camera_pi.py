"""The picamera2 backend's own logic, run against the fake picamera2 module in tests/fakes."""
import sys

import pytest
from fakes import picamera2 as fake

from hardware.camera import CameraError, PiCamera, open_camera


@pytest.fixture
def picam(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", fake)
    monkeypatch.setattr(fake, "instances", [])
    monkeypatch.setattr(fake, "fail_to_open", None)
    return fake


def test_off_the_pi_a_one_line_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)    # import fails as it does off the Pi
    with pytest.raises(CameraError, match="picamera2") as err:
        open_camera("pi")
    assert "\n" not in str(err.value)


def test_full_view_sensor_mode_and_bgr_frames(picam):
    with open_camera("pi", controls={"ExposureTime": 9000}, size=(1280, 960)) as cam:
        cfg = picam.instances[0].config
        # the cropped 1536x864 mode is smaller but cuts the view: the full-view 2304x1296 one is chosen
        assert cfg["sensor"]["output_size"] == (2304, 1296)
        assert cfg["main"] == {"size": (1280, 960), "format": "RGB888"}
        frame = cam.read()
    assert frame.shape == (960, 1280, 3)
    left, right = frame[10, 10], frame[10, -10]
    assert tuple(left) == (0, 0, 255)       # the red half is red in OpenCV's B, G, R order
    assert tuple(right) == (255, 0, 0)


def test_profile_controls_are_locked_as_given(picam):
    controls = {"AeEnable": False, "ExposureTime": 12000, "AnalogueGain": 1.5,
                "AwbEnable": False, "ColourGains": (2.0, 1.4), "AfMode": 0, "LensPosition": 4.0}
    cam = PiCamera(controls)
    inst = picam.instances[0]
    assert inst.controls == controls
    assert inst.autofocus_cycles == 0            # nothing left to settle
    assert cam.locked_controls == controls
    cam.close()


def test_a_calibration_object_with_as_controls_is_accepted(picam):
    class Controls:
        def as_controls(self):
            return {"AwbEnable": False, "ColourGains": (1.7, 1.3)}

    PiCamera(Controls()).close()
    assert picam.instances[0].controls == {"AwbEnable": False, "ColourGains": (1.7, 1.3)}


def test_without_a_profile_settles_once_then_locks(picam):
    cam = PiCamera(settle_seconds=0.0)
    inst = picam.instances[0]
    assert inst.autofocus_cycles == 1
    locked = inst.control_calls[-1]
    assert locked["AeEnable"] is False and locked["AwbEnable"] is False and locked["AfMode"] == 0
    assert locked["ExposureTime"] == fake.AUTO_METADATA["ExposureTime"]
    assert locked["AnalogueGain"] == fake.AUTO_METADATA["AnalogueGain"]
    assert locked["ColourGains"] == fake.AUTO_METADATA["ColourGains"]
    assert locked["LensPosition"] == fake.AUTO_METADATA["LensPosition"]
    cam.close()


def test_closed_on_exit_even_after_an_error(picam):
    with pytest.raises(RuntimeError), PiCamera({"ExposureTime": 1000}) as cam:
        cam.read()
        raise RuntimeError("the app failed")
    inst = picam.instances[0]
    assert inst.stopped and inst.closed


def test_capture_failure_is_a_camera_error(picam):
    cam = PiCamera({"ExposureTime": 1000})
    picam.instances[0].capture_error = RuntimeError("Camera frontend has timed out!\nPlease check")
    with pytest.raises(CameraError, match="timed out") as err:
        cam.read()
    assert "\n" not in str(err.value)
    cam.close()


def test_no_camera_connected(picam):
    picam.fail_to_open = "list index out of range"
    with pytest.raises(CameraError, match="Pi camera not found"):
        PiCamera()


def test_default_frame_keeps_the_sensor_shape(picam):
    with PiCamera({"ExposureTime": 1000}, width=1280) as cam:
        cfg = picam.instances[0].config
        assert cfg["sensor"]["output_size"] == (2304, 1296)
        assert cfg["main"]["size"] == (1280, 720)            # 16:9 like the full sensor, not squashed
        assert cam.read().shape == (720, 1280, 3)


def test_watch_locks_the_pi_camera_to_the_calibration_profile(picam, tmp_path, capsys):
    from calibration.profile import CameraControls, Profile, save_profile
    from companion.cli import main

    controls = CameraControls(exposure_us=15000, analogue_gain=1.25, colour_gains=(1.8, 1.4), lens_position=3.0)
    path = save_profile(Profile(name="table", camera=controls), tmp_path / "table.toml")
    assert main(["watch", "--camera", "pi", "--profile", str(path), "--frames", "--rolls", "1", "--json"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1
    inst = picam.instances[0]
    assert inst.controls == controls.as_controls()
    assert inst.closed
