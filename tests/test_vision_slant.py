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


AIBOX = Path(__file__).parent / "data" / "aibox_pi_single"


@pytest.mark.parametrize(("photo_name", "value", "keep", "squashed_along"), [
    ("20240403131758-*6182a6c64888e20ba957790e8f5e841b.jpg", 1, (1.0, 0.6), 90.0),
    ("20240403132311-*28710044568821ef27de7a77ebecf136.jpg", 5, (0.4, 1.0), 0.0),
])
def test_a_die_seen_lower_than_the_reader_knows_is_read_through_a_stretch(photo_name, value, keep, squashed_along):
    """aibox's slanted single dice squashed further (to 60 % of their height, 40 % of their width): the
    finder still sees the die surely but the reader, as the frame is, takes it for no die. Such a frame
    is searched like a doubted one, and the die is read through the stretch that undoes the squash."""
    path = next(AIBOX.glob(f"valid/dice_{value}/{photo_name}"))
    image = cv2.imread(str(path))
    image = cv2.resize(image, (round(image.shape[1] * keep[0]), round(image.shape[0] * keep[1])),
                       interpolation=cv2.INTER_AREA)
    assert read_through_slant(image, search=False).reading.dice == ()
    slanted = read_through_slant(image)
    assert slanted.searched and slanted.slant.angle_deg == squashed_along and slanted.slant.factor >= 1.3
    assert [d.value for d in slanted.reading.dice] == [value]


def test_a_frame_where_nothing_was_seen_is_not_searched_and_doubtful_dice_found_only_through_a_stretch_go():
    """The search costs 5-7 readings: an empty tray (the finder sure of nothing) is not searched, and a
    frame read with no dice gets dice from a stretch only when they are read at least ``slant_doubtful`` sure."""
    for path in sorted(AIBOX.glob("valid/background/*.jpg")):
        slanted = read_through_slant(cv2.imread(str(path)))
        assert not slanted.searched and slanted.reading.dice == ()
    image = cv2.imread(str(next(AIBOX.glob("valid/dice_1/20240403131758-*.jpg"))))
    image = cv2.resize(image, (image.shape[1], round(image.shape[0] * 0.6)), interpolation=cv2.INTER_AREA)
    found = read_through_slant(image).reading.dice[0].confidence
    too_sure_a_bar = replace(DEFAULT_PARAMS, slant_doubtful=found + 0.01)
    slanted = read_through_slant(image, params=too_sure_a_bar)
    assert slanted.searched and slanted.reading.dice == () and slanted.slant == STRAIGHT
