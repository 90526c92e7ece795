"""A die seen from low down is read on its top face (vision/top_face.py, reader._top_face_look): its outline
measured against the table, the look at each end of a long outline, and a real photo of a 1 whose side faces
show a 2, a 3 and a 4."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.reader import read_file, read_frame
from vision.top_face import die_outline, top_face_looks

AIBOX = Path(__file__).parent / "data" / "aibox_pi_single"
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
