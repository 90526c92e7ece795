"""The `companion` command on Dicey Farm: games, suggest, simulate and play, as a person would run them."""
import io
import json

import pytest
from test_dicey_farm_rules import example_round5_end, move

from companion.cli import main
from companion.engine import Die


def _dice(*faces):
    return [Die(f) for f in faces]


def run_json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_games_lists_dicey_farm_with_its_options_and_the_shared_roll_reading(capsys):
    games = {g["name"]: g for g in run_json(capsys, "games", "--json")}
    farm = games["dicey-farm"]
    assert farm["players"] == [1, 4] and farm["title"] == "Dicey Farm"
    assert {o["name"]: o["default"] for o in farm["options"]} == {"daily": "", "cap_tourism_total": False}
    assert any("same dice each round" in note and "companion's own reading" in note for note in farm["notes"])
    assert main(["games"]) == 0
    assert "everyone uses the one roll the camera read" in capsys.readouterr().out


@pytest.fixture
def example_file(tmp_path):
    """The worked example's round 6, dice due."""
    state = example_round5_end().apply(move("end_round"))
    path = tmp_path / "farm.json"
    path.write_text(json.dumps(state.to_json()))
    return path, state


def test_suggest_ranks_the_legal_moves_for_the_worked_examples_roll(capsys, example_file):
    path, state = example_file
    out = run_json(capsys, "suggest", "--game", "dicey-farm", "--state", str(path), "--dice", "3 4 6 2", "--json")
    assert out["phase"] == "act" and [d["value"] for d in out["roll"]] == [3, 4, 6, 2]
    legal = {json.dumps(m.to_json(), sort_keys=True) for m in state.legal_moves_for(_dice(3, 4, 6, 2))}
    moves = [json.dumps(m["move"], sort_keys=True) for m in out["moves"]]
    assert set(moves) == legal and len(moves) == len(legal)
    values = [m["advice"]["expected_vp"] for m in out["moves"]]
    assert values == sorted(values, reverse=True)
    top = out["moves"][0]
    assert top["reason"] and "\n" not in top["reason"]
    assert top["advice"]["plan"][-1].startswith("end the round") and top["advice"]["expected_vp"] > 24


def test_suggest_without_the_roll_asks_for_it(capsys, example_file):
    path, _ = example_file
    assert main(["suggest", "--game", "dicey-farm", "--state", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--dice" in err


def test_suggest_on_a_broken_state_file_is_one_line(capsys, example_file):
    path, state = example_file
    data = state.to_json()
    data["farms"][0]["fields"] = ["sheep", "unicorn"]
    path.write_text(json.dumps(data))
    assert main(["suggest", "--game", "dicey-farm", "--state", str(path), "--dice", "3 4 6 2", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a Dicey Farm state" in err


def test_simulated_solo_games_end_and_breakdowns_add_up(capsys):
    out = run_json(capsys, "simulate", "--game", "dicey-farm", "--seed", "11", "--games", "16", "--json")
    assert len(out["results"]) == 16 and out["games_per_second"] > 0
    scores = []
    for result in out["results"]:
        assert result["alerts"].get("game_over") == 1
        (player, total), = result["scores"].items()
        assert total == sum(result["breakdown"][player].values())
        assert set(result["breakdown"][player]) == {"tourism", "market", "craftsmen", "whisky", "jewels",
                                                   "end-game craftsmen", "begging"}
        scores.append(total)
    assert sum(scores) / len(scores) > 20          # far above a random player's (below zero)


@pytest.mark.parametrize("players", [2, 4])
def test_simulated_tables_of_farmers_end_with_winners(capsys, players):
    out = run_json(capsys, "simulate", "--game", "dicey-farm", "--players", str(players), "--games", "1", "--json")
    result = out["results"][0]
    assert len(result["scores"]) == players and result["winners"]
    # the same dice, deck and slots with the same advice: every farm plays the same game
    assert len(set(result["scores"].values())) == 1


def test_simulate_daily_mode(capsys):
    out = run_json(capsys, "simulate", "--game", "dicey-farm", "--games", "1", "--options", "daily=2024-06-07",
                   "--json")
    assert out["results"][0]["rolls"] == 0 and out["results"][0]["alerts"].get("game_over") == 1


def play(monkeypatch, capsys, tmp_path, lines, *extra):
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    assert main(["play", "--game", "dicey-farm", "--players", "Ann", "--seed", "2", "--new",
                 "--db", str(tmp_path / "s.sqlite3"), *extra]) == 0
    return capsys.readouterr()


def test_play_in_text_mode_rolls_places_dice_and_refuses_an_early_end(monkeypatch, capsys, tmp_path):
    out = play(monkeypatch, capsys, tmp_path, [
        "roll 6 3", "move {\"kind\": \"end_round\"}", "move {\"kind\": \"tourism\", \"die\": 6, \"vp\": 6}",
        "move {\"kind\": \"fishing\", \"die\": 3}", "moves", "move {\"kind\": \"end_round\"}", "state"])
    lines = out.out.splitlines()
    assert any(line.startswith("ok 1 Ann rolled 6 3") for line in lines)
    assert any("tourism with the 6: 6 VP" in line for line in lines)
    errors = out.err.splitlines()
    assert len(errors) == 1 and "every die is used" in errors[0]
    assert any(line.startswith("1. ") and "end the round" in out.out for line in lines)
    state = json.loads(lines[-1])
    assert state["phase"] == "roll" and state["scores"] == {"Ann": 6}
    assert state["dice_to_roll"]["reason"] == "Round 2: roll 2 dice for your farm"


def test_play_daily_mode_needs_no_roll(monkeypatch, capsys, tmp_path):
    out = play(monkeypatch, capsys, tmp_path, ["moves", "move 1", "state"], "--options", "daily=2024-06-07")
    lines = out.out.splitlines()
    assert "chooses a move" in lines[1] and not out.err
    assert json.loads(lines[-1])["dice_to_roll"] is None
