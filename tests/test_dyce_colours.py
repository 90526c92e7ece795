"""The reader names DYCE's eight die colours under warm, neutral and cool light, and the light step
(vision/light.py) keeps real photos' colours at least as right as without it."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.errors import UserError
from vision import synth
from vision.colour import default_palette
from vision.light import DEFAULT_LIGHT, LightParams, candidate_gains, estimate_gains, grey_guess
from vision.reader import name_colours, read_frame

DATA = Path(__file__).parent / "data"

# DYCE's box of dice (shared/rules/dyce.txt, "Components"): the white round die and twenty coloured ones.
DYCE_BOX = {"white": 1, "blue": 4, "red": 4, "yellow": 4, "green": 2, "orange": 2, "purple": 2, "black": 2}
DYCE_PALETTE = default_palette().only(DYCE_BOX)
TRAYS = ("grey_card", "green_felt", "wood")  # a grey tray, a strongly coloured one, a tinted one
NO_LIGHT_STEP = LightParams(enabled=False)


def dyce_tray(seed: int, background: str, light: str):
    dice = [(1 + i % 6, colour) for i, colour in enumerate(c for c, n in DYCE_BOX.items() for _ in range(n))]
    return synth.render_scene(dice, seed=seed, size=(960, 640), die_size=(45, 60), background=background,
                              light=light)


def colours_read(image, truth, **params) -> list[str | None]:
    """The reader's colour for each true die (None when no reading lies within half a side of it)."""
    reading = read_frame(image, palette=DYCE_PALETTE, **params)
    out = []
    for die in truth:
        near = [d for d in reading.dice if np.hypot(d.center[0] - die.center[0], d.center[1] - die.center[1])
                < die.side / 2]
        out.append(near[0].colour if len(near) == 1 else None)
    return out


def test_the_box_has_21_dice_of_the_eight_colours():
    assert sum(DYCE_BOX.values()) == 21
    assert {c.name for c in DYCE_PALETTE.colours} == set(DYCE_BOX)


@pytest.mark.parametrize("light", list(synth.LIGHTS))
@pytest.mark.parametrize("background", TRAYS)
@pytest.mark.parametrize("seed", [0, 1])
def test_a_tray_of_all_21_dice_is_read_with_every_colour_right(seed, background, light):
    image, truth = dyce_tray(seed, background, light)
    got = colours_read(image, truth)
    wrong = [(t.colour, g) for t, g in zip(truth, got) if g != t.colour]
    assert not wrong, wrong


def test_without_the_light_step_a_warm_lamp_misreads_dice():
    """The trays above are a real test of the light step: read from the raw frames, some colours go wrong."""
    wrong = 0
    for background in TRAYS:
        image, truth = dyce_tray(0, background, "warm")
        wrong += sum(g != t.colour for t, g in zip(truth, colours_read(image, truth, light=NO_LIGHT_STEP)))
    assert wrong >= 3


def test_lights_tint_a_grey_card_and_keep_its_brightness():
    def card(light):
        image, _ = synth.render_scene([], seed=3, background="grey_card", light=light, noise_sigma=(0, 0))
        return image.reshape(-1, 3).astype(float).mean(axis=0)

    neutral, warm, cool = card("neutral"), card("warm"), card("cool")
    assert warm[2] / warm[0] > 1.3 * neutral[2] / neutral[0]  # more red than blue under a warm lamp
    assert cool[0] / cool[2] > 1.3 * neutral[0] / neutral[2]
    luma = np.array([0.114, 0.587, 0.299])
    assert abs(warm @ luma - neutral @ luma) < 6 and abs(cool @ luma - neutral @ luma) < 6


def test_an_unknown_light_is_a_one_line_error():
    with pytest.raises(UserError, match="unknown light 'green'.*warm"):
        synth.render_scene([1], seed=0, light="green")


def test_grey_guess_undoes_a_cast_on_a_grey_tray_and_not_on_felt():
    grey = np.full((120, 160, 3), 150, np.uint8)
    cast = np.array([0.8, 1.0, 1.2])
    guess = grey_guess(np.clip(grey * cast, 0, 255).astype(np.uint8))
    corrected = 150 * cast * guess
    assert np.ptp(corrected) < 3, corrected
    felt = np.full((120, 160, 3), (55, 105, 40), np.uint8)
    assert np.allclose(grey_guess(felt), 1.0)


def test_one_die_cannot_move_the_light_a_trayful_can():
    """A lone bluish-white die stays as it is (it may be a blue-grey die); many do move the light."""
    palette = default_palette().only({"white", "blue", "yellow"})
    bluish_white = np.array([[235.0, 215.0, 190.0]])  # BGR: white under cool light
    lone = estimate_gains(bluish_white, palette.nearest_distances, np.ones(3))
    assert np.allclose(lone, 1.0)
    many = estimate_gains(np.repeat(bluish_white, 12, axis=0), palette.nearest_distances, np.ones(3))
    assert many[2] > many[0]  # red up, blue down: the cool cast undone
    assert any(np.allclose(many, c) for c in candidate_gains(DEFAULT_LIGHT.reach, DEFAULT_LIGHT.tint_reach,
                                                            DEFAULT_LIGHT.step))


def _labelled_colour_accuracy(name: str, light: LightParams) -> tuple[int, int]:
    right = total = 0
    for entry in json.loads((DATA / name / "manifest.json").read_text()):
        dice = [d for d in entry["dice"] if d.get("bbox") and d.get("colour")]
        if not dice:
            continue
        image = cv2.imread(str(DATA / name / entry["image"]))
        got = name_colours(image, [d["bbox"] for d in dice], default_palette(), light)
        right += sum(g == d["colour"] for g, d in zip(got, dice))
        total += len(dice)
    return right, total


@pytest.mark.parametrize("name", ["byler_d6", "matteop65_wood"])
def test_real_photos_colours_are_not_read_worse_with_the_light_step(name):
    with_step, total = _labelled_colour_accuracy(name, DEFAULT_LIGHT)
    without, _ = _labelled_colour_accuracy(name, NO_LIGHT_STEP)
    assert total >= 50
    assert with_step >= without, (with_step, without, total)


def test_palette_only_keeps_the_named_colours_and_refuses_unknown_names():
    palette = default_palette()
    assert {c.name for c in palette.only(["white", "black"]).colours} == {"white", "black"}
    with pytest.raises(ValueError, match="no colour pink"):
        palette.only(["white", "pink"])


def test_read_command_names_only_the_colours_given(tmp_path, capsys):
    image, _ = dyce_tray(0, "wood", "warm")
    path = tmp_path / "tray.png"
    cv2.imwrite(str(path), image)
    assert main(["read", str(path), "--json", "--colours", ",".join(DYCE_BOX)]) == 0
    line = json.loads(capsys.readouterr().out)
    assert Counter(d["colour"] for d in line["dice"]) == Counter(DYCE_BOX)
    assert main(["read", str(path), "--colours", "white,pink"]) != 0
    out, err = capsys.readouterr()
    assert out == "" and "pink" in err and err.count("\n") == 1


def test_bad_light_parameters_are_a_one_line_error():
    with pytest.raises(UserError, match="light parameters"):
        LightParams(step=0)
    with pytest.raises(UserError, match="light parameters"):
        LightParams(grey_share=2)
