"""Advice for Dicey Farm (placeholder while the search is written): legal moves in order."""
from __future__ import annotations

from companion.engine import Move, Suggestion


def advise(state) -> list[Suggestion]:
    return [Suggestion(m, state.describe(m)) for m in state.legal_moves()]


def best_move(state) -> Move | None:
    moves = state.legal_moves()
    return moves[0] if moves else None


def forget() -> None:
    """Nothing remembered yet."""
