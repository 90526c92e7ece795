"""A die seen from low down is read on its top face (vision/top_face.py, reader._top_face_look): its outline
measured against the table, the look at each end of a long outline, and a real photo of a 1 whose side faces
show a 2, a 3 and a 4.  Where the camera's side faces are known (learnt with "learn my dice"), a find lying
there is no die of its own."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import reader, synth, variants
from vision.reader import DEFAULT_PARAMS, CameraReader, read_file, read_frame
from vision.top_face import (
    DEFAULT_SIDE_FACE_VOTE,
    ClosePair,
    SideFaceParams,
    SideFaceVote,
    close_pairs,
    die_outline,
    outline_fill,
    share_unlike_table,
    side_face_finds,
    top_face_looks,
    voted_offset,
)
from vision.types import DieReading

AIBOX = Path(__file__).parent / "data" / "aibox_pi_single"
BYLER = Path(__file__).parent / "data" / "byler_d6"
BYLER_ENTRIES = json.loads((BYLER / "manifest.json").read_text())
LOW_VIEW_ONE = next(e for e in json.loads((AIBOX / "manifest.json").read_text()) if "bffc842b" in e["image"])


def table_with(box: tuple[int, int, int, int], colour=(235, 240, 240)) -> np.ndarray:
    """A brown table 320x240 with a light shape filling ``box`` (x, y, w, h)."""
    image = np.full((240, 320, 3), (60, 90, 120), np.uint8)
    x, y, w, h = box
    cv2.rectangle(image, (x, y), (x + w - 1, y + h - 1), colour, -1)
    return image


def test_the_outline_is_the_shape_that_stands_out_from_the_table_around_it():
    image = table_with((140, 90, 40, 64))
    x, y, w, h = die_outline(image, (160.0, 122.0), 60.0)
    assert abs(x - 140) <= 2 and abs(y - 90) <= 2 and abs(w - 40) <= 3 and abs(h - 64) <= 3
    assert die_outline(image, (40.0, 40.0), 30.0) is None           # the table itself
    assert die_outline(table_with((0, 0, 320, 150)), (160.0, 120.0), 60.0) is None   # runs on past the window


def test_a_square_fills_the_rectangle_around_it_turned_or_squashed_and_a_disc_does_not():
    square = table_with((140, 90, 50, 50))
    turned = np.full((240, 320, 3), (60, 90, 120), np.uint8)
    corners = cv2.boxPoints(((160.0, 120.0), (50.0, 30.0), 35.0))      # a slanted camera's squashed, turned face
    cv2.fillPoly(turned, [np.round(corners).astype(np.int32)], (235, 240, 240))
    disc = np.full((240, 320, 3), (60, 90, 120), np.uint8)
    cv2.circle(disc, (160, 120), 28, (235, 240, 240), -1)
    assert outline_fill(square, (165.0, 115.0), 60.0) > 0.95
    assert outline_fill(turned, (160.0, 120.0), 60.0) > 0.92
    assert 0.74 < outline_fill(disc, (160.0, 120.0), 60.0) < 0.82      # pi / 4
    assert outline_fill(square, (40.0, 40.0), 30.0) is None           # the table itself


def test_a_long_outline_is_looked_at_near_each_end_and_a_square_one_not_at_all():
    assert top_face_looks((100, 100, 40, 42), 45.0) == []            # a die seen from above
    ends = top_face_looks((100, 100, 40, 70), 60.0)                  # up-down: top and bottom
    assert [round(y) for _, y, _ in ends] == [116, 154] and all(x == 120 for x, _, _ in ends)
    assert all(side == pytest.approx(48.0) for *_, side in ends)
    sideways = top_face_looks((100, 100, 70, 40), 60.0)              # the picture turned a quarter
    assert [round(x) for x, _, _ in sideways] == [116, 154]
    assert top_face_looks((100, 100, 40, 120), 60.0) == []           # two dice in a row, not one


def test_a_one_seen_from_low_down_is_read_on_its_top_face():
    """The camera about 70° from straight down: one pip on a sliver of top face above a 2, a 3 and a 4 on the
    side faces; the whole die's crop reads a side face (2), its top face alone the 1, still flagged unsure."""
    assert LOW_VIEW_ONE["dice"][0]["value"] == 1
    path = AIBOX / LOW_VIEW_ONE["image"]
    image = cv2.imread(str(path))
    assert [d.value for d in read_frame(image, top_face=None).dice] == [2]
    for turned in (image, np.ascontiguousarray(np.rot90(image)), np.ascontiguousarray(np.rot90(image, 2))):
        (die,) = read_frame(turned).dice
        assert die.value == 1 and die.value_unsure
    assert [d.value for d in read_file(path).dice] == [1]


