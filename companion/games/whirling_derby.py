"""Whirling Derby: a race to get rid of every die on your cards.

Each player has dice of their own colour and four cards (A Run, All of a Kind, One or Two
Pair, the Stove); the shared Compost takes dice out of the game.  A turn: re-roll the dice
on one card or all dice of one colour (the chance node), place every rolled die on a card
whose pattern it fits, activate one complete card (its action hands dice out, gives two dice
to one player, or sets a card's side and re-places dice) and flip it.  Dice handed to a
player are placed by that player at once; a player is never handed dice of their own colour
(they go to the Compost).  The first player with no dice on their cards at the end of their
own turn wins.

The card data (patterns, slots, which front has which back, which side does what) is in
``whirling_derby.toml`` and can be overridden with the ``card_data`` option; a saved game
keeps the complete card data it was started with (:meth:`WhirlingDerby.self_contained_options`),
so it replays the same after that file, or this one, changes or moves.  Our readings
where the rule text is silent: the first player's first turn rolls all their dice; the
reassign action may set one card to another side (dice on it go back to the hand), then
lift any dice and place every die in hand again; a die is "given" to its own colour only
when no choice of die (hand-out) or player (give) avoids it, and then it goes to the
Compost.  A game nobody can finish (no player holds as many dice as any of their cards
needs) or one that reaches the ``turn_cap`` option ends with an alert; the player with the
fewest dice on their cards wins it.
"""
from __future__ import annotations

import json
import tomllib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from itertools import permutations
from pathlib import Path
from typing import Any

from companion.engine import (
    Alert,
    DiceRequest,
    Die,
    Game,
    GameState,
    Move,
    Option,
    Suggestion,
    parse_dice,
    percent_words,
)
from companion.errors import RuleError, UserError

DATA_FILE = Path(__file__).with_suffix(".toml")
PATTERNS = ("consecutive", "equal", "pairs", "distinct", "not_all_equal", "any")
ACTIONS = ("distribute", "give", "reassign", "none")
PLACING = ("setup_place", "assign", "receive", "reassign")

# -- rules data ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Side:
    """One face of a card: which dice it takes and what activating it does.  Sides are
    compared and hashed by identity (cheap keys for the advice caches; rules are cached)."""

    key: str
    title: str
    pattern: str
    required: int
    slots: int          # 0: no limit
    action: str         # distribute | give | reassign | none


@dataclass(frozen=True)
class CardSpec:
    key: str
    sides: tuple[Side, ...]   # set-up side first; one side only: never flips

    @property
    def flips(self) -> bool:
        return len(self.sides) > 1


@dataclass(frozen=True)
class Rules:
    """Everything a game needs that is data: cards, set-up dice, colours, the turn cap."""

    cards: tuple[CardSpec, ...]
    dice_by_seat: tuple[int, ...]
    neutral_dice_two_players: int
    four_equal_is_two_pairs: bool
    colours: tuple[str, ...]
    neutral: str
    turn_cap: int

    def card_index(self, key: Any) -> int:
        for i, card in enumerate(self.cards):
            if card.key == key:
                return i
        raise RuleError("cards", f"there is no card {key!r} (cards: {', '.join(c.key for c in self.cards)})")

    def starting_dice(self, player_count: int) -> tuple[Counter, ...]:
        """Each seat's dice by colour at the start."""
        extra = self.neutral_dice_two_players if player_count == 2 else 0
        return tuple(Counter({self.colours[seat]: self.dice_by_seat[seat], **({self.neutral: extra} if extra else {})})
                     for seat in range(player_count))

    def colours_in_play(self, player_count: int) -> frozenset[str]:
        neutral = {self.neutral} if player_count == 2 and self.neutral_dice_two_players else set()
        return frozenset(self.colours[:player_count]) | neutral


def _merge(base: dict, extra: Mapping) -> dict:
    merged = dict(base)
    for key, value in extra.items():
        merged[key] = _merge(base[key], value) if isinstance(value, Mapping) and isinstance(base.get(key), dict) \
            else value
    return merged


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text())
    except OSError as exc:
        raise UserError(f"cannot read card data {path}: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"card data {path} is not valid TOML: {exc}") from exc


def complete_card_data(card_data: str = "") -> dict:
    """The card data ``card_data`` names: the built-in data overlaid with the TOML file
    ``card_data`` if given, or, when it is a JSON object, the complete card data itself
    (what a saved game keeps)."""
    if card_data.lstrip().startswith("{"):
        try:
            return json.loads(card_data)
        except json.JSONDecodeError as exc:
            raise UserError(f"bad Whirling Derby card data (JSON): {exc}") from exc
    data = _read_toml(DATA_FILE)
    if card_data:
        data = _merge(data, _read_toml(Path(card_data).expanduser()))
    return data


@cache
def load_rules(card_data: str = "", colours: str = "red,blue,green,yellow", neutral: str = "white",
               turn_cap: int = 400) -> Rules:
    """The rules from the card data ``card_data`` names (see :func:`complete_card_data`)."""
    data = complete_card_data(card_data)
    try:
        sides = {}
        for key, raw in data["sides"].items():
            side = Side(key, str(raw["title"]), raw["pattern"], int(raw["required"]), int(raw["slots"]),
                        raw["action"])
            if side.pattern not in PATTERNS or side.action not in ACTIONS:
                raise ValueError(f"side {key}: pattern one of {PATTERNS}, action one of {ACTIONS}")
            if side.required < 0 or side.slots < 0 or (side.slots and side.required > side.slots):
                raise ValueError(f"side {key}: required must be 0..slots")
            sides[key] = side
        cards = tuple(CardSpec(key, tuple(sides[s] for s in names)) for key, names in data["cards"].items())
        setup = data["setup"]
        rules = Rules(cards, tuple(int(n) for n in setup["dice_by_seat"]), int(setup["neutral_dice_two_players"]),
                      bool(setup["four_equal_is_two_pairs"]), tuple(c.strip().lower() for c in colours.split(",")),
                      neutral.strip().lower(), turn_cap)
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"bad Whirling Derby card data: {exc}") from exc
    stoves = [c for c in rules.cards if not c.flips]
    if len(stoves) != 1 or stoves[0].sides[0].action != "none" or any(len(c.sides) > 2 for c in rules.cards):
        raise UserError("bad Whirling Derby card data: cards have two sides, except one Stove with no action")
    if len(rules.colours) < 4 or len(set(rules.colours)) != len(rules.colours) or rules.neutral in rules.colours \
            or not all(rules.colours) or not rules.neutral:
        raise UserError("colours: give four different player colours, none of them the neutral colour")
    if len(rules.dice_by_seat) < 4 or turn_cap < 1:
        raise UserError("bad Whirling Derby data: dice for four seats and a turn cap of at least 1")
    return rules


# -- patterns -----------------------------------------------------------------------------


