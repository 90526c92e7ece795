"""Calibration profiles: exact round trip through the TOML file, and one-line errors for bad fields."""
import math

import pytest

from calibration.profile import (
    CameraControls,
    DieSize,
    Profile,
    TraySettings,
    default_profile_path,
    load_profile,
    save_profile,
)
from calibration.tray import TrayLayout
from calibration.white_balance import WhiteBalance
from companion.errors import UserError
from vision.colour import Palette, PaletteColour


def full_profile() -> Profile:
    return Profile(
        name="kitchen table, \"warm\" lamp",
        tray=TraySettings("markers", TrayLayout(310.5, 205.25, 28.0, 4.5, (10, 11, 12, 13), "DICT_5X5_100"),
                          ((101.25, 88.0), (1180.125, 92.5), (1175.0, 870.0), (96.0, 866.75)), 2.5),
        white_balance=WhiteBalance("tray", (1.1376543210987654, 0.98, 0.7312), (181.2, 181.2, 181.2)),
        camera=CameraControls(exposure_us=12000, analogue_gain=1.75, colour_gains=(1.9, 1.45), lens_position=2.5),
        die_size=DieSize(22.5, 64.0),
        palette=Palette((PaletteColour("white", (77.123456789, -0.5, 3.25), 2.2),
                         PaletteColour("red", (31.0, 42.6, 29.5), 2.2),
                         PaletteColour("red", (29.2, 21.1, 5.7), 2.2),
                         PaletteColour("yellow", (69.3, -11.8, 61.1), 2.2)), 7.153),
    )


def test_profile_round_trips_exactly(tmp_path):
    profile = full_profile()
    path = save_profile(profile, tmp_path / "p.toml")
    again = load_profile(path)
    assert again == profile
    assert isinstance(again.palette, Palette)
    text = path.read_text()
    save_profile(again, tmp_path / "q.toml")
    assert (tmp_path / "q.toml").read_text() == text


def test_file_is_human_readable(tmp_path):
    text = save_profile(full_profile(), tmp_path / "p.toml").read_text()
    assert "[white_balance]" in text and "[[palette.colour]]" in text
    assert 'name = "red"' in text and "exposure_us = 12000" in text


def test_profile_with_automatic_camera_and_no_tray_round_trips(tmp_path):
    profile = Profile()
    assert load_profile(save_profile(profile, tmp_path / "p.toml")) == profile


def test_camera_controls_in_picamera2_names():
    controls = full_profile().camera.as_controls()
    assert controls == {"AeEnable": False, "ExposureTime": 12000, "AnalogueGain": 1.75, "AwbEnable": False,
                        "ColourGains": (1.9, 1.45), "AfMode": 0, "LensPosition": 2.5}
    assert CameraControls().as_controls() == {}


BROKEN = [
    ('method = "markers"', 'method = "magic"', "tray.method"),
    ("width_mm = 310.5", "width_mm = -3.0", "tray.width_mm"),
    ("width_mm = 310.5", 'width_mm = "wide"', "tray.width_mm"),
    ("corners_px = [[101.25, 88.0], ", "corners_px = [[101.25], ", "tray.corners_px"),
    ("marker_ids = [10, 11, 12, 13]", "marker_ids = [10, 10, 12, 13]", "tray.marker_ids"),
    ("gains_bgr = [", "gains_bgr = [2.0, ", "white_balance.gains_bgr"),
    ('method = "tray"', 'method = "auto"', "white_balance.method"),
    ("exposure_us = 12000", "exposure_us = 12000.5", "camera.exposure_us"),
    ("colour_gains = [1.9, 1.45]", "colour_gains = [1.9, 0.0]", "camera.colour_gains"),
    ("max_size_px = 64.0", "max_size_px = 10.0", "dice.max_size_px"),
    ("max_distance = 7.153", "max_distance = 0", "palette.max_distance"),
    ("centre_lab = [31.0, 42.6, 29.5]", "centre_lab = [31.0, 42.6]", "palette.colour[1].centre_lab"),
    ('name = "yellow"', 'name = ""', "palette.colour[3].name"),
    ("spread = 2.2\n\n[[palette.colour]]\nname = \"red\"", "spread = -1.0\n\n[[palette.colour]]\nname = \"red\"",
     "palette.colour[0].spread"),
    ("version = 1", "version = 7", "version"),
    ("[dice]", "[dices]", "dices"),
    ("width_mm = 310.5", "widht_mm = 310.5", "tray.widht_mm"),
    ('marker_dictionary = "DICT_5X5_100"', 'marker_dictionary = "DICT_5X5"', "tray.marker_dictionary"),
]


@pytest.mark.parametrize("old, new, field", BROKEN, ids=[b[2] for b in BROKEN])
def test_hand_edited_profile_names_the_bad_field(tmp_path, old, new, field):
    path = save_profile(full_profile(), tmp_path / "p.toml")
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    before = path.read_text()
    with pytest.raises(UserError) as caught:
        load_profile(path)
    message = str(caught.value)
    assert field in message and "\n" not in message
    assert path.read_text() == before


def test_a_section_that_is_not_a_table_is_named(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text("version = 1\ncamera = 5\n")
    with pytest.raises(UserError, match="field camera must be a table"):
        load_profile(path)


def test_a_missing_section_takes_documented_defaults(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text("version = 1\n[dice]\nmin_size_px = 20.0\nmax_size_px = 50.0\n")
    profile = load_profile(path)
    assert profile.die_size == DieSize(20.0, 50.0)
    assert profile.white_balance.method == "none" and profile.tray.method == "none"
    assert profile.palette.colours  # the reader's default palette


def test_not_toml_missing_file_and_nan(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text("version = 1\n[tray\n")
    with pytest.raises(UserError, match="not valid TOML"):
        load_profile(path)
    with pytest.raises(UserError, match="no calibration profile"):
        load_profile(tmp_path / "absent.toml")
    path.write_text(save_profile(full_profile(), tmp_path / "x.toml").read_text().replace("1.75", "nan"))
    with pytest.raises(UserError, match="camera.analogue_gain"):
        load_profile(path)


def test_default_path_is_in_the_config_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("COMPANION_PROFILE", raising=False)
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path / "cfg"))
    assert default_profile_path() == tmp_path / "cfg" / "profile.toml"
    monkeypatch.setenv("COMPANION_PROFILE", str(tmp_path / "other.toml"))
    assert default_profile_path() == tmp_path / "other.toml"


def test_floats_that_need_every_digit_survive(tmp_path):
    tricky = Profile(die_size=DieSize(1.1 + 2.2, 1e4 / 3))
    again = load_profile(save_profile(tricky, tmp_path / "p.toml"))
    assert again.die_size.min_px == 1.1 + 2.2 and again.die_size.max_px == 1e4 / 3
    assert not math.isnan(again.die_size.min_px)


@pytest.mark.skipif(not hasattr(Palette, "lightness_weight"), reason="this Palette has no lightness weight")
def test_palette_lightness_weight_round_trips(tmp_path):
    from dataclasses import replace

    palette = replace(full_profile().palette, lightness_weight=0.7)
    profile = replace(full_profile(), palette=palette)
    assert load_profile(save_profile(profile, tmp_path / "p.toml")).palette == palette
