"""Dairyman rules: each rule of the turn, every illegal move, scoring, JSON."""
import json
import random

import pytest

from companion.engine import Move, parse_dice
from companion.errors import RuleError, UserError
from companion.games import get_game
from companion.games.dairyman import RULES

GAME = get_game("dairyman")
PLAYERS = ("Ann", "Bob", "Cy")

# Tile ids follow the rules data: ice cream 10 (re-roll 1s) 0-2, 20 (re-roll 2s) 3-5,
# 30 (re-roll one die) 6-10; cheese 10 11-14 (faces 1-4), 20 15-18 (faces 5, 6, 1, 2),
# 40 19-21 (faces 3, 4, 5).
ICE_10, ICE_20, ICE_30 = 0, 3, 6
CHEESE_10_FACE_1, CHEESE_10_FACE_4, CHEESE_40_FACE_5 = 11, 14, 21


def situation(players=PLAYERS, display=None, owned=None, flipped=(), backorders=None, freeze=None,
              options=None, current=0, seed=1):
    """A fresh game at the start of ``current``'s turn, with tiles and tokens placed as given."""
    data = GAME.new_game(players, options, seed=seed).to_json()
    owned = owned or {}
    placed = {t for tiles in owned.values() for t in tiles} | set(display or ())
    pool = [t for t in data["stack"] + data["display"] if t not in placed]
    data["display"] = list(display) if display is not None else pool[:3]
    data["stack"] = [t for t in pool if t not in data["display"]]
    data["owned"] = [list(owned.get(i, [])) for i in range(len(players))]
    data["flipped"] = sorted(flipped)
    if backorders is not None:
        data["backorders"] = list(backorders)
    if freeze is not None:
        data["freeze"] = list(freeze)
    data["current"] = current
    reds = min(data["backorders"][current], RULES["dice"]["red_max"])
    data["reds"] = reds
    data["pending"] = {"kept": [], "colours": ["white"] * 7 + ["yellow"] + ["red"] * reds}
    return GAME.state_from_json(data)


def roll(state, text):
    return state.apply_roll(parse_dice(text))


def lock(state, *sets):
    return state.apply(Move.make("lock", sets=[s.split() for s in sets]))


def unchanged(state, move):
    """Apply an illegal move: return the RuleError and check the state did not change."""
    before = json.dumps(state.to_json(), sort_keys=True)
    with pytest.raises(RuleError) as caught:
        state.apply(move)
    assert json.dumps(state.to_json(), sort_keys=True) == before
    return caught.value


NO_SET = "white:1 white:1 white:1 white:2 white:3 white:3 white:3 yellow:1"  # 1+3+6? no 6: no set


# -- set-up -------------------------------------------------------------------------------
@pytest.mark.parametrize("count, tokens", [(2, 3), (3, 4), (4, 5)])
def test_new_game_has_backorder_tokens_by_player_count(count, tokens):
    state = GAME.new_game([f"P{i}" for i in range(count)], seed=3)
    assert state.backorder_supply == tokens
    assert state.freeze_supply == 20
    assert len(state.display) == 3 and len(state.stack) == 19
    request = state.dice_to_roll()
    assert sorted(request.colours) == ["white"] * 7 + ["yellow"]


@pytest.mark.parametrize("names", [["Solo"], ["A", "B", "C", "D", "E"], ["A", "A"]])
def test_player_count_and_names_are_checked(names):
    with pytest.raises(UserError):
        GAME.new_game(names)


def test_same_seed_same_shuffle_and_seeds_differ():
    assert GAME.new_game(PLAYERS, seed=5).to_json() == GAME.new_game(PLAYERS, seed=5).to_json()
    stacks = {tuple(GAME.new_game(PLAYERS, seed=s).to_json()["stack"]) for s in range(5)}
    assert len(stacks) == 5


