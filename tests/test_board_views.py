"""The board views of Dairyman and Whirling Derby: what a board panel shows, in player words.

Each view must agree with the state it describes (tiles, barns, dice, tokens, cards, whose
turn), use no engine notation in anything meant to be read, and leave the state as it was.
Whirling Derby's placement of several dice in one step must be the same as placing them one
after another, all or nothing.
"""
import json
import random

import pytest

from companion.engine import Move, parse_dice
from companion.errors import RuleError
from companion.games import get_game

DAIRYMAN = get_game("dairyman")
DERBY = get_game("whirling-derby")
MACHINE_WORDS = ("_", "None", "[]", "{", "#", "white:", "yellow:", "red:", "blue:", "green:", "setup", "reroll")
FOR_MOVES = {"tile", "die", "card", "other_side_key", "phase", "stage", "colour", "player", "turn_player"}
"""View fields that name things for moves and code, not for reading (player names are the players' own)."""
FIRST_ROLL = "white:6 white:4 white:5 white:5 white:3 white:2 white:1 yellow:4"


def shown_strings(value, key=None):
    """Every string of a view meant to be read."""
    if isinstance(value, dict):
        return [s for k, v in value.items() if k not in FOR_MOVES for s in shown_strings(v, k)]
    if isinstance(value, list):
        return [s for v in value for s in shown_strings(v, key)]
    return [value] if isinstance(value, str) else []


def assert_player_words(texts):
    for text in texts:
        assert not any(word in text for word in MACHINE_WORDS), text


def dairyman_positions(players=("Ann", "Bob"), seed=3, steps=200):
    """Positions of a game played by the advice with seeded dice."""
    state, rng = DAIRYMAN.new_game(players, seed=seed), random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            return
        yield state
        state = state.apply_roll(state.random_roll(rng)) if state.dice_to_roll() else \
            state.apply(DAIRYMAN.best_move(state))


def derby_positions(players=("Ann", "Bob"), seed=3, steps=400):
    state, rng = DERBY.new_game(players), random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            yield state
            return
        yield state
        state = state.apply_roll(state.random_roll(rng)) if state.dice_to_roll() else \
            state.apply(DERBY.advise(state)[0].move)


# -- Dairyman --------------------------------------------------------------------------------

def test_dairyman_view_shows_the_display_tiles_with_their_value_and_what_a_flip_needs():
    state = DAIRYMAN.new_game(["Ann", "Bob"], seed=1)
    view = state.board_view()
    assert [t["tile"] for t in view["display"]] == list(state.display)
    for shown in view["display"]:
        tile = state.tiles[shown["tile"]]
        assert shown["name"] == f"milk {tile.value}" and shown["value"] == tile.value and not shown["flipped"]
        needs = "a freeze token" if tile.kind == "ice_cream" else f"a yellow {tile.face}"
        assert shown["flip_needs"] == needs and str(tile.flipped_value) in shown["flips_to"]
    assert view["stack"] == len(state.stack)
    assert view["supply"] == {"freeze": state.freeze_total, "backorders": state.backorder_total}
    assert view["to_roll"] == 8 and view["roll"] == [] and view["player"] == "Ann"
    assert [p["current"] for p in view["players"]] == [True, False]


def test_dairyman_view_shows_the_locked_sets_in_their_barn_and_the_dice_left():
    state = DAIRYMAN.new_game(["Ann", "Bob"], seed=1).apply_roll(parse_dice(FIRST_ROLL))
    before = json.dumps(state.to_json(), sort_keys=True)
    state.board_view()
    assert json.dumps(state.to_json(), sort_keys=True) == before
    locked = state.apply(Move.make("lock", sets=[["white:6", "white:4"], ["white:5", "white:5"]]))
    view = locked.board_view()
    assert view["barns"][0]["name"] == "barn 1" and view["barns"][0]["total"] == 20
    assert [[d["text"] for d in s] for s in view["barns"][0]["sets"]] == [["6", "4"], ["5", "5"]]
    assert view["barns"][1]["sets"] == [] and view["barn_total"] == 20
    assert sorted(d["text"] for d in view["roll"]) == ["1", "2", "3", "yellow 4"]
    assert "up to 20" in view["step"] and view["step"].startswith("Ann")


def test_dairyman_move_words_name_dice_and_tiles_as_players_do():
    state = DAIRYMAN.new_game(["Ann", "Bob"], seed=1).apply_roll(parse_dice(FIRST_ROLL))
    lock = Move.make("lock", sets=[["white:6", "white:4"], ["white:5", "white:5"]])
    assert state.move_words(lock) == "Lock 6+4 and 5+5 in barn 1"
    assert state.move_words(Move.make("lock", sets=[["white:6", "yellow:4"]])) == "Lock 6+yellow 4 in barn 1"
    locked = state.apply(lock)
    cheapest = min(locked.display, key=lambda t: locked.tiles[t].value)
    claim = Move.make("claim", tiles=[cheapest])
    assert locked.move_words(claim) == f"Stop and claim {locked.tile_view(cheapest)['name']}"
    assert locked.move_words(Move.make("reroll", freeze=[])) == "Re-roll 4 dice"


