"""Whirling Derby tournaments for ``companion bench advice``: the advice against greedy,
random legal play and the previous advice, duplicate games on the compact simulator."""
from __future__ import annotations

from collections.abc import Sequence

from companion.games.whirling_derby import load_rules
from companion.games.whirling_derby_advice import policy as advice
from companion.games.whirling_derby_policies import greedy, play, previous, random_policy
from companion.games.whirling_derby_sim import simulator
from companion.tournament import GameResult, head_to_head, markdown_table

POLICIES = {"advice": advice, "previous advice": previous, "greedy": greedy, "random": random_policy}
"""The Whirling Derby players by the names the tables show."""


def derby_player(players: int):
    """``play(seed, seat_policies)`` for :func:`companion.tournament.head_to_head`: one game
    on the simulator; a seat scores minus the dice left on its cards, the winner wins."""
    sim = simulator(load_rules(), players)

    def play_one(seed: int, seat_policies: Sequence[str]) -> GameResult:
        final = play(sim, seed, [POLICIES[name] for name in seat_policies])
        return GameResult(tuple(-sim.dice_on_cards(final, s) for s in range(players)), (final.winner,))
    return play_one


def derby_tournaments(games: int = 10_000, seed: int = 0, player_counts: Sequence[int] = (2, 3, 4),
                      opponents: Sequence[str] = ("greedy", "random", "previous advice")) -> dict:
    """The advice against each opponent at each player count, ``games`` games each."""
    rows = [head_to_head(derby_player(count), "advice", opponent, count, games, seed)
            for count in player_counts for opponent in opponents]
    return {"rows": rows, "table": markdown_table(rows)}
