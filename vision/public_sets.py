"""The public labelled photo sets (``shared/datasets``) and their fixed train / held-out split.

The split keeps the last :data:`HOLDOUT_SHARE` of each group of photos (a folder, or a
file-name prefix such as ``four_``), in shooting order, out of training, so that the
held-out photos are not near-copies of training photos taken a moment before.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

SETS = ("byler_d6", "matteop65_wood", "aibox_pi_single")
HOLDOUT_SHARE = 0.2


def datasets_dir() -> Path:
    """``shared/datasets`` beside the repository (``COMPANION_DATASETS`` overrides)."""
    if os.environ.get("COMPANION_DATASETS"):
        return Path(os.environ["COMPANION_DATASETS"])
    return Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def manifest_path(name: str) -> Path:
    return datasets_dir() / name / "manifest.json"


def load_manifest(name: str) -> list[dict]:
    return json.loads(manifest_path(name).read_text())


def _group_and_order(image: str) -> tuple[str, tuple]:
    folder, _, stem = image.rpartition("/")
    match = re.match(r"([A-Za-z]+)_(\d+)\.", stem)
    if match:
        return f"{folder}/{match.group(1)}", (int(match.group(2)), stem)
    return folder, (0, stem)


def split(entries: list[dict]) -> tuple[list[dict], list[dict]]:
    """(train, held_out) entries: the last share of each group, in shooting order, is held out."""
    groups: dict[str, list[tuple[tuple, dict]]] = {}
    for entry in entries:
        group, order = _group_and_order(entry["image"])
        groups.setdefault(group, []).append((order, entry))
    train, held = [], []
    for members in groups.values():
        members.sort(key=lambda m: m[0])
        n_held = round(len(members) * HOLDOUT_SHARE)
        cut = len(members) - n_held
        train += [e for _, e in members[:cut]]
        held += [e for _, e in members[cut:]]
    return train, held
