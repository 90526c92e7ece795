"""Pips counted without the network (vision/pip_count.py), and the reader taking a count for a doubted value."""
import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import dice_net, pip_count, pip_faces, synth
from vision.reader import (
    DEFAULT_PARAMS,
    ReaderParams,
    _counted_dice,
    _counted_value,
    _value_checked_by_count,
    read_frame,
)

DATA = Path(__file__).parent / "data"


def _tally(counts_and_truths):
    counted = [(c, t) for c, t in counts_and_truths if c is not None]
    return len(counted), sum(c == t for c, t in counted)


def test_rendered_dice_are_counted_right():
    results = []
    for seed in range(40):
        image, truth = synth.random_scene(seed)
        results += [(pip_count.count_pips(image, die.center, die.side), die.value) for die in truth]
    counted, right = _tally(results)
    assert counted >= 0.9 * len(results)
    assert right >= 0.99 * counted


def test_real_dice_photographed_from_above_are_counted_right_or_not_at_all():
    entries = json.loads((DATA / "byler_d6" / "manifest.json").read_text())
    results = []
    for entry in entries:
        image = cv2.imread(str(DATA / "byler_d6" / entry["image"]))
        for die in entry["dice"]:
            x, y, w, h = die["bbox"]
            results.append((pip_count.count_pips(image, (x + w / 2, y + h / 2), max(w, h)), die["value"]))
    counted, right = _tally(results)
    assert counted >= 0.7 * len(results)
    assert right >= 0.93 * counted


def test_dice_seen_from_low_down_are_counted_right_or_not_at_all():
    """The Pi camera's steep view (tests/data/aibox_pi_single): the reader's box holds the top face squashed and a side
    face nearly square, whose round pips alone would make a smaller face (a 4's two rounder pips a 2)."""
    entries = json.loads((DATA / "aibox_pi_single" / "manifest.json").read_text())
    counts = []
    for entry in (e for e in entries if e["dice"]):
        image = cv2.imread(str(DATA / "aibox_pi_single" / entry["image"]))
        for die in read_frame(image).dice:
            counts.append((pip_count.count_pips(image, die.center, die.bbox[2]), entry["dice"][0]["value"]))
    assert len(counts) >= 10
    assert all(count in (None, value) for count, value in counts), counts


@pytest.mark.parametrize("value", range(1, 7))
def test_every_real_layout_drawn_on_any_body_gives_its_value(value):
    rng = np.random.default_rng(value)
    side = pip_count.DEFAULT_PIP_COUNT.crop_px / dice_net.CROP_MARGIN
    for layout in pip_faces.REAL_LAYOUTS[value]:
        for _ in range(5):
            face = pip_faces.draw_face(rng, layout, size=pip_count.DEFAULT_PIP_COUNT.crop_px)
            middle = (face.shape[0] - 1) / 2
            assert pip_count.count_pips(face, (middle, middle), side) == value


def test_spots_that_are_no_real_face_give_no_count():
    rng = np.random.default_rng(7)
    size = pip_count.DEFAULT_PIP_COUNT.crop_px
    side = size / dice_net.CROP_MARGIN
    middle = (size - 1) / 2
    odd = [frozenset({(0, 0), (0, 1)}), frozenset({(0, 0), (0, 2), (1, 1)}), frozenset({(0, 1), (1, 0), (2, 2)}),
           frozenset({(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2), (1, 1)}), frozenset({(0, 2)})]
    for cells in odd:
        assert not pip_faces.is_real_layout(cells)
        face = pip_faces.draw_face(rng, cells, size=size)
        assert pip_count.count_pips(face, (middle, middle), side) is None, sorted(cells)
    blank = pip_faces.draw_face(rng, frozenset(), size=size)
    assert pip_count.count_pips(blank, (middle, middle), side) is None


def test_a_pip_spoilt_by_a_glint_does_not_turn_a_five_into_a_four():
    """The middle pip of a five drawn with a glint across it, no longer round: the face is read as a five or not
    counted, never as the four its round pips make."""
    rng = np.random.default_rng(3)
    size = pip_count.DEFAULT_PIP_COUNT.crop_px
    side, middle = size / dice_net.CROP_MARGIN, (size - 1) / 2
    counts = []
    for _ in range(10):
        face = pip_faces.draw_face(rng, pip_faces.REAL_LAYOUTS[5][0], size=size)
        centre = (int(middle), int(middle))
        body = face[centre[1], centre[0] + int(0.15 * side)].astype(int)
        glint = tuple(int(v) for v in np.where(np.abs(face[centre[1], centre[0]].astype(int) - 255) > 60, 255, 0))
        assert np.abs(face[centre[1], centre[0]].astype(int) - body).sum() > 60   # a pip lies there
        cv2.ellipse(face, centre, (int(0.16 * side), int(0.035 * side)), 35, 0, 360, glint, -1)
        counts.append(pip_count.count_pips(face, (middle, middle), side))
    assert 4 not in counts
    assert counts.count(None) < len(counts)


