"""The dice reader on real photos (tests/data), synthetic trays and bad input."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.labelled import pair_with_labels
from companion.cli import main
from companion.errors import UserError
from vision import dice_net, synth
from vision.pip_faces import REAL_LAYOUTS, draw_face, is_real_layout, odd_layout
from vision.reader import (
    DEFAULT_PARAMS,
    ReaderParams,
    _outsized_read_again,
    _read_values,
    _without_unreadable,
    read_file,
    read_files,
    read_frame,
)
from vision.types import DieReading
from vision.variants import oblique, tiny_dice

DATA = Path(__file__).parent / "data"


def _figures(name: str, variant=None, params: ReaderParams = DEFAULT_PARAMS) -> dict:
    """The reader on one set's photos in tests/data: dice read right, photos read perfectly, colours right, and
    (where the labels have boxes) dice reported where no labelled die lies.

    A reading pairs with a labelled die as ``score_dice.py`` pairs them; a label without a box
    (one die per photo) takes the most confident reading.  ``variant`` (one of vision.variants') makes
    each photo and its boxes harder first.
    """
    entries = json.loads((DATA / name / "manifest.json").read_text())
    right = labelled = perfect = coloured = colour_right = extra = 0
    for entry in entries:
        labels = entry["dice"]
        boxes = [label["bbox"] for label in labels]
        if variant is None:
            dice = read_file(DATA / name / entry["image"], params=params).dice
        else:
            image, boxes = variant(cv2.imread(str(DATA / name / entry["image"])), boxes)
            dice = read_frame(image, params=params).dice
        if all(boxes):
            pairs = pair_with_labels(boxes, [die.bbox for die in dice])
        else:
            pairs = [(0, max(range(len(dice)), key=lambda j: dice[j].confidence))] if dice else []
        read_right = sum(dice[j].value == labels[i]["value"] for i, j in pairs)
        right += read_right
        labelled += len(labels)
        perfect += read_right == len(labels) == len(dice)
        coloured += len(pairs)
        colour_right += sum(dice[j].colour == labels[i]["colour"] for i, j in pairs)
        extra += len(dice) - len(pairs) if all(boxes) else 0
    return {"die_acc": right / labelled, "image_acc": perfect / len(entries), "colour_acc": colour_right / coloured,
            "extra": extra}


# The photos are from each set's held-out part (never trained on); tests/data/README.md lists them.
@pytest.mark.parametrize(("name", "die_acc", "image_acc"), [
    ("byler_d6", 0.93, 0.8),  # measured 94 of 94 dice, 20 of 20 photos (finder v5, reader v12)
    ("matteop65_wood", 0.93, 0.75),  # measured 58 of 59 dice, 11 of 12 photos
    ("aibox_pi_single", 0.75, None),  # measured 11 of 12 dice (12 with finder v3, reader v10): slanted single dice
])
def test_held_out_real_photos_are_read(name, die_acc, image_acc):
    figures = _figures(name)
    assert figures["die_acc"] >= die_acc, figures
    if image_acc is not None:
        assert figures["image_acc"] >= image_acc, figures


@pytest.mark.parametrize("name", ["byler_d6", "matteop65_wood"])
def test_photos_seen_by_a_tilted_camera_are_read(name):
    # 50 degrees from straight down: faces foreshortened.  Measured 92 of 94 and 59 of 59 dice with the reader's
    # slant search (89 and 59 without it, finder v5, reader v13; 75 and 49 with finder v3, reader v10, which
    # never saw a tilted view).
    assert _figures(name, oblique)["die_acc"] >= 0.96


def _far_away(seed: int):
    """A variant shrinking each photo until its dice are 12-16 px, somewhere in a 4000 x 3000 frame (the
    robustness row); the same ``seed`` gives the same frames."""
    rng = np.random.default_rng(seed)

    def shrink(image, boxes):
        return tiny_dice(float(np.median([max(box[2:]) for box in boxes])))(image, boxes, rng)
    return shrink


def test_far_away_dice_lying_close_are_read_one_by_one_not_as_one_big_die():
    # Tiny dice close together look like one big die's face to the coarse pass.  Measured with this seed 92 of
    # 94 dice, and 89 when a big die always wins over the small dice inside it (2026-11-29, print check as a
    # network of its own; seeds 1-5: 92-93 against 89-92; how much it matters depends on the sizes drawn).
    right = _figures("byler_d6", _far_away(seed=3))["die_acc"] * 94
    always_big = replace(DEFAULT_PARAMS, group_min_dice=10**6)
    assert right >= 89
    assert _figures("byler_d6", _far_away(seed=3), params=always_big)["die_acc"] * 94 <= right - 2


def test_no_weak_big_die_is_reported_among_far_away_dice():
    # A find a few times the size of the far-away dice around it, read weakly, is a patch of table between them or
    # several of them seen as one.  Measured over seeds 1-3: 1 extra die and 277 of 282 dice right; without reading
    # such a find again at the dice's size, 6 extra dice and 276 right (seeds 4 and 5: 0 against 1 each).
    off = replace(DEFAULT_PARAMS, outsized_ratio=0.0)
    figures = [_figures("byler_d6", _far_away(seed)) for seed in (1, 2, 3)]
    unchecked = [_figures("byler_d6", _far_away(seed), params=off) for seed in (1, 2, 3)]
    assert sum(f["extra"] for f in figures) <= sum(f["extra"] for f in unchecked) - 2
    assert sum(f["die_acc"] for f in figures) >= sum(f["die_acc"] for f in unchecked)


def test_a_weak_die_boxed_far_bigger_than_its_neighbours_is_read_again_at_their_size():
    entry = json.loads((DATA / "byler_d6" / "manifest.json").read_text())[0]
    image = cv2.imread(str(DATA / "byler_d6" / entry["image"]))
    finds = [(x + w / 2, y + h / 2, max(w, h), 0.9) for x, y, w, h in (d["bbox"] for d in entry["dice"])]
    side = float(np.median([f[2] for f in finds]))
    # the bare table farthest from every die, a die's side from the photo's edge
    grid = [(x, y) for x in np.arange(side, image.shape[1] - side, side / 4)
            for y in np.arange(side, image.shape[0] - side, side / 4)]
    table = max(grid, key=lambda p: min(np.hypot(p[0] - f[0], p[1] - f[1]) for f in finds))
    boxed_big = [(finds[0][0], finds[0][1], 3 * side, 0.3), (*table, 3 * side, 0.3)]  # weak finds: confidence < 0.45
    weak = finds[1:] + boxed_big
    kept = list(zip(weak, _read_values(image, weak, DEFAULT_PARAMS)))
    again = _outsized_read_again(image, kept, DEFAULT_PARAMS)
    assert [f for f, _ in again[:len(finds) - 1]] == finds[1:]
    assert len(again) == len(finds)
    (x, y, read_side, _), p = again[-1]
    assert (x, y) == finds[0][:2] and read_side == pytest.approx(float(np.median([f[2] for f in finds[1:]])))
    assert int(np.argmax(p[:dice_net.NOT_A_DIE])) + 1 == entry["dice"][0]["value"]
    assert _outsized_read_again(image, kept, replace(DEFAULT_PARAMS, outsized_ratio=0.0)) == kept


def test_far_away_ones_lying_close_are_not_one_big_die_showing_one():
    """Five 1s far from the camera: to the coarse pass they look like one big die whose pips they are, but a big
    1 has one pip.  Measured 33 of the 40 dice read as small 1s (22 when the big die stood on any number of
    1s inside it)."""
    entries = {e["image"]: e for e in json.loads((DATA / "matteop65_wood" / "manifest.json").read_text())}
    small_ones = 0
    for image in ("Train/dice_41.jpg", "Train/dice_46.jpg"):
        assert [d["value"] for d in entries[image]["dice"]] == [1] * 5
        photo = cv2.imread(str(DATA / "matteop65_wood" / image))
        side = float(np.median([die.bbox[2] for die in read_frame(photo).dice]))
        for seed in range(4):
            frame, _ = tiny_dice(side)(photo, [], np.random.default_rng(seed))
            small_ones += sum(die.value == 1 and die.bbox[2] < 30 for die in read_frame(frame).dice)
    assert small_ones >= 31


@pytest.mark.parametrize(("image", "label"), [("Train/five_40.jpg", 3), ("Train/six_56.jpg", 0)])
def test_a_big_die_whose_pips_read_as_ones_stays_one_die(image, label):
    """A wood die brought close (its pips 160 px across): each pip alone looks like a die's 1."""
    entry = next(e for e in json.loads((DATA / "matteop65_wood" / "manifest.json").read_text()) if e["image"] == image)
    x, y, w, h = entry["dice"][label]["bbox"]
    zoom = 160.0 / max(w, h)
    to_frame = np.array([[zoom, 0.0, 320.0 - (x + w / 2) * zoom], [0.0, zoom, 240.0 - (y + h / 2) * zoom]])
    frame = cv2.warpAffine(cv2.imread(str(DATA / "matteop65_wood" / image)), to_frame, (640, 480),
                           borderMode=cv2.BORDER_REFLECT)
    dice = read_frame(frame).dice
    middle = min(dice, key=lambda d: np.hypot(d.center[0] - 320.0, d.center[1] - 240.0))
    assert middle.value == entry["dice"][label]["value"]
    assert 1 not in [d.value for d in dice]


def test_default_palette_names_byler_colours():
    assert _figures("byler_d6")["colour_acc"] >= 0.93  # measured 94 of 94 (93 before the table was left out)


def test_a_die_seen_at_a_slant_is_not_named_after_the_table_around_it(monkeypatch):
    """At 50° the dice are squashed inside their square boxes, and the white table shows above and below."""
    from vision import colour

    slanted = _figures("byler_d6", oblique)["colour_acc"]
    monkeypatch.setattr(colour, "MIN_BODY_SHARE", 1.1)  # the whole window, table and all, as before
    assert slanted >= 0.97  # measured 91 of 91 paired dice
    assert _figures("byler_d6", oblique)["colour_acc"] < slanted - 0.02  # measured 87 of 91


def test_empty_tray_photos_read_as_no_dice():
    entries = json.loads((DATA / "aibox_pi_single" / "manifest.json").read_text())
    empty = [e for e in entries if not e["dice"]]
    assert len(empty) == 6
    for entry in empty:
        assert read_file(DATA / "aibox_pi_single" / entry["image"]).dice == ()


def test_synthetic_trays_are_read_right():
    from companion.bench_vision import match_truth

    frames_right = dice_right = dice_total = 0
    for seed in range(40):
        kwargs = {"touching": 0.4, "glare": 0.4, "coloured_pips": 0.4} if seed % 2 else {}
        image, truth = synth.random_scene(10_000 + seed, **kwargs)
        reading = read_frame(image)
        right = match_truth(truth, reading.dice)
        dice_right += right
        dice_total += len(truth)
        frames_right += right == len(truth) == len(reading.dice)
    # Measured on 1,000 frames (companion bench vision synthetic): every die of every frame right.
    assert dice_right == dice_total
    assert frames_right == 40


def test_weak_finds_are_kept_only_when_the_reader_is_sure_they_are_dice():
    image, truth = synth.render_scene([2, 5, 6], seed=13, die_size=(50, 60))
    every_find_weak = {"find_threshold": 0.99, "weak_find_threshold": 0.2}
    kept = read_frame(image, **every_find_weak).dice
    assert sorted(d.value for d in kept) == sorted(t.value for t in truth)
    assert read_frame(image, **every_find_weak, weak_find_not_a_die=0.0).dice == ()


def test_of_several_finds_on_one_die_the_best_read_is_kept_and_faint_doubtful_finds_go():
    from vision.reader import _dice_surest_first

    def probs(value, not_a_die):
        p = np.full(7, (1.0 - not_a_die - 0.8) / 5)
        p[value - 1], p[6] = 0.8, not_a_die
        return p

    strong_but_doubted = ((100.0, 100.0, 30.0, 0.6), probs(2, 0.45))
    weaker_but_clear = ((104.0, 98.0, 34.0, 0.4), probs(3, 0.02))
    faint_and_doubted = ((300.0, 200.0, 30.0, 0.25), probs(5, 0.15))
    faint_and_clear = ((400.0, 200.0, 30.0, 0.25), probs(6, 0.03))
    order = _dice_surest_first([strong_but_doubted, weaker_but_clear, faint_and_doubted, faint_and_clear],
                               DEFAULT_PARAMS)
    # the clear find comes first, so read_frame keeps it and drops the doubted one beside it as a duplicate
    assert [f for f, _ in order] == [weaker_but_clear[0], strong_but_doubted[0], faint_and_clear[0]]


def test_a_die_read_unsure_is_looked_at_again_wider_and_narrower_and_a_sure_one_is_not():
    from vision.reader import _second_look

    image, truth = synth.render_scene([(5, "red"), (3, "blue"), (6, "green")], seed=17, die_size=(50, 55))
    five, three, six = truth
    finds = [(*five.center, 0.7 * five.side, 0.5), (*three.center, 0.7 * three.side, 0.5),
             (*six.center, 1.6 * six.side, 0.5)]  # too small; right size; swollen by a neighbour
    unsure = [0.1, 0.05, 0.3, 0.1, 0.2, 0.05, 0.2, 0.0]  # best value (3) below value_threshold; a die, though
    sure_but_wrong = [0.0, 0.9, 0.05, 0.0, 0.0, 0.0, 0.05, 0.0]
    probs = np.array([unsure, sure_but_wrong, unsure])
    no_shift = replace(DEFAULT_PARAMS, shifted_look=0.0)
    _, looked = _second_look(image, finds, probs, no_shift)
    for row, die in ((0, five), (2, six)):
        assert int(np.argmax(looked[row, :6])) + 1 == die.value
        assert looked[row, :6].max() >= DEFAULT_PARAMS.value_threshold
    assert np.array_equal(looked[1], probs[1])  # a sure reading is final
    never = replace(no_shift, second_look_scales=())
    assert np.array_equal(_second_look(image, finds, probs, never)[1], probs)


def test_a_find_beside_its_die_is_read_again_from_moved_crops_and_takes_the_die_centre():
    from vision.reader import _read_values, _second_look

    image, truth = synth.render_scene([(4, "white"), (2, "black")], seed=23, die_size=(50, 55))
    four, two = truth
    off_centre = (four.center[0], four.center[1] - 0.3 * four.side, four.side, 0.5)
    on_nothing = (two.center[0] + 3 * two.side, two.center[1], two.side, 0.5)
    on_nothing = (min(on_nothing[0], image.shape[1] - 1.0), *on_nothing[1:])
    finds = [off_centre, on_nothing]
    doubted = [0.05, 0.05, 0.05, 0.1, 0.05, 0.05, 0.65, 0.0]  # taken for no die, though not surely
    not_a_die = [0.01, 0.01, 0.01, 0.01, 0.01, 0.0, 0.95, 0.0]  # surely no die: not looked at again
    probs = np.array([doubted, not_a_die])
    moved, looked = _second_look(image, finds, probs, DEFAULT_PARAMS)
    assert int(np.argmax(looked[0, :6])) + 1 == four.value and looked[0, 6] <= DEFAULT_PARAMS.not_a_die_threshold
    assert np.hypot(moved[0][0] - four.center[0], moved[0][1] - four.center[1]) < 0.2 * four.side
    assert moved[1] == on_nothing and np.array_equal(looked[1], probs[1])
    # the same find without the moved look stays as it was
    unmoved, unlooked = _second_look(image, finds, probs, replace(DEFAULT_PARAMS, shifted_look=0.0))
    assert unmoved == finds and np.array_equal(unlooked, probs)
    assert _read_values(image, [off_centre], DEFAULT_PARAMS)[0, :6].max() < looked[0, :6].max()


def test_a_die_read_unsure_of_its_value_takes_a_sure_reading_from_moved_crops_and_keeps_its_place():
    from vision.reader import _second_look

    image, truth = synth.render_scene([(2, "white")], seed=29, die_size=(50, 55))
    two = truth[0]
    off_centre = (two.center[0], two.center[1] - 0.25 * two.side, two.side, 0.8)
    unsure_four = [0.05, 0.05, 0.05, 0.6, 0.05, 0.05, 0.15, 0.0]       # a die, but its value (4) only 0.6 sure
    probs = np.array([unsure_four])
    params = replace(DEFAULT_PARAMS, second_look_scales=())
    found, looked = _second_look(image, [off_centre], probs, params)
    assert int(np.argmax(looked[0, :6])) + 1 == two.value and looked[0, :6].max() >= params.unsure_value
    assert found == [off_centre]                                    # the die stays where it was found
    # a moved reading less sure than unsure_value never replaces a die's value
    stricter = replace(params, unsure_value=1.01)
    assert np.array_equal(_second_look(image, [off_centre], probs, stricter)[1], probs)


def test_a_crop_read_surely_at_first_look_is_not_turned_and_a_doubted_one_is():
    from vision.reader import _read_values

    image, truth = synth.render_scene([(3, "white"), (5, "red")], seed=31, die_size=(50, 55))
    finds = [(t.center[0], t.center[1], t.side, 0.9) for t in truth]
    once = _read_values(image, finds, replace(DEFAULT_PARAMS, views=1))
    turned = _read_values(image, finds, replace(DEFAULT_PARAMS, sure_at_first_look=1.0))
    assert not np.allclose(once, turned)       # a quarter turn changes what the reader says
    for row in range(2):
        # the first look decides whether the turns are looked at; either way the value is the die's
        expected = once[row] if once[row].max() >= DEFAULT_PARAMS.sure_at_first_look else turned[row]
        assert np.allclose(_read_values(image, finds, DEFAULT_PARAMS)[row], expected)
        assert int(np.argmax(turned[row, :6])) + 1 == truth[row].value
    assert np.allclose(_read_values(image, finds, replace(DEFAULT_PARAMS, sure_at_first_look=0.0)), once)


def test_a_turned_crop_is_turned_again_only_while_its_averaged_answers_are_unsure():
    from vision.reader import _read_values, _reader_probabilities

    image, truth = synth.render_scene([(3, "white"), (5, "red"), (2, "blue"), (6, "black"), (4, "green"), (1, "yellow")],
                                      seed=31, die_size=(50, 55))
    # finds off the dice's centres and sizes, so that the reader doubts them
    finds = [(t.center[0] + 0.3 * t.side * (i % 3 - 1), t.center[1] + 0.2 * t.side * (i % 2), t.side * (0.9 + 0.3 * (i % 3)),
              0.9) for i, t in enumerate(truth)]
    crops = np.stack([dice_net.crop_die(image, (x, y), side) for x, y, side, _ in finds])
    looks = [_reader_probabilities(np.rot90(crops, k, axes=(1, 2))) for k in range(3)]
    two, three = (looks[0] + looks[1]) / 2, (looks[0] + looks[1] + looks[2]) / 3
    params = replace(DEFAULT_PARAMS, sure_at_first_look=1.0, views=3)
    sure_after_two = two.max(axis=1) >= params.sure_after_turn
    assert sure_after_two.any() and not sure_after_two.all()     # both kinds of crop are here
    read = _read_values(image, finds, params)
    for row in range(len(finds)):
        assert np.allclose(read[row], two[row] if sure_after_two[row] else three[row], atol=1e-6)
    assert np.allclose(_read_values(image, finds, replace(params, views=2)), two, atol=1e-6)
    assert np.allclose(_read_values(image, finds, replace(params, sure_after_turn=1.01)), three, atol=1e-6)


def test_a_symbol_face_is_read_as_a_symbol_never_given_a_number():
    symbols = read_as_symbol = 0
    for seed in (5, 6, 7, 8):
        dice = [(1, "white"), (6, "red"), (1, "blue"), (6, "black"), (3, "green"), (2, "yellow"), (1, "white"), (6, "white")]
        image, truth = synth.render_scene(dice, seed=seed, die_size=(60, 70), symbol_faces=1.0)
        reading = read_frame(image)
        for t in truth:
            near = [d for d in reading.dice if np.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1]) < t.side / 2]
            if t.symbol:
                symbols += 1
                read_as_symbol += any(d.symbol for d in near)
                assert all(d.value is None and "value" in d.to_json()["unsure"] for d in near)  # no number guessed
            else:
                assert [(d.value, d.symbol) for d in near] == [(t.value, False)]
    assert symbols == 24 and read_as_symbol >= 6   # measured 10 of 24 (reader v13)


