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


DERBY_OPPONENTS = ("previous advice", "greedy", "random legal")
"""The Whirling Derby policies the advice plays against (``companion.games.whirling_derby_policies``):
the advice before issue 20, a greedy player (re-rolls the Stove, places for the most dice given
away now, activates the biggest card, hands out and gives in the first legal order) and a
random legal move."""


def derby_player(players: int):
    """``play(seed, seat_policies)`` for one Whirling Derby game on the compact simulator: a
    seat scores minus the dice left on its cards, the player who emptied theirs wins."""
    from companion.games.whirling_derby import load_rules
    from companion.games.whirling_derby_advice import policy
    from companion.games.whirling_derby_policies import greedy, play, previous, random_policy
    from companion.games.whirling_derby_sim import simulator

    sim = simulator(load_rules(), players)
    policies = {"advice": policy, "previous advice": previous, "greedy": greedy, "random legal": random_policy}

    def play_one(seed: int, seat_policies: Sequence[str]) -> GameResult:
        final = play(sim, seed, [policies[name] for name in seat_policies])
        return GameResult(tuple(-sim.dice_on_cards(final, s) for s in range(players)), (final.winner,))
    return play_one


def derby_tournaments(games: int = 10_000, player_counts: Sequence[int] = (2, 3, 4),
                      opponents: Sequence[str] = DERBY_OPPONENTS, seed: int = 0, progress=None) -> dict:
    """The Whirling Derby advice against each opponent at each player count, ``games`` games
    each; returned and reported as :func:`dairyman_tournaments` does."""
    rows = []
    for opponent in opponents:
        for players in player_counts:
            start = time.perf_counter()
            row = head_to_head(derby_player(players), "advice", opponent, players, games, seed)
            row["seconds"] = round(time.perf_counter() - start, 1)
            rows.append(row)
            if progress is not None:
                progress(row)
    return {"game": "whirling-derby", "games_per_row": games, "rows": rows, "table": markdown_table(rows)}
