"""Advice tournaments for ``companion bench advice``: each game's advice against simpler
policies in duplicate games (``companion.tournament``), one function per game."""
from __future__ import annotations

import time
from collections.abc import Sequence

from companion.tournament import GameResult, head_to_head, markdown_table

DAIRYMAN_OPPONENTS = ("previous advice", "greedy", "random legal")
"""The policies of ``companion.games.dairyman_sim.POLICIES`` the Dairyman advice plays against:
the advice before issue 20, a greedy player (most sets, claim as soon as a tile fits, re-roll
only when none does, never freeze or flip) and a random legal move."""


def play_dairyman(seed: int, seat_policies: Sequence[str]) -> GameResult:
    """One Dairyman game on the compact simulator, seat ``i`` played by ``seat_policies[i]``."""
    from companion.games import dairyman_sim as sim

    state = sim.play(seed, seat_policies)
    return GameResult(sim.scores(state), sim.winners(state))


def dairyman_tournaments(games: int = 10_000, player_counts: Sequence[int] = (2, 3, 4),
                         opponents: Sequence[str] = DAIRYMAN_OPPONENTS, seed: int = 0,
                         progress=None) -> dict:
    """The Dairyman advice against each opponent at each player count, ``games`` games each.

    Returns the rows of :func:`companion.tournament.head_to_head` (with the seconds each took)
    and the markdown table of ``docs/benchmarks.md``.  ``progress`` (if given) is called with
    each row as it is finished.
    """
    rows = []
    for opponent in opponents:
        for players in player_counts:
            start = time.perf_counter()
            row = head_to_head(play_dairyman, "advice", opponent, players, games, seed)
            row["seconds"] = round(time.perf_counter() - start, 1)
            rows.append(row)
            if progress is not None:
                progress(row)
    return {"game": "dairyman", "games_per_row": games, "rows": rows, "table": markdown_table(rows)}