def test_real_dice_are_never_read_as_symbols():
    for name in ("byler_d6", "matteop65_wood", "aibox_pi_single"):
        entries = json.loads((DATA / name / "manifest.json").read_text())
        dice = [d for r in read_files([DATA / name / e["image"] for e in entries]) for d in r.dice]
        assert dice and not any(d.symbol for d in dice), name


def test_the_print_check_sees_the_find_and_around_it():
    image = np.full((400, 400, 3), 200, np.uint8)
    cv2.rectangle(image, (180, 180), (220, 220), (30, 30, 30), -1)  # the find: a 40 px dark square
    cv2.circle(image, (245, 200), 5, (0, 0, 255), -1)  # a red dot beside it, as a domino's other half
    pair = dice_net.print_check_input(image, (200.0, 200.0), 40.0)
    assert pair.shape == (dice_net.CROP_SIZE, dice_net.CROP_SIZE, 6) and pair.dtype == np.uint8
    crop, around = pair[..., :3], pair[..., 3:]
    assert crop[20, 20].tolist() == [30, 30, 30] and around[20, 20].tolist() == [30, 30, 30]
    red = (np.abs(pair[..., 2::3].astype(int) - 255) < 60) & (pair[..., 0::3] < 60)
    assert not red[..., 0].any() and red[..., 1].any()  # the dot lies outside the crop, inside the wider one
    turned = dice_net.print_check_input(image, (200.0, 200.0), 40.0, angle_deg=90.0)
    assert not np.array_equal(turned[..., 3:], around)  # both crops turn alike
    assert (turned[..., 3:].astype(int)[..., 2] > 200).any() and (turned[..., 3:][..., 0] < 60).any()


