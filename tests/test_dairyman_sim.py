"""The compact simulator plays Dairyman exactly as the engine does.

Random games are played on both at once: the same seeded dice, a random legal move each
time.  At every step both must offer the same moves and reach the same state.  CI plays
``DAIRYMAN_SIM_CHECK_GAMES`` games (default 150); set it to 10000 for the full check.
"""
import os
import random

import pytest

from companion.games import dairyman_sim as sim
from companion.games import get_game

GAME = get_game("dairyman")
CHECK_GAMES = int(os.environ.get("DAIRYMAN_SIM_CHECK_GAMES", "150"))
OPTION_SETS = (
    {},
    {"freeze_tokens": 10, "freeze_earned_from_roll": 4},
    {"cheese_faces": "6 6 5 5 4 4 3 3 2 2 1"},
)


KIND_WEIGHTS = {sim.LOCK: 8, sim.CLAIM: 8, sim.REROLL: 2, sim.FAIL: 1, sim.FLIP: 1, sim.ABILITY: 1}
"""How often each kind of move is picked when it is legal: every kind gets played, locks
and claims most, so that random games end in a few dozen turns."""


def random_move(moves: list, rng: random.Random) -> tuple:
    kinds = sorted({m[0] for m in moves})
    kind = rng.choices(kinds, [KIND_WEIGHTS[k] for k in kinds])[0]
    choices = sorted(m for m in moves if m[0] == kind)
    if kind == sim.LOCK and rng.random() < 0.5:     # half the time a lock of the most sets
        most = max(len(m[1]) for m in choices)
        choices = [m for m in choices if len(m[1]) == most]
    return rng.choice(choices)


def play_both(seed: int) -> int:
    """Play one random game on the engine and the simulator side by side; return its steps."""
    rng = random.Random(seed)
    players = 2 + seed % 3
    options = OPTION_SETS[seed % len(OPTION_SETS)]
    state = GAME.new_game([f"P{i}" for i in range(players)], options, seed=seed)
    fast = sim.new_game(players, seed, **{"freeze_tokens": options.get("freeze_tokens", 20),
                                         "earn_from": options.get("freeze_earned_from_roll", 3),
                                         **({"cheese_faces": options["cheese_faces"]} if "cheese_faces" in options
                                            else {})})
    steps = 0
    while not state.is_terminal():
        assert sim.canonical(sim.from_engine(state)) == sim.canonical(fast), (seed, steps)
        if state.dice_to_roll() is not None:
            dice = state.random_roll(rng)
            colours = tuple(sim.COLOUR_NAMES.index(d.colour) for d in dice)
            assert colours == fast.pending[1]
            state = state.apply_roll(dice)
            fast = sim.apply_roll(fast, tuple(d.value for d in dice))
        else:
            engine_moves = {sim.move_from_engine(m): m for m in state.legal_moves()}
            fast_moves = sim.legal_moves(fast)
            assert len(fast_moves) == len(set(fast_moves)) == len(engine_moves), (seed, steps)
            assert set(fast_moves) == set(engine_moves), (seed, steps)
            move = random_move(fast_moves, rng)
            state = state.apply(engine_moves[move])
            fast = sim.apply(fast, move)
        steps += 1
    assert fast.phase == sim.OVER
    assert sim.canonical(sim.from_engine(state)) == sim.canonical(fast)
    assert sim.scores(fast) == tuple(state.scores()[p] for p in state.players)
    assert [state.players[i] for i in sim.winners(fast)] == state.winners()
    return steps


def test_engine_and_simulator_agree_move_for_move_on_random_games():
    steps = sum(play_both(seed) for seed in range(CHECK_GAMES))
    assert steps > CHECK_GAMES * 20


def test_engine_moves_convert_both_ways():
    state = GAME.new_game(["A", "B"], seed=3)
    rng = random.Random(3)
    for _ in range(200):
        if state.is_terminal():
            break
        if state.dice_to_roll() is not None:
            state = state.apply_roll(state.random_roll(rng))
            continue
        for move in state.legal_moves():
            back = sim.move_to_engine(sim.move_from_engine(move))
            assert sim.canonical(sim.from_engine(state.apply(back))) == sim.canonical(sim.from_engine(state.apply(move)))
        state = state.apply(rng.choice(state.legal_moves()))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_fresh_simulator_game_is_the_engine_game(players):
    state = GAME.new_game([f"P{i}" for i in range(players)], seed=11)
    assert sim.new_game(players, 11) == sim.from_engine(state)
