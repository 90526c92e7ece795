"""Start screen: resume an unfinished game (offered first) or set up a new one:
the game, the players in seat order (the last game's by default, a random first player on
request), and the game's rules options."""
from __future__ import annotations

import random

from kivy.app import App
from kivy.metrics import dp
from kivy.properties import ListProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.screenmanager import Screen
from kivy.uix.scrollview import ScrollView
from kivy.uix.spinner import Spinner
from kivy.uix.textinput import TextInput
from kivy.uix.togglebutton import ToggleButton

from companion.engine import Game, Option
from companion.errors import UserError
from companion.games import all_games
from ui.widgets import colour_rgba

ROW_HEIGHT = dp(56)
SEAT_COLOURS_OPTION = "colours"
"""A game whose players each own a dice colour declares this option: the colours by
seat, comma separated (e.g. Whirling Derby's "red,blue,green,yellow")."""
COLOUR_CHOICES = ("red", "blue", "green", "yellow", "white", "black", "orange", "purple")


def seat_colours_option(game: Game) -> Option | None:
    return next((o for o in game.options if o.name == SEAT_COLOURS_OPTION), None)


def split_colours(text: str) -> list[str]:
    return [c.strip().lower() for c in str(text).split(",") if c.strip()]


def option_editor(option: Option, value) -> tuple:
    """A touch widget for one rules option and a function that reads its value back."""
    if isinstance(option.default, bool):
        widget = ToggleButton(text="on" if value else "off", state="down" if value else "normal",
                              size_hint_x=None, width=dp(96), font_size="19sp")
        widget.bind(state=lambda w, s: setattr(w, "text", "on" if s == "down" else "off"))
        return widget, lambda: widget.state == "down"
    if option.choices:
        widget = Spinner(text=str(value), values=[str(c) for c in option.choices], size_hint_x=None,
                         width=dp(140), font_size="19sp")
        return widget, lambda: widget.text
    wide = isinstance(option.default, str)
    widget = TextInput(text=str(value), multiline=False, size_hint_x=None, width=dp(170 if wide else 96),
                       font_size="18sp" if wide else "20sp", padding=(dp(8), dp(14)))
    return widget, lambda: widget.text


def option_row(option: Option, value) -> tuple:
    """A row with the option's name, its description and its editor; and the editor's reader.
    The row grows with the description, so none of it is cut."""
    row = BoxLayout(size_hint_y=None, height=ROW_HEIGHT, spacing=dp(4))
    label = Label(text=f"[b]{option.name.replace('_', ' ').capitalize()}[/b]: {option.description}", markup=True,
                  font_size="18sp", halign="left", valign="middle")
    label.bind(width=lambda w, width: setattr(w, "text_size", (width, None)),
               texture_size=lambda w, size: setattr(row, "height", max(ROW_HEIGHT, size[1] + dp(8))))
    row.add_widget(label)
    editor, read = option_editor(option, value)
    row.add_widget(editor)
    return row, read


def game_line(info: dict) -> str:
    """'Dairyman: Ann, Bob (12 steps played)' for a row of ``SessionStore.list_sessions``."""
    game = all_games().get(info["game"])
    title = game.title if game else info["game"]
    steps = info["actions"]
    return f"{title}: {', '.join(info['players'])} ({steps} step{'s' * (steps != 1)} played)"


