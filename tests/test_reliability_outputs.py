"""No command overwrites or deletes a file it did not create for that purpose, and a calibration
profile is never replaced by one that cannot be read: `export -o`, `read --annotate`,
`calibrate` (its profile, the markers sheet, labelled manifests) and the profile loader's ranges."""
import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from test_calibration_profile import full_profile

from calibration.profile import DieSize, Profile, load_profile, save_profile
from companion.cli import main
from companion.errors import UserError
from companion.safe_files import check_output_path, write_atomically, write_new_file
from companion.session import SessionStore
from vision import synth

REPO = Path(__file__).resolve().parents[1]


def companion(*args: str) -> subprocess.CompletedProcess:
    """The real `companion` command in a child process, with this test's data and config directories."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "companion", *args], check=False, capture_output=True, text=True,
                          env=env, timeout=300)


def assert_one_line_refusal(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("companion: ") and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (to show that nothing changed, appeared or went)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# -- companion export -o ------------------------------------------------------------------

@pytest.fixture()
def played_db(tmp_path) -> Path:
    db = tmp_path / "games" / "sessions.sqlite3"
    db.parent.mkdir()
    with SessionStore(db) as store:
        store.new_session("dairyman", ["Ann", "Bob"])
    return db


def test_export_onto_the_session_database_is_refused_even_with_force(played_db):
    before = snapshot(played_db.parent)
    for force in ([], ["--force"]):
        result = companion("export", "--format", "csv", "-o", str(played_db), "--db", str(played_db), *force)
        assert_one_line_refusal(result)
        assert "session database" in result.stderr
    assert snapshot(played_db.parent) == before
    with SessionStore(played_db) as store:
        assert [s["players"] for s in store.list_sessions()] == [["Ann", "Bob"]]


def test_export_through_another_name_for_the_database_is_refused(played_db, tmp_path):
    link = tmp_path / "looks-new.csv"
    link.symlink_to(played_db)
    before = played_db.read_bytes()
    assert_one_line_refusal(companion("export", "--format", "csv", "-o", str(link), "--db", str(played_db),
                                      "--force"))
    assert played_db.read_bytes() == before and link.is_symlink()


def test_export_into_the_database_photo_folder_is_refused(played_db):
    photos = played_db.with_name("sessions-photos")
    photos.mkdir()
    photo = photos / f"{'ab' * 32}.jpg"
    photo.write_bytes(b"\xff\xd8\xff a frame")
    result = companion("export", "--format", "json", "-o", str(photo), "--db", str(played_db), "--force")
    assert_one_line_refusal(result)
    assert photo.read_bytes() == b"\xff\xd8\xff a frame"


def test_export_replaces_an_existing_file_only_with_force(played_db, tmp_path):
    notes = tmp_path / "notes.csv"
    notes.write_text("my own notes\n")
    result = companion("export", "--format", "csv", "-o", str(notes), "--db", str(played_db))
    assert_one_line_refusal(result)
    assert "--force" in result.stderr and notes.read_text() == "my own notes\n"

    assert companion("export", "--format", "csv", "-o", str(notes), "--db", str(played_db), "--force").returncode == 0
    assert notes.read_text().startswith("session,seq,time,kind")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games", "notes.csv"]  # no temporary file left behind


def test_export_onto_a_directory_is_refused(played_db, tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    assert_one_line_refusal(companion("export", "--format", "json", "-o", str(folder), "--db", str(played_db),
                                      "--force"))
    assert folder.is_dir() and not any(folder.iterdir())


# -- companion read --annotate -------------------------------------------------------------

def dice_photo(path: Path, size=(640, 480), seed=21) -> Path:
    image, _ = synth.render_scene([(4, "green"), (1, "yellow")], seed=seed, size=size, die_size=(55, 65))
    path.parent.mkdir(parents=True, exist_ok=True)
    assert cv2.imwrite(str(path), image)
    return path


def test_annotating_into_the_photo_folder_keeps_the_photo(tmp_path):
    photo = dice_photo(tmp_path / "photos" / "photo.png")
    original = photo.read_bytes()
    result = companion("read", "--annotate", str(photo.parent), str(photo))
    assert result.returncode == 0, result.stderr
    assert photo.read_bytes() == original
    assert sorted(p.name for p in photo.parent.iterdir()) == ["photo-2.png", "photo.png"]
    annotated = cv2.imread(str(photo.parent / "photo-2.png"))
    assert annotated.shape == cv2.imread(str(photo)).shape
    assert not np.array_equal(annotated, cv2.imread(str(photo)))


def test_photos_with_one_name_in_two_folders_get_two_annotations(tmp_path):
    first = dice_photo(tmp_path / "a1" / "x.jpg", size=(640, 480), seed=3)
    second = dice_photo(tmp_path / "a2" / "x.png", size=(500, 400), seed=4)
    out = tmp_path / "out"
    result = companion("read", "--annotate", str(out), str(first), str(second))
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["x-2.png", "x.png"]
    assert cv2.imread(str(out / "x.png")).shape == (480, 640, 3)      # in the order the photos were given
    assert cv2.imread(str(out / "x-2.png")).shape == (400, 500, 3)


def test_annotating_never_replaces_a_file_already_in_the_folder(tmp_path):
    photo = dice_photo(tmp_path / "tray.png")
    out = tmp_path / "out"
    out.mkdir()
    (out / "tray.png").write_bytes(b"someone else's file")
    assert main(["read", "--annotate", str(out), str(photo)]) == 0
    assert (out / "tray.png").read_bytes() == b"someone else's file"
    assert cv2.imread(str(out / "tray-2.png")) is not None


# -- the shared helpers ----------------------------------------------------------------------

def test_output_checks_refuse_inputs_through_links_directories_and_devices(tmp_path):
    data = tmp_path / "data.bin"
    data.write_bytes(b"precious")
    hard = tmp_path / "hard.bin"
    os.link(data, hard)
    for name in (data, hard):
        with pytest.raises(UserError, match="it is the input"):
            check_output_path(name, {data: "the input"}, force=True)
    with pytest.raises(UserError, match="directory"):
        check_output_path(tmp_path, force=True)
    with pytest.raises(UserError, match="not a regular file"):
        check_output_path("/dev/null", force=True)
    with pytest.raises(UserError, match="already exists"):
        check_output_path(data)
    assert check_output_path(tmp_path / "new.txt", {data: "the input"}) == tmp_path / "new.txt"
    assert data.read_bytes() == b"precious"


def test_atomic_write_replaces_whole_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    write_atomically(target, "new ünïcode")
    assert target.read_text(encoding="utf-8") == "new ünïcode"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    with pytest.raises(UserError, match="cannot write"):
        write_atomically(tmp_path / "missing" / "x.txt", b"data")
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_new_files_take_the_next_free_name_and_follow_no_link(tmp_path):
    outside = tmp_path / "outside.txt"
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "x.png").symlink_to(outside)          # dangling: writing through it would create outside.txt
    (folder / "x-2.png").write_bytes(b"kept")
    assert write_new_file(folder, "x", ".png", b"one") == folder / "x-3.png"
    assert write_new_file(folder, "x", ".png", b"two") == folder / "x-4.png"
    assert not outside.exists() and (folder / "x-2.png").read_bytes() == b"kept"
    assert (folder / "x-3.png").read_bytes() == b"one" and (folder / "x-4.png").read_bytes() == b"two"


# -- companion calibrate: the profile and the markers sheet -----------------------------------

def labelled_set(folder: Path, photos: int = 4) -> Path:
    """Synthetic photos of white and red dice with their true boxes, and the manifest naming them."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    for i in range(photos):
        image, truth = synth.render_scene([(v, c) for v, c in zip((1, 2, 3, 4), ("white", "red") * 2)],
                                          seed=100 + i, die_size=(50, 60))
        cv2.imwrite(str(folder / f"p{i}.png"), image)
        entries.append({"image": f"p{i}.png", "dice": [{"colour": d.colour, "bbox": d.to_json()["bbox"]}
                                                       for d in truth]})
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps(entries))
    return manifest


