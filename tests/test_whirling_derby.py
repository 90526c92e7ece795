"""Whirling Derby rules: set-up, the re-roll, placement patterns, activation, the three
actions, the own-colour rule, winning, colours read by the camera, JSON, advice."""
import json
from dataclasses import replace

import pytest

from companion.engine import Die, Move, parse_dice
from companion.errors import RuleError, UserError
from companion.games import get_game
from companion.games.whirling_derby import WhirlingDerby

GAME = get_game("whirling-derby")
P = ("Ann", "Bob", "Cy")          # red, blue, green by default


def dice(text):
    return tuple(sorted(parse_dice(text)))


def position(players=P, stage="activate", boards=None, sides=None, turn_seat=0, actor=None, options=None, **fields):
    """A state with the given cards: boards = {seat: {card: "red:1 red:2"}}, sides = {seat: {card: 1}}."""
    state = GAME.new_game(players, options)
    rows = []
    for seat in range(len(players)):
        row = []
        for i, card in enumerate(state.rules.cards):
            row.append(((sides or {}).get(seat, {}).get(card.key, 0), dice((boards or {}).get(seat, {}).get(card.key, ""))))
        rows.append(tuple(row))
    for key in ("pending", "outgoing", "compost"):
        if key in fields:
            fields[key] = dice(fields[key])
    return replace(state, boards=tuple(rows), stage=stage, turn_seat=turn_seat,
                   actor=turn_seat if actor is None else actor, reroll=(), turn=5, **fields)


def place(die, card, **extra):
    return Move.make("place", die=die, card=card, **extra)


def unchanged(state, move, rule):
    """Apply an illegal move: RuleError naming ``rule``, one line, state as before."""
    before = json.dumps(state.to_json(), sort_keys=True)
    with pytest.raises(RuleError) as err:
        state.apply(move)
    assert err.value.rule == rule and "\n" not in str(err.value)
    assert json.dumps(state.to_json(), sort_keys=True) == before
    return str(err.value)


def on(state, seat, card):
    return [str(d) for d in state.boards[seat][state.rules.card_index(card)][1]]


# -- set-up -------------------------------------------------------------------------------

@pytest.mark.parametrize("count, expected", [
    (2, {"red": 10, "blue": 9, "white": 10}),
    (3, {"red": 10, "blue": 9, "green": 8}),
    (4, {"red": 10, "blue": 9, "green": 8, "yellow": 7}),
])
def test_each_seat_starts_with_its_number_of_dice_and_two_players_add_neutrals(count, expected):
    state = GAME.new_game(GAME.default_players(count))
    assert dict(state.starting_totals()) == expected
    request = state.dice_to_roll()
    assert request.player == "Player 2"       # the second seat rolls first at set-up
    assert sorted(request.colours).count("blue") == 9
    assert request.colours.count("white") == (5 if count == 2 else 0)


def test_setup_has_later_seats_place_their_dice_then_the_first_player_rolls_all_theirs():
    state = GAME.new_game(("Ann", "Bob"))
    state = state.apply_roll(parse_dice("blue:1 " * 9 + "white:2 " * 5))
    assert state.current_player == "Bob" and state.phase == "setup_place"
    for _ in range(14):
        state = state.apply(GAME.advise(state)[0].move)
    assert state.dice_on_cards(1) == 14
    request = state.dice_to_roll()
    assert request.player == "Ann" and request.colours.count("red") == 10 and request.colours.count("white") == 5
    assert state.dice_by_colour() == state.starting_totals()


def test_setup_placements_may_not_activate_anything():
    state = GAME.new_game(("Ann", "Bob")).apply_roll(parse_dice("blue:1 " * 9 + "white:2 " * 5))
    assert {m.kind for m in state.legal_moves()} == {"place"}
    unchanged(state, Move.make("activate", card="kind"), "turn sequence")


# -- the re-roll ---------------------------------------------------------------------------

def test_reroll_of_a_card_asks_for_exactly_its_dice_and_empties_it():
    state = position(stage="choose_reroll", boards={0: {"kind": "red:2 blue:2", "stove": "red:5"}})
    rolled = state.apply(Move.make("reroll", card="kind"))
    assert sorted(rolled.dice_to_roll().colours) == ["blue", "red"]
    assert on(rolled, 0, "kind") == [] and on(rolled, 0, "stove") == ["red:5"]


