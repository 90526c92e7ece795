"""The `companion` command on DYCE: games, suggest, simulate and play, as a person would run them."""
import io
import json

import pytest
from test_dyce_rules import ORANGE_WANTS_PURPLE, make_state

from companion.cli import main


def run_json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_games_lists_dyce_with_its_options_and_where_each_blend_comes_from(capsys):
    games = {g["name"]: g for g in run_json(capsys, "games", "--json")}
    dyce = games["dyce"]
    assert dyce["players"] == [1, 4]
    assert {o["name"] for o in dyce["options"]} == {"new_die_place", "white_die_start", "round_cap"}
    sources = {b["whisky"]: b["source"] for b in dyce["blends"]}
    assert sources == {"purple": "rule", "black": "source", "green": "inferred", "orange": "inferred"}
    assert main(["games"]) == 0
    text = capsys.readouterr().out
    assert "blend purple = blue + red (1 VP) [rule]" in text and "[inferred]" in text


def test_suggest_reads_a_state_file_and_ranks_every_action(capsys, tmp_path):
    state = make_state(cubes=[{"blue": 1, "red": 1}, {}], market=ORANGE_WANTS_PURPLE)
    path = tmp_path / "dyce.json"
    path.write_text(json.dumps(state.to_json()))
    out = run_json(capsys, "suggest", "--game", "dyce", "--state", str(path), "--json")
    assert set(out) == {"game", "player", "phase", "roll", "moves", "alerts"}
    assert out["game"] == "dyce" and out["player"] == "Ann" and out["phase"] == "actions"
    assert len(out["moves"]) == len(state.legal_moves())
    top = out["moves"][0]
    assert set(top["advice"]) >= {"expected_pounds", "expected_vp", "expected_whiskies", "plan", "barons"}
    assert top["advice"]["expected_vp"] == 1 and top["reason"]


def test_suggest_on_a_broken_state_file_is_one_line(capsys, tmp_path):
    data = make_state().to_json()
    data["cubes"] = [{"blue": 9}, {}]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["suggest", "--game", "dyce", "--state", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "more blue whisky than the box holds" in err


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_simulated_games_end_and_breakdowns_add_up(capsys, players):
    out = run_json(capsys, "simulate", "--game", "dyce", "--players", str(players), "--seed", "5", "--games", "2",
                   "--json")
    assert len(out["results"]) == 2 and out["games_per_second"] > 0
    for result in out["results"]:
        assert result["alerts"].get("game_over") == 1
        for player, total in result["scores"].items():
            assert set(result["breakdown"][player]) == {"pounds", "whiskies", "VPs"}
            assert total == sum(result["breakdown"][player].values())
        if players > 1:
            assert result["winners"]


def test_simulate_with_the_other_placement_option(capsys):
    out = run_json(capsys, "simulate", "--game", "dyce", "--players", "2", "--games", "1",
                   "--options", "new_die_place=market_end,white_die_start=4", "--json")
    assert out["results"][0]["alerts"].get("game_over") == 1


def play(monkeypatch, capsys, tmp_path, lines):
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    assert main(["play", "--game", "dyce", "--players", "Ann,Bob", "--seed", "2", "--new",
                 "--db", str(tmp_path / "s.sqlite3")]) == 0
    return capsys.readouterr()


def test_play_in_text_mode_rolls_a_named_die_and_says_where_it_goes(monkeypatch, capsys, tmp_path):
    out = play(monkeypatch, capsys, tmp_path, ["move 1", "move 1", "roll blue:5", "roll white:3", "roll pink:2",
                                               "roll random", "moves", "move 1", "state"])
    lines = out.out.splitlines()
    assert any(line.startswith("ok 3 Ann rolled blue 5") for line in lines)
    assert "alert info: the blue die goes to the orange baron (place 1 of its line), turned to 2" in lines
    errors = out.err.splitlines()
    assert len(errors) == 2 and "on the castle" in errors[0] and "not a DYCE die" in errors[1]
    assert any(line.startswith("1. ") and " - " in line for line in lines)
    state = json.loads(lines[-1])
    assert state["phase"] == "actions" and state["game"] == "dyce"
