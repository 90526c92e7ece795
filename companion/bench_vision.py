"""Benchmarks of the dice reader, for ``companion bench vision``.

- :func:`speed`: median ms per frame at 640x480, 1920x1080 and 4032x3024 with one OpenCV
  thread, on synthetic trays, a frame searched for the camera's slant, and the extra cost of each die;
- :func:`accuracy`: the ``score_dice.py`` figures on each public photo set, on its held-out
  part (never trained on) and on the whole set (left out, with a one-line note on stderr,
  when the sets are not beside the repository);
- :func:`synthetic`: the share of synthetic frames read entirely right at default settings;
- :func:`symbol_faces`: what the reader does with dice showing a maker's symbol instead of a 1 or a 6;
- :func:`robustness`: die_acc and colour_acc on each public set's held-out photos made harder
  (:mod:`vision.variants`: turned, resized, JPEG, dim, tungsten, oblique, tiny dice in a big frame),
  without a calibration profile, beside the untouched photos;
- :func:`false_positives`: dice reported on pictures without any die (:mod:`vision.synth_negatives`);
- :func:`real_pictures_without_dice`: the same on real photos without dice (``tests/data/no_dice``);
- :func:`side_faces_voted`: one camera's frames read with and without :class:`vision.reader.CameraReader`'s vote on
  where the camera shows side faces (rendered slanted cameras; each public set in shooting order).
"""
from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

import cv2
import numpy as np

from vision import public_sets, variants
from vision.image_files import load_scaled_image
from vision.reader import CameraReader, read_file, read_frame, read_through_slant
from vision.top_face import DEFAULT_SIDE_FACE_VOTE

SPEED_SIZES = ((640, 480), (1920, 1080), (4032, 3024))  # a webcam, a 1080p camera, a phone photo
SPEED_DICE = (6, 20)


def synthetic_frame(size, n_dice: int, seed: int, die_size: tuple[int, int] | None = None):
    """A rendered tray of ``size`` with ``n_dice`` dice showing 1, 2, ... 6, 1, ... and its truth; the dice are
    ``die_size`` px across (default: a 21st to an 11th of the frame's width, as a camera framing a tray sees them)."""
    from vision import synth

    die_size = die_size or (round(size[0] / 21), round(size[0] / 11))
    return synth.render_scene([(1 + i % 6) for i in range(n_dice)], seed=seed, size=size, die_size=die_size)