class StartScreen(Screen):
    game_titles = ListProperty([])
    game_name = StringProperty("")
    player_count = NumericProperty(2)
    resume_text = StringProperty("")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.names: list[str] = []
        self.colours: list[str] = []
        self.unfinished: list[dict] = []
        self.resume_popup = None
        self._option_readers: dict[str, object] = {}
        self._rng = random.Random()

    @property
    def game(self) -> Game:
        return all_games()[self.game_name]

    def on_pre_enter(self, *_args) -> None:
        app = App.get_running_app()
        games = all_games()
        self.game_titles = [g.title for g in games.values()]
        self.unfinished = app.unfinished_games()
        if len(self.unfinished) == 1:
            self.resume_text = f"Resume {game_line(self.unfinished[0])}"
        elif self.unfinished:
            self.resume_text = f"Resume a game ({len(self.unfinished)} unfinished)"
        else:
            self.resume_text = ""
        if not self.game_name and games:
            wanted = app.initial_game and next((g for g in games.values()
                                                if g.name == app.initial_game.replace("_", "-").lower()), None)
            chosen = wanted or next(iter(games.values()))
            self.names = list(app.initial_players)
            self.choose_game(chosen.title)

    def choose_game(self, title: str) -> None:
        game = next(g for g in all_games().values() if g.title == title)
        self.game_name = game.name
        self.ids.game_choice.text = title
        self._read_names()
        count = min(max(len(self.names) or game.min_players, game.min_players), game.max_players)
        self._build_options()
        self._set_players(count)

    def game_picked(self, title: str) -> None:
        if title in self.game_titles and (not self.game_name or title != self.game.title):
            self.choose_game(title)

    def change_count(self, step: int) -> None:
        self._read_names()
        self._set_players(min(max(self.player_count + step, self.game.min_players), self.game.max_players))

    def _set_players(self, count: int) -> None:
        defaults = self.game.default_players(count)
        self.names = (self.names + [n for n in defaults if n not in self.names])[:count]
        self.player_count = count
        self._build_players()

    def _read_names(self) -> None:
        rows = self.ids.players.children[::-1]
        if rows:
            self.names = [row.name_input.text for row in rows]
            if all(hasattr(row, "colour_choice") for row in rows):
                self.colours[:len(rows)] = [row.colour_choice.text for row in rows]

    def resume(self) -> None:
        """Resume the one unfinished game, or list them all to choose from."""
        app = App.get_running_app()
        if len(self.unfinished) <= 1:
            app.resume()
            return
        content = BoxLayout(orientation="vertical", spacing=dp(6))
        popup = Popup(title="Which game?", title_size="21sp", content=content, size_hint=(0.96, 0.94),
                      _anim_duration=0)
        listing = GridLayout(cols=1, spacing=dp(4), size_hint_y=None)
        listing.bind(minimum_height=listing.setter("height"))
        for info in self.unfinished:
            button = Button(text=game_line(info), font_size="19sp", size_hint_y=None, height=dp(64),
                            halign="left", valign="middle")
            button.bind(width=lambda b, w: setattr(b, "text_size", (w - dp(16), None)))
            button.bind(on_release=lambda _b, i=info["id"]: (popup.dismiss(), app.resume(i)))
            listing.add_widget(button)
        scroll = ScrollView(do_scroll_x=False)
        scroll.add_widget(listing)
        content.add_widget(scroll)
        back = Button(text="Back", font_size="20sp", size_hint_y=None, height=dp(56))
        back.bind(on_release=popup.dismiss)
        content.add_widget(back)
        self.resume_popup = popup
        popup.open()

    def random_first_player(self) -> None:
        """Turn the table by a random number of seats: a random player starts, the order stays."""
        self._read_names()
        turn = self._rng.randrange(len(self.names))
        self.names = self.names[turn:] + self.names[:turn]
        seated = self.colours[:len(self.names)]
        if seated:
            self.colours[:len(self.names)] = seated[turn:] + seated[:turn]
        self._build_players()
        App.get_running_app().notice = f"{self.names[0]} starts"

    def move_seat(self, seat: int, step: int) -> None:
        """Swap a player with the one before (-1) or after (+1) in seat order."""
        self._read_names()
        other = seat + step
        if 0 <= other < len(self.names):
            self.names[seat], self.names[other] = self.names[other], self.names[seat]
            if len(self.colours) > other:
                self.colours[seat], self.colours[other] = self.colours[other], self.colours[seat]
            self._build_players()

    def _build_players(self) -> None:
        box = self.ids.players
        box.clear_widgets()
        for seat, name in enumerate(self.names):
            row = BoxLayout(size_hint_y=None, height=ROW_HEIGHT, spacing=dp(4))
            row.add_widget(Label(text=f"{seat + 1}.", size_hint_x=None, width=dp(32), font_size="20sp"))
            row.name_input = TextInput(text=name, multiline=False, font_size="19sp", padding=(dp(6), dp(14)),
                                       write_tab=False)
            row.add_widget(row.name_input)
            if seat < len(self.colours):
                row.colour_choice = Spinner(text=self.colours[seat], values=COLOUR_CHOICES, size_hint_x=None,
                                            width=dp(96), font_size="18sp", background_normal="",
                                            background_color=colour_rgba(self.colours[seat]),
                                            color=(0, 0, 0, 1))
                row.colour_choice.bind(text=lambda w, t: setattr(w, "background_color", colour_rgba(t)))
                row.add_widget(row.colour_choice)
            for label, step in (("up", -1), ("down", 1)):
                button = Button(text=label, size_hint_x=None, width=dp(56), font_size="18sp",
                                disabled=not 0 <= seat + step < len(self.names))
                button.bind(on_release=lambda _b, s=seat, d=step: self.move_seat(s, d))
                row.add_widget(button)
            box.add_widget(row)

    def _build_options(self) -> None:
        box = self.ids.options
        box.clear_widgets()
        self._option_readers = {}
        saved = App.get_running_app().preferences.game_options(self.game_name)
        colours = seat_colours_option(self.game)
        self.colours = split_colours(saved.get(colours.name, colours.default)) if colours else []
        for option in self.game.options:
            if option is colours:
                continue
            row, self._option_readers[option.name] = option_row(option, saved.get(option.name, option.default))
            box.add_widget(row)
        if not self.game.options:
            box.add_widget(Label(text="no rules options", size_hint_y=None, height=ROW_HEIGHT, font_size="18sp"))

    def chosen_options(self) -> dict:
        chosen = {name: read() for name, read in self._option_readers.items()}
        colours = seat_colours_option(self.game)
        if colours:
            seated = self.colours[:len(self.names)]
            if len(set(seated)) != len(seated):
                raise UserError("each player needs a different dice colour")
            spare = [c for c in split_colours(colours.default) + list(COLOUR_CHOICES) if c not in seated]
            chosen[colours.name] = ",".join(seated + spare[:len(split_colours(colours.default)) - len(seated)])
        return self.game.resolve_options(chosen)

    def start(self) -> bool:
        app = App.get_running_app()
        self._read_names()
        try:
            options = self.chosen_options()
        except UserError as exc:
            app.notice = str(exc)
            return False
        return app.start_game(self.game_name, self.names, options)


SCREEN_CLASS = StartScreen
