"""Dairyman under random legal play: dice, tokens and tiles are conserved, scores add up,
JSON round-trips, and every game ends."""
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import Move
from companion.errors import RuleError
from companion.games import get_game
from companion.games.dairyman import RULES

GAME = get_game("dairyman")
STEP_BOUND = 20_000  # rolls and moves; random play ends far sooner


def check_invariants(state, options, round_trip=True):
    tiles = sorted(list(state.stack) + list(state.display) + [t for hand in state.owned for t in hand])
    assert tiles == list(range(22))
    assert len(state.display) <= RULES["display"]["size"]
    assert state.flipped <= {t for hand in state.owned for t in hand}
    backorders = RULES["tokens"]["backorders"][str(len(state.players))]
    assert all(n >= 0 for n in state.backorders) and 0 < state.backorder_supply <= backorders
    assert all(n >= 0 for n in state.freeze) and state.freeze_supply >= 0
    assert sum(state.freeze) + state.freeze_supply == options.get("freeze_tokens", 20)
    breakdown = state.score_breakdown()
    for i, player in enumerate(state.players):
        assert state.scores()[player] == sum(breakdown[player].values())
        assert breakdown[player]["backorders"] == -5 * state.backorders[i]
    if not state.is_terminal():
        reds = min(state.backorders[state.current], RULES["dice"]["red_max"])
        dice = Counter(d.colour for d in state.turn_dice()) + Counter(state.pending[1] if state.pending else ())
        assert state.reds == reds
        assert dice == Counter({"white": 7, "yellow": 1, "red": reds} if reds else {"white": 7, "yellow": 1})
        assert state.barn_total == 10 * state.locked_sets
        assert (state.dice_to_roll() is None) == bool(state.legal_moves())
    if round_trip:
        assert GAME.state_from_json(state.to_json()).to_json() == state.to_json()


def check_illegal_moves_change_nothing(state):
    before = state.to_json()
    others = [t for i, hand in enumerate(state.owned) if i != state.current for t in hand]
    illegal = [Move.make("lock", sets=[["white:6", "white:3"]]), Move.make("flip", tile=others[0] if others else 99),
               Move.make("claim", tiles=list(state.stack[:1]) or [99]), Move("dance"),
               Move.make("fail", player=next(p for p in state.players if p != state.current_player))]
    for move in illegal:
        with pytest.raises(RuleError):
            state.apply(move)
        assert state.to_json() == before


@settings(max_examples=6)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), freeze_tokens=st.sampled_from([10, 20]),
       earned_from=st.sampled_from([3, 4]))
def test_random_legal_play_keeps_invariants_and_ends(seed, players, freeze_tokens, earned_from):
    options = {"freeze_tokens": freeze_tokens, "freeze_earned_from_roll": earned_from}
    state = GAME.new_game([f"P{i}" for i in range(players)], options, seed=seed)
    rng = random.Random(seed)
    for step in range(STEP_BOUND):
        check_invariants(state, options, round_trip=step % 5 == 0 or state.is_terminal())
        if state.is_terminal():
            break
        if state.dice_to_roll() is not None:
            state = state.apply_roll(state.random_roll(rng))
            continue
        if step % 7 == 0:
            check_illegal_moves_change_nothing(state)
        moves = state.legal_moves()
        kind = rng.choice(sorted({m.kind for m in moves}))
        state = state.apply(rng.choice([m for m in moves if m.kind == kind]))
    assert state.is_terminal()
    assert len(state.display) < 3 or not state.stack  # ended because the display could not be refilled