def test_reroll_of_a_colour_takes_that_colour_off_every_card():
    state = position(stage="choose_reroll", boards={0: {"kind": "red:2 blue:2", "stove": "red:5 green:1"}})
    rolled = state.apply(Move.make("reroll", colour="red"))
    assert rolled.dice_to_roll().colours == ("red", "red")
    assert on(rolled, 0, "kind") == ["blue:2"] and on(rolled, 0, "stove") == ["green:1"]


def test_reroll_is_mandatory_and_must_name_dice_the_player_has():
    state = position(stage="choose_reroll", boards={0: {"stove": "red:5"}})
    assert all(m.kind == "reroll" for m in state.legal_moves())
    unchanged(state, Move.make("reroll", card="run"), "re-roll")
    unchanged(state, Move.make("reroll", colour="blue"), "re-roll")
    unchanged(state, Move.make("activate", card="run"), "turn sequence")


def test_roll_must_match_the_requested_dice():
    state = position(stage="choose_reroll", boards={0: {"stove": "red:5 red:1"}}).apply(
        Move.make("reroll", card="stove"))
    with pytest.raises(RuleError):
        state.apply_roll(parse_dice("red:3"))
    with pytest.raises(RuleError):           # blue is in play but not among the dice rolled
        state.apply_roll(parse_dice("red:3 blue:4"))
    assert state.apply_roll(parse_dice("red:3 red:4")).pending == dice("red:3 red:4")


# -- colours read by the camera -----------------------------------------------------------

def test_a_die_of_a_colour_nobody_plays_is_taken_as_a_rolled_colour_and_flagged():
    state = position(stage="choose_reroll", boards={0: {"stove": "red:5 blue:1"}}).apply(
        Move.make("reroll", card="stove"))
    rolled = state.apply_roll(parse_dice("purple:4 red:2"))
    assert rolled.pending == dice("blue:4 red:2")
    alerts = [a for a in rolled.alerts() if a.kind == "confirm_colour"]
    assert len(alerts) == 1 and "purple" in alerts[0].message and "blue" in alerts[0].message
    texts = {m.get("die"): rolled.describe(m) for m in rolled.legal_moves()}
    assert "confirm" in texts["blue:4"] and "confirm" not in texts["red:2"]


def test_an_unread_colour_is_flagged_until_the_roll_is_placed():
    state = position(stage="choose_reroll", boards={0: {"stove": "red:5 red:1"}}).apply(
        Move.make("reroll", card="stove"))
    rolled = state.apply_roll((Die(6), Die(6, "red")))
    assert rolled.pending == dice("red:6 red:6")
    assert [a.kind for a in rolled.alerts()] == ["confirm_colour"]
    placed = rolled.apply(place("red:6", "kind")).apply(place("red:6", "kind"))
    assert placed.phase == "activate" and not [a for a in placed.alerts() if a.kind == "confirm_colour"]


def test_a_read_colour_does_not_make_dice_someone_elses():
    """Ann re-rolls a blue die she holds: it stays blue whatever it shows."""
    state = position(stage="choose_reroll", boards={0: {"stove": "blue:5"}}).apply(Move.make("reroll", colour="blue"))
    assert state.apply_roll(parse_dice("blue:2")).pending == dice("blue:2")


# -- placement patterns -------------------------------------------------------------------

def test_a_run_takes_different_values_and_may_have_gaps_while_filling():
    state = position(stage="assign", boards={0: {"run": "red:2 red:4"}}, pending="red:4 red:6 red:3")
    message = unchanged(state, place("red:4", "run"), "A Run")
    assert "4" in message
    state = state.apply(place("red:6", "run"))          # a gap at 5 is allowed while filling
    assert on(state, 0, "run") == ["red:2", "red:4", "red:6"]


