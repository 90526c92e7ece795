"""DYCE (Nicholas Hjelmberg, 1-4 players): place shops in a small city, stock them with
whisky, and let four whisky barons walk to them to buy natural whisky or sell blends.

The market is sixteen dice, four per baron (orange, green, purple, black); the first die of
a baron's line says which whisky it wants (its colour) and at what price (its value).  Every
die drawn from the bag is a chance node: the camera's reading (or a seeded draw from the bag)
gives its colour and value, and the companion says where it goes and which way up.

A round: the player round (1-2 actions a turn, or pass by putting your seal on the castle),
then the baron round (each baron in turn moves one space by the four-step priority and
trades if it stands at a target shop), then the white round die goes up if a blended die went
back to the bag.  The game ends after a round in which it could not go up.

All numbers and our readings where the rule text is silent are in ``dyce.toml``; the rules
options (where a new die goes, the white die's start, a round cap) are :class:`Option`s.
Spaces are named by column letter and row number, ``A1`` in the north-west corner.
The advice lives in ``dyce_advice``.
"""
from __future__ import annotations

import random
import tomllib
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from companion.engine import Alert, DiceRequest, Die, Game, GameState, Move, Option, Suggestion
from companion.errors import RuleError, UserError

DATA = tomllib.loads(Path(__file__).with_suffix(".toml").read_text(encoding="utf-8"))

Cell = tuple[int, int]
SIDES = ("north", "east", "south", "west")
PLACEMENTS = ("baron_line", "market_end")
ACTION_KINDS = ("shop", "whisky", "pound")
STOP_KINDS = ("pass", "take_pound", "end_turn")


# -- rules data ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """DYCE's rules data with the city's geometry worked out once."""

    natural: tuple[str, ...]
    blended: tuple[str, ...]
    cubes: Mapping[str, int]
    dice: Mapping[str, int]
    blends: Mapping[str, tuple[str, ...]]
    blend_vp: Mapping[str, int]
    blend_source: Mapping[str, str]
    barons: tuple[str, ...]
    line_length: int
    size: int
    castle: frozenset[Cell]
    gates: Mapping[str, str]
    start_pounds: int
    shops: int
    shop_cost: int
    pass_pounds: int
    actions_per_turn: int
    white_start: int
    white_top: int
    score: Mapping[str, int]
    new_die_place: str
    round_cap: int
    spaces: tuple[Cell, ...]
    distance: Mapping[tuple[Cell, Cell], int]
    neighbours: Mapping[Cell, tuple[Cell, ...]]
    castle_centre: tuple[float, float]
    sides: tuple[tuple[Cell, ...], ...]                 # per baron: the spaces of its side
    gate_distance: Mapping[tuple[int, Cell], int]       # (baron, space): moves from its gate

    @property
    def whiskies(self) -> tuple[str, ...]:
        return self.natural + self.blended

    def gate_point(self, baron: int) -> tuple[float, float]:
        mid = (self.size - 1) / 2
        return {"north": (-1, mid), "south": (self.size, mid), "west": (mid, -1),
                "east": (mid, self.size)}[self.gates[self.barons[baron]]]

    def steps(self, baron: int, at: Cell | None, to: Cell) -> int:
        """Moves a baron at ``at`` (None: its gate) needs to stand on ``to``."""
        return self.gate_distance[baron, to] if at is None else self.distance[at, to]

    def orient(self, colour: str, rolled: int) -> int:
        """The value a die shows once turned: naturals 1-3, blends 4-6 [rule]."""
        low = colour in self.natural
        return rolled if (rolled <= 3) == low else 7 - rolled

    def line_rank(self, colour: str) -> int:
        return 0 if colour in self.natural else 2 if colour == "black" else 1


def _geometry(size: int, castle: frozenset[Cell]):
    spaces = tuple((r, c) for r in range(size) for c in range(size) if (r, c) not in castle)
    neighbours = {}
    for r, c in spaces:
        neighbours[r, c] = tuple(n for n in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)) if n in spaces)
    distance = {}
    for start in spaces:
        seen, queue = {start: 0}, deque([start])
        while queue:
            here = queue.popleft()
            for n in neighbours[here]:
                if n not in seen:
                    seen[n] = seen[here] + 1
                    queue.append(n)
        for cell in spaces:
            if cell not in seen:
                raise UserError("DYCE city: the castle must not cut the city in two")
            distance[start, cell] = seen[cell]
    centre = (sum(r for r, _ in castle) / len(castle), sum(c for _, c in castle) / len(castle))
    return spaces, distance, neighbours, centre


def _sides(size: int, castle: frozenset[Cell], gates: Mapping[str, str], barons: Sequence[str]):
    last = size - 1
    lines = {"north": [(0, c) for c in range(size)], "south": [(last, c) for c in range(size)],
             "west": [(r, 0) for r in range(size)], "east": [(r, last) for r in range(size)]}
    return tuple(tuple(cell for cell in lines[gates[b]] if cell not in castle) for b in barons)


