"""Space Colony Cheeses' board panel: the map of Bos III with every colony's modules, the two
score sheets as tables, the turn's checklist with the event, and a key that says which
figures are our defaults rather than the rule text's.

Four pages behind tabs (Map, Sheets, Turn, Key) keep every text at 18 sp or more on the
800x480 screen; the page follows the turn (the map while building, the Turn page with the
live camera and the dice order while a roll is due) and the player may look at any other.
Everything shown comes from ``board_view()`` (and ``legal_moves()``): a tap on the map or a
button becomes one of the engine's moves, and the engine says whether it is legal.
"""
from __future__ import annotations

from kivy.app import App
from kivy.clock import Clock
from kivy.graphics import Canvas, ClearBuffers, ClearColor, Color, Fbo, Line, Mesh, Rectangle
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.relativelayout import RelativeLayout
from kivy.uix.stacklayout import StackLayout
from kivy.uix.togglebutton import ToggleButton
from kivy.uix.widget import Widget

from companion.engine import Move
from ui.board_panels import PLAYER_RGBA, BoardPanel

PAGES = (("map", "Map"), ("sheets", "Sheets"), ("turn", "Turn"), ("key", "Key"))
CELL_WIDTH, CELL_HEIGHT = dp(64), dp(48)
"""A map space on screen: wide enough for a six-letter label at 18 sp, tall enough to touch."""
TAGS = {
    "Start-Up Module": "Start", "Solar Panel": "Solar", "Geothermal Plant": "Geo", "Hub Module": "Hub",
    "Milk Storage": "Milk", "Cream Storage": "Cream", "Butter Storage": "Butter", "Ice Cream Storage": "Ice\ncream",
    "Cheese Storage": "Cheese", "Beef Storage": "Beef", "Leather Storage": "Leather", "Manure Storage": "Manure",
    "Barn Module": "Barn", "Mega-Barn Module": "Mega\nbarn", "Pasture Dome": "Dome", "Processing Plant": "Plant",
    "Habitation Module": "Home", "Veterinary Module": "Vet", "Construction Module": "Build",
    "Cheese Lab": "Cheese\nlab", "Sausage Lab": "Meat\nlab", "Catalog Store": "Shop", "Space Port": "Port",
    "Law Office": "Law",
}
"""The short label a module wears on the map (the Key page spells each one out)."""
DEFAULT_MARK = "°"
"""Marks a figure that is our default: the rule text gives none."""
MAP_STEPS = ("build", "end_build", "turn_off", "relocate", "skip_move")
SHEET_STEPS = ("allocate", "gift_boxes", "sell", "sue", "no_lawsuit")
EMPTY_RGBA = (0.17, 0.2, 0.25, 1)
EMPTY_INK = (0.66, 0.71, 0.78, 1)
NO_EDGE = (0, 0, 0, 0)
DARK_RGBA = (0.06, 0.06, 0.08, 1)
FAULT_RGBA = (0.62, 0.4, 0.2, 1)
LUSH_RGBA = (0.3, 0.75, 0.3, 1)
SICK_RGBA = (0.9, 0.12, 0.12, 1)
HIGHLIGHT_RGBA = (1.0, 0.85, 0.1, 1)
CURRENT_RGBA = (1.0, 0.85, 0.1, 1)
DONE_INK = (0.55, 0.75, 0.55, 1)
HEADER_RGBA = (0.22, 0.27, 0.34, 1)
ROW_HEIGHT = dp(26)
"""A row of the sheets and the key: one line of 18 sp text."""
FIGURES = (("made", "Energy made"), ("used", "Energy used"), ("output", "Dairy output"), ("diseases", "Sick herds"))
"""The colony's figures shown under the commodities sheet."""