WHITE, SHADED_WHITE, RED = np.array([95.0, 0.0, 2.0]), np.array([62.0, 1.0, 6.0]), np.array([50.0, 65.0, 45.0])
DOWN = SideFaceParams((0.0, 0.7))


def test_a_find_where_the_camera_shows_a_dies_side_face_is_that_side_face():
    """Below a 40 px die by 0.7 of its side (28 px) and shaded: its side face, whichever is listed first; above
    it, the die is the other one's side face.  Beside it, 1.25 sides below, or of another colour: a die."""
    die = (100.0, 100.0)
    assert side_face_finds([die, (102.0, 127.0)], [40.0, 30.0], [WHITE, SHADED_WHITE], DOWN) == {1}
    assert side_face_finds([(102.0, 127.0), die], [30.0, 40.0], [SHADED_WHITE, WHITE], DOWN) == {0}
    assert side_face_finds([die, (100.0, 72.0)], [40.0, 40.0], [WHITE, WHITE], DOWN) == {0}
    for elsewhere in [(128.0, 100.0), (100.0, 150.0)]:
        assert side_face_finds([die, elsewhere], [40.0, 40.0], [WHITE, WHITE], DOWN) == set()
    assert side_face_finds([die, (100.0, 128.0)], [40.0, 40.0], [WHITE, RED], DOWN) == set()


def test_a_side_face_has_no_side_face_of_its_own_and_a_die_with_one_is_a_die():
    """A column of three white finds about 28 px apart: the middle one is the top one's side face (the closest
    match), so the bottom one, lying where the middle one's side face would, stays a die; turned round, the top
    one is the side face of the middle one, which is a die."""
    column = [(100.0, 100.0), (100.0, 128.0), (100.0, 155.5)]
    assert side_face_finds(column, [40.0] * 3, [WHITE] * 3, DOWN) == {1}
    assert side_face_finds(column, [40.0] * 3, [WHITE] * 3, SideFaceParams((0.0, -0.7))) == {0}


def slanted_tray(seed: int) -> tuple[np.ndarray, list]:
    """A rendered tray seen by a camera whose dice show their side faces 0.7 of a side down the picture."""
    return synth.random_scene(seed, count=(3, 6), colours=["white", "red"], background="green_felt",
                              slanted_view=1.0, slant=(0.7, 0.7), slant_direction_deg=90.0)


def extra_finds(dice, truth) -> int:
    """Reported dice whose centre lies on no rendered die's top face."""
    return sum(min(np.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1]) / t.side for t in truth) >= 0.5
               for d in dice)


def test_with_the_cameras_side_faces_known_they_are_no_extra_dice():
    """Rendered trays whose dice show deep side faces: read as they are, some side faces are reported as dice;
    with the camera's side faces known, none of them is, and no die read right is lost."""
    before = after = lost = 0
    for seed in range(40, 46):
        image, truth = slanted_tray(seed)
        plain, known = read_frame(image).dice, read_frame(image, side_faces=DOWN).dice
        before, after = before + extra_finds(plain, truth), after + extra_finds(known, truth)
        right = {(round(d.center[0]), round(d.center[1]), d.value) for d in plain if extra_finds([d], truth) == 0}
        lost += len(right - {(round(d.center[0]), round(d.center[1]), d.value) for d in known})
    assert before >= 4 and after == 0 and lost == 0