def test_freeze_supply_option_and_bad_options():
    assert GAME.new_game(PLAYERS, {"freeze_tokens": 10}).freeze_supply == 10
    with pytest.raises(UserError):
        GAME.new_game(PLAYERS, {"freeze_tokens": 7})
    with pytest.raises(UserError):
        GAME.new_game(PLAYERS, {"cheese_faces": "1 2 3"})
    with pytest.raises(UserError):
        GAME.new_game(PLAYERS, {"no_such_option": 1})


# -- locking sets onto barns -------------------------------------------------------------
def test_sets_go_to_barns_by_roll_number():
    state = _locked_after_rolls(1)
    assert [len(b) for b in state.barns] == [1, 0, 0] and state.barn_label == "1"
    for rolls, barns in [(2, [1, 1, 0]), (3, [1, 1, 1]), (4, [1, 1, 2])]:
        state = _locked_after_rolls(rolls)
        assert state.roll_no == rolls
        assert [len(b) for b in state.barns] == barns
    assert state.barn_total == 40 and not state.roll


def test_several_sets_at_once_share_a_barn():
    state = roll(situation(), "white:6 white:4 white:5 white:5 white:1 white:2 white:2 yellow:3")
    state = lock(state, "white:6 white:4", "white:5 white:5")
    assert [len(b) for b in state.barns] == [2, 0, 0]
    assert state.barn_total == 20


def test_three_dice_set_and_colours_mix():
    state = roll(situation(), "white:1 white:3 yellow:6 white:1 white:1 white:1 white:1 white:2")
    state = lock(state, "white:1 white:3 yellow:6")
    assert state.barn_total == 10
    assert sorted(str(d) for d in state.roll) == ["white:1"] * 4 + ["white:2"]


def test_set_totalling_nine_is_refused():
    state = roll(situation(), "white:6 white:3 white:4 white:5 white:5 white:1 white:2 yellow:2")
    error = unchanged(state, Move.make("lock", sets=[["white:6", "white:3"]]))
    assert error.rule == "set of ten" and "9" in str(error)


def test_die_used_twice_is_refused():
    state = roll(situation(), "white:6 white:4 white:5 white:3 white:1 white:2 white:2 yellow:1")
    error = unchanged(state, Move.make("lock", sets=[["white:6", "white:4"], ["white:4", "white:6"]]))
    assert error.rule == "each die once"
    error = unchanged(state, Move.make("lock", sets=[["white:5", "white:5"]]))
    assert error.rule == "each die once"


def test_four_dice_or_empty_lock_is_refused():
    state = roll(situation(), "white:1 white:2 white:3 white:4 white:5 white:1 white:2 yellow:1")
    assert unchanged(state, Move.make("lock", sets=[["white:1", "white:2", "white:3", "white:4"]])).rule == "set of ten"
    assert unchanged(state, Move.make("lock", sets=[])).rule == "lock a set"


def test_wrong_colour_is_refused_and_bare_values_prefer_white():
    state = roll(situation(), "white:6 white:1 white:1 white:1 white:1 white:1 white:1 yellow:4")
    assert unchanged(state, Move.make("lock", sets=[["white:6", "white:4"]])).rule == "each die once"
    state = roll(situation(), "white:6 white:4 white:1 white:1 white:1 white:1 white:1 yellow:4")
    locked = state.apply(Move.make("lock", sets=[[6, "4"]]))
    assert {str(d) for d in locked.barns[0][0]} == {"white:6", "white:4"}
    assert any(d.colour == "yellow" for d in locked.roll)


def test_must_lock_when_a_set_shows():
    state = roll(situation(), "white:6 white:4 white:1 white:1 white:1 white:1 white:1 yellow:1")
    assert unchanged(state, Move("fail")).rule == "lock a set"