@cache
def load_rules(new_die_place: str = "baron_line", white_start: int = 1, round_cap: int = 30) -> Rules:
    """The rules from ``dyce.toml`` with the options given."""
    try:
        size = int(DATA["city"]["size"])
        castle = frozenset((int(r), int(c)) for r, c in DATA["city"]["castle"])
        if size < 3 or not castle or any(not (0 < r < size - 1 and 0 < c < size - 1) for r, c in castle):
            raise ValueError("the castle stands inside the city, off its edges")
        gates = {b: DATA["city"]["gates"][b] for b in DATA["market"]["barons"]}
        if sorted(gates.values()) != sorted(SIDES):
            raise ValueError("each baron has its own side")
        spaces, distance, neighbours, centre = _geometry(size, castle)
        barons = tuple(DATA["market"]["barons"])
        sides = _sides(size, castle, gates, barons)
        gate_distance = {(b, cell): 1 + min(distance[s, cell] for s in sides[b])
                         for b in range(len(barons)) for cell in spaces}
        blends = DATA["blends"]
        white_top = int(DATA["round_die"]["top"])
        if not 1 <= white_start <= white_top:
            raise UserError(f"option white_die_start: 1 to {white_top}")
        return Rules(
            natural=tuple(DATA["whiskies"]["natural"]), blended=tuple(DATA["whiskies"]["blended"]),
            cubes=dict(DATA["cubes"]), dice=dict(DATA["dice"]),
            blends={k: tuple(v["naturals"]) for k, v in blends.items()},
            blend_vp={k: int(v["vp"]) for k, v in blends.items()},
            blend_source={k: str(v["source"]) for k, v in blends.items()},
            barons=barons, line_length=int(DATA["market"]["line_length"]),
            size=size, castle=castle, gates=gates,
            start_pounds=int(DATA["players"]["start_pounds"]), shops=int(DATA["players"]["shops"]),
            shop_cost=int(DATA["players"]["shop_cost"]), pass_pounds=int(DATA["players"]["pass_pounds"]),
            actions_per_turn=int(DATA["players"]["actions_per_turn"]),
            white_start=white_start, white_top=white_top, score=dict(DATA["score"]),
            new_die_place=new_die_place, round_cap=round_cap,
            spaces=spaces, distance=distance, neighbours=neighbours, castle_centre=centre,
            sides=sides, gate_distance=gate_distance)
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"bad DYCE rules data: {exc}") from exc


# -- spaces -------------------------------------------------------------------------------


def space_name(cell: Cell) -> str:
    return f"{chr(ord('A') + cell[1])}{cell[0] + 1}"


def parse_space(rules: Rules, text: Any) -> Cell:
    """``"B4"`` (any case) as a cell; RuleError if it is not a space of the city."""
    name = str(text).strip().upper()
    if len(name) >= 2 and name[0].isalpha() and name[1:].isdigit():
        cell = (int(name[1:]) - 1, ord(name[0]) - ord("A"))
        if cell in rules.castle:
            raise RuleError("the castle", f"{name} is the castle: nothing stands there")
        if cell in rules.spaces:
            return cell
    last = space_name((rules.size - 1, rules.size - 1))
    raise RuleError("city spaces", f"{text!r} is not a space of the city (A1 to {last})")


# -- the table: the mutable working copy the engine and the advice both play on --------------


@dataclass
class Shop:
    owner: int
    whisky: str | None = None
    pounds: int = 0


@dataclass
class Table:
    """Everything the barons act on, mutable: the engine's transitions and the advice's
    forecasts both run the barons on a table, so both use the very same code."""

    shops: dict[Cell, Shop]
    barons: list[Cell | None]
    market: list[list[tuple[str, int] | Any]]
    pounds: list[int]
    cubes: list[Counter]
    vps: list[int]
    shops_in_hand: list[int]
    sold: list[set]
    blended_returned: bool = False

    def copy(self) -> Table:
        return Table({k: Shop(s.owner, s.whisky, s.pounds) for k, s in self.shops.items()}, list(self.barons),
                     [list(line) for line in self.market], list(self.pounds), [Counter(c) for c in self.cubes],
                     list(self.vps), list(self.shops_in_hand), [set(s) for s in self.sold], self.blended_returned)

    def supply(self, rules: Rules, colour: str) -> int:
        held = sum(c[colour] for c in self.cubes) + sum(s.whisky == colour for s in self.shops.values())
        return rules.cubes[colour] - held

    def score_parts(self, rules: Rules, seat: int) -> dict[str, int]:
        on_shops = sum(s.pounds for s in self.shops.values() if s.owner == seat)
        return {"pounds": (self.pounds[seat] + on_shops) * rules.score["pound"],
                "whiskies": sum(self.cubes[seat].values()) * rules.score["whisky_in_hand"],
                "VPs": self.vps[seat] * rules.score["vp"]}


@dataclass(frozen=True)
class BaronReport:
    """What one baron did in its turn of the baron round (``text`` says it in player words)."""

    baron: str
    target: str | None           # the colour of its line's first die
    price: int
    start: Cell | None           # None: at its gate
    end: Cell | None
    reason: str
    shop: Cell | None = None     # the target shop it stands at after moving
    owner: int | None = None
    trade: str | None = None     # "buy", "sell" or None (no trade)
    completed: bool = False      # the trade was done (else the shop went back to the hand)
    returns_die: bool = False
    left: int = 0                # moves still to go to the nearest target shop
    vp: int = 0                  # VPs the sale gave

    def text(self, players: Sequence[str]) -> str:
        wants = f"the {self.baron} baron wants {self.target} at {self.price}"
        if self.returns_die and self.trade is None:
            return f"{wants}: no shop has it, the die goes back to the bag"
        where = "stays" if self.end == self.start else f"moves to {space_name(self.end)}"
        if self.trade is None:
            return f"{wants}: {where} ({self.reason}), {self.left} more to go"
        who = players[self.owner]
        pounds = f"{self.price} pound{'s' if self.price != 1 else ''}"
        if not self.completed:
            what = f"{who} cannot {'pay' if self.trade == 'buy' else 'blend'}: the shop goes back to {who}'s hand"
        elif self.trade == "buy":
            what = f"{who} buys the {self.target} whisky for {pounds}"
        else:
            what = f"{who} sells the {self.target} whisky for {pounds}" + (f" and {self.vp} VP" if self.vp else "")
        return f"{wants}: {where} to {who}'s shop at {space_name(self.shop)}; {what}"

    def to_json(self, players: Sequence[str]) -> dict:
        return {"baron": self.baron, "target": self.target, "price": self.price,
                "from": None if self.start is None else space_name(self.start),
                "to": None if self.end is None else space_name(self.end), "reason": self.reason,
                "shop": None if self.shop is None else space_name(self.shop),
                "owner": None if self.owner is None else players[self.owner], "trade": self.trade,
                "completed": self.completed, "returns_die": self.returns_die, "left": self.left, "vp": self.vp, "text": self.text(players)}


