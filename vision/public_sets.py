"""The public labelled photo sets (``shared/datasets``) and their fixed train / held-out split.

The split keeps the last :data:`HOLDOUT_SHARE` of each group of photos (a folder, or a
file-name prefix such as ``four_``), in shooting order, out of training, so that the
held-out photos are not near-copies of training photos taken a moment before.

Only benchmarks and training read these sets; a bare clone has none of them (the tests read
the few photos in ``tests/data``), so each user says so in one line (:func:`missing`).
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from types import ModuleType

from companion.errors import UserError

SETS = ("byler_d6", "matteop65_wood", "aibox_pi_single")
HOLDOUT_SHARE = 0.2


def datasets_dir() -> Path:
    """``shared/datasets`` beside the repository (``COMPANION_DATASETS`` overrides)."""
    if os.environ.get("COMPANION_DATASETS"):
        return Path(os.environ["COMPANION_DATASETS"])
    return Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def manifest_path(name: str) -> Path:
    return datasets_dir() / name / "manifest.json"


def score_tool() -> Path:
    """``shared/tools/score_dice.py``, the scorer every figure on these sets comes from."""
    return datasets_dir().parent / "tools" / "score_dice.py"


def missing(paths: list[Path] | None = None) -> str | None:
    """Why the sets cannot be used, in one line, or None when ``paths`` (by default every set's
    manifest and the scorer) all exist."""
    if paths is None:
        paths = [manifest_path(name) for name in SETS] + [score_tool()]
    absent = [path for path in paths if not Path(path).exists()]
    if not absent:
        return None
    return (f"{absent[0]} is missing: the public photo sets are not here (put shared/datasets beside the "
            f"repository or set COMPANION_DATASETS); the tests need only tests/data")


def require(paths: list[Path]) -> None:
    """UserError (one line) unless every path in ``paths`` exists."""
    reason = missing(paths)
    if reason:
        raise UserError(reason)


def skipped(subject: str, reason: str) -> dict:
    """Say on stderr, in one line, that ``subject`` was not measured and why; the figure that records it."""
    print(f"{subject} not measured: {reason}", file=sys.stderr, flush=True)
    return {"skipped": reason}


def load_manifest(name: str) -> list[dict]:
    require([manifest_path(name)])
    return json.loads(manifest_path(name).read_text())


def score_module() -> ModuleType:
    """``score_dice.py`` loaded as a module (its ``score(manifest, predictions, colour_map)``)."""
    require([score_tool()])
    spec = importlib.util.spec_from_file_location("score_dice", score_tool())
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