def _two_in_red_on_blue(size: int = 96) -> tuple[np.ndarray, float, float]:
    """A dark blue die showing a 2 in red pips, filling a crop as count_pips takes it; its side and a pip's radius."""
    side = size / dice_net.CROP_MARGIN
    face = np.full((size, size, 3), (150, 160, 170), np.uint8)
    middle, half, step, radius = size / 2, side / 2, 0.27 * side, 0.08 * side
    cv2.rectangle(face, (round(middle - half), round(middle - half)), (round(middle + half), round(middle + half)),
                  (110, 40, 20), -1)
    for dx, dy in ((-1, -1), (1, 1)):
        cv2.circle(face, (round(middle + dx * step), round(middle + dy * step)), round(radius), (40, 40, 200), -1)
    return face, side, radius


def _marbled_two(size: int = 96) -> tuple[np.ndarray, float]:
    """The red-on-blue 2 with a round white fleck of marbling beside its face's middle, where no face has a pip
    alone; and the die's side in px."""
    face, side, radius = _two_in_red_on_blue(size)
    cv2.circle(face, (round(size / 2), round(size / 2 - 0.27 * side)), round(radius), (245, 245, 245), -1)
    return face, side


def test_pips_each_with_a_glint_at_its_edge_give_their_colour_to_a_second_look():
    """No spot is round enough to count at first; a loosely round one still gives the pips' colour, and in that
    colour the glints fade and the pips are round."""
    size = 96
    face, side, radius = _two_in_red_on_blue(size)
    for dx, dy in ((-1, -1), (1, 1)):
        pip = (size / 2 + dx * 0.27 * side, size / 2 + dy * 0.27 * side)
        cv2.circle(face, (round(pip[0] + 1.2 * radius), round(pip[1])), round(0.6 * radius), (245, 245, 245), -1)
    middle = (size - 1) / 2
    assert pip_count.find_spots(pip_count.spot_contrast(face, side), side) == []
    assert pip_count.count_pips(face, (middle, middle), side) == 2
    only_round_spots = pip_count.PipCountParams(loose_circularity=0.6, loose_inertia=0.4, loose_convexity=0.8)
    assert pip_count.count_pips(face, (middle, middle), side, only_round_spots) is None


def test_marbling_beside_the_pips_is_looked_past_by_the_pips_colour():
    face, side = _marbled_two()
    middle = (face.shape[0] - 1) / 2
    assert pip_count.count_pips(face, (middle, middle), side) == 2
    first_look_only = pip_count.PipCountParams(colour_seeds=0)
    assert pip_count.count_pips(face, (middle, middle), side, first_look_only) is None


def test_pip_likeness_keeps_the_pips_colour_and_fades_another():
    face, side = _marbled_two()
    size = face.shape[0]
    contrast = pip_count.spot_contrast(face, side)
    step = 0.27 * side
    pip = pip_count.Spot(size / 2 - step, size / 2 - step, math.pi * (0.08 * side) ** 2)
    likeness = pip_count.pip_likeness(face, contrast, pip)
    other_pip, fleck, body = (round(size / 2 + step),) * 2, (round(size / 2 - step), round(size / 2)), (48, 60)
    assert contrast[fleck] > 100 and contrast[other_pip] > 100
    assert likeness[other_pip] > 200 and likeness[fleck] < 100 and likeness[body] < 50


def test_a_find_taken_for_no_die_is_kept_when_its_pips_count_a_real_face():
    image, die = _one_die(5)
    find = (*die.center, die.side, 0.8)
    denied = _doubted({5: 0.1}) + np.eye(8)[6] * 0.7
    assert _counted_dice(image, [(find, denied)], DEFAULT_PARAMS) == [(find, denied)]
    surely_no_die = _doubted({5: 0.02}) + np.eye(8)[6] * 0.95
    weak_find = (*die.center, die.side, 0.25)
    blank = np.full_like(image, 128)
    assert _counted_dice(image, [(find, surely_no_die), (weak_find, denied)], DEFAULT_PARAMS) == []
    assert _counted_dice(blank, [(find, denied)], DEFAULT_PARAMS) == []
    assert _counted_dice(image, [(find, denied)], ReaderParams(pip_count=None)) == []