def test_a_run_with_a_gap_cannot_be_activated_and_a_full_run_can():
    gap = position(boards={0: {"run": "red:2 red:3 red:5"}})
    message = unchanged(gap, Move.make("activate", card="run"), "activate a complete card")
    assert "gap" in message
    run = position(boards={0: {"run": "red:2 red:3 red:4 blue:5"}})
    assert run.apply(Move.make("activate", card="run")).outgoing == dice("red:2 red:3 red:4 blue:5")


def test_all_of_a_kind_takes_only_the_same_value():
    state = position(stage="assign", boards={0: {"kind": "red:3 blue:3"}}, pending="red:4 red:3")
    unchanged(state, place("red:4", "kind"), "All of a Kind")
    assert on(state.apply(place("red:3", "kind")), 0, "kind") == ["blue:3", "red:3", "red:3"]


def test_pairs_refuse_a_die_that_breaks_the_pairs():
    state = position(stage="assign", boards={0: {"pairs": "red:3 red:5"}}, pending="red:6 red:3")
    unchanged(state, place("red:6", "pairs"), "One or Two Pair")
    assert on(state.apply(place("red:3", "pairs")), 0, "pairs") == ["red:3", "red:3", "red:5"]


@pytest.mark.parametrize("held", ["red:3 red:5", "red:3 red:3 red:5", "red:4"])
def test_pairs_with_a_broken_pair_or_too_few_dice_cannot_be_activated(held):
    state = position(boards={0: {"pairs": held}})
    unchanged(state, Move.make("activate", card="pairs"), "activate a complete card")


@pytest.mark.parametrize("held", ["red:3 blue:3", "red:3 red:3 red:5 blue:5", "red:2 red:2 red:2 red:2"])
def test_one_or_two_pairs_can_be_activated(held):
    assert position(boards={0: {"pairs": held}}).apply(Move.make("activate", card="pairs")).phase == "distribute"


def test_back_sides_hold_one_to_three_and_the_different_side_refuses_equal_dice():
    flipped = {0: {"run": 1, "kind": 1, "pairs": 1}}
    state = position(stage="assign", sides=flipped, boards={0: {"run": "red:2", "kind": "red:1 red:1 red:1",
                                                                 "pairs": "red:4 red:4"}}, pending="red:2 red:5")
    unchanged(state, place("red:2", "run"), "1-3 Different")
    unchanged(state, place("red:5", "kind"), "1-3 Any")
    unchanged(state, place("red:5", "pairs"), "2 Any")
    assert on(state.apply(place("red:5", "run")), 0, "run") == ["red:2", "red:5"]


def test_the_stove_takes_any_number_of_dice_and_is_never_activated():
    state = position(stage="assign", boards={0: {"stove": "red:1 red:2 red:3 red:4 red:5 red:6"}}, pending="red:1")
    assert on(state.apply(place("red:1", "stove")), 0, "stove")[0:2] == ["red:1", "red:1"]
    full = position(boards={0: {"stove": "red:1 red:1 red:1"}})
    assert Move.make("activate", card="stove") not in full.legal_moves()
    unchanged(full, Move.make("activate", card="stove"), "activate a complete card")


def test_a_player_must_activate_a_complete_card_and_may_end_the_turn_only_without_one():
    complete = position(boards={0: {"kind": "red:3 red:3"}, 1: {"stove": "blue:1"}, 2: {"stove": "green:1"}})
    unchanged(complete, Move.make("end_turn"), "activate one card")
    stuck = position(boards={0: {"kind": "red:3", "stove": "red:4"}, 1: {"stove": "blue:1 blue:2"},
                             2: {"stove": "green:1"}})
    assert stuck.legal_moves() == [Move.make("end_turn")]
    assert [a.kind for a in stuck.alerts()] == ["no_activation"]
    after = stuck.apply(Move.make("end_turn"))
    assert after.current_player == "Bob" and after.phase == "choose_reroll"


def test_activating_flips_the_card_to_its_other_side():
    state = position(boards={0: {"kind": "red:3 red:3"}}).apply(Move.make("activate", card="kind"))
    assert state.to_json()["boards"][0]["kind"] == {"side": "any_one_to_three", "dice": []}


# -- actions ------------------------------------------------------------------------------