def speed(repeats: int = 15, threads: int = 1) -> dict:
    """Median ms per frame by frame size with 6 and with 20 dice, as a camera's frames are read (through
    the stretch the first frame's slant search left: :class:`vision.reader.CameraReader`); the median ms
    of a frame whose doubted dice start a slant search, by frame size with 6 dice, where the frame starts one;
    and ms per extra die (from 1 vs 12 dice at 640x480)."""
    cv2.setNumThreads(threads)
    out: dict = {"threads": threads, "load_average_before": round(os.getloadavg()[0], 2)}
    for size in SPEED_SIZES:
        for n_dice in SPEED_DICE:
            frame, _ = synthetic_frame(size, n_dice, seed=11)
            camera = CameraReader(search_every=repeats + 1)
            camera.read(frame)
            times = [camera.read(frame).ms for _ in range(repeats)]
            out[f"median_ms_{size[0]}x{size[1]}_{n_dice}_dice"] = round(statistics.median(times), 2)
            if n_dice == SPEED_DICE[0]:
                searches = [read_through_slant(frame) for _ in range(max(3, repeats // 5))]
                if all(s.searched for s in searches):
                    out[f"search_ms_{size[0]}x{size[1]}_{n_dice}_dice"] = round(
                        statistics.median(s.reading.ms for s in searches), 2)
    by_count = {}
    for n in (1, 12):
        frame, _ = synthetic_frame((640, 480), n, seed=12)
        camera = CameraReader(search_every=repeats + 1)
        camera.read(frame)
        by_count[n] = statistics.median(camera.read(frame).ms for _ in range(repeats))
    out["ms_per_die"] = round((by_count[12] - by_count[1]) / 11, 3)
    out["load_average_after"] = round(os.getloadavg()[0], 2)  # other work on the machine slows every figure
    return out


def predictions(name: str, entries: list[dict], threads: int = 1) -> list[dict]:
    """The reader's JSON lines for the given manifest entries of a public set."""
    cv2.setNumThreads(threads)
    root = public_sets.datasets_dir() / name
    return [read_file(root / e["image"]).to_json() for e in entries]


def accuracy(sets=public_sets.SETS, threads: int = 1) -> dict:
    """score_dice figures per public set: ``{set: {"held_out": {...}, "all": {...}}}``, each with
    ``wrong_unflagged`` (:func:`wrong_unflagged`)."""
    score = public_sets.score_module().score
    out = {}
    for name in sets:
        manifest = public_sets.load_manifest(name)
        _, held = public_sets.split(manifest)
        preds = predictions(name, manifest, threads)
        held_images = {e["image"] for e in held}
        held_preds = [p for p, e in zip(preds, manifest) if e["image"] in held_images]
        out[name] = {part: {**score(labels, part_preds, {}), "wrong_unflagged": wrong_unflagged(score, labels, part_preds)}
                     for part, labels, part_preds in (("held_out", held, held_preds), ("all", manifest, preds))}
    return out


def wrong_unflagged(score, labels: list[dict], preds: list[dict]) -> int:
    """How many labelled dice the reader gives a wrong value without flagging it (a silent guess): scored by
    ``score`` (score_dice's) on ``preds`` without the dice whose value is flagged unsure."""
    unflagged = [{**p, "dice": [d for d in p["dice"] if "value" not in d.get("unsure", ())]} for p in preds]
    figures = score(labels, unflagged, {})
    if not figures.get("dice"):
        return 0
    return round(figures["dice"] * ((figures["recall"] or 0.0) - (figures["die_acc"] or 0.0)))


def synthetic(frames: int = 1000, seed: int = 0) -> dict:
    """Share of synthetic frames (random trays, hard cases included) whose every die is found and read right."""
    from vision import synth

    right = dice_right = dice_total = 0
    start = time.perf_counter()
    for i in range(frames):
        kwargs = {"touching": 0.3, "glare": 0.3, "coloured_pips": 0.3} if i % 2 else {}
        image, truth = synth.random_scene(seed + i, **kwargs)
        reading = read_frame(image)
        found = match_truth(truth, reading.dice)
        dice_total += len(truth)
        dice_right += found
        right += found == len(truth) == len(reading.dice)
    return {"frames": frames, "frame_acc": round(right / frames, 4), "die_acc": round(dice_right / max(dice_total, 1), 4),
            "seconds": round(time.perf_counter() - start, 1)}


def symbol_faces(frames: int = 100, seed: int = 0) -> dict:
    """Dice whose top face shows a symbol instead of pips (:mod:`vision.synth` ``symbol_faces``), on random trays:
    how many the reader reads as a symbol, gives a number (flagged unsure, or not: a silent guess), reports without a
    number otherwise, or does not report at all."""
    from vision import synth

    counts = {"symbol_dice": 0, "read_as_symbol": 0, "given_a_number_flagged": 0, "given_a_number_unflagged": 0,
              "reported_without_number": 0, "not_reported": 0}
    for i in range(frames):
        image, truth = synth.random_scene(seed + i, symbol_faces=1.0)
        dice = read_frame(image).dice
        for t in (t for t in truth if t.symbol):
            counts["symbol_dice"] += 1
            off = {d: np.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1]) for d in dice}
            die = min((d for d in dice if off[d] < 0.5 * t.side), key=off.get, default=None)
            counts["not_reported" if die is None else "read_as_symbol" if die.symbol
                   else "reported_without_number" if die.value is None
                   else "given_a_number_flagged" if die.value_unsure else "given_a_number_unflagged"] += 1
    return counts


def match_truth(truth, dice) -> int:
    """How many true dice have a distinct reading within half a side of their centre with the right value."""
    used: set[int] = set()
    right = 0
    for t in truth:
        for j, d in enumerate(dice):
            if j not in used and np.hypot(d.center[0] - t.center[0], d.center[1] - t.center[1]) < 0.5 * t.side:
                used.add(j)
                right += d.value == t.value
                break
    return right


def robustness(sets=public_sets.SETS, threads: int = 1, seed: int = 0) -> dict:
    """``{set: {row: {"die_acc", "colour_acc", "recall", "precision"}}}``: score_dice figures on each set's
    held-out photos untouched and as each of :func:`vision.variants.variants`.

    The tiny-dice row shrinks each photo by the size of the dice the reader finds on it untouched (else its
    labels' boxes, else an eighth of its short side), so that its dice come out 12-16 px.  Each set draws from a
    generator of its own, seeded with ``seed``, so that its rows are the same measured alone or with the others."""
    cv2.setNumThreads(threads)
    score = public_sets.score_module().score
    out: dict = {}
    for name in sets:
        rng = np.random.default_rng(seed)
        entries = public_sets.split(public_sets.load_manifest(name))[1]
        table: dict[str, tuple[list, list]] = {}
        for n, entry in enumerate(entries):
            image, scale = load_scaled_image(public_sets.datasets_dir() / name / entry["image"])
            boxes = [None if d.get("bbox") is None else tuple(v * scale for v in d["bbox"]) for d in entry["dice"]]
            untouched = read_frame(image)
            _add_row(table, "untouched", n, entry, boxes, untouched)
            for row, variant in variants.variants(_die_side(untouched, boxes, image)).items():
                changed, changed_boxes = variant(image, boxes, rng)
                _add_row(table, row, n, entry, changed_boxes, read_frame(changed))
        out[name] = {row: {key: figures[key] for key in ("die_acc", "colour_acc", "recall", "precision")}
                     for row, figures in ((row, score(labels, preds, {})) for row, (labels, preds) in table.items())}
    return out


def false_positives(count: int = 30, seed: int = 0, threads: int = 1) -> dict:
    """Dice reported on ``count`` pictures without dice (text, checkerboards, tokens, coins, cubes, pip
    prints, stains): in all, per kind, and on how many pictures (goal: at most one die in 30 pictures)."""
    from vision.synth_negatives import negative_set

    cv2.setNumThreads(threads)
    by_kind: dict[str, int] = {}
    pictures_with_dice = 0
    for kind, image in negative_set(count, seed):
        found = len(read_frame(image).dice)
        by_kind[kind] = by_kind.get(kind, 0) + found
        pictures_with_dice += found > 0
    return {"pictures": count, "dice_reported": sum(by_kind.values()), "pictures_with_dice": pictures_with_dice,
            "by_kind": by_kind}


def side_faces_voted(rolls: int = 20, threads: int = 1) -> dict:
    """``{camera or set: {"without_vote", "with_vote", "voted_from"}}``: ``rolls`` rendered rolls of each of
    :data:`calibration.bench_learn.SLANTED_CAMERAS` (as ``side_faces_learnt`` renders them), and each public set's
    photos in shooting order (when the sets are there), each read through one camera reader without and with its
    side-face vote; dice read right and dice reported (synthetic) or score_dice's figures (public), and the first
    roll after which a way was voted (None: never)."""
    from calibration.bench_learn import SLANTED_CAMERAS, slanted_camera_rolls

    cv2.setNumThreads(threads)
    out: dict = {}
    for k, (direction, depth) in enumerate(SLANTED_CAMERAS):
        scenes = slanted_camera_rolls(k, rolls)
        row: dict = {}
        for vote in (None, DEFAULT_SIDE_FACE_VOTE):
            read, voted = _through_one_camera(((image, 1.0) for image, _ in scenes), vote)
            row["with_vote" if vote else "without_vote"] = {
                "dice": sum(len(truth) for _, truth in scenes),
                "right": sum(match_truth(truth, dice) for (_, truth), dice in zip(scenes, read)),
                "reported": sum(len(dice) for dice in read)}
        row["voted_from"] = voted
        out[f"side faces {depth:g} deep at {direction:g}°"] = row
    reason = public_sets.missing()
    if reason:
        out["public sets"] = public_sets.skipped("the side-face vote on the public sets", reason)
        return out
    score = public_sets.score_module().score
    for name in public_sets.SETS:
        entries = public_sets.load_manifest(name)
        row = {}
        for vote in (None, DEFAULT_SIDE_FACE_VOTE):
            read, voted = _through_one_camera(
                (load_scaled_image(public_sets.datasets_dir() / name / entry["image"]) for entry in entries), vote)
            figures = score(entries, [{"image": entry["image"], "dice": [d.to_json() for d in dice]}
                                      for entry, dice in zip(entries, read)], {})
            row["with_vote" if vote else "without_vote"] = {key: figures[key] for key in
                                                             ("die_acc", "precision", "recall", "image_acc")}
        row["voted_from"] = voted
        out[name] = row
    return out


def _through_one_camera(frames, vote) -> tuple[list[list], int | None]:
    """Each (frame, scale) of ``frames`` read in turn by one camera reader with side-face vote ``vote`` (None: no
    vote): each frame's dice, in the pixels of the file the frame was scaled from, and the frame after which a way
    was first voted (None: never)."""
    camera, read, voted = CameraReader(side_face_vote=vote), [], None
    for n, (frame, scale) in enumerate(frames):
        read.append([die.scaled(1.0 / scale) for die in camera.read(frame).dice])
        voted = n if voted is None and camera.side_faces is not None else voted
    return read, voted


NO_DICE_PHOTOS = Path(__file__).resolve().parents[1] / "tests" / "data" / "no_dice"


def real_pictures_without_dice(folder: Path = NO_DICE_PHOTOS, threads: int = 1) -> dict:
    """Dice reported on real photos without any die (a cat, a coffee cup, coins, printed text, the Hubble deep
    field...: ``folder``'s ATTRIBUTION.md): in all, per photo, and on how many photos."""
    photos = sorted(folder.glob("*.jpg"))
    if not photos:
        return public_sets.skipped("dice on real photos without dice", f"no photos in {folder}")
    cv2.setNumThreads(threads)
    by_photo = {path.name: len(read_file(path).dice) for path in photos}
    return {"pictures": len(photos), "dice_reported": sum(by_photo.values()),
            "pictures_with_dice": sum(n > 0 for n in by_photo.values()), "by_photo": by_photo}


def _die_side(reading, boxes, image) -> float:
    sides = [d.bbox[2] for d in reading.dice] or [max(b[2:]) for b in boxes if b is not None]
    return float(np.median(sides)) if sides else min(image.shape[:2]) / 8.0


def _add_row(rows: dict, row: str, n: int, entry: dict, boxes, reading) -> None:
    """One photo's labels (with ``boxes``) and reading, under a name of its own, into ``rows[row]``."""
    image = f"{n:05d}.png"
    dice = [{**d, "bbox": None if b is None else list(b)} for d, b in zip(entry["dice"], boxes)]
    labels, preds = rows.setdefault(row, ([], []))
    labels.append({"image": image, "dice": dice})
    preds.append({**reading.to_json(), "image": image})


def run_all() -> dict:
    """Every vision benchmark: speed, public-set accuracy and robustness (when the sets are there),
    synthetic accuracy."""
    reason = public_sets.missing()
    skipped = public_sets.skipped("vision accuracy on the public photo sets", reason) if reason else None
    return {"speed": speed(), "accuracy": skipped or accuracy(), "robustness": skipped or robustness(),
            "false_positives": false_positives(), "real_pictures_without_dice": real_pictures_without_dice(),
            "side_faces_voted": side_faces_voted(),
            "synthetic": synthetic(), "symbol_faces": symbol_faces()}


if __name__ == "__main__":
    import json
    import sys

    from companion.errors import CompanionError

    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    try:
        result = {"speed": speed, "accuracy": accuracy, "synthetic": synthetic, "robustness": robustness,
                  "false_positives": false_positives, "real_pictures_without_dice": real_pictures_without_dice,
                  "side_faces_voted": side_faces_voted,
                  "symbol_faces": symbol_faces, "all": run_all}[which]()
    except CompanionError as exc:
        sys.exit(f"bench_vision: {exc}")
    print(json.dumps(result, indent=1))
