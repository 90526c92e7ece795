"""Dicey Farm's board panel: the farm at a glance, the dice in hand, and every action by touch.

Everything shown comes from the state's ``board_view()``, ``legal_moves()`` and
``describe(move)``.  The dice in hand run along the top; a tap chooses one, and a tap on an
action (the Actions page, a merchant's slot, a craftsman for hire, a facility to build) makes
the engine's move with that die.  The pages: Farm (fields, goods, animals, score so far),
Actions (the die actions, the steps of a half-done action, ending the round), Market (each
merchant's slots this round by die face), Craftsmen (the row and those contracted), Build
(the facilities) and Kitchen (turning ingredients into food).  With several farmers a switch
per farmer shows any farm; only the acting farmer's farm takes taps.
"""
from __future__ import annotations

from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.scrollview import ScrollView
from kivy.uix.togglebutton import ToggleButton

from companion.engine import Move
from ui.board_panels import PLAYER_RGBA, BoardPanel

PAGES = (("farm", "Farm"), ("actions", "Actions"), ("market", "Market"), ("craftsmen", "Craftsmen"),
         ("build", "Build"), ("kitchen", "Kitchen"))
BASIC_ACTIONS = (("fishing", "Fishing"), ("plow", "Plow"), ("sow", "Sow"), ("ship", "Ship"),
                 ("recruit", "Recruit"), ("tourism", "Tourism"))
FACILITY_ACTIONS = (("bread_oven", "Bread oven"), ("slaughterhouse", "Slaughterhouse"))
CRAFTSMAN_ACTIONS = (("elder", "Elder"), ("official", "Official"), ("night_watchman", "Night watchman"))
PROBE = {"tourism": lambda face: {"vp": face}, "slaughterhouse": lambda face: {"animal": "chicken"},
         "elder": lambda face: {"to": face + 1 if face < 6 else face - 1},
         "night_watchman": lambda face: {"to": 2}}
"""A die action tapped when no choice of it is legal: a move to hand the engine, whose refusal
says why (the parameter is any the action could take)."""
READY_RGBA = (0.15, 0.5, 0.28, 1)
IDLE_RGBA = (0.24, 0.28, 0.34, 1)
USED_RGBA = (0.16, 0.17, 0.2, 1)
FIELD_RGBA = {"empty": (0.3, 0.24, 0.16, 1), "sown": (0.2, 0.42, 0.18, 1), "animals": (0.5, 0.36, 0.2, 1)}
SHORT_RGB = "ffc04d"
ENOUGH_RGB = "9be39b"


