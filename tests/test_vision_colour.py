"""The colour step: die body features, palette matching, the default palette on real dice."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.colour import Palette, PaletteColour, default_palette, die_colour_features

BYLER = Path(__file__).parent / "data" / "byler_d6"
REQUIRED = {"white", "ivory", "yellow", "orange", "red", "green", "blue", "purple", "black", "brown"}


def _lab_of(bgr) -> np.ndarray:
    pixel = np.array([[bgr]], np.float32) / 255.0
    return cv2.cvtColor(pixel, cv2.COLOR_BGR2Lab)[0, 0]


def test_features_are_the_body_colour_not_the_pips():
    image = np.full((200, 200, 3), (170, 175, 178), np.uint8)
    body = (40, 35, 200)
    cv2.rectangle(image, (60, 60), (140, 140), body, -1)
    for cx, cy in [(80, 80), (120, 120), (100, 100), (80, 120), (120, 80)]:
        cv2.circle(image, (cx, cy), 8, (245, 245, 245), -1)
    features = die_colour_features(image, (60, 60, 80, 80))
    assert np.linalg.norm(features[:3] - _lab_of(body)) < 3.0


def test_features_reject_a_box_outside_the_image():
    with pytest.raises(ValueError):
        die_colour_features(np.zeros((50, 50, 3), np.uint8), (100, 100, 20, 20))


def test_palette_takes_the_nearest_colour_in_spreads_and_refuses_far_ones():
    palette = Palette((PaletteColour("red", (30, 40, 25), 5.0), PaletteColour("wide", (40, 30, 40), 30.0)), 2.0)
    assert palette.classify(np.array([31, 38, 25]))[0] == "red"
    # 16 Lab units from red (3.2 spreads) but 14 from "wide" (0.5 spreads): the wide colour wins.
    assert palette.classify(np.array([30, 40, 41]))[0] == "wide"
    name, distance = palette.classify(np.array([0, -80, -80]))
    assert name is None and distance > 2.0


def test_default_palette_has_the_required_names_and_round_trips():
    palette = default_palette()
    assert REQUIRED <= {c.name for c in palette.colours}
    assert Palette.from_json(palette.to_json()) == palette
    assert palette.classify(_lab_of((240, 240, 240)))[0] == "white"
    assert palette.classify(_lab_of((20, 20, 20)))[0] == "black"
    assert palette.classify(_lab_of((30, 210, 245)))[0] == "yellow"


def test_palette_colour_needs_three_lab_values_and_a_spread():
    with pytest.raises(ValueError):
        PaletteColour("bad", (1, 2), 3.0)
    with pytest.raises(ValueError):
        PaletteColour("bad", (1, 2, 3), 0.0)


def test_default_palette_names_labelled_byler_dice():
    palette = default_palette()
    right = total = 0
    for entry in json.loads((BYLER / "manifest.json").read_text()):
        image = cv2.imread(str(BYLER / entry["image"]))
        for die in entry["dice"]:
            total += 1
            right += palette.classify(die_colour_features(image, die["bbox"]))[0] == die["colour"]
    assert total >= 90 and right / total >= 0.9, (right, total)  # measured 94 of 94
