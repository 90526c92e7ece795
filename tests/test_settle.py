"""Settling: moving frames give nothing, a rest gives exactly one agreed reading."""
import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import UserError
from vision.settle import Settler, SettleSettings, dice_key
from vision.synth import render_scene
from vision.types import DieReading, Reading

FPS = 30.0


def _reading(truth, ms=5.0):
    return Reading(tuple(DieReading(t.value, t.colour, t.center, t.bbox, 1.0) for t in truth), ms=ms)


class Table:
    """Synthetic frames of a tray: dice tumbling, then lying still with fresh sensor noise each frame."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)
        self.t = 0.0
        self.truth = []
        self.image = None

    def tick(self):
        self.t += 1 / FPS
        return self.t

    def rolling(self, dice, frames=6):
        for i in range(frames):
            img, _ = render_scene(dice, seed=int(self.rng.integers(1 << 30)), size=(320, 240),
                                  die_size=(30, 40), motion_blur=6)
            yield img, self.tick()

    def resting(self, dice, frames=20, seed=1):
        self.image, self.truth = render_scene(dice, seed=seed, size=(320, 240), die_size=(30, 40))
        for _ in range(frames):
            noise = self.rng.normal(0, 2.0, self.image.shape)
            yield np.clip(self.image + noise, 0, 255).astype(np.uint8), self.tick()

    def reader(self, frame):
        """Reads what the table shows now (the truth of the resting scene)."""
        return _reading(self.truth)


def _run(settler, frames):
    return [settler.feed(frame, t) for frame, t in frames]


def test_moving_dice_give_no_reading_and_a_rest_gives_exactly_one():
    table = Table()
    calls = []
    settler = Settler(lambda f: calls.append(1) or table.reader(f))
    dice = [(3, "red"), (6, "white"), (1, "blue")]
    rolling = _run(settler, table.rolling(dice))
    assert all(e.state == "moving" and e.reading is None for e in rolling)
    assert not calls                      # no reading wasted on moving dice
    resting = _run(settler, table.resting(dice))
    readings = [e for e in resting if e.reading is not None]
    assert len(readings) == 1
    got = sorted((d.value, d.colour) for d in readings[0].reading.dice)
    assert got == sorted((t.value, t.colour) for t in table.truth)
    assert resting[-1].state == "settled"
    assert len(calls) == 2                # two agreeing readings, then it stops reading
    # the reading came after the rest period and two agreeing frames, not before
    assert 250 <= readings[0].settle_to_reading_ms <= 250 + 3 * 1000 / FPS + 5


def test_each_roll_gives_its_own_reading():
    table = Table(seed=3)
    settler = Settler(table.reader)
    got = []
    for roll, dice in enumerate([[(2, "green")], [(5, "black"), (4, "yellow")], [(1, "ivory")]]):
        events = _run(settler, list(table.rolling(dice)) + list(table.resting(dice, seed=roll)))
        got += [sorted(d.value for d in e.reading.dice) for e in events if e.reading]
    assert got == [[2], [4, 5], [1]]


def test_a_short_pause_is_not_a_rest():
    table = Table()
    settler = Settler(table.reader, SettleSettings(still_seconds=0.5))
    dice = [(4, "orange")]
    frames = list(table.rolling(dice)) + list(table.resting(dice, frames=10)) + list(table.rolling(dice))
    assert not any(e.reading for e in _run(settler, frames))   # 10 frames = 0.33 s < 0.5 s


def test_disagreeing_readings_wait_until_they_agree():
    table = Table()
    answers = iter([[(1, "red")], [(2, "red")], [(1, "red")], [(6, "red")], [(6, "red")]])

    def flaky(_frame):
        return Reading(tuple(DieReading(v, c, (10, 10), (0, 0, 5, 5), 0.5) for v, c in next(answers)))

    settler = Settler(flaky)
    events = _run(settler, list(table.rolling([(6, "red")])) + list(table.resting([(6, "red")], frames=25)))
    reported = [e.reading for e in events if e.reading]
    assert len(reported) == 1 and reported[0].dice[0].value == 6


def test_empty_tray_is_not_reported_unless_asked():
    table = Table()
    empty = [list(table.rolling([(2, "blue")])), list(table.resting([], frames=20))]
    quiet = Settler(lambda f: Reading())
    assert not any(e.reading for e in _run(quiet, empty[0] + empty[1]))
    table.truth = []
    loud = Settler(lambda f: Reading(), SettleSettings(report_empty=True))
    assert sum(1 for e in _run(loud, empty[0] + empty[1]) if e.reading) == 1


def test_a_slow_slide_counts_as_motion():
    base, _ = render_scene([(5, "white")], seed=2, size=(320, 240), die_size=(40, 40), noise_sigma=(0, 0))
    settler = Settler(lambda f: pytest.fail("read while the die was sliding"), SettleSettings(still_seconds=0.2))
    for step in range(60):           # a quarter pixel a frame: each step alone looks still
        shift = np.float32([[1, 0, 0.25 * step], [0, 1, 0]])
        frame = cv2.warpAffine(base, shift, (320, 240), borderMode=cv2.BORDER_REFLECT)
        settler.feed(frame, step / FPS)
    assert settler.state != "settled"


def test_grey_and_bad_frames():
    settler = Settler(lambda f: Reading())
    grey = np.full((120, 160), 90, np.uint8)
    assert settler.feed(grey, 0.0).state == "moving"
    assert settler.feed(grey, 0.1).state == "still"
    with pytest.raises(UserError):
        settler.feed(np.zeros((0, 0, 3), np.uint8), 0.2)
    with pytest.raises(UserError):
        SettleSettings(agreeing_readings=0)


@settings(max_examples=40)
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(0, 20)), min_size=1, max_size=6))
def test_one_reading_per_long_enough_rest(segments):
    """(moving frames, still frames) segments at 30 fps: a rest of 0.25 s plus one agreeing frame is read once."""
    rng = np.random.default_rng(len(segments))
    settler = Settler(lambda f: Reading((DieReading(int(f[0, 0]) % 6 + 1, "red", (1, 1), (0, 0, 2, 2), 1.0),)))
    t, expected, got = 0.0, 0, 0
    for moving, still in segments:
        for _ in range(moving):
            frame = rng.integers(0, 255, (48, 64), dtype=np.uint8)
            got += settler.feed(frame, t).reading is not None
            t += 1 / FPS
        # the first rest frame still differs from the last moving one: the rest starts there
        rest = np.full((48, 64), int(rng.integers(0, 255)), np.uint8)
        for _ in range(still):
            got += settler.feed(rest, t).reading is not None
            t += 1 / FPS
        # 0.25 s later (rest frame 8) comes the first reading, and the agreeing one a frame after
        expected += still >= 10
    assert got == expected


def test_with_the_real_reader_one_reading_per_rest_equal_to_reading_the_frame():
    from vision.reader import read_frame

    table = Table(seed=4)
    settler = Settler(read_frame, SettleSettings(report_empty=True))
    dice = [(5, "white"), (2, "red")]
    events = _run(settler, list(table.rolling(dice)) + list(table.resting(dice, frames=15)))
    reported = [e.reading for e in events if e.reading]
    assert len(reported) == 1
    assert dice_key(reported[0]) == dice_key(read_frame(table.image))
