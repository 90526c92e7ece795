"""Dairyman dice arithmetic and advice, checked against independent brute force."""
import functools
import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.bench_games import dairyman_worst_roll_state
from companion.engine import Die, Move, parse_dice
from companion.games import dairyman_advice as dm
from companion.games import get_game

GAME = get_game("dairyman")
PLAYERS = ("Ann", "Bob", "Cy")


# -- independent brute force ---------------------------------------------------------------
def brute_sets(values):
    """Index tuples of 2-3 dice totalling ten."""
    return [c for size in (2, 3) for c in itertools.combinations(range(len(values)), size)
            if sum(values[i] for i in c) == 10]


def brute_has_set(values):
    return bool(brute_sets(values))


def brute_locks(dice):
    """Every non-empty collection of disjoint sets, as a canonical multiset of die multisets."""
    values = [d.value for d in dice]
    sets = brute_sets(values)
    found = set()

    def walk(start, used, chosen):
        for i in range(start, len(sets)):
            if used.isdisjoint(sets[i]):
                pick = chosen + [tuple(sorted((dice[j].colour, dice[j].value) for j in sets[i]))]
                found.add(tuple(sorted(pick)))
                walk(i + 1, used | set(sets[i]), pick)

    walk(0, frozenset(), [])
    return found


def brute_p_set(kept, n):
    return _brute_p_set(tuple(sorted(kept)), n)


@functools.cache
def _brute_p_set(kept, n):
    hits = sum(brute_has_set(list(kept) + list(roll)) for roll in itertools.product(range(1, 7), repeat=n))
    return Fraction(hits, 6 ** n)


def brute_packings(values):
    """Every (sets, dice used) reachable by locking disjoint sets from ``values``."""
    sets = brute_sets(values)
    found = set()

    def walk(start, used, k):
        for i in range(start, len(sets)):
            if used.isdisjoint(sets[i]):
                found.add((k + 1, len(used) + len(sets[i])))
                walk(i + 1, used | set(sets[i]), k + 1)

    walk(0, frozenset(), 0)
    return found


def brute_value(claims, fail, n, s, frozen=()):
    """Best expected points with ``n`` dice to roll beside ``frozen``, ``s`` sets locked."""
    def stop(sets):
        return claims[min(sets, len(claims) - 1)]

    def value(dice, sets):
        best = stop(sets)
        if dice:
            best = max(best, reroll(dice, sets, ()))
        return best

    def reroll(dice, sets, kept):
        total = 0.0
        for roll in itertools.product(range(1, 7), repeat=dice):
            faces = list(kept) + list(roll)
            options = brute_packings(faces)
            total += max((value(len(faces) - used, sets + k) for k, used in options), default=fail)
        return total / 6 ** dice

    return reroll(n, s, frozen)


DICE = st.builds(Die, st.integers(1, 6), st.sampled_from(["white", "yellow", "red"]))


# -- sets and locks ----------------------------------------------------------------------
@given(st.lists(DICE, min_size=0, max_size=9))
def test_locks_match_brute_force_and_appear_once(dice):
    ours = dm.enumerate_locks(sorted(dice))
    canonical = [tuple(sorted(tuple(sorted((d.colour, d.value) for d in s)) for s in lock)) for lock in ours]
    assert len(canonical) == len(set(canonical))
    assert set(canonical) == brute_locks(dice)
    assert dm.has_set(dm.counts_of(d.value for d in dice)) == bool(ours)


def test_identical_dice_give_one_move_but_colours_count():
    state = GAME.new_game(PLAYERS, seed=1).apply_roll(parse_dice("white:5 white:5 white:5 white:1 white:1 "
                                                                 "white:1 white:1 yellow:5"))
    locks = sorted(m.to_json()["sets"] for m in state.legal_moves())
    assert locks == [[["white:5", "white:5"]], [["white:5", "white:5"], ["white:5", "yellow:5"]],
                     [["white:5", "yellow:5"]]]


# -- exact odds --------------------------------------------------------------------------
@given(st.lists(st.integers(1, 6), max_size=3), st.integers(1, 4))
def test_set_odds_match_brute_force_over_every_outcome(kept, n):
    assert dm.p_set(dm.counts_of(kept), n) == brute_p_set(kept, n)


def test_set_odds_known_values():
    assert dm.p_set((0,) * 6, 1) == 0
    assert dm.p_set((0,) * 6, 2) == Fraction(3, 36)  # 4+6, 6+4, 5+5
    assert dm.p_set(dm.counts_of([5]), 1) == Fraction(1, 6)


