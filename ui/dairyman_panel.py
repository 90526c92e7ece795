"""Dairyman's board panel: the order display, the barns with their locked sets, the dice
rolled, the supplies, a card per player, and the advice as one large button.

Everything shown comes from the state's ``board_view`` (and ``suggestion_words`` for the
advice).  Taps become the engine's moves: dice tapped after a roll form the sets to lock
("New set" starts the next set), dice tapped after locking are the ones to freeze for the
re-roll, display tiles tapped are the ones to claim.  The engine decides whether a move is
legal; a refused one shows its one-line reason and changes nothing.
"""
from __future__ import annotations

from kivy.metrics import dp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.button import Button
from kivy.uix.label import Label

from companion.engine import Move
from ui.board_panels import BoardPanel
from ui.panel_parts import MORE_SHOWN, AdviceBox, DieChip, PlayerCard, sentence, wrapped


class DisplayTile(Button):
    """A tile of the order display: what it is worth, what it flips to and what that needs."""

    chosen = BooleanProperty(False)
    tile = None            # the number moves name it by (never shown)


def tile_text(view: dict) -> str:
    return f"[b][size=21sp]{sentence(view['name'])}[/size][/b]\nto {view['flips_to']}\nfor {view['flip_needs']}"


def tiles_text(tiles: list[dict]) -> str:
    if not tiles:
        return "no tiles"
    return f"{len(tiles)} tile{'s' if len(tiles) != 1 else ''}"


