"""Whole games played by the advice: every roll a seeded random draw, every decision the
top suggestion.  Used by ``companion simulate`` and by tests that check a game ends."""
from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from companion.engine import Game, GameState

MAX_STEPS = 50_000
"""A game still running after this many rolls and moves is a bug in its rules engine."""


class SimulationError(RuntimeError):
    """A game that cannot go on: no advice at a decision node, or no end in sight."""


def play_game(game: Game, players: Sequence[str], seed: int,
              options: Mapping[str, Any] | None = None) -> dict:
    """Play one game to its end and return its result as JSON-ready data."""
    rng = random.Random(f"dice:{seed}")
    state: GameState = game.new_game(players, options, seed=seed)
    moves = rolls = 0
    raised: Counter[str] = Counter()
    showing: set[tuple[str, str]] = set()
    for _ in range(MAX_STEPS):
        if state.is_terminal():
            break
        if state.dice_to_roll() is not None:
            state = state.apply_roll(state.random_roll(rng))
            rolls += 1
        else:
            move = game.best_move(state)
            if move is None:
                raise SimulationError(f"{game.name} seed {seed}: no legal move in phase {state.phase!r}")
            state = state.apply(move)
            moves += 1
        now = {(a.kind, a.message) for a in state.alerts()}
        raised.update(kind for kind, _ in now - showing)
        showing = now
    else:
        raise SimulationError(f"{game.name} seed {seed}: no end after {MAX_STEPS} steps")
    return {
        "seed": seed,
        "scores": state.scores(),
        "breakdown": state.score_breakdown(),
        "winners": state.winners(),
        "moves": moves,
        "rolls": rolls,
        "alerts": dict(sorted(raised.items())),
    }


def simulate(game: Game, player_count: int, seed: int = 0, games: int = 1,
             options: Mapping[str, Any] | None = None) -> dict:
    """Play ``games`` games with seeds ``seed, seed+1, ...`` and time them."""
    players = game.check_players(game.default_players(player_count))
    game.resolve_options(options)
    start = time.perf_counter()
    results = [play_game(game, players, seed + i, options) for i in range(games)]
    elapsed = time.perf_counter() - start
    return {
        "game": game.name,
        "players": list(players),
        "games": games,
        "seconds": round(elapsed, 3),
        # three significant digits: a slow machine's 0.04 games a second is not "0.0"
        "games_per_second": float(f"{games / elapsed:.3g}") if elapsed > 0 else None,
        "results": results,
    }