def test_finds_of_one_colour_closer_than_a_side_are_a_close_pair_pointing_to_the_less_sure():
    die, below = (100.0, 100.0), (102.0, 128.0)        # 0.7 of a 40 px side apart
    [pair] = close_pairs([die, below], [40.0, 30.0], [WHITE, SHADED_WHITE], [0.9, 0.4])
    assert pair.way == pytest.approx((0.05, 0.7)) and pair.centre == (101.0, 114.0) and pair.side == 40.0
    [turned] = close_pairs([die, below], [40.0, 30.0], [WHITE, SHADED_WHITE], [0.4, 0.9])
    assert turned.way == pytest.approx((-0.05, -0.7))
    assert close_pairs([die, below], [40.0, 40.0], [WHITE, RED], [0.9, 0.4]) == []           # another colour
    assert close_pairs([die, (100.0, 145.0)], [40.0, 40.0], [WHITE, WHITE], [0.9, 0.4]) == []  # two dice side by side
    assert close_pairs([die, (104.0, 100.0)], [40.0, 40.0], [WHITE, WHITE], [0.9, 0.4]) == []  # one die found twice


def test_the_way_enough_close_pairs_agree_on_is_voted_and_scattered_ways_give_none():
    rng = np.random.default_rng(3)
    below = [(float(x), 0.7 + float(y)) for x, y in rng.uniform(-0.15, 0.15, (12, 2))]
    def ways(degrees):
        return [(0.7 * float(np.cos(np.radians(a))), 0.7 * float(np.sin(np.radians(a)))) for a in degrees]

    upwards = ways(np.linspace(190, 350, 9))   # dice lying together, at a slant to each other, above one another
    assert DEFAULT_SIDE_FACE_VOTE.agreeing == 12
    offset = voted_offset(below + upwards[:8])
    assert offset is not None and abs(offset[0]) < 0.1 and abs(offset[1] - 0.7) < 0.1
    assert voted_offset(below[:11] + upwards) is None
    assert voted_offset(ways(np.arange(0, 360, 9))) is None    # 40 pairs, every way
    seen = ClosePair((0.0, 0.7), (100.0, 114.0), 40.0)
    assert seen.same_as(ClosePair((0.02, 0.69), (103.0, 112.0), 41.0))
    assert not seen.same_as(ClosePair((0.02, 0.69), (103.0, 112.0), 41.0), SideFaceVote(same_within=0.05))  # 3.6 px > 2
    assert not seen.same_as(ClosePair((0.0, 0.7), (200.0, 114.0), 40.0))
    assert not seen.same_as(ClosePair((0.0, -0.7), (100.0, 114.0), 40.0))


def test_a_camera_at_a_slant_votes_where_its_side_faces_show_and_stops_reporting_them():
    """One camera's rolls, side faces 0.7 deep below each die: the camera reader learns "below" from its own frames
    and then reports none of them as dice, losing no die a camera without the vote reads right."""
    voting, plain = CameraReader(), CameraReader(side_face_vote=None)
    extra_with = extra_without = lost = 0
    for seed in range(60, 80):
        image, truth = slanted_tray(seed)
        with_vote, without = voting.read(image).dice, plain.read(image).dice
        if voting.side_faces is not None:
            extra_with, extra_without = extra_with + extra_finds(with_vote, truth), extra_without + extra_finds(without, truth)
            right = {(round(d.center[0]), round(d.center[1]), d.value) for d in without if extra_finds([d], truth) == 0}
            lost += len(right - {(round(d.center[0]), round(d.center[1]), d.value) for d in with_vote})
    assert voting.side_faces is not None
    offset = voting.side_faces.offset
    assert abs(offset[0]) < 0.2 and 0.5 < offset[1] < 0.9
    assert extra_without >= 4 and extra_with <= extra_without // 4 and lost == 0