def test_distribute_sends_the_first_die_to_the_compost_then_hands_out_clockwise():
    state = position(boards={0: {"run": "red:1 red:2 red:3 red:4 red:5", "stove": "red:6"}, 1: {"stove": "blue:6"},
                             2: {"stove": "green:6"}}).apply(Move.make("activate", card="run"))
    route = []
    for die in ("red:1", "red:2", "red:3", "red:4", "red:5"):
        state = state.apply(Move.make("hand", die=die))
        if state.phase == "receive":
            route.append(state.current_player)
            state = state.apply(place(die, "stove"))
        else:
            route.append("Compost")
    assert route == ["Compost", "Bob", "Cy", "Compost", "Bob"]     # back round to Ann: the Compost again
    assert [str(d) for d in state.compost] == ["red:1", "red:4"]
    assert state.current_player == "Bob" and state.phase == "choose_reroll"


def test_the_distributor_may_choose_the_order():
    state = position(boards={0: {"run": "red:1 red:2"}, 1: {"stove": "blue:6"}}).apply(
        Move.make("activate", card="run"))
    state = state.apply(Move.make("hand", die="red:2"))
    assert state.compost == dice("red:2")
    assert state.apply(Move.make("hand", die="red:1")).pending == dice("red:1")


def test_received_dice_are_placed_at_once_by_the_receiver_without_a_reroll():
    state = position(boards={0: {"kind": "red:3 red:3"}, 1: {"kind": "blue:3"}}).apply(
        Move.make("activate", card="kind")).apply(Move.make("hand", die="red:3")).apply(
        Move.make("hand", die="red:3"))
    assert state.current_player == "Bob" and state.phase == "receive" and state.dice_to_roll() is None
    assert {m.kind for m in state.legal_moves()} == {"place"}
    unchanged(state, Move.make("reroll", card="kind"), "turn sequence")
    unchanged(state, place("red:3", "kind", player="Ann"), "turn order")
    state = state.apply(place("red:3", "kind", player="Bob"))
    assert on(state, 1, "kind") == ["blue:3", "red:3"]


def test_a_player_is_never_handed_their_own_colour_while_another_die_can_go():
    state = position(boards={0: {"run": "red:1 blue:2 red:3"}, 1: {"stove": "blue:6"}}).apply(
        Move.make("activate", card="run")).apply(Move.make("hand", die="red:1"))
    message = unchanged(state, Move.make("hand", die="blue:2"), "never give a player their own colour")
    assert "Bob" in message and "blue" in message
    assert Move.make("hand", die="blue:2") not in state.legal_moves()


def test_a_forced_own_colour_die_bounces_to_the_compost():
    state = position(boards={0: {"run": "red:1 blue:2", "stove": "red:6"}, 1: {"stove": "blue:5 blue:6"}}).apply(
        Move.make("activate", card="run")).apply(Move.make("hand", die="red:1"))
    assert "bounces" in state.describe(Move.make("hand", die="blue:2"))
    state = state.apply(Move.make("hand", die="blue:2"))
    assert state.compost == dice("red:1 blue:2") and on(state, 1, "stove") == ["blue:5", "blue:6"]
    assert state.current_player == "Bob"       # Ann's turn ended


def test_give_both_dice_to_one_player_who_places_them():
    state = position(sides={0: {"pairs": 1}}, boards={0: {"pairs": "red:1 red:6"}, 1: {"stove": "blue:1"},
                                                       2: {"stove": "green:1"}})
    state = state.apply(Move.make("activate", card="pairs"))
    assert state.phase == "give"
    unchanged(state, Move.make("give", to="Ann"), "give to one player")
    state = state.apply(Move.make("give", to="Cy"))
    assert state.current_player == "Cy" and state.pending == dice("red:1 red:6")


def test_give_refuses_a_player_their_own_colour_unless_every_player_would_get_theirs():
    free = position(sides={0: {"pairs": 1}}, boards={0: {"pairs": "blue:1 red:6"}}).apply(
        Move.make("activate", card="pairs"))
    unchanged(free, Move.make("give", to="Bob"), "never give a player their own colour")
    assert [m["to"] for m in free.legal_moves()] == ["Cy"]
    forced = position(sides={0: {"pairs": 1}}, boards={0: {"pairs": "blue:1 green:6"}}).apply(
        Move.make("activate", card="pairs"))
    state = forced.apply(Move.make("give", to="Bob"))
    assert state.pending == dice("green:6") and state.compost == dice("blue:1")