def calibrate_labelled(manifest: Path, profile: Path, *more: str) -> list[str]:
    return ["calibrate", "--from-labelled", str(manifest), "--holdout-every", "0", "--labelled-boxes-only",
            "-o", str(profile), *more]


@pytest.fixture()
def good_profile(tmp_path) -> Path:
    return save_profile(full_profile(), tmp_path / "profiles" / "profile.toml")


def test_a_zero_size_box_cannot_replace_a_good_profile(tmp_path, good_profile):
    manifest = labelled_set(tmp_path / "set")
    entries = json.loads(manifest.read_text())
    entries[0]["dice"][0]["bbox"] = [10, 10, 0, 0]
    manifest.write_text(json.dumps(entries))
    before = snapshot(good_profile.parent)
    result = companion(*calibrate_labelled(manifest, good_profile))
    assert_one_line_refusal(result)
    assert str(manifest) in result.stderr and "bbox" in result.stderr
    assert snapshot(good_profile.parent) == before
    assert load_profile(good_profile) == full_profile()


def test_recalibrating_keeps_the_old_profile_as_a_backup(tmp_path, good_profile, capsys):
    manifest = labelled_set(tmp_path / "set")
    old = good_profile.read_bytes()
    assert main(calibrate_labelled(manifest, good_profile)) == 0
    backup = good_profile.with_name("profile.toml.bak")
    assert backup.read_bytes() == old
    learnt = load_profile(good_profile)
    assert {c.name for c in learnt.palette.colours} == {"white", "red"}
    assert sorted(p.name for p in good_profile.parent.iterdir()) == ["profile.toml", "profile.toml.bak"]


