"""The test photos in tests/data, and benchmarks run where the public sets (shared/datasets) are absent."""
import json
import os
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from vision import public_sets

REPO = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"
LICENCES = {"byler_d6": "LICENSE", "matteop65_wood": "LICENSE", "aibox_pi_single": "README.dataset.txt"}


@pytest.mark.parametrize("name", public_sets.SETS)
def test_each_test_set_lists_exactly_its_photos_with_labels_inside_them_and_carries_its_licence(name):
    folder = DATA / name
    entries = json.loads((folder / "manifest.json").read_text())
    assert sorted(e["image"] for e in entries) == sorted(str(p.relative_to(folder)) for p in folder.rglob("*.jpg"))
    for entry in entries:
        height, width = cv2.imread(str(folder / entry["image"])).shape[:2]
        assert (width, height) == (entry["width"], entry["height"]), entry["image"]
        for die in entry["dice"]:
            assert die["value"] in range(1, 7)
            if die["bbox"]:
                x, y, w, h = die["bbox"]
                assert 0 <= x and 0 <= y and x + w <= width + 1 and y + h <= height + 1, entry["image"]
    assert "MIT" in (folder / LICENCES[name]).read_text() or "BSD" in (folder / LICENCES[name]).read_text()
    assert "Source:" in (folder / "ATTRIBUTION.md").read_text()


def _run(args, datasets: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "COMPANION_DATASETS": str(datasets), "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, env=env, capture_output=True, text=True, check=False,
                          timeout=300)


def test_without_the_public_sets_the_vision_accuracy_bench_says_so_in_one_line(tmp_path):
    done = _run(["companion.bench_vision", "accuracy"], tmp_path / "datasets")
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "COMPANION_DATASETS" in done.stderr and "Traceback" not in done.stderr


def test_without_the_public_sets_the_calibration_bench_measures_the_rest_and_says_what_it_left_out(tmp_path):
    done = _run(["companion", "bench", "calibration", "--json"], tmp_path / "datasets")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)["calibration.run_all"]
    assert figures["homography"]["all_markers_found"] > 0
    assert "COMPANION_DATASETS" in figures["labelled_palette"]["skipped"] and "skipped" in figures["colour_cast"]
    assert done.stderr.count("\n") == 1 and "not measured" in done.stderr


def test_the_sets_are_usable_once_every_manifest_and_the_scorer_are_there(tmp_path, monkeypatch):
    datasets = tmp_path / "shared" / "datasets"
    monkeypatch.setenv("COMPANION_DATASETS", str(datasets))
    assert "byler_d6/manifest.json" in public_sets.missing()
    for name in public_sets.SETS:
        (datasets / name).mkdir(parents=True)
        (datasets / name / "manifest.json").write_text((DATA / name / "manifest.json").read_text())
    assert "score_dice.py" in public_sets.missing()
    (tmp_path / "shared" / "tools").mkdir()
    (tmp_path / "shared" / "tools" / "score_dice.py").write_text("def score(manifest, predictions, colour_map):\n"
                                                                 "    return {}\n")
    assert public_sets.missing() is None
    assert public_sets.load_manifest("aibox_pi_single") == json.loads((DATA / "aibox_pi_single" /
                                                                       "manifest.json").read_text())


def _score_by_order(labels, preds, colour_map):
    """score_dice's figures that wrong_unflagged uses, each label paired with the prediction at its place."""
    by_image = {p["image"]: p["dice"] for p in preds}
    paired = right = total = 0
    for entry in labels:
        dice = by_image.get(entry["image"], [])
        total += len(entry["dice"])
        for label, die in zip(entry["dice"], dice):
            paired += 1
            right += die["value"] == label["value"]
    return {"dice": total, "recall": paired / total, "die_acc": right / total}


def test_only_wrong_values_left_unflagged_count_as_silent_guesses():
    from companion.bench_vision import wrong_unflagged

    labels = [{"image": "a.jpg", "dice": [{"value": 4}, {"value": 5}]}, {"image": "b.jpg", "dice": [{"value": 2}]}]
    sure, doubted = [], ["value"]
    preds = [{"image": "a.jpg", "dice": [{"value": 4, "unsure": sure}, {"value": 4, "unsure": sure}]},
             {"image": "b.jpg", "dice": [{"value": 3, "unsure": doubted}]}]
    assert wrong_unflagged(_score_by_order, labels, preds) == 1
    preds[0]["dice"][1]["unsure"] = ["colour"]
    assert wrong_unflagged(_score_by_order, labels, preds) == 1
    preds[0]["dice"][1]["unsure"] = ["value"]
    assert wrong_unflagged(_score_by_order, labels, preds) == 0
