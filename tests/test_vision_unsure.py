"""The reader never guesses silently: a die whose value or colour it doubts is flagged, and ``read --json``
carries the flag."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from companion.cli import main
from vision.colour import default_palette
from vision.reader import read_frame
from vision.types import DieReading

DATA = Path(__file__).parent / "data" / "byler_d6"


def labelled():
    for entry in json.loads((DATA / "manifest.json").read_text()):
        yield cv2.imread(str(DATA / entry["image"])), entry["dice"]


def nearest_label(die, labels):
    def gap(label):
        x, y, w, h = label["bbox"]
        return max(abs(die.center[0] - x - w / 2), abs(die.center[1] - y - h / 2)) / max(w, h)
    best = min(labels, key=gap)
    return best if gap(best) < 0.5 else None


def test_every_die_read_wrong_on_blurred_photos_is_flagged_and_sharp_photos_are_mostly_not():
    wrong = flagged_sharp = read_sharp = 0
    for image, labels in labelled():
        sharp = read_frame(image).dice
        read_sharp += len(sharp)
        flagged_sharp += sum(d.value_unsure for d in sharp)
        for die in read_frame(cv2.GaussianBlur(image, (0, 0), 3)).dice:
            label = nearest_label(die, labels)
            if label is not None and die.value != label["value"]:
                wrong += 1
                assert die.value_unsure, (die, label)
    assert wrong >= 5                       # the blur does make the reader wrong, and it says so each time
    assert flagged_sharp <= 0.15 * read_sharp


def test_a_colour_between_two_names_is_flagged_and_a_clear_one_is_not():
    palette = default_palette().only(["white", "ivory", "red"])
    white, ivory = (next(c.centre_lab for c in palette.colours if c.name == n) for n in ("white", "ivory"))
    between = [(a + b) / 2 for a, b in zip(white, ivory)]
    assert palette.margin(between) < 0.4 < palette.margin(white)
    assert palette.margin(next(c.centre_lab for c in palette.colours if c.name == "red")) > 2


def test_a_die_without_a_value_is_unsure_and_a_confirmed_die_is_sure():
    die = DieReading(None, "red", (5.0, 5.0), (0.0, 0.0, 10.0, 10.0), 0.3, colour_unsure=True)
    assert die.value_unsure and die.needs_check(colours_matter=False)
    doubted_colour = DieReading(4, "ivory", (5.0, 5.0), (0.0, 0.0, 10.0, 10.0), 0.9, colour_unsure=True)
    assert doubted_colour.needs_check() and not doubted_colour.needs_check(colours_matter=False)
    sure = doubted_colour.confirmed(colour="white")
    assert (sure.value, sure.colour, sure.confidence) == (4, "white", 1.0) and not sure.needs_check()


def test_read_json_names_what_the_reader_doubts(tmp_path, capsys):
    photo = next(iter(sorted((DATA / "images").iterdir())))
    blurred = tmp_path / "blurred.png"
    cv2.imwrite(str(blurred), cv2.GaussianBlur(cv2.imread(str(photo)), (0, 0), 5))  # pips blurred past reading
    assert main(["read", "--json", str(photo), str(blurred)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    dice = [d for line in lines for d in line["dice"]]
    assert all(set(d["unsure"]) <= {"value", "colour"} for d in dice)
    assert all(("value" in d["unsure"]) for d in dice if d["value"] is None)
    assert sum(bool(d["unsure"]) for d in lines[1]["dice"]) > sum(bool(d["unsure"]) for d in lines[0]["dice"])


@pytest.mark.parametrize("threshold", [0.0, 1.01])
def test_the_value_flag_follows_its_threshold(threshold):
    image, _ = next(labelled())
    dice = read_frame(image, unsure_value=threshold).dice
    assert dice and all(d.value_unsure == (threshold > 1 or d.value is None) for d in dice)


def test_a_symbol_die_is_shown_as_a_symbol_to_confirm():
    symbol = DieReading(None, "red", (10.0, 10.0), (0.0, 0.0, 20.0, 20.0), 0.6, symbol=True)
    assert symbol.value_text == "symbol" and symbol.needs_check() and symbol.to_die() is None
    assert symbol.to_json()["symbol"] is True and symbol.to_json()["unsure"] == ["value"]
    given = symbol.confirmed(value=6)
    assert given.value_text == "6" and not given.needs_check() and given.to_die().value == 6
    assert DieReading(None, "red", (10.0, 10.0), (0.0, 0.0, 20.0, 20.0), 0.2).value_text == "?"