def test_moves_and_rolls_out_of_order():
    state = situation()
    with pytest.raises(RuleError) as caught:
        state.apply(Move("fail"))
    assert caught.value.rule == "roll first"
    rolled = roll(state, "white:6 white:4 white:1 white:1 white:1 white:1 white:1 yellow:1")
    with pytest.raises(RuleError):
        rolled.apply_roll(parse_dice("1 2 3"))
    assert unchanged(rolled, Move("reroll")).rule == "turn order"
    assert unchanged(rolled, Move.make("claim", tiles=[rolled.display[0]])).rule == "turn order"
    with pytest.raises(RuleError) as caught:
        state.apply_roll(parse_dice("1 2 3"))
    assert caught.value.rule == "dice to roll"


def test_acting_out_of_turn_is_refused():
    state = roll(situation(), "white:6 white:4 white:1 white:1 white:1 white:1 white:1 yellow:1")
    error = unchanged(state, Move.make("lock", sets=[["white:6", "white:4"]], player="Bob"))
    assert error.rule == "turn order"
    assert state.apply(Move.make("lock", sets=[["white:6", "white:4"]], player="Ann")).barn_total == 10


def test_unknown_move_kind_is_refused():
    state = roll(situation(), "white:6 white:4 white:1 white:1 white:1 white:1 white:1 yellow:1")
    assert unchanged(state, Move("dance")).rule == "move kind"


def test_bare_dice_take_missing_colours_yellow_last():
    state = situation().apply_roll(parse_dice("6 4 5 5 3 2 1 4"))
    assert sorted(d.colour for d in state.roll) == ["white"] * 7 + ["yellow"]
    assert next(d for d in state.roll if d.colour == "yellow").value == 4


# -- failing to produce ------------------------------------------------------------------
def test_roll_without_set_fails_and_costs_a_backorder():
    state = roll(situation(), NO_SET)
    assert state.legal_moves() == [Move("fail")]
    assert any(a.kind == "roll_failed" and a.severity == "critical" for a in state.alerts())
    after = state.apply(Move("fail"))
    assert after.backorders == (1, 0, 0)
    assert after.current_player == "Bob" and after.phase == "roll"
    assert after.display == state.display
    assert any(a.kind == "roll_failed" for a in after.alerts())
    assert after.score_breakdown()["Ann"]["backorders"] == -5


def test_reroll_without_set_fails_after_locking():
    state = lock(roll(situation(), "white:6 white:4 white:1 white:1 white:1 white:1 white:3 yellow:3"),
                 "white:6 white:4")
    state = roll(state.apply(Move("reroll")), "white:1 white:1 white:1 white:1 white:3 yellow:3")
    assert state.legal_moves() == [Move("fail")]
    assert state.apply(Move("fail")).backorders[0] == 1


def test_must_claim_if_able_and_fail_only_when_nothing_fits():
    state = lock(roll(situation(display=[ICE_10, ICE_20, ICE_30]), "white:6 white:4 white:1 white:1 white:1 "
                      "white:1 white:1 yellow:1"), "white:6 white:4")
    assert unchanged(state, Move("fail")).rule == "must claim"
    assert any(a.kind == "must_claim" for a in state.alerts())
    expensive = lock(roll(situation(display=[ICE_20, ICE_30, CHEESE_40_FACE_5]), "white:6 white:4 white:1 "
                          "white:1 white:1 white:1 white:1 yellow:1"), "white:6 white:4")
    assert {m.kind for m in expensive.legal_moves()} == {"fail", "reroll"}
    assert expensive.apply(Move("fail")).backorders[0] == 1


# -- claiming ----------------------------------------------------------------------------
def test_claim_within_barn_total_refills_display_and_passes_turn():
    state = roll(situation(display=[ICE_10, ICE_20 + 1, ICE_30]),
                 "white:6 white:4 white:5 white:5 white:6 white:4 white:1 yellow:1")
    state = lock(state, "white:6 white:4", "white:5 white:5", "white:6 white:4")
    stack_top = state.stack[:2]
    after = state.apply(Move.make("claim", tiles=[ICE_10, ICE_20 + 1]))  # 10 + 20 = 30 of 30
    assert after.owned[0] == (ICE_10, ICE_20 + 1)
    assert after.display == (ICE_30,) + stack_top
    assert after.current_player == "Bob"
    assert after.scores()["Ann"] == 30