def test_a_profile_the_loader_would_refuse_is_never_saved(good_profile):
    before = good_profile.read_bytes()
    with pytest.raises(UserError, match="dice.min_size_px") as caught:
        save_profile(Profile(die_size=DieSize(0.0, 40.0)), good_profile)
    assert "\n" not in str(caught.value)
    assert good_profile.read_bytes() == before
    assert [p.name for p in good_profile.parent.iterdir()] == ["profile.toml"]


def test_the_profile_never_goes_over_an_input_or_a_file_that_is_not_a_profile(tmp_path):
    manifest = labelled_set(tmp_path / "set", photos=2)
    before = snapshot(tmp_path)
    for output, more in ((manifest, ["--force"]), (manifest.parent / "p0.png", []), (manifest.parent, ["--force"])):
        assert_one_line_refusal(companion(*calibrate_labelled(manifest, output, *more)))
    assert snapshot(tmp_path) == before

    notes = tmp_path / "notes.toml"
    notes.write_text("title = 'my notes'\n")
    assert main(calibrate_labelled(manifest, notes)) == 2
    assert notes.read_text() == "title = 'my notes'\n"
    assert main(calibrate_labelled(manifest, notes, "--force")) == 0
    assert load_profile(notes).palette.colours
    assert notes.with_name("notes.toml.bak").read_text() == "title = 'my notes'\n"


def test_markers_sheet_replaces_an_existing_file_only_with_force(tmp_path):
    sheet = tmp_path / "markers.png"
    sheet.write_bytes(b"a drawing")
    assert_one_line_refusal(companion("calibrate", "--markers-sheet", str(sheet)))
    assert sheet.read_bytes() == b"a drawing"
    assert_one_line_refusal(companion("calibrate", "--markers-sheet", str(tmp_path), "--force"))
    assert companion("calibrate", "--markers-sheet", str(sheet), "--force").returncode == 0
    assert cv2.imread(str(sheet)) is not None
    assert [p.name for p in tmp_path.iterdir()] == ["markers.png"]


def test_the_box_benchmark_never_writes_over_its_profile_or_manifest(tmp_path, good_profile, capsys):
    from calibration.bench import main as bench_main

    manifest = labelled_set(tmp_path / "set", photos=1)
    before = snapshot(tmp_path)
    for output in (good_profile, manifest):
        assert bench_main(["boxes", str(good_profile), str(output), str(manifest)]) == 2
        assert "will not write over" in capsys.readouterr().err
    assert snapshot(tmp_path) == before
    assert bench_main(["boxes", str(good_profile), str(tmp_path / "boxes.jsonl"), str(manifest)]) == 0
    assert len((tmp_path / "boxes.jsonl").read_text().splitlines()) == 1


# -- malformed manifests ----------------------------------------------------------------------

def _set_box(entries, box):
    entries[0]["dice"][0]["bbox"] = box


def _set(key, value):
    def change(entries):
        entries[1][key] = value
    return change


MALFORMED = {
    "bbox an int": lambda e: _set_box(e, 5),
    "bbox of 2 values": lambda e: _set_box(e, [10, 10]),
    "bbox of strings": lambda e: _set_box(e, ["10", "10", "40", "40"]),
    "bbox a string": lambda e: _set_box(e, "10,10,40,40"),
    "bbox of true": lambda e: _set_box(e, [True, 10, 40, 40]),
    "bbox with negative size": lambda e: _set_box(e, [100, 100, -40, 40]),
    "bbox outside the image": lambda e: _set_box(e, [700, 10, 40, 40]),
    "bbox partly outside the image": lambda e: _set_box(e, [620, 10, 40, 40]),
    "dice a string": _set("dice", "four dice"),
    "dice of numbers": _set("dice", [1, 2]),
    "colour a list": lambda e: e[0]["dice"][0].update(colour=["red"]),
    "image a number": _set("image", 5),
}