def test_the_print_check_drops_most_false_dice_on_real_photos_without_dice():
    photos = sorted((DATA / "no_dice").glob("*.jpg"))  # a cat, a coffee cup, the astronaut...: never trained on
    unchecked = sum(len(r.dice) for r in read_files(photos, lambda frame: read_frame(frame, print_check=1.0)))
    checked = sum(len(r.dice) for r in read_files(photos))
    assert unchecked >= 6 and checked <= unchecked // 2   # measured 8 and 2 (2026-11-30)


def test_dots_printed_on_a_card_read_fairly_surely_are_dropped_when_the_check_is_certain():
    from vision.synth_negatives import render_negative

    pictures = [render_negative(seed, "pip prints") for seed in (6, 568, 596)]  # three of the benchmark's (seeds 1 and 500)
    for picture in pictures:
        unchecked = read_frame(picture, print_check_sure=1.0).dice   # the check asked below 0.5 alone
        assert unchecked and all(0.5 <= d.confidence < 0.7 for d in unchecked)
        assert not read_frame(picture).dice


def test_pictures_without_dice_report_almost_none_and_real_dice_are_kept():
    from vision.synth_negatives import negative_set

    pictures = [image for _, image in negative_set(30, 0)]  # the false-positive benchmark's: dominoes, tokens, text...
    unchecked = sum(len(read_frame(p, print_check=1.0, speck_share=0.0).dice) for p in pictures)
    checked = sum(len(read_frame(p, speck_share=0.0).dice) for p in pictures)
    assert unchecked >= 10 and checked <= 3   # measured 14 without the print check, 0 with it (2026-11-29)
    assert sum(len(read_frame(p, print_check=1.0).dice) for p in pictures) < unchecked   # specks dropped: 12 -> 6
    for name in ("byler_d6", "matteop65_wood", "aibox_pi_single"):
        paths = [DATA / name / e["image"] for e in json.loads((DATA / name / "manifest.json").read_text())]
        without = [r.dice for r in read_files(paths, lambda frame: read_frame(frame, print_check=1.0))]
        assert [r.dice for r in read_files(paths)] == without, name