class DairymanPanel(BoardPanel):
    """The Dairyman table on the play screen."""

    step_text = StringProperty("")
    supply_text = StringProperty("")
    chosen_text = StringProperty("")
    rolling = BooleanProperty(False)      # dice are due: the camera shows below the barns
    dice_shown = BooleanProperty(True)    # the row of dice: after a roll, or dice kept for a re-roll
    locking = BooleanProperty(False)      # right after a roll: dice tapped form sets
    continuing = BooleanProperty(False)   # after locking: dice tapped are frozen, tiles tapped claimed
    advising = BooleanProperty(False)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.state = None
        self.view: dict = {}
        self.sets: list[list[int]] = [[]]    # locking: roll positions per set, the last one open
        self.frozen: list[int] = []          # continuing: roll positions to freeze
        self.claims: list[int] = []          # continuing: display positions to claim
        self.chips: list[DieChip] = []
        self.cards: list[PlayerCard] = []
        self.aside_label = wrapped(Label(font_size="18sp", halign="left", valign="middle"), 2)
        self.ids.roll.add_widget(self.aside_label)
        self.ids.roll.bind(width=self._size_chips)
        self.advice = AdviceBox(self.play)
        self.ids.advice_slot.add_widget(self.advice)
        for tile in self.ids.display.children:
            tile.bind(on_release=self.tile_tapped)

    @property
    def camera_slot(self):
        return self.ids.camera_slot

    # -- showing a state --------------------------------------------------------------------
    def show(self, state) -> None:
        previous, self.state = self.state, state
        self.view = view = state.board_view()
        if previous is None or previous.to_json() != state.to_json():
            self.sets, self.frozen, self.claims = [[]], [], []
        phase = view["phase"]
        self.rolling = state.dice_to_roll() is not None
        self.dice_shown = not self.rolling or bool(view["kept"])
        self.locking, self.continuing = phase == "lock", phase == "continue"
        self.step_text = view["step"]
        supply = view["supply"]
        self.supply_text = (f"Supply: {supply['freeze']} freeze, {supply['backorders']} backorder\n"
                            f"{view['stack']} tiles in the stack")
        self._show_display(view)
        self._show_barns(view)
        self._show_roll(view)
        self._show_players(view)
        self._show_advice(state)
        slot = self.ids.camera_slot
        slot.opacity, slot.disabled = (1, False) if self.rolling else (0, True)   # else: room below the advice

    def _show_display(self, view: dict) -> None:
        tiles = self.ids.display.children[::-1]
        for place, button in enumerate(tiles):
            tile = view["display"][place] if place < len(view["display"]) else None
            button.tile = tile["tile"] if tile else None
            button.text = tile_text(tile) if tile else ""
            button.chosen = place in self.claims

    def _show_barns(self, view: dict) -> None:
        for barn, box in zip(view["barns"], self.ids.barns.children[::-1]):
            sets = ", ".join("+".join(d["text"] for d in s) for s in barn["sets"]) or "empty"
            box.text = f"[b]{sentence(barn['name'])}[/b]" + (f"  ({barn['total']})" if barn["total"] else "") \
                + f"\n{sets}"

    def _show_roll(self, view: dict) -> None:
        row = self.ids.roll
        dice = view["roll"]
        if len(self.chips) != len(dice):
            row.clear_widgets()
            self.chips = []
            for place in range(len(dice)):
                chip = DieChip(size_hint_x=None)
                chip.bind(on_release=lambda _c, p=place: self.die_tapped(p))
                self.chips.append(chip)
                row.add_widget(chip)
            row.add_widget(self.aside_label)
            self._size_chips()
        for place, (chip, die) in enumerate(zip(self.chips, dice)):
            chip.set_die(die)
            chip.chosen = place in self.frozen or any(place in s for s in self.sets)
        aside = ", ".join(d["text"] for d in view["set_aside"])
        kept = ", ".join(d["text"] for d in view["kept"])
        self.aside_label.text = (f"set aside: {aside}" if aside else "") + (f"  kept: {kept}" if kept else "")
        self._show_chosen()

    def _size_chips(self, *_args) -> None:
        """Dice as wide as a finger (48 dp) while they fit beside the "set aside" note, else narrower."""
        width = max(dp(34), min(dp(48), (self.ids.roll.width - dp(96)) / max(1, len(self.chips))))
        for chip in self.chips:
            chip.width = width

    def _show_chosen(self) -> None:
        dice = self.view.get("roll", [])
        if self.locking:
            sets = ["+".join(dice[p]["text"] for p in s) for s in self.sets if s]
            self.chosen_text = ("Sets: " + " | ".join(sets)) if sets else "Tap dice to form a set of ten"
        elif self.continuing:
            frozen = ", ".join(dice[p]["text"] for p in self.frozen)
            claims = [self.view["display"][p]["name"] for p in self.claims if p < len(self.view["display"])]
            parts = ([f"freeze {frozen}"] if frozen else []) + ([f"claim {', '.join(claims)}"] if claims else [])
            self.chosen_text = "; ".join(parts) if parts else "Tap dice to freeze, or tiles to claim"
        else:
            self.chosen_text = ""

    def _show_players(self, view: dict) -> None:
        box = self.ids.players
        players = view["players"]
        if len(self.cards) != len(players):
            box.clear_widgets()
            self.cards = [PlayerCard(seat, size_hint_y=None, height=dp(48 if len(players) > 2 else 56))
                          for seat in range(len(players))]
            for card in self.cards:
                box.add_widget(card)
        for card, player in zip(self.cards, players):
            detail = f"{player['freeze']} freeze, {player['backorders']} backorder, {tiles_text(player['tiles'])}"
            card.fill(player["player"], str(player["score"]), detail, player["current"])

    def _show_advice(self, state) -> None:
        suggestions = [] if self.rolling or state.is_terminal() else state.game.advise(state)
        items = []
        for suggestion in suggestions[:MORE_SHOWN + 1]:      # a 12-dice roll has hundreds of locks
            words = state.suggestion_words(suggestion)
            items.append((words["headline"], words["reason"], suggestion.move))
        self.advice.show(items)
        self.advising = bool(items)

    # -- taps -------------------------------------------------------------------------------
    def die_tapped(self, place: int) -> None:
        """A die of the roll: into the open set (after a roll) or frozen (after locking); again: out."""
        if self.locking:
            holder = next((s for s in self.sets if place in s), None)
            if holder is not None:
                holder.remove(place)
            else:
                self.sets[-1].append(place)
        elif self.continuing:
            if place in self.frozen:
                self.frozen.remove(place)
            else:
                self.frozen.append(place)
        else:
            self.refuse("roll the dice first")
            return
        self.chips[place].chosen = place in self.frozen or any(place in s for s in self.sets)
        self._show_chosen()

    def tile_tapped(self, button: DisplayTile) -> None:
        """A display tile: chosen to claim (again: not)."""
        place = self.ids.display.children[::-1].index(button)
        if button.tile is None:
            return
        if not self.continuing:
            self.refuse("tiles are claimed after locking a set: lock first, then choose the tiles")
            return
        if place in self.claims:
            self.claims.remove(place)
        else:
            self.claims.append(place)
        button.chosen = place in self.claims
        self._show_chosen()

    def new_set(self) -> None:
        if self.sets[-1]:
            self.sets.append([])
        self._show_chosen()

    def _dice(self, places) -> list[str]:
        return [self.chips[p].die for p in places]

    def lock_chosen(self) -> None:
        sets = [self._dice(s) for s in self.sets if s]
        if not sets:
            self.refuse("tap the dice of a set of ten first")
            return
        self.play(Move.make("lock", sets=sets))

    def reroll_chosen(self) -> None:
        self.play(Move.make("reroll", freeze=self._dice(self.frozen)))

    def claim_chosen(self) -> None:
        tiles = [self.view["display"][p]["tile"] for p in self.claims]
        if not tiles:
            self.refuse("tap the tiles to claim first")
            return
        self.play(Move.make("claim", tiles=tiles))


PANEL_CLASS = DairymanPanel