def test_set_any_side_and_reassign_dice_without_rerolling():
    state = position(sides={0: {"kind": 1}}, boards={0: {"kind": "red:5", "run": "red:2 red:4",
                                                          "stove": "red:3 red:6"}})
    state = state.apply(Move.make("activate", card="kind"))
    assert state.phase == "set_side" and state.pending == dice("red:5")
    assert state.to_json()["boards"][0]["kind"]["side"] == "all_of_a_kind"
    state = state.apply(Move.make("set_side", card="run", side="not_equal"))
    assert state.pending == dice("red:2 red:4 red:5")           # dice on a card set to a side are reassigned
    state = state.apply(Move.make("lift", card="stove", die="red:3"))
    unchanged(state, Move.make("lift", card="stove", die="red:1"), "reassign")
    state = state.apply(Move.make("done_lifting"))
    for die, card in (("red:2", "run"), ("red:3", "run"), ("red:4", "run"), ("red:5", "kind")):
        state = state.apply(place(die, card))
    assert on(state, 0, "run") == ["red:2", "red:3", "red:4"] and on(state, 0, "stove") == ["red:6"]
    assert state.current_player == "Bob"


# -- winning and ending -------------------------------------------------------------------

def test_the_first_player_without_dice_at_the_end_of_their_turn_wins():
    state = position(boards={0: {"kind": "red:2 red:2"}, 1: {"stove": "blue:1"}, 2: {"stove": "green:1"}})
    state = state.apply(Move.make("activate", card="kind")).apply(Move.make("hand", die="red:2"))
    state = state.apply(Move.make("hand", die="red:2"))
    assert not state.is_terminal()                              # Bob places his gift first
    state = state.apply(place("red:2", "stove"))
    assert state.is_terminal() and state.winners() == ["Ann"] and state.current_player is None
    assert [a.kind for a in state.alerts()] == ["game_over"]
    with pytest.raises(RuleError):
        state.apply(Move.make("end_turn"))


def test_a_stalemate_where_nobody_can_complete_a_card_ends_the_game():
    state = position(players=("Ann", "Bob"), boards={0: {"run": "red:4"}, 1: {"kind": "blue:1 blue:2"}},
                     stage="activate")
    assert state.apply(Move.make("end_turn")).phase == "choose_reroll"    # Bob still holds 2 dice
    stuck = position(players=("Ann", "Bob"), boards={0: {"run": "red:4"}, 1: {"kind": "blue:1"}})
    over = stuck.apply(Move.make("end_turn"))
    assert over.is_terminal() and over.ended_by == "stalemate" and over.winners() == ["Ann"]
    assert [a.kind for a in over.alerts()] == ["stalemate"]


def test_the_turn_cap_ends_the_game_with_an_alert():
    state = position(options={"turn_cap": 5}, boards={0: {"run": "red:4"}, 1: {"kind": "blue:1 blue:2"},
                                                       2: {"stove": "green:1 green:2"}})
    over = state.apply(Move.make("end_turn"))
    assert over.is_terminal() and over.ended_by == "turn_cap" and over.winners() == ["Ann"]
    assert "turn cap" in over.alerts()[0].message


# -- JSON ---------------------------------------------------------------------------------

def play(state, steps, seed=0):
    import random
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state = state.apply_roll(state.random_roll(rng)) if state.dice_to_roll() else \
            state.apply(GAME.advise(state)[0].move)
    return state


@pytest.mark.parametrize("steps", [0, 3, 40, 120, 400])
def test_states_round_trip_through_json(steps):
    state = play(GAME.new_game(P), steps)
    again = GAME.state_from_json(json.loads(json.dumps(state.to_json())))
    assert again == state and again.legal_moves() == state.legal_moves()


