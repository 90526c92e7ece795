"""Parts of the Dairyman and Whirling Derby board panels: a die, a player's card, and the
advice box (the best move as one large button with its reason, the others behind "More").

Display only: they show what a panel hands them and call back with the engine's moves.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Line, Rectangle
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.scrollview import ScrollView
from kivy.utils import escape_markup

from ui.board_panels import PLAYER_RGBA
from ui.widgets import colour_rgba

HIGHLIGHT_RGBA = (1.0, 0.85, 0.1, 1)
CARD_RGBA = (0.16, 0.19, 0.24, 1)
CURRENT_CARD_RGBA = (0.24, 0.3, 0.4, 1)
GO_RGBA = (0.15, 0.5, 0.28, 1)
MORE_SHOWN = 40
"""Suggestions listed under "More" (the play screen's "Other move" lists every legal move)."""


def sentence(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def ink_for(rgba) -> tuple:
    """Black or white text, whichever reads on ``rgba``."""
    return (0, 0, 0, 1) if 0.3 * rgba[0] + 0.55 * rgba[1] + 0.15 * rgba[2] > 0.5 else (1, 1, 1, 1)


def seat_rgba(seat: int) -> tuple:
    return PLAYER_RGBA[seat % len(PLAYER_RGBA)]


def wrapped(label: Label, lines: int | None = None) -> Label:
    """``label`` wrapping its text to its width (and at most ``lines`` lines)."""
    label.bind(size=lambda w, s: setattr(w, "text_size", (s[0], None if lines is None else s[1])))
    if lines:
        label.max_lines = lines
    return label


HYPHENATED = re.compile(r"[^-]*-+|[^-]+")
"""A word's pieces, each ending at a hyphen where there is one ("Montgomery-", "Smyth")."""


def break_at_hyphens(text: str, width: float, font_size: float, bold: bool) -> str:
    """``text`` with a line break after the hyphen of each word too wide for ``width`` on
    its own.  Kivy wraps only at spaces and cuts a wider word anywhere ("Montgomery-Sm" /
    "yth"); broken at its hyphens it reads whole ("Montgomery-" / "Smyth")."""
    measure = CoreLabel(font_size=font_size, bold=bold)
    words = []
    for word in text.split(" "):
        if "-" not in word.strip("-") or measure.get_extents(word)[0] <= width:
            words.append(word)
            continue
        lines = [""]
        for piece in HYPHENATED.findall(word):
            if lines[-1] and measure.get_extents(lines[-1] + piece)[0] > width:
                lines.append(piece)
            else:
                lines[-1] += piece
        words.append("\n".join(lines))
    return " ".join(words)


class NameLabel(Label):
    """A player's name in full, wrapped to the label's width between words or after a
    hyphen; ``name`` is the name itself (``text`` is it with the line breaks)."""

    name = StringProperty("")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.bind(name=self._wrap, width=self._wrap, font_size=self._wrap, bold=self._wrap)
        self._wrap()

    def _wrap(self, *_args) -> None:
        self.text_size = (self.width, None)
        self.text = break_at_hyphens(self.name, self.width, self.font_size, self.bold)


class DieChip(Button):
    """A die: its colour, its value; outlined when chosen.  ``die`` is how moves name it."""

    die = StringProperty("")
    colour_name = StringProperty("")
    chosen = BooleanProperty(False)
    rgba = ListProperty([0.6, 0.6, 0.6, 1])

    def __init__(self, **kwargs):
        kwargs.setdefault("font_size", "20sp")
        kwargs.setdefault("bold", True)
        super().__init__(background_normal="", background_down="", **kwargs)
        self.bind(pos=self._redraw, size=self._redraw, chosen=self._redraw, rgba=self._redraw)

    def set_die(self, view: dict) -> None:
        self.die = view.get("die") or f"{view['colour']}:{view['value']}"
        self.colour_name = view["colour"] or ""
        self.rgba = list(colour_rgba(view["colour"]))
        self.text = str(view["value"])

    def _redraw(self, *_args) -> None:
        self.background_color = self.rgba
        self.color = ink_for(self.rgba)
        self.canvas.after.clear()
        with self.canvas.after:
            Color(*(HIGHLIGHT_RGBA if self.chosen else (0.5, 0.5, 0.55, 1)))
            Line(rectangle=(self.x + 1, self.y + 1, self.width - 2, self.height - 2),
                 width=dp(3) if self.chosen else dp(1))


class PlayerCard(BoxLayout):
    """One player: a stripe in their seat colour, the name in full, a big score and the
    game's counters; the player whose turn it is stands out (lighter, outlined)."""

    player = StringProperty("")
    current = BooleanProperty(False)

    def __init__(self, seat: int, **kwargs):
        super().__init__(orientation="horizontal", spacing=dp(4), padding=(0, dp(1), dp(4), dp(1)), **kwargs)
        self.seat_rgba = seat_rgba(seat)
        stripe = Label(size_hint_x=None, width=dp(10))
        self.add_widget(stripe)
        body = BoxLayout(orientation="vertical")
        self.name_label = wrapped(Label(font_size="18sp", bold=True, halign="left", valign="middle"))
        self.detail_label = wrapped(Label(font_size="18sp", halign="left", valign="middle"))
        body.add_widget(self.name_label)
        body.add_widget(self.detail_label)
        self.score_label = Label(font_size="28sp", bold=True, size_hint_x=None, width=dp(50), halign="right",
                                 valign="middle")
        self.score_label.bind(size=lambda w, s: setattr(w, "text_size", s))
        self.add_widget(body)
        self.add_widget(self.score_label)
        self.bind(pos=self._redraw, size=self._redraw, current=self._redraw)

    def fill(self, name: str, score: str, detail: str, current: bool) -> None:
        self.player, self.current = name, current
        self.name_label.text = name
        self.name_label.color = HIGHLIGHT_RGBA if current else (1, 1, 1, 1)
        self.score_label.text = score
        self.detail_label.text = detail
        self._redraw()

    def _redraw(self, *_args) -> None:
        self.canvas.before.clear()
        with self.canvas.before:
            Color(*(CURRENT_CARD_RGBA if self.current else CARD_RGBA))
            Rectangle(pos=self.pos, size=self.size)
            Color(*self.seat_rgba)
            Rectangle(pos=(self.x, self.y), size=(dp(10), self.height))
            if self.current:
                Color(*HIGHLIGHT_RGBA)
                Line(rectangle=(self.x + 1, self.y + 1, self.width - 2, self.height - 2), width=dp(2))


class AdviceBox(BoxLayout):
    """The best move as one large button (headline, its reason below) and "More" for the
    others, listed with the same wording.  ``show`` takes (headline, reason, move) items."""

    def __init__(self, on_move: Callable, **kwargs):
        super().__init__(orientation="horizontal", spacing=dp(4), **kwargs)
        self.on_move = on_move
        self.items: list[tuple[str, str, object]] = []
        self.best = Button(markup=True, font_size="18sp", halign="left", valign="middle", background_normal="",
                           background_color=GO_RGBA)
        self.best.bind(size=lambda b, s: setattr(b, "text_size", (s[0] - dp(14), s[1])),
                       on_release=lambda _b: self.items and self.on_move(self.items[0][2]))
        self.more = Button(font_size="18sp", size_hint_x=None, width=dp(64), halign="center")
        self.more.bind(on_release=lambda _b: self.open_more())
        self.add_widget(self.best)
        self.add_widget(self.more)
        self.popup = None

    def show(self, items: Sequence[tuple[str, str, object]]) -> None:
        self.items = list(items)
        if self.items:
            headline, reason = (escape_markup(t) for t in self.items[0][:2])
            self.best.text = f"[b]{headline}[/b]\n{reason}" if reason else f"[b]{headline}[/b]"
        else:
            self.best.text = ""
        self.best.disabled = not self.items
        self.more.text = f"More\n({len(self.items) - 1})" if len(self.items) > 1 else "More"
        self.more.disabled = len(self.items) < 2

    def open_more(self) -> None:
        """The other suggestions in a list; tap one to play it."""
        listing = GridLayout(cols=1, spacing=dp(4), size_hint_y=None)
        listing.bind(minimum_height=listing.setter("height"))
        popup = Popup(title="Other choices, best first", title_size="20sp", size_hint=(0.96, 0.96),
                      _anim_duration=0)
        for headline, reason, move in self.items[1:MORE_SHOWN + 1]:
            button = Button(text=f"[b]{escape_markup(headline)}[/b]\n{escape_markup(reason)}", markup=True,
                            font_size="18sp", halign="left", valign="middle", size_hint_y=None, height=dp(64),
                            background_normal="", background_color=(0.2, 0.27, 0.36, 1))
            button.bind(width=lambda b, w: setattr(b, "text_size", (w - dp(14), None)),
                        texture_size=lambda b, s: setattr(b, "height", max(dp(60), s[1] + dp(12))))
            button.bind(on_release=lambda _b, m=move: (popup.dismiss(), self.on_move(m)))
            listing.add_widget(button)
        scroll = ScrollView(do_scroll_x=False)
        scroll.add_widget(listing)
        content = BoxLayout(orientation="vertical", spacing=dp(6))
        content.add_widget(scroll)
        back = Button(text="Back", size_hint_y=None, height=dp(52), font_size="19sp")
        back.bind(on_release=popup.dismiss)
        content.add_widget(back)
        popup.content = content
        self.popup, self.listing = popup, listing
        popup.open()
