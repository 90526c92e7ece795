"""Work remembered while learning: identical inputs are worked out once inside the block, every time outside it,
and the answers looked up are the ones worked out again would be."""
from __future__ import annotations

import contextlib
import json
import threading
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration import learn_dice
from calibration.learn_dice import ConfirmedDie, ConfirmedRoll
from vision import pip_count, reader, remember, synth

BYLER = Path(__file__).parent / "data" / "byler_d6"


class Counted:
    """A piece of work that doubles each item's pixels' sum, and the items it was asked for."""

    def __init__(self):
        self.asked: list[int] = []

    def __call__(self, items: np.ndarray) -> np.ndarray:
        self.asked.append(len(items))
        return items.reshape(len(items), -1).sum(axis=1, keepdims=True) * 2


def stack(*values: int) -> np.ndarray:
    return np.stack([np.full((4, 4, 3), v, np.uint8) for v in values])


def test_inside_the_block_only_items_not_seen_before_are_worked_out():
    work = Counted()
    with remember.remembering():
        first = remember.per_item("sums", stack(1, 2, 2), work)
        again = remember.per_item("sums", stack(2, 3, 1), work)
    assert work.asked == [2, 1]                     # 1 and 2 (2 twice in one stack), then 3 alone
    assert np.array_equal(first, Counted()(stack(1, 2, 2)))
    assert np.array_equal(again, Counted()(stack(2, 3, 1)))


def test_outside_the_block_and_after_it_everything_is_worked_out_again():
    work = Counted()
    remember.per_item("sums", stack(1, 2), work)
    remember.per_item("sums", stack(1, 2), work)
    with remember.remembering():
        remember.per_item("sums", stack(1, 2), work)
        with remember.remembering():               # a nested block shares the outer memory ...
            remember.per_item("sums", stack(1, 2), work)
        remember.per_item("sums", stack(1, 2), work)  # ... and does not drop it when it ends
    remember.per_item("sums", stack(1, 2), work)
    assert work.asked == [2, 2, 2, 2]


def test_another_kind_of_work_and_another_thread_remember_nothing_of_it():
    work = Counted()
    with remember.remembering():
        remember.per_item("sums", stack(5), work)
        remember.per_item("other sums", stack(5), work)
        thread = threading.Thread(target=remember.per_item, args=("sums", stack(5), work))
        thread.start()
        thread.join()
        remember.once("one sum", stack(5)[0], lambda: work(stack(5)))
        remember.once("one sum", stack(5)[0], lambda: work(stack(5)))
    assert work.asked == [1, 1, 1, 1]


def test_a_frame_read_again_inside_the_block_runs_no_network_and_reads_the_same(monkeypatch):
    image, _ = synth.random_scene(3, count=(4, 6))
    runs = []
    real_net = reader._net

    class Watched:
        def __init__(self, net):
            self.net = net

        def forward(self, *layer):
            runs.append(1)
            return self.net.forward(*layer)

        def __getattr__(self, name):
            return getattr(self.net, name)

    monkeypatch.setattr(reader, "_net", lambda path: Watched(real_net(path)))
    plain = reader.read_frame(image)
    outside = len(runs)
    with remember.remembering():
        first = reader.read_frame(image)
        inside = len(runs) - outside
        second = reader.read_frame(image)
    assert outside > 0 and inside > 0 and len(runs) == outside + inside
    assert [d.to_json() for d in first.dice] == [d.to_json() for d in plain.dice]
    assert [d.to_json() for d in second.dice] == [d.to_json() for d in plain.dice]


def test_a_die_counted_again_inside_the_block_is_not_looked_at_again(monkeypatch):
    entry = json.loads((BYLER / "manifest.json").read_text())[0]
    image = cv2.imread(str(BYLER / entry["image"]))
    x, y, w, h = entry["dice"][0]["bbox"]
    counted = []
    real_count = pip_count._count_in_die_crop
    monkeypatch.setattr(pip_count, "_count_in_die_crop", lambda crop, params: counted.append(1) or real_count(crop, params))
    plain = pip_count.count_pips(image, (x + w / 2, y + h / 2), max(w, h))
    with remember.remembering():
        again = [pip_count.count_pips(image, (x + w / 2, y + h / 2), max(w, h)) for _ in range(3)]
    assert again == [plain] * 3 and len(counted) == 2


def test_learning_with_and_without_the_memory_gives_the_same_profile(monkeypatch):
    """The same lesson, every answer worked out afresh: the same slant, thresholds, palette and face layer."""
    entries = json.loads((BYLER / "manifest.json").read_text())[:3]
    rolls = []
    for entry in entries:
        image = cv2.imread(str(BYLER / entry["image"]))
        rolls.append(ConfirmedRoll(image, tuple(
            ConfirmedDie((x + w / 2, y + h / 2), max(w, h), d["value"], d["colour"])
            for d in entry["dice"] for x, y, w, h in [d["bbox"]])))
    remembered = learn_dice.learn_my_dice(rolls)
    monkeypatch.setattr(learn_dice, "remembering", contextlib.nullcontext)
    afresh = learn_dice.learn_my_dice(rolls)
    assert remembered.palette == afresh.palette
    mine, theirs = remembered.my_dice, afresh.my_dice
    assert (mine.faces is None) == (theirs.faces is None)
    if mine.faces is not None:
        assert np.array_equal(mine.faces.weights, theirs.faces.weights)
    assert replace(mine, faces=None) == replace(theirs, faces=None)
