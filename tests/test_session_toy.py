"""A tiny game for the session tests, independent of the real games' progress.

"Toy race": each turn the current player rolls one white and one red die, then takes
one of the rolled values as points or passes.  After ``rounds`` rounds the game ends;
the highest total wins.  It implements the whole engine API, so the session store
replays it exactly as it replays a real game.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from companion.engine import Alert, DiceRequest, Die, Game, GameState, Move, Option, Suggestion
from companion.errors import RuleError, UserError
from companion.games import all_games


@dataclass(frozen=True)
class ToyState(GameState):
    players: tuple[str, ...]
    points: tuple[int, ...]
    rounds: int
    round: int = 1
    turn: int = 0
    rolled: tuple[Die, ...] | None = None

    @property
    def game(self) -> ToyGame:
        return GAME

    @property
    def current_player(self) -> str | None:
        return None if self.is_terminal() else self.players[self.turn]

    @property
    def phase(self) -> str:
        if self.is_terminal():
            return "over"
        return "roll" if self.rolled is None else "take"

    def dice_to_roll(self) -> DiceRequest | None:
        if self.is_terminal() or self.rolled is not None:
            return None
        return DiceRequest(self.players[self.turn], ("white", "red"))

    def is_terminal(self) -> bool:
        return self.round > self.rounds

    def _apply_roll(self, dice: tuple[Die, ...]) -> ToyState:
        return replace(self, rolled=dice)

    def legal_moves(self) -> list[Move]:
        if self.rolled is None or self.is_terminal():
            return []
        values = sorted({d.value for d in self.rolled}, reverse=True)
        return [Move.make("take", value=v) for v in values] + [Move.make("pass")]

    def _apply(self, move: Move) -> ToyState:
        if move.kind == "take":
            if move.get("value") not in {d.value for d in self.rolled}:
                raise RuleError("take a rolled die", f"{move.get('value')!r} was not rolled")
            points = list(self.points)
            points[self.turn] += move["value"]
        elif move.kind == "pass":
            points = list(self.points)
        else:
            raise RuleError("moves", f"no move {move.kind!r} in the toy race")
        turn = (self.turn + 1) % len(self.players)
        return replace(self, points=tuple(points), turn=turn, round=self.round + (turn == 0), rolled=None)

    def score_breakdown(self) -> dict[str, dict[str, int]]:
        return {p: {"taken": n} for p, n in zip(self.players, self.points)}

    def alerts(self) -> list[Alert]:
        if self.is_terminal():
            return [Alert("game_over", "the race is over", "critical")]
        if self.round == self.rounds:
            return [Alert("final_round", "last round", "warning")]
        return []

    def describe(self, move: Move) -> str:
        who = self.current_player
        return f"{who} takes {move['value']}" if move.kind == "take" else f"{who} passes"

    def to_json(self) -> dict:
        return {"players": list(self.players), "points": list(self.points), "rounds": self.rounds,
                "round": self.round, "turn": self.turn,
                "rolled": None if self.rolled is None else [d.to_json() for d in self.rolled]}


class ToyGame(Game):
    name = "toy-race"
    title = "Toy race"
    min_players = 1
    max_players = 4
    options = (Option("rounds", 2, "rounds before the race ends"),)

    def new_game(self, players: Sequence[str], options: Mapping[str, Any] | None = None, seed: int = 0) -> ToyState:
        players = self.check_players(players)
        rounds = self.resolve_options(options)["rounds"]
        if rounds < 1:
            raise UserError("a toy race has at least one round")
        return ToyState(players, (0,) * len(players), rounds)

    def state_from_json(self, data: Mapping) -> ToyState:
        rolled = data["rolled"]
        return ToyState(tuple(data["players"]), tuple(data["points"]), data["rounds"], data["round"], data["turn"],
                        None if rolled is None else tuple(Die.from_json(d) for d in rolled))

    def advise(self, state: GameState) -> list[Suggestion]:
        return [Suggestion(m, state.describe(m), {"points": m.get("value", 0)}, "more points first")
                for m in state.legal_moves()]


GAME = ToyGame()


@contextmanager
def toy_registered():
    """The toy race registered with ``companion.games`` for the duration of a ``with``."""
    games = all_games()
    games[GAME.name] = GAME
    try:
        yield GAME
    finally:
        games.pop(GAME.name, None)
