"""Learning a palette from labelled photos (a dataset manifest, as in ``shared/datasets``).

Every ``holdout_every``-th photo (the 4th, 8th, ... in manifest order) is held back from
learning, so the palette's figure on photos it never saw is reported beside its figure on
the photos it learnt from.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.palette import MAX_SHADES, Separation, learn_palette, separation
from calibration.profile import DieSize
from calibration.white_balance import WhiteBalance, background_colour, gains_to, neutral_reference
from companion.errors import UserError
from vision.colour import Palette, die_colour_features

HOLDOUT_EVERY = 4


@dataclass(frozen=True)
class LabelledDie:
    image: str            # path relative to the manifest's folder
    colour: str
    bbox: tuple[float, float, float, float]
    features: np.ndarray  # CIELAB of the die body, after white balance


def load_manifest(path: str | Path) -> list[dict]:
    """The manifest's entries; UserError if it is missing or not a manifest."""
    path = Path(path)
    try:
        entries = json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"no manifest at {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"cannot read manifest {path}: {exc}") from None
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "image" in e for e in entries):
        raise UserError(f"{path} is not a dataset manifest (a list of {{'image': ..., 'dice': [...]}})")
    return entries


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
    image = cv2.imread(str(root / entry["image"]))
    if image is None:
        raise UserError(f"cannot read image {root / entry['image']}")
    return image


def tray_reference(root: Path, entries: list[dict]) -> WhiteBalance:
    """A tray white balance whose reference is the neutral grey of the photos' typical tray colour."""
    colours = [background_colour(read_image(root, e)) for e in entries]
    typical = np.median(np.array(colours), axis=0)
    reference = neutral_reference(typical)
    return WhiteBalance("tray", gains_to(reference, typical), tuple(round(v, 3) for v in reference))


def labelled_dice(root: Path, entries: list[dict], white_balance: WhiteBalance,
                  transform: Callable[[np.ndarray], np.ndarray] | None = None) -> list[LabelledDie]:
    """Every die with a colour label and a box, with its features after ``transform`` and white balance."""
    dice = []
    for entry in entries:
        labelled = [d for d in entry.get("dice", []) if d.get("colour") and d.get("bbox")]
        if not labelled:
            continue
        image = read_image(root, entry)
        if transform is not None:
            image = transform(image)
        image = white_balance.correct(image)
        for die in labelled:
            bbox = tuple(float(v) for v in die["bbox"])
            dice.append(LabelledDie(entry["image"], str(die["colour"]).lower(), bbox,
                                    die_colour_features(image, bbox)))
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
    learnt_dice: int
    held_dice: int
    learnt_accuracy: float | None
    held_accuracy: float | None
    separation: list[Separation]
    die_size: DieSize


def learn_from_manifest(manifest: str | Path, holdout_every: int = HOLDOUT_EVERY, white_balance: bool = True,
                        max_shades: int = MAX_SHADES,
                        progress: Callable[[str], None] | None = None) -> LabelledResult:
    """Learn a palette (and the tray white balance) from a manifest's photos, holding a split back."""
    manifest = Path(manifest)
    root = manifest.parent
    learn, held = split_held_back(load_manifest(manifest), holdout_every)
    if progress:
        progress(f"measuring the tray in {len(learn)} photos")
    balance = tray_reference(root, learn) if white_balance else WhiteBalance()
    if progress:
        progress(f"reading dice colours in {len(learn)} photos to learn from, {len(held)} held back")
    learnt_dice = labelled_dice(root, learn, balance)
    if not learnt_dice:
        raise UserError(f"{manifest} has no dice with a colour label and a box to learn from")
    held_dice = labelled_dice(root, held, balance)
    samples = samples_by_colour(learnt_dice)
    palette = learn_palette(samples, max_shades)
    return LabelledResult(palette, balance, len(learn), len(held), len(learnt_dice), len(held_dice),
                          colour_accuracy(palette, learnt_dice), colour_accuracy(palette, held_dice),
                          separation(palette, samples, max_shades),
                          DieSize.around([max(d.bbox[2], d.bbox[3]) for d in learnt_dice]))