def test_a_lone_spot_never_makes_a_find_a_die():
    image, die = _one_die(1)
    denied = _doubted({1: 0.2}) + np.eye(8)[6] * 0.7
    assert pip_count.count_pips(image, die.center, die.side) == 1
    assert _counted_dice(image, [((*die.center, die.side, 0.8), denied)], DEFAULT_PARAMS) == []


def _one_die(value):
    image, truth = synth.render_scene([(value, "white")], seed=3)
    return image, truth[0]


def _doubted(probabilities):
    p = np.zeros(8)
    for value, probability in probabilities.items():
        p[value - 1] = probability
    return p


def test_a_doubted_die_takes_its_counted_pips_as_its_value():
    image, die = _one_die(5)
    assert _counted_value(image, die.center, die.side, _doubted({4: 0.6, 5: 0.02}), DEFAULT_PARAMS) == 5
    assert _counted_value(image, die.center, die.side, _doubted({4: 0.3, 3: 0.3}), DEFAULT_PARAMS) == 5


def test_a_lone_pip_counts_only_where_the_network_finds_a_1_possible():
    image, die = _one_die(1)
    assert _counted_value(image, die.center, die.side, _doubted({1: 0.3, 6: 0.5}), DEFAULT_PARAMS) == 1
    assert _counted_value(image, die.center, die.side, _doubted({1: 0.01, 6: 0.5}), DEFAULT_PARAMS) is None


def test_no_count_without_pips_or_when_counting_is_off():
    image, die = _one_die(5)
    assert _counted_value(image, die.center, die.side, _doubted({4: 0.6}), ReaderParams(pip_count=None)) is None
    blank = np.full_like(image, 128)
    assert _counted_value(blank, die.center, die.side, _doubted({4: 0.6}), DEFAULT_PARAMS) is None


def test_a_reader_that_doubts_every_die_reports_the_counts_and_flags_them():
    from companion.bench_vision import match_truth

    image, truth = synth.render_scene([1, 2, 3, 4, 5, 6], seed=11)
    reading = read_frame(image, unsure_value=1.01, lone_pip_floor=0.0)
    assert match_truth(truth, reading.dice) == len(truth)
    assert all(die.value_unsure for die in reading.dice)


def test_a_fairly_sure_die_whose_pips_count_another_value_is_flagged_and_takes_the_count_when_least_sure():
    image, die = _one_die(5)
    blank = np.full_like(image, 128)
    at_die = (die.center, die.side)
    assert _value_checked_by_count(image, *at_die, _doubted({4: 0.92}), DEFAULT_PARAMS) == (4, True)
    assert _value_checked_by_count(image, *at_die, _doubted({4: 0.85}), DEFAULT_PARAMS) == (5, True)
    assert _value_checked_by_count(image, *at_die, _doubted({5: 0.85}), DEFAULT_PARAMS) == (5, False)
    assert _value_checked_by_count(blank, *at_die, _doubted({4: 0.85}), DEFAULT_PARAMS) == (4, False)
    assert _value_checked_by_count(image, *at_die, _doubted({4: 0.97}), DEFAULT_PARAMS) == (4, False)
    not_checked = ReaderParams(count_check_below=0.8)
    assert _value_checked_by_count(image, *at_die, _doubted({4: 0.85}), not_checked) == (4, False)
    never_taken = ReaderParams(count_taken_below=0.0)  # as in a frame read through a slanted camera's stretch
    assert _value_checked_by_count(image, *at_die, _doubted({4: 0.85}), never_taken) == (4, True)


def test_a_doubted_die_takes_its_count_and_stays_flagged():
    image, die = _one_die(5)
    assert _value_checked_by_count(image, die.center, die.side, _doubted({4: 0.6}), DEFAULT_PARAMS) == (5, True)
    blank = np.full_like(image, 128)
    assert _value_checked_by_count(blank, die.center, die.side, _doubted({4: 0.6}), DEFAULT_PARAMS) == (4, True)
    assert _value_checked_by_count(blank, die.center, die.side, _doubted({4: 0.3}), DEFAULT_PARAMS) == (None, True)


