"""Play screen: the live camera view with the read dice, whose turn and what phase,
the suggested moves, every player's tokens, and a banner for alerts that matter now."""
from __future__ import annotations

from kivy.app import App
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.screenmanager import Screen
from kivy.uix.scrollview import ScrollView

from companion.engine import percent_words
from ui.board_panels import panel_for
from ui.dice_chips import DiceChips
from ui.game_panels import resources
from ui.keypad import RollKeypad

SEVERITY_RGBA = {"critical": (0.72, 0.05, 0.05, 1), "warning": (1.0, 0.72, 0.15, 1)}
SEVERITY_INK = {"critical": (1, 1, 1, 1), "warning": (0, 0, 0, 1)}
"""Banner colours: white on dark red and black on amber, both above WCAG AA's 4.5:1."""


def format_figure(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return percent_words(value) if 0 <= value <= 1 else f"{value:.1f}"
    return str(value)


KIND_WORDS = {"reroll": "re-roll", "set_side": "turn a card", "done_lifting": "done lifting", "take_pound": "take £1",
              "end_turn": "end turn", "end_build": "end building", "skip_move": "no move", "turn_off": "turn off",
              "no_lawsuit": "no lawsuit", "gift_boxes": "gift boxes", "end_round": "end round"}
"""The kinds of move as the "Other move" list's tabs name them, where the engine's name is not a word."""


def die_colour_choices(request, game) -> list[str]:
    """The colours a die entered by hand may have: those the request names, else the game's box,
    else (dice whose colour the game does not care about, e.g. any die may be any colour) none."""
    named = list(dict.fromkeys(c for c in (request.colours if request else ()) if c))
    if named and None not in request.colours:
        return named
    box = (game.dice_colours or ()) if game is not None else ()
    return list(dict.fromkeys([*named, *box]))


def alert_sentence(alert) -> str:
    """An alert as a sentence: capital first letter, naming its players when it does not yet."""
    message = alert.message.strip()
    named = [p for p in alert.players if p not in message]
    if named and len(named) == len(alert.players):
        message = f"{' and '.join(named)}: {message}"
    return message[:1].upper() + message[1:]


def suggestion_text(suggestion) -> str:
    figures = "  ".join(f"{k.replace('_', ' ')} {format_figure(v)}" for k, v in suggestion.advice.items())
    lines = [f"[b]{suggestion.text}[/b]"]
    if figures:
        lines.append(f"[size=18sp]{figures}[/size]")
    if suggestion.reason:
        lines.append(f"[size=18sp][i]{suggestion.reason}[/i][/size]")
    return "\n".join(lines)


class AlertBanner(ButtonBehavior, Label):
    """The alerts across the top; a tap shows them in full."""


class PlayScreen(DiceChips, Screen):
    turn_text = StringProperty("")
    table_text = StringProperty("")
    prompt_text = StringProperty("")
    banner_text = StringProperty("")
    banner_rgba = ListProperty([0, 0, 0, 0])
    banner_ink = ListProperty([1, 1, 1, 1])
    compact_banner = BooleanProperty(False)     # a board panel needs the height

    board = None
    """The game's board panel (:mod:`ui.board_panels`) while its game is played, else None."""
    alert_popup = None
    """The alerts in full, while the player has them open."""
    keypad = keypad_button = None
    """The roll keypad (while open) and the button that opens it."""

    def on_kv_post(self, _base) -> None:
        # Strong references: ``ids`` holds weak ones, and these leave the tree while a board panel is shown.
        self._main_row, self._view = self.ids.main_row.__self__, self.ids.view.__self__
        app = App.get_running_app()
        app.bind(revision=self.refresh, reading=self._reading_changed, reading_busy=self._reading_changed)

    def on_pre_enter(self, *_args) -> None:
        self.refresh()

    # -- showing the state ------------------------------------------------------------
    def refresh(self, *_args) -> None:
        app = App.get_running_app()
        state = app.state
        if state is None:
            return
        request = state.dice_to_roll()
        self._place_board(state.game.name)
        if self.board is not None:
            self.board.show(state)
            self._show_alerts(state)
            self.ids.other_button.disabled = not state.legal_moves()
            self._reading_changed()
            return
        self.turn_text = f"{state.current_player or 'Game over'}  ·  {state.phase}"
        if request is not None:
            self.prompt_text = f"Roll {request.describe()}" + (f" ({request.reason})" if request.reason else "")
        elif state.is_terminal():
            self.prompt_text = "The game is over."
        else:
            self.prompt_text = "Choose a move:"
        self._show_alerts(state)
        self._show_suggestions(state, request)
        self._show_resources(state)
        self._reading_changed()

    def _place_board(self, game_name: str) -> None:
        """Show the game's board panel in place of the picture and suggestions (the live
        picture moves into the panel), or put them back for a game without one."""
        if self.board is not None and self.board.game_name == game_name:
            return
        main, view = self._main_row, self._view
        if self.board is not None:
            self.board.camera_slot.remove_widget(view)
            outer = self.board.parent
            index = outer.children.index(self.board)
            outer.remove_widget(self.board)
            outer.add_widget(main, index)
            main.add_widget(view, len(main.children))
            self.board, self.compact_banner = None, False
        board = panel_for(game_name)
        if board is None:
            return
        self.ids.resources.clear_widgets()
        outer = main.parent
        index = outer.children.index(main)
        outer.remove_widget(main)
        outer.add_widget(board, index)
        main.remove_widget(view)
        board.camera_slot.add_widget(view)
        self.board = board
        self.compact_banner = True

    def _show_alerts(self, state) -> None:
        """The alerts that matter now, one sentence a line, the most severe first."""
        urgent = [a for a in state.alerts() if a.severity in SEVERITY_RGBA]
        urgent.sort(key=lambda a: a.severity != "critical")
        self.banner_text = "\n".join(alert_sentence(a) for a in urgent)
        self.banner_rgba = list(SEVERITY_RGBA[urgent[0].severity]) if urgent else [0, 0, 0, 0]
        self.banner_ink = list(SEVERITY_INK[urgent[0].severity]) if urgent else [1, 1, 1, 1]
        if self.alert_popup is not None and self.alert_popup.parent:
            self.alert_popup.dismiss()

    def expand_alerts(self) -> None:
        """The banner tapped: every alert in full, in a window a player closes with one tap."""
        if not self.banner_text:
            return
        text = Label(text=self.banner_text, font_size="21sp", halign="left", valign="top")
        text.bind(width=lambda label, width: setattr(label, "text_size", (width, None)),
                  texture_size=lambda label, size: setattr(label, "height", size[1]))
        scroll = ScrollView(do_scroll_x=False)
        body = BoxLayout(orientation="vertical", size_hint_y=None)
        body.bind(minimum_height=body.setter("height"))
        text.size_hint_y = None
        body.add_widget(text)
        scroll.add_widget(body)
        content = BoxLayout(orientation="vertical", spacing=dp(8))
        content.add_widget(scroll)
        popup = Popup(title="Alerts", title_size="21sp", content=content, size_hint=(0.95, 0.9), _anim_duration=0)
        close = Button(text="Close", size_hint_y=None, height=dp(56), font_size="20sp")
        close.bind(on_release=popup.dismiss)
        content.add_widget(close)
        self.alert_popup = popup
        popup.open()

    def _show_suggestions(self, state, request) -> None:
        box = self.ids.suggestions
        box.clear_widgets()
        if request is not None or state.is_terminal():
            self.ids.other_button.disabled = True
            return
        self.ids.other_button.disabled = False
        for suggestion in state.game.advise(state):
            button = Button(text=suggestion_text(suggestion), markup=True, size_hint_y=None, font_size="18sp",
                            halign="left", valign="middle", background_normal="",
                            background_color=(0.2, 0.27, 0.36, 1))
            button.bind(width=lambda b, w: setattr(b, "text_size", (w - dp(16), None)),
                        texture_size=lambda b, s: setattr(b, "height", max(dp(64), s[1] + dp(16))))
            button.bind(on_release=lambda _b, m=suggestion.move: App.get_running_app().play(m))
            box.add_widget(button)

    def _show_resources(self, state) -> None:
        box = self.ids.resources
        box.clear_widgets()
        scores = state.scores()
        holdings, self.table_text = resources(state)
        for player, counters in holdings.items():
            parts = [f"{name.replace('_', ' ')} {value}" for name, value in counters.items()]
            mark = "> " if player == state.current_player else ""
            label = Label(text=f"[b]{mark}{player}[/b] {scores.get(player, 0)} pts  " + "  ".join(parts),
                          markup=True, font_size="18sp", halign="left", valign="middle", shorten=True,
                          size_hint_y=None, height=dp(28))
            label.bind(size=lambda w, s: setattr(w, "text_size", s))
            box.add_widget(label)

    def takes_dice(self) -> bool:
        app = App.get_running_app()
        return app.state is not None and app.state.dice_to_roll() is not None

    def _reading_changed(self, *_args) -> None:
        app = App.get_running_app()
        self.ids.view.dice = [d for d in app.reading if d.bbox[2] > 0]
        waiting_roll = self.takes_dice()
        self._show_chips(app.reading if waiting_roll else [])
        self.ids.chips_row.height = dp(48) if waiting_roll else 0
        self.ids.chips_row.opacity = 1 if waiting_roll else 0
        self.ids.accept_button.disabled = not (waiting_roll and app.reading)
        self.ids.read_button.disabled = not waiting_roll or app.reading_busy
        self.ids.roll_button.disabled = not (waiting_roll and app.simulated)
        self.ids.undo_button.disabled = not (app.session is not None and app.session.can_undo)

    def open_keypad(self) -> None:
        """A keypad to type the whole roll the game asks for, one tap per die."""
        app = App.get_running_app()
        request = app.state.dice_to_roll() if app.state else None
        if request is None:
            app.notice = "no dice to enter now: choose a move"
            return
        self.keypad = RollKeypad(request, colours=tuple(app.session.game.dice_colours or ()))
        self.keypad.open()

    # -- a move by hand ---------------------------------------------------------------
    def other_move(self) -> None:
        """Every legal move, grouped by kind, for a move the suggestions do not show."""
        app = App.get_running_app()
        state = app.state
        content = BoxLayout(orientation="vertical", spacing=dp(6))
        popup = Popup(title="Choose any legal move", title_size="20sp", content=content, size_hint=(0.95, 0.95),
                      _anim_duration=0)
        kinds = GridLayout(rows=1, spacing=dp(4), size_hint_y=None, height=dp(56))
        listing = GridLayout(cols=1, spacing=dp(4), size_hint_y=None)
        listing.bind(minimum_height=listing.setter("height"))
        moves = state.legal_moves()

        def show_kind(kind: str) -> None:
            listing.clear_widgets()
            for move in (m for m in moves if m.kind == kind):
                button = Button(text=state.describe(move), size_hint_y=None, height=dp(56), font_size="18sp",
                                halign="left", valign="middle")
                button.bind(width=lambda b, w: setattr(b, "text_size", (w - dp(16), None)))
                button.bind(on_release=lambda _b, m=move: (popup.dismiss(), app.play(m)))
                listing.add_widget(button)

        for kind in dict.fromkeys(m.kind for m in moves):
            button = Button(text=KIND_WORDS.get(kind, kind.replace("_", " ")).capitalize(), font_size="18sp")
            button.bind(on_release=lambda _b, k=kind: show_kind(k))
            kinds.add_widget(button)
        content.add_widget(kinds)
        scroll = ScrollView(do_scroll_x=False)
        scroll.add_widget(listing)
        content.add_widget(scroll)
        close = Button(text="Back", size_hint_y=None, height=dp(56), font_size="20sp")
        close.bind(on_release=popup.dismiss)
        content.add_widget(close)
        if moves:
            show_kind(moves[0].kind)
        self.move_popup, self.move_list = popup, listing
        popup.open()


SCREEN_CLASS = PlayScreen
