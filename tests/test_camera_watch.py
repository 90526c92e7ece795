"""``companion watch`` and camera reading: sim rolls against their truth, replay against the files."""
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from companion.bench_camera import matches_truth
from companion.cli import main
from companion.commands.watch import camera_frames, camera_readings, settled_readings
from hardware.camera import SimCamera
from vision.settle import DEFAULT_SETTLE
from vision.types import DieReading, Reading

BYLER = Path(__file__).parent / "data" / "byler_d6" / "images"


def _truth_reader(camera):
    """Reads what the sim drew (a stand-in for the real reader while testing the plumbing)."""
    return lambda frame: Reading(tuple(DieReading(t.value, t.colour, t.center, t.bbox, 1.0) for t in camera.truth),
                                 ms=4.0)


def test_one_settled_reading_per_sim_roll_at_the_right_time():
    camera = SimCamera(seed=5, auto_throw=True, size=(320, 240), die_size=(25, 40))
    lines = list(settled_readings(camera_frames(camera), _truth_reader(camera), rolls=6))
    assert len(lines) == 6 and camera.throws == 6
    for reading, settle_ms, truth in lines:
        assert matches_truth(reading, truth)
        # rest period, then two agreeing frames at 30 fps, plus the reader's 4 ms
        assert DEFAULT_SETTLE.still_seconds * 1000 <= settle_ms <= DEFAULT_SETTLE.still_seconds * 1000 + 80
    assert len({tuple((t.value, t.colour) for t in truth) for _, _, truth in lines}) == 6


def test_a_throw_that_never_agrees_still_gives_its_line():
    camera = SimCamera(seed=6, auto_throw=True, size=(320, 240), die_size=(25, 40))
    flips = iter(range(10_000))

    def flaky(frame):
        return Reading((DieReading(1 + next(flips) % 6, "red", (5, 5), (0, 0, 9, 9), 0.5),))

    lines = list(settled_readings(camera_frames(camera), flaky, rolls=3))
    assert len(lines) == 3
    assert all(r.error and not r.dice for r, _, _ in lines)


