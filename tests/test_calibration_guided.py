"""`companion calibrate`: the guided sequence on a synthetic tray with printed markers and painted
dice, photographed at a slant under different lamps, from files, a replayed camera and a manifest."""
import io
import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from test_calibration_colour import byler_subset

from calibration.guided import dice_by_difference, plan_colours
from calibration.profile import load_profile
from calibration.tray import TrayLayout, render_tray
from companion.cli import main
from companion.errors import UserError
from vision.colour import Palette, die_colour_features

LAYOUT = TrayLayout(width_mm=300.0, height_mm=200.0, marker_size_mm=30.0)
TOP_PX_PER_MM = 4.0
CAMERA_CORNERS = [(250, 160), (1100, 215), (1030, 830), (170, 760)]
BODY = {"white": (232, 236, 236), "yellow": (30, 200, 240), "red": (45, 40, 190), "maroon": (47, 42, 187),
        "blue": (170, 90, 30)}
PIPS = {"white": (20, 20, 20), "yellow": (20, 20, 20), "red": (235, 235, 235), "maroon": (235, 235, 235),
        "blue": (235, 235, 235)}
WARM = ((0.6, 0.85, 1.0), 1.0)
COOL = ((1.0, 0.92, 0.7), 1.1)
SIDE_MM = 16.0


def paint_die(top, centre_mm, colour, angle, rng):
    side = SIDE_MM * TOP_PX_PER_MM
    cx, cy = (v * TOP_PX_PER_MM for v in centre_mm)
    box = cv2.boxPoints(((cx, cy), (side, side), angle)).astype(np.int32)
    shadow = np.zeros(top.shape[:2], np.float32)
    cv2.fillConvexPoly(shadow, box + np.int32([6, 6]), 1.0)
    top[:] = (top * (1 - 0.35 * cv2.GaussianBlur(shadow, (0, 0), 4))[..., None]).astype(np.uint8)
    body = np.clip(np.array(BODY[colour]) + rng.normal(0, 4, 3), 0, 255)
    cv2.fillConvexPoly(top, box, tuple(float(v) for v in body * 0.8), lineType=cv2.LINE_AA)
    inner = cv2.boxPoints(((cx, cy), (side * 0.86, side * 0.86), angle)).astype(np.int32)
    cv2.fillConvexPoly(top, inner, tuple(float(v) for v in body), lineType=cv2.LINE_AA)
    a = math.radians(angle)
    for u, v in [(-0.25, -0.25), (0, 0), (0.25, 0.25)]:
        px = cx + side * (u * math.cos(a) - v * math.sin(a))
        py = cy + side * (u * math.sin(a) + v * math.cos(a))
        cv2.circle(top, (round(px), round(py)), round(side * 0.08), PIPS[colour], -1, cv2.LINE_AA)


def photograph(dice=(), lamp=((1.0, 1.0, 1.0), 1.0), seed=0):
    """The tray from the slanted camera, with ``dice`` [(colour, (x_mm, y_mm))] and a lamp's cast."""
    rng = np.random.default_rng(seed)
    top = render_tray(LAYOUT, TOP_PX_PER_MM, tray_grey=196)
    for colour, centre in dice:
        paint_die(top, centre, colour, float(rng.uniform(0, 90)), rng)
    mm_to_photo = cv2.getPerspectiveTransform(LAYOUT.corners_mm().astype(np.float32), np.float32(CAMERA_CORNERS))
    scale = np.diag([1 / TOP_PX_PER_MM, 1 / TOP_PX_PER_MM, 1.0])
    photo = cv2.warpPerspective(top, mm_to_photo @ scale, (1280, 960), flags=cv2.INTER_AREA,
                                borderValue=(60, 70, 80)).astype(np.float64)
    gains, gamma = lamp
    photo = np.clip(photo / 255.0 * np.array(gains), 0, 1) ** gamma * 255
    return np.clip(photo + rng.normal(0, 2.0, photo.shape), 0, 255).astype(np.uint8)


def spots(count, seed):
    """``count`` dice centres (mm) well inside the tray and apart from each other and the markers."""
    rng = np.random.default_rng(seed)
    placed = []
    while len(placed) < count:
        p = rng.uniform((50, 25), (250, 175))
        if all(np.hypot(*(p - q)) > 30 for q in placed):
            placed.append(p)
    return [tuple(p) for p in placed]


def write_set(folder: Path, colours, lamp, seed=0) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = {"empty": folder / "empty.png"}
    cv2.imwrite(str(files["empty"]), photograph((), lamp, seed))
    for i, colour in enumerate(colours):
        files[colour] = folder / f"{colour}.png"
        cv2.imwrite(str(files[colour]), photograph([(colour, p) for p in spots(6, seed + i + 1)], lamp, seed + i + 1))
    return files


