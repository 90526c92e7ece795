"""White balance on a real tray photo with a colour cast, and palettes learnt from dice colours."""
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.bench import apply_cast
from calibration.labelled import learn_from_manifest, load_manifest, split_held_back
from calibration.palette import kmeans, learn_palette, separation
from calibration.white_balance import WhiteBalance, apply_gains, background_colour, from_empty_tray, from_grey_card
from companion.errors import UserError
from vision.colour import Palette, die_colour_features

BYLER = Path(__file__).parent / "data" / "byler_d6"


def byler_subset(tmp_path: Path, count: int) -> Path:
    """A manifest of the first ``count`` byler_d6 photos in tests/data (absolute image paths), in ``tmp_path``."""
    entries = load_manifest(BYLER / "manifest.json")[:count]
    for entry in entries:
        entry["image"] = str(BYLER / entry["image"])
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps(entries))
    return manifest


def delta_e(a, b) -> float:
    return float(np.linalg.norm(np.subtract(a, b)))


def test_tray_white_balance_undoes_a_warm_lamp_on_a_real_photo():
    entry = load_manifest(BYLER / "manifest.json")[1]
    photo = cv2.imread(str(BYLER / entry["image"]))
    balance = from_empty_tray(photo)
    warm = apply_cast(photo, (0.55, 0.8, 1.0), 1.0)
    tray = background_colour(balance.correct(warm))
    assert np.abs(tray - np.array(balance.reference_bgr)).max() < 3.0
    worst_uncorrected, worst_corrected = 0.0, 0.0
    balanced, balanced_warm = balance.correct(photo), balance.correct(warm)
    for die in entry["dice"]:
        original = die_colour_features(balanced, die["bbox"])
        worst_uncorrected = max(worst_uncorrected, delta_e(die_colour_features(warm, die["bbox"]), original))
        worst_corrected = max(worst_corrected, delta_e(die_colour_features(balanced_warm, die["bbox"]), original))
    assert worst_uncorrected > 15.0          # the cast really moves the dice colours ...
    assert worst_corrected < 2.0             # ... and the tray's white balance brings them back


def test_grey_card_gives_fixed_gains_that_neutralise_it():
    image = np.full((60, 80, 3), (90, 120, 150), np.uint8)
    balance = from_grey_card(image, (10, 10, 20, 20))
    corrected = balance.correct(image)
    assert np.ptp(corrected[30, 40].astype(int)) <= 1
    with pytest.raises(UserError, match="outside"):
        from_grey_card(image, (100, 100, 5, 5))


def test_background_ignores_dice_and_none_changes_nothing():
    image = np.full((100, 100, 3), 180, np.uint8)
    image[10:40, 10:40] = (20, 20, 200)                   # a red die covering 9% of the frame
    assert np.abs(background_colour(image) - 180).max() < 0.5
    assert WhiteBalance().correct(image) is image
    assert np.array_equal(apply_gains(image, (1.0, 1.0, 1.0)), image)


def blobs(centres, n, spread, seed):
    rng = np.random.default_rng(seed)
    return {name: rng.normal(centre, spread, (n, 3)) for name, centre in centres.items()}


CENTRES = {"white": (80, 0, 3), "yellow": (70, -8, 62), "red": (32, 42, 28)}


def test_learnt_palette_names_new_dice_and_rejects_a_foreign_colour():
    palette = learn_palette(blobs(CENTRES, 40, 2.0, seed=1))
    fresh = blobs(CENTRES, 30, 2.0, seed=2)
    for name, points in fresh.items():
        assert all(palette.classify(p)[0] == name for p in points)
    assert palette.classify(np.array([40.0, -40.0, 30.0]))[0] is None      # green was never learnt
    assert isinstance(palette, Palette)


def test_one_colour_with_two_shades_keeps_both():
    samples = {"red": np.vstack([blobs({"a": (31, 42, 29)}, 20, 1.5, 3)["a"], blobs({"a": (29, 21, 6)}, 20, 1.5, 4)["a"]]),
               "purple": blobs({"p": (25, 25, -5)}, 20, 1.5, 5)["p"]}
    palette = learn_palette(samples)
    assert palette.classify(np.array([29.0, 21.0, 6.0]))[0] == "red"
    assert palette.classify(np.array([31.0, 42.0, 29.0]))[0] == "red"
    assert palette.classify(np.array([25.0, 25.0, -5.0]))[0] == "purple"


def test_separation_warns_about_colours_that_overlap():
    samples = blobs({"blue": (20, 5, -15), "purple": (20, 8, -12), "yellow": (70, -8, 62)}, 30, 3.0, seed=6)
    report = {s.colour: s for s in separation(learn_palette(samples), samples)}
    assert report["blue"].too_close and report["purple"].too_close
    assert report["blue"].confused_with == "purple" or report["blue"].nearest == "purple"
    assert not report["yellow"].too_close and "ok" in report["yellow"].line()
    assert "WARNING" in report["blue"].line()