def test_claim_above_barn_total_is_refused():
    state = lock(roll(situation(display=[ICE_10, ICE_20, ICE_30]), "white:6 white:4 white:5 white:5 white:1 "
                      "white:1 white:1 yellow:1"), "white:6 white:4", "white:5 white:5")
    error = unchanged(state, Move.make("claim", tiles=[ICE_10, ICE_30]))
    assert error.rule == "claim limit"
    assert unchanged(state, Move.make("claim", tiles=[ICE_10, ICE_10])).rule == "claim"
    assert unchanged(state, Move.make("claim", tiles=[ICE_20 + 2])).rule == "claim"
    assert unchanged(state, Move.make("claim", tiles=[])).rule == "claim"


def test_leftover_barn_points_are_lost():
    state = lock(roll(situation(display=[ICE_10, ICE_30, CHEESE_40_FACE_5]), "white:6 white:4 white:5 white:5 "
                      "white:1 white:1 white:1 yellow:1"), "white:6 white:4", "white:5 white:5")
    after = state.apply(Move.make("claim", tiles=[ICE_10]))
    assert after.scores()["Ann"] == 10
    assert after.barn_total == 0


# -- freeze tokens -----------------------------------------------------------------------
def _locked_after_rolls(rolls: int, options=None, freeze=None):
    """Ann's turn after ``rolls`` rolls, each locking 6+4, with spare 1s unlocked."""
    state = situation(options=options, freeze=freeze)
    state = lock(roll(state, "white:6 white:4 white:1 white:1 white:1 white:1 white:1 yellow:1"), "white:6 white:4")
    for _ in range(rolls - 1):
        state = state.apply(Move("reroll"))
        count = state.dice_to_roll().count
        state = lock(roll(state, " ".join(["6", "4"] + ["1"] * (count - 2))), "6 4")
    return state


def test_freeze_token_earned_from_the_reroll_to_roll_three():
    state = _locked_after_rolls(1)
    assert state.apply(Move("reroll")).freeze == (0, 0, 0)  # roll 2: none
    state = _locked_after_rolls(2)
    rerolled = state.apply(Move("reroll"))  # roll 3: one token, before the roll is seen
    assert rerolled.freeze == (1, 0, 0) and rerolled.freeze_supply == 19
    failed = roll(rerolled, "1 1 1 1")
    assert failed.apply(Move("fail")).freeze == (1, 0, 0)  # kept even when the roll fails


def test_freeze_token_literal_third_reroll_option():
    options = {"freeze_earned_from_roll": 4}
    assert _locked_after_rolls(2, options).apply(Move("reroll")).freeze == (0, 0, 0)
    assert _locked_after_rolls(3, options).apply(Move("reroll")).freeze == (1, 0, 0)


def test_no_token_earned_from_an_empty_supply():
    state = _locked_after_rolls(2, {"freeze_tokens": 10}, freeze=[4, 3, 3])
    assert state.freeze_supply == 0
    assert state.apply(Move("reroll")).freeze == (4, 3, 3)


def test_freezing_keeps_dice_and_returns_tokens():
    state = lock(roll(situation(freeze=[2, 0, 0]), "white:6 white:4 white:5 white:3 white:1 white:2 white:2 "
                      "yellow:1"), "white:6 white:4")
    frozen = state.apply(Move.make("reroll", freeze=["white:5", "white:2"]))
    assert frozen.freeze == (0, 0, 0) and frozen.freeze_supply == 20
    assert sorted(frozen.dice_to_roll().colours) == ["white", "white", "white", "yellow"]
    after = roll(frozen, "white:5 yellow:6 white:1 white:1")
    assert sorted(str(d) for d in after.roll) == ["white:1", "white:1", "white:2", "white:5", "white:5", "yellow:6"]
    assert len(lock(after, "white:5 white:5").barns[1]) == 1