def placement_problem(side: Side, values: Sequence[int], value: int, four_equal: bool) -> str | None:
    """Why a die showing ``value`` may not join ``values`` on ``side`` (None: it may)."""
    count = len(values)
    if side.slots and count >= side.slots:
        return f"{side.title} holds at most {side.slots} dice"
    pattern = side.pattern
    if pattern in ("consecutive", "distinct") and value in values:
        return f"{side.title} already has a {value}: its dice must all differ"
    if pattern == "equal" and values and values[0] != value:
        return f"{side.title} holds {values[0]}s: a {value} does not match"
    if pattern == "not_all_equal" and count + 1 == side.slots and set(values) == {value}:
        return f"{side.title} would be full with equal dice"
    if pattern == "pairs":
        counts = Counter(values)
        counts[value] += 1
        if not four_equal and counts[value] > 2:
            return f"{side.title} already has a pair of {value}s"
        unpaired = sum(n % 2 for n in counts.values())
        if count + 1 + unpaired > side.slots:
            return f"{side.title} cannot make pairs of {' '.join(map(str, sorted(counts.elements())))}"
    return None


def activation_problem(side: Side, values: Sequence[int]) -> str | None:
    """Why ``side`` holding ``values`` may not be activated (None: it may)."""
    count = len(values)
    if side.action == "none":
        return f"the {side.title} is never activated"
    if count < side.required:
        return f"{side.title} needs at least {side.required} dice, it has {count}"
    pattern = side.pattern
    if pattern == "consecutive" and len(set(values)) != count:
        twice = sorted(v for v, n in Counter(values).items() if n > 1)
        return f"{side.title} holds {and_list([f'two {v}s' for v in twice])}: the values of a run all differ"
    if pattern == "consecutive" and max(values) - min(values) != count - 1:
        gaps = [str(v) for v in range(min(values), max(values) + 1) if v not in values]
        return (f"{side.title} holds {and_list([str(v) for v in sorted(values)])}: fill the "
                f"{'gap' if len(gaps) == 1 else 'gaps'} ({and_list(gaps)}) before it can be activated")
    if pattern == "equal" and len(set(values)) > 1:
        return f"{side.title} dice are not all equal"
    if pattern == "pairs" and any(n % 2 for n in Counter(values).values()):
        return f"{side.title} {' '.join(map(str, sorted(values)))} has a broken pair"
    if pattern == "distinct" and len(set(values)) != count:
        return f"{side.title} has two equal dice"
    if pattern == "not_all_equal" and count > 1 and len(set(values)) == 1:
        return f"{side.title} dice are all equal"
    return None