@pytest.fixture()
def config(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("COMPANION_PROFILE", raising=False)
    return tmp_path / "config"


def test_guided_calibration_from_files_learns_tray_light_and_colours(tmp_path, config, capsys):
    files = write_set(tmp_path / "warm", ["white", "yellow", "red"], WARM)
    status = main(["calibrate", "--game", "dairyman", "--tray", "markers", "--empty", str(files["empty"]),
                   *[f"--dice={c}={files[c]}" for c in ("white", "yellow", "red")]])
    out = capsys.readouterr().out
    assert status == 0
    assert "step 6/6: check" in out and "found 6 red dice" in out and "WARNING" not in out
    profile = load_profile(config / "profile.toml")
    assert profile.tray.method == "markers"
    assert np.abs(np.array(profile.tray.corners_px) - np.array(CAMERA_CORNERS)).max() < 2.0
    assert profile.white_balance.method == "tray"
    assert isinstance(profile.palette, Palette)
    assert {c.name for c in profile.palette.colours} == {"white", "yellow", "red"}
    side_px = SIDE_MM * profile.tray.px_per_mm
    assert profile.die_size.min_px < side_px < profile.die_size.max_px

    # a later roll under a cool daylight: the profile's tray white balance keeps the colours
    roll = [("white", p) for p in spots(2, 50)[:2]]
    roll += [("yellow", p) for p in spots(2, 60)[:2]] + [("red", p) for p in spots(2, 70)[:2]]
    roll = [(c, p) for (c, _), p in zip(roll, spots(6, 80))]
    frame = profile.prepare(photograph(roll, COOL, seed=90))
    scale = profile.tray.px_per_mm
    half = SIDE_MM * scale * 0.7 / 2
    for colour, (x, y) in roll:
        bbox = (x * scale - half, y * scale - half, 2 * half, 2 * half)
        assert profile.palette.classify(die_colour_features(frame, bbox))[0] == colour


def test_two_colours_too_close_are_warned_about(tmp_path, config, capsys):
    files = write_set(tmp_path / "s", ["red", "maroon", "blue"], ((1, 1, 1), 1.0))
    status = main(["calibrate", "--colours", "red,maroon,blue", "--empty", str(files["empty"]),
                   *[f"--dice={c}={files[c]}" for c in ("red", "maroon", "blue")], "-o", str(tmp_path / "p.toml")])
    out = capsys.readouterr().out
    assert status == 0
    warned = [line for line in out.splitlines() if "WARNING" in line]
    assert {line.split()[0] for line in warned} == {"red", "maroon"}
    assert not any(line.split()[0] == "blue" for line in warned)


def test_guided_calibration_from_a_replayed_camera_with_prompts(tmp_path, config, capsys, monkeypatch):
    files = write_set(tmp_path / "shots", ["white", "yellow"], ((1, 1, 1), 1.0))
    replay = tmp_path / "replay"
    replay.mkdir()
    for i, step in enumerate(["empty", "white", "yellow"]):
        (replay / f"{i}_{step}.png").write_bytes(files[step].read_bytes())
    # the player renames the planned colours at the first prompt, then presses Enter for each picture
    monkeypatch.setattr("sys.stdin", io.StringIO("white, gold\n\n\n\n"))
    status = main(["calibrate", "--colours", "white,red", "--camera", f"replay:{replay}", "--shots", "1"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.count("press Enter") == 4
    assert "found 6 gold dice" in out
    assert {c.name for c in load_profile(config / "profile.toml").palette.colours} == {"white", "gold"}


def test_shadows_are_not_dice():
    empty = photograph(())
    one = photograph([("white", (150.0, 100.0))], seed=3)
    boxes = dice_by_difference(one, empty)
    assert len(boxes) == 1
    _x, _y, w, h = boxes[0]
    assert max(w, h) < 1.5 * SIDE_MM * 1.5 * 4  # die plus slant, never die plus a whole shadow region


def test_colour_plan_from_preset_renamed_and_added():
    assert plan_colours("dairyman") == ["white", "yellow", "red"]
    assert plan_colours("dairyman", renames=["white=ivory"], added=["green"]) == ["ivory", "yellow", "red", "green"]
    with pytest.raises(UserError, match="not among"):
        plan_colours("dairyman", renames=["pink=red"])
    with pytest.raises(UserError, match="no dice colours known"):
        plan_colours("chess")


@pytest.mark.parametrize("args, message", [
    (["--dice", "red"], "COLOUR=FILE"),
    (["--colours", "red", "--camera", "sim"], "real dice"),
    (["--dice", "red=/nonexistent.png", "--empty", "/nonexistent.png"], "no image file"),
    (["--colours", "red", "--tray-size", "30x20", "--tray", "markers"], "do not fit"),
    (["--corners", "1,2 3,4"], "--corners"),
])
def test_bad_options_are_one_line_and_write_nothing(tmp_path, config, capsys, args, message):
    status = main(["calibrate", *args, "-o", str(tmp_path / "p.toml")])
    err = capsys.readouterr().err
    assert status == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "p.toml").exists()


def test_missing_colour_pictures_are_named(tmp_path, config, capsys):
    files = write_set(tmp_path / "s", ["white"], ((1, 1, 1), 1.0))
    status = main(["calibrate", "--game", "dairyman", "--empty", str(files["empty"]), f"--dice=white={files['white']}"])
    assert status == 2 and "--dice yellow=FILE" in capsys.readouterr().err
    assert not (config / "profile.toml").exists()


def test_from_labelled_reports_the_held_back_split(tmp_path, config, capsys):
    manifest = byler_subset(tmp_path, 16)
    entries = json.loads(manifest.read_text())
    assert main(["calibrate", "--from-labelled", str(manifest), "--holdout-every", "4"]) == 0
    out = capsys.readouterr().out
    held = [line for line in out.splitlines() if "held-back photos" in line]
    assert held and "4 held-back photos" in held[0]
    assert float(held[0].rsplit(":", 1)[1]) > 0.8
    sizes = [max(d["bbox"][2:]) for e in entries for d in e["dice"] if d.get("bbox")]
    die_size = load_profile(config / "profile.toml").die_size
    assert die_size.min_px < min(sizes) and max(sizes) < die_size.max_px
    assert isinstance(load_profile(config / "profile.toml").palette, Palette)


def test_markers_sheet_is_printable_and_detectable(tmp_path, config, capsys):
    from calibration.tray import detect_markers

    sheet = tmp_path / "markers.png"
    assert main(["calibrate", "--markers-sheet", str(sheet)]) == 0
    image = cv2.imread(str(sheet))
    assert image.shape[1] == round(300 / 25.4 * 300)
    assert set(detect_markers(image, "DICT_4X4_50")) == {0, 1, 2, 3}


def test_pi_camera_locked_controls_go_into_the_profile_and_back():
    """picamera2 cannot run here: a stand-in with the PiCamera's ``locked_controls`` attribute."""
    from types import SimpleNamespace

    from calibration.guided import CameraFrames

    locked = {"AeEnable": False, "ExposureTime": 9000, "AnalogueGain": 2.0, "AwbEnable": False,
              "ColourGains": (1.8, 1.4), "AfMode": 0, "LensPosition": 3.0}
    controls = CameraFrames(SimpleNamespace(locked_controls=locked)).controls()
    assert controls.exposure_us == 9000 and controls.colour_gains == (1.8, 1.4)
    assert controls.as_controls() == locked


def test_live_calibration_asks_again_when_a_marker_is_covered(tmp_path, config, capsys, monkeypatch):
    files = write_set(tmp_path / "shots", ["white"], ((1, 1, 1), 1.0))
    covered = cv2.imread(str(files["empty"]))
    x, y = CAMERA_CORNERS[3]
    cv2.rectangle(covered, (x - 5, y - 120), (x + 140, y + 5), (90, 90, 90), -1)   # a hand over marker 3
    replay = tmp_path / "replay"
    replay.mkdir()
    cv2.imwrite(str(replay / "0_covered.png"), covered)
    for i, step in enumerate(["empty", "white"], start=1):
        (replay / f"{i}_{step}.png").write_bytes(files[step].read_bytes())
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n\n\n"))
    status = main(["calibrate", "--colours", "white", "--tray", "markers", "--camera", f"replay:{replay}",
                   "--shots", "1"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "bottom-left" in out and "show the empty tray again" in out and "found 6 white dice" in out
    assert load_profile(config / "profile.toml").tray.method == "markers"


def test_grey_card_white_balance_from_the_command_line(tmp_path, config, capsys):
    files = write_set(tmp_path / "s", ["white", "red"], WARM)
    empty = cv2.imread(str(files["empty"]))
    status = main(["calibrate", "--colours", "white,red", "--tray", "markers", "--grey-card", "280,5,40,30",
                   "--empty", str(files["empty"]), f"--dice=white={files['white']}", f"--dice=red={files['red']}"])
    assert status == 0, capsys.readouterr().err
    profile = load_profile(config / "profile.toml")
    assert profile.white_balance.method == "grey-card"
    flat = profile.tray.flatten(empty)
    balanced = profile.white_balance.correct(flat)[5:35, 280:320].reshape(-1, 3).mean(axis=0)
    assert np.ptp(balanced) < 3.0          # the card's patch comes out neutral under the warm lamp
