"""How well a face reader reads the public sets' dice where their labels put them: no finder, one look a die.

A reader trained without a set's photos (``train_dice_nets.py --leave-out``) meets that set as a player's
unseen dice would be met; this separates what its face network reads from what the finder finds. Every photo
of each set is read (a left-out set has no held-out part to keep apart); prints one JSON line per reader with
each set's share of dice read right and its commonest misreadings.

    .venv/bin/python training/read_labelled.py /tmp/runs/A/dice_reader.onnx /tmp/runs/B/dice_reader.onnx
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from train_dice_nets import load_photos

from vision import dice_net, public_sets, reader

ANSWERS = ("1", "2", "3", "4", "5", "6", "not a die", "symbol")


def labelled_crops(leave_out: tuple[str, ...] = ()) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per set: every labelled die's crop at its label, and its value."""
    by_set: dict[str, tuple[list, list]] = {}
    for photo in load_photos(leave_out, whole=True):
        crops, values = by_set.setdefault(photo.source, ([], []))
        for x, y, side, value in photo.dice:
            crops.append(dice_net.crop_die(photo.image, (x, y), side))
            values.append(value)
    return {name: (np.stack(crops), np.array(values)) for name, (crops, values) in by_set.items()}


def read_right(model: Path, crops: dict[str, tuple[np.ndarray, np.ndarray]], worst: int = 4) -> dict:
    """``model``'s share of each set's dice read right, and its ``worst`` commonest misreadings."""
    dice_net.READER_FILE = model
    figures = {}
    for name, (images, values) in crops.items():
        answers = np.concatenate([reader._reader_probabilities(images[i:i + 256]).argmax(axis=1)
                                  for i in range(0, len(images), 256)])
        wrong = collections.Counter((int(v), ANSWERS[a]) for v, a in zip(values, answers) if a != v - 1)
        figures[name] = {"dice": len(values), "right": round(float(np.mean(answers == values - 1)), 4),
                         "misread": [f"{v} as {a}: {n}" for (v, a), n in wrong.most_common(worst)]}
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("readers", type=Path, nargs="+", help="reader ONNX files")
    ap.add_argument("--sets", nargs="+", default=list(public_sets.SETS), choices=public_sets.SETS)
    a = ap.parse_args()
    no_photos = public_sets.missing([public_sets.manifest_path(name) for name in a.sets])
    if no_photos:
        sys.exit(f"read_labelled: {no_photos}")
    crops = labelled_crops(tuple(s for s in public_sets.SETS if s not in a.sets))
    for model in a.readers:
        print(json.dumps({"reader": str(model), **read_right(model, crops)}), flush=True)


if __name__ == "__main__":
    main()
