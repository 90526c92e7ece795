"""Benchmark of "learn my dice" (:mod:`calibration.learn_dice`), for ``companion bench learn``.

A player's set is played here by the public sets' held-out photos (``shared/datasets/``), as they
are and as a new table would show them (:mod:`vision.variants`: a slanted camera, a dim room, a
tungsten lamp), in groups of :data:`ROLLS` photos: the rolls one player confirms.  Each photo is
confirmed as the player would confirm it: the reader's finds that pair with a label keep their
place and take the label's value and colour, finds that pair with none are struck out, missed
dice with a labelled box are added where they lie, as big as the app makes a die tapped in.  Within
each group every roll is left out in turn, the rest learnt from, and the left-out roll read before
and after.  :func:`symbol_face_learnt` does the same with rendered sets whose 6 bears a maker's symbol, which
no public photo shows, and :func:`side_faces_learnt` with rendered rolls seen by a camera from low down, whose
side faces the reader takes for extra dice.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import replace

import cv2
import numpy as np

from calibration.learn_dice import (
    ConfirmedDie,
    ConfirmedRoll,
    RollScore,
    added_die_side,
    learn_my_dice,
    leave_one_roll_out,
    paired,
)
from vision import public_sets, synth, variants
from vision.image_files import load_scaled_image
from vision.reader import read_frame

ROLLS = 5
"""Rolls a player confirms to teach the reader their dice."""
STEEP = "60° oblique"
"""A camera tilted further than the robustness table's: the reader misses dice outright, which the player adds."""
CONDITIONS = ("untouched", "50° oblique", STEEP, "40 % brightness", "tungsten light")


def _variant(condition: str, die_side: float):
    """The picture change for ``condition``: a robustness row of :mod:`vision.variants`, or :data:`STEEP`."""
    if condition == STEEP:
        return lambda image, boxes, rng: variants.oblique(image, boxes, rng, tilt_deg=60.0)
    return variants.variants(die_side)[condition]


def confirmed_rolls(name: str, condition: str, count: int, seed: int = 0) -> list[ConfirmedRoll]:
    """The first ``count`` held-out photos of set ``name`` under ``condition``, confirmed as a player would."""
    match = public_sets.score_module().match
    rng = np.random.default_rng(seed)
    rolls = []
    for entry in public_sets.split(public_sets.load_manifest(name))[1][:count]:
        image, scale = load_scaled_image(public_sets.datasets_dir() / name / entry["image"])
        boxes = [None if d.get("bbox") is None else tuple(v * scale for v in d["bbox"]) for d in entry["dice"]]
        untouched = read_frame(image)
        side = float(np.median([d.bbox[2] for d in untouched.dice])) if untouched.dice else min(image.shape[:2]) / 8
        if condition != "untouched":
            image, boxes = _variant(condition, side)(image, boxes, rng)
        reading = read_frame(image)
        labels = [{**d, "bbox": None if b is None else list(b)} for d, b in zip(entry["dice"], boxes)]
        pairs = dict(match(labels, [d.to_json() for d in reading.dice]))
        dice, added_side = [], added_die_side([d.bbox[2] for d in reading.dice], image.shape)
        for i, label in enumerate(labels):
            if i in pairs:
                found = reading.dice[pairs[i]]
                dice.append(ConfirmedDie(found.center, found.bbox[2], label["value"], label.get("colour")))
            elif label["bbox"] is not None:
                x, y, w, h = label["bbox"]
                dice.append(ConfirmedDie((x + w / 2, y + h / 2), added_side, label["value"], label.get("colour")))
        rolls.append(ConfirmedRoll(image, tuple(dice)))
    return rolls


def _figures(score: RollScore) -> dict:
    return {"dice": score.dice, "die_acc": round(score.die_acc, 4), "colour_acc": round(score.colour_acc, 4),
            "missed": score.missed, "extra": score.extra}


def learn_my_dice_gain(sets=public_sets.SETS, conditions=CONDITIONS, groups: int = 3, threads: int = 1) -> dict:
    """``{set: {condition: {"before", "after", "learn_seconds"}}}``: leave-one-roll-out within ``groups``
    groups of :data:`ROLLS` held-out photos per set and condition, and the median processor time (one
    thread, so the machine's other load does not count) to learn from :data:`ROLLS` rolls."""
    reason = public_sets.missing([public_sets.score_tool(), *(public_sets.manifest_path(n) for n in sets)])
    if reason:
        return public_sets.skipped("learn my dice on labelled photos", reason)
    cv2.setNumThreads(threads)
    out: dict = {}
    for name in sets:
        for condition in conditions:
            rolls = confirmed_rolls(name, condition, groups * ROLLS)
            before = after = RollScore(0, 0, 0, 0, 0)
            seconds = []
            for start in range(0, len(rolls) - ROLLS + 1, ROLLS):
                group = rolls[start:start + ROLLS]
                result = leave_one_roll_out(group)
                before, after = before + result.before, after + result.after
                clock = time.process_time()
                learn_my_dice(group)
                seconds.append(time.process_time() - clock)
            out.setdefault(name, {})[condition] = {"before": _figures(before), "after": _figures(after),
                                                   "learn_seconds": round(statistics.median(seconds), 2)}
    return out


