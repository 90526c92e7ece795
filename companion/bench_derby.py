"""Whirling Derby benchmark: games per second with the advice at every seat, on the
compact simulator (what tournaments use) and on the rules engine (``simulate``, what the
app runs), for 2, 3 and 4 players, and how the games ended."""
from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

from companion.games import get_game
from companion.games.whirling_derby import load_rules
from companion.games.whirling_derby_advice import forget, policy
from companion.games.whirling_derby_policies import play
from companion.games.whirling_derby_sim import simulator
from companion.simulate import simulate


def derby_games_per_second(games: int = 500, seed: int = 0, player_counts: Sequence[int] = (2, 3, 4),
                           engine_games: int | None = None) -> dict:
    """Per player count: ``games`` simulator games (the advice's memos empty at the start),
    their games per second (of wall time, and of this process's processor time, which a busy
    machine does not slow down) and how they ended (won outright, stalemate, turn cap), and
    the games per second of ``engine_games`` games on the rules engine (default: as many
    as ``games``, at most 20)."""
    engine_games = min(games, 20) if engine_games is None else engine_games
    figures = {}
    for count in player_counts:
        sim = simulator(load_rules(), count)
        forget()
        start, cpu = time.perf_counter(), time.process_time()
        finals = [play(sim, seed + i, [policy] * count) for i in range(games)]
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        engine = simulate(get_game("whirling-derby"), count, seed=seed, games=engine_games) if engine_games else None
        figures[str(count)] = {
            "players": count,
            "games": games,
            "seconds": round(seconds, 3),
            "games_per_second": round(games / seconds, 1),
            "games_per_cpu_second": round(games / cpu, 1) if cpu > 0 else None,
            "won_outright": sum(f.ended_by is None for f in finals),
            "stalemates": sum(f.ended_by == "stalemate" for f in finals),
            "turn_caps": sum(f.ended_by == "turn_cap" for f in finals),
            "median_turns": statistics.median(f.turn for f in finals),
            "engine_games": engine_games,
            "engine_games_per_second": engine["games_per_second"] if engine else None,
        }
    return figures
