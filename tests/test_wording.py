"""What a careful player at the table reads: facts the companion says out loud (a freeze token
earned, the colours of a roll, a die corrected), the words of its texts, and the readings of the
rule texts that `companion games` lists."""
import io
import json
import re

import pytest
from test_dairyman_rules import lock, roll, situation
from test_whirling_derby import position

from companion.cli import main
from companion.engine import DiceRequest, Die, Move, Suggestion, parse_dice, percent_words
from companion.errors import RuleError, UserError
from companion.games import get_game
from companion.session import SessionStore, replay_export

DAIRYMAN = get_game("dairyman")
DERBY = get_game("whirling-derby")


def play(monkeypatch, capsys, tmp_path, game, players, lines):
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    assert main(["play", "--game", game, "--players", players, "--seed", "3", "--new",
                 "--db", str(tmp_path / "s.sqlite3")]) == 0
    out = capsys.readouterr()
    return out.out.splitlines(), out.err.splitlines()


# -- silent facts -------------------------------------------------------------------------

def test_a_freeze_token_earned_on_a_reroll_is_an_alert():
    state = lock(roll(situation(), "white:6 white:4 white:1 white:1 white:1 white:1 white:1 yellow:1"),
                 "white:6 white:4")
    state = lock(roll(state.apply(Move("reroll")), "6 4 1 1 1 1"), "6 4")
    rerolled = state.apply(Move("reroll"))                 # the re-roll to roll 3 earns a token
    assert rerolled.freeze[0] == 1
    earned = [a for a in rerolled.alerts() if a.kind == "freeze_earned"]
    assert len(earned) == 1 and earned[0].players == ("Ann",) and "freeze token" in earned[0].message
    assert not [a for a in state.apply(Move("reroll")).apply_roll(parse_dice("1 1 1 1")).alerts()
                if a.kind == "freeze_earned"]                # said once, not again after the roll


def test_a_dairyman_roll_typed_without_naming_the_yellow_die_is_refused_in_one_line(monkeypatch, capsys, tmp_path):
    lines, errors = play(monkeypatch, capsys, tmp_path, "dairyman", "Ann,Bob",
                         ["roll 6 4 5 5 3 2 1 4", "state", "roll 6 4 5 5 3 2 1 yellow:4", "state"])
    assert len(errors) == 1 and "yellow" in errors[0] and "yellow:" in errors[0]
    states = [json.loads(line) for line in lines if line.startswith("{")]
    assert states[0]["dice_to_roll"] is not None and states[0]["phase"] == "roll"    # nothing changed
    assert states[1]["phase"] == "lock"
    with SessionStore(tmp_path / "s.sqlite3") as store:
        rolled = store.latest().state
    assert [d for d in rolled.roll if d.colour == "yellow"] == [Die(4, "yellow")]


