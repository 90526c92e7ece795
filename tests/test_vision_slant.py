"""The reader finds a slanted camera's stretch by itself (vision/view.py, reader.read_through_slant): real
photos of tests/data warped as a tilted camera sees them, and a camera's frames read one after another."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import pytest

import vision.reader
from vision.reader import DEFAULT_PARAMS, CameraReader, read_frame, read_through_slant
from vision.variants import half_turn, oblique, quarter_turn
from vision.view import STRAIGHT

BYLER = Path(__file__).parent / "data" / "byler_d6"
ENTRIES = json.loads((BYLER / "manifest.json").read_text())


def photo(index: int):
    return cv2.imread(str(BYLER / ENTRIES[index]["image"]))


@pytest.mark.parametrize(("turn", "squashed_along"), [(None, 90.0), (half_turn, 90.0), (quarter_turn, 0.0)])
def test_a_tilted_cameras_squash_is_undone_along_its_own_direction(turn, squashed_along):
    """A camera tilted 50° squashes the photo up-down (left-right when the picture is turned a quarter):
    the stretch the reader picks undoes the squash, along that direction (a photo whose stretched reading
    is not clearly surer stays as it is: one of five turned a quarter, measured)."""
    found = []
    for index in range(0, 20, 4):
        image, _ = oblique(photo(index), [])
        if turn is not None:
            image, _ = turn(image, [])
        slanted = read_through_slant(image)
        assert slanted.searched                          # squashed dice are doubted dice
        found.append(slanted.slant)
    stretched = [s for s in found if s != STRAIGHT]
    assert len(stretched) >= 4 and all(s.angle_deg == squashed_along and s.factor >= 1.3 for s in stretched), found


def test_photos_from_straight_above_are_read_as_they_are():
    """The search starts only for doubted dice, and a straight photo keeps its straight reading."""
    for index in range(0, 20, 2):
        slanted = read_through_slant(photo(index))
        assert slanted.slant == STRAIGHT
        assert [(d.value, d.center) for d in slanted.reading.dice] == \
            [(d.value, d.center) for d in read_frame(photo(index), slant_doubtful=0.0).dice]


def test_the_dice_of_a_stretched_reading_are_placed_in_the_frames_own_pixels():
    entry = ENTRIES[4]
    image, boxes = oblique(photo(4), [tuple(d["bbox"]) for d in entry["dice"]])
    slanted = read_through_slant(image)
    assert slanted.slant != STRAIGHT and len(slanted.reading.dice) == len(boxes)
    for x, y, w, h in boxes:   # every labelled die has a die read on it
        assert any(abs(d.center[0] - x - w / 2) < w / 2 and abs(d.center[1] - y - h / 2) < h / 2
                   for d in slanted.reading.dice)


def test_a_camera_reader_searches_once_and_reads_on_through_the_stretch_it_found(monkeypatch):
    frame = oblique(photo(0), [])[0]
    alone = read_frame(frame)
    searches = []
    search = vision.reader.surest_slant
    monkeypatch.setattr(vision.reader, "surest_slant", lambda *args: searches.append(1) or search(*args))
    camera = CameraReader(search_every=3)
    always_doubted = replace(DEFAULT_PARAMS, slant_doubtful=1.0)
    first = camera.read(frame, params=always_doubted)
    assert len(searches) == 1 and camera.slant.angle_deg == 90.0
    assert [(d.value, d.center) for d in first.dice] == [(d.value, d.center) for d in alone.dice]
    for _ in range(3):              # three frames read through the stretch found, without a search
        again = camera.read(frame, params=always_doubted)
        assert [(d.value, d.center) for d in again.dice] == [(d.value, d.center) for d in first.dice]
    assert len(searches) == 1
    camera.read(frame, params=always_doubted)     # then a doubted frame is searched again
    assert len(searches) == 2 and camera.slant.angle_deg == 90.0
    for _ in range(6):              # it found the same stretch: the next search waits twice as long
        camera.read(frame, params=always_doubted)
    assert len(searches) == 2
    camera.read(frame, params=always_doubted)
    assert len(searches) == 3
    straight_camera = CameraReader()
    straight_camera.read(photo(0))
    assert straight_camera.slant == STRAIGHT
