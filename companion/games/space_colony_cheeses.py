"""Space Colony Cheeses (2-4 players, 15 turns): build a dairy colony of modules on the
octagons and squares of the planet Bos III, make eight cattle products and sell them.

A turn runs through the rule text's steps in order, each player in turn order inside a step:
move a module (with a working construction module), build 1-3 modules, disease checks, the
energy balance (a player short of energy chooses the modules that go dark), production
(dairy output shared out among the eight products within storage), the random event (two
dice read in order), gift boxes, prices (a die per product), sales, income and lawsuits,
cures, and spoilage.  Every roll is a chance node whose request says who rolls and for
what; several dice read at once are assigned in the order ``board_view()["roll"]["order"]``
gives.

The map, the module table (costs and energy figures the text leaves out are marked default),
the products and the random events table are data in ``space_colony_cheeses.toml``.  Spaces
are named by column letter and row number (``A1`` in the north-west corner).  The advice
lives in ``space_colony_cheeses_advice``.
"""
from __future__ import annotations

import tomllib
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property, lru_cache
from pathlib import Path
from typing import Any

from companion.engine import Alert, DiceRequest, Die, Game, GameState, Move, Option, Suggestion
from companion.errors import RuleError, UserError

DATA = tomllib.loads(Path(__file__).with_suffix(".toml").read_text(encoding="utf-8"))

Cell = tuple[int, int]          # (row, column), both from 0
STEPS = ("move", "build", "disease", "energy", "production", "event", "gift_boxes", "prices", "sales",
         "income", "lawsuit", "cure", "spoilage")
STEP_TITLES = {
    "move": "move a module (construction module)", "build": "build 1-3 modules", "disease": "disease checks",
    "energy": "energy balance", "production": "production", "event": "random event", "gift_boxes": "gift boxes",
    "prices": "prices", "sales": "sales", "income": "income and lawsuits", "lawsuit": "lawsuits",
    "cure": "cures", "spoilage": "spoilage",
}
LEDGER = ("starting money", "sales", "gift boxes", "income", "events", "lawsuits", "building", "moving")
PRICE_ROLLS = ("shared", "each")


# -- rules data ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ModuleType:
    """One kind of module: its costs and energy, and which of its numbers are defaults."""

    key: str
    name: str
    cost: int
    makes: int
    uses: int
    income: int = 0
    stores: str | None = None
    herds: int = 0
    given: frozenset = frozenset()

    @property
    def producer(self) -> bool:
        return self.makes > 0

    def is_default(self, number: str) -> bool:
        return number not in self.given


@dataclass(frozen=True)
class Event:
    """One entry of the random events table."""

    key: str                     # "3-5": first die, second die
    text: str
    effect: str
    params: tuple[tuple[str, Any], ...]
    source: str

    def get(self, name: str, default: Any = None) -> Any:
        return dict(self.params).get(name, default)

    @property
    def is_default(self) -> bool:
        return self.source == "default"


EFFECTS = ("price", "all_prices", "lose_half_largest", "spoil_without_domes", "add_stored", "no_spoilage",
           "lose_energy_plant", "clear_stored", "double_stored_with_domes", "halve_stored_without_domes",
           "lab_money", "disease", "cure_with_domes", "money", "nothing")


@dataclass(frozen=True, eq=False)
class Board:
    """The map (one printed map, or two side by side): spaces, shapes, features, neighbours."""

    maps: int
    width: int
    height: int
    octagons: frozenset[Cell]
    spaces: tuple[Cell, ...]
    faults: frozenset[Cell]
    pastures: frozenset[Cell]
    neighbours: Mapping[Cell, tuple[Cell, ...]]
    source: str

    def near(self, cell: Cell, steps: int) -> frozenset[Cell]:
        """The spaces at most ``steps`` moves from ``cell``."""
        return _ball(self, cell, steps)


@cache
def _ball(board: Board, cell: Cell, steps: int) -> frozenset[Cell]:
    seen, frontier = {cell}, [cell]
    for _ in range(steps):
        frontier = [n for here in frontier for n in board.neighbours[here] if n not in seen]
        seen.update(frontier)
    return frozenset(seen)


@dataclass(frozen=True)
class Rules:
    """All numbers of ``space_colony_cheeses.toml`` read once."""

    numbers: Mapping[str, Any]
    products: tuple[str, ...]
    keeps: frozenset[str]
    four_disease_sales: frozenset[str]
    leather_cap: int
    manure_price: int
    modules: Mapping[str, ModuleType]
    events: Mapping[str, Event]
    lawsuit: Mapping[str, Any]
    advice: Mapping[str, Any]

    def __getattr__(self, name: str) -> Any:
        """The numbers of the data file's ``[game]`` table as attributes (``rules.turns``)."""
        try:
            return self.__dict__["numbers"][name]
        except KeyError:
            raise AttributeError(name) from None

    def product_name(self, product: str) -> str:
        return product.replace("_", " ")


def space_name(cell: Cell) -> str:
    return f"{chr(ord('A') + cell[1])}{cell[0] + 1}"


def _cell_of(name: str) -> Cell:
    text = str(name).strip().upper()
    if len(text) < 2 or not text[0].isalpha() or not text[1:].isdigit() or len(text) > 4:
        raise ValueError(name)
    return int(text[1:]) - 1, ord(text[0]) - ord("A")


@cache
def load_board(maps: int = 1) -> Board:
    """The map from the TOML data, ``maps`` copies side by side."""
    try:
        rows = [str(r) for r in DATA["map"]["rows"]]
        width = max(len(r) for r in rows)
        if not rows or width < 2 or width * maps > 26:
            raise ValueError("a map has 2 to 26 columns in all")
        shapes: dict[Cell, bool] = {}
        for r, row in enumerate(rows):
            for c, char in enumerate(row):
                if char not in "Os.":
                    raise ValueError(f"map row {r + 1}: {char!r} is not O, s or .")
                for copy in range(maps):
                    if char != ".":
                        shapes[r, c + copy * width] = char == "O"
        features = {}
        for key in ("fault_lines", "lush_pastures"):
            cells = set()
            for name in DATA["map"][key]:
                r, c = _cell_of(name)
                if (r, c) not in shapes or c >= width:
                    raise ValueError(f"{key}: {name} is not a space of the map")
                cells.update((r, c + copy * width) for copy in range(maps))
            features[key] = frozenset(cells)
        neighbours = {}
        for (r, c), octagon in shapes.items():
            found = [n for n in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)) if n in shapes]
            if octagon:
                found += [n for n in ((r - 1, c - 1), (r - 1, c + 1), (r + 1, c + 1), (r + 1, c - 1))
                          if shapes.get(n)]
            neighbours[r, c] = tuple(sorted(found))
        return Board(maps, width * maps, len(rows), frozenset(c for c, o in shapes.items() if o),
                     tuple(sorted(shapes)), features["fault_lines"], features["lush_pastures"], neighbours,
                     str(DATA["map"].get("source", "default")))
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"bad Space Colony Cheeses map data: {exc}") from exc