def sentence(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def listing(counts: dict) -> str:
    return ", ".join(f"{name} {count}" for name, count in counts.items()) or "none"


def wrapped_button(text: str, rgba=IDLE_RGBA, min_height: float = 52, **kwargs) -> Button:
    """A button whose text wraps and whose height follows it (two lines fit 52 dp)."""
    button = Button(text=text, markup=True, font_size="18sp", size_hint_y=None, halign="center",
                    valign="middle", background_normal="", background_color=rgba, **kwargs)
    button.bind(width=lambda b, w: setattr(b, "text_size", (w - dp(10), None)),
                texture_size=lambda b, s: setattr(b, "height", max(dp(min_height), s[1] + dp(10))))
    return button


def text_label(text: str, pad: float = 6, **kwargs) -> Label:
    """A left-aligned wrapping label whose height follows its text (and ``pad`` dp)."""
    kwargs.setdefault("font_size", "18sp")
    label = Label(text=text, markup=True, size_hint_y=None, halign="left", valign="middle", **kwargs)
    label.bind(width=lambda w, width: setattr(w, "text_size", (width, None)),
               texture_size=lambda w, s: setattr(w, "height", s[1] + dp(pad)))
    return label


def scrolling(content) -> ScrollView:
    content.size_hint_y = None
    content.bind(minimum_height=content.setter("height"))
    view = ScrollView(do_scroll_x=False, bar_width=dp(6))
    view.add_widget(content)
    return view


class FarmDie(Button):
    """A die in hand: its face, outlined while chosen."""

    face = NumericProperty(0)
    chosen = BooleanProperty(False)


class FieldTile(Label):
    """One field: its number and what it holds, coloured by empty / sown / animals."""

    rgba = ListProperty(FIELD_RGBA["empty"])


class DiceyFarmPanel(BoardPanel):
    """The Dicey Farm table on the play screen."""

    status_text = StringProperty("")
    upkeep_text = StringProperty("")
    page = StringProperty("farm")
    chosen_face = NumericProperty(0)
    dice_due = BooleanProperty(False)
    acting = BooleanProperty(False)     # the farm shown acts now: the advice is offered

    def __init__(self, **kwargs):
        self.page_buttons: dict[str, ToggleButton] = {}    # filled by on_kv_post, within __init__
        super().__init__(**kwargs)
        self.state = None
        self.view: dict = {}
        self.seat = 0                   # the farm shown
        self.acting_seat = -1
        self.choosing: tuple | None = None   # (action words, moves) while an action's choice is asked
        self.pages: dict[str, object] = {}
        self.builders: dict[str, object] = {}
        self.action_buttons: dict[str, Button] = {}
        self.slot_buttons: dict[tuple[str, int], Button] = {}
        self.hire_buttons: dict[str, Button] = {}
        self.build_buttons: dict[str, Button] = {}
        self.step_buttons: list[Button] = []
        self.choice_buttons: list[Button] = []
        self.kitchen_buttons: list[Button] = []
        self.farmer_buttons: list[ToggleButton] = []
        self._was_half_done = False

    @property
    def camera_slot(self):
        return self.ids.camera_slot

    def on_kv_post(self, _base) -> None:
        for page, title in PAGES:
            button = ToggleButton(text=title, group="farm-page", allow_no_selection=False, font_size="18sp",
                                  state="down" if page == self.page else "normal")
            button.bind(on_release=lambda _b, p=page: self.open_page(p))
            self.page_buttons[page] = button
            self.ids.page_tabs.add_widget(button)

    # -- showing a state --------------------------------------------------------------------
    def show(self, state) -> None:
        if state is not self.state:
            self.choosing = None        # a choice asked about another position is gone
        self.state = state
        self.view = view = state.board_view()
        farms = view["farms"]
        acting = next((seat for seat, farm in enumerate(farms) if farm["acting"]), -1)
        if acting != self.acting_seat:
            self.acting_seat, self.choosing = acting, None
            self.seat = max(acting, 0)
        self.seat = min(self.seat, len(farms) - 1)
        farm = farms[self.seat]
        in_hand = [d["face"] for d in farm["dice"] if not d["used"]]
        if self.chosen_face not in in_hand or not self.acts_here():
            self.chosen_face = 0
        if len(set(in_hand)) == 1 and self.acts_here():
            self.chosen_face = in_hand[0]      # one face in hand: it is the die, whichever is tapped
        half_done = bool(farm["half_done"]) and self.acts_here()
        if half_done and not self._was_half_done:
            self.choosing = None
            self.page = "actions"
        self._was_half_done = half_done
        if view["stage"] == "over":
            self.page = "farm"
        self.dice_due = state.dice_to_roll() is not None
        self.acting = view["stage"] == "act" and self.acts_here()
        self._show_top(state, view, farm, in_hand)
        self._show_farmers(farms)
        self.upkeep_text = self._upkeep_line(farm, view["stage"], len(farms) > 1)
        self.builders = {"farm": lambda: self._farm_page(farm, view), "actions": lambda: self._actions_page(state, farm),
                         "market": lambda: self._market_page(view), "craftsmen": lambda: self._craftsmen_page(farm),
                         "build": lambda: self._build_page(farm), "kitchen": lambda: self._kitchen_page(state, farm)}
        self.pages = {}                 # built when shown: a page's widgets are costly to make
        self._place_page()
        slot = self.ids.camera_slot
        slot.opacity, slot.disabled = (1, False) if self.dice_due else (0, True)

    def acts_here(self) -> bool:
        """The farm shown is the one acting now."""
        return self.seat == self.acting_seat

    def _show_top(self, state, view: dict, farm: dict, in_hand: list[int]) -> None:
        box = self.ids.hand
        box.clear_widgets()
        self.die_buttons: list[FarmDie] = []
        for face in in_hand:
            die = FarmDie(text=str(face), face=face, chosen=face == self.chosen_face)
            die.bind(on_release=lambda d: self.choose_die(d.face))
            self.die_buttons.append(die)
            box.add_widget(die)
        request = state.dice_to_roll()
        if view["stage"] == "over":
            status = f"Game over: {farm['vp']} VP"
        elif request is not None:
            status = f"{sentence(request.reason)}, then Use dice"
        else:
            status = f"Round {view['round']} of {view['rounds']}"
            if len(view["farms"]) > 1:
                status += f" · {view['player']} acts"
            if not self.acts_here():
                status += f" · {farm['player']}'s farm"
            status += f" · {farm['vp']} VP"
            if not in_hand:
                status += " · every die used"
        self.status_text = status

    def _show_farmers(self, farms: list[dict]) -> None:
        box = self.ids.farmers
        box.clear_widgets()
        self.farmer_buttons = []
        if len(farms) < 2:
            box.width = 0
            return
        for seat, farm in enumerate(farms):
            rgba = PLAYER_RGBA[seat % len(PLAYER_RGBA)]
            button = ToggleButton(text=f"[b]{farm['player']}[/b]" if farm["acting"] else farm["player"],
                                  markup=True, group="farm-farmer", allow_no_selection=False, font_size="18sp",
                                  background_normal="", background_down="", color=(0, 0, 0, 1),
                                  background_color=rgba if seat == self.seat else
                                  (rgba[0] * 0.5, rgba[1] * 0.5, rgba[2] * 0.5, 1),
                                  state="down" if seat == self.seat else "normal")
            button.bind(on_release=lambda _b, s=seat: self.show_farm(s))
            self.farmer_buttons.append(button)
            box.add_widget(button)
        box.width = dp(92) * len(farms)

    @staticmethod
    def _upkeep_line(farm: dict, stage: str, table: bool) -> str:
        whose = f"{farm['player']}: " if table else ""
        if stage == "over":
            counters = "1 begging counter" if farm["begging"] == 1 else f"{farm['begging']} begging counters"
            return f"Game over: {whose}{farm['vp']} VP, {counters}"
        upkeep = farm["upkeep"]
        colour = SHORT_RGB if upkeep["begging"] else ENOUGH_RGB
        return f"[color={colour}]Upkeep this round: {whose}{upkeep['text']}[/color]"

    def _place_page(self) -> None:
        area = self.ids.page_area
        area.clear_widgets()
        if self.page not in self.pages:
            self.pages[self.page] = self.builders[self.page]()
        area.add_widget(self.pages[self.page])
        for page, button in self.page_buttons.items():
            button.state = "down" if page == self.page else "normal"

    # -- the pages ------------------------------------------------------------------------------
    def _farm_page(self, farm: dict, view: dict) -> BoxLayout:
        page = BoxLayout(spacing=dp(6))
        tiles = GridLayout(cols=2, spacing=dp(4), size_hint_y=None)
        tiles.bind(minimum_height=tiles.setter("height"))
        self.field_tiles = []
        for field in farm["fields"]:
            tile = FieldTile(text=f"[b]Field {field['number']}[/b]: {field['label']}", rgba=FIELD_RGBA[field["holds"]])
            tile.holds = field["holds"]
            self.field_tiles.append(tile)
            tiles.add_widget(tile)
        perishable = set(farm["perishable"])
        goods = ", ".join(f"{name} {count}" + (" (rots)" if name in perishable else "")
                          for name, count in farm["goods"].items()) or "none"
        holdings = [f"[b]Food {farm['food']}[/b]", f"Goods: {goods}", f"Seeds: {listing(farm['seeds'])}",
                    f"Animals: {listing(farm['animals'])}", f"Begging counters: {farm['begging']}"]
        column = GridLayout(cols=1, spacing=dp(2))
        if view["stage"] == "over":          # the score by source first, the farm beside it
            score = [f"[b]Final score {farm['vp']} VP[/b]"] + \
                [f"{sentence(source)}: {points}" for source, points in farm["breakdown"].items()]
            self.farm_lines = [text_label(line, pad=1) for line in score] + \
                [text_label(line) for line in holdings]
            scores = GridLayout(cols=1, spacing=0)
            for label in self.farm_lines[:len(score)]:
                scores.add_widget(label)
            page.add_widget(scrolling(scores))
            page.children[0].size_hint_x = 0.42
            tiles.cols = 1
        else:
            parts = ", ".join(f"{source} {points}" for source, points in farm["breakdown"].items() if points)
            holdings.append(f"Score so far: {farm['vp']} VP" + (f" ({parts})" if parts else ""))
            self.farm_lines = [text_label(line) for line in holdings]
            page.add_widget(scrolling(tiles))
        for label in self.farm_lines[-len(holdings):]:
            column.add_widget(label)
        if view["stage"] == "over":
            column.add_widget(tiles)
        page.add_widget(scrolling(column))
        return page

    def _actions_page(self, state, farm: dict):
        self.action_buttons, self.step_buttons, self.choice_buttons = {}, [], []
        if farm["half_done"] and self.acts_here():
            return self._half_done_page(state, farm)
        if self.choosing is not None:
            return self._choice_page()
        legal = state.legal_moves() if self.acts_here() else []
        ready = {m.kind for m in legal if self.chosen_face and m.get("die") == self.chosen_face}
        ready |= {m.kind for m in legal if m.kind in ("horse_ship", "end_round")}
        built = {f["id"] for f in farm["facilities"]}
        contracted = {c["id"] for c in farm["contracted"]}
        shown = list(BASIC_ACTIONS) + [a for a in FACILITY_ACTIONS if a[0] in built] + \
            [a for a in CRAFTSMAN_ACTIONS if a[0] in contracted]
        if any(m.kind == "horse_ship" for m in legal) or "horse shipping" in farm["actions_used"]:
            shown.append(("horse_ship", "Horse shipping"))
        if any(m.kind == "discard" for m in legal):
            shown.append(("discard", "Leave the die unused"))
        shown.append(("end_round", "End round"))
        grid = GridLayout(cols=4, spacing=dp(4))
        for kind, title in shown:
            uses = farm["actions_used"].count(title.lower())
            text = title + (" (used)" if uses == 1 else f" (used {uses}x)" if uses else "")
            rgba = READY_RGBA if kind in ready else USED_RGBA if uses else IDLE_RGBA
            button = wrapped_button(text, rgba, min_height=48)
            button.bind(on_release=lambda _b, k=kind: self.action_tapped(k))
            self.action_buttons[kind] = button
            grid.add_widget(button)
        page = BoxLayout(orientation="vertical", spacing=dp(2))
        page.add_widget(scrolling(grid))
        used = [f"{d['face']} {d['action']}" for d in farm["dice"] if d["used"]]
        self.used_label = text_label("Dice used: " + (", ".join(used) if used else "none yet"))
        page.add_widget(self.used_label)
        return page

    def _half_done_page(self, state, farm: dict) -> BoxLayout:
        page = BoxLayout(orientation="vertical", spacing=dp(4))
        self.half_done_label = text_label(f"[b]{sentence(farm['half_done'])}[/b]: one tap a step", font_size="19sp")
        page.add_widget(self.half_done_label)
        grid = GridLayout(cols=2, spacing=dp(4))
        for move in state.legal_moves():
            text = sentence(state.describe(move))
            rgba = (0.45, 0.25, 0.2, 1) if move.kind == "stop" else READY_RGBA
            if move.kind == "keep":                 # recruit's choice: what each craftsman does
                text += "".join(f": {c['effect']}" for c in farm["row"] if c["id"] == move["craftsman"])
            button = wrapped_button(text, rgba)
            button.move = move
            button.bind(on_release=lambda b: self.play(b.move))
            self.step_buttons.append(button)
            grid.add_widget(button)
        page.add_widget(scrolling(grid))
        return page

    def _choice_page(self) -> BoxLayout:
        title, moves = self.choosing
        page = BoxLayout(orientation="vertical", spacing=dp(4))
        page.add_widget(text_label(f"[b]{title}[/b] with the {self.chosen_face}: which?", font_size="19sp"))
        grid = GridLayout(cols=2, spacing=dp(4))
        for move in moves:
            button = wrapped_button(sentence(self.state.describe(move)), READY_RGBA)
            button.move = move
            button.bind(on_release=lambda b: self.play_choice(b.move))
            self.choice_buttons.append(button)
            grid.add_widget(button)
        back = wrapped_button("Back", min_height=48)
        back.bind(on_release=lambda _b: self.cancel_choice())
        self.choice_back = back
        grid.add_widget(back)
        page.add_widget(scrolling(grid))
        return page

    def _market_page(self, view: dict):
        self.slot_buttons = {}
        column = GridLayout(cols=1, spacing=dp(3))
        owner = view["player"] or view["farms"][0]["player"]
        if len(view["farms"]) > 1:
            column.add_widget(text_label(f"The merchants open to {owner}"))
        for merchant in view["merchants"]:
            heading = f"[b]{sentence(merchant['name'])}[/b]: a die buys the slot of its face"
            if merchant["not_sold"]:
                heading += f"  (not sold this round: {', '.join(merchant['not_sold'])})"
            column.add_widget(text_label(heading))
            row = GridLayout(cols=6, spacing=dp(3), size_hint_y=None, height=dp(56))
            for slot in merchant["slots"]:
                rgba = READY_RGBA if slot["face"] == self.chosen_face else IDLE_RGBA
                button = wrapped_button(f"[b]{slot['face']}[/b]: {slot['goods']}", rgba, min_height=56)
                button.bind(on_release=lambda _b, m=merchant["id"], f=slot["face"]: self.slot_tapped(m, f))
                self.slot_buttons[(merchant["id"], slot["face"])] = button
                row.add_widget(button)
            row.bind(minimum_height=row.setter("height"))
            column.add_widget(row)
        return scrolling(column)

    def _craftsmen_page(self, farm: dict):
        self.hire_buttons = {}
        column = GridLayout(cols=1, spacing=dp(3))
        column.add_widget(text_label("[b]For hire[/b]: tap a die, then a craftsman to contract"
                                     if farm["row"] else "[b]For hire[/b]: none left"))
        grid = GridLayout(cols=2, spacing=dp(3), size_hint_y=None)
        grid.bind(minimum_height=grid.setter("height"))
        for craftsman in farm["row"]:
            button = wrapped_button(f"[b]{sentence(craftsman['name'])}[/b]: {craftsman['effect']}")
            button.bind(on_release=lambda _b, c=craftsman["id"]: self.hire_tapped(c))
            self.hire_buttons[craftsman["id"]] = button
            grid.add_widget(button)
        column.add_widget(grid)
        column.add_widget(text_label("[b]Contracted[/b]" + ("" if farm["contracted"] else ": none yet")))
        self.contracted_labels = [text_label(f"{sentence(c['name'])}: {c['effect']}") for c in farm["contracted"]]
        for label in self.contracted_labels:
            column.add_widget(label)
        return scrolling(column)

    def _build_page(self, farm: dict):
        self.build_buttons = {}
        column = GridLayout(cols=1, spacing=dp(3))
        column.add_widget(text_label("[b]To build[/b]: tap a die, then a facility" if farm["to_build"]
                                     else "[b]To build[/b]: every facility is built"))
        grid = GridLayout(cols=2, spacing=dp(3), size_hint_y=None)
        grid.bind(minimum_height=grid.setter("height"))
        for facility in farm["to_build"]:
            button = wrapped_button(f"[b]{sentence(facility['name'])}[/b]: {facility['effect']}")
            button.bind(on_release=lambda _b, f=facility["id"]: self.build_tapped(f))
            self.build_buttons[facility["id"]] = button
            grid.add_widget(button)
        column.add_widget(grid)
        column.add_widget(text_label("[b]Built[/b]" + ("" if farm["facilities"] else ": none yet")))
        self.built_labels = [text_label(f"{sentence(f['name'])}: {f['effect']}") for f in farm["facilities"]]
        for label in self.built_labels:
            column.add_widget(label)
        return scrolling(column)

    def _kitchen_page(self, state, farm: dict):
        self.kitchen_buttons = []
        moves = [m for m in state.legal_moves() if m.kind in ("convert", "cook")] if self.acts_here() else []
        column = GridLayout(cols=1, spacing=dp(3))
        if moves:
            column.add_widget(text_label(f"[b]Food {farm['food']}[/b]: no die needed, as often as you like"))
        elif farm["half_done"]:
            column.add_widget(text_label("Finish the half-done action first"))
        else:
            column.add_widget(text_label(f"[b]Food {farm['food']}[/b]: nothing to cook now"))
        grid = GridLayout(cols=2, spacing=dp(3), size_hint_y=None)
        grid.bind(minimum_height=grid.setter("height"))
        for move in moves:
            button = wrapped_button(sentence(state.describe(move)), READY_RGBA, min_height=48)
            button.move = move
            button.bind(on_release=lambda b: self.play(b.move))
            self.kitchen_buttons.append(button)
            grid.add_widget(button)
        column.add_widget(grid)
        return scrolling(column)

    # -- taps -----------------------------------------------------------------------------------
    def open_page(self, page: str) -> None:
        self.page = page
        if self.state is not None:
            self._place_page()

    def show_farm(self, seat: int) -> None:
        self.seat = seat
        self.choosing = None
        self.show(self.state)

    def choose_die(self, face: int) -> None:
        if not self._may_act():
            return
        self.chosen_face = face
        self.choosing = None
        self.show(self.state)

    def _may_act(self) -> bool:
        if self.state is None or self.state.stage != "act":
            self.refuse("roll the round's dice first" if self.dice_due else "the game is over")
            return False
        if not self.acts_here():
            self.refuse(f"{self.view['farms'][self.seat]['player']}'s farm is shown: "
                        f"switch to {self.view['player']}'s farm to play")
            return False
        return True

    def _need_die(self) -> int:
        if not self.chosen_face:
            self.refuse("tap a die in hand first, then the action")
        return self.chosen_face

    def action_tapped(self, kind: str) -> None:
        if not self._may_act():
            return
        if kind in ("end_round", "horse_ship"):
            self.play(Move.make(kind))
            return
        face = self._need_die()
        if not face:
            return
        choices = [m for m in self.state.legal_moves() if m.kind == kind and m.get("die") == face]
        if len(choices) > 1:
            title = dict(BASIC_ACTIONS + FACILITY_ACTIONS + CRAFTSMAN_ACTIONS)[kind]
            self.choosing = (title, choices)
            self.show(self.state)
        elif choices:
            self.play(choices[0])
        else:
            self.play(Move.make(kind, die=face, **PROBE.get(kind, lambda _f: {})(face)))

    def play_choice(self, move: Move) -> None:
        self.choosing = None
        if not self.play(move):
            self.show(self.state)

    def cancel_choice(self) -> None:
        self.choosing = None
        self.show(self.state)

    def slot_tapped(self, merchant: str, face: int) -> None:
        if not self._may_act():
            return
        if self.chosen_face and self.chosen_face != face:
            self.refuse(f"slot {face} takes a die showing {face}; the chosen die shows {self.chosen_face}")
            return
        self.play(Move.make("merchant", die=face, merchant=merchant))

    def hire_tapped(self, craftsman: str) -> None:
        if self._may_act() and self._need_die():
            self.play(Move.make("contract", die=self.chosen_face, craftsman=craftsman))

    def build_tapped(self, facility: str) -> None:
        if self._may_act() and self._need_die():
            self.play(Move.make("build", die=self.chosen_face, facility=facility))

    def best_moves(self) -> None:
        """The advice's three best moves in a popup, each with its plan; a tap plays one."""
        suggestions = self.state.game.advise(self.state)[:3] if self._may_act() else []
        if not suggestions:
            return
        content = BoxLayout(orientation="vertical", spacing=dp(6))
        popup = Popup(title="Advice: the best moves now", title_size="20sp", content=content,
                      size_hint=(0.96, 0.94), _anim_duration=0)
        for suggestion in suggestions:
            expected = suggestion.advice.get("expected_vp")
            figure = f"  ({expected:.0f} VP expected)" if isinstance(expected, float) else ""
            button = Button(text=f"[b]{sentence(suggestion.text)}[/b]{figure}\nPlan: {suggestion.reason}",
                            markup=True, font_size="18sp", halign="left", valign="middle")
            button.bind(size=lambda b, size: setattr(b, "text_size", (size[0] - dp(16), size[1])))
            button.move = suggestion.move
            button.bind(on_release=lambda b: (popup.dismiss(), self.play(b.move)))
            content.add_widget(button)
        back = Button(text="Back", size_hint_y=None, height=dp(52), font_size="19sp")
        back.bind(on_release=popup.dismiss)
        content.add_widget(back)
        self.advice_popup = popup
        popup.open()


PANEL_CLASS = DiceyFarmPanel
