"""The games.  Each module here that defines ``GAME`` (a :class:`companion.engine.Game`)
is found automatically, so a new game needs no change anywhere else."""
from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from companion.engine import Game
from companion.errors import UserError


@cache
def all_games() -> dict[str, Game]:
    """Every game by its command-line name, in name order."""
    found: dict[str, Game] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        game = getattr(module, "GAME", None)
        if isinstance(game, Game):
            found[game.name] = game
    return found


def get_game(name: str) -> Game:
    """The game called ``name`` (``dairyman``, ``whirling-derby``; ``_`` and case ignored)."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    games = all_games()
    if key not in games:
        raise UserError(f"unknown game {name!r} (games: {', '.join(games) or 'none'})")
    return games[key]
