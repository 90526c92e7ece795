"""Benchmarks of calibration, for ``companion bench``: each function returns a dict of figures.

- :func:`labelled_palette`: a palette learnt from a labelled set (every 4th photo held back),
  scored by ``shared/tools/score_dice.py`` on the labelled boxes, and through the real reader;
- :func:`colour_cast`: colour accuracy on photos given a strong lamp cast, with and without
  the tray's white balance;
- :func:`homography`: millimetre error of the marker homography on synthetic slanted trays;
- :func:`prepare_speed`: time to flatten and white-balance one frame.

The first two need the labelled photos and the scorer (``shared/``); without them
:func:`run_all` leaves them out with a one-line note on stderr.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from calibration.labelled import (
    HOLDOUT_EVERY,
    colour_accuracy,
    labelled_dice,
    learn_from_manifest,
    load_manifest,
    read_image,
    split_held_back,
)
from calibration.profile import Profile, TraySettings, load_profile
from calibration.tray import TrayLayout, detect_markers, homography_from_markers, map_points, render_tray
from calibration.white_balance import WhiteBalance
from companion.errors import CompanionError
from companion.safe_files import check_output_path, write_atomically
from vision import public_sets
from vision.colour import die_colour_features

DEFAULT_MANIFEST = public_sets.manifest_path("byler_d6")

#: Lamp casts applied to real photos: per-channel (B, G, R) gain, then a gamma.
CASTS = {
    "warm lamp": ((0.55, 0.8, 1.0), 1.0),
    "cool daylight": ((1.0, 0.88, 0.65), 1.0),
    "dim": ((0.4, 0.4, 0.4), 1.15),
}


def apply_cast(image: np.ndarray, gains_bgr, gamma: float) -> np.ndarray:
    """The photo as a lamp of this colour and brightness would have given it."""
    scaled = np.clip(image.astype(np.float32) / 255.0 * np.asarray(gains_bgr, np.float32), 0, 1) ** gamma
    return np.round(scaled * 255).astype(np.uint8)


def box_predictions(manifest: Path, entries: list[dict], palette, balance: WhiteBalance) -> list[dict]:
    """Prediction lines in score_dice.py's format: each labelled box with the colour the palette
    gives it after white balance, and no value (the die finder is not part of this figure)."""
    root = manifest.parent
    lines = []
    for entry in entries:
        image = balance.correct(read_image(root, entry))
        dice = []
        for die in entry.get("dice", []):
            if not die.get("bbox"):
                continue
            x, y, w, h = die["bbox"]
            colour, _ = palette.classify(die_colour_features(image, die["bbox"]))
            dice.append({"value": None, "colour": colour, "center": [x + w / 2, y + h / 2], "bbox": die["bbox"],
                         "confidence": 1.0})
        lines.append({"image": entry["image"], "dice": dice})
    return lines


def score_boxes(manifest: Path, entries: list[dict], palette, balance: WhiteBalance) -> dict:
    """score_dice.py's figures for colours read on the labelled boxes."""
    return public_sets.score_module().score(entries, box_predictions(manifest, entries, palette, balance), {})


def score_reader(manifest: Path, entries: list[dict], profile: Profile, transform=None) -> dict:
    """score_dice.py's figures for the real reader given the profile (white balance and palette),
    on the photos as they are or after ``transform`` (e.g. a lamp's cast)."""
    from vision.reader import read_frame

    root = manifest.parent
    lines = []
    for entry in entries:
        image = read_image(root, entry)
        if transform is not None:
            image = transform(image)
        reading = read_frame(profile.white_balance.correct(image), palette=profile.palette)
        lines.append({**reading.to_json(), "image": entry["image"]})
    return public_sets.score_module().score(entries, lines, {})


def labelled_palette(manifest: str | Path = DEFAULT_MANIFEST, holdout_every: int = HOLDOUT_EVERY) -> dict:
    """Learn from a labelled set and report colour accuracy: whole set, held-back split, via the reader."""
    manifest = Path(manifest)
    start = time.perf_counter()
    result = learn_from_manifest(manifest, holdout_every)
    learn_seconds = time.perf_counter() - start
    entries = load_manifest(manifest)
    _, held = split_held_back(entries, holdout_every)
    profile = replace(Profile(), white_balance=result.white_balance, palette=result.palette)
    whole = score_boxes(manifest, entries, result.palette, result.white_balance)
    held_score = score_boxes(manifest, held, result.palette, result.white_balance)
    reader = score_reader(manifest, entries, profile)
    reader_held = score_reader(manifest, held, profile)
    return {
        "manifest": str(manifest),
        "shades": len(result.palette.colours),
        "learn_seconds": round(learn_seconds, 1),
        "colour_acc_whole_set_boxes": whole["colour_acc"],
        "colour_acc_held_back_boxes": held_score["colour_acc"],
        "held_back_images": len(held),
        "held_back_dice": held_score["colour_labelled"],
        "reader_recall": reader["recall"],
        "reader_colour_acc": reader["colour_acc"],
        "reader_colour_paired": reader["colour_labelled"],
        "reader_colour_acc_held_back": reader_held["colour_acc"],
        "reader_colour_paired_held_back": reader_held["colour_labelled"],
        "too_close": [s.colour for s in result.separation if s.too_close],
    }