def test_real_photos_without_dice_get_no_unreadable_doubtful_finds_and_real_dice_are_kept():
    photos = sorted((DATA / "no_dice").glob("*.jpg"))  # a cat, an astronaut, coins, text...: ATTRIBUTION.md there
    assert len(photos) == 10

    def unreadable(dice):
        return [d for d in dice if d.value is None and not d.symbol]

    # the print check left out: it takes most of these finds for no die too (test above)
    always = [d for r in read_files(photos, lambda frame: read_frame(frame, unreadable_confidence=0.0, print_check=1.0))
              for d in r.dice]
    dropped = [d for r in read_files(photos, lambda frame: read_frame(frame, print_check=1.0)) for d in r.dice]
    assert len(unreadable(always)) >= 2 and not unreadable(dropped)   # measured 3 (astronaut 2, cat 1) and 0
    assert len(dropped) == len(always) - len(unreadable(always))      # the other finds are as they were
    for name in ("byler_d6", "matteop65_wood", "aibox_pi_single"):
        paths = [DATA / name / e["image"] for e in json.loads((DATA / name / "manifest.json").read_text())]
        kept = [r.dice for r in read_files(paths, lambda frame: read_frame(frame, unreadable_confidence=0.0))]
        assert [r.dice for r in read_files(paths)] == kept, name