@settings(max_examples=60)
@given(st.lists(st.integers(1, 6), min_size=2, max_size=5), st.integers(0, 4))
def test_best_freeze_matches_brute_force(faces, tokens):
    p, frozen = dm.best_freeze(dm.counts_of(faces), tokens)
    best = max(brute_p_set([faces[i] for i in keep], len(faces) - len(keep))
               for size in range(min(tokens, len(faces) - 1) + 1)
               for keep in itertools.combinations(range(len(faces)), size))
    assert p == best
    assert sum(frozen) <= tokens and dm.p_set(frozen, len(faces) - sum(frozen)) == p


CLAIMS = (0.0, -5.0, 20.0, 30.0, 30.0, 60.0, 60.0)  # nothing for one set, 20 for two, ...


@pytest.mark.parametrize("n, s", [(1, 1), (2, 1), (3, 1), (4, 1), (3, 2), (4, 3)])
def test_turn_values_match_brute_force(n, s):
    values = dm.TurnValues(CLAIMS, -5.0)
    assert values.reroll(n, s)[0] == pytest.approx(brute_value(CLAIMS, -5.0, n, s))
    assert values.value(n, s) == pytest.approx(max(CLAIMS[s], brute_value(CLAIMS, -5.0, n, s)))


@pytest.mark.parametrize("frozen, n, s", [([6], 2, 1), ([5, 2], 2, 1), ([4, 4], 1, 2), ([1, 3], 3, 1)])
def test_freeze_values_match_brute_force(frozen, n, s):
    values = dm.TurnValues(CLAIMS, -5.0)
    ours = values.reroll(n, s, dm.counts_of(frozen))[0]
    assert ours == pytest.approx(brute_value(CLAIMS, -5.0, n, s, frozen))


# -- suggestions -------------------------------------------------------------------------
def test_suggest_lists_every_lock_once_with_exact_odds():
    state = GAME.new_game(PLAYERS, seed=2).apply_roll(parse_dice("6 4 5 5 3 2 1 4"))
    suggestions = GAME.advise(state)
    moves = [s.move for s in suggestions]
    assert sorted(moves, key=str) == sorted(state.legal_moves(), key=str)
    assert len(set(moves)) == len(moves)
    assert {tuple(sorted(tuple(sorted(x)) for x in m.to_json()["sets"])) for m in moves} == {
        tuple(sorted(tuple(sorted(f"{c}:{v}" for c, v in s)) for s in lock)) for lock in brute_locks(state.roll)}
    for s in suggestions:
        left = s.advice["dice_left"]
        assert s.advice["p_more_set"] == float(brute_p_set([], left)) if left <= 4 else True
        assert s.advice["p_more_set"] == float(dm.p_set((0,) * 6, left))
        assert s.reason and s.text.startswith("lock ")
    points = [s.advice["expected_points"] for s in suggestions]
    assert points == sorted(points, reverse=True)


def test_no_set_roll_has_only_the_failure_and_says_its_cost():
    state = GAME.new_game(PLAYERS, seed=2).apply_roll(parse_dice("1 1 1 2 3 3 3 1"))
    suggestions = GAME.advise(state)
    assert [s.move for s in suggestions] == [Move("fail")]
    assert "backorder" in suggestions[0].text and "-5" in suggestions[0].text
    # a backorder token costs its fitted worth (the -5 is paid only if no spoilage returns it)
    assert suggestions[0].advice["expected_points"] == pytest.approx(dm.stage_at(len(state.stack)).backorder, abs=0.125)


def _locked(display, roll_text, *sets, freeze=(0, 0, 0)):
    data = GAME.new_game(PLAYERS, seed=4).to_json()
    pool = [t for t in data["stack"] + data["display"] if t not in display]
    data.update(display=list(display), stack=pool, freeze=list(freeze))
    state = GAME.state_from_json(data).apply_roll(parse_dice(roll_text))
    return state.apply(Move.make("lock", sets=[s.split() for s in sets])) if sets else state


def test_rerolls_when_stopping_would_fail_and_stops_when_nothing_more_helps():
    # one set (10) cannot buy a 20, 30 or 40: stopping fails, so re-roll the six dice
    state = _locked([3, 6, 19], "white:6 white:4 white:1 white:1 white:2 white:3 white:3 yellow:1", "white:6 white:4")
    best = GAME.advise(state)[0]
    assert best.move.kind == "reroll" and best.advice["expected_points"] > -5
    # 30 in the barns already buys the whole 10+10+10 display: stop and claim it all
    state = _locked([0, 1, 2], "white:6 white:4 white:5 white:5 white:6 white:4 white:1 yellow:1",
                    "white:6 white:4", "white:5 white:5", "white:6 white:4")
    best = GAME.advise(state)[0]
    assert best.move.kind == "claim" and len(best.move["tiles"]) == 3


