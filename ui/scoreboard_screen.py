"""Scoreboard: every player's score broken down by source, as the game counts it."""
from __future__ import annotations

from kivy.app import App
from kivy.metrics import dp
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen


class ScoreboardScreen(Screen):
    def on_pre_enter(self, *_args) -> None:
        state = App.get_running_app().state
        grid = self.ids.table
        grid.clear_widgets()
        if state is None:
            return
        breakdown = state.score_breakdown()
        sources = sorted({s for parts in breakdown.values() for s in parts})
        grid.cols = len(sources) + 2
        for text in ["", *[s.replace("_", " ") for s in sources], "total"]:
            grid.add_widget(self._cell(text, bold=True))
        for player, parts in breakdown.items():
            mark = " *" if player == state.current_player else ""
            grid.add_widget(self._cell(player + mark, bold=True))
            for source in sources:
                grid.add_widget(self._cell(str(parts.get(source, 0))))
            grid.add_widget(self._cell(str(sum(parts.values())), bold=True, size="26sp"))

    @staticmethod
    def _cell(text: str, bold: bool = False, size: str = "22sp") -> Label:
        label = Label(text=text, bold=bold, font_size=size, size_hint_y=None, height=dp(52),
                      halign="center", valign="middle", shorten=True)
        label.bind(size=lambda w, s: setattr(w, "text_size", s))
        return label


SCREEN_CLASS = ScoreboardScreen
