"""The compact Whirling Derby simulator against the engine: on random games both list the
same legal moves and reach the same states, move for move and roll for roll.

``DERBY_CROSS_CHECK_GAMES`` sets how many games (10,000 for the issue's figure; a small
default keeps the suite fast)."""
import os
import random

import pytest

from companion.games import get_game
from companion.games.whirling_derby_sim import Bridge

GAME = get_game("whirling-derby")
GAMES = int(os.environ.get("DERBY_CROSS_CHECK_GAMES", "150"))


def sim_roll(sim_state, engine_dice, bridge):
    """The engine's rolled dice as values in the order the simulator's dice are listed."""
    left = [bridge.die(d) for d in engine_dice]
    values = []
    for colour in sim_state.reroll:
        d = next(d for d in left if d & 7 == colour)
        left.remove(d)
        values.append(d >> 3)
    return values


def play_both(seed, players, options=None):
    """One random game on the engine and the simulator side by side; returns the steps taken."""
    rng = random.Random(seed)
    state = GAME.new_game(GAME.default_players(players), options)
    bridge = Bridge(state)
    sim, mirror = bridge.sim, bridge.state(state)
    assert mirror == sim.new_game()
    steps = 0
    while not state.is_terminal():
        if state.dice_to_roll() is not None:
            dice = state.random_roll(rng)
            mirror = sim.roll(mirror, sim_roll(mirror, dice, bridge))
            state = state.apply_roll(dice)
        else:
            moves = state.legal_moves()
            sim_moves = sim.legal_moves(mirror)
            assert sorted(map(bridge.move, moves)) == sorted(sim_moves), (seed, state.stage)
            move = rng.choice(moves)
            assert bridge.engine_move(bridge.move(move)) == move
            mirror = sim.apply(mirror, bridge.move(move))
            state = state.apply(move)
        assert bridge.state(state) == mirror, (seed, steps)
        steps += 1
    assert sim.legal_moves(mirror) == []
    return steps


@pytest.mark.parametrize("players", [2, 3, 4])
def test_engine_and_simulator_agree_move_for_move_on_random_games(players):
    share = GAMES // 3 + (players - 2 < GAMES % 3)
    for seed in range(share):
        play_both(seed * 3 + players, players, {"turn_cap": 30})


def test_they_agree_with_other_card_data_too(tmp_path):
    """A group's card data (pairs of four equal dice refused, a 'not all equal' back, a short turn cap)."""
    data = tmp_path / "cards.toml"
    data.write_text('[setup]\nfour_equal_is_two_pairs = false\n[sides.not_equal]\npattern = "not_all_equal"\n')
    for seed in range(max(GAMES // 10, 6)):
        play_both(seed, 2 + seed % 3, {"card_data": str(data), "turn_cap": 25})