def test_a_still_tray_read_again_and_again_is_one_vote_and_a_straight_camera_gets_no_side_faces():
    image, _ = slanted_tray(61)
    camera = CameraReader()
    for _ in range(40):
        camera.read(image)
    assert camera.side_faces is None
    straight, plain = CameraReader(), CameraReader(side_face_vote=None)
    for seed in range(30):     # dice of one colour touching each other, seen from straight above
        image, _ = synth.random_scene(500 + seed, count=(4, 8), colours=["white"], touching=1.0, die_size=(40, 70))
        assert straight.read(image).dice == plain.read(image).dice
    assert straight.side_faces is None


def _box_centre(label: dict) -> tuple[float, float]:
    x, y, w, h = label["bbox"]
    return x + w / 2, y + h / 2


def photo_with_a_speck() -> tuple[np.ndarray, dict, tuple[float, float], float]:
    """A byler photo of coloured dice with a small dark speck drawn on its plain table, far from every die: the
    photo, its manifest entry, the speck's place and the dice's median side."""
    entry = BYLER_ENTRIES[0]
    image = cv2.imread(str(BYLER / entry["image"]))
    side = float(np.median([max(d["bbox"][2:]) for d in entry["dice"]]))
    spot = next((float(x), float(y)) for y in range(80, image.shape[0] - 80, 20) for x in range(80, image.shape[1] - 80, 20)
                if all(np.hypot(x - cx, y - cy) > 3 * side for cx, cy in map(_box_centre, entry["dice"])))
    cv2.ellipse(image, (round(spot[0]), round(spot[1])), (3, 2), 30, 0, 360, (70, 70, 75), -1)
    return image, entry, spot, side


def test_a_speck_differs_from_the_table_on_a_few_hundredths_of_its_disc_and_a_die_on_much_more():
    """So in a dim room and under a tungsten lamp too: the share counts channels' ratios to the table's."""
    image, entry, spot, side = photo_with_a_speck()
    for seen in (image, variants.dim(image, [])[0], variants.tungsten(image, [])[0]):
        assert all(share_unlike_table(seen, _box_centre(d), max(d["bbox"][2:])) > 0.3 for d in entry["dice"])
        assert share_unlike_table(seen, spot, side) < DEFAULT_PARAMS.speck_share
    assert share_unlike_table(image, (10.0, 10.0), side) is None               # the table's ring leaves the photo


def test_an_unsure_speck_is_dropped_and_a_surer_one_or_a_real_die_stays():
    image, entry, spot, side = photo_with_a_speck()
    box = (spot[0] - side / 2, spot[1] - side / 2, side, side)
    die = entry["dice"][0]
    dice = (DieReading(1, "white", spot, box, 0.3), DieReading(1, "white", spot, box, 0.7),
            DieReading(die["value"], die["colour"], _box_centre(die), tuple(die["bbox"]), 0.3))
    assert reader._without_specks(image, dice, DEFAULT_PARAMS) == dice[1:]
    assert reader._without_specks(image, dice, replace(DEFAULT_PARAMS, speck_share=0.0)) == dice


def test_white_dice_on_the_light_grey_table_are_no_specks():
    """White dice on byler's light grey table are nearly the table's colour, but their pips, edges and shading
    differ from it on a good share of their disc: read, every one of them stays."""
    shares = []
    for entry in BYLER_ENTRIES:
        if {d["colour"] for d in entry["dice"]} != {"white"}:
            continue
        image = cv2.imread(str(BYLER / entry["image"]))
        shares += [share_unlike_table(image, _box_centre(d), max(d["bbox"][2:])) for d in entry["dice"]]
        assert len(read_frame(image).dice) == len(entry["dice"])
    assert len(shares) >= 10 and min(shares) > DEFAULT_PARAMS.speck_share
