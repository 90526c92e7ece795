"""Scoreboard: each player's points by source in their seat colour, the current player
highlighted, and every player's score over the game so far."""
from __future__ import annotations

from kivy.app import App
from kivy.graphics import Color, Rectangle
from kivy.metrics import dp
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from ui.board_panels import PLAYER_RGBA

CURRENT_RGBA = (0.2, 0.26, 0.36, 1)


class ScoreboardScreen(Screen):
    def on_pre_enter(self, *_args) -> None:
        app = App.get_running_app()
        state = app.state
        grid = self.ids.table
        grid.clear_widgets()
        if state is None:
            return
        breakdown = state.score_breakdown()
        sources = sorted({s for parts in breakdown.values() for s in parts})
        grid.cols = len(sources) + 2
        for text in ["", *[s.replace("_", " ") for s in sources], "total"]:
            grid.add_widget(self._cell(text, size="18sp", wrap=True, align="center", colour=(0.8, 0.85, 0.9, 1)))
        for seat, (player, parts) in enumerate(breakdown.items()):
            current = player == state.current_player
            name = self._cell(player, bold=True, wrap=True, background=CURRENT_RGBA if current else None)
            name.color = PLAYER_RGBA[seat % len(PLAYER_RGBA)]
            grid.add_widget(name)
            for source in sources:
                value = parts.get(source, 0)
                grid.add_widget(self._cell(f"\u2212{-value}" if value < 0 else str(value),
                                           background=CURRENT_RGBA if current else None,
                                           colour=(1, 0.55, 0.5, 1) if value < 0 else (1, 1, 1, 1)))
            grid.add_widget(self._cell(str(sum(parts.values())), bold=True, size="26sp",
                                       background=CURRENT_RGBA if current else None))
        lines = self.ids.lines
        lines.colours = [PLAYER_RGBA[seat % len(PLAYER_RGBA)] for seat in range(len(state.players))]
        lines.history = app.session.score_history() if app.session else []
        self.ids.turn_hint.text = f"{state.current_player} is playing (highlighted)" if state.current_player else ""

    @staticmethod
    def _cell(text: str, bold: bool = False, size: str = "22sp", wrap: bool = False, background=None,
              colour=(1, 1, 1, 1), align: str = "left") -> Label:
        label = Label(text=text, bold=bold, font_size=size, size_hint_y=None, height=dp(56), color=colour,
                      halign=align if wrap else "center", valign="middle", max_lines=2 if wrap else 1,
                      shorten=not wrap)
        label.bind(size=lambda w, s: setattr(w, "text_size", (s[0] - dp(6), s[1])))
        if background:
            with label.canvas.before:
                Color(*background)
                label._background = Rectangle(pos=label.pos, size=label.size)
            label.bind(pos=lambda w, p: setattr(w._background, "pos", p),
                       size=lambda w, s: setattr(w._background, "size", s))
        return label


SCREEN_CLASS = ScoreboardScreen
