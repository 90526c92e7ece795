"""Whirling Derby's board panel: every player's cards with the dice on them, the dice in
hand, the Compost, and the advice as one large button.

Everything shown comes from the state's ``board_view`` (dice, cards, whose turn, what to
do now in player words).  Taps become the engine's moves, always on the acting player's
own cards: dice in hand tapped (or "All") and then a card places them there in one step;
a card tapped re-rolls its dice, activates it or turns it to its other side, as the turn
asks; a die tapped on a card lifts it; a die to hand out tapped goes to the next player.
The engine decides whether a move is legal; a refused one shows its one-line reason and
changes nothing.
"""
from __future__ import annotations

from kivy.clock import Clock
from kivy.graphics import Color, Line, Rectangle, RoundedRectangle
from kivy.metrics import dp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.stacklayout import StackLayout

from companion.engine import Move
from ui.board_panels import BoardPanel
from ui.panel_parts import (
    CARD_RGBA,
    CURRENT_CARD_RGBA,
    HIGHLIGHT_RGBA,
    MORE_SHOWN,
    AdviceBox,
    DieChip,
    NameLabel,
    ink_for,
    seat_rgba,
)
from ui.widgets import colour_rgba

CHIP = 26
"""A die's side on a card (dp); its number is 18sp."""
HAND_CHIP = 42
"""A die in hand (dp): a target a finger hits."""
HAND_GAP = 3
PLACING = ("setup_place", "assign", "receive", "reassign")
BUTTONS = {"activate": (("end_turn", "End turn"),), "set_side": (("keep_sides", "Keep sides"),),
           "lift": (("done_lifting", "Done"),)}
"""The buttons of the moves that are no tap on the table, by the stage they belong to."""


def dice_count(count: int) -> str:
    return f"{count} die" if count == 1 else f"{count} dice"