def test_freezing_more_than_tokens_or_every_die_is_refused():
    state = lock(roll(situation(freeze=[1, 0, 0]), "white:6 white:4 white:5 white:3 white:1 white:2 white:2 "
                      "yellow:1"), "white:6 white:4")
    assert unchanged(state, Move.make("reroll", freeze=["white:5", "white:3"])).rule == "freeze"
    assert unchanged(state, Move.make("reroll", freeze=["white:6"])).rule == "freeze"
    few = lock(roll(situation(freeze=[3, 0, 0]), "white:6 white:4 white:5 white:5 white:1 yellow:1 white:6 "
                    "white:4"), "white:6 white:4", "white:5 white:5", "white:6 white:4")
    assert unchanged(few, Move.make("reroll", freeze=["white:1", "yellow:1"])).rule == "freeze"


# -- flipping tiles ----------------------------------------------------------------------
def test_yellow_die_flips_cheese_of_matching_face_and_is_set_aside():
    state = roll(situation(owned={0: [CHEESE_10_FACE_4]}), "white:6 white:4 white:5 white:5 white:1 white:1 "
                 "white:1 yellow:4")
    flipped = state.apply(Move.make("flip", tile=CHEESE_10_FACE_4, die="yellow:4"))
    assert CHEESE_10_FACE_4 in flipped.flipped
    assert all(d.colour != "yellow" for d in flipped.roll)
    assert flipped.score_breakdown()["Ann"]["cheese"] == 15
    rerolled = lock(flipped, "white:6 white:4").apply(Move("reroll"))
    assert "yellow" not in rerolled.dice_to_roll().colours


def test_cheese_flip_with_wrong_yellow_value_or_white_die_is_refused():
    state = roll(situation(owned={0: [CHEESE_10_FACE_1]}), "white:6 white:4 white:5 white:5 white:1 white:1 "
                 "white:1 yellow:4")
    assert unchanged(state, Move.make("flip", tile=CHEESE_10_FACE_1, die="yellow:4")).rule == "cheese face"
    assert unchanged(state, Move.make("flip", tile=CHEESE_10_FACE_1, die="white:1")).rule == "flip cheese"
    assert unchanged(state, Move.make("flip", tile=CHEESE_10_FACE_1)).rule == "flip cheese"
    assert unchanged(state, Move.make("flip", tile=CHEESE_10_FACE_4, die="yellow:4")).rule == "own tile"


def test_ice_cream_flip_costs_a_freeze_token():
    state = roll(situation(owned={0: [ICE_30]}, freeze=[1, 0, 0]), NO_SET)
    flipped = state.apply(Move.make("flip", tile=ICE_30))
    assert flipped.freeze == (0, 0, 0) and flipped.freeze_supply == 20
    assert flipped.score_breakdown()["Ann"]["ice_cream"] == 30
    assert unchanged(flipped, Move.make("flip", tile=ICE_30)).rule == "flip"
    broke = roll(situation(owned={0: [ICE_30]}), NO_SET)
    assert unchanged(broke, Move.make("flip", tile=ICE_30)).rule == "flip ice cream"


def test_reroll_ones_ability_once_per_turn_and_no_token():
    state = roll(situation(owned={0: [ICE_10]}, flipped=[ICE_10]), NO_SET)
    used = state.apply(Move.make("ability", tile=ICE_10))
    assert used.dice_to_roll().count == 4  # the four 1s
    assert used.freeze == (0, 0, 0)
    after = roll(used, "white:4 white:6 white:1 yellow:1")
    assert after.phase == "lock" and after.roll_no == 1
    assert unchanged(after, Move.make("ability", tile=ICE_10)).rule == "ice cream ability"
    assert lock(after, "white:4 white:6").barns[0]  # sets from an ability roll go to the same barn


