"""The `companion` command on Dairyman: suggest and simulate, as a person would run them."""
import json

import pytest
from test_dairyman_advice import brute_locks

from companion.cli import main
from companion.engine import Die


def run_json(capsys, *argv):
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_suggest_lists_every_lock_and_nothing_else(capsys):
    out = run_json(capsys, "suggest", "--game", "dairyman", "--dice", "6 4 5 5 3 2 1 yellow:4", "--json")
    roll = [Die(d["value"], d["colour"]) for d in out["roll"]]
    expected = {tuple(sorted(tuple(sorted(f"{c}:{v}" for c, v in s)) for s in lock)) for lock in brute_locks(roll)}
    listed = [tuple(sorted(tuple(sorted(s)) for s in m["move"]["sets"])) for m in out["moves"]]
    assert all(m["move"]["kind"] == "lock" for m in out["moves"])
    assert len(listed) == len(set(listed)) and set(listed) == expected
    for m in out["moves"]:
        assert 0 <= m["advice"]["p_more_set"] <= m["advice"]["p_more_set_with_freeze"] <= 1
        assert m["advice"]["then"] in ("stop", "re-roll")


def test_suggest_on_a_failing_roll_says_what_it_costs(capsys):
    out = run_json(capsys, "suggest", "--game", "dairyman", "--dice", "1 1 1 2 3 3 3 yellow:1", "--json")
    assert [m["move"] for m in out["moves"]] == [{"kind": "fail"}]
    assert "backorder" in out["moves"][0]["text"] and "-5" in out["moves"][0]["text"]
    assert any(a["kind"] == "roll_failed" for a in out["alerts"])


@pytest.mark.parametrize("dice", ["6 4 5", "7 4 5 5 3 2 1 4", "blue:6 4 5 5 3 2 1 4"])
def test_suggest_with_bad_dice_is_a_one_line_error(capsys, dice):
    assert main(["suggest", "--game", "dairyman", "--dice", dice, "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("companion:")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_simulated_games_end_and_scores_add_up(capsys, players):
    out = run_json(capsys, "simulate", "--game", "dairyman", "--players", str(players), "--seed", "7",
                   "--games", "3", "--json")
    assert len(out["results"]) == 3
    for result in out["results"]:
        assert result["alerts"].get("game_over") == 1
        for player, total in result["scores"].items():
            assert total == sum(result["breakdown"][player].values())
        assert result["winners"] == [p for p, s in result["scores"].items() if s == max(result["scores"].values())]