class CardBox(ButtonBehavior, BoxLayout):
    """One card of a player: the side up (its title), the dice on it; outlined when complete."""

    complete = BooleanProperty(False)
    card = StringProperty("")

    def __init__(self, view: dict, on_die, **kwargs):
        super().__init__(orientation="vertical", padding=(dp(3), dp(1)), spacing=dp(1), **kwargs)
        self.card, self.complete, self.view = view["card"], view["complete"], view
        self.title = Label(text=view["title"], font_size="18sp", bold=True, size_hint_y=None, height=dp(22),
                           halign="left", valign="middle")
        self.title.bind(size=lambda w, s: setattr(w, "text_size", s))
        self.add_widget(self.title)
        self.dice = StackLayout(spacing=dp(2))
        self.chips = []
        for die in view["dice"]:
            chip = DieChip(size_hint=(None, None), size=(dp(CHIP), dp(CHIP)), font_size="18sp")
            chip.set_die(die)
            chip.bind(on_release=lambda c: on_die(self, c))
            self.chips.append(chip)
            self.dice.add_widget(chip)
        self.add_widget(self.dice)
        self.bind(pos=self._redraw, size=self._redraw, complete=self._redraw)

    def rows_needed(self, width: float) -> int:
        per_row = max(1, int((width - dp(6)) // (dp(CHIP) + dp(2))))
        return max(1, -(-len(self.chips) // per_row))

    def _redraw(self, *_args) -> None:
        self.canvas.before.clear()
        with self.canvas.before:
            Color(0.25, 0.22, 0.18, 1)
            Rectangle(pos=self.pos, size=self.size)
            if self.complete:
                Color(*HIGHLIGHT_RGBA)
                Line(rectangle=(self.x + 1, self.y + 1, self.width - 2, self.height - 2), width=dp(2))


class PlayerRow(BoxLayout):
    """One player: a card in their seat colour (name in full, dice left on a die of their
    colour, the turn outlined) and their four cards with the dice on them."""

    def __init__(self, seat: int, view: dict, on_card, on_die, **kwargs):
        super().__init__(orientation="horizontal", spacing=dp(3), size_hint_y=None, **kwargs)
        self.view, self.seat_rgba, self.player = view, seat_rgba(seat), view["player"]
        self.current = view["acting"]
        head = BoxLayout(size_hint_x=None, width=dp(196), padding=(dp(12), dp(1), dp(3), dp(1)), spacing=dp(3))
        self.name_label = NameLabel(name=view["player"], font_size="18sp", bold=True, halign="left",
                                    valign="middle", color=HIGHLIGHT_RGBA if self.current else (1, 1, 1, 1))
        head.add_widget(self.name_label)
        rgba = colour_rgba(view["colour"])
        self.count_label = Label(text=str(view["dice_on_cards"]), font_size="24sp", bold=True, size_hint=(None, None),
                                 size=(dp(40), dp(40)), color=ink_for(rgba), pos_hint={"center_y": 0.5})
        with self.count_label.canvas.before:
            Color(*rgba)
            self._count_square = RoundedRectangle(radius=[dp(5)])
        self.count_label.bind(pos=self._place_square, size=self._place_square)
        head.add_widget(self.count_label)
        self.head = head
        self.add_widget(head)
        self.cards = []
        for card_view in view["cards"]:
            card = CardBox(card_view, on_die)
            card.bind(on_release=lambda c: on_card(self, c))
            self.cards.append(card)
            self.add_widget(card)
        self.bind(pos=self._redraw, size=self._redraw, width=self._fit_height)
        self.name_label.bind(texture_size=self._fit_height)

    def _place_square(self, label, *_args) -> None:
        self._count_square.pos, self._count_square.size = label.pos, label.size

    def _fit_height(self, *_args) -> None:
        """As tall as the name and the fullest card need (never less than a touch target)."""
        card_width = (self.width - dp(196) - 4 * dp(3)) / 4
        rows = max((card.rows_needed(card_width) for card in self.cards), default=1)
        self.height = max(dp(50), dp(22) + dp(4) + rows * (dp(CHIP) + dp(2)), self.name_label.texture_size[1] + dp(4))

    def _redraw(self, *_args) -> None:
        self.canvas.before.clear()
        with self.canvas.before:
            Color(*(CURRENT_CARD_RGBA if self.current else CARD_RGBA))
            Rectangle(pos=self.pos, size=self.size)
            Color(*self.seat_rgba)
            Rectangle(pos=self.pos, size=(dp(9), self.height))
            if self.current:
                Color(*HIGHLIGHT_RGBA)
                Line(rectangle=(self.x + 1, self.y + 1, self.width - 2, self.height - 2), width=dp(2))


class DerbyPanel(BoardPanel):
    """The Whirling Derby table on the play screen."""

    step_text = StringProperty("")
    compost_text = StringProperty("")
    hand_text = StringProperty("")
    rolling = BooleanProperty(False)
    advising = BooleanProperty(False)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.state = None
        self.view: dict = {}
        self.rows: list[PlayerRow] = []
        self.hand_chips: list[DieChip] = []
        self.chosen: list[int] = []          # positions in the hand chosen to place
        self.stage_buttons: dict[str, Button] = {}
        self.advice = AdviceBox(self.play)
        self.ids.advice_slot.add_widget(self.advice)
        self.bind(size=self._arrange, rolling=self._arrange)
        self.ids.boards.bind(minimum_height=self._arrange)
        self.ids.hand.bind(width=self._arrange)

    @property
    def camera_slot(self):
        return self.ids.camera_slot

    # -- showing a state --------------------------------------------------------------------
    def show(self, state) -> None:
        previous, self.state = self.state, state
        self.view = view = state.board_view()
        if previous is None or previous.to_json() != state.to_json():
            self.chosen = []
        self.rolling = state.dice_to_roll() is not None
        self.step_text = view["step"]
        compost = view["compost"]
        self.compost_text = f"Compost: {dice_count(len(compost))}" if compost else "Compost: empty"
        self._show_boards(view)
        self._show_hand(view)
        self._show_buttons(state, view)
        self._show_advice(state, view)
        self._arrange()

    def _arrange(self, *_args) -> None:
        """The boards as tall as they need, the bottom row (hand and advice) as tall as the dice
        in hand need (at least 80 dp); while dice are due the camera takes what the boards
        leave (at least 100 dp).  Boards that do not fit scroll."""
        room = self.height - dp(48) - 3 * dp(3) - 2 * dp(2)
        needed = self.ids.boards.minimum_height
        hand, rows, x = self.ids.hand, 1, 0.0
        for item in hand.children[::-1]:          # the rows the dice and buttons in hand wrap to
            if x and x + item.width > hand.width:
                rows, x = rows + 1, 0.0
            x += item.width + dp(HAND_GAP)
        bottom = max(dp(80), dp(24) + rows * (dp(HAND_CHIP) + dp(HAND_GAP)))
        if self.rolling:
            bottom = max(dp(100), room - needed)
        self.ids.bottom.size_hint_y, self.ids.bottom.height = None, bottom
        self.ids.boards_view.height = max(0, min(needed, room - bottom))   # the rest: room below the boards
        acting = next((row for row in self.rows if row.current), None)
        if acting is not None and needed > self.ids.boards_view.height:
            Clock.schedule_once(lambda _dt: self._show_row(acting))

    def _show_row(self, row: PlayerRow) -> None:
        """Scroll the boards so that ``row`` (the acting player's) shows whole."""
        if row.parent is not None and self.ids.boards_view.height > 0:
            self.ids.boards_view.scroll_to(row, padding=0, animate=False)

    def _show_boards(self, view: dict) -> None:
        """A row per player; a row whose part of the view has not changed is kept as it is (building a row's
        cards and dice is the panel's slowest step, and a move changes one or two players)."""
        box, players = self.ids.boards, view["players"]
        if len(players) != len(self.rows):
            box.clear_widgets()
            self.rows = []
        for seat, player in enumerate(players):
            if seat < len(self.rows) and self.rows[seat].view == player:
                continue
            row = PlayerRow(seat, player, self.card_tapped, self.die_on_card_tapped)
            if seat < len(self.rows):
                place = box.children.index(self.rows[seat])
                box.remove_widget(self.rows[seat])
                box.add_widget(row, index=place)
                self.rows[seat] = row
            else:
                self.rows.append(row)
                box.add_widget(row)

    def _show_hand(self, view: dict) -> None:
        stage, box = view["stage"], self.ids.hand
        box.clear_widgets()
        self.hand_chips = []
        if stage in PLACING:
            dice, self.hand_text = view["hand"], "Dice to place: tap some, then a card"
        elif stage in ("distribute", "give"):
            dice = view["to_hand_out"]
            self.hand_text = ("Tap a die to hand it on" if stage == "distribute" else "These dice go to one player")
        elif stage == "choose_reroll":
            dice, self.hand_text = [], "Tap a card, or a colour:"
        else:
            dice, self.hand_text = [], ""
        for place, die in enumerate(dice):
            chip = DieChip(size_hint=(None, None), size=(dp(HAND_CHIP), dp(HAND_CHIP)))
            chip.set_die(die)
            chip.chosen = place in self.chosen
            chip.bind(on_release=lambda c, p=place: self.hand_die_tapped(p))
            self.hand_chips.append(chip)
            box.add_widget(chip)
        if stage in PLACING and len(dice) > 1:
            every = Button(text="All", font_size="19sp", size_hint=(None, None), size=(dp(56), dp(HAND_CHIP)))
            every.bind(on_release=lambda _b: self.choose_all())
            self.all_button = every
            box.add_widget(every)

    def _show_buttons(self, state, view: dict) -> None:
        """The moves that are no tap on the table: re-roll a colour, give to a player, end turn..."""
        stage, box = view["stage"], self.ids.buttons
        box.clear_widgets()
        self.stage_buttons = {}
        moves = state.legal_moves()
        if stage == "choose_reroll":
            for move in (m for m in moves if m.get("colour") is not None):
                colour = move["colour"]
                rgba = colour_rgba(colour)
                button = Button(text=f"All {colour}", font_size="18sp", background_normal="", background_color=rgba,
                                color=ink_for(rgba), size_hint=(None, None), size=(dp(104), dp(HAND_CHIP)))
                button.bind(on_release=lambda _b, m=move: self.play(m))
                self.stage_buttons[f"colour {colour}"] = button
                self.ids.hand.add_widget(button)
        elif stage == "give":
            for move in moves:
                button = Button(text=f"To {move['to']}", font_size="18sp", size_hint=(None, None),
                                size=(dp(260), dp(HAND_CHIP)), halign="left", shorten=False)
                button.bind(on_release=lambda _b, m=move: self.play(m))
                self.stage_buttons[f"to {move['to']}"] = button
                self.ids.hand.add_widget(button)
        for kind, text in BUTTONS.get(stage, ()):
            if stage == "activate" and state.activatable():
                continue
            button = Button(text=text, font_size="19sp", bold=True)
            button.bind(on_release=lambda _b, k=kind: self.play(Move.make(k)))
            self.stage_buttons[kind] = button
            box.add_widget(button)

    def _show_advice(self, state, view: dict) -> None:
        items = []
        if not self.rolling and not state.is_terminal():
            plan = state.placement_plan()
            if plan is not None and len(plan["placements"]) > 1:
                count = len(plan["placements"])
                items.append((f"Place the {count} dice as advised", "Undo takes them all back", plan))
            for suggestion in state.game.advise(state)[:MORE_SHOWN + 1]:
                words = state.suggestion_words(suggestion)
                items.append((words["headline"], words["reason"], suggestion.move))
        self.advice.show(items)
        self.advising = bool(items)
        narrow = bool(items) and items[0][2].get("placements") is not None     # many dice in hand want the room
        self.ids.advice_slot.width = dp(330 if narrow else 490) if items else 0

    # -- taps -------------------------------------------------------------------------------
    def _own(self, row: PlayerRow) -> bool:
        """True if ``row`` is the acting player's; otherwise say so."""
        if row.player != self.view.get("player"):
            self.refuse(f"it is {self.view.get('player') or 'nobody'}'s move: tap their cards, not {row.player}'s")
            return False
        return True

    def card_tapped(self, row: PlayerRow, card: CardBox) -> None:
        """A card of the acting player: the move the turn asks for there."""
        if not self._own(row):
            return
        stage = self.view["stage"]
        if stage == "choose_reroll":
            self.play(Move.make("reroll", card=card.card))
        elif stage in PLACING:
            dice = [self.hand_chips[p].die for p in self.chosen]
            if not dice:
                self.refuse("tap the dice in hand first (or All), then the card")
                return
            if len(dice) == 1:
                self.play(Move.make("place", die=dice[0], card=card.card))
            else:
                self.play(Move.make("place", placements=[[die, card.card] for die in dice]))
        elif stage == "activate":
            self.play(Move.make("activate", card=card.card))
        elif stage == "set_side":
            side = card.view["other_side_key"]
            if side is None:
                self.refuse(f"the {card.view['title']} has no other side")
                return
            self.play(Move.make("set_side", card=card.card, side=side))
        elif stage == "lift":
            self.refuse("tap a die on the card to lift it")
        else:
            self.refuse(f"no card to tap now: {self.view['step']}")

    def die_on_card_tapped(self, card: CardBox, chip: DieChip) -> None:
        """A die on a card: lifted in the reassign action, else the tap is the card's."""
        row = next(r for r in self.rows if card in r.cards)
        if self.view["stage"] == "lift":
            if self._own(row):
                self.play(Move.make("lift", card=card.card, die=chip.die))
        else:
            self.card_tapped(row, card)

    def hand_die_tapped(self, place: int) -> None:
        """A die in hand: chosen to place (again: not), or handed on to the next player."""
        if self.view["stage"] == "distribute":
            self.play(Move.make("hand", die=self.hand_chips[place].die))
            return
        if self.view["stage"] == "give":
            self.refuse("tap the player to give these dice to")
            return
        if place in self.chosen:
            self.chosen.remove(place)
        else:
            self.chosen.append(place)
        self.hand_chips[place].chosen = place in self.chosen

    def choose_all(self) -> None:
        every = list(range(len(self.hand_chips)))
        self.chosen = [] if sorted(self.chosen) == every else every
        for place, chip in enumerate(self.hand_chips):
            chip.chosen = place in self.chosen


PANEL_CLASS = DerbyPanel