def test_reroll_twos_and_one_die_abilities():
    state = roll(situation(owned={0: [ICE_20, ICE_30]}, flipped=[ICE_20, ICE_30]), NO_SET)
    assert state.apply(Move.make("ability", tile=ICE_20)).dice_to_roll().count == 1
    one = state.apply(Move.make("ability", tile=ICE_30, die="white:3"))
    assert one.dice_to_roll().colours == ("white",)
    assert unchanged(state, Move.make("ability", tile=ICE_30)).rule == "ice cream ability"
    assert unchanged(state, Move.make("ability", tile=ICE_30, die="white:6")).rule == "ice cream ability"


def test_abilities_need_a_flipped_tile_and_a_fresh_roll():
    unflipped = roll(situation(owned={0: [ICE_10]}), NO_SET)
    assert unchanged(unflipped, Move.make("ability", tile=ICE_10)).rule == "ice cream ability"
    state = lock(roll(situation(owned={0: [ICE_10]}, flipped=[ICE_10]), "white:6 white:4 white:1 white:1 white:1 "
                      "white:1 white:1 yellow:1"), "white:6 white:4")
    assert unchanged(state, Move.make("ability", tile=ICE_10)).rule == "turn order"


# -- backorders, red dice and spoilage ---------------------------------------------------
def test_backorder_tokens_add_red_dice_usable_in_sets():
    state = situation(backorders=[2, 0, 0])
    assert sorted(state.dice_to_roll().colours) == ["red", "red"] + ["white"] * 7 + ["yellow"]
    state = roll(state, "red:6 red:4 white:1 white:1 white:1 white:1 white:1 white:1 white:1 yellow:1")
    state = lock(state, "red:6 red:4")
    assert state.barn_total == 10
    after = state.apply(Move.make("claim", tiles=[t for t in state.display if state.tiles[t].value == 10][:1])) \
        if any(state.tiles[t].value == 10 for t in state.display) else state.apply(Move("fail"))
    assert after.current_player == "Bob"
    assert "red" not in after.dice_to_roll().colours


def test_spoilage_when_the_last_backorder_token_is_taken():
    owned = {0: [CHEESE_40_FACE_5, ICE_10, 12], 1: [ICE_30, ICE_20], 2: [13]}
    state = situation(owned=owned, flipped=[ICE_30], backorders=[1, 2, 0], current=0,
                      display=[ICE_10 + 1, ICE_20 + 1, ICE_30 + 1])
    coming = [a for a in state.alerts() if a.kind == "spoilage_coming"]
    assert coming and set(coming[0].players) == {"Ann", "Bob"}  # if Ann fails: Ann 2, Bob 2, Cy 0
    stack_before = state.stack
    after = roll(state, NO_SET + " red:1").apply(Move("fail"))  # Ann takes the 4th and last token: Ann 2, Bob 2
    assert after.backorders == (0, 0, 0) and after.backorder_supply == 4
    assert CHEESE_40_FACE_5 not in after.owned[0] and set(after.owned[0]) == {ICE_10, 12}
    assert set(after.owned[1]) == {ICE_30}        # the flipped ice cream is safe; Bob loses his milk 20
    assert after.owned[2] == (13,)                # Cy had fewer backorders
    returned = {CHEESE_40_FACE_5, ICE_20, ICE_10 + 1, ICE_20 + 1, ICE_30 + 1}
    assert after.display == stack_before[:3]
    assert set(after.stack[-5:]) == returned and after.stack[:-5] == stack_before[3:]
    assert any(a.kind == "spoilage" for a in after.alerts())


