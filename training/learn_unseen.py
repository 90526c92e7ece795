"""Learn my dice on a public set the networks never trained on: leave-one-roll-out before and after.

Models made with ``train_dice_nets.py --leave-out SET`` read SET as a player's own unseen dice and table
would be read; this runs ``companion bench learn``'s measure (calibration/bench_learn.py: groups of five
held-out photos, each roll left out in turn) on SET with those models, with and without the face reader's
refitted last layer (calibration/learn_dice.py), and prints one JSON line each.

    .venv/bin/python training/learn_unseen.py --finder F.onnx --reader R.onnx --set byler_d6 --groups 8
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration import bench_learn, learn_dice
from vision import dice_net, public_sets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--finder", type=Path, required=True, help="a finder trained without --set's photos")
    ap.add_argument("--reader", type=Path, required=True, help="a reader trained without --set's photos")
    ap.add_argument("--print-check", type=Path, default=dice_net.PRINT_CHECK_FILE,
                    help="a print check fitted without --set's photos (default: the committed one)")
    ap.add_argument("--set", choices=public_sets.SETS, required=True)
    ap.add_argument("--groups", type=int, default=3, help="groups of five held-out photos")
    ap.add_argument("--without-faces", action="store_true", help="learn everything but the faces")
    a = ap.parse_args()
    dice_net.FINDER_FILE, dice_net.READER_FILE, dice_net.PRINT_CHECK_FILE = a.finder, a.reader, a.print_check
    if a.without_faces:
        learn_dice._learn_faces = lambda *args: None
    figures = bench_learn.learn_my_dice_gain(sets=[a.set], conditions=("untouched",), groups=a.groups)
    print(json.dumps({"set": a.set, "faces": not a.without_faces, **figures}))


if __name__ == "__main__":
    main()