def sentence(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def dollars(amount: int) -> str:
    return f"${amount}" if amount >= 0 else f"\u2212${-amount}"


def tag_of(name: str) -> str:
    """A module's label on the map: its short tag, or the start of its name."""
    return TAGS.get(name) or name.split()[0][:6]


def rgba_hex(rgba) -> str:
    return "".join(f"{round(c * 255):02x}" for c in rgba[:3])


def text_label(text: str = "", width=None, height=None, **kwargs) -> Label:
    """An 18 sp label of fixed height (26 dp unless given; ``width`` None: it stretches)."""
    height = height or ROW_HEIGHT
    kwargs.setdefault("font_size", "18sp")
    kwargs.setdefault("halign", "left")
    label = Label(text=text, valign="middle", size_hint=(None if width else 1, None), height=height, **kwargs)
    if width:
        label.width = width
    label.text_size = (label.width - dp(6), label.height)
    label.bind(size=lambda w, s: setattr(w, "text_size", (s[0] - dp(6), s[1])))
    return label


def wrapped_label(text: str = "", **kwargs) -> Label:
    """An 18 sp label as tall as its wrapped text."""
    kwargs.setdefault("font_size", "18sp")
    label = Label(text=text, halign="left", valign="top", size_hint_y=None, height=dp(4), **kwargs)
    label.bind(width=lambda w, width: setattr(w, "text_size", (width, None)),
               texture_size=lambda w, size: setattr(w, "height", size[1] + dp(4)))
    return label


def paint(widget, rgba) -> None:
    """A plain background under ``widget`` that follows its size."""
    with widget.canvas.before:
        colour = Color(*rgba)
        rect = Rectangle(pos=widget.pos, size=widget.size)
    widget.bind(pos=lambda w, p: setattr(rect, "pos", p), size=lambda w, s: setattr(rect, "size", s))
    widget.background = colour


class MapSpace(ButtonBehavior, Label):
    """One space of the map: an octagon or a square, brown along a fault line, a green
    corner on a lush pasture, and the module on it in its owner's colour (dark when off,
    a red cross when its herd is sick); a yellow outline where the chosen move may go."""

    space = StringProperty("")
    octagon = BooleanProperty(True)
    fault = BooleanProperty(False)
    lush = BooleanProperty(False)
    fill = ListProperty(EMPTY_RGBA)
    edge = ListProperty(NO_EDGE)
    sick = BooleanProperty(False)
    marked = BooleanProperty(False)

    def __init__(self, **kwargs):
        super().__init__(font_size="18sp", halign="center", valign="middle", line_height=0.95, **kwargs)
        self.bind(pos=self._redraw, size=self._redraw, fill=self._redraw, edge=self._redraw, sick=self._redraw,
                  marked=self._redraw, fault=self._redraw, lush=self._redraw, octagon=self._redraw)
        self.bind(size=lambda w, s: setattr(w, "text_size", s))

    def outline(self) -> list[float]:
        """The space's shape as points: an octagon filling the space, or a smaller square."""
        x, y, w, h = self.x + dp(1), self.y + dp(1), self.width - dp(2), self.height - dp(2)
        if not self.octagon:
            inset = dp(5)
            return [x + inset, y + inset, x + w - inset, y + inset, x + w - inset, y + h - inset, x + inset,
                    y + h - inset]
        cut = min(w, h) * 0.28
        return [x + cut, y, x + w - cut, y, x + w, y + cut, x + w, y + h - cut, x + w - cut, y + h, x + cut, y + h,
                x, y + h - cut, x, y + cut]

    def _redraw(self, *_args) -> None:
        points = self.outline()
        vertices = []
        for i in range(0, len(points), 2):
            vertices += [points[i], points[i + 1], 0, 0]
        self.canvas.before.clear()
        with self.canvas.before:
            Color(*self.fill)
            Mesh(vertices=vertices, indices=list(range(len(points) // 2)), mode="triangle_fan")
            if self.edge[3]:
                Color(*self.edge)
                Line(points=points, close=True, width=dp(2))
            if self.lush:
                Color(*LUSH_RGBA)
                size = dp(14)
                Mesh(vertices=[self.x, self.top, 0, 0, self.x + size, self.top, 0, 0, self.x, self.top - size, 0, 0],
                     indices=[0, 1, 2], mode="triangles")
            if self.fault:
                Color(*FAULT_RGBA)
                Rectangle(pos=(self.x + dp(2), self.y), size=(self.width - dp(4), dp(5)))
            if self.sick:
                Color(*SICK_RGBA)
                arm, cx, cy = dp(5), self.right - dp(10), self.top - dp(10)
                Rectangle(pos=(cx - arm, cy - dp(2)), size=(2 * arm, dp(4)))
                Rectangle(pos=(cx - dp(2), cy - arm), size=(dp(4), 2 * arm))
            if self.marked:
                Color(*HIGHLIGHT_RGBA)
                Line(rectangle=(self.x + dp(1), self.y + dp(1), self.width - dp(2), self.height - dp(2)),
                     width=dp(2.5))


class Pictured(RelativeLayout):
    """A layout whose children are drawn into an off-screen picture that the screen shows:
    a frame then costs one picture instead of a shape and a label per child (software GL
    is slow), and the picture is drawn again only when a child changes."""

    def __init__(self, **kwargs):
        self.canvas = Canvas()
        with self.canvas:
            self.fbo = Fbo(size=(1, 1))
            Color(1, 1, 1, 1)
            self.picture = Rectangle(pos=(0, 0), size=(1, 1), texture=self.fbo.texture)
        with self.fbo:
            ClearColor(0, 0, 0, 0)
            ClearBuffers()
        super().__init__(**kwargs)
        self.bind(size=self._resize)

    def add_widget(self, widget, *args, **kwargs):
        canvas, self.canvas = self.canvas, self.fbo       # the widget draws into the picture
        try:
            return super().add_widget(widget, *args, **kwargs)
        finally:
            self.canvas = canvas

    def remove_widget(self, widget, *args, **kwargs):
        canvas, self.canvas = self.canvas, self.fbo
        try:
            return super().remove_widget(widget, *args, **kwargs)
        finally:
            self.canvas = canvas

    def _resize(self, *_args) -> None:
        self.fbo.size = (max(1, int(self.width)), max(1, int(self.height)))     # a picture is never empty
        self.picture.size = self.size
        self.picture.texture = self.fbo.texture


class ColonyMap(Pictured):
    """The map's spaces in rows and columns (``cells``: space name -> MapSpace), drawn as
    one picture."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.cells: dict[str, MapSpace] = {}

    def build(self, map_view: dict, on_tap) -> None:
        self.clear_widgets()
        self.cells = {}
        self.size = (map_view["width"] * CELL_WIDTH, map_view["height"] * CELL_HEIGHT)
        grid = GridLayout(cols=map_view["width"], size_hint=(None, None), size=self.size)
        at = {(s["row"], s["column"]): s for s in map_view["spaces"]}
        for row in range(map_view["height"]):
            for column in range(map_view["width"]):
                space = at.get((row, column))
                if space is None:
                    grid.add_widget(Widget())
                    continue
                cell = MapSpace(space=space["space"], octagon=space["shape"] == "octagon",
                                fault=space["fault_line"], lush=space["lush_pasture"])
                cell.bind(on_release=lambda c: on_tap(c.space))
                self.cells[cell.space] = cell
                grid.add_widget(cell)
        self.add_widget(grid)


class Stepper(BoxLayout):
    """A number set by touch: [-] value [+], kept within 0 to ``high``."""

    def __init__(self, value: int, high: int, on_change=None, **kwargs):
        super().__init__(size_hint=(None, None), size=(dp(150), dp(48)), spacing=dp(2), **kwargs)
        self.value, self.high, self.on_change = value, high, on_change
        self.minus = Button(text="\u2212", font_size="26sp", size_hint_x=None, width=dp(48))
        self.shown = Label(text=str(value), font_size="22sp", bold=True)
        self.plus = Button(text="+", font_size="26sp", size_hint_x=None, width=dp(48))
        self.minus.bind(on_release=lambda _b: self.change(-1))
        self.plus.bind(on_release=lambda _b: self.change(1))
        for widget in (self.minus, self.shown, self.plus):
            self.add_widget(widget)

    def change(self, step: int) -> None:
        self.value = min(max(self.value + step, 0), self.high)
        self.shown.text = str(self.value)
        if self.on_change:
            self.on_change()


class ColonyPanel(BoardPanel):
    """The Space Colony Cheeses table on the play screen."""

    status_text = StringProperty("")
    page = StringProperty("map")

    def __init__(self, **kwargs):
        self.state = self.view = None
        self.legal: list[Move] = []
        self.module_name = ""           # the module chosen to build
        self.source = ""                # the module chosen to move (relocate)
        self._step = None
        self._key_built = False
        self.controls: dict[str, Button] = {}
        self.amounts_popup = self.module_popup = None
        self.sheet_cells: dict[tuple, Label] = {}
        self.step_labels: list[Label] = []
        self.order_chips: list[Label] = []
        self._roll_shown = self._build_on = self._scrolled_for = self._controls_for = None
        super().__init__(**kwargs)      # the .kv rules apply here (on_kv_post)

    def on_kv_post(self, _base) -> None:
        self.tabs: dict[str, ToggleButton] = {}
        for page, title in PAGES:
            tab = ToggleButton(text=title, group="colony-page", allow_no_selection=False, font_size="19sp",
                               state="down" if page == self.page else "normal", size_hint_x=None, width=dp(66))
            tab.bind(on_release=lambda _b, p=page: self.show_page(p))
            self.tabs[page] = tab
            self.ids.tabs.add_widget(tab)
        self.pages = {name: self.ids[f"{name}_page"].__self__ for name, _ in PAGES}
        self.ids.pages.clear_widgets()
        self.ids.pages.add_widget(self.pages[self.page])

    @property
    def camera_slot(self):
        return self.ids.camera_slot

    # -- pages ----------------------------------------------------------------------------
    def show_page(self, page: str) -> None:
        """Show one of the pages (Map, Sheets, Turn, Key)."""
        self.page = page
        for name, tab in self.tabs.items():
            tab.state = "down" if name == page else "normal"
        holder = self.ids.pages
        if holder.children != [self.pages[page]]:
            holder.clear_widgets()
            holder.add_widget(self.pages[page])
        if page == "map":
            self._scroll_to_colony()

    def _page_for_step(self, view: dict) -> str | None:
        moves = set(view["moves"])
        if view["roll"] is not None:
            return "turn"
        if moves & set(MAP_STEPS):
            return "map"
        if moves & set(SHEET_STEPS):
            return "sheets"
        return None

    def colour_of(self, player: str) -> tuple:
        return PLAYER_RGBA[list(self.view_players).index(player) % len(PLAYER_RGBA)]

    # -- showing a state --------------------------------------------------------------------
    def show(self, state) -> None:
        self.state = state
        view = self.view = state.board_view()
        self.view_players = [p["player"] for p in view["players"]]
        self.legal = state.legal_moves()
        current = view["current"]
        step = (view["turn"], current["player"], current["step"], current["action"])
        if step != self._step:
            self._step = step
            self.source = ""
            wanted = self._page_for_step(view)
            if wanted:
                self.show_page(wanted)
            self._close_popups()
        if not self.ids.map.children:
            self.ids.map.build(view["map"], self.space_tapped)
        if not self._key_built:
            self._build_key(view)
        self._show_status(view)
        self._show_controls(view)
        self._show_map(view)
        self._show_sheets(view)
        self._show_turn(view)
        if self.page == "map" and step != self._scrolled_for:
            self._scrolled_for = step
            self._scroll_to_colony()

    def _close_popups(self) -> None:
        for popup in (self.amounts_popup, self.module_popup):
            if popup is not None and popup.parent:
                popup.dismiss()

    def _show_status(self, view: dict) -> None:
        current, roll = view["current"], view["roll"]
        turn = f"Turn {view['turn']} of {view['turns']}"
        player = current["player"]
        if player is None:
            self.status_text = f"[b]Game over[/b] after {view['turns']} turns"
            return
        name = f"[b][color={rgba_hex(self.colour_of(player))}]{player}[/color][/b]"
        if roll is not None:
            dice = f"{roll['dice']} di{'ce' if roll['dice'] != 1 else 'e'}"
            what = f"rolls {dice}: {current['step']}"
        else:
            what = self._hint(view) or current["step"]
        self.status_text = f"{turn}  ·  {name}\n{what}"

    def _hint(self, view: dict) -> str:
        moves = set(view["moves"])
        if "build" in moves or "end_build" in moves:
            return "tap a space to build"
        if "skip_move" in moves:
            return "tap a module, then its new space"
        if "turn_off" in moves:
            return "energy: tap modules to turn off"
        if "allocate" in moves:
            return "share out the output"
        if "gift_boxes" in moves:
            return "gift boxes to sell?"
        if "sell" in moves:
            return "sell what keeps?"
        if "sue" in moves or "no_lawsuit" in moves:
            return "file a lawsuit?"
        return ""

    def _show_controls(self, view: dict) -> None:
        """The buttons this step needs, in the top bar."""
        moves = set(view["moves"])
        key = (self._step, tuple(sorted(moves)), self.module_name,
               tuple(m.get("defendant") for m in self.legal if m.kind == "sue"))
        if key == self._controls_for:
            return
        self._controls_for = key
        box = self.ids.controls
        box.clear_widgets()
        self.controls = {}

        def add(name: str, text: str, action, width: float) -> None:
            button = Button(text=text, font_size="18sp", size_hint_x=None, width=width, halign="center",
                            valign="middle", background_normal="", background_color=(0.22, 0.3, 0.42, 1))
            button.bind(size=lambda b, s: setattr(b, "text_size", (s[0] - dp(6), None)))
            button.bind(on_release=lambda _b: action())
            self.controls[name] = button
            box.add_widget(button)

        if "build" in moves or "end_build" in moves:
            text = f"{self.module_name}\n(tap to change)" if self.module_name else "Choose a module"
            add("module", text, lambda: self.choose_module(None), dp(172))
            add("end_build", "Done building", lambda: self.play(Move.make("end_build")), dp(120))
        if "skip_move" in moves:
            add("skip_move", "Move nothing", lambda: self.play(Move.make("skip_move")), dp(124))
        if "allocate" in moves:
            output = self._player(view, view["current"]["player"])["output"]
            add("allocate", f"Share out {output} units", self.open_allocation, dp(190))
        if "gift_boxes" in moves:
            add("gift_boxes", "Sell gift boxes", self.open_gift_boxes, dp(160))
        if "sell" in moves:
            add("sell", "Sell leather and manure", self.open_sales, dp(190))
        for move in self.legal:
            if move.kind == "sue":
                add(f"sue {move.get('defendant')}", f"Sue {move.get('defendant')}",
                    lambda m=move: self.play(m), dp(110))
        if "no_lawsuit" in moves:
            add("no_lawsuit", "No lawsuit", lambda: self.play(Move.make("no_lawsuit")), dp(110))

    @staticmethod
    def _player(view: dict, player: str) -> dict:
        return next(p for p in view["players"] if p["player"] == player)

    def _module_key(self, name: str) -> str:
        return next(k for k, n in self.view["module_keys"].items() if n == name)

    def _show_map(self, view: dict) -> None:
        targets, source = self._marked_spaces(view)
        for space in view["map"]["spaces"]:
            cell = self.ids.map.cells[space["space"]]
            module = space["module"]
            if module is None:
                look = {"fill": EMPTY_RGBA, "edge": NO_EDGE, "color": EMPTY_INK, "text": space["space"], "bold": False,
                        "sick": False}
            else:
                owner = self.colour_of(module["owner"])
                look = {"fill": DARK_RGBA if module["dark"] else owner, "edge": owner if module["dark"] else NO_EDGE,
                        "color": owner if module["dark"] else (0, 0, 0, 1), "text": tag_of(module["name"]),
                        "bold": True, "sick": module["sick"]}
            look["marked"] = space["space"] in targets or space["space"] == source
            for name, value in look.items():     # only what changed: each change redraws the space
                if getattr(cell, name) != (list(value) if isinstance(value, tuple) else value):
                    setattr(cell, name, value)

    def _marked_spaces(self, view: dict) -> tuple[set[str], str]:
        """Where the chosen module may be built, or the chosen module moved (from the legal moves)."""
        if self.source:
            return {m.get("target") for m in self.legal if m.kind == "relocate" and m.get("source") == self.source}, \
                self.source
        if self.module_name and "build" in view["moves"]:
            key = self._module_key(self.module_name)
            return {m.get("space") for m in self.legal if m.kind == "build" and m.get("module") == key}, ""
        return set(), ""

    def _scroll_to_colony(self) -> None:
        """Bring the current player's colony (or the chosen module) into the map's view, once
        the map is laid out."""
        Clock.schedule_once(self._scroll_now, 0)

    def _scroll_now(self, _dt=None) -> None:
        view = self.view
        if view is None or not self.ids.map.children:
            return
        player = view["current"]["player"]
        colony = self._player(view, player)["colony"] if player else []
        cells = self.ids.map.cells
        spaces = [cells[self.source]] if self.source else [cells[m["space"]] for m in colony]
        if not spaces:
            return
        middle = sum(c.center_y for c in spaces) / len(spaces)
        scroll, board = self.ids.map_scroll, self.ids.map
        spare = board.height - scroll.height
        if spare > 0:
            scroll.scroll_y = min(1.0, max(0.0, (middle - scroll.height / 2) / spare))   # cells sit in the map

    # -- the sheets ------------------------------------------------------------------------
    def _show_sheets(self, view: dict) -> None:
        players = view["players"]
        if len(self.sheet_cells) == 0 or self._sheet_players != self.view_players:
            self._build_sheets(view)
        for player in players:
            name = player["player"]
            cells = self.sheet_cells
            for item in player["sheets"]["commodities"]:
                cells["stored", item["product"], name].text = f"{item['stored']} of {item['storage']}"
                cells["price", item["product"], name].text = "\u2013" if item["price"] is None else \
                    dollars(item["price"])
            cells["money", name].text = f"[b]{dollars(player['money'])}[/b]"
            for entry in player["sheets"]["score"]["ledger"]:
                cells["ledger", entry["label"], name].text = dollars(entry["amount"])
            energy = player["energy"]
            cells["made", name].text = str(energy["made"])
            cells["used", name].text = f"[color=ff8a80]{energy['used']}, {energy['short']} short[/color]" \
                if energy["short"] else str(energy["used"])
            cells["output", name].text = str(player["output"])
            cells["diseases", name].text = str(player["diseases"])

    def _build_sheets(self, view: dict) -> None:
        """The commodities sheet (stored of storage, price) and the score sheet ($ and where it
        came from), one column per player."""
        self._sheet_players = list(self.view_players)
        cells = self.sheet_cells = {}
        commodities, score = self.ids.commodities, self.ids.score
        commodities.clear_widgets()
        score.clear_widgets()
        names = self.view_players
        commodities.cols = 1 + 2 * len(names)
        score.cols = 1 + len(names)

        def header(grid, text: str, width: float, rgba=HEADER_RGBA) -> None:
            label = text_label(text, width, bold=True, markup=True, color=(0, 0, 0, 1) if rgba != HEADER_RGBA
                               else (1, 1, 1, 1))
            paint(label, rgba)
            grid.add_widget(label)

        header(commodities, "Product", dp(132))
        for name in names:
            header(commodities, name, dp(84), self.colour_of(name))
            header(commodities, "price", dp(56), self.colour_of(name))
        for item in view["players"][0]["sheets"]["commodities"]:
            commodities.add_widget(text_label(sentence(item["product"]), dp(132)))
            for name in names:
                cells["stored", item["product"], name] = text_label("", dp(84))
                cells["price", item["product"], name] = text_label("", dp(56))
                commodities.add_widget(cells["stored", item["product"], name])
                commodities.add_widget(cells["price", item["product"], name])
        for key, title in FIGURES:
            commodities.add_widget(text_label(title, dp(132)))
            for name in names:
                cells[key, name] = text_label("", dp(84), markup=True)
                commodities.add_widget(cells[key, name])
                commodities.add_widget(text_label("", dp(56)))
        header(score, "Score sheet", dp(150))
        for name in names:
            header(score, name, dp(76), self.colour_of(name))
        score.add_widget(text_label("[b]Money[/b]", dp(150), markup=True))
        for name in names:
            cells["money", name] = text_label("", dp(76), markup=True)
            score.add_widget(cells["money", name])
        for entry in view["players"][0]["sheets"]["score"]["ledger"]:
            score.add_widget(text_label(sentence(entry["label"]), dp(150)))
            for name in names:
                cells["ledger", entry["label"], name] = text_label("", dp(76))
                score.add_widget(cells["ledger", entry["label"], name])

    # -- the turn ------------------------------------------------------------------------------
    def _show_turn(self, view: dict) -> None:
        roll = view["roll"]
        slot, log = self.ids.camera_slot, self.ids.log      # the live picture while dice are due, else the news
        slot.opacity, slot.disabled, slot.size_hint_y = (1, False, 1) if roll else (0, True, None)
        log.opacity, log.size_hint_y = (0, None) if roll else (1, 1)
        if roll:
            log.height = 0
        else:
            slot.height = 0
        first = f"  ·  {view['first_player']} goes first" if view["first_player"] else ""
        self.ids.turn_heading.text = f"[b]Turn {view['turn']} of {view['turns']}[/b]{first}"
        if roll != self._roll_shown:
            self._roll_shown = roll
            self._show_roll(roll)
        self._show_checklist(view)
        printed = next((e["dice"] for e in reversed(view["defaults"]["events"]) if not e["default"]), "")
        events = []
        for player in view["players"]:
            event = player["event"]
            name = player["player"]
            if event is None:
                events.append(f"{name}'s event: not rolled yet this turn")
            else:
                note = f" [i](our own entry: the rule text's table stops at {printed})[/i]" if event["default"] else ""
                events.append(f"{name}'s event [b]{event['dice']}[/b]: {event['text']}{note}")
        self.ids.events.text = "\n".join(events)
        news = view["log"][::-1]
        self.ids.log.text = ("[b]Just now[/b] (newest first)\n" + "\n".join(sentence(t) for t in news)) if news else ""

    def _show_roll(self, roll: dict | None) -> None:
        """The roll due in words, and what each die stands for in the order they are read."""
        box = self.ids.roll_box
        box.clear_widgets()
        self.order_chips = []
        if roll is not None:
            box.add_widget(wrapped_label(f"[b]Roll now[/b]: {sentence(roll['reason'])}", markup=True))
            if len(roll["order"]) > 1:
                box.add_widget(wrapped_label("The dice are read in this order (enter them in it):"))
                order = StackLayout(size_hint_y=None, spacing=dp(4))
                order.bind(minimum_height=order.setter("height"))
                for place, meaning in enumerate(roll["order"], 1):
                    chip = Label(text=f"[b]{place}[/b] {meaning}", markup=True, font_size="18sp",
                                 size_hint=(None, None), height=dp(30), color=(0, 0, 0, 1))
                    chip.bind(texture_size=lambda c, size: setattr(c, "width", size[0] + dp(14)))
                    paint(chip, (0.93, 0.93, 0.88, 1))
                    order.add_widget(chip)
                    self.order_chips.append(chip)
                box.add_widget(order)

    def _show_checklist(self, view: dict) -> None:
        steps = view["steps"]
        if len(self.step_labels) != len(steps):
            columns = (self.ids.steps_left, self.ids.steps_right)
            for column in columns:
                column.clear_widgets()
            self.step_labels = []
            half = (len(steps) + 1) // 2
            for index in range(len(steps)):
                label = wrapped_label("", markup=True)
                paint(label, (0, 0, 0, 0))
                self.step_labels.append(label)
                columns[index >= half].add_widget(label)
        for index, (step, label) in enumerate(zip(steps, self.step_labels), 1):
            state = step["state"]
            if state == "current":
                label.text = f"[b]{index}  {sentence(step['title'])}  \u2013 now[/b]"
                label.color, label.background.rgba = (0, 0, 0, 1), CURRENT_RGBA
            else:
                label.text = f"{index}  {sentence(step['title'])}" + ("  (done)" if state == "done" else "")
                label.color = DONE_INK if state == "done" else (1, 1, 1, 1)
                label.background.rgba = (0, 0, 0, 0)
            label.step_state = state

    # -- the key ----------------------------------------------------------------------------------
    def _build_key(self, view: dict) -> None:
        """What the map's labels and marks mean, and which figures are our defaults."""
        self._key_built = True
        box = self.ids.key_box
        box.clear_widgets()
        defaults = view["defaults"]
        notes = []
        if defaults["map_default"]:
            notes.append("[b]The map[/b] is our own layout (the rule text does not print it): "
                         "fault lines and lush pastures may differ from your printed map.")
        notes.append("[b]Marks[/b]: a brown bar along the bottom is a fault line (geothermal plants only there); "
                     "a green corner is a lush pasture (a barn there makes more); a module drawn dark is turned "
                     "off for want of energy; a red cross is a sick herd; a yellow outline shows where the chosen "
                     "module may go.")
        notes.append(f"[b]Figures marked {DEFAULT_MARK}[/b] are our defaults: the rule text gives no number "
                     "(edit the rules data to match your printed sheet).")
        for note in notes:
            box.add_widget(wrapped_label(note, markup=True))
        table = GridLayout(cols=5, size_hint_y=None, spacing=(dp(4), 0))
        table.bind(minimum_height=table.setter("height"))
        for title, width in (("Shown as", dp(96)), ("Module", dp(190)), ("Cost", dp(70)), ("Energy", dp(120)),
                             ("Earns a turn", dp(120))):
            label = text_label(title, width, bold=True)
            paint(label, HEADER_RGBA)
            table.add_widget(label)
        for module in defaults["modules"]:
            def mark(field: str, module=module) -> str:
                return DEFAULT_MARK if field in module["default"] else ""
            energy = f"makes {module['makes']}{mark('makes')}" if module["makes"] else \
                f"uses {module['uses']}{mark('uses')}"
            income = f"{dollars(module['income'])}{mark('income')}" if module["income"] else "\u2013"
            for text, width in ((tag_of(module["name"]).replace("\n", " "), dp(96)), (module["name"], dp(190)),
                                (f"{dollars(module['cost'])}{mark('cost')}", dp(70)), (energy, dp(120)),
                                (income, dp(120))):
                table.add_widget(text_label(text, width))
        box.add_widget(table)
        own = [e for e in defaults["events"] if e["default"]]
        if own:
            box.add_widget(wrapped_label(f"[b]Random events {own[0]['dice']} to {own[-1]['dice']}[/b] are our own "
                                         "entries (the rule text's table stops before them):", markup=True))
            for event in own:
                box.add_widget(wrapped_label(f"{event['dice']}: {event['text']}"))

    # -- taps --------------------------------------------------------------------------------------
    def space_tapped(self, space: str) -> None:
        """A tap on the map: build, turn off, or move a module, as the step asks."""
        view = self.view
        if view is None:
            return
        moves = set(view["moves"])
        if view["roll"] is not None:
            self.refuse(f"first the dice: {view['roll']['reason']}")
        elif "build" in moves or "end_build" in moves:
            if self.module_name:
                self.play(Move.make("build", module=self._module_key(self.module_name), space=space))
            else:
                self.choose_module(space)
        elif "turn_off" in moves:
            self.play(Move.make("turn_off", space=space))
        elif "skip_move" in moves:
            self._relocation_tap(space)
        elif view["current"]["player"] is None:
            self.refuse("the game is over")
        else:
            self.refuse(f"the map is not used in the {view['current']['step']} step: use the buttons above")

    def _relocation_tap(self, space: str) -> None:
        player = self.view["current"]["player"]
        own = {m["space"] for m in self._player(self.view, player)["colony"]}
        if not self.source:
            if space not in own:
                self.refuse(f"tap one of {player}'s modules first, then the space it moves to")
                return
            self.source = space
            self.show(self.state)
        elif space == self.source:
            self.source = ""
            self.show(self.state)
        else:
            source, self.source = self.source, ""
            if not self.play(Move.make("relocate", source=source, target=space)):
                self.show(self.state)

    def choose_module(self, space: str | None) -> None:
        """The modules to build, with their figures, those that can be built (there) in green;
        with ``space``, the one chosen is built there."""
        if self.module_popup is None:
            self._build_module_popup()
        buildable = {m.get("module") for m in self.legal if m.kind == "build" and space in (None, m.get("space"))}
        for name, button in self.module_buttons.items():
            possible = self._module_key(name) in buildable
            button.background_color = (0.2, 0.42, 0.3, 1) if possible else (0.25, 0.25, 0.28, 1)
            button.color = (1, 1, 1, 1) if possible else (0.75, 0.75, 0.78, 1)
        self.module_popup.title = f"Build on {space}: choose the module" if space else "Choose the module to build"
        self.module_help.text = f"Green: can be built {'there' if space else 'now'}.  {DEFAULT_MARK} our default " \
                                "figure, not the rule text"
        self._build_on = space
        self.module_popup.open()

    def _build_module_popup(self) -> None:
        """The module chooser, made once: a button a module with its cost and energy."""
        content = BoxLayout(orientation="vertical", spacing=dp(6))
        popup = Popup(title_size="19sp", content=content, size_hint=(0.98, 0.96), _anim_duration=0)
        grid = GridLayout(cols=4, spacing=dp(4))
        self.module_buttons = {}
        for module in self.view["defaults"]["modules"]:
            def mark(field: str, module=module) -> str:
                return DEFAULT_MARK if field in module["default"] else ""
            energy = f"+{module['makes']}{mark('makes')} energy" if module["makes"] else \
                f"uses {module['uses']}{mark('uses')}" if module["uses"] else "no energy"
            button = Button(text=f"{module['name']}\n{dollars(module['cost'])}{mark('cost')} · {energy}",
                            font_size="18sp", halign="center", valign="middle", background_normal="")
            button.bind(size=lambda b, s: setattr(b, "text_size", (s[0] - dp(4), None)))
            button.bind(on_release=lambda _b, n=module["name"]: self._module_chosen(n))
            self.module_buttons[module["name"]] = button
            grid.add_widget(button)
        content.add_widget(grid)
        bottom = BoxLayout(size_hint_y=None, height=dp(48), spacing=dp(6))
        self.module_help = text_label("", height=dp(48))
        bottom.add_widget(self.module_help)
        cancel = Button(text="Cancel", font_size="19sp", size_hint_x=None, width=dp(120))
        cancel.bind(on_release=popup.dismiss)
        bottom.add_widget(cancel)
        content.add_widget(bottom)
        self.module_popup = popup

    def _module_chosen(self, name: str) -> None:
        self.module_popup.dismiss()
        self.module_name = name
        if self._build_on is None or not self.play(Move.make("build", module=self._module_key(name),
                                                              space=self._build_on)):
            self.show(self.state)

    def open_allocation(self) -> None:
        """Share this turn's dairy output among the products (the advice's share to start with)."""
        view = self.view
        player = self._player(view, view["current"]["player"])
        first = next((m for m in self.legal if m.kind == "allocate"), None)
        start = dict(first.params) if first else {}
        rows = [(key, f"{sentence(name)}: {item['stored']} of {item['storage']} stored", start.get(key, 0),
                 player["output"])
                for (key, name), item in zip(view["product_keys"].items(), player["sheets"]["commodities"])]
        self._amounts_popup("allocate", f"{player['player']}'s barns make {player['output']} units: share them out "
                            "within storage", rows, player["output"], "Make these")

    def open_gift_boxes(self) -> None:
        counts = [m.get("count") for m in self.legal if m.kind == "gift_boxes"]
        player = self.view["current"]["player"]
        rows = [("count", "Gift boxes (one cheese and one beef each)", max(counts), max(counts))]
        self._amounts_popup("gift_boxes", f"{player}: sell gift boxes from the catalog store", rows, None, "Sell")

    def open_sales(self) -> None:
        view = self.view
        player = self._player(view, view["current"]["player"])
        sellable = {k for m in self.legal if m.kind == "sell" for k, _ in m.params}
        items = dict(zip(view["product_keys"], player["sheets"]["commodities"]))
        rows = [(key, (f"{sentence(items[key]['product'])}: {items[key]['stored']} stored, "
                       f"{dollars(items[key]['price'])} each"), 0, items[key]["stored"])
                for key in view["product_keys"] if key in sellable]
        self._amounts_popup("sell", f"{player['player']}: sell leather and manure (they keep for later turns)", rows,
                            None, "Sell")

    def _amounts_popup(self, kind: str, title: str, rows: list[tuple], total: int | None, action: str) -> None:
        """A popup of numbers set with [-] and [+]; ``action`` sends them as one ``kind`` move."""
        content = BoxLayout(orientation="vertical", spacing=dp(6))
        popup = Popup(title=title, title_size="19sp", content=content, size_hint=(0.98, 0.96), _anim_duration=0)
        grid = GridLayout(cols=2 if len(rows) > 2 else 1, spacing=(dp(10), dp(4)), size_hint_y=None)
        grid.bind(minimum_height=grid.setter("height"))
        steppers: dict[str, Stepper] = {}
        left = wrapped_label("")

        def count_left() -> None:
            if total is not None:
                spare = total - sum(s.value for s in steppers.values())
                left.text = f"{spare} unit{'s' * (spare != 1)} not used (lost)" if spare > 0 else \
                    "All the output is used" if spare == 0 else f"{-spare} more than the barns make"

        for key, text, value, high in rows:
            row = BoxLayout(size_hint_y=None, height=dp(52), spacing=dp(4))
            row.add_widget(text_label(text, height=dp(52)))
            steppers[key] = Stepper(value, high, on_change=count_left)
            row.add_widget(steppers[key])
            grid.add_widget(row)
        content.add_widget(grid)
        content.add_widget(left)
        message = wrapped_label("", color=(1, 0.6, 0.4, 1))
        content.add_widget(message)
        content.add_widget(Widget())
        actions = BoxLayout(size_hint_y=None, height=dp(54), spacing=dp(6))
        cancel = Button(text="Cancel", font_size="19sp")
        cancel.bind(on_release=popup.dismiss)
        send = Button(text=action, font_size="19sp", bold=True, background_normal="",
                      background_color=(0.15, 0.55, 0.3, 1))

        def submit(_button) -> None:
            move = Move.make(kind, **{k: s.value for k, s in steppers.items()})
            if self.play(move):
                popup.dismiss()
            else:
                message.text = sentence(App.get_running_app().notice)
        send.bind(on_release=submit)
        actions.add_widget(cancel)
        actions.add_widget(send)
        content.add_widget(actions)
        count_left()
        self.amounts_popup, self.steppers, self.amounts_send, self.amounts_message = popup, steppers, send, message
        popup.open()


PANEL_CLASS = ColonyPanel