def test_an_unreadable_die_is_reported_only_when_the_finder_was_sure_of_it():
    clear = DieReading(None, "white", (10.0, 10.0), (0.0, 0.0, 20.0, 20.0), 0.3)      # finder sure, face unreadable
    faint = replace(clear, confidence=0.12)
    symbol = replace(faint, symbol=True)
    read = replace(faint, value=4)
    assert _without_unreadable((clear, faint, symbol, read), DEFAULT_PARAMS) == (clear, symbol, read)
    assert _without_unreadable((faint,), replace(DEFAULT_PARAMS, unreadable_confidence=0.0)) == (faint,)


def test_reading_reports_centre_box_and_colour_of_each_die():
    image, truth = synth.render_scene([(5, "red"), (2, "white"), (6, "blue")], seed=3, die_size=(60, 70))
    reading = read_frame(image)
    assert len(reading.dice) == 3
    for t in truth:
        near = min(reading.dice, key=lambda d: np.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1]))
        assert np.hypot(near.center[0] - t.center[0], near.center[1] - t.center[1]) < 0.25 * t.side
        assert near.value == t.value
        assert near.colour == t.colour
        assert 0.5 < near.bbox[2] / t.side < 1.6
        assert 0 < near.confidence <= 1


def test_grey_and_16_bit_frames_are_read_like_the_colour_frame():
    image, truth = synth.render_scene([3, 6, 1], seed=5, die_size=(50, 60), background="green_felt")
    want = sorted(t.value for t in truth)
    assert sorted(d.value for d in read_frame(image).dice) == want
    sixteen = image.astype(np.uint16) * 257
    assert sorted(d.value for d in read_frame(sixteen).dice) == want
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert len(read_frame(grey).dice) == 3


