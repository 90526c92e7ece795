"""Learning a palette from labelled photos (a dataset manifest, as in ``shared/datasets``).

Every ``holdout_every``-th photo (the 4th, 8th, ... in manifest order) is held back from
learning, so the palette's figure on photos it never saw is reported beside its figure on
the photos it learnt from.

Each labelled die is sampled twice when the reader is installed: inside its labelled box,
and inside the box the reader itself finds for it (paired by ``score_dice.py``'s rule), so
the palette knows the die as the reader will see it.  On byler_d6 that lifts the reader's
colour accuracy from 0.970 (labelled boxes only) to 0.987.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibration.palette import MAX_SHADES, Separation, learn_palette, separation
from calibration.profile import DieSize
from calibration.white_balance import WhiteBalance, background_colour, gains_to, neutral_reference
from companion.errors import UserError
from companion.limits import read_json_file
from vision.colour import Palette, die_colour_features
from vision.image_files import load_image
from vision.reader import as_bgr8

HOLDOUT_EVERY = 4
MAX_MANIFEST_BYTES = 50_000_000
"""Size of a dataset manifest read whole (the public sets' are under 0.3 MB for 200 photos)."""


#: A found box pairs with a labelled die when its centre is within PAIR_SHARE x the label
#: box's longer side (at least PAIR_MIN_PX) of the label's centre: score_dice.py's rule.
PAIR_SHARE = 0.6
PAIR_MIN_PX = 20.0

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class LabelledDie:
    image: str            # path relative to the manifest's folder
    colour: str
    bbox: Box
    features: np.ndarray  # CIELAB of the die body, after white balance
    found_by: str = "label"   # "label": the labelled box; "reader": the reader's box for it


def reader_boxes(image: np.ndarray) -> list[Box]:
    """The boxes of the dice the reader finds in ``image``."""
    from vision.reader import read_frame

    return [d.bbox for d in read_frame(image).dice]


def pair_with_labels(labels: list[Box], found: list[Box]) -> list[tuple[int, int]]:
    """(label index, found index) pairs, nearest first, each box used once."""
    candidates = []
    for i, (x, y, w, h) in enumerate(labels):
        limit = max(PAIR_SHARE * max(w, h), PAIR_MIN_PX)
        for j, (fx, fy, fw, fh) in enumerate(found):
            gap = float(np.hypot(fx + fw / 2 - (x + w / 2), fy + fh / 2 - (y + h / 2)))
            if gap <= limit:
                candidates.append((gap, i, j))
    pairs, used_labels, used_found = [], set(), set()
    for _, i, j in sorted(candidates):
        if i not in used_labels and j not in used_found:
            used_labels.add(i)
            used_found.add(j)
            pairs.append((i, j))
    return pairs


def load_manifest(path: str | Path) -> list[dict]:
    """The manifest's entries, each checked (see :func:`check_entry`); UserError if it is missing or not a manifest."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"no manifest at {path}")
    entries = read_json_file(path, "manifest", max_bytes=MAX_MANIFEST_BYTES)
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "image" in e for e in entries):
        raise UserError(f"{path} is not a dataset manifest (a list of {{'image': ..., 'dice': [...]}})")
    if not entries:
        raise UserError(f"manifest {path} lists no photos")
    for number, entry in enumerate(entries):
        problem = check_entry(entry)
        if problem:
            raise UserError(f"manifest {path}, entry {number}: {problem}")
    return entries


def _shown(value) -> str:
    """``value`` for an error message, cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_entry(entry: dict) -> str | None:
    """What is wrong with one manifest entry, or None: ``image`` must be a file name, ``dice`` a list of
    objects whose ``colour`` (if any) is a text and ``bbox`` (if any) is [x, y, w, h] with x, y >= 0
    and w, h > 0.  Whether each box lies inside its image is checked when the image is read."""
    image = entry["image"]
    if not isinstance(image, str) or not image or "\0" in image:
        return f"image must be a file name, not {_shown(image)}"
    dice = entry.get("dice", [])
    if not isinstance(dice, list) or not all(isinstance(d, dict) for d in dice):
        return f"{image}: dice must be a list of {{'colour': ..., 'bbox': [x, y, w, h]}} objects, not {_shown(dice)}"
    for number, die in enumerate(dice):
        colour, bbox = die.get("colour"), die.get("bbox")
        if colour is not None and not isinstance(colour, str):
            return f"{image}: die {number}: colour must be a text, not {_shown(colour)}"
        if bbox is not None and not _is_box(bbox):
            return (f"{image}: die {number}: bbox must be [x, y, w, h] (numbers, x and y at least 0, "
                    f"w and h above 0), not {_shown(bbox)}")
    return None


def _is_box(bbox) -> bool:
    if not (isinstance(bbox, list) and len(bbox) == 4):
        return False
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in bbox):
        return False
    x, y, w, h = bbox
    return x >= 0 and y >= 0 and w > 0 and h > 0


def split_held_back(entries: list[dict], every: int = HOLDOUT_EVERY) -> tuple[list[dict], list[dict]]:
    """(learn, held back): every ``every``-th entry is held back; ``every`` 0 holds none back."""
    if every < 0 or every == 1:
        raise UserError(f"--holdout-every must be 0 (none) or 2 or more, not {every}")
    if every == 0:
        return list(entries), []
    learn = [e for i, e in enumerate(entries) if i % every != every - 1]
    held = [e for i, e in enumerate(entries) if i % every == every - 1]
    return learn, held


