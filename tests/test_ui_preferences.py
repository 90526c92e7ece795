"""The app's saved settings and the per-player panel data (no window needed)."""
from __future__ import annotations

import json
import random

import pytest
from test_session_toy import GAME as TOY_RACE

from companion.engine import Die
from companion.errors import UserError
from companion.games import get_game
from ui.game_panels import generic_resources, resources
from ui.preferences import DEFAULTS, Preferences, check_camera


def test_defaults_until_something_is_saved(tmp_path):
    prefs = Preferences(tmp_path / "ui.json")
    assert prefs["pins"] == DEFAULTS["pins"] and prefs["camera"] == ""
    assert not prefs.path.exists()


@pytest.mark.parametrize("spec", ["sim", "pi", "usb", "usb:2", "usb:/dev/video1", "replay:/tmp/x"])
def test_camera_specs_the_camera_module_knows(spec):
    assert check_camera(spec) == spec


@pytest.mark.parametrize("spec", ["webcam", "usb:x", "replay:", "pi:0"])
def test_unknown_camera_specs_are_refused(spec):
    with pytest.raises(UserError, match="camera"):
        check_camera(spec)


def test_a_refused_change_saves_nothing_at_all(tmp_path):
    prefs = Preferences(tmp_path / "ui.json")
    prefs.update(camera="usb:1", pins={"read_button": 5})
    saved = prefs.path.read_text()
    for bad in ({"read_button": 1}, {"read_button": "x"}, {"no_such_pin": 4}, {"undo_button": 5}):
        with pytest.raises(UserError):
            prefs.update(camera="sim", pins=bad)
    assert prefs.path.read_text() == saved
    assert Preferences(prefs.path)["camera"] == "usb:1"


def test_a_damaged_settings_file_is_one_line_error(tmp_path):
    path = tmp_path / "ui.json"
    path.write_text("{not json")
    with pytest.raises(UserError, match="cannot read settings"):
        Preferences(path)
    assert path.read_text() == "{not json"


def test_saved_values_survive_a_restart(tmp_path):
    Preferences(tmp_path / "ui.json").set_game_options("dairyman", {"freeze_tokens": 10})
    again = Preferences(tmp_path / "ui.json")
    assert again.game_options("dairyman") == {"freeze_tokens": 10}
    assert json.loads(again.path.read_text())["pins"] == DEFAULTS["pins"]


def test_dairyman_panel_counts_each_players_tokens_and_tiles():
    game = get_game("dairyman")
    state = game.new_game(["Ann", "Bob", "Cy"], seed=2)
    state = state.apply_roll([Die(1, "white")] * 7 + [Die(1, "yellow")])
    state = state.apply(game.advise(state)[0].move)       # no set of ten: a backorder token
    holdings, table = resources(state)
    assert holdings["Ann"]["backorders"] == 1 and holdings["Bob"]["backorders"] == 0
    assert set(holdings) == {"Ann", "Bob", "Cy"}
    assert "3 backorder" in table                         # 3 players: 4 tokens, one taken


def test_a_game_without_a_panel_shows_its_per_player_lists():
    state = TOY_RACE.new_game(["Ann", "Bob"])
    state = state.apply_roll(state.random_roll(random.Random(1)))
    state = state.apply(state.legal_moves()[0])
    holdings, table = generic_resources(state)
    taken = state.score_breakdown()["Ann"]["taken"]
    assert holdings == {"Ann": {"points": taken}, "Bob": {"points": 0}} and table == ""