def test_frames_without_dice_read_as_empty():
    blank = np.full((480, 640, 3), 180, np.uint8)
    assert read_frame(blank).dice == ()
    for n, background in enumerate(synth.BACKGROUNDS):
        empty_tray, _ = synth.render_scene([], seed=n, background=background)
        assert read_frame(empty_tray).dice == (), background
    assert read_frame(np.zeros((5, 5, 3), np.uint8)).dice == ()


def test_a_hand_over_the_tray_hides_dice_but_invents_none():
    image, truth = synth.render_scene([2, 4, 6, 3], seed=8, die_size=(50, 55))
    hand = image.copy()
    cv2.ellipse(hand, (320, 240), (400, 170), 20, 0, 360, (120, 150, 200), -1)  # skin tone over the middle
    cv2.GaussianBlur(hand, (0, 0), 3, dst=hand)
    for die in read_frame(hand).dice:
        if die.value is not None:  # a value is only given for a die that is there, and is its value
            assert any(np.hypot(die.center[0] - t.center[0], die.center[1] - t.center[1]) < 0.5 * t.side
                       and die.value == t.value for t in truth), die


def test_unreadable_files_give_one_line_errors(tmp_path):
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg" * 20)
    for path in (empty, corrupt, tmp_path / "missing.png"):
        with pytest.raises(UserError) as err:
            read_file(path)
        assert "\n" not in str(err.value) and str(path) in str(err.value)
    readings = list(read_files([empty, corrupt]))
    assert [r.dice for r in readings] == [(), ()] and all(r.error for r in readings)
    with pytest.raises(UserError):
        read_frame(np.zeros((4, 4, 7), np.uint8))