@lru_cache(maxsize=1 << 16)
def best_additions(side: Side, values: tuple[int, ...], extra: tuple[int, ...],
                   four_equal: bool) -> tuple[int, ...] | None:
    """The values to take from ``extra`` so that ``side``, keeping its ``values``, holds the
    most dice it can be activated with (both sorted); None if no such set can be made."""
    if side.action == "none":
        return None
    room = (side.slots or len(values) + len(extra)) - len(values)
    pattern = side.pattern
    if pattern in ("consecutive", "distinct") and len(set(values)) != len(values):
        return None
    if pattern == "consecutive":
        have, avail = set(values), set(values) | set(extra)
        if have:
            low, high = min(have), max(have)
            while low - 1 in avail and len(range(low - 1, high + 1)) - len(have) <= room:
                low -= 1
            while high + 1 in avail and len(range(low, high + 2)) - len(have) <= room:
                high += 1
        else:                              # the longest run among the extra dice (its top part)
            low, high, start = 1, 0, None
            for v in range(1, 8):
                if v in avail:
                    start = v if start is None else start
                elif start is not None:
                    if min(v - start, room) > high - low + 1:
                        low, high = max(start, v - room), v - 1
                    start = None
        adds = [v for v in range(low, high + 1) if v not in have]
    elif pattern == "equal":
        counts = Counter(extra)
        value = values[0] if values else max(counts, key=lambda v: (counts[v], v), default=0)
        adds = [value] * min(counts[value], room)
    elif pattern == "pairs":
        counts, spare = Counter(values), Counter(extra)
        adds = [v for v, n in counts.items() if n % 2]
        if any(not spare[v] for v in adds):
            return None
        spare.subtract(adds)
        for value, n in sorted(spare.items(), key=lambda item: (-item[1], -item[0])):
            pairs = n // 2 if four_equal else min(n // 2, 0 if counts[value] else 1)
            adds += [value] * (2 * min(pairs, (room - len(adds)) // 2))
    elif pattern == "distinct":
        adds = sorted(set(extra) - set(values))[:room]
    elif pattern == "not_all_equal":
        adds = sorted(extra, key=lambda v: (v in values, v))[:room]
    else:
        adds = list(extra[:room])
    adds = tuple(sorted(adds))
    if len(adds) > room or Counter(adds) - Counter(extra) or activation_problem(side, tuple(sorted(values + adds))):
        return None
    return adds


def and_list(items: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}" if items else ""


def best_activation(side: Side, values: tuple[int, ...], extra: tuple[int, ...], four_equal: bool) -> int:
    """The most dice ``side`` could be activated with, keeping ``values`` and adding any of
    ``extra`` (both sorted); 0 if it cannot be completed from them."""
    adds = best_additions(side, values, extra, four_equal)
    return 0 if adds is None else len(values) + len(adds)


PATTERN_WORDS = {"consecutive": "a run without gaps", "equal": "all the same value", "pairs": "in pairs",
                 "distinct": "all different", "not_all_equal": "not all the same", "any": "any values"}
"""Each card pattern as the table says it."""
ACTION_WORDS = {"distribute": "hands its dice out, one player after another", "give": "gives its dice to one player",
                "reassign": "turns a card and places dice again", "none": "never activated"}
"""Each card action as the table says it."""


def die_words(die: Die) -> dict:
    """A die for the table: its colour and value, ``text`` as a player names it, ``die`` as moves do."""
    return {"colour": die.colour, "value": die.value, "text": f"{die.colour} {die.value}", "die": str(die)}


# -- the state ----------------------------------------------------------------------------

Card = tuple[int, tuple[Die, ...]]          # (index of the side showing, dice on it, sorted)


def _die_text(die: Die) -> str:
    return f"{die.colour} {die.value}"


@lru_cache(maxsize=256)
def _read_die(text: Any) -> Die:
    dice = parse_dice(str(text))
    if len(dice) != 1 or dice[0].colour is None:
        raise UserError(f"name one die as colour:value, not {text!r}")
    return dice[0]


def _without(dice: tuple[Die, ...], die: Die) -> tuple[Die, ...]:
    index = dice.index(die)
    return dice[:index] + dice[index + 1:]


def _distinct(dice: Sequence[Die]) -> list[Die]:
    return sorted(set(dice))


@dataclass(frozen=True)
class DerbyState(GameState):
    """A Whirling Derby position.  ``stage`` is one of: setup_roll, setup_place (a player
    rolls and places their starting dice), choose_reroll, roll, assign, activate, distribute,
    give, receive (the player handed dice places them), set_side, lift, reassign, over."""

    game: WhirlingDerby
    rules: Rules
    options: tuple[tuple[str, Any], ...]
    players: tuple[str, ...]
    boards: tuple[tuple[Card, ...], ...]    # per seat, per card of rules.cards
    compost: tuple[Die, ...]
    stage: str
    turn_seat: int                           # whose turn it is
    actor: int                               # who acts now (a receiver places on another's turn)
    pending: tuple[Die, ...] = ()            # dice the actor must place now
    outgoing: tuple[Die, ...] = ()           # dice of an activated card not yet handed out
    hand_step: int = 0                       # dice handed out so far from the activated card
    reroll: tuple[str, ...] = ()             # colours to roll at a chance node
    unconfirmed: tuple[tuple[Die, str | None], ...] = ()   # rolled dice whose colour was not read
    turn: int = 0
    winner: int | None = None
    ended_by: str | None = None              # None (a player emptied their cards), "stalemate", "turn_cap"

    # -- basic views ----------------------------------------------------------------------
    @property
    def current_player(self) -> str | None:
        return None if self.stage == "over" else self.players[self.actor]

    @property
    def phase(self) -> str:
        return self.stage

    def is_terminal(self) -> bool:
        return self.stage == "over"

    def colour_of(self, seat: int) -> str:
        return self.rules.colours[seat]

    def seat_of(self, name: Any) -> int:
        if name not in self.players:
            raise RuleError("players", f"there is no player {name!r}")
        return self.players.index(name)

    def side(self, seat: int, card: int) -> Side:
        return self.rules.cards[card].sides[self.boards[seat][card][0]]

    def dice_on_cards(self, seat: int) -> int:
        return sum(len(dice) for _, dice in self.boards[seat])

    def dice_by_colour(self) -> Counter:
        """Every die in the game by colour: on cards, in hands, in the Compost."""
        counts = Counter(d.colour for board in self.boards for _, dice in board for d in dice)
        counts.update(d.colour for d in self.pending + self.outgoing + self.compost)
        counts.update(self.reroll)
        if self.stage.startswith("setup"):   # the first player and later seats still hold their dice
            starting = self.rules.starting_dice(len(self.players))
            for seat in (0, *range(self.actor + 1, len(self.players))):
                counts.update(starting[seat])
        return counts

    def starting_totals(self) -> Counter:
        total: Counter = Counter()
        for dice in self.rules.starting_dice(len(self.players)):
            total.update(dice)
        return total

    def dice_to_roll(self) -> DiceRequest | None:
        if self.stage not in ("setup_roll", "roll"):
            return None
        reason = "roll all your dice" if self.stage == "setup_roll" or self.turn == 1 and self.turn_seat == 0 \
            else "your mandatory re-roll"
        return DiceRequest(self.players[self.actor], self.reroll, reason)

    def target(self) -> int | None:
        """Who gets the next die handed out: a seat, or None for the Compost."""
        seat = (self.turn_seat + self.hand_step) % len(self.players)
        return None if seat == self.turn_seat else seat

    # -- rolls ----------------------------------------------------------------------------
    def apply_roll(self, dice: Sequence[Die]) -> DerbyState:
        """As GameState.apply_roll; a die of a colour nobody plays with counts as unread."""
        in_play = self.rules.colours_in_play(len(self.players))
        read, cleaned = [], []
        for die in dice:
            colour = die.colour.lower() if die.colour else None
            cleaned.append(Die(die.value, colour if colour in in_play else None))
            if colour is not None and colour not in in_play:
                read.append((die.value, colour))
        state = super().apply_roll(cleaned)
        records = list(state.unconfirmed)
        for value, colour in read:
            i = next(i for i, (d, seen) in enumerate(records) if d.value == value and seen is None)
            records[i] = (records[i][0], colour)
        return replace(state, unconfirmed=tuple(records))

    def colour_roll(self, dice: Sequence[Die]) -> tuple[Die, ...]:
        """:meth:`GameState.colour_roll`: dice without a colour take the colour being rolled when
        only one is; a roll of several colours must name them (whose die it is matters).  A colour
        nobody plays is left to :meth:`apply_roll`, which takes it as unread and flags it."""
        request, dice = self.dice_to_roll(), tuple(dice)
        in_play = self.rules.colours_in_play(len(self.players))
        if request is None or any(d.colour is not None and d.colour.lower() not in in_play for d in dice):
            return dice
        return request.colour_bare_dice(dice)

    def _apply_roll(self, dice: tuple[Die, ...]) -> DerbyState:
        missing = Counter(self.reroll) - Counter(d.colour for d in dice if d.colour)
        spare = iter(sorted(missing.elements()))
        resolved, unconfirmed = [], []
        for die in sorted(dice, key=lambda d: (d.colour is not None, d.value)):
            if die.colour is None:
                die = Die(die.value, next(spare))
                unconfirmed.append((die, None))
            resolved.append(die)
        stage = "setup_place" if self.stage == "setup_roll" else "assign"
        return replace(self, stage=stage, pending=tuple(sorted(resolved)), reroll=(), unconfirmed=tuple(unconfirmed))

    # -- legal moves ----------------------------------------------------------------------
    def can_place(self, seat: int, card: int, die: Die) -> str | None:
        values = [d.value for d in self.boards[seat][card][1]]
        return placement_problem(self.side(seat, card), values, die.value, self.rules.four_equal_is_two_pairs)

    def can_activate(self, seat: int, card: int) -> str | None:
        return activation_problem(self.side(seat, card), [d.value for d in self.boards[seat][card][1]])

    def activatable(self) -> list[int]:
        return [i for i in range(len(self.rules.cards)) if self.can_activate(self.turn_seat, i) is None]

    def gift_problem(self, seat: int, dice: Sequence[Die]) -> str | None:
        """Why the turn player may not hand ``dice`` to ``seat`` (own colour, not forced)."""
        colour = self.colour_of(seat)
        if all(d.colour != colour for d in dice):
            return None
        if self.stage == "distribute":
            if any(d.colour != colour for d in self.outgoing):
                return f"{self.players[seat]} may never get a {colour} die: hand them another die"
            return None
        others = [s for s in range(len(self.players)) if s != self.turn_seat]
        if any(all(d.colour != self.colour_of(s) for d in dice) for s in others):
            return f"{self.players[seat]} may never get a {colour} die: give these dice to another player"
        return None

    def legal_moves(self) -> list[Move]:
        stage, seat = self.stage, self.actor
        cards = self.rules.cards
        if stage == "choose_reroll":
            moves = [Move.make("reroll", card=c.key) for i, c in enumerate(cards) if self.boards[seat][i][1]]
            colours = sorted({d.colour for _, dice in self.boards[seat] for d in dice})
            return moves + [Move.make("reroll", colour=c) for c in colours]
        if stage in PLACING:
            return [Move.make("place", die=str(die), card=c.key) for die in _distinct(self.pending)
                    for i, c in enumerate(cards) if self.can_place(seat, i, die) is None]
        if stage == "activate":
            return [Move.make("activate", card=cards[i].key) for i in self.activatable()] or [Move.make("end_turn")]
        if stage == "distribute":
            target = self.target()
            return [Move.make("hand", die=str(die)) for die in _distinct(self.outgoing)
                    if target is None or self.gift_problem(target, [die]) is None]
        if stage == "give":
            return [Move.make("give", to=self.players[s]) for s in range(len(self.players))
                    if s != seat and self.gift_problem(s, self.outgoing) is None]
        if stage == "set_side":
            return [Move.make("keep_sides")] + [
                Move.make("set_side", card=c.key, side=side.key) for i, c in enumerate(cards) if c.flips
                for k, side in enumerate(c.sides) if k != self.boards[seat][i][0]]
        if stage == "lift":
            return [Move.make("done_lifting")] + [
                Move.make("lift", card=c.key, die=str(die)) for i, c in enumerate(cards)
                for die in _distinct(self.boards[seat][i][1])]
        return []

    # -- transitions ----------------------------------------------------------------------
    def _with_card(self, seat: int, card: int, side: int, dice: tuple[Die, ...]) -> tuple:
        board = self.boards[seat][:card] + ((side, tuple(sorted(dice))),) + self.boards[seat][card + 1:]
        return self.boards[:seat] + (board,) + self.boards[seat + 1:]

    def _expect(self, move: Move, *stages: str) -> None:
        if self.stage not in stages:
            raise RuleError("turn sequence", f"cannot {move.kind.replace('_', ' ')} now: {self._step_text()}")

    def _step_text(self) -> str:
        name = self.players[self.actor]
        return {
            "choose_reroll": f"{name} first chooses what to re-roll",
            "setup_place": f"{name} places their set-up dice",
            "assign": f"{name} places the rolled dice",
            "receive": f"{name} places the dice they were given",
            "reassign": f"{name} places the dice they lifted",
            "activate": f"{name} activates a card",
            "distribute": f"{name} hands out the activated card's dice",
            "give": f"{name} gives the activated card's dice to one player",
            "set_side": f"{name} may set a card to any side",
            "lift": f"{name} may lift dice to reassign",
        }.get(self.stage, f"the game is in {self.stage}")

    def _apply(self, move: Move) -> DerbyState:
        handler = getattr(self, f"_move_{move.kind}", None)
        if handler is None:
            raise RuleError("moves", f"{move.kind!r} is not a Whirling Derby move")
        return handler(move)

    def _move_reroll(self, move: Move) -> DerbyState:
        self._expect(move, "choose_reroll")
        seat, boards = self.actor, self.boards
        if move.get("card") is not None and move.get("colour") is None:
            card = self.rules.card_index(move["card"])
            dice = self.boards[seat][card][1]
            if not dice:
                raise RuleError("re-roll", f"there are no dice on your {self.side(seat, card).title}")
            boards = self._with_card(seat, card, self.boards[seat][card][0], ())
        elif move.get("colour") is not None and move.get("card") is None:
            colour = str(move["colour"]).lower()
            dice = tuple(d for _, on in self.boards[seat] for d in on if d.colour == colour)
            if not dice:
                raise RuleError("re-roll", f"there are no {colour} dice on your cards")
            board = tuple((side, tuple(d for d in on if d.colour != colour)) for side, on in self.boards[seat])
            boards = self.boards[:seat] + (board,) + self.boards[seat + 1:]
        else:
            raise RuleError("re-roll", "re-roll either all dice on one card or all dice of one colour")
        return replace(self, boards=boards, stage="roll", reroll=tuple(sorted(d.colour for d in dice)))

    def _move_place(self, move: Move) -> DerbyState:
        self._expect(move, *PLACING)
        if move.get("placements") is not None and move.get("die") is None:
            return self._place_several(move.get("placements"))
        die, card = _read_die(move.get("die")), self.rules.card_index(move.get("card"))
        if die not in self.pending:
            held = ", ".join(map(_die_text, self.pending))
            raise RuleError("dice in hand", f"{self.players[self.actor]} has no {_die_text(die)} to place ({held})")
        problem = self.can_place(self.actor, card, die)
        if problem:
            raise RuleError(self.side(self.actor, card).title, problem)
        side, dice = self.boards[self.actor][card]
        state = replace(self, boards=self._with_card(self.actor, card, side, dice + (die,)),
                        pending=_without(self.pending, die))
        return state if state.pending else state._placed_all()

    def _place_several(self, placements: Any) -> DerbyState:
        """Several dice of the hand placed in one step (``placements``: pairs of die and card),
        the same as placing them one after another; all or nothing."""
        if not isinstance(placements, (list, tuple)) or not placements \
                or not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in placements):
            raise RuleError("dice in hand", "name the dice to place as pairs of die and card")
        state = self
        for die, card in placements:
            if state.stage != self.stage or state.actor != self.actor:
                raise RuleError("dice in hand", f"{self.players[self.actor]} has only "
                                f"{_dice(len(self.pending))} to place")
            state = state._move_place(Move.make("place", die=die, card=card))
        return state

    def _placed_all(self) -> DerbyState:
        if self.stage == "setup_place":
            seat = self.actor + 1
            if seat < len(self.players):
                colours = tuple(sorted(self.rules.starting_dice(len(self.players))[seat].elements()))
                return replace(self, stage="setup_roll", actor=seat, reroll=colours, unconfirmed=())
            colours = tuple(sorted(self.rules.starting_dice(len(self.players))[0].elements()))
            return replace(self, stage="roll", actor=0, turn_seat=0, turn=1, reroll=colours, unconfirmed=())
        if self.stage == "assign":
            return replace(self, stage="activate", unconfirmed=())
        if self.stage == "receive" and self.outgoing:
            return replace(self, stage="distribute", actor=self.turn_seat)
        return self._end_turn()

    def _move_activate(self, move: Move) -> DerbyState:
        self._expect(move, "activate")
        seat, card = self.turn_seat, self.rules.card_index(move.get("card"))
        side = self.side(seat, card)
        problem = self.can_activate(seat, card)
        if problem:
            raise RuleError("activate a complete card", problem)
        flipped = (self.boards[seat][card][0] + 1) % len(self.rules.cards[card].sides)
        dice = self.boards[seat][card][1]
        state = replace(self, boards=self._with_card(seat, card, flipped, ()))
        if side.action == "distribute":
            return replace(state, stage="distribute", outgoing=dice, hand_step=0)
        if side.action == "give":
            return replace(state, stage="give", outgoing=dice)
        return replace(state, stage="set_side", pending=dice)

    def _move_end_turn(self, move: Move) -> DerbyState:
        self._expect(move, "activate")
        ready = self.activatable()
        if ready:
            title = self.side(self.turn_seat, ready[0]).title
            raise RuleError("activate one card", f"a card must be activated when one is complete: {title} is")
        return self._end_turn()

    def _move_hand(self, move: Move) -> DerbyState:
        self._expect(move, "distribute")
        die = _read_die(move.get("die"))
        if die not in self.outgoing:
            raise RuleError("distribute", f"{_die_text(die)} is not among the dice to hand out")
        target = self.target()
        outgoing = _without(self.outgoing, die)
        if target is not None:
            problem = self.gift_problem(target, [die])
            if problem:
                raise RuleError("never give a player their own colour", problem)
        state = replace(self, outgoing=outgoing, hand_step=self.hand_step + 1)
        if target is None or die.colour == self.colour_of(target):
            state = replace(state, compost=tuple(sorted(self.compost + (die,))))
            return state if outgoing else state._end_turn()
        return replace(state, stage="receive", actor=target, pending=(die,))

    def _move_give(self, move: Move) -> DerbyState:
        self._expect(move, "give")
        seat = self.seat_of(move.get("to"))
        if seat == self.turn_seat:
            raise RuleError("give to one player", "give the dice to another player")
        problem = self.gift_problem(seat, self.outgoing)
        if problem:
            raise RuleError("never give a player their own colour", problem)
        colour = self.colour_of(seat)
        kept = tuple(d for d in self.outgoing if d.colour != colour)
        bounced = tuple(d for d in self.outgoing if d.colour == colour)
        state = replace(self, outgoing=(), compost=tuple(sorted(self.compost + bounced)))
        return replace(state, stage="receive", actor=seat, pending=kept) if kept else state._end_turn()

    def _move_keep_sides(self, move: Move) -> DerbyState:
        self._expect(move, "set_side")
        return replace(self, stage="lift")

    def _move_set_side(self, move: Move) -> DerbyState:
        self._expect(move, "set_side")
        seat, card = self.actor, self.rules.card_index(move.get("card"))
        keys = [s.key for s in self.rules.cards[card].sides]
        if move.get("side") not in keys:
            raise RuleError("set to any side", f"card {move.get('card')} has sides {', '.join(keys)}")
        if keys.index(move.get("side")) == self.boards[seat][card][0]:
            raise RuleError("set to any side", f"your {self.side(seat, card).title} already shows that side")
        dice = self.boards[seat][card][1]
        return replace(self, boards=self._with_card(seat, card, keys.index(move.get("side")), ()),
                       pending=tuple(sorted(self.pending + dice)), stage="lift")

    def _move_lift(self, move: Move) -> DerbyState:
        self._expect(move, "lift")
        seat, card = self.actor, self.rules.card_index(move.get("card"))
        die = _read_die(move.get("die"))
        side, dice = self.boards[seat][card]
        if die not in dice:
            raise RuleError("reassign", f"there is no {_die_text(die)} on your {self.side(seat, card).title}")
        return replace(self, boards=self._with_card(seat, card, side, _without(dice, die)),
                       pending=tuple(sorted(self.pending + (die,))))

    def _move_done_lifting(self, move: Move) -> DerbyState:
        self._expect(move, "lift")
        return replace(self, stage="reassign") if self.pending else self._end_turn()

    def _end_turn(self) -> DerbyState:
        done = replace(self, pending=(), outgoing=(), hand_step=0, actor=self.turn_seat)
        if self.dice_on_cards(self.turn_seat) == 0:
            return replace(done, stage="over", winner=self.turn_seat)
        ended_by = "stalemate" if done.stalemate() else "turn_cap" if self.turn >= self.rules.turn_cap else None
        if ended_by:
            fewest = min(range(len(self.players)), key=self.dice_on_cards)
            return replace(done, stage="over", winner=fewest, ended_by=ended_by)
        seat = (self.turn_seat + 1) % len(self.players)
        return replace(done, stage="choose_reroll", turn_seat=seat, actor=seat, turn=self.turn + 1)

    def stalemate(self) -> bool:
        """True when no player has as many dice as any of their cards needs: nobody can
        ever activate a card again, so no die can move and the game cannot end."""
        for seat, board in enumerate(self.boards):
            needed = [max(self.rules.cards[i].sides[side].required, 1) for i, (side, _) in enumerate(board)
                      if self.rules.cards[i].flips]
            if needed and self.dice_on_cards(seat) >= min(needed):
                return False
        return True

    # -- the table in player words (board panels) -------------------------------------------
    def step_words(self) -> str:
        """What happens now, as a sentence for the table."""
        name, stage = self.players[self.actor], self.stage
        if stage == "over":
            return f"{self.players[self.winner]} wins"
        if stage in ("setup_roll", "roll"):
            return f"{name} rolls {_dice(len(self.reroll))}"
        if stage == "activate" and not self.activatable():
            return f"{name} has no complete card: the turn ends"
        if stage == "distribute":
            target = self.target()
            whom = "the Compost" if target is None else self.players[target]
            return f"{name} hands out the dice one by one: the next goes to {whom}"
        return {
            "setup_place": f"{name} places their set-up dice on their cards",
            "choose_reroll": f"{name} re-rolls the dice on one card or all dice of one colour",
            "assign": f"{name} places the rolled dice",
            "receive": f"{name} places the dice they were given",
            "reassign": f"{name} places the lifted dice again",
            "activate": f"{name} activates a complete card",
            "give": f"{name} gives the dice to one player",
            "set_side": f"{name} may turn one card to its other side",
            "lift": f"{name} may lift dice off their cards to place them again",
        }[stage]

    def card_view(self, seat: int, card: int) -> dict:
        """One card of a player as the table shows it: the side up, what it takes, what it
        does, the dice on it and whether it could be activated.  ``card`` and
        ``other_side_key`` are the names moves use (never shown)."""
        spec, (side_index, dice) = self.rules.cards[card], self.boards[seat][card]
        side = spec.sides[side_index]
        count = (f"{side.required} or more dice" if not side.slots else f"{side.slots} dice"
                 if side.required == side.slots else f"{max(side.required, 1)} to {side.slots} dice")
        other = spec.sides[(side_index + 1) % len(spec.sides)] if spec.flips else None
        return {"card": spec.key, "title": side.title, "takes": f"{count}, {PATTERN_WORDS[side.pattern]}",
                "does": ACTION_WORDS[side.action], "dice": [die_words(d) for d in dice],
                "complete": side.action != "none" and self.can_activate(seat, card) is None,
                "other_side": other.title if other else None, "other_side_key": other.key if other else None}

    def board_view(self) -> dict:
        """The whole table for a board display, in player words: every player's cards with
        the dice on them, the dice in hand (to place), to hand out or to roll, and the
        Compost.  Dice are ``{"colour", "value", "text", "die"}``; ``die`` is how moves name
        it (never shown)."""
        scores = self.scores()
        players = [{"player": p, "colour": self.colour_of(i), "dice_on_cards": self.dice_on_cards(i),
                    "score": scores[p], "turn": i == self.turn_seat and self.stage != "over",
                    "acting": i == self.actor and self.stage != "over", "winner": i == self.winner,
                    "cards": [self.card_view(i, c) for c in range(len(self.rules.cards))]}
                   for i, p in enumerate(self.players)]
        target = self.target() if self.stage == "distribute" else None
        return {
            "step": self.step_words(), "stage": self.stage, "turn": self.turn,
            "player": self.current_player, "turn_player": self.players[self.turn_seat],
            "players": players, "hand": [die_words(d) for d in self.pending],
            "to_hand_out": [die_words(d) for d in self.outgoing],
            "next_receiver": None if self.stage != "distribute" else
            "the Compost" if target is None else self.players[target],
            "to_roll": list(self.reroll), "compost": [die_words(d) for d in self.compost],
        }

    def suggestion_words(self, suggestion: Suggestion) -> dict:
        """A suggestion as a headline (the move) and a short reason, in player words: short
        enough for three lines of a button, naming a player once."""
        move, figures = suggestion.move, suggestion.advice
        headline, reason = self.describe(move), suggestion.reason
        if move.kind == "reroll":
            reason = (f"about {figures['expected_give_now']:.1f} dice to give away now and "
                      f"{figures['expected_give_next']:.1f} ready for the next turn")
        elif move.kind == "activate":
            card = self.rules.card_index(move["card"])
            given = figures["give_now"]
            headline = f"activate your {self.side(self.turn_seat, card).title}"
            reason = (f"gives away {_dice(given)} now: {ACTION_WORDS[self.side(self.turn_seat, card).action]}"
                      if given else "nothing given away now; sets up your cards")
        elif move.kind == "hand" and figures.get("to") not in (None, "Compost"):
            reason = reason.replace(f"help {figures['to']}", "help them").replace(
                "your own colour can never come back to you", "your own colour never comes back")
        elif move.kind == "give":
            headline = self._give_text(move["to"])
            reason = f"they keep {figures['received']} and have {_dice(figures['their_dice'])} on their cards"
        return {"headline": headline[:1].upper() + headline[1:], "reason": reason[:1].upper() + reason[1:]}

    def placement_plan(self) -> Move | None:
        """The advice's place for every die in hand, as one move (None when no die is to be
        placed): the best-ranked placement of one die, then of the next, and so on."""
        if self.stage not in PLACING or not self.pending:
            return None
        state, placements = self, []
        while state.stage == self.stage and state.actor == self.actor and state.pending:
            best = next(s.move for s in advise(state) if s.move.kind == "place")
            placements.append([best["die"], best["card"]])
            state = state._move_place(best)
        return Move.make("place", placements=placements)

    # -- scores, alerts, text ---------------------------------------------------------------
    def score_breakdown(self) -> dict[str, dict[str, int]]:
        """Fewer dice is better: each player scores minus the dice on their cards."""
        return {p: {"dice on cards": -self.dice_on_cards(i)} for i, p in enumerate(self.players)}

    def winners(self) -> list[str]:
        if self.winner is not None:
            return [self.players[self.winner]]
        return super().winners()

    def alerts(self) -> list[Alert]:
        alerts = []
        if self.stage == "over":
            name = self.players[self.winner]
            fewest = f"{name} wins with the fewest dice on their cards ({self.dice_on_cards(self.winner)})"
            if self.ended_by == "turn_cap":
                alerts.append(Alert("turn_cap", f"no winner after {self.turn} turns (turn cap): {fewest}",
                                    "warning", (name,)))
            elif self.ended_by == "stalemate":
                alerts.append(Alert("stalemate", f"no player has dice enough to complete a card, so no die can "
                                    f"move again: {fewest}", "warning", (name,)))
            else:
                alerts.append(Alert("game_over", f"{name} has no dice left on their cards and wins", "info", (name,)))
            return alerts
        if self.unconfirmed:
            groups: dict[tuple, list[str]] = {}
            for die, read in self.unconfirmed:
                groups.setdefault((die.colour, read), []).append(str(die.value))
            parts = [f"{and_list(values)} taken as {colour} "
                     + (f"(read as {read}, a colour nobody plays)" if read else "(colour not read)")
                     for (colour, read), values in groups.items()]
            alerts.append(Alert("confirm_colour", f"check the colours of the rolled dice: {'; '.join(parts)}",
                                "warning", (self.players[self.actor],)))
        if self.stage == "receive":
            alerts.append(Alert("gift", f"{self.players[self.actor]} was given "
                                f"{', '.join(map(_die_text, self.pending))}: place it now", "info",
                                (self.players[self.actor],)))
        if self.stage == "activate" and not self.activatable():
            alerts.append(Alert("no_activation", "no card is complete: the turn ends without an action", "info",
                                (self.players[self.actor],)))
        return alerts

    def describe(self, move: Move) -> str:
        seat, kind = self.actor, move.kind
        try:
            card = self.rules.card_index(move.get("card")) if move.get("card") is not None else None
            die = _read_die(move.get("die")) if move.get("die") is not None else None
        except (RuleError, UserError):
            return f"{kind} (not a legal move here)"
        title = self.side(seat, card).title if card is not None else ""
        if kind == "reroll":
            if card is not None:
                return f"re-roll {_dice(len(self.boards[seat][card][1]))} on your {title}"
            colour = move.get("colour")
            count = sum(d.colour == colour for _, dice in self.boards[seat] for d in dice)
            return f"re-roll your {count} {colour} dice"
        if kind == "place" and move.get("placements") is not None and die is None:
            return self._placements_text(move.get("placements"))
        if kind == "place":
            text = f"put {_die_text(die)} on {title}"
            if any(d == die for d, _ in self.unconfirmed):
                text += f" (colour not certain: confirm it is {die.colour})"
            return text
        if kind == "activate":
            side = self.side(seat, card)
            count = len(self.boards[seat][card][1])
            doing = {"distribute": "hand them out clockwise", "give": "give them to one player",
                     "reassign": "set a card's side and reassign dice"}[side.action]
            return f"activate {title} ({count} dice): {doing}"
        if kind == "hand":
            target = self.target()
            if target is None:
                return f"put {_die_text(die)} on the Compost"
            if die.colour == self.colour_of(target):
                return f"{_die_text(die)} bounces off {self.players[target]} to the Compost"
            return f"hand {_die_text(die)} to {self.players[target]}"
        if kind == "give":
            return self._give_text(move.get("to"))
        if kind == "set_side":
            side = next((s for s in self.rules.cards[card].sides if s.key == move.get("side")), None)
            return f"set your {title} card to {side.title if side else move.get('side')}"
        if kind == "lift":
            return f"lift {_die_text(die)} off your {title} to reassign it"
        return {"end_turn": "end the turn (no card is complete)", "keep_sides": "keep every card's side",
                "done_lifting": "lift no more dice"}.get(kind, kind)

    def _give_text(self, to: Any) -> str:
        """Where the dice given to ``to`` go: to that player, or bounced off them to the Compost
        when they are that player's colour."""
        own = self.colour_of(self.players.index(to)) if to in self.players else None
        kept = [_die_text(d) for d in self.outgoing if d.colour != own]
        bounced = [_die_text(d) for d in self.outgoing if d.colour == own]
        verb = "bounces" if len(bounced) == 1 else "bounce"
        if not kept:
            return f"{and_list(bounced)} {verb} off {to} to the Compost (their own colour)"
        return f"give {and_list(kept)} to {to}" + (f"; {and_list(bounced)} {verb} off to the Compost" if bounced else "")

    def _placements_text(self, placements: Any) -> str:
        """Several placements in one line: "put red 3 and red 4 on A Run, blue 6 on Stove"."""
        by_card: dict[str, list[str]] = {}
        try:
            for die, card in placements:
                title = self.side(self.actor, self.rules.card_index(card)).title
                by_card.setdefault(title, []).append(_die_text(_read_die(die)))
        except (RuleError, UserError, TypeError, ValueError):
            return "place (not a legal move here)"
        parts = [f"{', '.join(dice[:-1])} and {dice[-1]}" if len(dice) > 1 else dice[0] for dice in by_card.values()]
        return "put " + ", ".join(f"{dice} on {title}" for dice, title in zip(parts, by_card))

    def to_json(self) -> dict:
        return {
            "game": self.game.name,
            "players": list(self.players),
            "options": dict(self.options),
            "stage": self.stage,
            "turn": self.turn,
            "turn_player": self.players[self.turn_seat],
            "actor": self.players[self.actor],
            "boards": [{card.key: {"side": card.sides[side].key, "dice": [str(d) for d in dice]}
                        for card, (side, dice) in zip(self.rules.cards, board)} for board in self.boards],
            "compost": [str(d) for d in self.compost],
            "pending": [str(d) for d in self.pending],
            "outgoing": [str(d) for d in self.outgoing],
            "hand_step": self.hand_step,
            "reroll": list(self.reroll),
            "unconfirmed": [{"die": str(d), "read": read} for d, read in self.unconfirmed],
            "winner": None if self.winner is None else self.players[self.winner],
            "ended_by": self.ended_by,
        }


# -- the game -----------------------------------------------------------------------------


class WhirlingDerby(Game):
    name = "whirling-derby"
    title = "Whirling Derby"
    min_players = 2
    max_players = 4
    readings = tuple(_read_toml(DATA_FILE).get("readings", ()))
    options = (
        Option("colours", "red,blue,green,yellow",
               "the players' dice colours by seat, as the camera names them (comma separated, four)"),
        Option("neutral_colour", "white", "the colour of the neutral dice of a two-player game"),
        Option("card_data", "", "a TOML file overriding the card data (sides, patterns, actions; see "
               "companion/games/whirling_derby.toml); empty: our reading of the rules; a saved game keeps "
               "the complete card data here as a JSON object"),
        Option("turn_cap", 400, "house rule against endless games: after this many turns in all, the "
               "player with the fewest dice on their cards wins (earlier seat on a tie); the same decides "
               "a stalemate, where nobody has dice enough to complete any card"),
    )

    def self_contained_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Resolved ``options`` with ``card_data`` replaced by the complete card data it names
        (as JSON), so a saved game depends on no file, not even this version's built-in data."""
        self.rules_for(options)   # bad card data is refused here, before anything is kept
        data = complete_card_data(options["card_data"])
        data.pop("readings", None)   # words for `companion games`, not rules a replay needs
        return {**options, "card_data": json.dumps(data, sort_keys=True, default=str)}

    def rules_for(self, options: Mapping[str, Any]) -> Rules:
        return load_rules(options["card_data"], options["colours"], options["neutral_colour"], options["turn_cap"])

    def new_game(self, players: Sequence[str], options: Mapping[str, Any] | None = None,
                 seed: int = 0) -> DerbyState:
        """A new game; the seed is unused (nothing is shuffled).  The seats after the first
        roll and place their dice first; then the first player's turn starts by rolling all
        of theirs (they have none on cards to choose from)."""
        players = self.check_players(players)
        resolved = self.resolve_options(options)
        rules = self.rules_for(resolved)
        starting = rules.starting_dice(len(players))
        empty = tuple((0, ()) for _ in rules.cards)
        return DerbyState(self, rules, tuple(sorted(resolved.items())), players, (empty,) * len(players), (),
                          "setup_roll", 0, 1, reroll=tuple(sorted(starting[1].elements())))

    def state_from_json(self, data: Mapping) -> DerbyState:
        if not isinstance(data, Mapping) or data.get("game") != self.name:
            raise UserError(f"not a {self.title} state (it must be an object with \"game\": \"{self.name}\")")
        try:
            players = self.check_players(list(data["players"]))
            resolved = self.resolve_options(data.get("options") or {})
            rules = self.rules_for(resolved)

            def dice(items: Any) -> tuple[Die, ...]:
                if not isinstance(items, list):
                    raise TypeError("dice are a list")
                return tuple(sorted(_read_die(t) for t in items))

            boards = []
            for board in data["boards"]:
                cards = []
                for spec in rules.cards:
                    keys = [s.key for s in spec.sides]
                    cards.append((keys.index(board[spec.key]["side"]), dice(board[spec.key]["dice"])))
                boards.append(tuple(cards))
            stages = ("setup_roll", "choose_reroll", "roll", "activate", "distribute", "give", "set_side", "lift",
                      "over") + PLACING
            if data["stage"] not in stages or len(boards) != len(players) \
                    or data.get("ended_by") not in (None, "stalemate", "turn_cap"):
                raise ValueError("unknown stage or end, or wrong number of boards")
            winner = data.get("winner")
            state = DerbyState(
                self, rules, tuple(sorted(resolved.items())), players, tuple(boards), dice(data["compost"]),
                data["stage"], players.index(data["turn_player"]), players.index(data["actor"]),
                dice(data["pending"]), dice(data["outgoing"]), int(data["hand_step"]),
                tuple(str(c) for c in data["reroll"]),
                tuple((_read_die(u["die"]), u.get("read")) for u in data["unconfirmed"]),
                int(data["turn"]), None if winner is None else players.index(winner), data.get("ended_by"))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise UserError(f"not a {self.title} state: {exc!r}") from exc
        if state.dice_by_colour() != state.starting_totals():
            raise UserError(f"not a {self.title} state: the dice do not add up to the starting dice")
        for seat in range(len(players)):
            for card, (_, on) in enumerate(state.boards[seat]):
                for i, die in enumerate(on):
                    values = [d.value for d in on[:i]]
                    if placement_problem(state.side(seat, card), values, die.value, rules.four_equal_is_two_pairs):
                        raise UserError(f"not a {self.title} state: {players[seat]}'s "
                                        f"{state.side(seat, card).title} breaks its pattern")
        return state

    def forget_positions(self) -> None:
        from companion.games.whirling_derby_advice import forget
        best_additions.cache_clear()
        _best_plan.cache_clear()
        forget()

    def advise(self, state: GameState) -> list[Suggestion]:
        return advise(state)

    def describe(self) -> dict:
        info = super().describe()
        rules = load_rules()
        info["cards"] = [{"card": c.key, "sides": [{"key": s.key, "title": s.title, "pattern": s.pattern,
                                                    "required": s.required, "slots": s.slots, "action": s.action}
                                                   for s in c.sides]} for c in rules.cards]
        return info


# -- advice -------------------------------------------------------------------------------

# The advice itself works on the compact simulator's states
# (companion/games/whirling_derby_advice.py); here it is put in player words.

@dataclass(frozen=True)
class Plan:
    """The best split of a player's dice in hand over their cards that the planner found:
    ``now`` dice the best complete card gives away (on ``best_card``), ``ready`` dice on the
    other complete cards (they can go next turn), ``can_act`` whether any card, a reassign
    side included, is complete, ``loose`` dice left on incomplete cards, and ``adds`` the
    values of the hand it puts on each card (pairs of card index and values)."""

    now: int
    best_card: int | None
    ready: int
    can_act: bool
    loose: int
    adds: tuple[tuple[int, tuple[int, ...]], ...] = ()

    def key(self, on_turn: bool) -> tuple:
        if on_turn:
            return self.now, self.can_act, self.ready, -self.loose
        return self.now + self.ready, self.can_act, -self.loose


@lru_cache(maxsize=1 << 15)
def _best_plan(layout: tuple, hand: tuple[int, ...], on_turn: bool, four: bool) -> Plan:
    """Fill the cards of ``layout`` from ``hand`` one card after another, each as full as it
    can be completed, trying every order of the cards; the rest of the hand goes to the Stove.
    A card that takes nothing from the whole hand takes nothing from part of it either, so
    only the orders of the cards that take dice are tried."""
    fixed_gives, fixed_placed, fixed_act, fixed_loose, active = [], [], False, 0, []
    for i, side, values in layout:
        adds = best_additions(side, values, hand, four)
        if adds is None:
            fixed_loose += len(values)
        elif adds and hand:
            active.append((i, side, values))
        else:
            fixed_act = True
            fixed_placed.append((i, ()))
            if side.action != "reassign":
                fixed_gives.append((len(values), i))
    best_key, best = None, None
    for order in permutations(active):
        left = list(hand)
        gives, can_act, loose, placed = list(fixed_gives), fixed_act, fixed_loose, list(fixed_placed)
        for i, side, values in order:
            adds = best_additions(side, values, tuple(left), four)
            if adds is None:
                loose += len(values)
                continue
            for value in adds:
                left.remove(value)
            can_act = True
            placed.append((i, adds))
            if side.action != "reassign":
                gives.append((len(values) + len(adds), i))
        now, card = max(gives, default=(0, None))
        ready = sum(count for count, _ in gives) - now
        key = (now, can_act, ready, -loose) if on_turn else (now + ready, can_act, -loose)
        if best_key is None or key > best_key:
            best_key, best = key, Plan(now, card, ready, can_act, loose, tuple(placed))
    return best


def _dice(count: int) -> str:
    return f"{count} die" if count == 1 else f"{count} dice"


def next_turn_words(best: str | None, now: int, ready: int) -> str:
    """What a plan gives on the player's next turn, where one card is activated: its best card's
    dice, and the dice waiting on other complete cards for the turns after."""
    if not now:
        return "no card would be complete for your next turn"
    later = f"; {ready} more on other complete cards" if ready else ""
    return f"your {best} could then give away {_dice(now)} on your next turn{later}"


def _reason(state: DerbyState, move: Move, figures: dict) -> tuple[dict, str]:
    """The figures of the advice's rating of ``move`` for the table, and its reason."""
    kind, seat = move.kind, state.actor
    if kind == "reroll":
        reason = (f"re-rolls {_dice(figures['rolled'])}: about {figures['expected_give_now']:.1f} to give away now "
                  f"and {figures['expected_give_next']:.1f} ready for next turn")
        if figures["win_chance"]:
            reason += f"; {percent_words(figures['win_chance'])} chance to clear your cards this turn"
        return figures, reason
    if kind == "place":
        card = figures.pop("best_card")
        target = state.side(seat, card).title if card is not None else None
        if state.stage == "assign":
            now = (f"{target} can give away {_dice(figures['give_now'])} now" if figures["give_now"] else
                   "lets you activate a card to reset your sides" if figures["can_act"] else
                   "no card can be activated this turn")
            return figures, f"{now}; {_dice(figures['give_next'])} more in complete cards for next turn"
        return figures, next_turn_words(target, figures["best_next"], figures["give_next"] - figures["best_next"])
    if kind == "activate":
        given = figures["give_now"]
        if figures["wins"]:
            return figures, f"gives away your last {_dice(given)}: you win"
        return figures, f"gives away {_dice(given)} now" if given else "gives nothing away now, but lets you set up your cards"
    if kind == "hand":
        die, target = _read_die(move["die"]), state.target()
        mine, neutral = state.colour_of(state.turn_seat), die.colour not in state.rules.colours[:len(state.players)]
        if target is None:
            reason = ("your own colour is better handed out: it can never come back to you" if die.colour == mine else
                      "a neutral die" if neutral else "composts another player's colour, keeping yours to hand out")
            return {"to": "Compost"}, reason
        name = state.players[target]
        if figures.get("bounces"):
            return {"to": "Compost"}, "bounces to the Compost: nothing else is left"
        kind_words = ("your own colour can never come back to you" if die.colour == mine else
                      "a neutral die" if neutral else "another player's colour")
        helps = figures["helps_them"]
        effect = f"it could add {helps} to their best card" if helps > 0 else f"it does not help {name}"
        back = figures["comes_back"]
        returns = f"; they may hand it back to you ({percent_words(back)})" if back > 0 else ""
        return {**figures, "to": name}, f"{kind_words}; {effect}{returns}"
    if kind == "give":
        return {**figures, "to": move["to"]}, (f"{move['to']} keeps {figures['received']} of the dice and has "
                                               f"{_dice(figures['their_dice'])} on their cards")
    if kind in ("set_side", "keep_sides"):
        card = figures.pop("best_card")
        if kind == "set_side" and card is not None and state.rules.cards[card].key == move["card"]:
            title = next(side.title for side in state.rules.cards[card].sides if side.key == move["side"])
        else:
            title = state.side(seat, card).title if card is not None else None
        return figures, next_turn_words(title, figures["best_next"], figures["give_next"] - figures["best_next"])
    if kind == "done_lifting":
        return figures, "keep the other dice where they are"
    return figures, {2: "it would grow one of your cards without a re-roll",
                     1: "keep the other dice where they are"}.get(figures["rank"], "it fits no card better than where it is")


def advise(state: DerbyState) -> list[Suggestion]:
    """Every legal move, best first: the move the tournaments' player
    (:func:`companion.games.whirling_derby_advice.policy`) makes on the simulator's copy of
    ``state``, then the others as :func:`~companion.games.whirling_derby_advice.rate` rates
    them (equal ones in legal-move order)."""
    from companion.games.whirling_derby_advice import policy, rate
    from companion.games.whirling_derby_sim import Bridge

    if state.is_terminal() or state.dice_to_roll() is not None:
        return []
    moves = state.legal_moves()
    if [m.kind for m in moves] == ["end_turn"]:
        return [Suggestion(moves[0], state.describe(moves[0]), {}, "no card is complete")]
    bridge = Bridge(state)
    mirror = bridge.state(state)
    chosen = bridge.engine_move(policy(bridge.sim, mirror, None))
    ranked = []
    for move in moves:
        key, figures = rate(bridge.sim, mirror, bridge.move(move))
        figures, reason = _reason(state, move, dict(figures))
        ranked.append(((move == chosen, key), Suggestion(move, state.describe(move), figures, reason)))
    ranked.sort(key=lambda pair: pair[0], reverse=True)
    return [suggestion for _, suggestion in ranked]


GAME = WhirlingDerby()