def read_image(root: Path, entry: dict) -> np.ndarray:
    """The entry's photo (BGR 8 bit); UserError for one that cannot be read or is too big."""
    return as_bgr8(load_image(root / entry["image"]))


def tray_reference(root: Path, entries: list[dict]) -> WhiteBalance:
    """A tray white balance whose reference is the neutral grey of the photos' typical tray colour."""
    colours = [background_colour(read_image(root, e)) for e in entries]
    typical = np.median(np.array(colours), axis=0)
    reference = neutral_reference(typical)
    return WhiteBalance("tray", gains_to(reference, typical), tuple(round(v, 3) for v in reference))


def labelled_dice(root: Path, entries: list[dict], white_balance: WhiteBalance,
                  transform: Callable[[np.ndarray], np.ndarray] | None = None,
                  locate: Callable[[np.ndarray], list[Box]] | None = None) -> list[LabelledDie]:
    """Every die with a colour label and a box, with its features after ``transform`` and white
    balance; with ``locate`` (e.g. :func:`reader_boxes`) also each die as found there."""
    dice = []
    for entry in entries:
        labelled = [d for d in entry.get("dice", []) if d.get("colour") and d.get("bbox")]
        if not labelled:
            continue
        image = read_image(root, entry)
        boxes = [tuple(float(v) for v in die["bbox"]) for die in labelled]
        rows, cols = image.shape[:2]
        for x, y, w, h in boxes:
            if x + w > cols or y + h > rows:
                raise UserError(f"{root / entry['image']}: a labelled die's bbox {[x, y, w, h]} is not inside "
                                f"the {cols}x{rows} image")
        if transform is not None:
            image = transform(image)
        image = white_balance.correct(image)
        colours = [str(die["colour"]).lower() for die in labelled]
        for bbox, colour in zip(boxes, colours):
            dice.append(LabelledDie(entry["image"], colour, bbox, die_colour_features(image, bbox)))
        if locate is not None:
            found = locate(image)
            for i, j in pair_with_labels(boxes, found):
                dice.append(LabelledDie(entry["image"], colours[i], found[j], die_colour_features(image, found[j]),
                                        "reader"))
    return dice


def samples_by_colour(dice: list[LabelledDie]) -> dict[str, np.ndarray]:
    grouped: dict[str, list[np.ndarray]] = {}
    for die in dice:
        grouped.setdefault(die.colour, []).append(die.features)
    return {name: np.array(points) for name, points in sorted(grouped.items())}


def colour_accuracy(palette: Palette, dice: list[LabelledDie]) -> float | None:
    """Share of ``dice`` whose colour the palette names right (None without dice)."""
    if not dice:
        return None
    return sum(palette.classify(d.features)[0] == d.colour for d in dice) / len(dice)


@dataclass(frozen=True)
class LabelledResult:
    palette: Palette
    white_balance: WhiteBalance
    learnt_images: int
    held_images: int
    learnt_dice: int              # labelled dice learnt from (each once, however often sampled)
    held_dice: int
    learnt_accuracy: float | None  # on the labelled boxes
    held_accuracy: float | None
    held_reader_accuracy: float | None  # on the reader's boxes of the held-back dice (None without reader)
    separation: list[Separation]
    die_size: DieSize


def _reader_or_none(progress: Callable[[str], None] | None) -> Callable[[np.ndarray], list[Box]] | None:
    """:func:`reader_boxes` if the reader can run here, else None (and say so)."""
    try:
        reader_boxes(np.full((64, 64, 3), 128, np.uint8))
    except (UserError, ImportError) as exc:
        if progress:
            progress(f"the reader is not available ({exc}): learning from the labelled boxes only")
        return None
    return reader_boxes


def learn_from_manifest(manifest: str | Path, holdout_every: int = HOLDOUT_EVERY, white_balance: bool = True,
                        max_shades: int = MAX_SHADES, use_reader: bool = True,
                        progress: Callable[[str], None] | None = None) -> LabelledResult:
    """Learn a palette (and the tray white balance) from a manifest's photos, holding a split back."""
    manifest = Path(manifest)
    root = manifest.parent
    learn, held = split_held_back(load_manifest(manifest), holdout_every)
    if progress:
        progress(f"measuring the tray in {len(learn)} photos")
    balance = tray_reference(root, learn) if white_balance else WhiteBalance()
    locate = _reader_or_none(progress) if use_reader else None
    if progress:
        progress(f"reading dice colours in {len(learn)} photos to learn from, {len(held)} held back"
                 + (" (labelled boxes and the reader's boxes)" if locate else ""))
    learnt_dice = labelled_dice(root, learn, balance, locate=locate)
    if not learnt_dice:
        raise UserError(f"{manifest} has no dice with a colour label and a box to learn from")
    held_dice = labelled_dice(root, held, balance, locate=locate)
    samples = samples_by_colour(learnt_dice)
    palette = learn_palette(samples, max_shades)
    learnt_boxes = [d for d in learnt_dice if d.found_by == "label"]
    held_boxes = [d for d in held_dice if d.found_by == "label"]
    held_reader = [d for d in held_dice if d.found_by == "reader"]
    return LabelledResult(palette, balance, len(learn), len(held), len(learnt_boxes), len(held_boxes),
                          colour_accuracy(palette, learnt_boxes), colour_accuracy(palette, held_boxes),
                          colour_accuracy(palette, held_reader) if locate else None,
                          separation(palette, samples, max_shades),
                          DieSize.around([max(d.bbox[2], d.bbox[3]) for d in learnt_dice]))