def test_moves_round_trip_through_json():
    state = play(GAME.new_game(P), 60)
    for move in state.legal_moves():
        assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move


@pytest.mark.parametrize("junk", [
    None, [], "state", {"game": "dairyman"}, {"game": "whirling-derby"},
    {"game": "whirling-derby", "players": ["Ann", "Bob"], "boards": "x"},
])
def test_junk_is_not_a_state(junk):
    with pytest.raises(UserError) as err:
        GAME.state_from_json(junk)
    assert "\n" not in str(err.value)


def test_a_state_whose_dice_do_not_add_up_or_break_a_pattern_is_refused():
    data = play(GAME.new_game(P), 60).to_json()
    lost = json.loads(json.dumps(data))
    lost["compost"].append("red:1")
    with pytest.raises(UserError, match="add up"):
        GAME.state_from_json(lost)
    bad_die = json.loads(json.dumps(data))
    bad_die["pending"] = ["red:9"]
    with pytest.raises(UserError):
        GAME.state_from_json(bad_die)


def test_a_run_with_a_repeated_value_in_json_is_refused():
    everyone = {0: {"run": "red:2 red:3", "stove": "red:1 " * 8}, 1: {"stove": "blue:1 " * 9},
                2: {"stove": "green:1 " * 8}}
    data = position(stage="choose_reroll", boards=everyone).to_json()
    assert GAME.state_from_json(data).dice_on_cards(0) == 10
    data["boards"][0]["run"]["dice"] = ["red:2", "red:2"]
    with pytest.raises(UserError, match="pattern"):
        GAME.state_from_json(data)


# -- options and card data ----------------------------------------------------------------

def test_card_data_is_overridable_from_a_toml_file(tmp_path):
    data = tmp_path / "cards.toml"
    data.write_text('[sides.not_equal]\npattern = "not_all_equal"\n[setup]\nfour_equal_is_two_pairs = false\n')
    options = {"card_data": str(data)}
    flipped = position(stage="assign", options=options, sides={0: {"run": 1}}, boards={0: {"run": "red:2"}},
                       pending="red:2")
    assert on(flipped.apply(place("red:2", "run")), 0, "run") == ["red:2", "red:2"]   # 2 2: allowed, not 2 2 2
    four = position(stage="assign", options=options, boards={0: {"pairs": "red:2 red:2"}}, pending="red:2")
    unchanged(four, place("red:2", "pairs"), "One or Two Pair")


@pytest.mark.parametrize("text", ['[sides.a_run]\npattern = "zigzag"\n', "not toml [", '[cards]\nstove = ["nope"]\n'])
def test_bad_card_data_is_a_one_line_error(tmp_path, text):
    data = tmp_path / "cards.toml"
    data.write_text(text)
    with pytest.raises(UserError) as err:
        GAME.new_game(P, {"card_data": str(data)})
    assert "\n" not in str(err.value)


def test_colours_are_an_option_and_must_be_four_distinct_non_neutral_colours():
    state = GAME.new_game(P, {"colours": "orange,purple,black,pink"})
    assert set(state.starting_totals()) == {"orange", "purple", "black"}
    for bad in ("red,red,blue,green", "red,blue", "red,blue,green,white"):
        with pytest.raises(UserError):
            GAME.new_game(P, {"colours": bad})


def test_the_game_is_registered_with_its_card_data():
    assert isinstance(GAME, WhirlingDerby)
    info = GAME.describe()
    assert info["players"] == [2, 4]
    assert [c["card"] for c in info["cards"]] == ["run", "kind", "pairs", "stove"]


# -- advice -------------------------------------------------------------------------------

def top(state):
    return GAME.advise(state)[0]


def test_advice_lists_every_legal_move_once_and_identical_dice_once():
    state = position(stage="assign", pending="red:4 red:4 blue:4", boards={0: {"kind": "red:4"}})
    advice = GAME.advise(state)
    moves = [s.move for s in advice]
    assert sorted(moves, key=str) == sorted(state.legal_moves(), key=str) and len(set(moves)) == len(moves)
    assert sum(m["die"] == "red:4" and m["card"] == "kind" for m in moves) == 1
    assert all(s.reason and s.text for s in advice)


