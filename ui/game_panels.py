"""What the play screen shows of each player's holdings and of the shared table.

A game may have a panel here (a function of its state, display only: it reads fields,
it decides nothing).  A game without one still appears: :func:`generic_resources` shows
every per-player counter it finds in the state's JSON.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


def count(value: Any) -> int | None:
    """A number as is; a list, or a dict of lists, as how many things it holds."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, list):
        return len(value)
    if isinstance(value, dict):
        inner = [count(v) for v in value.values() if isinstance(v, (list, dict))]
        return sum(v for v in inner if v is not None) if inner else None
    return None


def generic_resources(state) -> tuple[dict[str, dict[str, Any]], str]:
    """Every list in the state's JSON with one entry per player, as that player's counter."""
    players = list(state.players)
    found: dict[str, dict[str, Any]] = {p: {} for p in players}
    for key, value in state.to_json().items():
        if key == "players" or not isinstance(value, list) or len(value) != len(players):
            continue
        counts = [count(v) for v in value]
        if all(c is not None for c in counts):
            for player, amount in zip(players, counts):
                found[player][key.replace("_", " ")] = amount
    return found, ""


def dairyman_resources(state) -> tuple[dict[str, dict[str, Any]], str]:
    found = {}
    for seat, player in enumerate(state.players):
        flipped = sum(t in state.flipped for t in state.owned[seat])
        found[player] = {"tiles": len(state.owned[seat]), "flipped": flipped,
                         "freeze": state.freeze[seat], "backorders": state.backorders[seat]}
    display = ", ".join(state.tiles[t].label() for t in state.display)
    table = (f"Display: {display}  ·  barns {state.barn_total}  ·  supply: {state.freeze_supply} freeze, "
             f"{state.backorder_supply} backorder")
    return found, table


PANELS: dict[str, Callable[[Any], tuple[dict[str, dict[str, Any]], str]]] = {
    "dairyman": dairyman_resources,
}


def resources(state) -> tuple[dict[str, dict[str, Any]], str]:
    """Player -> counter -> amount, and one line about the shared table ("" if none)."""
    return PANELS.get(state.game.name, generic_resources)(state)