@pytest.mark.parametrize("players", [("Ann", "Bob"), ("Ann", "Bob", "Cyrus", "Dora")])
def test_dairyman_views_and_advice_words_stay_in_player_words_through_a_game(players):
    phases = set()
    for state in dairyman_positions(players):
        view = state.board_view()
        phases.add(view["phase"])
        assert_player_words(shown_strings(view))
        assert {p["player"]: p["score"] for p in view["players"]} == state.scores()
        assert [p["freeze"] for p in view["players"]] == list(state.freeze)
        assert view["barn_total"] == sum(b["total"] for b in view["barns"])
        if state.dice_to_roll() is None and not state.is_terminal():
            for suggestion in DAIRYMAN.advise(state)[:5]:
                words = state.suggestion_words(suggestion)
                assert words["headline"][:1].isupper() and not words["reason"][:1].islower()
                assert_player_words([words["headline"], words["reason"]])
                assert state.move_words(suggestion.move) in words["headline"]
    assert phases == {"roll", "lock", "continue"}


# -- Whirling Derby ---------------------------------------------------------------------------

def test_derby_view_shows_every_players_cards_with_the_dice_on_them():
    state = DERBY.new_game(["Ann", "Bob"])
    state = state.apply_roll(parse_dice("blue:1 blue:2 blue:3 blue:3 blue:5 blue:6 blue:6 blue:6 blue:4 "
                                        "white:1 white:2 white:3 white:4 white:5"))
    state = state.apply(Move.make("place", placements=[["blue:1", "run"], ["blue:2", "run"], ["blue:6", "kind"]]))
    view = state.board_view()
    bob = view["players"][1]
    assert bob["player"] == "Bob" and bob["colour"] == "blue" and bob["acting"] and not view["players"][0]["acting"]
    run, kind = bob["cards"][0], bob["cards"][1]
    assert run["title"] == "A Run" and [d["text"] for d in run["dice"]] == ["blue 1", "blue 2"]
    assert run["complete"] and run["other_side"] == "1-3 Different" and "run" in run["takes"]
    assert kind["title"] == "All of a Kind" and not kind["complete"] and kind["takes"].startswith("2 to 6 dice")
    assert bob["cards"][3]["title"] == "Stove" and not bob["cards"][3]["complete"]
    assert bob["dice_on_cards"] == 3 and bob["score"] == -3
    assert len(view["hand"]) == 11 and view["step"] == "Bob places their set-up dice on their cards"
    assert view["compost"] == [] and view["to_hand_out"] == []


def test_derby_places_several_dice_in_one_step_as_one_after_another():
    state = DERBY.new_game(["Ann", "Bob"]).apply_roll(parse_dice(
        "blue:1 blue:2 blue:3 blue:3 blue:5 blue:6 blue:6 blue:6 blue:4 white:1 white:2 white:3 white:4 white:5"))
    placements = [["blue:1", "run"], ["blue:2", "run"], ["blue:3", "run"], ["white:5", "stove"]]
    one_by_one = state
    for die, card in placements:
        one_by_one = one_by_one.apply(Move.make("place", die=die, card=card))
    together = state.apply(Move.make("place", placements=placements))
    assert together.to_json() == one_by_one.to_json()
    assert "blue 1, blue 2 and blue 3 on A Run" in state.describe(Move.make("place", placements=placements))
    before = json.dumps(state.to_json(), sort_keys=True)
    with pytest.raises(RuleError):                     # the second 3 breaks the run: nothing is placed
        state.apply(Move.make("place", placements=[["blue:1", "run"], ["blue:3", "run"], ["blue:3", "run"]]))
    with pytest.raises(RuleError):
        state.apply(Move.make("place", placements="blue:1"))
    assert json.dumps(state.to_json(), sort_keys=True) == before
    everything = state.placement_plan()
    assert len(everything["placements"]) == 14
    with pytest.raises(RuleError):                     # one die more than the hand holds
        state.apply(Move.make("place", placements=[*everything["placements"], ["blue:1", "stove"]]))


def test_derby_placement_plan_places_the_whole_hand_starting_with_the_advices_best():
    state = DERBY.new_game(["Ann", "Bob", "Cy"]).apply_roll(parse_dice(
        "blue:1 blue:1 blue:2 blue:3 blue:4 blue:5 blue:6 blue:6 blue:6"))
    plan = state.placement_plan()
    best = next(s.move for s in DERBY.advise(state) if s.move.kind == "place")
    assert list(plan["placements"][0]) == [best["die"], best["card"]]
    after = state.apply(plan)
    assert after.actor != state.actor and after.dice_on_cards(1) == 9
    assert DERBY.new_game(["Ann", "Bob"]).placement_plan() is None     # a roll is due: nothing to place


@pytest.mark.parametrize("players", [("Ann", "Bob"), ("Ann", "Bob", "Cyrus", "Dora")])
def test_derby_views_and_advice_words_stay_in_player_words_through_a_game(players):
    stages = set()
    for state in derby_positions(players):
        view = state.board_view()
        stages.add(view["stage"])
        assert_player_words(shown_strings(view))
        assert [p["dice_on_cards"] for p in view["players"]] == [state.dice_on_cards(i) for i in range(len(players))]
        for seat, player in enumerate(view["players"]):
            for index, card in enumerate(player["cards"]):
                assert [d["die"] for d in card["dice"]] == [str(d) for d in state.boards[seat][index][1]]
        if view["stage"] == "distribute":
            target = state.target()
            assert view["next_receiver"] == ("the Compost" if target is None else players[target])
            assert view["next_receiver"] in view["step"]
        if state.dice_to_roll() is None and not state.is_terminal():
            for suggestion in DERBY.advise(state)[:5]:
                words = state.suggestion_words(suggestion)
                assert_player_words([words["headline"], words["reason"]])
                for name in players:
                    assert (words["headline"] + words["reason"]).count(name) <= 1
    assert {"setup_place", "choose_reroll", "assign", "activate", "distribute", "over"} <= stages