def test_watch_json_lines_carry_the_read_shape_and_the_truth(capsys):
    assert main(["watch", "--camera", "sim", "--json", "--rolls", "2", "--seed", "4"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(lines) == 2
    for line in lines:
        assert {"image", "dice", "ms", "settle_to_reading_ms", "truth"} <= set(line)
        assert len(line["truth"]) == 5
        assert all(set(t) == {"value", "colour", "center"} for t in line["truth"])
    assert main(["watch", "--camera", "sim", "--json", "--rolls", "2", "--seed", "4"]) == 0
    again = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["truth"] for x in again] == [x["truth"] for x in lines]


def test_watch_refuses_bad_arguments(capsys):
    assert main(["watch", "--camera", "tv", "--rolls", "1"]) == 2
    assert main(["watch", "--camera", "sim", "--rolls", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "unknown camera" in err[0]


@pytest.fixture
def photos(tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    for src in sorted(BYLER.glob("*.jpg"))[:3]:
        shutil.copy(src, folder / src.name)
    return folder


def _dice(reading_json):
    return [(d["value"], d["colour"], d["center"], d["bbox"]) for d in reading_json["dice"]]


def test_replay_readings_equal_reading_the_files(photos):
    from vision.reader import read_file

    direct = [read_file(p).to_json() for p in sorted(photos.iterdir())]
    replayed = [r.to_json() for r in camera_readings(f"replay:{photos}")]
    assert [r["image"] for r in replayed] == [d["image"] for d in direct]
    assert [_dice(r) for r in replayed] == [_dice(d) for d in direct]


def test_read_command_through_a_replay_camera_equals_reading_the_files(photos, capsys):
    files = sorted(photos.iterdir())
    assert main(["read", "--json", *map(str, files)]) == 0
    direct = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert main(["read", "--json", "--camera", f"replay:{photos}"]) == 0
    replayed = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(direct) == len(replayed) == len(files)
    assert [r["image"] for r in replayed] == [d["image"] for d in direct]
    assert [_dice(r) for r in replayed] == [_dice(d) for d in direct]
    assert any(d["dice"] for d in direct)


def test_read_command_wants_files_or_a_camera_not_both(photos, capsys):
    assert main(["read", "--json"]) == 2
    assert main(["read", str(next(photos.iterdir())), "--camera", f"replay:{photos}"]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2 and all(e.startswith("companion: ") for e in errors)


def test_watch_on_a_replay_folder_reads_each_photo_once_settled(photos, capsys):
    from vision.reader import read_file

    assert main(["watch", "--camera", f"replay:{photos}", "--json", "--rolls", "3"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    files = sorted(photos.iterdir())
    assert [x["image"] for x in lines] == [str(p) for p in files]
    assert [_dice(x) for x in lines] == [_dice(read_file(p).to_json()) for p in files]


def test_watch_on_a_seeded_sim_reads_100_rolls_as_drawn():
    """Needs the real reader to read synthetic frames right; stops at the first wrong roll."""
    from vision.reader import read_frame

    camera = SimCamera(seed=2024, auto_throw=True)
    settings = replace(DEFAULT_SETTLE, report_empty=True)
    count = 0
    for reading, _, truth in settled_readings(camera_frames(camera), read_frame, rolls=100, settings=settings):
        got = sorted((d.value, d.colour) for d in reading.dice)
        drawn = sorted((t.value, t.colour) for t in truth)
        assert matches_truth(reading, truth), f"roll {count + 1}: read {got}, drawn {drawn}"
        count += 1
    assert count == 100


def test_watch_live_path_runs_through_the_camera_monitor(capsys):
    assert main(["watch", "--camera", "sim", "--realtime", "--json", "--rolls", "2", "--seed", "3"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(lines) == 2 and all(len(x["truth"]) == 5 for x in lines)
    assert lines[0]["truth"] != lines[1]["truth"]          # two different throws, one line each


def test_watch_on_a_missing_usb_camera_is_a_one_line_error(capsys):
    assert main(["watch", "--camera", "usb:7", "--rolls", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "not found" in err


def test_read_with_a_tray_white_balanced_profile_undoes_a_lamp_cast(photos, tmp_path, capsys):
    """A lamp warmer than the light step reaches (red 2.9 times blue; the step goes to 2.5) turns the photos
    orange; the profile's tray white balance gives back the colours."""
    import cv2
    import numpy as np

    from calibration.profile import Profile, save_profile
    from calibration.white_balance import WhiteBalance, background_colour, neutral_reference

    originals = sorted(photos.iterdir())
    cast_dir = tmp_path / "warm"
    cast_dir.mkdir()
    for path in originals:
        image = cv2.imread(str(path)).astype(np.float32) * np.array([0.35, 0.7, 1.0], np.float32)
        cv2.imwrite(str(cast_dir / path.name), np.clip(image, 0, 255).astype(np.uint8))
    reference = neutral_reference(background_colour(cv2.imread(str(originals[0]))))
    profile = save_profile(Profile(white_balance=WhiteBalance("tray", reference_bgr=reference)),
                           tmp_path / "profile.toml")

    def colours(*args):
        assert main(["read", "--json", *args]) == 0
        lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        return [[d["colour"] for d in sorted(line["dice"], key=lambda d: d["center"])] for line in lines]

    truth = colours(*map(str, originals))
    balanced = colours("--profile", str(profile), *map(str, sorted(cast_dir.iterdir())))
    unbalanced = colours(*map(str, sorted(cast_dir.iterdir())))

    def agreement(other):
        pairs = [(a, b) for t, o in zip(truth, other) if len(t) == len(o) for a, b in zip(t, o)]
        return sum(a == b for a, b in pairs) / max(len(pairs), 1)

    assert agreement(balanced) >= 0.9
    assert agreement(unbalanced) < agreement(balanced)


@pytest.mark.parametrize("hold", ["0", "-1", "nan", "4000"])
def test_a_live_replay_refuses_an_impossible_hold_in_one_line(hold, photos, capsys):
    assert main(["watch", "--camera", f"replay:{photos}", "--realtime", "--hold", hold, "--rolls", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--hold must be more than 0 and at most 3600 seconds" in err