def test_lock_advice_recommends_and_offers_freeze_odds():
    state = _locked([3, 6, 19], "white:6 white:4 white:5 white:3 white:1 white:2 white:2 yellow:1", freeze=(2, 0, 0))
    for s in GAME.advise(state):
        assert s.advice["p_more_set_with_freeze"] >= s.advice["p_more_set"]
        assert s.advice["then"] in ("stop", "re-roll")
    top = GAME.advise(state)[0]
    assert top.advice["p_more_set_with_freeze"] > top.advice["p_more_set"]  # freezing helps here


def test_cheese_flip_comes_first_on_a_failing_roll():
    data = GAME.new_game(PLAYERS, seed=4).to_json()
    cheese = 11  # cheese 10, face 1
    data["stack"] = [t for t in data["stack"] + data["display"] if t != cheese]
    data["display"] = [data["stack"].pop(), data["stack"].pop(), data["stack"].pop()]
    data["owned"][0] = [cheese]
    state = GAME.state_from_json(data).apply_roll(parse_dice("white:1 white:1 white:1 white:2 white:3 white:3 "
                                                             "white:3 yellow:1"))
    suggestions = GAME.advise(state)
    assert suggestions[0].move == Move.make("flip", tile=cheese, die="yellow:1")
    assert [s.move.kind for s in suggestions] == ["flip", "fail"]


def test_every_decision_node_of_simulated_games_has_advice_for_each_legal_move():
    for seed in range(3):
        state, rng = GAME.new_game(PLAYERS[: 2 + seed], seed=seed), random.Random(seed)
        while not state.is_terminal():
            if state.dice_to_roll():
                state = state.apply_roll(state.random_roll(rng))
                continue
            suggestions = GAME.advise(state)
            moves = [s.move for s in suggestions]
            assert len(moves) == len(set(moves)) and set(moves) == set(state.legal_moves())
            assert all(s.text and s.reason for s in suggestions)
            state = state.apply(suggestions[0].move)
        assert sum(len(t) for t in state.owned) + len(state.display) + len(state.stack) == 22


def test_worst_twelve_dice_roll_lists_every_lock_with_freeze_odds():
    state = dairyman_worst_roll_state()
    suggestions = GAME.advise(state)
    assert {tuple(sorted(tuple(sorted(x)) for x in s.move.to_json()["sets"])) for s in suggestions} == {
        tuple(sorted(tuple(sorted(f"{c}:{v}" for c, v in s)) for s in lock)) for lock in brute_locks(state.roll)}
    assert len(suggestions) == len(brute_locks(state.roll))
    for s in suggestions:
        p, _ = dm.best_freeze(dm.counts_of(int(d.split(":")[1]) for d in _left(state, s.move)), 4)
        if s.advice["dice_left"] > 1:
            assert s.advice["p_more_set_with_freeze"] == float(p)


def _left(state, move):
    pool = [dm.die_text(d) for d in state.roll]
    for group in move.to_json()["sets"]:
        for d in group:
            pool.remove(d)
    return pool


# -- the game around the turn (issue 20) -----------------------------------------------------
def _tile(kind, value):
    return next(t.id for t in GAME.new_game(PLAYERS, seed=0).tiles if t.kind == kind and t.value == value)


def _position(display, roll_text, *sets, freeze=(0, 0, 0), owned=None, backorders=(0, 0, 0), stack=None,
              players=PLAYERS, rest_to=1):
    """Ann's turn: ``display`` face up, ``roll_text`` rolled, then ``sets`` locked (if any);
    with ``stack`` tiles left in the stack, the other tiles belong to player ``rest_to``."""
    data = GAME.new_game(players, seed=4).to_json()
    owned = owned or [[] for _ in players]
    taken = set(display) | {t for tiles in owned for t in tiles}
    pool = [t for t in data["stack"] + data["display"] if t not in taken]
    if stack is not None:
        pool, extra = pool[:stack], pool[stack:]
        owned = [list(o) + (extra if i == rest_to else []) for i, o in enumerate(owned)]
    reds = min(backorders[0], 4)
    data.update(display=list(display), stack=pool, freeze=list(freeze), owned=[list(o) for o in owned],
                backorders=list(backorders), reds=reds,
                pending={"kept": [], "colours": ["white"] * 7 + ["yellow"] + ["red"] * reds})
    state = GAME.state_from_json(data).apply_roll(parse_dice(roll_text + " red:1" * reds))  # red 1s make no set
    return state.apply(Move.make("lock", sets=[group.split() for group in sets])) if sets else state