@cache
def load_rules() -> Rules:
    """The rules data from ``space_colony_cheeses.toml``, checked."""
    try:
        prices = DATA["prices"]
        products = tuple(prices["products"])
        if len(products) != 8:
            raise ValueError("eight products")
        modules = {}
        for key, entry in DATA["modules"].items():
            stores = entry.get("stores")
            if stores is not None and stores not in products:
                raise ValueError(f"{key} stores an unknown product {stores!r}")
            module = ModuleType(key, str(entry["name"]), int(entry["cost"]), int(entry["makes"]),
                                int(entry["uses"]), int(entry.get("income", 0)), stores, int(entry.get("herds", 0)),
                                frozenset(entry.get("given", ())))
            if min(module.cost, module.makes, module.uses, module.income) < 0:
                raise ValueError(f"{key}: numbers are 0 or more")
            modules[key] = module
        for needed in ("start_up", "processing_plant", "barn", "mega_barn", "pasture_dome", "hub", "habitation",
                       "geothermal_plant", "solar_panel", "construction", "veterinary", "space_port",
                       "catalog_store", "law_office", "cheese_lab", "sausage_lab"):
            if needed not in modules:
                raise ValueError(f"the module table lacks {needed}")
        if {m.stores for m in modules.values() if m.stores} != set(products):
            raise ValueError("every product needs a storage module")
        events = {}
        for first in range(1, 7):
            for second in range(1, 7):
                key = f"{first}-{second}"
                entry = dict(DATA["events"][key])
                effect = entry.pop("effect")
                if effect not in EFFECTS:
                    raise ValueError(f"event {key}: unknown effect {effect!r}")
                if entry.get("product") is not None and entry["product"] not in products:
                    raise ValueError(f"event {key}: unknown product {entry['product']!r}")
                text, source = str(entry.pop("text")), str(entry.pop("source"))
                params = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in entry.items()))
                events[key] = Event(key, text, effect, params, source)
        return Rules(dict(DATA["game"]), products, frozenset(prices["keeps"]),
                     frozenset(prices["sold_with_four_diseases"]), int(prices["leather_cap"]),
                     int(prices["manure_price"]), modules, events, dict(DATA["lawsuit"]), dict(DATA["advice"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"bad Space Colony Cheeses rules data: {exc}") from exc


def parse_space(board: Board, text: Any) -> Cell:
    """``"C4"`` (any case) as a map space; RuleError if the map has no such space."""
    try:
        cell = _cell_of(text)
    except ValueError:
        cell = None
    if cell in board.neighbours:
        return cell
    last = space_name((board.height - 1, board.width - 1))
    raise RuleError("map spaces", f"{str(text)[:12]!r} is not a space of the map (A1 to {last})")


# -- a player's sheet and colony ------------------------------------------------------------


@dataclass(frozen=True)
class Sheet:
    """One player's colony and score sheets: $, modules, which are dark or sick, products."""

    money: int
    modules: tuple[tuple[Cell, str], ...] = ()      # sorted by space
    dark: frozenset[Cell] = frozenset()
    sick: frozenset[Cell] = frozenset()
    stock: tuple[int, ...] = (0,) * 8
    ledger: tuple[int, ...] = (0,) * len(LEDGER)

    @property
    def colony(self) -> dict[Cell, str]:
        return dict(self.modules)

    def pay(self, amount: int, entry: str) -> Sheet:
        """``amount`` $ in (negative: out), booked under ``entry``."""
        ledger = list(self.ledger)
        ledger[LEDGER.index(entry)] += amount
        return replace(self, money=self.money + amount, ledger=tuple(ledger))

    def with_stock(self, stock: Sequence[int]) -> Sheet:
        return replace(self, stock=tuple(stock))


class Colony:
    """Questions about one sheet's colony under the rules (what works, makes, stores);
    the counts are worked out once, as a sheet never changes."""

    def __init__(self, rules: Rules, board: Board, sheet: Sheet):
        self.rules, self.board, self.sheet = rules, board, sheet
        self.at = sheet.colony
        modules, dark, per_module = rules.modules, sheet.dark, rules.numbers["storage_per_module"]
        working: dict[str, int] = {}
        storage_all: dict[str, int] = {}
        storage_working: dict[str, int] = {}
        for cell, kind in sheet.modules:
            lit = cell not in dark
            if lit:
                working[kind] = working.get(kind, 0) + 1
            stores = modules[kind].stores
            if stores:
                storage_all[stores] = storage_all.get(stores, 0) + per_module
                if lit:
                    storage_working[stores] = storage_working.get(stores, 0) + per_module
        self.working_kinds, self.storage_all, self.storage_working = working, storage_all, storage_working
        self._output: int | None = None

    def kind(self, cell: Cell) -> ModuleType:
        return self.rules.modules[self.at[cell]]

    def cells_of(self, *kinds: str) -> list[Cell]:
        return [cell for cell, kind in self.sheet.modules if kind in kinds]

    def working(self, cell: Cell) -> bool:
        return cell not in self.sheet.dark

    def has_working(self, kind: str) -> bool:
        return self.working_kinds.get(kind, 0) > 0

    def linked(self, cell: Cell) -> frozenset[Cell]:
        return _linked_in(self.board, self.sheet.modules, cell)

    def energy_made(self) -> int:
        return sum(self.rules.modules[k].makes for _, k in self.sheet.modules)

    def energy_used(self) -> int:
        return sum(self.rules.modules[k].uses * n for k, n in self.working_kinds.items())

    def shortage(self) -> int:
        return max(0, self.energy_used() - self.energy_made())

    def herds(self) -> int:
        return sum(self.rules.modules[k].herds for _, k in self.sheet.modules)

    def barn_output(self, cell: Cell) -> int:
        """What a barn or mega-barn makes this turn: nothing if dark, sick or cut off from a
        working processing plant."""
        kind, dark = self.kind(cell), self.sheet.dark
        if not kind.herds or cell in dark or cell in self.sheet.sick:
            return 0
        if not any(self.at[n] == "processing_plant" and n not in dark for n in self.linked(cell)):
            return 0
        numbers = self.rules.numbers
        return kind.herds * numbers["lush_barn_output" if cell in self.board.pastures else "barn_output"]

    def output(self) -> int:
        if self._output is None:
            self._output = sum(self.barn_output(c) for c, k in self.sheet.modules if self.rules.modules[k].herds)
        return self._output

    def capacity(self, product: str, working_only: bool = True) -> int:
        return (self.storage_working if working_only else self.storage_all).get(product, 0)

    def room(self, product: str) -> int:
        index = self.rules.products.index(product)
        return max(0, self.capacity(product) - self.sheet.stock[index])

    def enough_domes(self) -> bool:
        return self.working_kinds.get("pasture_dome", 0) * self.rules.barns_per_dome >= self.herds()

    def diseases(self) -> int:
        return len(self.sheet.sick)

    def healthy_barns(self) -> list[Cell]:
        return [c for c, k in self.sheet.modules if self.rules.modules[k].herds and c not in self.sheet.sick]

    def can_trade(self) -> bool:
        return self.has_working("space_port")

    def sellable(self, product: str) -> bool:
        return self.can_trade() and (self.diseases() < self.rules.max_diseases
                                     or product in self.rules.four_disease_sales)

    def gift_boxes_possible(self) -> int:
        if not (self.has_working("catalog_store") and self.can_trade()
                and self.diseases() < self.rules.max_diseases):
            return 0
        stock = dict(zip(self.rules.products, self.sheet.stock))
        return min(stock["cheese"], stock["beef"])

    def income(self) -> int:
        return sum(self.rules.modules[k].income * n for k, n in self.working_kinds.items())

    def build_cost(self, kind: str) -> int:
        discount = self.rules.construction_discount if self.has_working("construction") else 0
        return max(0, self.rules.modules[kind].cost - discount)

    def move_cost(self, kind: str) -> int:
        return self.rules.modules[kind].cost // 2


@lru_cache(maxsize=20_000)
def _linked_in(board: Board, modules: tuple[tuple[Cell, str], ...], cell: Cell) -> frozenset[Cell]:
    """:func:`linked_cells` for a colony's module tuple, remembered (colonies repeat a lot)."""
    return frozenset(linked_cells(board, dict(modules), cell))


def linked_cells(board: Board, colony: Mapping[Cell, str], cell: Cell) -> set[Cell]:
    """The colony's modules that count as next to ``cell``: its neighbours, and through a
    hub (or a chain of hubs) every module the hub is next to [rule; chains inferred]."""
    found: set[Cell] = set()
    queue = deque(n for n in board.neighbours[cell] if n in colony)
    hubs_seen: set[Cell] = set()
    while queue:
        here = queue.popleft()
        if here == cell or here in found:
            continue
        found.add(here)
        if colony[here] == "hub" and here not in hubs_seen:
            hubs_seen.add(here)
            queue.extend(n for n in board.neighbours[here] if n in colony)
    found.discard(cell)
    return found


def placement_problem(board: Board, rules: Rules, colony: Mapping[Cell, str], kind: str, cell: Cell) -> str | None:
    """Why ``kind`` cannot stand on ``cell`` beside the rest of ``colony`` (None: it can).
    Checks the module's own needs; the caller checks the space is free and connected."""
    if kind == "geothermal_plant" and cell not in board.faults:
        return f"a geothermal plant stands only on a fault line, and {space_name(cell)} is not on one"
    placed = {**colony, cell: kind}
    module = rules.modules[kind]
    near = None
    if module.stores or module.herds:
        near = {placed[n] for n in linked_cells(board, placed, cell)}
        if "processing_plant" not in near:
            what = "storage" if module.stores else "a barn"
            return f"{what} must be next to a processing plant"
    if kind == "pasture_dome":
        near = {placed[n] for n in linked_cells(board, placed, cell)}
        if not any(rules.modules[k].herds for k in near):
            return "a pasture dome must be next to a barn or mega-barn"
    return None


def colony_problem(board: Board, rules: Rules, colony: Mapping[Cell, str]) -> str | None:
    """Why a whole colony breaks the building rules (connected, each module's needs), or None."""
    if not colony:
        return None
    start = next(iter(colony))
    seen, queue = {start}, deque([start])
    while queue:
        here = queue.popleft()
        for n in board.neighbours[here]:
            if n in colony and n not in seen:
                seen.add(n)
                queue.append(n)
    if len(seen) != len(colony):
        return "every module must be connected to the colony"
    for cell, kind in colony.items():
        rest = {c: k for c, k in colony.items() if c != cell}
        problem = placement_problem(board, rules, rest, kind, cell)
        if problem:
            return f"{problem} ({rules.modules[kind].name} at {space_name(cell)})"
    return None


def event_price_changes(rules: Rules, event: Event | None) -> dict[str, int]:
    """How a turn's event moves each product's price."""
    if event is None:
        return {}
    if event.effect == "price":
        return {event.get("product"): int(event.get("change"))}
    if event.effect == "all_prices":
        return {p: int(event.get("change")) for p in rules.products if p != "manure"}
    return {}


def base_price(rules: Rules, product: str, face: int) -> int:
    """The price a die sets before events: leather above the cap loses 3; manure is fixed."""
    if product == "manure":
        return rules.manure_price
    if product == "leather" and face > rules.leather_cap:
        return face - 3
    return face


# -- the state ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ColonyState(GameState):
    """A Space Colony Cheeses position.

    ``stage`` is ``"first_player"`` (the roll for the first player), one of :data:`STEPS`,
    ``"lawsuit_roll"`` or ``"over"``; ``order`` is the seats in turn order (first player
    first) and ``actor`` the index in it of the player whose part of the step is due.
    """

    game: SpaceColonyCheeses
    rules: Rules
    board: Board
    options: tuple[tuple[str, Any], ...]
    players: tuple[str, ...]
    seed: int
    sheets: tuple[Sheet, ...]
    stage: str = "first_player"
    turn: int = 1
    order: tuple[int, ...] = ()
    actor: int = 0
    tied: tuple[int, ...] = ()          # seats rolling for first player
    built: int = 0                      # modules the actor built this turn
    events: tuple[str | None, ...] = ()     # this turn's event per seat
    prices: tuple[tuple[int, ...] | None, ...] = ()   # this turn's price dice per seat
    defendant: int | None = None        # a lawsuit filed, waiting for its die
    log: tuple[str, ...] = ()           # what the last transitions did, in player words

    # -- views -------------------------------------------------------------------------
    @property
    def price_rolls(self) -> str:
        return dict(self.options)["price_rolls"]

    @cached_property
    def _colonies(self) -> dict[int, Colony]:
        return {}

    def colony(self, seat: int) -> Colony:
        """Questions about ``seat``'s colony (worked out once per state)."""
        found = self._colonies.get(seat)
        if found is None:
            found = self._colonies[seat] = Colony(self.rules, self.board, self.sheets[seat])
        return found

    @property
    def seat(self) -> int | None:
        """The seat whose part of the step is due."""
        if self.stage == "over":
            return None
        if self.stage == "first_player":
            return self.tied[0]
        return self.order[self.actor]

    @property
    def current_player(self) -> str | None:
        seat = self.seat
        return None if seat is None else self.players[seat]

    @property
    def phase(self) -> str:
        return self.stage

    def is_terminal(self) -> bool:
        return self.stage == "over"

    def turns_left(self) -> int:
        """Turns still to play, this one included."""
        return max(0, self.rules.turns - self.turn + 1)

    def event(self, seat: int) -> Event | None:
        key = self.events[seat] if self.events else None
        return None if key is None else self.rules.events[key]

    def price(self, seat: int, product: str) -> int | None:
        """This turn's price of ``product`` for ``seat`` (events applied), None before the roll."""
        faces = self.prices[seat] if self.prices else None
        if faces is None:
            return None
        index = self.rules.products.index(product)
        change = event_price_changes(self.rules, self.event(seat)).get(product, 0)
        return max(0, base_price(self.rules, product, faces[index]) + change)

    @cached_property
    def _occupied(self) -> dict[Cell, int]:
        return {cell: seat for seat, sheet in enumerate(self.sheets) for cell, _ in sheet.modules}

    def occupied(self) -> Mapping[Cell, int]:
        """Every module's space with its owner's seat (do not change it: it is shared)."""
        return self._occupied

    def _need(self, seat: int) -> str | None:
        """``"roll"``, ``"decide"`` or None: what ``seat`` must do in the current step.

        A part that cannot change anything is skipped: no disease check without a healthy barn
        or at the disease limit, no energy choice without a shortage, no production without
        output and room, no gift boxes, sales of leather and manure or lawsuits without the
        working modules and goods (or someone with $50 to sue), no cure roll without a sick barn.
        """
        colony, stage = self.colony(seat), self.stage
        if stage == "move":
            return "decide" if self.turn > 1 and self._relocations(seat, first_only=True) else None
        if stage == "build":
            return "decide" if self.built < self.rules.builds_per_turn and self._builds(seat, first_only=True) else None
        if stage == "disease":
            ok = colony.healthy_barns() and colony.diseases() < self.rules.max_diseases
            return "roll" if ok else None
        if stage == "energy":
            return "decide" if colony.shortage() else None
        if stage == "production":
            return "decide" if colony.output() and any(colony.room(p) for p in self.rules.products) else None
        if stage == "event":
            return "roll"
        if stage == "gift_boxes":
            return "decide" if colony.gift_boxes_possible() else None
        if stage == "prices":
            return "roll" if self.price_rolls == "each" or seat == self.order[0] else None
        if stage == "sales":
            return "decide" if self._kept_for_sale(seat) else None
        if stage == "lawsuit":
            return "decide" if self._defendants(seat) else None
        if stage == "lawsuit_roll":
            return "roll"
        if stage == "cure":
            return "roll" if colony.sheet.sick else None
        return None

    def _kept_for_sale(self, seat: int) -> list[str]:
        """The products that keep (leather, manure) that ``seat`` holds and may sell now."""
        colony = self.colony(seat)
        return [p for p in self.rules.products if p in self.rules.keeps and colony.sellable(p)
                and self.sheets[seat].stock[self.rules.products.index(p)] > 0]

    def _defendants(self, seat: int) -> list[int]:
        if not self.colony(seat).has_working("law_office"):
            return []
        return [s for s in range(len(self.players))
                if s != seat and self.sheets[s].money >= self.rules.lawsuit["minimum_money"]]

    # -- dice ----------------------------------------------------------------------------
    def roll_order(self) -> list[str]:
        """What each die of the roll due stands for, in the order they are read."""
        if self.stage == "first_player":
            return [self.players[s] for s in self.tied]
        if self.stage == "over" or self._need(self.seat) != "roll":
            return []
        if self.stage in ("disease", "lawsuit_roll"):
            return ["the die"]
        if self.stage == "event":
            return ["first die", "second die"]
        if self.stage == "prices":
            return [self.rules.product_name(p) for p in self.rules.products]
        if self.stage == "cure":
            tries = self._cure_tries(self.seat)
            return [f"barn at {space_name(c)}" + (f", try {t + 1}" if tries > 1 else "")
                    for c in sorted(self.sheets[self.seat].sick) for t in range(tries)]
        return []

    def _cure_tries(self, seat: int) -> int:
        return 2 if self.colony(seat).has_working("veterinary") else 1

    def dice_to_roll(self) -> DiceRequest | None:
        if self.stage == "over":
            return None
        if self.stage == "first_player":
            names = ", ".join(self.players[s] for s in self.tied)
            return DiceRequest(self.current_player, (None,) * len(self.tied),
                               f"roll for the first player: one die each, read in this order: {names}")
        seat = self.seat
        if self._need(seat) != "roll":
            return None
        who = self.players[seat]
        order = self.roll_order()
        if self.stage == "disease":
            reason = f"{who}: disease check, one die (a 1 makes a barn sick)"
        elif self.stage == "event":
            reason = f"{who}: random event, two dice read in order (first die, second die)"
        elif self.stage == "prices":
            whose = f"{who}'s prices" if self.price_rolls == "each" else f"prices (rolled by {who} for everyone)"
            reason = f"{whose}: eight dice, one per product in this order: {', '.join(order)}"
        elif self.stage == "lawsuit_roll":
            reason = f"{who}: lawsuit against {self.players[self.defendant]}, one die"
        else:
            tries = self._cure_tries(seat)
            reason = f"{who}: cure rolls, {len(order)} dice ({'two per sick barn with the vet' if tries > 1 else 'one per sick barn'}: {', '.join(order)})"
        return DiceRequest(who, (None,) * len(order), reason)

    def _apply_roll(self, dice: tuple[Die, ...]) -> ColonyState:
        return replace(self, log=())._resolve_roll(dice)

    def _resolve_roll(self, dice: tuple[Die, ...]) -> ColonyState:
        faces = [d.value for d in dice]
        if self.stage == "first_player":
            return self._first_player(faces)
        seat, who = self.seat, self.current_player
        sheets = list(self.sheets)
        if self.stage == "disease":
            log = (f"{who} rolled {faces[0]}: no new disease",)
            if faces[0] == self.rules.disease_face:
                sheets[seat], text = self._fall_sick(seat)
                log = (f"{who} rolled {faces[0]}: {text}",)
            return replace(self, sheets=tuple(sheets), log=log)._next_actor()
        if self.stage == "event":
            key = f"{faces[0]}-{faces[1]}"
            events = list(self.events)
            events[seat] = key
            state = replace(self, events=tuple(events))
            return state._apply_event(seat, self.rules.events[key])._next_actor()
        if self.stage == "prices":
            prices = list(self.prices)
            for s in (range(len(self.players)) if self.price_rolls == "shared" else (seat,)):
                prices[s] = tuple(faces)
            state = replace(self, prices=tuple(prices))
            shown = ", ".join(f"{self.rules.product_name(p)} ${base_price(self.rules, p, f)}"
                              for p, f in zip(self.rules.products, faces))
            whose = f"{who}'s prices" if self.price_rolls == "each" else "prices for everyone"
            return replace(state, log=(f"{whose} this turn, before events: {shown}",))._next_actor()
        if self.stage == "lawsuit_roll":
            return self._settle_lawsuit(faces[0])
        return self._cure(faces)

    def _first_player(self, faces: list[int]) -> ColonyState:
        best = max(faces)
        tied = tuple(s for s, f in zip(self.tied, faces) if f == best)
        if len(tied) > 1:
            names = " and ".join(self.players[s] for s in tied)
            return replace(self, tied=tied, log=(f"{names} tie with {best}: they roll again",))
        first = tied[0]
        count = len(self.players)
        order = tuple((first + i) % count for i in range(count))
        state = replace(self, tied=(), order=order, log=(f"{self.players[first]} rolled {best} and goes first",))
        return state._enter("move")

    def _fall_sick(self, seat: int) -> tuple[Sheet, str]:
        """A new disease: a sick counter on the healthy barn that makes least (the player's
        least loss; the text does not say who chooses), ignored at the limit or with no barn."""
        colony = self.colony(seat)
        if colony.diseases() >= self.rules.max_diseases:
            return self.sheets[seat], f"a disease, ignored ({self.rules.max_diseases} diseases already)"
        healthy = colony.healthy_barns()
        if not healthy:
            return self.sheets[seat], "a disease, but no healthy barn to catch it"
        lush = self.board.pastures
        cell = min(healthy, key=lambda c: (self.rules.modules[colony.at[c]].herds, c in lush, c))
        sheet = replace(self.sheets[seat], sick=self.sheets[seat].sick | {cell})
        return sheet, f"the {colony.kind(cell).name} at {space_name(cell)} falls sick"

    def _apply_event(self, seat: int, event: Event) -> ColonyState:
        rules, sheet, colony = self.rules, self.sheets[seat], self.colony(seat)
        stock = list(sheet.stock)
        capacity = [colony.capacity(p, working_only=False) for p in rules.products]
        effect, note = event.effect, ""
        if effect == "lose_half_largest" and max(stock) > 0:
            index = stock.index(max(stock))
            stock[index] -= stock[index] // 2
        elif effect == "spoil_without_domes" and not colony.enough_domes():
            for product in event.get("products"):
                stock[rules.products.index(product)] = 0
        elif effect == "add_stored":
            stock = [min(cap, n + int(event.get("amount"))) if n > 0 else n for n, cap in zip(stock, capacity)]
        elif effect == "clear_stored":
            stock = [n if p == "manure" else 0 for p, n in zip(rules.products, stock)]
        elif effect == "double_stored_with_domes" and colony.enough_domes():
            stock = [min(cap, 2 * n) for n, cap in zip(stock, capacity)]
        elif effect == "halve_stored_without_domes" and not colony.enough_domes():
            stock = [n - n // 2 for n in stock]
        sheet = sheet.with_stock(stock)
        if effect == "lose_energy_plant":
            lost = colony.cells_of("geothermal_plant") or colony.cells_of("solar_panel")
            if lost:
                cell = lost[0]
                sheet = replace(sheet, modules=tuple(m for m in sheet.modules if m[0] != cell),
                                dark=sheet.dark - {cell})
                note = f" (the {colony.kind(cell).name} at {space_name(cell)})"
            else:
                note = " (no energy plant to lose)"
        elif effect == "lab_money":
            labs = sum(1 for c in colony.cells_of("cheese_lab", "sausage_lab") if colony.working(c))
            sheet = sheet.pay(labs * rules.lab_event_money, "events")
        elif effect == "money":
            amount = max(int(event.get("amount")), -sheet.money)
            sheet = sheet.pay(amount, "events")
        elif effect == "cure_with_domes" and colony.enough_domes():
            sheet = replace(sheet, sick=frozenset())
        sheets = list(self.sheets)
        sheets[seat] = sheet
        state = replace(self, sheets=tuple(sheets))
        if effect == "disease":
            sheets[seat], note = state._fall_sick(seat)
            note = f": {note}"
            state = replace(state, sheets=tuple(sheets))
        default = " (default table entry)" if event.is_default else ""
        return replace(state, log=(f"{self.players[seat]}'s event {event.key}: {event.text}{note}{default}",))

    def _settle_lawsuit(self, face: int) -> ColonyState:
        rules, seat, other = self.rules.lawsuit, self.seat, self.defendant
        sheets = list(self.sheets)
        who, whom = self.players[seat], self.players[other]
        if face in rules["win_faces"]:
            amount = min(face * rules["win_multiplier"], sheets[other].money)
            sheets[seat] = sheets[seat].pay(amount, "lawsuits")
            sheets[other] = sheets[other].pay(-amount, "lawsuits")
            text = f"{who} wins the lawsuit ({face}): {whom} pays ${amount}"
        elif face in rules["lost_faces"]:
            amount = min(rules["lost_payment"], sheets[seat].money)
            sheets[seat] = sheets[seat].pay(-amount, "lawsuits")
            sheets[other] = sheets[other].pay(amount, "lawsuits")
            text = f"{who} loses the lawsuit ({face}): pays {whom} ${amount}"
        else:
            text = f"the lawsuit against {whom} is dismissed ({face})"
        state = replace(self, sheets=tuple(sheets), defendant=None, stage="lawsuit", log=(text,))
        return state._next_actor()

    def _cure(self, faces: list[int]) -> ColonyState:
        seat, tries = self.seat, self._cure_tries(self.seat)
        sheet = self.sheets[seat]
        cured = [cell for i, cell in enumerate(sorted(sheet.sick))
                 if any(f in self.rules.cure_faces for f in faces[i * tries:(i + 1) * tries])]
        sheets = list(self.sheets)
        sheets[seat] = replace(sheet, sick=sheet.sick - set(cured))
        names = ", ".join(space_name(c) for c in cured) or "none"
        log = (f"{self.current_player}'s cure rolls {' '.join(map(str, faces))}: cured {names}",)
        return replace(self, sheets=tuple(sheets), log=log)._next_actor()

    # -- stepping through the turn ---------------------------------------------------------
    def _next_actor(self) -> ColonyState:
        return replace(self, actor=self.actor + 1, built=0)._settle()

    def _settle(self) -> ColonyState:
        """Run the automatic parts of the turn until a player must roll or decide."""
        state = self
        while state.stage != "over":
            if state.actor < len(state.order):
                if state._need(state.order[state.actor]) is not None:
                    return state
                state = replace(state, actor=state.actor + 1, built=0)
                continue
            index = STEPS.index(state.stage if state.stage != "lawsuit_roll" else "lawsuit")
            if index + 1 < len(STEPS):
                state = state._enter(STEPS[index + 1], settle=False)
            elif state.turn >= state.rules.turns:
                state = replace(state, stage="over", actor=0)
            else:
                count = len(state.players)
                state = replace(state, turn=state.turn + 1, events=(None,) * count,
                                prices=(None,) * count)._enter("move", settle=False)
        return state

    def _enter(self, stage: str, settle: bool = True) -> ColonyState:
        """Start ``stage`` with the first player; steps without choices happen here at once."""
        sheets, log = list(self.sheets), list(self.log)
        rules = self.rules
        for seat in range(len(sheets)):
            colony = self.colony(seat)
            sheet = sheets[seat]
            if stage == "energy":
                sheets[seat] = replace(sheet, dark=frozenset())
            elif stage == "sales":
                sheets[seat], text = self._sell_perishables(seat)
                if text:
                    log.append(text)
            elif stage == "income":
                income = colony.income()
                if income:
                    sheets[seat] = sheet.pay(income, "income")
                    log.append(f"{self.players[seat]} earns ${income} from start-up and labs")
            elif stage == "spoilage":
                event = self.event(seat)
                if event is None or event.effect != "no_spoilage":
                    sheets[seat] = sheet.with_stock(
                        [n if p in rules.keeps else 0 for p, n in zip(rules.products, sheet.stock)])
        state = replace(self, stage=stage, actor=0, built=0, sheets=tuple(sheets), log=tuple(log[-12:]))
        return state._settle() if settle else state

    def _sell_perishables(self, seat: int) -> tuple[Sheet, str]:
        """Everything that would spoil is sold at this turn's prices (selling never loses)."""
        sheet, colony, rules = self.sheets[seat], self.colony(seat), self.rules
        stock, total, sold = list(sheet.stock), 0, []
        for index, product in enumerate(rules.products):
            if product in rules.keeps or not stock[index] or not colony.sellable(product):
                continue
            price = self.price(seat, product)
            total += stock[index] * price
            sold.append(f"{stock[index]} {rules.product_name(product)} at ${price}")
            stock[index] = 0
        if not sold:
            return sheet, ""
        sheet = sheet.with_stock(stock).pay(total, "sales")
        return sheet, f"{self.players[seat]} sells {', '.join(sold)}: ${total}"

    # -- decisions -------------------------------------------------------------------------
    def _relocations(self, seat: int, first_only: bool = False) -> list[Move]:
        colony = self.colony(seat)
        if not colony.has_working("construction"):
            return []
        occupied = self.occupied()
        moves = []
        near = {n for cell in colony.at for n in self.board.neighbours[cell] if n not in occupied}
        for cell, kind in self.sheets[seat].modules:
            if colony.move_cost(kind) > self.sheets[seat].money:
                continue
            rest = {c: k for c, k in colony.at.items() if c != cell}
            for target in sorted(near | {n for n in self.board.neighbours[cell] if n not in occupied}):
                if target == cell:
                    continue
                if colony_problem(self.board, self.rules, {**rest, target: kind}) is None:
                    moves.append(Move.make("relocate", source=space_name(cell), target=space_name(target)))
                    if first_only:
                        return moves
        return moves

    def build_spaces(self, seat: int, kind: str) -> list[Cell]:
        """The free spaces where ``seat`` may build ``kind`` now (ignoring $)."""
        colony = self.colony(seat)
        if self._build_refusal(seat, kind) is not None:
            return []
        occupied = self.occupied()
        if not colony.at:
            taken = set()
            for cell in occupied:
                taken |= self.board.near(cell, self.rules.start_distance)
            candidates = [c for c in self.board.spaces if c not in taken]
        else:
            candidates = sorted({n for c in colony.at for n in self.board.neighbours[c] if n not in occupied})
        return [c for c in candidates if placement_problem(self.board, self.rules, colony.at, kind, c) is None]

    def _build_refusal(self, seat: int, kind: str) -> str | None:
        """Why ``seat`` may not build ``kind`` anywhere now (money aside), or None."""
        colony, rules = self.colony(seat), self.rules
        if self.built >= rules.builds_per_turn:
            return f"at most {rules.builds_per_turn} modules a turn"
        if not colony.at:
            return None if kind == "start_up" else "the Start-Up Module must be the colony's first module"
        if kind == "start_up":
            return "a colony has one Start-Up Module (no second colony)"
        homes = colony.cells_of("habitation")
        if homes and not any(colony.working(c) for c in homes):
            return "the habitation is dark: no building until it has energy again"
        if len(colony.at) >= rules.habitation_after and not homes and kind != "habitation":
            return f"module {rules.habitation_after + 1} of a colony must be a Habitation Module"
        return None

    def _builds(self, seat: int, first_only: bool = False) -> list[Move]:
        moves = []
        colony, money = self.colony(seat), self.sheets[seat].money
        for kind in self.rules.modules:
            if colony.build_cost(kind) > money:
                continue
            for cell in self.build_spaces(seat, kind):
                moves.append(Move.make("build", module=kind, space=space_name(cell)))
                if first_only:
                    return moves
        return moves

    def allocation_choices(self, seat: int) -> list[dict[str, int]]:
        """Representative allocations of this turn's output (any allocation within output and
        storage room is legal): the advice's, each product filled first, and nothing."""
        from companion.games import space_colony_cheeses_advice as advice
        colony = self.colony(seat)
        output = colony.output()
        rooms = {p: colony.room(p) for p in self.rules.products}
        best = advice.best_allocation(self, seat)
        choices = [best]
        for product in self.rules.products:
            if rooms[product]:
                first = {product: min(output, rooms[product])}
                rest = output - first[product]
                for other in self.rules.products:
                    if other != product and rest and rooms[other]:
                        first[other] = min(rest, rooms[other])
                        rest -= first[other]
                choices.append(first)
        choices.append({})
        unique = []
        for choice in choices:
            cleaned = {p: n for p, n in choice.items() if n}
            if cleaned not in unique:
                unique.append(cleaned)
        return unique

    def legal_moves(self) -> list[Move]:
        """Every legal move; for production, a representative set of allocations (``allocate``
        accepts any amounts within output and storage)."""
        if self.stage in ("over", "first_player") or self.dice_to_roll() is not None:
            return []
        seat, stage = self.seat, self.stage
        if stage == "move":
            return self._relocations(seat) + [Move.make("skip_move")]
        if stage == "build":
            return self._builds(seat) + [Move.make("end_build")]
        if stage == "energy":
            colony = self.colony(seat)
            return [Move.make("turn_off", space=space_name(c)) for c, k in self.sheets[seat].modules
                    if colony.working(c) and self.rules.modules[k].uses > 0]
        if stage == "production":
            return [Move.make("allocate", **a) for a in self.allocation_choices(seat)]
        if stage == "gift_boxes":
            return [Move.make("gift_boxes", count=n) for n in range(self.colony(seat).gift_boxes_possible() + 1)]
        if stage == "sales":
            stock = dict(zip(self.rules.products, self.sheets[seat].stock))
            kept = self._kept_for_sale(seat)
            ranges = {p: range(stock[p] + 1) for p in kept}
            moves = [{}]
            for product, amounts in ranges.items():
                moves = [{**m, product: n} for m in moves for n in amounts]
            return [Move.make("sell", **m) for m in moves]
        if stage == "lawsuit":
            return [Move.make("sue", defendant=self.players[s]) for s in self._defendants(seat)] + \
                [Move.make("no_lawsuit")]
        return []

    def _apply(self, move: Move) -> ColonyState:
        seat, stage, kind = self.seat, self.stage, move.kind
        expected = {"move": ("relocate", "skip_move"), "build": ("build", "end_build"), "energy": ("turn_off",),
                    "production": ("allocate",), "gift_boxes": ("gift_boxes",), "sales": ("sell",),
                    "lawsuit": ("sue", "no_lawsuit")}.get(stage, ())
        if kind not in expected:
            allowed = " or ".join(expected) or "nothing"
            raise RuleError("turn sequence", f"now is the {STEP_TITLES.get(stage, stage)} step: "
                            f"{self.current_player} may {allowed}, not {kind}")
        handler = getattr(replace(self, log=()), f"_do_{kind}")
        return handler(seat, move)

    def _space(self, move: Move, key: str) -> Cell:
        if move.get(key) is None:
            raise RuleError("map spaces", f"say which space ({key}), e.g. C4")
        return parse_space(self.board, move.get(key))

    def _do_skip_move(self, seat: int, move: Move) -> ColonyState:
        return self._next_actor()

    def _do_end_build(self, seat: int, move: Move) -> ColonyState:
        return self._next_actor()

    def _do_relocate(self, seat: int, move: Move) -> ColonyState:
        colony, sheet = self.colony(seat), self.sheets[seat]
        source, target = self._space(move, "source"), self._space(move, "target")
        if not colony.has_working("construction"):
            raise RuleError("construction module", "moving a module needs a working Construction Module")
        if source not in colony.at:
            raise RuleError("construction module", f"{self.current_player} has no module at {space_name(source)}")
        if target == source:
            raise RuleError("construction module", "a module moved must go to another space (no rebuilding in place)")
        if target in self.occupied():
            raise RuleError("one module per space", f"{space_name(target)} is taken")
        kind = colony.at[source]
        cost = colony.move_cost(kind)
        if cost > sheet.money:
            raise RuleError("construction module", f"moving the {colony.kind(source).name} costs ${cost}; "
                            f"{self.current_player} has ${sheet.money}")
        rest = {c: k for c, k in colony.at.items() if c != source}
        problem = colony_problem(self.board, self.rules, {**rest, target: kind})
        if problem:
            raise RuleError("building rules", f"after that move {problem}")
        modules = tuple(sorted({**rest, target: kind}.items()))

        def moved(cells: frozenset) -> frozenset:
            return frozenset(target if c == source else c for c in cells)
        sheet = replace(sheet, modules=modules, dark=moved(sheet.dark), sick=moved(sheet.sick)).pay(-cost, "moving")
        sheets = list(self.sheets)
        sheets[seat] = sheet
        text = f"{self.current_player} moves the {colony.kind(source).name} from {space_name(source)} to " \
               f"{space_name(target)} for ${cost}"
        return replace(self, sheets=tuple(sheets), log=(text,))._next_actor()

    def _do_build(self, seat: int, move: Move) -> ColonyState:
        colony, sheet = self.colony(seat), self.sheets[seat]
        kind = move.get("module")
        if kind not in self.rules.modules:
            raise RuleError("modules", f"there is no module {str(kind)[:30]!r}")
        module = self.rules.modules[kind]
        cell = self._space(move, "space")
        refusal = self._build_refusal(seat, kind)
        if refusal:
            raise RuleError("building rules", refusal)
        cost = colony.build_cost(kind)
        if cost > sheet.money:
            raise RuleError("money", f"a {module.name} costs ${cost}; {self.current_player} has ${sheet.money}")
        occupied = self.occupied()
        if cell in occupied:
            raise RuleError("one module per space", f"{space_name(cell)} is taken")
        if not colony.at:
            close = [c for c in occupied if cell in self.board.near(c, self.rules.start_distance)]
            if close:
                raise RuleError("colony distance", f"a colony is not started within {self.rules.start_distance} "
                                f"spaces of another colony's modules ({space_name(close[0])} is too close)")
        elif not any(n in colony.at for n in self.board.neighbours[cell]):
            raise RuleError("connected colony", f"{space_name(cell)} does not touch {self.current_player}'s colony: "
                            "every module must be connected")
        problem = placement_problem(self.board, self.rules, colony.at, kind, cell)
        if problem:
            raise RuleError("building rules", problem)
        sheet = replace(sheet, modules=tuple(sorted({**colony.at, cell: kind}.items()))).pay(-cost, "building")
        sheets = list(self.sheets)
        sheets[seat] = sheet
        text = f"{self.current_player} builds a {module.name} on {space_name(cell)} for ${cost}"
        state = replace(self, sheets=tuple(sheets), built=self.built + 1, log=(text,))
        return state if state._need(seat) else state._next_actor()

    def _do_turn_off(self, seat: int, move: Move) -> ColonyState:
        colony, sheet = self.colony(seat), self.sheets[seat]
        cell = self._space(move, "space")
        if cell not in colony.at:
            raise RuleError("energy", f"{self.current_player} has no module at {space_name(cell)}")
        module = colony.kind(cell)
        if module.producer:
            raise RuleError("energy", f"the {module.name} makes energy: it is never turned off")
        if not colony.working(cell):
            raise RuleError("energy", f"the {module.name} at {space_name(cell)} is dark already")
        if module.uses == 0:
            raise RuleError("energy", f"the {module.name} uses no energy: turning it off saves nothing")
        sheets = list(self.sheets)
        sheets[seat] = replace(sheet, dark=sheet.dark | {cell})
        state = replace(self, sheets=tuple(sheets),
                        log=(f"{self.current_player} turns off the {module.name} at {space_name(cell)}",))
        return state if state._need(seat) else state._next_actor()

    def _amounts(self, move: Move, allowed: Sequence[str]) -> dict[str, int]:
        amounts = {}
        for key, value in move.params:
            if key not in allowed:
                names = ", ".join(allowed)
                raise RuleError("products", f"{key!r} is not one of the products here ({names})")
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise RuleError("products", f"{key}: a whole number of units, 0 or more, not {value!r}")
            amounts[key] = value
        return amounts

    def _do_allocate(self, seat: int, move: Move) -> ColonyState:
        colony, sheet, rules = self.colony(seat), self.sheets[seat], self.rules
        amounts = self._amounts(move, rules.products)
        output = colony.output()
        if sum(amounts.values()) > output:
            raise RuleError("production", f"the barns make {output} units this turn, not {sum(amounts.values())}")
        for product, amount in amounts.items():
            room = colony.room(product)
            if amount > room:
                name = rules.product_name(product)
                if not colony.capacity(product):
                    raise RuleError("storage", f"no working {name} storage: {name} cannot be made")
                raise RuleError("storage", f"room for {room} more {name}, not {amount}")
        stock = [n + amounts.get(p, 0) for p, n in zip(rules.products, sheet.stock)]
        sheets = list(self.sheets)
        sheets[seat] = sheet.with_stock(stock)
        made = ", ".join(f"{n} {rules.product_name(p)}" for p, n in amounts.items() if n) or "nothing"
        lost = output - sum(amounts.values())
        text = f"{self.current_player} makes {made}" + (f" ({lost} units lost)" if lost else "")
        return replace(self, sheets=tuple(sheets), log=(text,))._next_actor()

    def _do_gift_boxes(self, seat: int, move: Move) -> ColonyState:
        count, most = move.get("count"), self.colony(seat).gift_boxes_possible()
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= most:
            raise RuleError("catalog store", f"gift boxes: 0 to {most} (one cheese and one beef each)")
        sheet, products = self.sheets[seat], self.rules.products
        stock = [n - count if p in ("cheese", "beef") else n for p, n in zip(products, sheet.stock)]
        sheets = list(self.sheets)
        sheets[seat] = sheet.with_stock(stock).pay(count * self.rules.gift_box_price, "gift boxes")
        text = f"{self.current_player} sells {count} gift box{'es' if count != 1 else ''} " \
               f"for ${count * self.rules.gift_box_price}"
        return replace(self, sheets=tuple(sheets), log=(text,))._next_actor()

    def _do_sell(self, seat: int, move: Move) -> ColonyState:
        rules, sheet = self.rules, self.sheets[seat]
        amounts = self._amounts(move, self._kept_for_sale(seat))
        stock, total, sold = list(sheet.stock), 0, []
        for product, amount in amounts.items():
            index = rules.products.index(product)
            if amount > stock[index]:
                raise RuleError("sales", f"{self.current_player} has {stock[index]} {rules.product_name(product)}, "
                                f"not {amount}")
            price = self.price(seat, product)
            stock[index] -= amount
            total += amount * price
            if amount:
                sold.append(f"{amount} {rules.product_name(product)} at ${price}")
        sheets = list(self.sheets)
        sheets[seat] = sheet.with_stock(stock).pay(total, "sales")
        text = f"{self.current_player} sells {', '.join(sold)}: ${total}" if sold else \
            f"{self.current_player} sells no leather or manure this turn"
        return replace(self, sheets=tuple(sheets), log=(text,))._next_actor()

    def _do_sue(self, seat: int, move: Move) -> ColonyState:
        name = move.get("defendant")
        if name not in self.players or name == self.current_player:
            raise RuleError("law office", f"sue another player by name, not {str(name)[:30]!r}")
        other = self.players.index(name)
        minimum = self.rules.lawsuit["minimum_money"]
        if self.sheets[other].money < minimum:
            raise RuleError("law office", f"{name} has ${self.sheets[other].money}: a player with less than "
                            f"${minimum} cannot be sued")
        return replace(self, stage="lawsuit_roll", defendant=other,
                       log=(f"{self.current_player} sues {name}",))

    def _do_no_lawsuit(self, seat: int, move: Move) -> ColonyState:
        return self._next_actor()

    # -- scores, alerts, text ----------------------------------------------------------------
    def score_breakdown(self) -> dict[str, dict[str, int]]:
        return {p: dict(zip(LEDGER, self.sheets[i].ledger)) for i, p in enumerate(self.players)}

    def scores(self) -> dict[str, int]:
        return {p: self.sheets[i].money for i, p in enumerate(self.players)}

    def alerts(self) -> list[Alert]:
        if self.stage == "over":
            winners = self.winners()
            if len(winners) > 1:
                text = f"game over after {self.rules.turns} turns: a tie between {' and '.join(winners)}"
            else:
                text = f"game over after {self.rules.turns} turns: {winners[0]} won"
            return [Alert("game_over", text, "info", tuple(winners))]
        alerts = [Alert("happened", text, "info") for text in self.log]
        if self.stage == "first_player":
            return alerts
        if self.turn == self.rules.turns and self.stage in ("move", "build"):
            alerts.append(Alert("final_round", f"turn {self.turn} is the last: the richest colony wins", "warning"))
        seat = self.seat
        colony = self.colony(seat)
        if self.stage == "energy" and colony.shortage():
            alerts.append(Alert("energy_shortage", f"{self.players[seat]} is {colony.shortage()} energy short: "
                                "turn off modules until the rest have energy", "warning", (self.players[seat],)))
        if STEPS.index("production") <= STEPS.index(self.stage if self.stage != "lawsuit_roll" else "lawsuit") \
                <= STEPS.index("sales"):
            for s, player in enumerate(self.players):
                colony = self.colony(s)
                spoils = [p for p, n in zip(self.rules.products, self.sheets[s].stock)
                          if n and p not in self.rules.keeps and not colony.sellable(p)]
                if spoils:
                    alerts.append(Alert("spoilage", f"{player} cannot sell {', '.join(map(self.rules.product_name, spoils))}"
                                        ": it spoils at the end of the turn", "warning", (player,)))
        for s, player in enumerate(self.players):
            if self.colony(s).diseases() >= self.rules.max_diseases:
                alerts.append(Alert("four_diseases", f"{player} has {self.rules.max_diseases} diseases: only leather "
                                    "and manure can be sold", "critical", (player,)))
        return alerts

    def describe(self, move: Move) -> str:
        rules, kind = self.rules, move.kind
        if kind == "build":
            module = rules.modules.get(move.get("module"))
            if module is None:
                return "build an unknown module"
            seat = self.seat if self.seat is not None else 0
            return f"build a {module.name} on {move.get('space')} (${self.colony(seat).build_cost(module.key)})"
        if kind == "relocate":
            return f"move the module at {move.get('source')} to {move.get('target')}"
        if kind == "turn_off":
            try:
                cell = parse_space(self.board, move.get("space"))
                seat = next(s for s, sheet in enumerate(self.sheets) if cell in sheet.colony)
                name = self.colony(seat).kind(cell).name
            except (RuleError, StopIteration):
                name = "module"
            return f"turn off the {name} at {move.get('space')}"
        if kind == "allocate":
            made = ", ".join(f"{n} {rules.product_name(p)}" for p, n in move.params if n)
            return f"make {made or 'nothing'}"
        if kind == "gift_boxes":
            return f"sell {move.get('count')} gift boxes"
        if kind == "sell":
            sold = ", ".join(f"{n} {rules.product_name(p)}" for p, n in move.params if n)
            return f"sell {sold}" if sold else "sell none (keep them for a later turn)"
        if kind == "sue":
            return f"sue {move.get('defendant')}"
        return {"skip_move": "move no module", "end_build": "build nothing more this turn",
                "no_lawsuit": "file no lawsuit"}.get(kind, kind)

    # -- the touchscreen view ---------------------------------------------------------------
    def board_view(self) -> dict:
        """Everything a touchscreen panel draws, labels in player words.  Keys:

        - ``turn`` / ``turns``: this turn (1-15) and the number of turns; ``first_player``.
        - ``map``: ``width``, ``height``, ``maps`` (1 or 2 side by side), ``source`` ("default" while
          the layout is ours) and ``spaces``: one dict per space with ``space`` (e.g. "C4"), ``row``,
          ``column`` (from 0), ``shape`` ("octagon"/"square"), ``fault_line``, ``lush_pasture``, and
          ``module``: None or {``owner``, ``name``, ``dark``, ``sick``}.
        - ``players``: per player {``player``, ``money``, ``colony``: the modules ({``space``, ``name``,
          ``dark``, ``sick``}), ``energy``: {``made``, ``used``, ``short``}, ``output`` (dairy output now),
          ``diseases``, ``sheets``: {``score``: {``money``, ``ledger``: [{``label``, ``amount``}]},
          ``commodities``: [{``product``, ``stored``, ``storage`` (built), ``room`` (working storage not
          yet filled: what production may add), ``price``}] (price None before the roll)},
          ``event``: None or {``dice``, ``text``, ``default``}}.
        - ``steps``: the turn's checklist [{``step``, ``title``, ``state``: "done"/"current"/"to do"}].
        - ``current``: {``player``, ``step`` (title), ``action``: "roll"/"decide"/None}.
        - ``roll``: None or {``player``, ``reason``, ``dice`` (count), ``order``: what each die stands for,
          in reading order}.
        - ``event``: the current player's event this turn in words (None before it is rolled).
        - ``defaults``: which values are defaults, not the rule text: ``modules`` [{``name``, ``cost``,
          ``makes``, ``uses``, ``income``, ``default``: list of the default figures}], ``events``
          [{``dice``, ``text``, ``default``}], ``map_default``.
        - ``moves``: the move kinds a panel sends now, with their params: a tap on a map space in the
          build step sends ``build`` {``module``: module key from ``module_keys``, ``space``}; in the
          move step ``relocate`` {``source``, ``target``} or ``skip_move``; ``end_build``; in the energy
          step a tap on a lit module sends ``turn_off`` {``space``}; production sends ``allocate``
          {product key: units, ...} (keys in ``product_keys``, any amounts within output and storage);
          ``gift_boxes`` {``count``}; ``sell`` {``leather``, ``manure``: units}; ``sue`` {``defendant``:
          player name} or ``no_lawsuit``.  ``module_keys`` and ``product_keys`` map the keys to names.
        - ``legal``: the legal moves now as JSON (what a tap may send; in the build step every module and
          space that may be built; for production a few sample allocations).
        - ``log``: what just happened, in words.
        """
        rules, board = self.rules, self.board
        legal = self.legal_moves()
        occupied = {}
        for seat, sheet in enumerate(self.sheets):
            for cell, kind in sheet.modules:
                occupied[cell] = {"owner": self.players[seat], "name": rules.modules[kind].name,
                                  "dark": cell in sheet.dark, "sick": cell in sheet.sick}
        spaces = [{"space": space_name(c), "row": c[0], "column": c[1],
                   "shape": "octagon" if c in board.octagons else "square", "fault_line": c in board.faults,
                   "lush_pasture": c in board.pastures, "module": occupied.get(c)} for c in board.spaces]
        players = []
        for seat, player in enumerate(self.players):
            colony, sheet = self.colony(seat), self.sheets[seat]
            event = self.event(seat)
            players.append({
                "player": player, "money": sheet.money,
                "colony": [{"space": space_name(c), **{k: v for k, v in occupied[c].items() if k != "owner"}}
                           for c, _ in sheet.modules],
                "energy": {"made": colony.energy_made(), "used": colony.energy_used(), "short": colony.shortage()},
                "output": colony.output(), "diseases": colony.diseases(),
                "sheets": {"score": {"money": sheet.money,
                                     "ledger": [{"label": k, "amount": v} for k, v in zip(LEDGER, sheet.ledger)]},
                           "commodities": [{"product": rules.product_name(p), "stored": sheet.stock[i],
                                            "storage": colony.capacity(p, working_only=False),
                                            "room": colony.room(p),
                                            "price": self.price(seat, p)} for i, p in enumerate(rules.products)]},
                "event": None if event is None else {"dice": event.key, "text": event.text,
                                                     "default": event.is_default}})
        if self.stage in ("over", "first_player"):
            steps = [{"step": s, "title": STEP_TITLES[s], "state": "done" if self.stage == "over" else "to do"}
                     for s in STEPS]
        else:
            now = STEPS.index("lawsuit" if self.stage == "lawsuit_roll" else self.stage)
            steps = [{"step": s, "title": STEP_TITLES[s],
                      "state": "done" if i < now else "current" if i == now else "to do"} for i, s in enumerate(STEPS)]
        request = self.dice_to_roll()
        seat = self.seat
        action = None if seat is None else "roll" if request else "decide"
        step_title = {"first_player": "roll for the first player", "over": "game over",
                      "lawsuit_roll": "lawsuit roll"}.get(self.stage, STEP_TITLES.get(self.stage, self.stage))
        event = self.event(seat) if seat is not None and self.stage not in ("first_player",) else None
        return {
            "turn": self.turn, "turns": rules.turns,
            "first_player": self.players[self.order[0]] if self.order else None,
            "map": {"width": board.width, "height": board.height, "maps": board.maps, "source": board.source,
                    "spaces": spaces},
            "players": players, "steps": steps,
            "current": {"player": self.current_player, "step": step_title, "action": action},
            "roll": None if request is None else {"player": request.player, "reason": request.reason,
                                                  "dice": request.count, "order": self.roll_order()},
            "event": None if event is None else f"{event.key}: {event.text}",
            "defaults": {
                "modules": [{"name": m.name, "cost": m.cost, "makes": m.makes, "uses": m.uses, "income": m.income,
                             "default": [f for f in ("cost", "makes", "uses", "income") if m.is_default(f)]}
                            for m in rules.modules.values()],
                "events": [{"dice": e.key, "text": e.text, "default": e.is_default} for e in rules.events.values()],
                "map_default": board.source == "default"},
            "moves": sorted({m.kind for m in legal}),
            "legal": [m.to_json() for m in legal],
            "module_keys": {k: m.name for k, m in rules.modules.items()},
            "product_keys": {p: rules.product_name(p) for p in rules.products},
            "log": list(self.log),
        }

    # -- JSON ------------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "game": self.game.name, "players": list(self.players), "options": dict(self.options), "seed": self.seed,
            "stage": self.stage, "turn": self.turn, "order": [self.players[s] for s in self.order],
            "actor": self.actor, "tied": [self.players[s] for s in self.tied], "built": self.built,
            "events": list(self.events), "prices": [None if p is None else list(p) for p in self.prices],
            "defendant": None if self.defendant is None else self.players[self.defendant],
            "log": list(self.log),
            "sheets": [{"money": s.money, "modules": {space_name(c): k for c, k in s.modules},
                        "dark": sorted(space_name(c) for c in s.dark), "sick": sorted(space_name(c) for c in s.sick),
                        "stock": dict(zip(self.rules.products, s.stock)), "ledger": dict(zip(LEDGER, s.ledger))}
                       for s in self.sheets],
        }


# -- the game -----------------------------------------------------------------------------


class SpaceColonyCheeses(Game):
    name = "space-colony-cheeses"
    title = "Space Colony Cheeses"
    min_players = int(DATA["game"]["min_players"])
    max_players = int(DATA["game"]["max_players"])
    options = (
        Option("price_rolls", "shared",
               "who rolls the prices: shared = one player (the first player) rolls a die per product for everyone "
               "(the turn sequence); each = every player rolls their own (the space port text says prices differ "
               "per player)", choices=PRICE_ROLLS),
    )

    def score_words(self, score: int) -> str:
        return f"${score}"

    def new_game(self, players: Sequence[str], options: Mapping[str, Any] | None = None,
                 seed: int = 0) -> ColonyState:
        """A new game: everyone rolls one die for the first player."""
        players = self.check_players(players)
        resolved = self.resolve_options(options)
        rules = load_rules()
        count = len(players)
        sheets = tuple(Sheet(rules.start_money, ledger=(rules.start_money,) + (0,) * (len(LEDGER) - 1))
                       for _ in players)
        return ColonyState(self, rules, load_board(1 if count <= 2 else 2), tuple(sorted(resolved.items())),
                           players, seed, sheets, tied=tuple(range(count)), events=(None,) * count,
                           prices=(None,) * count)

    def _read_state(self, data: Mapping) -> ColonyState:
        players = self.check_players(list(data["players"]))
        resolved = self.resolve_options(data.get("options") or {})
        rules = load_rules()
        board = load_board(1 if len(players) <= 2 else 2)
        count = len(players)

        def whole(value: Any, what: str, low: int = 0, high: int | None = None) -> int:
            if not isinstance(value, int) or isinstance(value, bool) or value < low or (high is not None and value > high):
                limit = f" to {high}" if high is not None else " or more"
                raise UserError(f"{what} must be a whole number {low}{limit}, not {value!r}")
            return value

        def seat(name: Any) -> int:
            if name not in players:
                raise UserError(f"no player {name!r}")
            return players.index(name)

        def cell(name: Any) -> Cell:
            try:
                return parse_space(board, name)
            except RuleError as exc:
                raise UserError(exc.detail) from exc

        def per_player(values: Any, what: str) -> list:
            values = list(values)
            if len(values) != count:
                raise UserError(f"{what}: one entry per player")
            return values

        stage = data["stage"]
        if stage not in STEPS + ("first_player", "lawsuit_roll", "over"):
            raise UserError(f"unknown stage {stage!r}")
        sheets, taken = [], set()
        for entry in per_player(data["sheets"], "sheets"):
            modules = {}
            for name, kind in dict(entry["modules"]).items():
                if kind not in rules.modules:
                    raise UserError(f"unknown module {kind!r}")
                at = cell(name)
                if at in taken:
                    raise UserError(f"two modules on {space_name(at)}")
                taken.add(at)
                modules[at] = kind
            if modules and list(modules.values()).count("start_up") != 1:
                raise UserError("a colony has exactly one Start-Up Module")
            problem = colony_problem(board, rules, modules)
            if problem:
                raise UserError(problem)
            dark = frozenset(cell(n) for n in entry.get("dark", ()))
            sick = frozenset(cell(n) for n in entry.get("sick", ()))
            if not dark <= set(modules) or any(rules.modules[modules[c]].producer for c in dark):
                raise UserError("dark modules are the colony's modules that do not make energy")
            if not sick <= {c for c, k in modules.items() if rules.modules[k].herds}:
                raise UserError("sick modules are the colony's barns")
            if len(sick) > rules.max_diseases:
                raise UserError(f"at most {rules.max_diseases} diseases")
            stock_data = dict(entry["stock"])
            if set(stock_data) - set(rules.products):
                raise UserError(f"unknown products {sorted(set(stock_data) - set(rules.products))}")
            colony = Colony(rules, board, Sheet(0, tuple(sorted(modules.items()))))
            stock = tuple(whole(stock_data.get(p, 0), f"stored {p}", 0, colony.capacity(p, working_only=False))
                          for p in rules.products)
            ledger_data = dict(entry["ledger"])
            if set(ledger_data) != set(LEDGER):
                raise UserError(f"the ledger has the entries {', '.join(LEDGER)}")
            if any(not isinstance(v, int) or isinstance(v, bool) for v in ledger_data.values()):
                raise UserError("the ledger holds whole numbers of $")
            ledger = tuple(ledger_data[k] for k in LEDGER)
            money = whole(entry["money"], "money")
            if sum(ledger) != money:
                raise UserError("the ledger does not add up to the money")
            sheets.append(Sheet(money, tuple(sorted(modules.items())), dark, sick, stock, ledger))
        order = tuple(seat(n) for n in data.get("order") or ())
        if stage != "first_player" and sorted(order) != list(range(count)):
            raise UserError("order names every player once")
        tied = tuple(seat(n) for n in data.get("tied") or ())
        if stage == "first_player" and not tied:
            raise UserError("the roll for the first player needs the players rolling")
        events = tuple(per_player(data.get("events") or [None] * count, "events"))
        for key in events:
            if key is not None and key not in rules.events:
                raise UserError(f"unknown event {key!r}")
        prices = []
        for faces in per_player(data.get("prices") or [None] * count, "prices"):
            if faces is not None:
                faces = tuple(whole(f, "price die", 1, 6) for f in faces)
                if len(faces) != len(rules.products):
                    raise UserError("a price roll is one die per product")
            prices.append(faces)
        defendant = data.get("defendant")
        state = ColonyState(
            self, rules, board, tuple(sorted(resolved.items())), players, int(data.get("seed", 0)), tuple(sheets),
            stage, whole(data["turn"], "turn", 1, rules.turns), order,
            whole(data.get("actor", 0), "actor", 0, count), tied, whole(data.get("built", 0), "built", 0,
                                                                        rules.builds_per_turn),
            events, tuple(prices), None if defendant is None else seat(defendant),
            tuple(str(t) for t in data.get("log") or ())[-12:])
        if stage == "lawsuit_roll" and (state.defendant is None or state.actor >= count):
            raise UserError("a lawsuit roll needs a defendant")
        if stage == "prices" and state.price_rolls == "shared" and 0 < state.actor < count:
            raise UserError("shared prices are rolled by the first player")
        if stage not in ("first_player", "over"):
            state = state._settle()
        return state

    def advise(self, state: GameState) -> list[Suggestion]:
        from companion.games import space_colony_cheeses_advice
        return space_colony_cheeses_advice.advise(state)

    def best_move(self, state: GameState) -> Move | None:
        from companion.games import space_colony_cheeses_advice
        return space_colony_cheeses_advice.best_move(state)

    def describe(self) -> dict:
        info = super().describe()
        rules = load_rules()
        info["modules"] = [{"key": m.key, "name": m.name, "cost": m.cost, "makes": m.makes, "uses": m.uses,
                            "income": m.income, "default": [f for f in ("cost", "makes", "uses", "income")
                                                            if m.is_default(f)]} for m in rules.modules.values()]
        info["events"] = [{"dice": e.key, "text": e.text, "default": e.is_default} for e in rules.events.values()]
        defaults = [e.key for e in rules.events.values() if e.is_default]
        info["notes"] = [
            "module costs and energy figures the rule text leaves out are defaults (space_colony_cheeses.toml)",
            f"random events {defaults[0]} to {defaults[-1]} are defaults; 1-1 to 4-6 follow the printed table",
            (f"the map is {'our default layout' if load_board().source == 'default' else 'from the data file'}: "
             "edit it to match a printed map")]
        return info


GAME = SpaceColonyCheeses()