def test_kmeans_is_deterministic_and_finds_separate_groups():
    points = np.vstack([np.zeros((10, 3)), np.full((10, 3), 10.0)])
    centres = kmeans(points, 2)
    assert np.array_equal(centres, kmeans(points, 2))
    assert sorted(map(tuple, centres.round(6))) == [(0, 0, 0), (10, 10, 10)]


def test_learning_needs_samples():
    with pytest.raises(UserError):
        learn_palette({})
    with pytest.raises(UserError, match="red"):
        learn_palette({"red": np.zeros((0, 3))})


def test_every_fourth_photo_is_held_back():
    entries = [{"image": str(i)} for i in range(10)]
    learn, held = split_held_back(entries, 4)
    assert [e["image"] for e in held] == ["3", "7"] and len(learn) == 8
    with pytest.raises(UserError, match="holdout"):
        split_held_back(entries, 1)


def test_palette_from_a_few_labelled_photos_reads_the_held_back_ones(tmp_path):
    result = learn_from_manifest(byler_subset(tmp_path, 20), holdout_every=4)
    assert result.held_images == 5 and result.learnt_images == 15
    assert result.held_accuracy >= 0.85 and result.learnt_accuracy >= 0.95
    assert result.white_balance.method == "tray"


def test_bad_manifest_is_one_line(tmp_path):
    path = tmp_path / "m.json"
    path.write_text('{"not": "a list"}')
    with pytest.raises(UserError, match="not a dataset manifest"):
        learn_from_manifest(path)
    with pytest.raises(UserError, match="no manifest"):
        learn_from_manifest(tmp_path / "absent.json")


def test_the_read_command_gets_the_profile_palette(tmp_path):
    from calibration.profile import Profile, save_profile
    from companion.commands.read import load_profile_option

    palette = learn_palette(blobs(CENTRES, 12, 2.0, seed=7))
    path = save_profile(Profile(palette=palette), tmp_path / "p.toml")
    assert load_profile_option(path).palette == palette
    assert load_profile_option(None) is None


def test_cast_benchmark_shows_the_loss_without_white_balance(tmp_path):
    from calibration.bench import colour_cast

    figures = colour_cast(byler_subset(tmp_path, 8), holdout_every=0, through_reader=False)
    assert figures["without_white_balance"]["worst_loss_boxes"] > 0.2
    assert figures["with_white_balance"]["worst_loss_boxes"] < 0.05


def test_found_boxes_pair_with_labels_by_score_dice_rule():
    from calibration.labelled import pair_with_labels

    labels = [(0, 0, 40, 40), (100, 100, 40, 40), (300, 300, 10, 10)]
    found = [(105, 98, 40, 40), (3, 2, 40, 40), (200, 200, 40, 40), (318, 300, 10, 10), (300, 301, 10, 10)]
    pairs = pair_with_labels(labels, found)
    assert sorted(pairs) == [(0, 1), (1, 0), (2, 4)]          # the nearer of two candidates wins
    assert pair_with_labels([(0, 0, 10, 10)], [(19, 0, 10, 10)]) == [(0, 0)]   # 20 px at least
    assert pair_with_labels([(0, 0, 10, 10)], [(21, 0, 10, 10)]) == []


def test_learning_also_samples_the_dice_where_the_reader_finds_them(tmp_path):
    from calibration.labelled import labelled_dice, reader_boxes

    manifest = byler_subset(tmp_path, 4)
    entries = load_manifest(manifest)
    dice = labelled_dice(manifest.parent, entries, WhiteBalance(), locate=reader_boxes)
    by_label = [d for d in dice if d.found_by == "label"]
    by_reader = [d for d in dice if d.found_by == "reader"]
    assert len(by_label) == sum(1 for e in entries for d in e["dice"] if d.get("colour") and d.get("bbox"))
    assert 1 <= len(by_reader) <= len(by_label)
    for die in by_reader:    # each reader box carries the colour of the labelled die it lies on
        centre = np.array(die.bbox[:2]) + np.array(die.bbox[2:]) / 2
        nearest = min((d for d in by_label if d.image == die.image),
                      key=lambda d: np.linalg.norm(np.array(d.bbox[:2]) + np.array(d.bbox[2:]) / 2 - centre))
        assert nearest.colour == die.colour


def test_a_colour_read_as_unknown_is_reported_so():
    from calibration.palette import Separation

    line = Separation("orange", 7, 0.7, "unknown colour", "yellow", 9.5).line()
    assert "often not recognised" in line and "too close to unknown" not in line
    assert "too close to yellow" in Separation("orange", 7, 0.7, "yellow", "yellow", 9.5).line()