def test_read_command_prints_score_dice_json_and_annotates(tmp_path, capsys):
    image, _truth = synth.render_scene([(4, "green"), (1, "yellow")], seed=21, die_size=(55, 65))
    path = tmp_path / "tray.png"
    cv2.imwrite(str(path), image)
    assert main(["read", str(path), "--json", "--annotate", str(tmp_path / "out")]) == 0
    line = json.loads(capsys.readouterr().out.strip())
    assert line["image"] == str(path) and isinstance(line["ms"], float)
    assert sorted(d["value"] for d in line["dice"]) == [1, 4]
    assert set(line["dice"][0]) == {"value", "colour", "center", "bbox", "confidence", "unsure", "symbol"}
    annotated = cv2.imread(str(tmp_path / "out" / "tray.png"))
    assert annotated.shape == image.shape and not np.array_equal(annotated, image)


def test_read_command_fails_in_one_line_on_a_bad_file(tmp_path, capsys):
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"garbage")
    assert main(["read", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("companion:") and "\n" not in err


def test_real_layouts_are_the_six_faces_only():
    assert is_real_layout({(1, 1)}) and is_real_layout({(0, 2), (1, 1), (2, 0)})
    assert not is_real_layout({(0, 0), (0, 2), (2, 0)})  # an L of three: no face has it
    assert not is_real_layout({(r, c) for r in range(3) for c in range(3)})  # nine pips
    rng = np.random.default_rng(4)
    assert not any(is_real_layout(odd_layout(rng)) for _ in range(200))


def test_a_face_with_an_impossible_layout_gets_no_value_while_real_faces_do():
    rng = np.random.default_rng(7)
    tray = np.full((360, 480, 3), (150, 160, 165), np.uint8)

    def read_face(cells):
        frame = tray.copy()
        frame[130:230, 190:290] = cv2.resize(draw_face(rng, cells, size=80), (100, 100))
        return [d.value for d in read_frame(frame).dice]

    odd = [{(0, 0), (0, 2), (2, 0)}, {(r, c) for r in range(3) for c in range(3)}, {(0, 0), (0, 1), (1, 0), (2, 2)}]
    for cells in odd:
        assert all(value is None for value in read_face(cells)), cells
    for value, layouts in REAL_LAYOUTS.items():
        assert read_face(layouts[0]) == [value]


def test_a_number_token_read_as_a_symbol_face_is_round_and_no_die():
    """Number tokens on rendered game boards are read as symbol faces; their outline is a disc where a die's face is
    a square, so they are dropped, unless the player's dice were learnt to bear a symbol; symbol dice stay."""
    from vision.synth_negatives import negative_set

    tokens = [image for kind, image in negative_set(70, 1) if kind == "number tokens"]
    read_as_symbols = [image for image in tokens if any(d.symbol for d in read_frame(image, round_symbol=0.0).dice)]
    assert len(read_as_symbols) >= 2
    for image in read_as_symbols:
        assert not any(d.symbol for d in read_frame(image).dice)
        assert any(d.symbol for d in read_frame(image, symbol_value=6).dice)
    before = after = 0
    for seed in range(12):
        image, _ = synth.random_scene(seed, symbol_faces=1.0)
        before += sum(d.symbol for d in read_frame(image, round_symbol=0.0).dice)
        after += sum(d.symbol for d in read_frame(image).dice)
    assert before >= 10 and after >= 0.9 * before