def test_placement_advice_builds_the_card_that_gives_most_away_now():
    state = position(stage="assign", pending="red:1 red:2 red:3 red:4 red:5 blue:5")
    assert top(state).advice["give_now"] == 5                             # a run 1-5 can be completed
    while state.phase == "assign":
        state = state.apply(top(state).move)
    assert [d.value for d in state.boards[0][0][1]] == [1, 2, 3, 4, 5]
    assert top(state).move == Move.make("activate", card="run")


def test_activation_advice_prefers_the_card_giving_away_more_dice():
    state = position(boards={0: {"kind": "red:6 red:6 red:6 red:6", "run": "red:2 red:3"}})
    best = top(state)
    assert best.move == Move.make("activate", card="kind") and best.advice["give_now"] == 4


def test_reroll_advice_rolls_loose_dice_and_keeps_complete_cards():
    state = position(stage="choose_reroll", boards={0: {"kind": "red:6 red:6 red:6", "stove": "red:1 red:3 blue:2"}})
    assert top(state).move == Move.make("reroll", card="stove")


def test_give_advice_burdens_the_player_closest_to_winning():
    state = position(sides={0: {"pairs": 1}}, boards={0: {"pairs": "red:1 red:6"}, 1: {"stove": "blue:1 " * 7},
                                                       2: {"stove": "green:1 green:2"}})
    state = state.apply(Move.make("activate", card="pairs"))
    assert top(state).move == Move.make("give", to="Cy")


def test_distribute_advice_composts_others_colours_and_hands_out_your_own():
    state = position(boards={0: {"run": "red:1 blue:2 green:3", "stove": "red:5"}, 1: {"stove": "blue:6"},
                             2: {"stove": "green:6"}}).apply(Move.make("activate", card="run"))
    assert top(state).move["die"] in ("blue:2", "green:3")             # to the Compost: someone else's colour
    state = state.apply(Move.make("hand", die="blue:2"))
    assert top(state).move == Move.make("hand", die="red:1")           # to Bob: your own colour


def test_advice_with_one_die_left_finds_the_way_out_through_set_and_reassign():
    """With one die and only two-dice fronts, the 1-3 Any side lets Ann set her run card to
    1-3 Different, which a single die can activate next turn."""
    state = position(stage="assign", sides={0: {"kind": 1}}, pending="red:5",
                     boards={1: {"stove": "blue:1 blue:2"}, 2: {"stove": "green:1 green:2"}})
    state = state.apply(top(state).move)
    assert on(state, 0, "kind") == ["red:5"]
    state = state.apply(top(state).move)                                  # activate 1-3 Any
    assert state.phase == "set_side"
    assert top(state).move == Move.make("set_side", card="run", side="not_equal")


@pytest.mark.parametrize("side, held, extra, most", [
    ("a_run", (), (1, 2, 3, 5, 6), 3),
    ("a_run", (5,), (1, 2, 3, 4, 6), 6),
    ("a_run", (2, 4), (1, 5, 6), 0),             # the gap at 3 cannot be filled
    ("a_run", (2, 4), (3,), 3),
    ("a_run", (), (4,), 0),
    ("all_of_a_kind", (), (2, 2, 6, 6, 6), 3),
    ("all_of_a_kind", (2,), (6, 6, 6), 0),
    ("one_or_two_pair", (3,), (3, 5, 5, 5, 5), 4),
    ("one_or_two_pair", (3, 5), (3,), 0),        # the 5 stays unpaired
    ("one_or_two_pair", (), (1, 1, 1, 1, 1), 4),
    ("not_equal", (), (2, 2, 2), 1),
    ("not_equal", (2,), (2, 3, 4, 5), 3),
    ("any_two", (), (6,), 0),
    ("any_one_to_three", (), (1, 2, 3, 4), 3),
    ("stove", (), (1, 2), 0),
])
def test_the_most_dice_a_side_can_be_activated_with(side, held, extra, most):
    from companion.games.whirling_derby import best_activation, load_rules
    sides = {s.key: s for card in load_rules().cards for s in card.sides}
    assert best_activation(sides[side], held, extra, True) == most
