"""End of game: the winner and a chart of every player's score by source."""
from __future__ import annotations

from kivy.app import App
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen


class SummaryScreen(Screen):
    winner_text = StringProperty("")

    def on_pre_enter(self, *_args) -> None:
        state = App.get_running_app().state
        if state is None:
            return
        winners = state.winners()
        scores = state.scores()
        verb = "wins" if len(winners) == 1 else "share the win"
        self.winner_text = f"{' and '.join(winners)} {verb} with {scores[winners[0]]} points"
        self.ids.chart.breakdown = state.score_breakdown()


SCREEN_CLASS = SummaryScreen