@pytest.mark.parametrize("change", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_manifest_is_a_one_line_error_that_changes_nothing(tmp_path, good_profile, capsys, change):
    manifest = labelled_set(tmp_path / "set", photos=3)
    entries = json.loads(manifest.read_text())
    change(entries)
    manifest.write_text(json.dumps(entries))
    before = snapshot(tmp_path)
    assert main(calibrate_labelled(manifest, good_profile)) == 2
    err = capsys.readouterr().err
    assert err.startswith("companion: ") and err.count("\n") == 1
    assert str(manifest) in err or str(manifest.parent / "p0.png") in err
    assert snapshot(tmp_path) == before


def test_a_deeply_nested_manifest_is_a_one_line_error(tmp_path, good_profile):
    manifest = tmp_path / "deep.json"
    manifest.write_text("[" * 100000 + "]" * 100000)
    result = companion(*calibrate_labelled(manifest, good_profile))
    assert_one_line_refusal(result)
    assert str(manifest) in result.stderr
    assert load_profile(good_profile) == full_profile()


# -- the profile loader's ranges --------------------------------------------------------------

PROFILE_NUMBERS = [
    ("width_mm = 310.5", "tray.width_mm"),
    ("px_per_mm = 2.5", "tray.px_per_mm"),
    ("marker_size_mm = 28.0", "tray.marker_size_mm"),
    ("marker_inset_mm = 4.5", "tray.marker_inset_mm"),
    ("gains_bgr = [1.1376543210987653,", "white_balance.gains_bgr"),
    ("reference_bgr = [181.2,", "white_balance.reference_bgr"),
    ("analogue_gain = 1.75", "camera.analogue_gain"),
    ("colour_gains = [1.9,", "camera.colour_gains"),
    ("lens_position = 2.5", "camera.lens_position"),
    ("min_size_px = 22.5", "dice.min_size_px"),
    ("max_size_px = 64.0", "dice.max_size_px"),
    ("max_distance = 7.153", "palette.max_distance"),
    ("lightness_weight = 0.5", "palette.lightness_weight"),
    ("centre_lab = [77.123456789,", "palette.colour[0].centre_lab"),
    ("spread = 2.2", "palette.colour[0].spread"),
]


def _with_value(text: str, line: str, value: str) -> str:
    key, _, rest = line.partition(" = ")
    replacement = f"{key} = [{value}," if rest.startswith("[") else f"{key} = {value}"
    assert line in text
    return text.replace(line, replacement, 1)


@pytest.mark.parametrize("line, field", PROFILE_NUMBERS, ids=[f for _, f in PROFILE_NUMBERS])
@pytest.mark.parametrize("value", ["1e308", "-1e308", "nan", "inf"])
def test_every_profile_number_is_range_checked(tmp_path, line, field, value):
    path = save_profile(full_profile(), tmp_path / "p.toml")
    path.write_text(_with_value(path.read_text(), line, value))
    with pytest.raises(UserError) as caught:
        load_profile(path)
    message = str(caught.value)
    assert field in message and "\n" not in message
    assert " from " in message and " to " in message   # the allowed range is named


@pytest.mark.parametrize("old, new", [("exposure_us = 12000", "exposure_us = 9000000000000000000"),
                                      ("marker_ids = [10, 11, 12, 13]", "marker_ids = [10, 11, 12, 99999999]"),
                                      ("corners_px = [[101.25, 88.0],", "corners_px = [[1e300, 88.0],")])
def test_huge_whole_numbers_and_corners_are_refused(tmp_path, old, new):
    path = save_profile(full_profile(), tmp_path / "p.toml")
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(UserError, match=r"from -?\d+ to \d+"):
        load_profile(path)


def test_a_huge_lightness_weight_is_refused_by_read(tmp_path):
    path = save_profile(full_profile(), tmp_path / "p.toml")
    path.write_text(path.read_text().replace("lightness_weight = 0.5", "lightness_weight = 1e308"))
    photo = dice_photo(tmp_path / "tray.png")
    result = companion("read", "--profile", str(path), str(photo))
    assert_one_line_refusal(result)
    assert "palette.lightness_weight" in result.stderr


def test_a_flattened_tray_too_big_to_hold_is_refused(tmp_path):
    path = save_profile(full_profile(), tmp_path / "p.toml")
    path.write_text(path.read_text().replace("width_mm = 310.5", "width_mm = 2000.0")
                    .replace("px_per_mm = 2.5", "px_per_mm = 20.0"))
    with pytest.raises(UserError, match="tray.px_per_mm"):
        load_profile(path)


def test_a_deeply_nested_profile_is_a_one_line_error(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text("version = 1\nname = " + "[" * 100000 + "]" * 100000 + "\n")
    with pytest.raises(UserError, match="nested too deeply") as caught:
        load_profile(path)
    assert str(path) in str(caught.value)