def _by_move(suggestions, kind, **params):
    return next(s for s in suggestions if s.move.kind == kind
                and all(s.move.get(k) == v for k, v in params.items()))


HIGH_DISPLAY = [_tile("ice_cream", 20), _tile("ice_cream", 30), _tile("cheese", 40)]
SET_ROLL = "white:6 white:4 white:1 white:1 white:2 white:3 white:5 yellow:1"


def test_spending_freeze_tokens_costs_what_they_are_worth_later():
    # 3 tokens, 10 in the barns: freezing 2+3+5 makes the next set certain, but the previous
    # advice put it first only by counting the three tokens as worth nothing.
    state = _position(HIGH_DISPLAY, SET_ROLL, "white:6 white:4", freeze=(3, 0, 0))
    suggestions = GAME.advise(state)
    all_three = _by_move(suggestions, "reroll", freeze=("white:2", "white:3", "white:5"))
    no_freeze = _by_move(suggestions, "reroll", freeze=())
    assert len(suggestions[0].move.get("freeze") or ()) < 3
    assert suggestions.index(no_freeze) < suggestions.index(all_three)
    assert "spending 3 freeze tokens" in all_three.reason
    token = dm.stage_at(len(state.stack)).freeze_token
    assert token > 0
    gain = all_three.advice["expected_points"] + 3 * token - no_freeze.advice["expected_points"]
    assert gain < 3 * token                    # the certain set does not pay for three tokens


FORTIES = [t.id for t in GAME.new_game(PLAYERS, seed=0).tiles if t.kind == "cheese" and t.value == 40]


def test_a_reroll_that_earns_a_token_ranks_above_failing():
    # roll 2 locked 5+5 and 3+3+4: 30 in the barns claims none of three 40s, and re-rolling the
    # one die left cannot make a set, but declaring that third roll earns a freeze token.
    state = _position(FORTIES, "white:6 white:4 white:1 white:1 white:2 white:2 white:3 yellow:1", "white:6 white:4")
    state = state.apply(Move.make("reroll", freeze=[]))
    state = state.apply_roll(parse_dice("white:5 white:5 white:3 white:3 white:4 yellow:2"))
    state = state.apply(Move.make("lock", sets=[["white:5", "white:5"], ["white:3", "white:3", "white:4"]]))
    assert len(state.roll) == 1 and not state.claimable_subsets()
    suggestions = GAME.advise(state)
    assert [s.move.kind for s in suggestions] == ["reroll", "fail"]
    reroll, fail = suggestions
    assert reroll.advice["p_more_set_with_freeze"] == 0 and reroll.advice["earns_token"]
    assert reroll.advice["expected_points"] > fail.advice["expected_points"]
    assert "earns a freeze token" in reroll.reason


NO_SET_ROLL = "white:1 white:1 white:1 white:2 white:3 white:3 white:3 yellow:1"
MILK_40 = FORTIES[0]          # cheese on a yellow 3, face up
ICE_10, ICE_20 = _tile("ice_cream", 10), _tile("ice_cream", 20)


def test_a_failure_that_spoils_counts_the_tiles_lost():
    display = [_tile("ice_cream", 30), _tile("ice_cream", 30) + 1, _tile("ice_cream", 30) + 2]
    owned = [[MILK_40, ICE_10], [ICE_20], []]
    spoiling = _position(display, NO_SET_ROLL, owned=owned, backorders=(1, 2, 0))
    plain = _position(display, NO_SET_ROLL, owned=owned, backorders=(1, 1, 0))
    spoils = _by_move(GAME.advise(spoiling), "fail")
    ordinary = _by_move(GAME.advise(plain), "fail")
    assert spoils.advice["spoilage"] and not ordinary.advice["spoilage"]
    # Ann loses her milk 40 (Bob his milk 20, which helps her less): far worse than a plain backorder
    assert spoils.advice["expected_points"] < ordinary.advice["expected_points"] - 20
    assert "milk 40" in spoils.reason and "Bob" in spoils.reason and "milk 20" in spoils.reason


