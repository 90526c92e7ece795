"""Game benchmarks for ``companion bench games``: how fast whole games simulate (on the
engine, and on Dairyman's compact simulator that the tournaments use) and how long the
advice takes on the hardest Dairyman roll.  Run on one core; figures are wall-clock
seconds from ``time.perf_counter``."""
from __future__ import annotations

import time

from companion.engine import parse_dice
from companion.games import dairyman_advice, dairyman_sim, get_game
from companion.simulate import play_game

# The Dairyman roll of 12 dice (7 white, 1 yellow, 4 red) with the most legal locks that
# a hill climb over faces found: 869 distinct ways to lock one or more sets.
WORST_DAIRYMAN_ROLL = ("white:1 white:2 white:3 white:4 white:5 white:5 white:6 yellow:5 "
                       "red:2 red:3 red:4 red:5")



def simulate_rate(game_name: str = "dairyman", players: int = 3, games: int = 200, seed: int = 0,
                  warmup: int = 20) -> dict:
    """Games per second of the advice playing itself (``companion simulate``'s loop).

    ``warmup`` games are played first and not timed, so the figure is the steady rate
    once the per-process tables exist.
    """
    game = get_game(game_name)
    names = game.default_players(players)
    for i in range(warmup):
        play_game(game, names, seed - warmup + i)
    start = time.perf_counter()
    for i in range(games):
        play_game(game, names, seed + i)
    elapsed = time.perf_counter() - start
    return {"game": game.name, "players": players, "games": games, "seconds": round(elapsed, 3),
            "games_per_second": round(games / elapsed, 1)}


def simulator_rate(players: int = 3, games: int = 500, seed: int = 0, warmup: int = 100,
                   policy: str = "advice") -> dict:
    """Games per second of Dairyman's compact simulator, every seat played by ``policy``.

    ``warmup`` games are played first and not timed (the advice's tables fill as positions
    are met), so the figure is the rate of a long tournament."""
    for i in range(warmup):
        dairyman_sim.play(seed - warmup + i, [policy] * players)
    start = time.perf_counter()
    for i in range(games):
        dairyman_sim.play(seed + i, [policy] * players)
    elapsed = time.perf_counter() - start
    return {"game": "dairyman", "engine": "compact simulator", "policy": policy, "players": players,
            "games": games, "seconds": round(elapsed, 3), "games_per_second": round(games / elapsed, 1)}


def dairyman_worst_roll_state():
    """A 4-player Dairyman turn: 4 backorder tokens (4 red dice), 4 freeze tokens, the worst roll."""
    game = get_game("dairyman")
    data = game.new_game(game.default_players(4), seed=0).to_json()
    data["backorders"] = [4, 0, 0, 0]
    data["freeze"] = [4, 0, 0, 0]
    data["reds"] = 4
    data["pending"] = {"kept": [], "colours": ["white"] * 7 + ["yellow"] + ["red"] * 4}
    return game.state_from_json(data).apply_roll(parse_dice(WORST_DAIRYMAN_ROLL))


def dairyman_worst_suggest(repeats: int = 20) -> dict:
    """Milliseconds to advise on :data:`WORST_DAIRYMAN_ROLL` with four freeze tokens in hand.

    ``first_ms``: the first call in this process (builds the odds tables);
    ``cold_ms``: best of ``repeats`` calls with the per-roll caches cleared;
    ``warm_ms``: best of ``repeats`` calls with every cache filled.
    """
    game = get_game("dairyman")
    state = dairyman_worst_roll_state()
    start = time.perf_counter()
    suggestions = game.advise(state)
    first = time.perf_counter() - start
    cold = []
    for _ in range(repeats):
        dairyman_advice.forget_positions()   # cold: the odds tables by dice count stay ("first_ms")
        start = time.perf_counter()
        game.advise(state)
        cold.append(time.perf_counter() - start)
    warm = []
    for _ in range(repeats):
        start = time.perf_counter()
        game.advise(state)
        warm.append(time.perf_counter() - start)
    return {"roll": WORST_DAIRYMAN_ROLL, "freeze_tokens": 4, "moves": len(suggestions),
            "first_ms": round(first * 1000, 2), "cold_ms": round(min(cold) * 1000, 2),
            "warm_ms": round(min(warm) * 1000, 2)}


def python_speed_us(repeats: int = 200) -> float:
    """Best time of ``sum(range(1000))`` in microseconds: tells a loaded machine from an idle
    one (about 10 us on an idle desktop core), so figures from different runs compare."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        sum(range(1000))
        best = min(best, time.perf_counter() - start)
    return round(best * 1e6, 1)


def dairyman_benchmarks(games: int = 200) -> dict:
    """Everything ``companion bench games`` reports for Dairyman."""
    return {"python_speed_us": python_speed_us(),
            "worst_suggest": dairyman_worst_suggest(),        # first: "first_ms" is the process's first sight
            "simulate": [simulate_rate("dairyman", p, games) for p in (2, 3, 4)],
            "simulator": [simulator_rate(p, games * 5) for p in (2, 3, 4)]}