def choose_step(rules: Rules, baron: int, at: Cell | None, targets: Sequence[tuple[Cell, int]]
                ) -> tuple[Cell | None, str]:
    """Where the baron steps next toward ``targets`` (space, pounds there) and why.

    The rule's priority: closer to a target shop; closer to the nearest target shop with the
    most pounds; closer to the castle; clockwise (left when facing the castle).  No step when
    there is no target or the baron already stands at one."""
    if not targets:
        return None, "no shop holds that whisky"
    if at is not None and any(cell == at for cell, _ in targets):
        return None, "already at a target shop"
    near = min(rules.steps(baron, at, cell) for cell, _ in targets)
    nearest = [(cell, pounds) for cell, pounds in targets if rules.steps(baron, at, cell) == near]
    options = rules.sides[baron] if at is None else rules.neighbours[at]
    closer = [o for o in options if min(rules.distance[o, cell] for cell, _ in nearest) == near - 1]
    reason = "closer to the target shop"
    if len(closer) > 1:
        richest = max(pounds for _, pounds in nearest)
        rich = [cell for cell, pounds in nearest if pounds == richest]
        toward = [o for o in closer if min(rules.distance[o, cell] for cell in rich) == near - 1]
        if len(toward) < len(closer):
            closer, reason = toward, "closer to the target shop with the most pounds"
    if len(closer) > 1:
        cr, cc = rules.castle_centre
        best = min((o[0] - cr) ** 2 + (o[1] - cc) ** 2 for o in closer)
        nearer = [o for o in closer if (o[0] - cr) ** 2 + (o[1] - cc) ** 2 == best]
        if len(nearer) < len(closer):
            closer, reason = nearer, "closer to the castle"
    if len(closer) > 1:
        pr, pc = rules.gate_point(baron) if at is None else at
        cr, cc = rules.castle_centre

        def turn(o: Cell) -> float:    # > 0: clockwise round the castle, seen from above
            return (pc - cc) * (o[0] - pr) - (pr - cr) * (o[1] - pc)
        best = max(turn(o) for o in closer)
        closer, reason = sorted(o for o in closer if turn(o) == best), "clockwise round the castle"
    return closer[0], reason


def baron_turn(rules: Rules, table: Table, baron: int, solo: bool) -> BaronReport:
    """Move baron ``baron`` one space and let it trade, on ``table``; the first die of its
    line leaves the market when the trade is done or there was no target (the caller draws
    the new die).  The market's first die must be known here."""
    name = rules.barons[baron]
    colour, price = table.market[baron][0]
    targets = [(cell, shop.pounds) for cell, shop in table.shops.items() if shop.whisky == colour]
    start = table.barons[baron]
    step, reason = choose_step(rules, baron, start, targets)
    if step is not None:
        table.barons[baron] = step
    end = table.barons[baron]
    if not targets:
        take_front_die(rules, table, baron)
        return BaronReport(name, colour, price, start, end, reason, returns_die=True)
    shop = table.shops.get(end)
    if shop is None or shop.whisky != colour:
        left = min(rules.steps(baron, end, cell) for cell, _ in targets)
        return BaronReport(name, colour, price, start, end, reason, left=left)
    owner = shop.owner
    trade, done = settle_trade(rules, table, end, price, solo)
    if done:
        take_front_die(rules, table, baron)
    vp = rules.blend_vp[colour] if trade == "sell" and not solo else 0
    return BaronReport(name, colour, price, start, end, reason, end, owner, trade, done, done, 0, vp)


def settle_trade(rules: Rules, table: Table, cell: Cell, price: int, solo: bool) -> tuple[str, bool]:
    """The trade at the shop on ``cell``: ("buy" | "sell", completed).  A trade the owner
    cannot complete sends the shop back to the hand and its cubes to the supply."""
    shop = table.shops[cell]
    seat, colour = shop.owner, shop.whisky
    kind = "buy" if colour in rules.natural else "sell"
    hand = table.cubes[seat]
    if kind == "buy":
        done = table.pounds[seat] >= price
        if done:
            table.pounds[seat] -= price
            hand[colour] += 1
    else:
        need = Counter(rules.blends[colour])
        done = all(hand[c] >= n for c, n in need.items())
        if done:
            hand.subtract(need)
            table.pounds[seat] += price
            table.sold[seat].add(colour)
            if solo:
                hand[colour] += 1
            else:
                table.vps[seat] += rules.blend_vp[colour]
    for c in [c for c, n in hand.items() if n <= 0]:
        del hand[c]
    if done:
        shop.whisky, shop.pounds = None, 0
    else:
        del table.shops[cell]
        table.shops_in_hand[seat] += 1
    return kind, done


def take_front_die(rules: Rules, table: Table, baron: int) -> None:
    """The first die of ``baron``'s line goes back to the bag; with the ``market_end``
    placement every later die moves one place forward through the later lines."""
    colour, _ = table.market[baron].pop(0)
    if colour in rules.blended:
        table.blended_returned = True
    if rules.new_die_place == "market_end":
        for line in range(baron + 1, len(table.market)):
            table.market[line - 1].append(table.market[line].pop(0))


def new_die_line(rules: Rules, baron: int) -> int:
    """The line a die drawn after ``baron``'s trade goes to (at its end)."""
    return baron if rules.new_die_place == "baron_line" else len(rules.barons) - 1


# -- the state ----------------------------------------------------------------------------

ShopRecord = tuple[Cell, int, str | None, int]      # space, owner seat, whisky, pounds


@dataclass(frozen=True)
class Placement:
    """Where the last drawn die went: shown as "goes to the purple baron, turned to 5"."""

    colour: str
    rolled: int
    value: int
    baron: str
    place: int          # 1-based place in that baron's line

    @property
    def text(self) -> str:
        turn = f"turned to {self.value}" if self.value != self.rolled else f"showing {self.value}"
        return f"the {self.colour} die goes to the {self.baron} baron (place {self.place} of its line), {turn}"

    def to_json(self) -> dict:
        return {"colour": self.colour, "rolled": self.rolled, "value": self.value, "baron": self.baron,
                "place": self.place, "text": self.text}