# -- the end -----------------------------------------------------------------------------
def test_game_ends_when_the_display_cannot_be_refilled():
    data = situation(display=[ICE_10, ICE_20, ICE_30]).to_json()
    data["owned"][1] = data["stack"][1:]  # one tile left in the stack
    data["stack"] = data["stack"][:1]
    state = GAME.state_from_json(data)
    assert any(a.kind == "final_round" for a in state.alerts())
    state = lock(roll(state, "white:6 white:4 white:5 white:5 white:1 white:1 white:1 yellow:1"),
                 "white:6 white:4", "white:5 white:5")
    one = state.apply(Move.make("claim", tiles=[ICE_20]))
    assert not one.is_terminal() and len(one.display) == 3 and not one.stack
    state = lock(roll(one, "white:6 white:4 white:1 white:1 white:1 white:1 white:1 yellow:1"), "white:6 white:4")
    over = state.apply(Move.make("claim", tiles=[ICE_10]))
    assert over.is_terminal() and over.current_player is None and over.legal_moves() == []
    assert over.dice_to_roll() is None
    alerts = [a for a in over.alerts() if a.kind == "game_over"]
    assert alerts and over.winners()[0] in alerts[0].message
    with pytest.raises(RuleError):
        over.apply(Move("fail"))


def test_final_score_counts_tiles_cheese_bonus_and_backorders():
    state = situation(owned={0: [CHEESE_40_FACE_5, ICE_30, 12], 1: [], 2: [ICE_10]},
                      flipped=[CHEESE_40_FACE_5, ICE_30], backorders=[1, 0, 2])
    assert state.score_breakdown()["Ann"] == {"milk": 10, "cheese": 45, "ice_cream": 30, "backorders": -5}
    assert state.scores() == {"Ann": 80, "Bob": 0, "Cy": 0}
    assert state.winners() == ["Ann"]


# -- JSON --------------------------------------------------------------------------------
def test_json_round_trip_through_a_whole_game():
    state, rng = GAME.new_game(PLAYERS, seed=11), random.Random(11)
    while not state.is_terminal():
        if state.dice_to_roll():
            state = state.apply_roll(state.random_roll(rng))
        else:
            state = state.apply(rng.choice(state.legal_moves()))
        copy = GAME.state_from_json(json.loads(json.dumps(state.to_json())))
        assert copy.to_json() == state.to_json()
        assert copy.legal_moves() == state.legal_moves()


def test_move_json_round_trip():
    state = roll(situation(), "white:6 white:4 white:5 white:5 white:1 white:1 white:1 yellow:1")
    for move in state.legal_moves():
        assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move


def _corrupt(change):
    data = situation().to_json()
    change(data)
    return data


@pytest.mark.parametrize("data", [
    None, [], "dairyman", {"game": "whirling-derby"}, {"game": "dairyman"},
    _corrupt(lambda d: d.update(stack=d["stack"][1:])),
    _corrupt(lambda d: d.update(display=d["display"] + d["display"][:1])),
    _corrupt(lambda d: d.update(backorders=[9, 0, 0])),
    _corrupt(lambda d: d.update(freeze=[-1, 0, 0])),
    _corrupt(lambda d: d.update(phase="dancing")),
    _corrupt(lambda d: d.update(pending={"kept": [], "colours": ["white"] * 3})),
    _corrupt(lambda d: d.update(roll=["white:7"])),
    _corrupt(lambda d: d.update(players="Ann")),
    _corrupt(lambda d: d.update(flipped=[0])),
    _corrupt(lambda d: d.update(current=5)),
    _corrupt(lambda d: d.update(barns=[[["white:6", "white:3"]], [], []])),
    _corrupt(lambda d: d.update(events=[{"kind": "spoilage"}])),
    _corrupt(lambda d: d.update(events=[{"kind": "roll_failed", "player": "Zed"}])),
    _corrupt(lambda d: d.update(events=[{"kind": "fireworks"}])),
])
def test_junk_state_is_refused_with_a_user_error(data):
    with pytest.raises(UserError) as caught:
        GAME.state_from_json(data)
    assert "\n" not in str(caught.value)
