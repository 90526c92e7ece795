"""DYCE's board panel: the city, the market, whose turn, the baron round and the drawn dice.

Everything shown comes from the state's views (``city_view``, ``market_view``,
``turn_view``) and every tap becomes one of the engine's moves: a space tapped in the
chosen mode (shop, whisky of a colour, pound) or a stop button.  The engine says whether it
is legal.  The baron round and the dice drawn from the bag are told as a story the player
steps through; while a baron's step is shown the city draws its move.
"""
from __future__ import annotations

from kivy.animation import Animation
from kivy.app import App
from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.togglebutton import ToggleButton

from companion.engine import Move
from ui.board_panels import PLAYER_RGBA, BoardPanel
from ui.widgets import colour_rgba

MODES = (("shop", "Shop"), ("whisky", "Whisky"), ("pound", "Pound"))
STOPS = (("pass", "Pass"), ("take_pound", "Take £1"), ("end_turn", "End turn"))
HIGHLIGHT_RGBA = (1.0, 0.85, 0.1, 1)
EMPTY_RGBA = (0.17, 0.2, 0.25, 1)
STEP_SECONDS = 0.6
"""How long a baron takes to walk its step on screen."""


def sentence(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def ink_for(rgba) -> tuple:
    """Black or white text, whichever reads on ``rgba``."""
    return (0, 0, 0, 1) if 0.3 * rgba[0] + 0.55 * rgba[1] + 0.15 * rgba[2] > 0.5 else (1, 1, 1, 1)


class DyceDie(Label):
    """A die of the market: its colour, its value, an outline when it was the last drawn."""

    rgba = ListProperty([0.5, 0.5, 0.5, 1])
    colour_name = StringProperty("")
    outlined = BooleanProperty(False)


class WhiskyButton(ToggleButton):
    """A whisky colour to put on a shop: the colour itself, a tick when chosen."""

    colour_name = StringProperty("")


class CityCell(Button):
    """One space of the city: a shop in its owner's colour with its whisky cube and pounds,
    the barons standing there, or the castle with the round die and the players' seals."""

    space = StringProperty("")
    owner = StringProperty("")
    whisky = StringProperty("")
    pounds = NumericProperty(0)
    barons = ListProperty([])
    castle = BooleanProperty(False)
    seals = ListProperty([])            # castle: the colours of the seals on it
    highlight = BooleanProperty(False)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.bind(pos=self._redraw, size=self._redraw, whisky=self._redraw, barons=self._redraw,
                  highlight=self._redraw, seals=self._redraw)

    def _redraw(self, *_args) -> None:
        self.canvas.after.clear()
        side = min(self.width, self.height)
        with self.canvas.after:
            if self.whisky:
                cube = side * 0.3
                x, y = self.x + dp(3), self.top - cube - dp(3)
                Color(0, 0, 0, 1)
                Rectangle(pos=(x - 1, y - 1), size=(cube + 2, cube + 2))
                Color(*colour_rgba(self.whisky))
                Rectangle(pos=(x, y), size=(cube, cube))
            disc = side * 0.28
            for index, baron in enumerate(self.barons):
                x = self.right - dp(3) - (index + 1) * (disc + dp(1))
                Color(1, 1, 1, 1)
                Ellipse(pos=(x - 1, self.y + dp(3) - 1), size=(disc + 2, disc + 2))
                Color(*colour_rgba(baron))
                Ellipse(pos=(x, self.y + dp(3)), size=(disc, disc))
            for index, rgba in enumerate(self.seals):
                Color(*rgba)
                Ellipse(pos=(self.x + dp(3) + index * side * 0.22, self.y + dp(3)), size=(side * 0.2, side * 0.2))
            if self.highlight:
                Color(*HIGHLIGHT_RGBA)
                Line(rectangle=(self.x + dp(1), self.y + dp(1), self.width - dp(2), self.height - dp(2)),
                     width=dp(2.5))


class DyceCity(GridLayout):
    """The city's grid with each baron's gate as a bar in its colour outside its side, and
    the baron being told about walking from where it stood to where it went."""

    gates = ObjectProperty({}, rebind=True)          # baron -> side of the city
    walk = ObjectProperty(None, allownone=True)      # (baron, from space or None, to space or None)
    progress = NumericProperty(1.0)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.cells: dict[str, CityCell] = {}
        self.bind(pos=self._redraw, size=self._redraw, gates=self._redraw, walk=self._redraw, progress=self._redraw)

    def build(self, size: int, on_tap) -> None:
        self.clear_widgets()
        self.cols, self.cells = size, {}
        for _ in range(size * size):
            cell = CityCell(markup=True, halign="center", valign="middle", background_normal="",
                            background_down="")
            cell.bind(on_release=lambda c: on_tap(c.space), size=lambda c, s: setattr(c, "text_size", s))
            self.add_widget(cell)

    def gate_point(self, baron: str) -> tuple[float, float]:
        margin = self.padding[0] / 2
        side = self.gates.get(baron)
        return {"north": (self.center_x, self.top - margin), "south": (self.center_x, self.y + margin),
                "west": (self.x + margin, self.center_y), "east": (self.right - margin, self.center_y)
                }.get(side, self.center)

    def point(self, baron: str, space: str | None) -> tuple[float, float]:
        return self.cells[space].center if space in self.cells else self.gate_point(baron)

    def _redraw(self, *_args) -> None:
        self.canvas.before.clear()
        self.canvas.after.clear()
        bar = self.padding[0] * 0.6
        with self.canvas.before:
            for baron, side in self.gates.items():
                x, y = self.gate_point(baron)
                long = self.width * 0.5
                w, h = (long, bar) if side in ("north", "south") else (bar, long)
                Color(0.75, 0.75, 0.78, 1)                 # a rim, so that the black gate shows
                Rectangle(pos=(x - w / 2 - 1, y - h / 2 - 1), size=(w + 2, h + 2))
                Color(*colour_rgba(baron))
                Rectangle(pos=(x - w / 2, y - h / 2), size=(w, h))
        if not self.walk or not self.cells:
            return
        baron, start, end = self.walk
        (x0, y0), (x1, y1) = self.point(baron, start), self.point(baron, end)
        x, y = x0 + (x1 - x0) * self.progress, y0 + (y1 - y0) * self.progress
        disc = dp(22)
        with self.canvas.after:
            Color(*HIGHLIGHT_RGBA)
            Line(points=[x0, y0, x1, y1], width=dp(3))
            Color(1, 1, 1, 1)
            Ellipse(pos=(x - disc / 2 - 2, y - disc / 2 - 2), size=(disc + 4, disc + 4))
            Color(*colour_rgba(baron))
            Ellipse(pos=(x - disc / 2, y - disc / 2), size=(disc, disc))


class DycePanel(BoardPanel):
    """The DYCE table on the play screen."""

    turn_text = StringProperty("")
    news_text = StringProperty("")
    step_text = StringProperty("")
    can_step_back = BooleanProperty(False)
    can_step_next = BooleanProperty(False)
    acting = BooleanProperty(False)     # the player round: modes, whiskies and stops shown
    mode = StringProperty("shop")
    whisky = StringProperty("")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.state = None
        self.story: list[dict] = []     # the baron round's steps and the drawn dice, in order
        self.step = -1                  # the story entry shown
        self._stage = None
        self._seen_die = None

    @property
    def camera_slot(self):
        return self.ids.camera_slot

    # -- showing a state --------------------------------------------------------------------
    def show(self, state) -> None:
        self.state = state
        view = state.board_view()
        city, market, turn = view["city"], view["market"], view["turn"]
        if len(self.ids.city.cells) != len(city["cells"]):
            self.ids.city.build(city["size"], self.space_tapped)
        self.ids.city.gates = {b["baron"]: b["gate"] for b in city["barons"]}
        self._follow_story(turn["baron_round"], market["last_die"])
        self._show_market(market)
        self._show_city(city, market, turn)
        self._show_turn(state, turn)
        self._show_hands(state, turn)
        self._show_story()

    def colour_of(self, player: str) -> tuple:
        return PLAYER_RGBA[list(self.state.players).index(player) % len(PLAYER_RGBA)]

    def _show_city(self, city: dict, market: dict, turn: dict) -> None:
        walked = self.walked_barons()
        seals = [self.colour_of(hand["player"]) for hand in turn["hands"] if hand["seal_on_castle"]]
        for cell_view, cell in zip(city["cells"], self.ids.city.children[::-1]):
            shop = cell_view["shop"]
            cell.space, cell.castle = cell_view["space"], cell_view["castle"]
            cell.owner = shop["owner"] if shop else ""
            cell.whisky = (shop["whisky"] or "") if shop else ""
            cell.pounds = shop["pounds"] if shop else 0
            cell.barons = walked.get(cell.space, []) if walked is not None else cell_view["barons"]
            cell.seals = seals if cell.castle else []
            self.ids.city.cells[cell.space] = cell
            if cell.castle:
                cell.background_color, cell.color = (0.93, 0.93, 0.9, 1), (0, 0, 0, 1)
                cell.text, cell.font_size = f"[b]{market['white_die']}[/b]", cell.height * 0.45
            elif shop:
                cell.background_color = self.colour_of(shop["owner"])
                cell.color, cell.font_size = (0, 0, 0, 1), max(dp(18), cell.height * 0.3)
                cell.text = f"[b]£{shop['pounds']}[/b]" if shop["pounds"] else ""
            else:
                cell.background_color, cell.color = EMPTY_RGBA, (0.6, 0.65, 0.72, 1)
                cell.text, cell.font_size = cell.space, max(dp(18), cell.height * 0.3)

    def _show_market(self, market: dict) -> None:
        last = market["last_die"]
        drawn_place = {}
        if last is not None:        # the line is sorted once full: the drawn die may have moved in it
            line = next(v for v in market["lines"] if v["baron"] == last["baron"])
            places = [i for i, d in enumerate(line["dice"]) if (d["colour"], d["value"]) == (last["colour"], last["value"])]
            if places:
                drawn_place[last["baron"]] = last["place"] - 1 if last["place"] - 1 in places else places[0]
        for line_view, row in zip(market["lines"], self.ids.market_lines.children[::-1]):
            label, dice = row.children[-1], row.children[-2::-1]
            label.text, label.baron = line_view["baron"].capitalize(), line_view["baron"]
            label.color = ink_for(colour_rgba(line_view["baron"]))
            for place, chip in enumerate(dice):
                die = line_view["dice"][place] if place < len(line_view["dice"]) else None
                chip.colour_name = die["colour"] if die else ""
                chip.rgba = colour_rgba(die["colour"]) if die else EMPTY_RGBA
                chip.text = str(die["value"]) if die else ""
                chip.outlined = place == drawn_place.get(line_view["baron"])
        bag = sum(market["bag"].values())
        self.ids.market_footer.text = (f"Round {self.state.round}  ·  round die {market['white_die']}  ·  "
                                       f"{bag} in the bag")

    def _show_turn(self, state, turn: dict) -> None:
        request = state.dice_to_roll()
        stage = turn["stage"]
        if stage == "over":
            self.turn_text = "Game over"
        elif request is not None:
            self.turn_text = sentence(request.reason)
        elif stage == "cubes":
            self.turn_text = f"{turn['player']} takes a start cube"
        else:
            left = turn["actions_left"]
            self.turn_text = f"{turn['player']}: {left} action{'s' if left != 1 else ''} left"
        self.acting = stage == "actions"
        if stage != self._stage:
            self._stage = stage
            self._build_controls(state)
        dice_due = request is not None
        slot = self.ids.camera_slot
        slot.opacity, slot.disabled = (1, False) if dice_due else (0, True)    # kept: it holds the space
        if stage == "actions":
            legal = set(turn["moves"])
            for kind, button in self.stop_buttons.items():
                button.background_color = (0.15, 0.55, 0.3, 1) if kind in legal else (0.3, 0.3, 0.33, 1)

    def _build_controls(self, state) -> None:
        """The buttons this stage needs: start cubes, or modes, whisky colours and stops."""
        box = self.ids.controls
        box.clear_widgets()
        self.mode_buttons, self.whisky_buttons, self.stop_buttons = {}, {}, {}
        if state.stage == "cubes":
            row = GridLayout(rows=1, spacing=dp(4), size_hint_y=None, height=dp(52))
            for move in state.legal_moves():
                colour = move.get("colour")
                button = Button(text=f"Take {colour}", font_size="18sp", background_normal="",
                                background_color=colour_rgba(colour), color=ink_for(colour_rgba(colour)))
                button.bind(on_release=lambda _b, m=move: self.play(m))
                row.add_widget(button)
            box.add_widget(row)
        if state.stage != "actions":
            return
        modes = GridLayout(rows=1, spacing=dp(4), size_hint_y=None, height=dp(48))
        for mode, text in MODES:
            button = ToggleButton(text=text, group="dyce-mode", allow_no_selection=False, font_size="19sp",
                                  state="down" if mode == self.mode else "normal")
            button.bind(state=lambda b, st, m=mode: st == "down" and self.choose_mode(m))
            self.mode_buttons[mode] = button
            modes.add_widget(button)
        box.add_widget(modes)
        self.whisky_row = GridLayout(rows=1, spacing=dp(3), size_hint_y=None, height=dp(48))
        for colour in state.rules.whiskies:
            rgba = colour_rgba(colour)
            button = WhiskyButton(colour_name=colour, group="dyce-whisky", allow_no_selection=False, font_size="18sp", background_normal="",
                                  background_down="", color=ink_for(rgba),
                                  state="down" if colour == self.whisky else "normal")
            button.bind(state=lambda b, st, c=colour: self._whisky_chosen(b, c, st))
            self._whisky_chosen(button, colour, button.state)
            self.whisky_buttons[colour] = button
            self.whisky_row.add_widget(button)
        box.add_widget(self.whisky_row)
        stops = GridLayout(rows=1, spacing=dp(4), size_hint_y=None, height=dp(48))
        for kind, text in STOPS:
            button = Button(text=text, font_size="18sp", background_normal="")
            button.bind(on_release=lambda _b, k=kind: self.play(Move.make(k)))
            self.stop_buttons[kind] = button
            stops.add_widget(button)
        box.add_widget(stops)
        self.choose_mode(self.mode)

    def _show_hands(self, state, turn: dict) -> None:
        box = self.ids.hands
        box.clear_widgets()
        scores = state.scores()
        for hand in turn["hands"]:
            player = hand["player"]
            row = BoxLayout(spacing=dp(3), size_hint_y=None, height=dp(32))
            mark = Label(size_hint_x=None, width=dp(12))
            with mark.canvas.before:
                Color(*self.colour_of(player))
                Rectangle(pos=(0, 0), size=(0, 0))
            mark.bind(pos=self._paint_mark, size=self._paint_mark)
            row.add_widget(mark)
            parts = [f"{scores.get(player, 0)} points", f"£{hand['pounds']}", f"{hand['vps']} VP",
                     f"{hand['shops_in_hand']} shops in hand"]
            if hand["seal_on_castle"]:
                parts.append("passed")
            bold = player == turn["player"] and turn["stage"] == "actions"
            text = f"[b]{player}[/b]" if not bold else f"[b][color=ffd91a]{player}[/color][/b]"
            label = Label(text=f"{text}  " + "  ".join(parts), markup=True, font_size="18sp", halign="left",
                          valign="middle", shorten=True, shorten_from="right")
            label.bind(size=lambda w, s: setattr(w, "text_size", s))
            label.player = player
            row.add_widget(label)
            for colour, count in sorted(hand["whiskies"].items()):
                chip = DyceDie(text=str(count), size_hint_x=None, width=dp(30), font_size="18sp")
                chip.rgba, chip.colour_name = colour_rgba(colour), colour
                row.add_widget(chip)
            box.add_widget(row)

    @staticmethod
    def _paint_mark(mark, *_args) -> None:
        rectangle = mark.canvas.before.children[-1]
        rectangle.pos, rectangle.size = (mark.x, mark.y + dp(4)), (mark.width, mark.height - dp(8))

    # -- the story of the baron round and the drawn dice --------------------------------------
    def _follow_story(self, reports: list[dict], last_die: dict | None) -> None:
        """Add what happened since the last state to the story; a new baron round starts a new one.

        Entries after the one shown stay to be stepped through; a player who had seen
        everything is taken to the first new entry."""
        told = [entry["report"] for entry in self.story if entry["report"] is not None]
        caught_up = self.step >= len(self.story) - 1
        if reports[:len(told)] != told:
            told, self.story, self.step, caught_up = [], [], -1, True
        new: list[dict] = []
        if last_die is not None and last_die != self._seen_die:
            new.append({"text": sentence(last_die["text"]), "report": None, "die": last_die})
        self._seen_die = last_die
        new += [{"text": sentence(r["text"]), "report": r, "die": None} for r in reports[len(told):]]
        if not new:
            return
        first_new = len(self.story)
        self.story += new
        if caught_up:
            self.step = first_new
            self._animate()

    def walked_barons(self) -> dict[str, list[str]] | None:
        """While a baron's step is shown: where every baron stood at that step (space -> barons)."""
        entry = self.story[self.step] if 0 <= self.step < len(self.story) else None
        if entry is None or entry["report"] is None or self.step == len(self.story) - 1:
            return None
        where: dict[str, str | None] = {}
        for index, item in enumerate(self.story):
            report = item["report"]
            if report is None:
                continue
            if index <= self.step:
                where[report["baron"]] = report["to"]
            else:
                where.setdefault(report["baron"], report["from"])
        for baron in self.state.rules.barons:
            where.setdefault(baron, next((b["space"] for b in self.state.city_view()["barons"]
                                          if b["baron"] == baron), None))
        spaces: dict[str, list[str]] = {}
        for baron, space in where.items():
            if space is not None:
                spaces.setdefault(space, []).append(baron)
        return spaces

    def _show_story(self) -> None:
        entry = self.story[self.step] if 0 <= self.step < len(self.story) else None
        self.news_text = entry["text"] if entry else ""
        self.can_step_back = self.step > 0
        self.can_step_next = self.step < len(self.story) - 1
        reports = [e for e in self.story if e["report"] is not None]
        if entry is not None and entry["report"] is not None:
            self.step_text = f"Barons {reports.index(entry) + 1}/{len(reports)}"
        else:
            self.step_text = "Drawn die" if entry else ""
        report = entry["report"] if entry else None
        city = self.ids.city
        city.walk = (report["baron"], report["from"], report["to"]) if report and report["from"] != report["to"] \
            else None
        for cell in city.cells.values():
            cell.highlight = bool(report) and cell.space in (report["to"], report["shop"])

    def step_by(self, offset: int) -> None:
        """Show the story's previous (-1) or next (+1) entry."""
        self.step = min(max(self.step + offset, 0), len(self.story) - 1)
        self._animate()
        self.show(self.state)

    def _animate(self) -> None:
        city = self.ids.city
        Animation.cancel_all(city, "progress")
        city.progress = 0.0
        Animation(progress=1.0, duration=STEP_SECONDS, t="in_out_quad").start(city)

    # -- taps -----------------------------------------------------------------------------
    def choose_mode(self, mode: str) -> None:
        self.mode = mode
        row = getattr(self, "whisky_row", None)
        if row is not None:
            row.opacity, row.disabled = (1, False) if mode == "whisky" else (0, True)

    def _whisky_chosen(self, button, colour: str, state: str) -> None:
        rgba = colour_rgba(colour)
        button.background_color = rgba if state == "down" else (rgba[0] * 0.5, rgba[1] * 0.5, rgba[2] * 0.5, 1)
        button.color = ink_for(rgba) if state == "down" else (1, 1, 1, 1)
        if state == "down":
            self.whisky = colour
        elif self.whisky == colour:
            self.whisky = ""

    def space_tapped(self, space: str) -> None:
        """A tap on the city: the move the chosen mode makes there."""
        state = self.state
        if state is None or state.stage != "actions":
            self.refuse("shops, whiskies and pounds go on the city in the player round")
            return
        if self.mode == "whisky":
            if not self.whisky:
                self.refuse("choose the whisky's colour first, then tap your shop")
                return
            self.play(Move.make("whisky", space=space, colour=self.whisky))
        else:
            self.play(Move.make(self.mode, space=space))

    def best_moves(self) -> None:
        """The advice's three best moves in a popup; tap one to play it."""
        app = App.get_running_app()
        state = app.state
        suggestions = state.game.advise(state)[:3] if state is not None else []
        if not suggestions:
            self.refuse("no move to suggest now")
            return
        content = BoxLayout(orientation="vertical", spacing=dp(6))
        popup = Popup(title="Best moves", title_size="20sp", content=content, size_hint=(0.94, 0.94),
                      _anim_duration=0)
        for suggestion in suggestions:
            score = suggestion.advice.get("expected_score")
            figure = f"  ({score:+.1f} points expected)" if isinstance(score, float) else ""
            button = Button(text=f"[b]{sentence(suggestion.text)}[/b]{figure}\n[size=16sp]"
                                 f"{sentence(suggestion.reason)}[/size]", markup=True, font_size="18sp",
                            halign="left", valign="middle")
            button.bind(size=lambda b, s: setattr(b, "text_size", (s[0] - dp(16), s[1])))
            button.bind(on_release=lambda _b, m=suggestion.move: (popup.dismiss(), self.play(m)))
            content.add_widget(button)
        back = Button(text="Back", size_hint_y=None, height=dp(52), font_size="19sp")
        back.bind(on_release=popup.dismiss)
        content.add_widget(back)
        self.hint_popup = popup
        popup.open()


PANEL_CLASS = DycePanel
