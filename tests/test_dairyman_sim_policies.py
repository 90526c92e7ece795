"""The simulator's players: the advice it plays is the engine's advice, the others are legal."""
import random

import pytest

from companion.bench_advice import dairyman_tournaments
from companion.games import dairyman_advice as dm
from companion.games import dairyman_sim as sim
from companion.games import get_game

GAME = get_game("dairyman")


def decision_states(games: int):
    """Decision nodes of seeded games played half by the advice, half at random."""
    for seed in range(games):
        rng = random.Random(seed)
        state = GAME.new_game([f"P{i}" for i in range(2 + seed % 3)], seed=seed)
        while not state.is_terminal():
            if state.dice_to_roll() is not None:
                state = state.apply_roll(state.random_roll(rng))
                continue
            yield state
            moves = state.legal_moves()
            state = state.apply(GAME.best_move(state) if rng.random() < 0.5 else rng.choice(moves))


@pytest.mark.parametrize("previous", [False, True])
def test_the_simulator_plays_a_move_the_advice_ranks_first(previous):
    # The simulator keeps the first of equal worths where the engine compares texts: the worth
    # of its move must be the worth of the engine's first suggestion.
    checked = 0
    for state in decision_states(12):
        ranked = sorted(dm._ranked(state, previous), key=dm._rank_key)
        move, worth = sim.advice_choice(sim.from_engine(state), previous)
        by_move = {sim.move_from_engine(entry[1]): entry for entry in ranked}
        assert by_move[move][0][0] == pytest.approx(ranked[0][0][0], abs=1e-3)
        assert worth == pytest.approx(-ranked[0][0][0], abs=1e-3)
        checked += 1
    assert checked > 300


@pytest.mark.parametrize("name", sorted(sim.POLICIES))
def test_every_policy_plays_legal_moves_to_the_end(name):
    for seed in range(3):
        player = sim.POLICIES[name]()
        rng = random.Random(seed)
        state = sim.new_game(3, seed)
        while state.phase != sim.OVER:
            if state.pending is not None:
                state = sim.apply_roll(state, sim.draw(state, rng))
                continue
            move = player(state, rng)
            assert move in sim.legal_moves(state)
            state = sim.apply(state, move)
        assert sum(len(t) for t in state.owned) + len(state.display) + len(state.stack) == 22


def test_the_tournament_table_has_a_row_per_opponent_and_player_count():
    result = dairyman_tournaments(games=4, player_counts=(2, 3))
    assert [(r["opponent"], r["players"]) for r in result["rows"]] == [
        (o, p) for o in ("previous advice", "greedy", "random legal") for p in (2, 3)]
    assert all(r["games"] == 4 for r in result["rows"])
    assert result["table"].count("\n") == 2 + 6 - 1


def test_fitting_measures_every_stage_and_leaves_the_advice_as_shipped():
    from companion.games import dairyman_fit

    shipped = dm.STAGES
    result = dairyman_fit.fit(starts_per_stage=4, games=3)
    assert dm.STAGES == shipped
    assert [row["stack_at_least"] for row in result["stages"]] == [at for at, _ in shipped]
    for row in result["stages"]:
        assert row["freeze_token"] >= 0 and -5 <= row["backorder"] <= 0 and 0 <= row["spoil_share"] <= 1