def test_suggest_asks_for_the_yellow_die_too(capsys):
    assert main(["suggest", "--game", "dairyman", "--dice", "6 4 5 5 3 2 1 4", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "yellow" in err
    assert main(["suggest", "--game", "dairyman", "--dice", "6 4 5 5 3 2 1 yellow:4", "--json"]) == 0
    roll_read = json.loads(capsys.readouterr().out)["roll"]
    assert [d["colour"] for d in roll_read] == ["white"] * 7 + ["yellow"]


def test_bare_dice_are_filled_only_when_their_colour_is_certain():
    request = DiceRequest("Ann", ("white",) * 7 + ("yellow", "red"))
    filled = request.colour_bare_dice(parse_dice("6 4 5 5 3 2 1 yellow:4 3"), alike=("white", "red"))
    assert sorted(d.colour for d in filled) == sorted(request.colours)
    with pytest.raises(RuleError) as refused:
        request.colour_bare_dice(parse_dice("6 4 5 5 3 2 1 4 3"), alike=("white", "red"))
    assert "yellow" in str(refused.value) and "red" not in str(refused.value).split("?")[0]


def test_derby_flags_a_roll_with_unread_colours_in_one_line_and_a_typed_one_names_them():
    state = DERBY.new_game(["Ann", "Bob"])                  # Bob rolls 9 blue and 5 white dice
    rolled = state.apply_roll(parse_dice("1 2 3 4 5 6 1 2 3 4 5 6 1 2"))
    flags = [a for a in rolled.alerts() if a.kind == "confirm_colour"]
    assert len(flags) == 1 and "blue" in flags[0].message and "white" in flags[0].message
    with pytest.raises(RuleError) as refused:
        state.colour_roll(parse_dice("1 2 3 4 5 6 1 2 3 4 5 6 1 2"))
    assert "white" in str(refused.value)
    named = state.colour_roll(parse_dice("1 2 3 4 5 6 1 2 3 white:4 white:5 white:6 white:1 white:2"))
    assert not state.apply_roll(named).alerts()


def test_the_ok_line_of_a_roll_shows_the_colours(monkeypatch, capsys, tmp_path):
    lines, errors = play(monkeypatch, capsys, tmp_path, "dairyman", "Ann,Bob", ["roll 6 4 5 5 3 2 1 yellow:4"])
    assert not errors
    ok = next(line for line in lines if line.startswith("ok 1 "))
    assert "white 6 4 5 5 3 2 1" in ok and "yellow 4" in ok and ":" not in ok.split("rolled")[1]


def test_correct_changes_one_die_of_the_last_roll_and_undo_takes_it_back(monkeypatch, capsys, tmp_path):
    lines, errors = play(monkeypatch, capsys, tmp_path, "dairyman", "Ann,Bob", [
        "roll 6 4 5 5 3 2 1 yellow:4", "correct 5 6", "state", "undo", "state"])
    assert not errors
    corrected = next(line for line in lines if line.startswith("ok 2 "))
    assert "corrected" in corrected and "white 6 4 6 5 3 2 1" in corrected
    with SessionStore(tmp_path / "s.sqlite3") as store:
        session = store.latest()
        history = session.history()
        assert [e["kind"] for e in history] == ["created", "roll", "roll", "undo"]
        assert sorted(d.value for d in session.state.roll) == [1, 2, 3, 4, 4, 5, 5, 6]   # the roll as typed
        session.redo()
        assert sorted(d.value for d in session.state.roll) == [1, 2, 3, 4, 4, 5, 6, 6]
        reopened = store.open(session.id)
        assert reopened.state == session.state
        assert replay_export(session.export_json()) == session.state
        session.undo()
        session.undo()
        assert session.state.dice_to_roll() is not None        # back before the roll


def test_a_correction_is_refused_in_one_line_and_changes_nothing(tmp_path):
    with SessionStore(tmp_path / "s.sqlite3") as store:
        session = store.new_session("dairyman", ["Ann", "Bob"], seed=3)
        with pytest.raises(UserError):
            session.correct_die("5", "6")                       # no roll yet
        session.roll("6 4 5 5 3 2 1 yellow:4")
        for was, now in [("2", "7"), ("6", "6"), ("4", "3"), ("red:5", "6"), ("5 5", "6")]:
            before = session.history()
            with pytest.raises((UserError, RuleError)) as refused:
                session.correct_die(was, now)
            assert "\n" not in str(refused.value) and session.history() == before
        assert "4" in str(pytest.raises(UserError, session.correct_die, "4", "3").value)   # which 4: white or yellow
        session.play(DAIRYMAN.advise(session.state)[0].move)
        with pytest.raises(UserError) as after_a_move:
            session.correct_die("6", "5")
        assert "undo" in str(after_a_move.value)


# -- wording ------------------------------------------------------------------------------

def test_a_lock_written_with_bare_values_is_told_with_the_dice_it_takes():
    state = DAIRYMAN.new_game(["Ann", "Bob"]).apply_roll(
        parse_dice("white:6 white:5 white:5 white:3 white:2 white:1 white:1 yellow:4"))
    move = Move.make("lock", sets=[["6", "4"]])
    for text in (state.describe(move), state.move_words(move)):
        assert "None" not in text and "yellow 4" in text


def test_a_die_used_twice_is_said_to_be_used_twice():
    state = DAIRYMAN.new_game(["Ann", "Bob"]).apply_roll(parse_dice("6 4 5 5 3 2 1 yellow:4"))
    for sets in ([["white:6", "white:4"], ["white:6", "white:4"]], [["6", "4"], ["6", "4"]]):
        with pytest.raises(RuleError) as refused:
            state.apply(Move.make("lock", sets=sets))
        assert "twice" in str(refused.value) and "no unlocked" not in str(refused.value)


@pytest.mark.parametrize("chance", [0.995, 0.9999, 0.004, 0.0001])
def test_a_chance_that_is_not_certain_is_never_said_as_100_or_0_percent(chance):
    said = percent_words(chance)
    assert said not in ("100 %", "0 %")
    state = DAIRYMAN.new_game(["Ann", "Bob"]).apply_roll(parse_dice("6 4 5 5 3 2 1 yellow:4"))
    state = state.apply(Move.make("lock", sets=[["6", "4"]]))
    move = Move.make("reroll")
    words = state.suggestion_words(Suggestion(move, "", {"p_more_set_with_freeze": chance,
                                                         "expected_points": None}, ""))
    assert not re.search(r"(^|\D)(100|0) ?%", words["headline"])
    assert percent_words(1.0) == "100 %" and percent_words(0.0) == "0 %"


def test_derby_advice_never_promises_more_dice_next_turn_than_one_card_gives():
    state = position(players=("Ann", "Bob", "Cy"), stage="receive", actor=0, turn_seat=1,
                     boards={0: {"run": "red:2 red:3 red:4", "kind": "red:5 red:5"}}, pending="green:1")
    for suggestion in DERBY.advise(state):
        promised = re.search(r"give away (\d+) di", suggestion.reason)
        assert promised and int(promised.group(1)) <= 4, suggestion.reason


def test_dice_that_bounce_off_a_player_are_said_to_go_to_the_compost():
    state = position(players=("Ann", "Bob"), sides={0: {"pairs": 1}}, boards={0: {"pairs": "blue:2 blue:2"}})
    state = state.apply(Move.make("activate", card="pairs"))
    give = Move.make("give", to="Bob")
    for text in (state.describe(give), state.suggestion_words(DERBY.advise(state)[0])["headline"]):
        assert "Compost" in text and not text.lower().startswith("give blue")
    mixed = position(sides={0: {"pairs": 1}}, boards={0: {"pairs": "blue:1 green:6"}}).apply(
        Move.make("activate", card="pairs"))
    text = mixed.describe(Move.make("give", to="Bob"))
    assert "green 6 to Bob" in text and "blue 1 bounces off to the Compost" in text


def test_a_run_with_a_gap_names_the_missing_value():
    state = position(boards={0: {"run": "red:1 red:3"}})
    with pytest.raises(RuleError) as refused:
        state.apply(Move.make("activate", card="run"))
    message = str(refused.value)
    assert "1-3" not in message and "(2)" in message and "gap" in message


# -- readings -----------------------------------------------------------------------------

def test_companion_games_lists_the_readings_kept_in_the_games_data(capsys):
    assert main(["games", "--json"]) == 0
    games = {g["name"]: g for g in json.loads(capsys.readouterr().out)}
    topics = {name: {r["topic"] for r in games[name].get("readings", [])} for name in ("dairyman", "whirling-derby")}
    assert {"freezing", "ice cream re-roll", "which tile spoils", "ties"} <= topics["dairyman"]
    assert {"first turn", "backs and actions", "own colour", "set to any side"} <= topics["whirling-derby"]
    assert [dict(r) for r in DAIRYMAN.readings] == games["dairyman"]["readings"]
    assert main(["games"]) == 0
    text = capsys.readouterr().out
    for reading in games["dairyman"]["readings"] + games["whirling-derby"]["readings"]:
        assert reading["reading"] in text
