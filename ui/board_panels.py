"""Board panels: a game's table drawn on the play screen, one module and one ``.kv`` per game.

A game with a panel registers its module here (``ui/<module>.py`` defining ``PANEL_CLASS``,
and ``ui/<module>.kv``).  The play screen then shows the panel instead of its list of
suggestions and tokens, and calls :meth:`BoardPanel.show` with every new state.  A panel
displays what the state's view methods say and turns taps into the engine's moves, which
it hands to the app's ``play``: the engine decides whether they are legal, and a refused
one shows its one-line reason on the screen and changes nothing.  Games without a panel
keep the play screen's usual display.
"""
from __future__ import annotations

import importlib

from kivy.app import App
from kivy.uix.boxlayout import BoxLayout

from companion.engine import Move

PANEL_MODULES = {"dyce": "dyce_panel", "dicey-farm": "dicey_farm_panel", "dairyman": "dairyman_panel",
                 "whirling-derby": "whirling_derby_panel", "space-colony-cheeses": "space_colony_cheeses_panel"}
"""Game name -> the ``ui`` module (and ``.kv`` file) holding its panel."""

PLAYER_RGBA = ((0.35, 0.85, 0.85, 1), (1.0, 0.6, 0.8, 1), (0.93, 0.9, 0.78, 1), (0.7, 0.55, 0.35, 1))
"""Seat colours for games whose pieces are in player colours (teal, pink, ivory, tan):
chosen to stay apart from the eight dice colours."""


class BoardPanel(BoxLayout):
    """The interface every panel keeps: ``show(state)``, ``play(move)`` and ``camera_slot``."""

    game_name = ""
    """The game this panel draws (set by :func:`panel_for`)."""
    camera_slot = None
    """A layout the play screen puts its live camera view into while dice are due (None: the
    panel has no room for it and the play screen keeps its own)."""

    def show(self, state) -> None:
        """Draw ``state``; called with every new state (after a move, a roll, an undo)."""
        raise NotImplementedError

    def play(self, move: Move) -> bool:
        """Hand ``move`` to the app; False (and the reason on screen) if the engine refuses it."""
        return App.get_running_app().play(move)

    def refuse(self, message: str) -> None:
        """A tap that makes no move: its one-line reason on screen."""
        App.get_running_app().notice = message


def panel_for(game_name: str) -> BoardPanel | None:
    """A new panel for ``game_name``, or None when the game has none."""
    module_name = PANEL_MODULES.get(game_name)
    if module_name is None:
        return None
    from ui.app import load_layout

    module = importlib.import_module(f"ui.{module_name}")
    load_layout(f"{module_name}.kv")
    panel = module.PANEL_CLASS()
    panel.game_name = game_name
    return panel