def test_a_failure_that_spoils_returns_the_backorder_tokens():
    display = [_tile("ice_cream", 30), _tile("ice_cream", 30) + 1, _tile("ice_cream", 30) + 2]
    returning = _position(display, NO_SET_ROLL, backorders=(3, 0, 0))
    plain = _position(display, NO_SET_ROLL, backorders=(1, 0, 0))
    back = _by_move(GAME.advise(returning), "fail")
    ordinary = _by_move(GAME.advise(plain), "fail")
    assert back.advice["spoilage"]
    assert back.advice["expected_points"] > ordinary.advice["expected_points"]
    assert "every backorder token returns" in back.reason


FORTY_IN_BARNS = ("white:6 white:4 white:5 white:5 white:6 white:4 white:5 yellow:5",
                  "white:6 white:4", "white:5 white:5", "white:6 white:4", "white:5 yellow:5")


def _last_tile_position(leader):
    """One tile left in the stack, 40 in Ann's barns; every tile not in play is ``leader``'s."""
    display = [ICE_10, ICE_20, _tile("ice_cream", 30)]
    return _position(display, *FORTY_IN_BARNS, owned=[[], []], stack=1, rest_to=leader, players=("Ann", "Bob"),
                     freeze=(0, 0), backorders=(0, 0))


def test_a_claim_that_ends_the_game_is_marked():
    state = _last_tile_position(1)
    suggestions = [s for s in GAME.advise(state) if s.move.kind == "claim"]
    for s in suggestions:
        ends = len(s.move["tiles"]) > len(state.stack)
        assert s.advice["ends_game"] == ends
        assert ("ends the game" in s.reason) == ends


def test_a_player_behind_does_not_end_the_game_and_a_player_ahead_does():
    ahead, behind = _last_tile_position(0), _last_tile_position(1)
    top_ahead, top_behind = GAME.advise(ahead)[0], GAME.advise(behind)[0]
    assert top_ahead.move.kind == top_behind.move.kind == "claim"
    assert top_ahead.advice["ends_game"] and "you finish first" in top_ahead.reason
    assert not top_behind.advice["ends_game"]


def test_far_behind_gambles_and_far_ahead_banks():
    # 20 in the barns claims the ice cream 20; four dice left could reach the 30 or the 40
    roll = "white:6 white:4 white:5 white:5 white:1 white:1 white:1 yellow:1"
    sets = ("white:6 white:4", "white:5 white:5")

    def top(leader):
        state = _position(HIGH_DISPLAY, roll, *sets, owned=[[], []], stack=10, rest_to=leader,
                          players=("Ann", "Bob"), freeze=(0, 0), backorders=(0, 0))
        return GAME.advise(state)[0].move.kind

    assert top(leader=0) == "claim"
    assert top(leader=1) == "reroll"


def test_a_gamble_is_worth_more_to_a_player_who_likes_risk():
    values, weights = [-5.0, 20.0, 40.0], [3, 2, 1]
    mean = dm.certain_value(values, weights, 0.0)
    assert mean == pytest.approx((-15 + 40 + 40) / 6)
    assert dm.certain_value(values, weights, 0.03) > mean > dm.certain_value(values, weights, -0.03)
    assert dm.certain_value([7.0, 7.0], [1, 5], 0.04) == pytest.approx(7.0)


def brute_value_earning(claims, fail, n, s, earn):
    """:func:`brute_value` where every re-roll earns ``earn`` whatever it brings."""
    def stop(sets):
        return claims[min(sets, len(claims) - 1)]

    def value(dice, sets):
        return max(stop(sets), reroll(dice, sets)) if dice else stop(sets)

    def reroll(dice, sets):
        total = 0.0
        for roll in itertools.product(range(1, 7), repeat=dice):
            options = brute_packings(list(roll))
            total += max((value(dice - used, sets + k) for k, used in options), default=fail)
        return total / 6 ** dice + earn

    return reroll(n, s)


@pytest.mark.parametrize("n, s", [(1, 1), (2, 1), (3, 2)])
def test_rerolls_that_earn_tokens_match_brute_force(n, s):
    values = dm.TurnValues(CLAIMS, -5.0, earn_value=2.5, earn_from=3)
    assert values.reroll(n, s, roll=2)[0] == pytest.approx(brute_value_earning(CLAIMS, -5.0, n, s, 2.5))
    # before roll 2 the first re-roll earns nothing, the ones after it do
    assert values.reroll(n, s, roll=1)[0] < values.reroll(n, s, roll=2)[0]