@dataclass(frozen=True)
class DyceState(GameState):
    """A DYCE position.  ``stage``: ``cubes`` (players take the start cubes), ``market`` (the
    16 market dice are drawn), ``actions`` (the player round), ``draw`` (a baron's new die is
    drawn), ``over``."""

    game: Dyce
    rules: Rules
    options: tuple[tuple[str, Any], ...]
    players: tuple[str, ...]
    seed: int
    stage: str
    round: int
    white: int
    start_seat: int
    turn_seat: int
    actions: int
    seals: tuple[bool, ...]
    pounds: tuple[int, ...]
    cubes: tuple[tuple[tuple[str, int], ...], ...]
    vps: tuple[int, ...]
    shops_in_hand: tuple[int, ...]
    shops: tuple[ShopRecord, ...]
    barons: tuple[Cell | None, ...]
    market: tuple[tuple[tuple[str, int], ...], ...]
    start_cubes: tuple[str, ...] = ()
    baron_next: int = 0
    blended_returned: bool = False
    sold: tuple[frozenset, ...] = ()
    turns: tuple[int, ...] = ()
    log: tuple[BaronReport, ...] = ()
    last_die: Placement | None = None
    last_turn: tuple[int, int] | None = None       # (seat, actions) of the turn that just ended
    ended_by: str | None = None

    # -- views -------------------------------------------------------------------------
    @property
    def solo(self) -> bool:
        return len(self.players) == 1

    @property
    def current_player(self) -> str | None:
        if self.stage == "over":
            return None
        if self.stage == "cubes":
            return self.players[self.picker()]
        if self.stage == "actions":
            return self.players[self.turn_seat]
        return self.players[self.start_seat]

    @property
    def phase(self) -> str:
        return self.stage

    def is_terminal(self) -> bool:
        return self.stage == "over"

    def picker(self) -> int:
        """Who takes the next start cube: counter-clockwise from the start player's right."""
        taken = len(self.players) - len(self.start_cubes)
        return (self.start_seat - 1 - taken) % len(self.players)

    def shop_at(self, cell: Cell) -> ShopRecord | None:
        return next((s for s in self.shops if s[0] == cell), None)

    def hand(self, seat: int) -> Counter:
        return Counter(dict(self.cubes[seat]))

    def market_count(self) -> int:
        return sum(len(line) for line in self.market)

    def bag(self) -> Counter:
        """The dice in the bag by colour: all but the white die and the market's."""
        bag = Counter({c: n for c, n in self.rules.dice.items() if c in self.rules.whiskies})
        bag.subtract(colour for line in self.market for colour, _ in line)
        return +bag

    def supply(self, colour: str) -> int:
        """Cubes of ``colour`` neither in a hand nor on a shop."""
        held = sum(n for hand in self.cubes for c, n in hand if c == colour)
        return self.rules.cubes[colour] - held - sum(1 for s in self.shops if s[2] == colour)

    def actions_left(self) -> int:
        return self.rules.actions_per_turn - self.actions if self.stage == "actions" else 0

    def dice_to_roll(self) -> DiceRequest | None:
        if self.stage == "market":
            left = len(self.rules.barons) * self.rules.line_length - self.market_count()
            return DiceRequest(self.players[self.start_seat], (None,) * left,
                               f"draw dice for the market from the bag, one at a time or several at once "
                               f"({left} places left)")
        if self.stage == "draw":
            baron = self.rules.barons[new_die_line(self.rules, self.baron_next)]
            return DiceRequest(self.players[self.start_seat], (None,),
                               f"draw one die from the bag and roll it: it goes to the {baron} baron")
        return None

    def table(self) -> Table:
        return Table({cell: Shop(owner, whisky, pounds) for cell, owner, whisky, pounds in self.shops},
                     list(self.barons), [list(line) for line in self.market], list(self.pounds),
                     [Counter(dict(c)) for c in self.cubes], list(self.vps), list(self.shops_in_hand),
                     [set(s) for s in self.sold], self.blended_returned)

    def with_table(self, table: Table, **changes: Any) -> DyceState:
        return replace(self, shops=tuple(sorted((cell, s.owner, s.whisky, s.pounds) for cell, s in table.shops.items())),
                       barons=tuple(table.barons), market=tuple(tuple(line) for line in table.market),
                       pounds=tuple(table.pounds),
                       cubes=tuple(tuple(sorted((c, n) for c, n in hand.items() if n)) for hand in table.cubes),
                       vps=tuple(table.vps), shops_in_hand=tuple(table.shops_in_hand),
                       sold=tuple(frozenset(s) for s in table.sold), blended_returned=table.blended_returned,
                       **changes)

    # -- rolls -------------------------------------------------------------------------
    def random_roll(self, rng: random.Random) -> tuple[Die, ...]:
        """Dice drawn from the bag at random (without putting back) and rolled."""
        request = self.dice_to_roll()
        if request is None:
            raise RuleError("roll order", "no die is to be drawn now")
        pool = sorted(self.bag().elements())
        return tuple(Die(rng.randint(1, 6), colour) for colour in rng.sample(pool, request.count))

    def apply_roll(self, dice: Sequence[Die]) -> DyceState:
        """At set-up any number of dice up to the places left may be rolled at once."""
        dice = tuple(dice)
        if self.stage == "market" and 0 < len(dice) < self.dice_to_roll().count:
            return self._apply_roll(dice)
        return super().apply_roll(dice)

    def _check_bag(self, dice: Sequence[Die]) -> tuple[Die, ...]:
        bag = self.bag()
        named = []
        for die in dice:
            colour = die.colour.lower() if die.colour else None
            if colour is None:
                if len(bag) != 1:
                    raise RuleError("dice from the bag", f"the colour of the {die.value} was not read: "
                                    f"name it, e.g. roll {next(iter(sorted(bag)), 'blue')}:{die.value}")
                colour = next(iter(bag))
            if bag[colour] <= 0:
                left = ", ".join(f"{n} {c}" for c, n in sorted(bag.items()) if n > 0) or "nothing"
                where = "is on the castle" if colour in self.rules.dice and colour not in self.rules.whiskies \
                    else "is not a DYCE die" if colour not in self.rules.dice else "is no longer in the bag"
                raise RuleError("dice from the bag", f"a {colour} die {where} (the bag holds {left})")
            bag[colour] -= 1
            named.append(Die(die.value, colour))
        return tuple(named)

    def _apply_roll(self, dice: tuple[Die, ...]) -> DyceState:
        dice = self._check_bag(dice)
        if self.stage == "market":
            return self._fill_market(dice)
        return self._place_drawn(dice[0])

    def _fill_market(self, dice: tuple[Die, ...]) -> DyceState:
        rules, market, placed = self.rules, [list(line) for line in self.market], None
        for die in dice:
            line = next(i for i, dice_in in enumerate(market) if len(dice_in) < rules.line_length)
            value = rules.orient(die.colour, die.value)
            market[line].append((die.colour, value))
            placed = Placement(die.colour, die.value, value, rules.barons[line], len(market[line]))
            if len(market[line]) == rules.line_length:    # naturals first, black last [rule]
                market[line].sort(key=lambda d: rules.line_rank(d[0]))
        state = replace(self, market=tuple(tuple(line) for line in market), last_die=placed)
        if state.market_count() < len(rules.barons) * rules.line_length:
            return state
        return replace(state, stage="actions", turn_seat=self.start_seat, actions=0)

    def _place_drawn(self, die: Die) -> DyceState:
        rules, table = self.rules, self.table()
        line = new_die_line(rules, self.baron_next)
        value = rules.orient(die.colour, die.value)
        table.market[line].append((die.colour, value))
        placed = Placement(die.colour, die.value, value, rules.barons[line], len(table.market[line]))
        return self.with_table(table, last_die=placed)._run_barons(table, self.baron_next + 1)

    # -- the player round --------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        if self.stage == "cubes":
            return [Move.make("take_cube", colour=c) for c in sorted(set(self.start_cubes))]
        if self.stage != "actions":
            return []
        seat, rules = self.turn_seat, self.rules
        moves: list[Move] = []
        if self.shops_in_hand[seat] and self.pounds[seat] >= rules.shop_cost:
            taken = {s[0] for s in self.shops} | {b for b in self.barons if b is not None}
            moves += [Move.make("shop", space=space_name(c)) for c in rules.spaces if c not in taken]
        supply = {c: self.supply(c) for c in rules.whiskies}
        for cell, owner, whisky, _ in self.shops:
            if owner == seat and cell not in self.barons:
                moves += [Move.make("whisky", space=space_name(cell), colour=c)
                          for c in rules.whiskies if supply[c] > 0 and c != whisky]
        if self.pounds[seat] >= 1:
            moves += [Move.make("pound", space=space_name(s[0])) for s in self.shops]
        moves += [Move.make(kind) for kind in STOP_KINDS if self._stop_problem(kind) is None]
        return moves

    def _stop_problem(self, kind: str) -> str | None:
        sealed = self.seals[self.turn_seat]
        if kind == "end_turn":
            if self.solo or self.actions:
                return None
            return "end the turn after an action; with none taken, pass or take a pound"
        if self.solo:
            return "solo: one turn of up to two actions, then end the turn (no passing for pounds)"
        if self.actions:
            return "you have taken an action this turn: take another or end the turn"
        if kind == "pass" and sealed:
            return "your seal is on the castle already: act, or take 1 pound"
        if kind == "take_pound" and not sealed:
            return "only a turn that starts with your seal on the castle may take 1 pound"
        return None

    def apply(self, move: Move) -> DyceState:
        actor = move.get("player")
        if (actor is not None and self.stage == "actions" and actor != self.current_player and self.last_turn
                and self.players[self.last_turn[0]] == actor and self.last_turn[1] >= self.rules.actions_per_turn):
            raise RuleError("two actions a turn", f"{actor} has taken {self.rules.actions_per_turn} actions this "
                            f"turn; it is {self.current_player}'s turn")
        return super().apply(move)

    def _apply(self, move: Move) -> DyceState:
        if self.stage == "cubes":
            if move.kind != "take_cube":
                raise RuleError("set-up", f"{self.current_player} takes a start cube first")
            return self._take_cube(move)
        if move.kind not in ACTION_KINDS + STOP_KINDS:
            raise RuleError("moves", f"{move.kind!r} is not a DYCE move")
        if self.stage != "actions":
            raise RuleError("player round", "the player round is over: the barons act now")
        if move.kind in STOP_KINDS:
            problem = self._stop_problem(move.kind)
            if problem:
                raise RuleError("player round", problem)
            if move.kind == "pass":
                seals = self.seals[:self.turn_seat] + (True,) + self.seals[self.turn_seat + 1:]
                return replace(self, seals=seals)._end_turn(last=False)
            if move.kind == "take_pound":
                pounds = list(self.pounds)
                pounds[self.turn_seat] += self.rules.pass_pounds
                return replace(self, pounds=tuple(pounds))._end_turn()
            return self._end_turn()
        table = self.table()
        getattr(self, f"_place_{move.kind}")(table, move)
        state = self.with_table(table, actions=self.actions + 1)
        return state._end_turn() if state.actions >= self.rules.actions_per_turn else state

    def _take_cube(self, move: Move) -> DyceState:
        colour = str(move.get("colour", "")).lower()
        if colour not in self.start_cubes:
            raise RuleError("start cubes", f"the start cubes drawn are {', '.join(self.start_cubes)}, not {colour}")
        seat, cubes = self.picker(), list(self.cubes)
        cubes[seat] = tuple(sorted((self.hand(seat) + Counter({colour: 1})).items()))
        left = list(self.start_cubes)
        left.remove(colour)
        state = replace(self, cubes=tuple(cubes), start_cubes=tuple(left))
        return state if left else replace(state, stage="market")

    def _own_shop(self, cell: Cell, seat: int, what: str) -> None:
        shop = self.shop_at(cell)
        if shop is None or shop[1] != seat:
            owner = "no shop" if shop is None else f"{self.players[shop[1]]}'s shop"
            raise RuleError("whiskies at own shops", f"{space_name(cell)} has {owner}: {what} only at your own shops")
        if cell in self.barons:
            raise RuleError("whiskies at own shops", f"a baron stands at {space_name(cell)}: no whisky there now")

    def _place_shop(self, table: Table, move: Move) -> None:
        seat, cell = self.turn_seat, parse_space(self.rules, move.get("space"))
        if not self.shops_in_hand[seat]:
            raise RuleError("six shops", f"all {self.rules.shops} of {self.players[seat]}'s shops are in the city")
        if self.pounds[seat] < self.rules.shop_cost:
            raise RuleError("a shop costs a pound", f"{self.players[seat]} has no pound to pay for a shop")
        if cell in table.shops:
            raise RuleError("one shop a space", f"{space_name(cell)} has a shop already")
        if cell in self.barons:
            raise RuleError("no shop under a baron", f"a baron stands at {space_name(cell)}")
        table.shops[cell] = Shop(seat)
        table.shops_in_hand[seat] -= 1
        table.pounds[seat] -= self.rules.shop_cost

    def _place_whisky(self, table: Table, move: Move) -> None:
        seat, cell = self.turn_seat, parse_space(self.rules, move.get("space"))
        colour = str(move.get("colour", "")).lower()
        if colour not in self.rules.whiskies:
            raise RuleError("whiskies", f"{colour!r} is not a whisky ({', '.join(self.rules.whiskies)})")
        self._own_shop(cell, seat, "whisky")
        shop = table.shops[cell]
        if shop.whisky == colour:
            raise RuleError("one whisky a shop", f"the shop at {space_name(cell)} holds {colour} already")
        if table.supply(self.rules, colour) <= 0:
            raise RuleError("limited cubes", f"no {colour} whisky is left in the supply")
        shop.whisky = colour        # the whisky it held goes back to the supply

    def _place_pound(self, table: Table, move: Move) -> None:
        seat, cell = self.turn_seat, parse_space(self.rules, move.get("space"))
        if cell not in table.shops:
            raise RuleError("pounds at shops", f"there is no shop at {space_name(cell)}")
        if self.pounds[seat] < 1:
            raise RuleError("pounds at shops", f"{self.players[seat]} has no pound to place")
        table.shops[cell].pounds += 1
        table.pounds[seat] -= 1

    def _end_turn(self, last: bool | None = None) -> DyceState:
        """The turn is over; the player round ends after a turn begun with every seal on the
        castle (solo: after the one turn)."""
        seat = self.turn_seat
        turns = self.turns[:seat] + (self.turns[seat] + 1,) + self.turns[seat + 1:]
        done = replace(self, actions=0, turns=turns, last_turn=(seat, self.actions))
        if last is None:
            last = self.solo or all(self.seals)
        if not last:
            return replace(done, turn_seat=(seat + 1) % len(self.players))
        return done._run_barons(done.table(), 0, fresh=True)

    # -- the baron round ---------------------------------------------------------------
    def _run_barons(self, table: Table, first: int, fresh: bool = False) -> DyceState:
        log = () if fresh else self.log
        for baron in range(first, len(self.rules.barons)):
            report = baron_turn(self.rules, table, baron, self.solo)
            log += (report,)
            if report.returns_die:
                return self.with_table(table, stage="draw", baron_next=baron, log=log)
        return self.with_table(table, log=log)._end_round()

    def _end_round(self) -> DyceState:
        rules, count = self.rules, len(self.players)
        state = replace(self, seals=(False,) * count, turns=(0,) * count, actions=0, baron_next=0,
                        blended_returned=False, last_turn=None)
        if self.blended_returned:
            if self.white >= rules.white_top:
                return replace(state, stage="over", ended_by="round_die")
            state = replace(state, white=self.white + 1)
        if self.round >= rules.round_cap:
            return replace(state, stage="over", ended_by="round_cap")
        start = (self.start_seat + 1) % count
        return replace(state, stage="actions", round=self.round + 1, start_seat=start, turn_seat=start)

    def check_box(self) -> None:
        """UserError if the state holds more than the box (cubes, shops, dice) or negative pounds."""
        rules, table = self.rules, self.table()
        for colour in rules.whiskies:
            if table.supply(rules, colour) < 0:
                raise UserError(f"more {colour} whisky than the box holds")
        for i, name in enumerate(self.players):
            if self.shops_in_hand[i] + self.shops_in_city(i) != rules.shops:
                raise UserError(f"{name}'s shops in hand and in the city are not {rules.shops}")
        if Counter(c for line in self.market for c, _ in line) - Counter(rules.dice):
            raise UserError("more dice of a colour than the game has")

    # -- scores and alerts -------------------------------------------------------------
    def score_breakdown(self) -> dict[str, dict[str, int]]:
        table = self.table()
        return {p: table.score_parts(self.rules, i) for i, p in enumerate(self.players)}

    def winners(self) -> list[str]:
        if self.solo:
            return list(self.players) if self.solo_goal_met() else []
        scores = self.scores()
        best = max(scores.values())
        tied = [i for i, p in enumerate(self.players) if scores[p] == best]
        most = max(self.shops_in_city(i) for i in tied)
        return [self.players[i] for i in tied if self.shops_in_city(i) == most]

    def shops_in_city(self, seat: int) -> int:
        return sum(1 for s in self.shops if s[1] == seat)

    def solo_goal_met(self) -> bool:
        return set(self.rules.blended) <= set(self.sold[0])

    def alerts(self) -> list[Alert]:
        alerts = []
        if self.stage == "over":
            if self.solo:
                missing = [c for c in self.rules.blended if c not in self.sold[0]]
                message = "solo goal met: one of each blend sold" if not missing else \
                    f"solo goal missed: no {', '.join(missing)} sold"
                alerts.append(Alert("game_over", message, "info", self.players))
            else:
                names = " & ".join(self.winners())
                cause = "the white die could not go up" if self.ended_by == "round_die" else \
                    f"the round cap ({self.rules.round_cap} rounds, house rule) was reached"
                alerts.append(Alert("game_over", f"game over ({cause}): {names} won", "info",
                                    tuple(self.winners())))
            return alerts
        if self.last_die is not None and self.stage in ("draw", "actions", "market"):
            alerts.append(Alert("die_placed", self.last_die.text, "info"))
        if self.stage == "actions" and not self.solo and all(self.seals):
            alerts.append(Alert("last_turn", f"every seal is on the castle: {self.current_player}'s turn is the "
                                "last of the player round", "info", (self.current_player,)))
        if self.stage == "actions" and self.white >= self.rules.white_top:
            alerts.append(Alert("final_round", "the white die shows its top: the game ends after a round in "
                                "which a blended die goes back to the bag", "warning"))
        return alerts

    # -- text and JSON -----------------------------------------------------------------
    def describe(self, move: Move) -> str:
        kind = move.kind
        try:
            cell = parse_space(self.rules, move.get("space")) if move.get("space") is not None else None
        except RuleError:
            return f"{kind} (not a space of the city)"
        where = space_name(cell) if cell else ""
        if kind == "take_cube":
            return f"take the {move.get('colour')} start cube"
        if kind == "shop":
            return f"place a shop on {where} (pay {self.rules.shop_cost} pound)"
        if kind == "whisky":
            colour = move.get("colour")
            aim = "to buy" if colour in self.rules.natural else "to sell"
            article = "an" if str(colour)[:1] in "aeiou" else "a"
            return f"put {article} {colour} whisky on your shop at {where} ({aim})"
        if kind == "pound":
            shop = self.shop_at(cell) if cell else None
            owner = "your" if shop and shop[1] == self.turn_seat else f"{self.players[shop[1]]}'s" if shop else "a"
            return f"put a pound on {owner} shop at {where}"
        return {"pass": "pass: put your seal on the castle",
                "take_pound": f"take {self.rules.pass_pounds} pound instead of actions",
                "end_turn": "end the turn"}.get(kind, kind)

    def city_view(self) -> dict:
        """The city for a board display: every space with its castle, shop and barons."""
        cells = []
        for r in range(self.rules.size):
            for c in range(self.rules.size):
                shop = self.shop_at((r, c))
                cells.append({
                    "space": space_name((r, c)), "row": r, "column": c, "castle": (r, c) in self.rules.castle,
                    "shop": None if shop is None else {"owner": self.players[shop[1]], "whisky": shop[2],
                                                       "pounds": shop[3]},
                    "barons": [b for b, at in zip(self.rules.barons, self.barons) if at == (r, c)]})
        barons = [{"baron": b, "space": None if at is None else space_name(at), "gate": self.rules.gates[b]}
                  for b, at in zip(self.rules.barons, self.barons)]
        return {"size": self.rules.size, "cells": cells, "barons": barons}

    def market_view(self) -> dict:
        """The market's four lines (first die first), the bag and the white die."""
        lines = [{"baron": b, "dice": [{"colour": c, "value": v} for c, v in line],
                  "wants": line[0][0] if line else None, "price": line[0][1] if line else None}
                 for b, line in zip(self.rules.barons, self.market)]
        return {"lines": lines, "bag": dict(sorted(self.bag().items())), "white_die": self.white,
                "last_die": None if self.last_die is None else self.last_die.to_json()}

    def turn_view(self) -> dict:
        """Whose turn, what is left of it, every player's hand and the last baron round."""
        return {"round": self.round, "stage": self.stage, "player": self.current_player,
                "start_player": self.players[self.start_seat], "actions_left": self.actions_left(),
                "moves": sorted({m.kind for m in self.legal_moves()}),
                "hands": [{"player": p, "pounds": self.pounds[i], "whiskies": dict(self.cubes[i]),
                           "vps": self.vps[i], "shops_in_hand": self.shops_in_hand[i], "seal_on_castle": self.seals[i],
                           "sold": sorted(self.sold[i])} for i, p in enumerate(self.players)],
                "baron_round": [r.to_json(self.players) for r in self.log]}

    def board_view(self) -> dict:
        return {"city": self.city_view(), "market": self.market_view(), "turn": self.turn_view()}

    def to_json(self) -> dict:
        return {
            "game": self.game.name, "players": list(self.players), "options": dict(self.options), "seed": self.seed,
            "stage": self.stage, "round": self.round, "white": self.white,
            "start_player": self.players[self.start_seat], "turn_player": self.players[self.turn_seat],
            "actions": self.actions, "seals": list(self.seals), "pounds": list(self.pounds),
            "cubes": [dict(c) for c in self.cubes], "vps": list(self.vps), "shops_in_hand": list(self.shops_in_hand),
            "shops": [{"space": space_name(cell), "owner": self.players[owner], "whisky": whisky, "pounds": pounds}
                      for cell, owner, whisky, pounds in self.shops],
            "barons": {b: None if at is None else space_name(at) for b, at in zip(self.rules.barons, self.barons)},
            "market": {b: [f"{c}:{v}" for c, v in line] for b, line in zip(self.rules.barons, self.market)},
            "start_cubes": list(self.start_cubes), "baron_next": self.baron_next,
            "blended_returned": self.blended_returned, "sold": [sorted(s) for s in self.sold],
            "turns": list(self.turns), "ended_by": self.ended_by,
            "last_die": None if self.last_die is None else self.last_die.to_json(),
            "baron_round": [r.to_json(self.players) for r in self.log],
        }