def colour_cast(manifest: str | Path = DEFAULT_MANIFEST, holdout_every: int = HOLDOUT_EVERY,
                through_reader: bool = True) -> dict:
    """Colour accuracy on the whole set, originals and each cast, with the tray's white balance
    and without it (each palette learnt from the originals): on the labelled boxes, and (with
    ``through_reader``) as score_dice.py scores the real reader."""
    manifest = Path(manifest)
    root = manifest.parent
    entries = load_manifest(manifest)
    out: dict = {"manifest": str(manifest), "casts": {k: {"gains_bgr": g, "gamma": y} for k, (g, y) in CASTS.items()}}
    for label, balanced in (("with_white_balance", True), ("without_white_balance", False)):
        result = learn_from_manifest(manifest, holdout_every, white_balance=balanced)
        balance = result.white_balance
        profile = replace(Profile(), white_balance=balance, palette=result.palette)
        casts = {"original": None, **{name: (lambda img, g=g, y=y: apply_cast(img, g, y))
                                      for name, (g, y) in CASTS.items()}}
        figures: dict = {}
        for name, transform in casts.items():
            row = {"boxes": colour_accuracy(result.palette, labelled_dice(root, entries, balance, transform))}
            if through_reader:
                row["reader"] = score_reader(manifest, entries, profile, transform)["colour_acc"]
            figures[name] = {k: None if v is None else round(v, 4) for k, v in row.items()}
        for kind in figures["original"]:
            losses = [figures["original"][kind] - figures[c][kind] for c in CASTS
                      if figures["original"][kind] is not None and figures[c][kind] is not None]
            figures[f"worst_loss_{kind}"] = round(max(losses), 4) if losses else None
        out[label] = figures
    return out


def homography(slants: int = 12, seed: int = 0) -> dict:
    """Worst and mean error (mm) of tray points mapped by the marker homography, over random slanted views."""
    layout = TrayLayout(300.0, 200.0, 30.0)
    px_per_mm = 4.0
    top = render_tray(layout, px_per_mm)
    rng = np.random.default_rng(seed)
    xs, ys = np.meshgrid(np.arange(0, 301, 10.0), np.arange(0, 201, 10.0))
    grid = np.column_stack([xs.ravel(), ys.ravel()])
    errors, found_all, times = [], 0, []
    base = np.float32([[240, 180], [1040, 180], [1040, 780], [240, 780]])
    for _ in range(slants):
        corners = base + rng.uniform(-90, 90, base.shape).astype(np.float32)
        mm_to_photo = cv2.getPerspectiveTransform(layout.corners_mm().astype(np.float32), corners)
        photo = cv2.warpPerspective(top, mm_to_photo @ np.diag([1 / px_per_mm, 1 / px_per_mm, 1.0]), (1280, 960),
                                    flags=cv2.INTER_AREA, borderValue=(70, 70, 70))
        photo = np.clip(photo + rng.normal(0, 3.0, photo.shape), 0, 255).astype(np.uint8)
        start = time.perf_counter()
        found = detect_markers(photo, layout.dictionary)
        times.append((time.perf_counter() - start) * 1000)
        if not all(i in found for i in layout.marker_ids):
            continue
        found_all += 1
        to_mm = homography_from_markers(found, layout)
        seen = map_points(mm_to_photo, grid)
        errors.append(np.linalg.norm(map_points(to_mm, seen) - grid, axis=1))
    flat = np.concatenate(errors) if errors else np.array([np.nan])
    return {"views": slants, "all_markers_found": found_all, "max_error_mm": round(float(flat.max()), 3),
            "mean_error_mm": round(float(flat.mean()), 3), "median_detect_ms": round(float(np.median(times)), 1)}


def prepare_speed(repeats: int = 20) -> dict:
    """Median ms of ``Profile.prepare`` (flatten to the tray, then tray white balance) per frame size."""
    cv2.setNumThreads(1)
    layout = TrayLayout(300.0, 200.0, 30.0)
    out = {"threads": 1}
    for width, height in ((640, 480), (1280, 960)):
        frame = cv2.resize(render_tray(layout, 4.0), (width, height))
        corners = ((0.0, 0.0), (width - 1.0, 0.0), (width - 1.0, height - 1.0), (0.0, height - 1.0))
        balance_only = replace(Profile(), white_balance=WhiteBalance("tray"))
        both = replace(balance_only, tray=TraySettings("corners", layout, corners, 2.0))
        for label, profile in (("white_balance", balance_only), ("flatten_and_white_balance", both)):
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                profile.prepare(frame)
                times.append((time.perf_counter() - start) * 1000)
            out[f"{label}_ms_{width}x{height}"] = round(float(np.median(times)), 2)
    return out


def run_all(manifest: str | Path = DEFAULT_MANIFEST) -> dict:
    """Every calibration benchmark (several minutes on one core: it reads the set's photos many times)."""
    reason = public_sets.missing([Path(manifest), public_sets.score_tool()])
    skipped = public_sets.skipped("calibration on labelled photos", reason) if reason else None
    return {"homography": homography(), "prepare_speed": prepare_speed(),
            "labelled_palette": skipped or labelled_palette(manifest), "colour_cast": skipped or colour_cast(manifest)}


def main(argv: list[str]) -> int:
    """``python -m calibration.bench``: every benchmark as JSON; ``boxes PROFILE OUT.jsonl [MANIFEST]``
    writes the labelled-box predictions of a profile for ``score_dice.py``."""
    if argv[:1] == ["boxes"] and len(argv) in (3, 4):
        manifest = Path(argv[3]) if len(argv) == 4 else DEFAULT_MANIFEST
        try:
            output = check_output_path(argv[2], {argv[1]: "the profile", manifest: "the manifest"}, force=True)
            profile = load_profile(argv[1])
            lines = box_predictions(manifest, load_manifest(manifest), profile.palette, profile.white_balance)
        except CompanionError as exc:
            print(f"calibration.bench: {exc}", file=sys.stderr)
            return 2
        write_atomically(output, "".join(json.dumps(line) + "\n" for line in lines))
        return 0
    if argv:
        print(main.__doc__, file=sys.stderr)
        return 2
    print(json.dumps(run_all(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
