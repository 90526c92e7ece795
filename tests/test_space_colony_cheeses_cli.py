"""The `companion` command on Space Colony Cheeses: games, suggest, simulate and play."""
import io
import json

import pytest
from test_space_colony_cheeses_rules import ANN, make_state, sheet

from companion.cli import main

NAME = "space-colony-cheeses"


def run_json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_games_lists_the_option_and_marks_the_default_tables(capsys):
    games = {g["name"]: g for g in run_json(capsys, "games", "--json")}
    colony = games[NAME]
    assert colony["players"] == [2, 4]
    assert [o["name"] for o in colony["options"]] == ["price_rolls"]
    assert next(o for o in colony["options"])["choices"] == ["shared", "each"]
    assert sum(e["default"] for e in colony["events"]) == 12
    assert all("cost" in m["default"] for m in colony["modules"])
    assert main(["games"]) == 0
    assert "5-1 to 6-6 are defaults" in capsys.readouterr().out


def test_suggest_reads_a_state_file_and_ranks_the_builds(capsys, tmp_path):
    path = tmp_path / "colony.json"
    path.write_text(json.dumps(make_state(ann=sheet(ANN, money=30)).to_json()))
    out = run_json(capsys, "suggest", "--game", NAME, "--state", str(path), "--json")
    assert out["player"] == "Ann" and out["phase"] == "build"
    kinds = {m["move"]["kind"] for m in out["moves"]}
    assert kinds == {"build", "end_build"}
    top = out["moves"][0]
    assert {"net", "energy", "production", "storage", "expected_income", "cost"} <= set(top["advice"])
    assert top["reason"] and "\n" not in top["reason"]


def test_suggest_with_dice_applies_the_roll_first(capsys, tmp_path):
    path = tmp_path / "colony.json"
    path.write_text(json.dumps(make_state(stage="prices", ann=sheet(dict(ANN, E4="leather_storage"),
                                                                   stock={"leather": 2})).to_json()))
    out = run_json(capsys, "suggest", "--game", NAME, "--state", str(path), "--dice", "1 1 1 1 1 1 3 1", "--json")
    assert out["phase"] == "sales" and [m["move"]["leather"] for m in out["moves"]] == [2, 1, 0]
    assert out["moves"][0]["advice"]["sales_now"] == 2 * 3           # leather rolled 3, two sold


def test_a_broken_state_file_is_one_line(capsys, tmp_path):
    data = make_state().to_json()
    data["sheets"][0]["modules"]["D4"] = "moon_base"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    assert main(["suggest", "--game", NAME, "--state", str(path), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown module" in err


@pytest.mark.parametrize("players", [2, 3, 4])
def test_simulated_games_end_with_a_winner_and_breakdowns_add_up(capsys, players):
    out = run_json(capsys, "simulate", "--game", NAME, "--players", str(players), "--seed", "3", "--games", "2",
                   "--json")
    assert len(out["results"]) == 2 and out["games_per_second"] > 0
    for result in out["results"]:
        assert result["alerts"].get("game_over") == 1 and result["winners"]
        for player, total in result["scores"].items():
            assert total == sum(result["breakdown"][player].values())


def test_simulate_with_each_player_rolling_prices(capsys):
    out = run_json(capsys, "simulate", "--game", NAME, "--players", "2", "--games", "1",
                   "--options", "price_rolls=each", "--json")
    assert all(r["alerts"].get("game_over") == 1 for r in out["results"])


def test_play_in_text_mode(monkeypatch, capsys, tmp_path):
    lines = ["roll 6 2", "roll 3", "moves", "move 1", "move {\"kind\": \"build\", \"module\": \"barn\", \"space\": \"A1\"}",
             "state"]
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    assert main(["play", "--game", NAME, "--players", "Ann,Bob", "--seed", "2", "--new",
                 "--db", str(tmp_path / "s.sqlite3")]) == 0
    out = capsys.readouterr()
    text = out.out.splitlines()
    assert "alert info: Ann rolled 6 and goes first" in text
    assert any(line.startswith("1. build a Start-Up Module on ") for line in text)
    assert any(line.startswith("ok 2 build a Start-Up Module on ") for line in text)
    errors = out.err.splitlines()
    assert len(errors) == 2 and "must choose a move now, not roll" in errors[0]
    assert "A1 does not touch Ann's colony" in errors[1]
    state = json.loads(text[-1])
    assert state["phase"] == "build" and state["current_player"] == "Ann"
