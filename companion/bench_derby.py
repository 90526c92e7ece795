"""Whirling Derby benchmark: games per second of ``simulate`` (every decision the top
advice, every roll a seeded draw) for 2, 3 and 4 players, and how the games ended."""
from __future__ import annotations

import statistics
from collections.abc import Sequence

from companion.games import get_game
from companion.simulate import simulate


def derby_games_per_second(games: int = 200, seed: int = 0, player_counts: Sequence[int] = (2, 3, 4)) -> dict:
    """Play ``games`` games per player count; return, per count, the games per second and
    how many games were won outright, by stalemate or at the turn cap."""
    game = get_game("whirling-derby")
    figures = {}
    for count in player_counts:
        report = simulate(game, count, seed=seed, games=games)
        results = report["results"]
        stalemates = sum("stalemate" in r["alerts"] for r in results)
        capped = sum("turn_cap" in r["alerts"] for r in results)
        figures[str(count)] = {
            "players": count,
            "games": games,
            "seconds": report["seconds"],
            "games_per_second": report["games_per_second"],
            "won_outright": games - stalemates - capped,
            "stalemates": stalemates,
            "turn_caps": capped,
            "median_moves": statistics.median(r["moves"] for r in results),
        }
    return figures
