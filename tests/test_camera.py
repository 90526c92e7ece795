"""Camera sources: spec strings, the simulated camera, replaying photos and video, OpenCV capture."""
import itertools
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.engine import DiceRequest
from companion.games import get_game
from hardware import camera as camera_module
from hardware.camera import CameraError, ReplayCamera, SimCamera, UsbCamera, open_camera
from vision.synth import DIE_COLOURS

BYLER = Path(__file__).parent / "data" / "byler_d6" / "images"


def _photos(tmp_path, n=3):
    folder = tmp_path / "photos"
    folder.mkdir()
    for src in sorted(BYLER.glob("*.jpg"))[:n]:
        shutil.copy(src, folder / src.name)
    return folder


@pytest.mark.parametrize("spec,message", [("webcam", "unknown camera"), ("usb:front", "usb takes a number"),
                                          ("replay:", "unknown camera"), ("usb:9", "not found"),
                                          ("replay:/no/such/folder", "does not exist")])
def test_bad_specs_are_one_line_errors(spec, message):
    with pytest.raises(CameraError, match=message) as err:
        open_camera(spec)
    assert "\n" not in str(err.value)


def test_sim_draws_the_requested_dice_and_tells_the_truth():
    request = DiceRequest("Ann", ("white", "white", "red", None))
    with open_camera("sim", seed=3) as cam:
        truth = cam.throw(request, values=[6, 5, 1, 2])
        assert [(t.value, t.colour) for t in truth[:3]] == [(6, "white"), (5, "white"), (1, "red")]
        assert truth[3].value == 2 and truth[3].colour in DIE_COLOURS
        assert cam.truth == truth
        frame = cam.read()
        assert frame.shape == (480, 640, 3) and frame.dtype == np.uint8


def test_sim_random_values_come_from_the_seed():
    request = DiceRequest("Bo", ("blue",) * 6)
    a, b, c = SimCamera(request, seed=8), SimCamera(request, seed=8), SimCamera(request, seed=9)
    rolls = [[t.value for t in cam.throw()] + [t.value for t in cam.throw()] for cam in (a, b, c)]
    assert rolls[0] == rolls[1] != rolls[2]


def test_sim_tumbles_then_rests():
    cam = SimCamera(DiceRequest("A", ("green", "yellow")), seed=1, rolling_frames=5)
    cam.throw()
    tumbling = [cam.read().astype(int) for _ in range(5)]
    assert not cam.rolling
    resting = [cam.read().astype(int) for _ in range(4)]
    # consecutive tumbling frames differ a lot; resting ones differ only by sensor noise
    def changed(a, b):
        return float(np.mean(np.abs(a - b).max(axis=2) > 30))

    assert all(changed(a, b) > 0.01 for a, b in itertools.pairwise(tumbling))
    assert all(changed(a, b) < 0.0005 for a, b in itertools.pairwise(resting))
    assert changed(tumbling[-1], resting[0]) > 0.01


def test_sim_throws_again_by_itself_with_auto_throw_and_keeps_virtual_time():
    cam = SimCamera(seed=2, rolling_frames=3, rest_frames=5, auto_throw=True, fps=25)
    for _ in range(3 + 5):
        cam.read()
    assert cam.throws == 1 and cam.frame_time == pytest.approx(8 / 25)
    cam.read()
    assert cam.throws == 2 and cam.rolling


def test_sim_refuses_the_wrong_number_of_values():
    cam = SimCamera(DiceRequest("A", ("red", "red")))
    with pytest.raises(CameraError, match="3 values given for 2 dice"):
        cam.throw(values=[1, 2, 3])


def test_replay_folder_gives_the_files_pixels_in_order_and_loops(tmp_path):
    folder = _photos(tmp_path)
    files = sorted(folder.iterdir())
    with open_camera(f"replay:{folder}") as cam:
        frames = [(cam.read(), cam.frame_name) for _ in range(4)]
    for (frame, name), path in zip(frames, files + files[:1]):
        assert name == str(path)
        assert np.array_equal(frame, cv2.imread(str(path)))


def test_replay_holds_each_image_for_several_frames(tmp_path):
    folder = _photos(tmp_path, 2)
    cam = ReplayCamera(folder, frames_per_image=3)
    names = []
    for _ in range(6):
        cam.read()
        names.append(Path(cam.frame_name).name)
    first, second = sorted(p.name for p in folder.iterdir())
    assert names == [first] * 3 + [second] * 3


def test_replay_notices_a_vanished_file_and_an_empty_folder(tmp_path):
    folder = _photos(tmp_path, 2)
    cam = ReplayCamera(folder)
    cam.read()
    for p in folder.iterdir():
        p.unlink()
    with pytest.raises(CameraError, match="has gone"):
        cam.read()
    with pytest.raises(CameraError, match="no images"):
        ReplayCamera(folder)
    (folder / "note.txt").write_text("not a photo")
    with pytest.raises(CameraError, match="no images"):
        ReplayCamera(folder)


def _video(path, n=8, size=(64, 48)):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, size)
    for i in range(n):
        writer.write(np.full((size[1], size[0], 3), 20 + 25 * i, np.uint8))
    writer.release()
    return path


def _level(frame):
    return round((float(frame.mean()) - 20) / 25)


def test_replay_video_loops(tmp_path):
    cam = open_camera(f"replay:{_video(tmp_path / 'roll.avi', n=4)}")
    assert [_level(cam.read()) for _ in range(6)] == [0, 1, 2, 3, 0, 1]
    cam.close()


def test_opencv_capture_drops_stale_frames_before_each_read(tmp_path):
    # A video file goes through the same cv2.VideoCapture calls as a webcam does.
    video = str(_video(tmp_path / "cam.avi"))
    fresh = UsbCamera(video, stale_frames=1)
    assert [_level(fresh.read()) for _ in range(3)] == [1, 3, 5]
    fresh.close()
    plain = UsbCamera(video, stale_frames=0)
    assert [_level(plain.read()) for _ in range(3)] == [0, 1, 2]
    plain.close()


def test_opencv_capture_reports_the_end_of_frames(tmp_path):
    cam = UsbCamera(str(_video(tmp_path / "short.avi", n=2)), stale_frames=0)
    cam.read()
    cam.read()
    with pytest.raises(CameraError, match="no picture"):
        cam.read()


@pytest.mark.parametrize("name", ["dairyman", "whirling-derby"])
def test_sim_throws_what_a_real_game_asks_for_and_the_game_accepts_it(name):
    game = get_game(name)
    state = game.new_game(game.default_players(game.min_players), seed=1)
    request = state.dice_to_roll()
    cam = SimCamera(seed=7)
    truth = cam.throw(request)
    assert sorted(t.colour for t in truth) == sorted(request.colours)
    after = state.apply_roll([t.to_die() for t in truth])     # the rules engine takes the drawn dice as a roll
    assert after is not state


def test_default_camera_is_pi_on_a_pi_and_sim_elsewhere(monkeypatch):
    monkeypatch.setattr(camera_module, "is_raspberry_pi", lambda: True)
    assert camera_module.default_spec() == "pi"
    monkeypatch.setattr(camera_module, "is_raspberry_pi", lambda: False)
    assert camera_module.default_spec() == "sim"
    assert isinstance(open_camera(), SimCamera)