def test_rendered_dice_read_right_are_not_flagged_by_their_count():
    from companion.bench_vision import match_truth

    image, truth = synth.render_scene([1, 2, 3, 4, 5, 6], seed=11)
    reading = read_frame(image, count_check_below=1.01)
    assert match_truth(truth, reading.dice) == len(truth)
    assert not any(die.value_unsure for die in reading.dice)


def _big_pip_face(value: int, pip_radius: float) -> np.ndarray:
    """A square yellow-on-green face as the count crops it, its pips' radius ``pip_radius`` of the side."""
    up, size = 4, pip_count.DEFAULT_PIP_COUNT.crop_px
    canvas = np.full((size * up, size * up, 3), 200, np.uint8)
    side, middle = size * up / dice_net.CROP_MARGIN, size * up / 2
    corner = round(middle - side / 2), round(middle + side / 2)
    cv2.rectangle(canvas, (corner[0], corner[0]), (corner[1], corner[1]), (60, 110, 40), -1)
    for row, column in pip_faces.REAL_LAYOUTS[value][0]:
        at = round(middle + (column - 1) * 0.28 * side), round(middle + (row - 1) * 0.28 * side)
        cv2.circle(canvas, at, round(pip_radius * side), (40, 210, 230), -1, cv2.LINE_AA)
    return cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize("value", range(1, 7))
def test_big_crowded_pips_are_counted_with_the_body_taken_over_a_wider_square(value):
    """Pips 0.14-0.15 of the side in radius fill most of the narrow square around them, whose median is then the
    pips' colour: the count looks again with the body's colour taken over a wider one (wood's big pips)."""
    side = pip_count.DEFAULT_PIP_COUNT.crop_px / dice_net.CROP_MARGIN
    middle = (pip_count.DEFAULT_PIP_COUNT.crop_px - 1) / 2
    narrow_only = pip_count.PipCountParams(wide_body_kernel=0.0)
    for pip_radius in (0.14, 0.15):
        face = _big_pip_face(value, pip_radius)
        assert pip_count.count_pips(face, (middle, middle), side) == value
        assert pip_count.count_pips(face, (middle, middle), side, narrow_only) is None


def _slanted_die(top: int, side_face: int) -> np.ndarray:
    """A die seen slanted, framed as the count crops it: its top face (round pips) above the die's centre and a side
    face below it, foreshortened to 0.7 of its height (its pips ovals)."""
    up, size = 4, pip_count.DEFAULT_PIP_COUNT.crop_px
    canvas = np.full((size * up, size * up, 3), 200, np.uint8)
    side, middle = size * up / dice_net.CROP_MARGIN, size * up / 2
    face, squash = 0.75 * side, 0.7
    left, top_edge = middle - face / 2, middle - side / 2
    below = top_edge + face
    cv2.rectangle(canvas, (round(left), round(top_edge)), (round(left + face), round(below)), (150, 60, 30), -1)
    cv2.rectangle(canvas, (round(left), round(below)), (round(left + face), round(below + squash * face)), (110, 40, 20), -1)
    step, radius = 0.28 * face, 0.09 * face
    for row, column in pip_faces.REAL_LAYOUTS[top][0]:
        at = round(left + face / 2 + (column - 1) * step), round(top_edge + face / 2 + (row - 1) * step)
        cv2.circle(canvas, at, round(radius), (235, 235, 235), -1, cv2.LINE_AA)
    for row, column in pip_faces.REAL_LAYOUTS[side_face][0]:
        at = round(left + face / 2 + (column - 1) * step), round(below + squash * (face / 2 + (row - 1) * step))
        cv2.ellipse(canvas, at, (round(radius), round(squash * radius)), 0, 0, 360, (235, 235, 235), -1, cv2.LINE_AA)
    return cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)


@pytest.mark.parametrize(("top", "side_face"), [(3, 2), (4, 2), (5, 3), (6, 2), (6, 3)])
def test_a_slanted_die_is_counted_on_its_top_face_by_its_roundest_pips(top, side_face):
    side = pip_count.DEFAULT_PIP_COUNT.crop_px / dice_net.CROP_MARGIN
    middle = (pip_count.DEFAULT_PIP_COUNT.crop_px - 1) / 2
    image = _slanted_die(top, side_face)
    assert pip_count.count_pips(image, (middle, middle), side) == top
    assert pip_count.count_pips(image, (middle, middle), side, pip_count.PipCountParams(round_inertia=0.0)) is None
