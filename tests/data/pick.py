"""Rebuild this folder's photos and manifests from the public sets: ``PYTHONPATH=. python tests/data/pick.py``.

The photos are copied unchanged (original pixels, original labels) from the held-out part of
each set (:func:`vision.public_sets.split`), which the reader's networks never trained on; the
choice is fixed (evenly spaced, not picked by how well the reader does on them). The empty-tray
photos of aibox_pi_single are all taken, whichever part they are in.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from vision import public_sets

HERE = Path(__file__).resolve().parent

#: Photos taken from each set's held-out part (aibox_pi_single: per value, besides every empty tray).
COUNTS = {"byler_d6": 20, "matteop65_wood": 12, "aibox_pi_single": 2}


def evenly(entries: list[dict], count: int) -> list[dict]:
    return [entries[i * len(entries) // count] for i in range(count)]


def chosen(name: str) -> list[dict]:
    """The chosen entries of one set, in the set's own manifest order."""
    manifest = public_sets.load_manifest(name)
    _, held = public_sets.split(manifest)
    if name == "aibox_pi_single":
        picked = [e for e in manifest if not e["dice"]]
        for value in range(1, 7):
            picked += evenly([e for e in held if e["dice"] and e["dice"][0]["value"] == value], COUNTS[name])
    else:
        picked = evenly(held, COUNTS[name])
    keep = {e["image"] for e in picked}
    return [e for e in manifest if e["image"] in keep]


def main() -> None:
    no_photos = public_sets.missing([public_sets.manifest_path(name) for name in public_sets.SETS])
    if no_photos:
        sys.exit(f"pick.py: {no_photos}")
    for name in public_sets.SETS:
        source, target = public_sets.datasets_dir() / name, HERE / name
        entries = chosen(name)
        for entry in entries:
            (target / entry["image"]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / entry["image"], target / entry["image"])
        (target / "manifest.json").write_text(json.dumps(entries, indent=1) + "\n")
        print(f"{name}: {len(entries)} photos")


if __name__ == "__main__":
    main()