# -- the game -----------------------------------------------------------------------------


class Dyce(Game):
    name = "dyce"
    title = "DYCE"
    min_players = int(DATA["players"]["min"])
    max_players = int(DATA["players"]["max"])
    dice_colours = tuple(DATA["dice"])
    options = (
        Option("new_die_place", "baron_line",
               "where a die drawn in the baron round goes: baron_line = the end of the line of the baron that "
               "traded (the sample game draws new dice 'for' each baron into the bottom row); market_end = the "
               "end of the whole market, later dice moving forward one place (how the trade example can be read)",
               choices=PLACEMENTS),
        Option("white_die_start", int(DATA["round_die"]["start"]),
               "the white round die's start value (raise it for a harder solo game)", choices=(1, 2, 3, 4, 5, 6)),
        Option("round_cap", 30, "house rule against endless games: the game also ends after this many rounds"),
    )

    def rules_for(self, options: Mapping[str, Any]) -> Rules:
        if int(options["round_cap"]) < 1:
            raise UserError("option round_cap: at least 1")
        return load_rules(options["new_die_place"], int(options["white_die_start"]), int(options["round_cap"]))

    def new_game(self, players: Sequence[str], options: Mapping[str, Any] | None = None,
                 seed: int = 0) -> DyceState:
        """A new game: the companion draws the start cubes (one per player, seeded); the
        players take them, then draw the 16 market dice."""
        players = self.check_players(players)
        resolved = self.resolve_options(options)
        rules = self.rules_for(resolved)
        count = len(players)
        pool = sorted(c for c in rules.natural for _ in range(rules.cubes[c]))
        drawn = tuple(sorted(random.Random(f"dyce:{seed}:cubes").sample(pool, count)))
        return DyceState(
            self, rules, tuple(sorted(resolved.items())), players, seed, "cubes", 1, rules.white_start, 0, 0, 0,
            (False,) * count, (rules.start_pounds,) * count, ((),) * count, (0,) * count, (rules.shops,) * count,
            (), (None,) * len(rules.barons), ((),) * len(rules.barons), start_cubes=drawn,
            sold=(frozenset(),) * count, turns=(0,) * count)

    def _read_state(self, data: Mapping) -> DyceState:
        players = self.check_players(list(data["players"]))
        resolved = self.resolve_options(data.get("options") or {})
        rules = self.rules_for(resolved)
        count = len(players)

        def count_of(value: Any, what: str) -> int:
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise UserError(f"{what} must be a whole number >= 0, not {value!r}")
            return value

        def per_player(values: Any, what: str) -> tuple:
            values = list(values)
            if len(values) != count:
                raise UserError(f"{what}: one entry per player")
            return tuple(values)

        def seat(name: Any) -> int:
            if name not in players:
                raise UserError(f"no player {name!r}")
            return players.index(name)

        def cell(name: Any) -> Cell | None:
            return None if name is None else parse_space(rules, name)

        stage = data["stage"]
        if stage not in ("cubes", "market", "actions", "draw", "over"):
            raise UserError(f"unknown stage {stage!r}")
        cubes = []
        for hand in per_player(data["cubes"], "cubes"):
            if any(c not in rules.whiskies for c in hand):
                raise UserError("cubes in hand are whiskies")
            cubes.append(tuple(sorted((c, count_of(n, "cubes")) for c, n in hand.items() if n)))
        shops = []
        for s in data["shops"]:
            whisky = s.get("whisky")
            if whisky is not None and whisky not in rules.whiskies:
                raise UserError(f"unknown whisky {whisky!r}")
            shops.append((cell(s["space"]), seat(s["owner"]), whisky, count_of(s.get("pounds", 0), "pounds")))
        if len({s[0] for s in shops}) != len(shops):
            raise UserError("two shops on one space")
        market = []
        for baron in rules.barons:
            line = []
            for text in data["market"][baron]:
                colour, _, value = str(text).partition(":")
                if colour not in rules.whiskies or rules.orient(colour, int(value)) != int(value):
                    raise UserError(f"market die {text!r}: naturals show 1-3, blends 4-6")
                line.append((colour, int(value)))
            if len(line) > rules.line_length:
                raise UserError(f"the {baron} baron's line holds {rules.line_length} dice")
            market.append(tuple(line))
        sold = tuple(frozenset(str(c) for c in kinds) for kinds in per_player(data.get("sold") or [[]] * count, "sold"))
        state = DyceState(
            self, rules, tuple(sorted(resolved.items())), players, int(data.get("seed", 0)), stage,
            count_of(data["round"], "round"), count_of(data["white"], "white"), seat(data["start_player"]),
            seat(data["turn_player"]), count_of(data["actions"], "actions"),
            tuple(bool(s) for s in per_player(data["seals"], "seals")),
            tuple(count_of(n, "pounds") for n in per_player(data["pounds"], "pounds")), tuple(cubes),
            tuple(count_of(n, "vps") for n in per_player(data["vps"], "vps")),
            tuple(count_of(n, "shops") for n in per_player(data["shops_in_hand"], "shops in hand")),
            tuple(sorted(shops)), tuple(cell(data["barons"][b]) for b in rules.barons), tuple(market),
            start_cubes=tuple(data.get("start_cubes") or ()), baron_next=count_of(data.get("baron_next", 0), "baron"),
            blended_returned=bool(data.get("blended_returned")), sold=sold,
            turns=tuple(count_of(n, "turns") for n in per_player(data.get("turns") or [0] * count, "turns")),
            ended_by=data.get("ended_by"))
        state.check_box()
        full = len(rules.barons) * rules.line_length
        expected = {"cubes": 0, "market": None, "draw": full - 1}.get(stage, full)
        if expected is not None and state.market_count() != expected or stage == "market" and state.market_count() > full:
            raise UserError("the market does not hold the dice this stage needs")
        if not 1 <= state.white <= rules.white_top or state.actions >= rules.actions_per_turn:
            raise UserError("the white die shows 1-6 and a turn has at most one action taken so far")
        return state

    def advise(self, state: GameState) -> list[Suggestion]:
        from companion.games import dyce_advice
        return dyce_advice.advise(state)

    def best_move(self, state: GameState) -> Move | None:
        from companion.games import dyce_advice
        return dyce_advice.best_move(state)

    def describe(self) -> dict:
        info = super().describe()
        rules = load_rules()
        info["blends"] = [{"whisky": w, "naturals": list(n), "vp": rules.blend_vp[w], "source": rules.blend_source[w]}
                          for w, n in rules.blends.items()]
        info["notes"] = [f"blend {b['whisky']} = {' + '.join(b['naturals'])} ({b['vp']} VP) [{b['source']}]"
                         for b in info["blends"]] + [
            (f"city {rules.size}x{rules.size}, castle on {', '.join(space_name(c) for c in sorted(rules.castle))}; "
            f"gates: {', '.join(f'{b} {s}' for b, s in rules.gates.items())}")]
        return info


GAME = Dyce()
