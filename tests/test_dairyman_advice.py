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
    assert suggestions[0].advice["expected_points"] == -5


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