def symbol_set_rolls(kind: str, count: int, seed: int = 0) -> list[ConfirmedRoll]:
    """``count`` rendered rolls of one set whose 6 bears a ``kind`` symbol (:data:`vision.synth.SYMBOL_KINDS`; no 1s,
    which would bear it too), on one table, confirmed as a player would (as :func:`confirmed_rolls`)."""
    rng = np.random.default_rng(seed)
    colour, table = str(rng.choice(list(synth.DIE_COLOURS))), str(rng.choice(list(synth.BACKGROUNDS)))
    side = float(rng.uniform(40, 90))  # one set under one camera: its dice are one size in every roll
    rolls = []
    for i in range(count):
        values = rng.choice([2, 3, 4, 5, 6], int(rng.integers(4, 9)))
        image, truth = synth.render_scene([(int(v), colour) for v in values], seed=seed * 100 + i, background=table,
                                          die_size=(side, side * 1.1), symbol_faces=1.0, symbol_kinds=(kind,))
        rolls.append(confirmed_rendering(image, truth))
    return rolls


def confirmed_rendering(image: np.ndarray, truth) -> ConfirmedRoll:
    """A rendered roll confirmed as a player would: dice read keep their place and size, missed ones are added
    where they lie, as big as the app makes a die tapped in (as :func:`confirmed_rolls`)."""
    rendered = ConfirmedRoll(image, tuple(ConfirmedDie(t.center, t.side, t.value, t.colour) for t in truth))
    reading = read_frame(image)
    found = {n: reading.dice[j] for n, j in paired(reading, rendered)}
    added_side = added_die_side([d.bbox[2] for d in reading.dice], image.shape)
    return ConfirmedRoll(image, tuple(
        replace(die, center=found[n].center, side=found[n].bbox[2]) if n in found else replace(die, side=added_side)
        for n, die in enumerate(rendered.dice)))


def symbol_face_learnt(sets_per_kind: int = 2, threads: int = 1) -> dict:
    """``{kind: {"before", "after", "learnt_as_six"}}``: leave-one-roll-out on rendered sets whose 6 bears a symbol,
    :data:`ROLLS` rolls a set, and in how many of the sets learning from all the rolls took the symbol for a 6."""
    cv2.setNumThreads(threads)
    out: dict = {}
    for k, kind in enumerate(synth.SYMBOL_KINDS):
        before = after = RollScore(0, 0, 0, 0, 0)
        sixes = 0
        for n in range(sets_per_kind):
            rolls = symbol_set_rolls(kind, ROLLS, seed=1000 + 10 * k + n)
            result = leave_one_roll_out(rolls)
            before, after = before + result.before, after + result.after
            sixes += learn_my_dice(rolls).my_dice.symbol_value == 6
        out[kind] = {"before": _figures(before), "after": _figures(after), "learnt_as_six": f"{sixes} of {sets_per_kind}"}
    return out


#: The cameras of :func:`side_faces_learnt`: (the way side faces show from the top face in degrees, 90 = down the
#: picture; how deep, in die sides): a camera held upright, and tilted ones, from low down to very low.
SLANTED_CAMERAS = ((90.0, 0.45), (90.0, 0.7), (30.0, 0.5), (200.0, 0.8), (300.0, 0.6), (135.0, 0.9))


def slanted_camera_rolls(camera: int, count: int) -> list[tuple[np.ndarray, list]]:
    """``count`` rendered rolls (image, truth) seen by camera number ``camera`` of :data:`SLANTED_CAMERAS`: one
    table, one set of three colours and one die size in the picture, side faces as deep in every roll."""
    direction, depth = SLANTED_CAMERAS[camera]
    rng = np.random.default_rng(3000 + camera)
    table = str(rng.choice(list(synth.BACKGROUNDS)))
    colours = [str(c) for c in rng.choice(list(synth.DIE_COLOURS), 3, replace=False)]
    side = float(rng.uniform(40, 90))
    return [synth.random_scene(3000 + 100 * camera + i, count=(2, 6), colours=colours, background=table,
                               die_size=(side, side * 1.1), slanted_view=1.0, slant=(depth, depth),
                               slant_direction_deg=direction) for i in range(count)]


def side_faces_learnt(rolls_per_camera: int = 2 * ROLLS, threads: int = 1) -> dict:
    """``{camera: {"before", "after", "learnt"}}``: leave-one-roll-out on rendered rolls seen by each of
    :data:`SLANTED_CAMERAS` (one table, one set of dice and so one size in the picture per camera, side faces as
    deep in every roll) in groups of :data:`ROLLS`, and the side-face offset learnt from the first group."""
    cv2.setNumThreads(threads)
    out: dict = {}
    for k, (direction, depth) in enumerate(SLANTED_CAMERAS):
        rolls = [confirmed_rendering(*scene) for scene in slanted_camera_rolls(k, rolls_per_camera)]
        before = after = RollScore(0, 0, 0, 0, 0)
        for start in range(0, len(rolls) - ROLLS + 1, ROLLS):
            result = leave_one_roll_out(rolls[start:start + ROLLS])
            before, after = before + result.before, after + result.after
        offset = learn_my_dice(rolls[:ROLLS]).my_dice.side_face_offset
        out[f"side faces {depth:g} deep at {direction:g}°"] = {
            "before": _figures(before), "after": _figures(after),
            "learnt": "none" if offset is None else f"({offset[0]:+.2f}, {offset[1]:+.2f}) sides"}
    return out
