"""A big frame whose dice lie in a small part of it is read in that part, so far-away dice are not lost."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import synth
from vision.reader import read_frame
from vision.region import detailed_region

FRAME = (3000, 4000)  # rows, columns: a phone photo
DICE = [(1, "white"), (2, "red"), (3, "blue"), (4, "green"), (5, "yellow"), (6, "black")]


def _plain_frame(seed: int) -> np.ndarray:
    """A plain grey 4000 x 3000 frame with a camera's sensor noise."""
    noise = np.random.default_rng(seed).standard_normal((*FRAME, 3), dtype=np.float32)
    return np.clip(150.0 + 3.0 * noise, 0, 255).astype(np.uint8)


def _far_tray(seed: int, die_px: float = 26.0, at: tuple[int, int] = (2600, 700)):
    """Six dice of about ``die_px`` px on a small patch of felt at ``at`` (x, y) of a plain 4000 x 3000 frame, as a
    phone held high sees them; and the truth, in the frame's pixels."""
    scene, truth = synth.render_scene(DICE, seed=seed, size=(330, 240), die_size=(55.0, 60.0), background="green_felt")
    scale = die_px / float(np.median([t.side for t in truth]))
    small = cv2.resize(scene, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    frame = _plain_frame(seed)
    x0, y0 = at
    frame[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
    return frame, [(t.value, (t.center[0] * scale + x0, t.center[1] * scale + y0), t.side * scale) for t in truth]


@pytest.mark.parametrize("seed", [3, 4])
def test_the_detailed_part_holds_every_die_and_little_else(seed):
    frame, truth = _far_tray(seed)
    x, y, w, h = detailed_region(frame)
    for _, (cx, cy), side in truth:
        assert x <= cx - side / 2 and cx + side / 2 <= x + w and y <= cy - side / 2 and cy + side / 2 <= y + h
    assert max(w, h) < 0.15 * FRAME[1]


def test_a_plain_frame_has_no_detailed_part_and_no_dice():
    frame = _plain_frame(0)
    assert detailed_region(frame) is None
    assert read_frame(frame).dice == ()


@pytest.mark.parametrize("seed", [3, 4])
def test_far_away_dice_are_read_where_they_lie(seed):
    frame, truth = _far_tray(seed)
    whole = read_frame(frame, zoom_share=0.0)
    reading = read_frame(frame)
    assert len(whole.dice) < len(truth)  # scaled down whole for the finder, the dice are a few pixels
    assert sorted(d.value for d in reading.dice) == [1, 2, 3, 4, 5, 6]
    for value, (cx, cy), side in truth:
        die = next(d for d in reading.dice if d.value == value)
        assert np.hypot(die.center[0] - cx, die.center[1] - cy) < 0.4 * side  # in the frame's pixels


def test_a_frame_full_of_dice_is_read_whole():
    frame, _ = synth.random_scene(11, count=(12, 12), size=(1920, 1080), die_size=(90.0, 110.0))
    assert max(detailed_region(frame)[2:]) > 0.5 * 1920
    assert read_frame(frame).dice == read_frame(frame, zoom_share=0.0).dice
