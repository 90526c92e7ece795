"""Duplicate tournaments between two advice policies, for ``companion bench advice``.

Each seed is played twice with the same dice: once with the challenger in one set of
seats and the opponent in the others, once with the roles swapped.  Over the pair both
policies sit in the same seats equally often, so two equal policies win 50 % of the
games; a win rate whose 95 % interval lies above 50 % means the challenger is stronger.
A game's win goes to the policy whose seat won; a tie is shared by the winning seats.

A game supplies ``play(seed, seat_policies) -> GameResult``, usually from its compact
simulator, so the tournament never depends on how a game is played.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Z_95 = 1.959964
"""The normal quantile of a two-sided 95 % interval."""


@dataclass(frozen=True)
class GameResult:
    """What a tournament needs of one finished game: the score and win share of each seat."""
    scores: tuple[float, ...]
    winners: tuple[int, ...]


Play = Callable[[int, Sequence[str]], GameResult]


def wilson_interval(successes: float, trials: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (keeps inside 0..1 even near the ends)."""
    if trials <= 0:
        raise ValueError("an interval needs at least one trial")
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float], z: float = Z_95) -> tuple[float, float, float]:
    """Mean of ``values`` with its normal-approximation 95 % interval."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = z * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def seating(players: int, seed: int, swapped: bool) -> tuple[bool, ...]:
    """Which seats the challenger takes: every other seat from an offset that turns with the
    seed (so every seat is first now and then), all the others when ``swapped``."""
    offset = seed % players
    return tuple(((seat - offset) % players % 2 == 0) != swapped for seat in range(players))


def head_to_head(play: Play, challenger: str, opponent: str, players: int, games: int,
                 seed: int = 0) -> dict:
    """Play ``games`` games (``games // 2`` duplicate pairs) between two policies.

    Returns the challenger's win rate with its Wilson interval, and the mean score per
    seat of each policy with the mean difference (challenger minus opponent, per game) and
    its interval.
    """
    if games < 2:
        raise ValueError("a duplicate tournament needs at least one pair of games")
    win_share = 0.0
    played = 0
    differences: list[float] = []
    challenger_scores: list[float] = []
    opponent_scores: list[float] = []
    for pair in range(games // 2):
        game_seed = seed + pair
        for swapped in (False, True):
            mine = seating(players, game_seed, swapped)
            result = play(game_seed, [challenger if m else opponent for m in mine])
            win_share += sum(mine[w] for w in result.winners) / len(result.winners)
            own = [s for s, m in zip(result.scores, mine) if m]
            other = [s for s, m in zip(result.scores, mine) if not m]
            challenger_scores.extend(own)
            opponent_scores.extend(other)
            differences.append(statistics.fmean(own) - statistics.fmean(other))
            played += 1
    low, high = wilson_interval(win_share, played)
    diff, diff_low, diff_high = mean_interval(differences)
    return {"challenger": challenger, "opponent": opponent, "players": players, "games": played,
            "win_rate": round(win_share / played, 4), "win_rate_95": [round(low, 4), round(high, 4)],
            "challenger_mean_score": round(statistics.fmean(challenger_scores), 2),
            "opponent_mean_score": round(statistics.fmean(opponent_scores), 2),
            "score_difference": round(diff, 2), "score_difference_95": [round(diff_low, 2), round(diff_high, 2)]}


def markdown_table(rows: Sequence[dict]) -> str:
    """The rows of :func:`head_to_head` as the table ``docs/benchmarks.md`` shows."""
    header = ("| players | challenger | opponent | games | challenger wins (95 %) "
              "| mean score, challenger / opponent | difference (95 %) |")
    lines = [header, "|---|---|---|---|---|---|---|"]
    for row in rows:
        low, high = row["win_rate_95"]
        d_low, d_high = row["score_difference_95"]
        lines.append(f"| {row['players']} | {row['challenger']} | {row['opponent']} | {row['games']:,} "
                     f"| {row['win_rate']:.1%} ({low:.1%}-{high:.1%}) "
                     f"| {row['challenger_mean_score']} / {row['opponent_mean_score']} "
                     f"| {row['score_difference']:+} ({d_low:+}..{d_high:+}) |")
    return "\n".join(lines)
