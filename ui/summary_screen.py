"""End of game: places 1-4 with each player's points by source (penalties as penalties),
how long the game took, a chart of the scores, and a rematch with the same table."""
from __future__ import annotations

from datetime import datetime

from kivy.app import App
from kivy.graphics import Color, Rectangle
from kivy.metrics import dp
from kivy.properties import StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from ui.board_panels import PLAYER_RGBA

PLACE_WORDS = ("1st", "2nd", "3rd", "4th")
PENALTY_COLOUR = "ff8a80"


def places(winners, scores: dict[str, int]) -> list[tuple[int, str]]:
    """(place, player) best first: the winners share first place, the others follow by score,
    equal scores sharing a place."""
    ranked = [(0, p) for p in scores if p in winners]
    others = sorted((p for p in scores if p not in winners), key=lambda p: -scores[p])
    first_other = len(ranked)
    place, previous = first_other, None
    for index, player in enumerate(others):
        if scores[player] != previous:
            place, previous = first_other + index, scores[player]
        ranked.append((place, player))
    return ranked


def parts_text(parts: dict[str, int]) -> str:
    """'milk 40 · cheese 25 · backorders −10': points by source, penalties in red."""
    shown = []
    for source, value in parts.items():
        if value < 0:
            shown.append(f"[color={PENALTY_COLOUR}]{source.replace('_', ' ')} \u2212{-value}[/color]")
        elif value:
            shown.append(f"{source.replace('_', ' ')} {value}")
    return "  \u00b7  ".join(shown) or "no points"


def length_text(history: list[dict]) -> str:
    """'34 rolls and 61 moves in 42 minutes' from a session's history."""
    done = [e for e in history if e["kind"] in ("roll", "move") and not e.get("undone")]
    rolls = sum(e["kind"] == "roll" for e in done)
    text = f"{rolls} roll{'s' * (rolls != 1)} and {len(done) - rolls} move{'s' * (len(done) - rolls != 1)}"
    try:
        minutes = (datetime.fromisoformat(history[-1]["time"]) - datetime.fromisoformat(history[0]["time"])
                   ).total_seconds() / 60
    except (KeyError, IndexError, TypeError, ValueError):
        return text
    return f"{text} in {round(minutes)} minute{'s' * (round(minutes) != 1)}" if minutes >= 1 else \
        f"{text} in under a minute"


class SummaryScreen(Screen):
    winner_text = StringProperty("")
    length_text = StringProperty("")

    def on_pre_enter(self, *_args) -> None:
        app = App.get_running_app()
        state = app.state
        if state is None:
            return
        winners, scores, breakdown = state.winners(), state.scores(), state.score_breakdown()
        counts_points = any(scores.values())
        verb = "wins" if len(winners) == 1 else "share the win"
        words = state.game.score_words
        if len(state.players) == 1:
            self.winner_text = f"{state.players[0]}: {words(scores[state.players[0]])}"
        else:
            self.winner_text = f"{' and '.join(winners)} {verb}" + \
                (f" with {words(scores[winners[0]])}" if winners and scores[winners[0]] > 0 else "")
        self.length_text = length_text(app.session.history())
        box = self.ids.places
        box.clear_widgets()
        for place, player in places(winners, scores):
            box.add_widget(self._place_row(place, player, state.players.index(player), scores[player],
                                           breakdown.get(player, {}), counts_points))
        self.ids.chart.breakdown = breakdown if counts_points else {}
        self.ids.chart.height = dp(44) * len(breakdown) + dp(80) if counts_points else 0

    @staticmethod
    def _place_row(place: int, player: str, seat: int, score: int, parts: dict, counts_points: bool) -> BoxLayout:
        row = BoxLayout(size_hint_y=None, height=dp(58), spacing=dp(8))
        row.add_widget(Label(text=PLACE_WORDS[min(place, 3)], font_size="24sp", bold=True, size_hint_x=None,
                             width=dp(56), color=(1, 0.85, 0.2, 1) if place == 0 else (1, 1, 1, 1)))
        chip = Widget(size_hint=(None, None), size=(dp(14), dp(44)))
        with chip.canvas:
            Color(*PLAYER_RGBA[seat % len(PLAYER_RGBA)])
            chip._rect = Rectangle(pos=chip.pos, size=chip.size)
        chip.bind(pos=lambda w, p: setattr(w._rect, "pos", p))
        holder = BoxLayout(size_hint_x=None, width=dp(14), padding=(0, dp(7)))
        holder.add_widget(chip)
        row.add_widget(holder)
        details = f"[b]{player}[/b]" + (f"\n[size=18sp]{parts_text(parts)}[/size]" if counts_points else "")
        label = Label(text=details, markup=True, font_size="21sp", halign="left", valign="middle")
        label.bind(width=lambda w, width: setattr(w, "text_size", (width, None)),
                   texture_size=lambda w, size: setattr(row, "height", max(dp(58), size[1] + dp(8))))
        row.add_widget(label)
        if counts_points:
            row.add_widget(Label(text=str(score), font_size="28sp", bold=True, size_hint_x=None, width=dp(80)))
        return row


SCREEN_CLASS = SummaryScreen
