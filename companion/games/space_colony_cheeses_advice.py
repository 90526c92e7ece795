"""Advice for Space Colony Cheeses.

Every figure is expected $ at the prices a die gives on average (3.5, leather 2 after its cap,
manure 1, moved by the turn's event once it is known; the rolled prices once they are).

- Build: each legal placement of each affordable module with its effect on energy, dairy
  output, storage and expected income per turn; ``expected_income`` is that change times the
  turns left, ``net`` subtracts the price.  Colonies are valued by their module counts (the
  building rules put every barn and storage next to a plant), short energy met by turning off
  what earns least per unit of energy.  A module that pays only together with others is
  valued with them (``with``): solar panels for its energy, storage for a barn's output, the
  rest of the core (processing plant, barn, storage, space port) for a new colony, a barn and
  storage for a new plant when the old ones are hemmed in, and for a habitation at the module
  limit the best module it lets the colony build.  When the best set costs more than the
  player has, the advice is to save up (build nothing more this turn).
- Production: the allocation with the highest expected sales within storage (cheese and beef
  in pairs first when gift boxes sell, then the dearest products; with linear prices this
  greedy fill is the optimum).
- Energy: which module to turn off to lose the least expected income (a dark habitation
  counts as ``dark_habitation_cost``: it stops all building).
- Gift boxes, sales of leather and manure, lawsuits: the expected $ of each choice.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace

from companion.engine import Move, Suggestion
from companion.games.space_colony_cheeses import (
    Cell,
    Colony,
    ColonyState,
    Rules,
    Sheet,
    base_price,
    event_price_changes,
    space_name,
)

CORE = ("processing_plant", "barn", "space_port")
"""Modules every earning colony needs (with some storage)."""


# -- prices ----------------------------------------------------------------------------------


def expected_prices(state: ColonyState, seat: int) -> dict[str, float]:
    """This turn's price of each product for ``seat``: rolled, or expected (event applied)."""
    rules = state.rules
    if state.prices and state.prices[seat] is not None:
        return {p: float(state.price(seat, p)) for p in rules.products}
    changes = event_price_changes(rules, state.event(seat))
    prices = {}
    for product in rules.products:
        faces = [base_price(rules, product, f) for f in range(1, 7)]
        prices[product] = sum(max(0, f + changes.get(product, 0)) for f in faces) / 6
    return prices


def average_prices(rules: Rules) -> dict[str, float]:
    """The average price a die gives each product (leather after its cap, manure fixed)."""
    key = id(rules)
    if key not in _AVERAGES:
        _AVERAGES[key] = {p: sum(base_price(rules, p, f) for f in range(1, 7)) / 6 for p in rules.products}
    return _AVERAGES[key]


_AVERAGES: dict[int, dict[str, float]] = {}


# -- production ------------------------------------------------------------------------------


def allocate(rules: Rules, output: int, rooms: Mapping[str, int], values: Mapping[str, float],
             gift_value: float | None, order: Sequence[str] | None = None) -> dict[str, int]:
    """The allocation of ``output`` with the highest value: cheese and beef pairs first when a
    pair is worth more as a gift box, then the dearest products first (``order``: the products
    dearest first, when the caller has it)."""
    left, amounts = output, dict.fromkeys(rules.products, 0)
    if gift_value is not None and gift_value > values["cheese"] + values["beef"]:
        pairs = min(rooms["cheese"], rooms["beef"], left // 2)
        amounts["cheese"] = amounts["beef"] = pairs
        left -= 2 * pairs
    for product in order or dearest_first(rules, values):
        if left <= 0 or values[product] <= 0:
            continue
        take = min(left, rooms[product] - amounts[product])
        amounts[product] += take
        left -= take
    return {p: n for p, n in amounts.items() if n}


def dearest_first(rules: Rules, values: Mapping[str, float]) -> list[str]:
    return sorted(rules.products, key=lambda p: (-values[p], rules.products.index(p)))


def allocation_value(rules: Rules, amounts: Mapping[str, int], values: Mapping[str, float],
                     gift_value: float | None) -> float:
    pairs = min(amounts.get("cheese", 0), amounts.get("beef", 0)) if gift_value is not None else 0
    if pairs and gift_value <= values["cheese"] + values["beef"]:
        pairs = 0
    total = sum(n * values[p] for p, n in amounts.items())
    return total + pairs * (gift_value - values["cheese"] - values["beef"]) if pairs else total


def _product_values(state: ColonyState, seat: int, sellable) -> dict[str, float]:
    """What a unit of each product is worth to ``seat`` this turn: its price if ``sellable``,
    else a share of its average price if it keeps for a later turn, else nothing."""
    rules, prices = state.rules, expected_prices(state, seat)
    later = state.turns_left() > 1
    values = {}
    for product in rules.products:
        if sellable(product):
            values[product] = prices[product]
        elif product in rules.keeps and later:
            values[product] = average_prices(rules)[product] * rules.advice["stored_keep_value"]
        else:
            values[product] = 0.0
    return values


def _unit_values(state: ColonyState, colony: Colony, seat: int) -> tuple[dict[str, float], float | None]:
    """What a unit of each product is worth to ``seat`` this turn, and a gift box (None: none sold)."""
    rules = state.rules
    values = _product_values(state, seat, colony.sellable)
    gift = None
    if colony.has_working("catalog_store") and colony.can_trade() and colony.diseases() < rules.max_diseases:
        gift = float(rules.gift_box_price)
    return values, gift


def best_allocation(state: ColonyState, seat: int) -> dict[str, int]:
    colony = state.colony(seat)
    values, gift = _unit_values(state, colony, seat)
    rooms = {p: colony.room(p) for p in state.rules.products}
    return allocate(state.rules, colony.output(), rooms, values, gift)


# -- expected income of a colony -------------------------------------------------------------


def _lawsuit_value(state: ColonyState, seat: int, colony: Colony) -> float:
    if not colony.has_working("law_office") or len(state.players) < 2:
        return 0.0
    return max(0.0, lawsuit_expectation(state, seat, max(range(len(state.players)),
                                                         key=lambda s: -1 if s == seat else state.sheets[s].money)))


class DarkTrials:
    """Expected income of one colony with different modules dark, worked out fast: what does
    not depend on which modules are dark (the plants each barn reaches, the prices, lawsuits)
    is found once."""

    def __init__(self, state: ColonyState, seat: int, sheet: Sheet):
        rules = self.rules = state.rules
        self.modules, self.dark = sheet.modules, sheet.dark
        lit = Colony(rules, state.board, replace(sheet, dark=frozenset()))
        per_herd = {True: rules.lush_barn_output, False: rules.barn_output}
        self.barns = [(cell, rules.modules[kind].herds * per_herd[cell in state.board.pastures],
                       [n for n in lit.linked(cell) if lit.at[n] == "processing_plant"])
                      for cell, kind in sheet.modules if rules.modules[kind].herds and cell not in sheet.sick]
        four = len(sheet.sick) >= rules.max_diseases
        self.values = {True: _product_values(state, seat, lambda p: not four or p in rules.four_disease_sales),
                       False: _product_values(state, seat, lambda p: False)}
        self.orders = {trade: dearest_first(rules, values) for trade, values in self.values.items()}
        self.gift = None if four else float(rules.gift_box_price)
        self.suit = _lawsuit_value(state, seat, lit) if lit.has_working("law_office") else 0.0
        self.made = lit.energy_made()
        self.homeless = float(rules.advice["dark_habitation_cost"]) if state.turns_left() > 1 else 0.0

    def short(self, dark: frozenset[Cell]) -> bool:
        modules = self.rules.modules
        return sum(modules[k].uses for c, k in self.modules if c not in dark) > self.made

    def income(self, dark: frozenset[Cell]) -> float:
        """Expected $ a turn with ``dark`` modules off (no habitation penalty)."""
        rules, modules = self.rules, self.rules.modules
        kinds: dict[str, int] = {}
        rooms = dict.fromkeys(rules.products, 0)
        earned = 0
        for cell, kind in self.modules:
            if cell in dark:
                continue
            kinds[kind] = kinds.get(kind, 0) + 1
            module = modules[kind]
            earned += module.income
            if module.stores:
                rooms[module.stores] += rules.storage_per_module
        trade = kinds.get("space_port", 0) > 0
        gift = self.gift if trade and kinds.get("catalog_store") else None
        output = sum(out for cell, out, plants in self.barns
                     if cell not in dark and any(p not in dark for p in plants))
        values = self.values[trade]
        amounts = allocate(rules, output, rooms, values, gift, self.orders[trade])
        total = allocation_value(rules, amounts, values, gift) + earned
        return total + self.suit if kinds.get("law_office") else total

    def penalty(self, dark: frozenset[Cell]) -> float:
        homes = [c for c, k in self.modules if k == "habitation"]
        return self.homeless if homes and all(c in dark for c in homes) else 0.0

    def cheapest(self, dark: frozenset[Cell]) -> Cell:
        """The lit module whose going dark loses the least expected income (habitations last)."""
        modules = self.rules.modules
        options = []
        for cell, kind in self.modules:
            if not modules[kind].uses or cell in dark:
                continue
            trial = dark | {cell}
            options.append((self.income(trial) - self.penalty(trial), -modules[kind].uses, cell))
        return max(options)[2]

    def powered(self) -> tuple[float, frozenset[Cell]]:
        """Expected income after the energy balance: besides the modules dark already, modules
        turned off one by one, each time the one whose loss costs least, until the rest have energy."""
        dark = self.dark
        while self.short(dark):
            dark = dark | {self.cheapest(dark)}
        return self.income(dark), dark


def powered_income(state: ColonyState, seat: int, sheet: Sheet) -> tuple[float, frozenset[Cell]]:
    return DarkTrials(state, seat, sheet).powered()


# -- the abstract colony: module counts, for build plans --------------------------------------


class AbstractIncome:
    """Expected $ a turn of a colony given by module counts (every barn and storage next to a
    plant, as the building rules make them), energy shortages resolved by turning off kinds in the order :meth:`rank` sets.
    What does not depend on the counts (prices, the event, lawsuits) is worked out once."""

    def __init__(self, state: ColonyState, seat: int, sick_herds: int):
        rules = self.rules = state.rules
        self.sick_herds = sick_herds
        later = state.turns_left() > 1
        prices = average_prices(rules)
        changes = event_price_changes(rules, state.event(seat))
        self.trading, self.idle = {}, {}
        for product in rules.products:
            price = max(0.0, prices[product] + changes.get(product, 0))
            self.trading[product] = price
            self.idle[product] = price * rules.advice["stored_keep_value"] if product in rules.keeps and later else 0.0
        self.trading_order, self.idle_order = dearest_first(rules, self.trading), dearest_first(rules, self.idle)
        minimum = rules.lawsuit["minimum_money"]
        someone_to_sue = any(sheet.money >= minimum for s, sheet in enumerate(state.sheets) if s != seat)
        self.suit = max(0.0, _suit_value(state)) if someone_to_sue else 0.0
        self.dark_home = float(rules.advice["dark_habitation_cost"]) if later else 0.0

    def __call__(self, counts: Mapping[str, int], lush_herds: int) -> float:
        modules = self.rules.modules
        made = used = 0
        for kind, n in counts.items():
            made += modules[kind].makes * n
            used += modules[kind].uses * n
        counts = dict(counts)
        for kind in self.sacrifice:
            while used > made and counts.get(kind):
                counts[kind] -= 1
                used -= modules[kind].uses
        return self.powered(counts, lush_herds) - self.homeless(counts)

    def rank(self, base: Mapping[str, int], lush_herds: int) -> None:
        """Order the kinds to turn off when energy runs short: least income per energy first,
        each valued by what one more of it adds to the colony ``base``."""
        modules, before = self.rules.modules, self.powered(base, lush_herds)
        worth = {}
        for kind, module in modules.items():
            if module.uses:
                gain = self.powered(_plus(base, {kind: 1}), lush_herds) - before
                worth[kind] = (gain + (self.dark_home if kind == "habitation" else 0.0)) / module.uses
        self.sacrifice = sorted(worth, key=lambda k: (worth[k], -modules[k].uses))

    def homeless(self, counts: Mapping[str, int]) -> float:
        """What a colony that had a habitation loses with none lit: no more building."""
        return self.dark_home if counts.get("habitation") == 0 else 0.0

    def powered(self, counts: Mapping[str, int], lush_herds: int) -> float:
        """The income with every module in ``counts`` working."""
        rules, modules = self.rules, self.rules.modules
        trade = counts.get("space_port", 0) > 0
        values, order = (self.trading, self.trading_order) if trade else (self.idle, self.idle_order)
        gift = float(rules.gift_box_price) if trade and counts.get("catalog_store") else None
        herds = income = 0
        rooms = dict.fromkeys(rules.products, 0)
        for kind, n in counts.items():
            module = modules[kind]
            herds += module.herds * n
            income += module.income * n
            if module.stores:
                rooms[module.stores] += n * rules.storage_per_module
        healthy = max(0, herds - round(self.sick_herds * self.rules.advice["sick_share"]))
        lush = min(lush_herds, healthy)
        output = lush * rules.lush_barn_output + (healthy - lush) * rules.barn_output \
            if counts.get("processing_plant") else 0
        amounts = allocate(rules, output, rooms, values, gift, order) if output else {}
        total = income + allocation_value(rules, amounts, values, gift)
        return total + self.suit if counts.get("law_office") else total


def _suit_value(state: ColonyState) -> float:
    rules = state.rules.lawsuit
    win = sum(f * rules["win_multiplier"] for f in rules["win_faces"]) / 6
    return win - len(rules["lost_faces"]) * rules["lost_payment"] / 6


def _plus(counts: Mapping[str, int], more: Mapping[str, int]) -> dict[str, int]:
    total = dict(counts)
    for kind, n in more.items():
        total[kind] = total.get(kind, 0) + n
    return total


class Planner:
    """Values each kind of module for one player's build step."""

    def __init__(self, state: ColonyState, seat: int):
        self.state, self.seat, self.rules = state, seat, state.rules
        colony = state.colony(seat)
        self.colony = colony
        self.counts = dict(Counter(k for _, k in colony.sheet.modules))
        self.lush = sum(self.rules.modules[k].herds for c, k in colony.sheet.modules if c in state.board.pastures)
        self.sick = sum(self.rules.modules[colony.at[c]].herds for c in colony.sheet.sick)
        self.turns = state.turns_left()
        self.money = colony.sheet.money
        self.memo: dict[tuple, float] = {}
        self.values: dict[tuple[str, bool], dict] = {}
        self.abstract = AbstractIncome(state, seat, self.sick)
        self.abstract.rank(self.counts, self.lush)
        self.barn_room = bool(state.build_spaces(seat, "barn")) if self.counts.get("processing_plant") else True
        self.base = self.income(self.counts, self.lush)

    def possible(self, kind: str) -> bool:
        """False for a kind the building rules surely refuse now (quick test before the map)."""
        module = self.rules.modules[kind]
        if not self.counts or kind == "start_up":
            return not self.counts and kind == "start_up"
        if module.stores or module.herds:
            return self.counts.get("processing_plant", 0) > 0
        if kind == "pasture_dome":
            return any(self.rules.modules[k].herds for k in self.counts)
        return True

    def income(self, counts: Mapping[str, int], lush: int) -> float:
        key = (tuple(sorted((k, n) for k, n in counts.items() if n)), lush)
        if key not in self.memo:
            self.memo[key] = self.abstract(counts, lush)
        return self.memo[key]

    def cost(self, counts: Mapping[str, int]) -> int:
        return sum(self.colony.build_cost(k) * n for k, n in counts.items())

    def energy_fix(self, counts: Mapping[str, int]) -> dict[str, int]:
        """Solar panels that cover the energy the colony in ``counts`` lacks."""
        modules = self.rules.modules
        short = sum((modules[k].uses - modules[k].makes) * n for k, n in counts.items())
        return {"solar_panel": -(-short // modules["solar_panel"].makes)} if short > 0 else {}

    def best_storage(self, counts: Mapping[str, int]) -> str:
        values = average_prices(self.rules)
        have = {self.rules.modules[k].stores for k in counts if self.rules.modules[k].stores}
        options = [k for k, m in self.rules.modules.items() if m.stores and m.stores not in have] or \
            [k for k, m in self.rules.modules.items() if m.stores]
        return max(options, key=lambda k: values[self.rules.modules[k].stores])

    def value(self, kind: str, lush: bool = False) -> dict:
        """Figures of building one ``kind`` now (worked out once per kind): per-turn income
        change alone or with the modules it needs, over the turns left, net of the prices paid."""
        if (kind, lush) not in self.values:
            self.values[kind, lush] = self._value(kind, lush)
        return self.values[kind, lush]

    def _value(self, kind: str, lush: bool) -> dict:
        module = self.rules.modules[kind]
        herds = module.herds if lush else 0
        if kind == "habitation" and self.needs_habitation():
            return self.unlock_value(module)
        if module.stores and self.storage_idle(module.stores):
            return self.figures(module, lush, -float(self.colony.build_cost(kind)), 0.0, {})
        after = _plus(self.counts, {kind: 1})
        alone = self.income(after, self.lush + herds) - self.base
        cost = self.colony.build_cost(kind)
        plans = [(alone * self.turns - cost, alone, {}, False)]
        complete = {k: 1 for k in CORE if not after.get(k)}
        if not any(self.rules.modules[k].stores for k in after):
            complete[self.best_storage(after)] = 1
        if kind == "processing_plant" and not complete and not self.barn_room:
            complete = {"barn": 1, self.best_storage(after): 1}         # a new plant to make room for barns
        builds_left = self.rules.builds_per_turn - self.state.built
        plans_with = [(self.energy_fix(after), True)]
        if module.herds:
            stored = _plus(self.storage_fix(after), {})
            plans_with.append((_plus(stored, self.energy_fix(_plus(after, stored))), True))
        if complete:
            plans_with.append((_plus(complete, self.energy_fix(_plus(after, complete))), False))
        for partners, soon in plans_with:
            if not partners:
                continue
            price, count = cost + self.cost(partners), sum(partners.values())
            turns = self.turns if count < builds_left else self.turns - 1     # finished next turn
            if soon and (price > self.money or count > self.rules.builds_per_turn):
                continue
            if price <= self.money + 3 * max(0.0, self.base):
                gain = self.income(_plus(after, partners), self.lush + herds) - self.base
                later = price > self.money                                      # save up for it first
                plans.append((gain * (turns - later) - price, gain, partners, later))
        net, gain, partners, *later = max(plans, key=lambda p: p[0])
        figures = self.figures(module, lush, net, gain, partners)
        if later and later[0]:
            figures["save_up"] = True
        return figures

    def figures(self, module, lush: bool, net: float, gain: float, partners: Mapping[str, int]) -> dict:
        return {"net": round(net, 2), "income_per_turn": round(gain, 2),
                "expected_income": round(gain * self.turns, 2), "cost": self.colony.build_cost(module.key),
                "energy": module.makes - module.uses, "production": module.herds * (
                    self.rules.lush_barn_output if lush else self.rules.barn_output),
                "storage": self.rules.storage_per_module if module.stores else 0,
                "with": sorted(k for k, n in partners.items() for _ in range(n))}

    def needs_habitation(self) -> bool:
        return sum(self.counts.values()) >= self.rules.habitation_after and not self.counts.get("habitation")

    def unlock_value(self, module) -> dict:
        """A habitation at the module limit is worth the best module it lets the colony build."""
        cost = self.colony.build_cost(module.key)
        best = (0.0, 0.0, {})
        for kind in self.rules.modules:
            if kind in ("habitation", "start_up") or not self.possible(kind) or \
                    self.colony.build_cost(kind) + cost > self.money:
                continue
            figures = self.value(kind)
            if figures["net"] > best[0]:
                best = (figures["net"], figures["income_per_turn"], Counter([kind, *figures["with"]]))
        net, gain, partners = best
        return self.figures(module, False, net - cost, gain, partners)

    def storage_fix(self, counts: Mapping[str, int]) -> dict[str, int]:
        """Storage modules (for the dearest product) that the herds in ``counts`` need."""
        modules, per = self.rules.modules, self.rules.storage_per_module
        herds = sum(modules[k].herds * n for k, n in counts.items())
        room = sum(per * n for k, n in counts.items() if modules[k].stores)
        short = herds * self.rules.barn_output - room
        return {self.best_storage(counts): -(-short // per)} if short > 0 else {}

    def storage_idle(self, product: str) -> bool:
        """True when more storage for ``product`` cannot earn: the colony's herds already fit in
        storage for products at least as dear, and it is not half of a gift box the colony sells."""
        if self.counts.get("catalog_store") and product in ("cheese", "beef"):
            return False
        modules, prices = self.rules.modules, average_prices(self.rules)
        herds = sum(modules[k].herds * n for k, n in self.counts.items())
        most = herds * self.rules.lush_barn_output
        room = sum(self.rules.storage_per_module * n for k, n in self.counts.items()
                   if modules[k].stores and prices[modules[k].stores] >= prices[product])
        return self.counts.get("processing_plant", 0) > 0 and most <= room


def _placement_bonus(state: ColonyState, seat: int, kind: str, cell: Cell) -> float:
    """A small tie-break between spaces: plants want free space around them, other modules
    keep clear of the spaces next to a plant, and squares are used before octagons."""
    board, colony = state.board, state.colony(seat)
    occupied = state.occupied()
    module = state.rules.modules[kind]
    free = sum(1 for n in board.neighbours[cell] if n not in occupied)
    if kind == "processing_plant":
        return 0.1 * free
    if kind == "start_up":
        area = board.near(cell, 3)
        return 0.01 * len(board.near(cell, 2)) + 0.02 * len(area & board.pastures) + 0.02 * len(area & board.faults)
    near_plant = any(colony.at.get(n) == "processing_plant" for n in board.neighbours[cell])
    shape = 0.05 if cell not in board.octagons else 0.0
    if module.stores or module.herds:
        return shape + (0.05 if cell in board.pastures and module.herds else 0.0)
    return shape - (0.1 if near_plant else 0.0)


def _build_reason(state: ColonyState, kind: str, figures: dict, cell: Cell) -> str:
    name = state.rules.modules[kind].name
    if kind == "start_up":
        area = state.board.near(cell, 3)
        return (f"room to grow: {len(area & state.board.pastures)} lush pastures and "
                f"{len(area & state.board.faults)} fault-line spaces within 3 spaces")
    if figures["with"] and kind != "habitation":
        partners = ", ".join(state.rules.modules[k].name for k in figures["with"])
        return (f"{name} with {partners} adds about ${figures['income_per_turn']:.1f} a turn: "
                f"${figures['net']:.0f} net over {state.turns_left()} turns")
    if kind == "habitation" and figures["with"]:
        return f"a colony past {state.rules.habitation_after} modules needs a {name}: it opens the way to " \
               f"{', '.join(state.rules.modules[k].name for k in figures['with'])}"
    if figures["income_per_turn"] <= 0:
        return f"{name} adds no income now (${figures['cost']})"
    return f"{name} adds about ${figures['income_per_turn']:.1f} a turn: ${figures['net']:.0f} net over " \
           f"{state.turns_left()} turns"


def _build_suggestions(state: ColonyState, seat: int) -> list[Suggestion]:
    planner = Planner(state, seat)
    suggestions = []
    for move in state.legal_moves():
        if move.kind != "build":
            continue
        kind = move["module"]
        cell = _cell(state, move["space"])
        lush = cell in state.board.pastures and state.rules.modules[kind].herds > 0
        figures = dict(planner.value(kind, lush))
        score = figures["net"] + _placement_bonus(state, seat, kind, cell)
        if kind == "start_up":
            score = 1000 + _placement_bonus(state, seat, kind, cell)
        figures["score"] = round(score, 3)
        suggestions.append(Suggestion(move, state.describe(move), figures, _build_reason(state, kind, figures, cell)))
    end = Move.make("end_build")
    ranked = sorted(suggestions, key=lambda s: -s.advice["score"])
    if ranked and ranked[0].advice.get("save_up"):
        top = ranked[0]
        parts = ", ".join(state.rules.modules[k].name for k in [top.move["module"], *top.advice["with"]])
        saving = Suggestion(end, state.describe(end), {"net": 0.0, "score": top.advice["score"] + 0.01},
                            f"save up: {parts} together pay best, and cost more than you have now")
    else:
        saving = Suggestion(end, state.describe(end), {"net": 0.0, "score": 0.0},
                            "keep the money: no module pays for itself in the turns left")
    return sorted([*suggestions, saving], key=lambda s: -s.advice["score"])


def _cell(state: ColonyState, name: str) -> Cell:
    from companion.games.space_colony_cheeses import parse_space
    return parse_space(state.board, name)


def _best_build(state: ColonyState, seat: int) -> Move:
    """The top build without figuring every placement: kinds by their value, best first;
    the first with a legal space, built on its best space."""
    planner = Planner(state, seat)
    pastures = state.board.pastures
    ranked = []
    for kind, module in state.rules.modules.items():
        if planner.colony.build_cost(kind) > planner.money or not planner.possible(kind):
            continue
        for lush in ((True, False) if module.herds else (False,)):
            score = 1000.0 if kind == "start_up" else planner.value(kind, lush)["net"]
            if score > 0:
                ranked.append((score, kind, lush))
    for _, kind, lush in sorted(ranked, key=lambda r: -r[0]):
        if planner.value(kind, lush).get("save_up"):
            return Move.make("end_build")
        spaces = state.build_spaces(seat, kind)
        if state.rules.modules[kind].herds:
            spaces = [c for c in spaces if (c in pastures) == lush]
        if spaces:
            cell = max(spaces, key=lambda c: (_placement_bonus(state, seat, kind, c), [-x for x in c]))
            return Move.make("build", module=kind, space=space_name(cell))
    return Move.make("end_build")


# -- the other steps -------------------------------------------------------------------------


def lawsuit_expectation(state: ColonyState, seat: int, defendant: int) -> float:
    """The plaintiff's expected $ from suing ``defendant`` (wins capped by what they have)."""
    rules = state.rules.lawsuit
    money = state.sheets[defendant].money
    win = sum(min(f * rules["win_multiplier"], money) for f in rules["win_faces"]) / 6
    lose = sum(min(rules["lost_payment"], state.sheets[seat].money) for _ in rules["lost_faces"]) / 6
    return win - lose


def _energy_suggestions(state: ColonyState, seat: int) -> list[Suggestion]:
    """Each module that may go dark, with the income left once the shortage is covered by
    turning off the cheapest modules after it."""
    sheet = state.sheets[seat]
    suggestions = []
    for move in state.legal_moves():
        cell = _cell(state, move["space"])
        trials = DarkTrials(state, seat, replace(sheet, dark=sheet.dark | {cell}))
        income, dark = trials.powered()
        income -= trials.penalty(dark)
        module = state.rules.modules[sheet.colony[cell]]
        figures = {"income_per_turn": round(income, 2), "energy_saved": module.uses}
        reason = f"{module.name} off: about ${income:.1f} a turn still comes in"
        suggestions.append(Suggestion(move, state.describe(move), figures, reason))
    return sorted(suggestions, key=lambda s: (-s.advice["income_per_turn"], s.advice["energy_saved"]))


def _production_suggestions(state: ColonyState, seat: int) -> list[Suggestion]:
    colony = state.colony(seat)
    values, gift = _unit_values(state, colony, seat)
    suggestions = []
    for move in state.legal_moves():
        amounts = {p: n for p, n in move.params}
        value = allocation_value(state.rules, amounts, values, gift)
        figures = {"expected_sales": round(value, 2), "units": sum(amounts.values()), "output": colony.output()}
        lost = colony.output() - figures["units"]
        reason = f"expected ${value:.1f} at average prices" + (f"; {lost} units find no storage" if lost else "")
        suggestions.append(Suggestion(move, state.describe(move), figures, reason))
    return sorted(suggestions, key=lambda s: -s.advice["expected_sales"])


def _gift_suggestions(state: ColonyState, seat: int) -> list[Suggestion]:
    prices = expected_prices(state, seat)
    apart = prices["cheese"] + prices["beef"]
    box = state.rules.gift_box_price
    suggestions = []
    for move in state.legal_moves():
        count = move["count"]
        gain = count * (box - apart)
        figures = {"expected_gain": round(gain, 2), "boxes": count}
        reason = f"a box brings ${box}, its cheese and beef about ${apart:.1f} sold apart"
        suggestions.append(Suggestion(move, state.describe(move), figures, reason))
    return sorted(suggestions, key=lambda s: -s.advice["expected_gain"])


def _sales_suggestions(state: ColonyState, seat: int) -> list[Suggestion]:
    later = state.turns_left() > 1
    averages = average_prices(state.rules)
    suggestions = []
    for move in state.legal_moves():
        now = sum(n * state.price(seat, p) for p, n in move.params)
        stock = dict(zip(state.rules.products, state.sheets[seat].stock))
        sold = dict(move.params)
        kept = {p: stock[p] - sold.get(p, 0) for p in state._kept_for_sale(seat)}
        keep_value = sum(n * averages[p] for p, n in kept.items()) if later else 0.0
        figures = {"sales_now": now, "kept_value": round(keep_value, 2), "expected": round(now + keep_value, 2)}
        reason = f"${now} now" + (f", kept goods worth about ${keep_value:.1f} later" if keep_value else "")
        suggestions.append(Suggestion(move, state.describe(move), figures, reason))
    return sorted(suggestions, key=lambda s: (-s.advice["expected"], -s.advice["sales_now"]))


def _lawsuit_suggestions(state: ColonyState, seat: int) -> list[Suggestion]:
    suggestions = []
    for move in state.legal_moves():
        if move.kind == "no_lawsuit":
            figures, reason = {"expected": 0.0}, "no risk, no gain"
        else:
            other = state.players.index(move["defendant"])
            value = lawsuit_expectation(state, seat, other)
            figures = {"expected": round(value, 2), "defendant_money": state.sheets[other].money}
            reason = f"expected +${value:.1f} for you, -${value + 25 / 6:.1f} for {move['defendant']}"
        suggestions.append(Suggestion(move, state.describe(move), figures, reason))
    return sorted(suggestions, key=lambda s: (-s.advice["expected"], -s.advice.get("defendant_money", 0)))


def _move_suggestions(state: ColonyState, seat: int) -> list[Suggestion]:
    base, _ = powered_income(state, seat, state.sheets[seat])
    sheet, colony = state.sheets[seat], state.colony(seat)
    suggestions = [Suggestion(Move.make("skip_move"), "move no module", {"net": 0.0}, "nothing to gain by moving")]
    for move in state.legal_moves():
        if move.kind != "relocate":
            continue
        source, target = _cell(state, move["source"]), _cell(state, move["target"])
        kind = colony.at[source]
        modules = tuple(sorted({**{c: k for c, k in colony.at.items() if c != source}, target: kind}.items()))
        moved = Sheet(sheet.money, modules, frozenset(), frozenset(target if c == source else c for c in sheet.sick),
                      sheet.stock, sheet.ledger)
        income, _ = powered_income(state, seat, moved)
        gain = (income - base) * state.turns_left() - colony.move_cost(kind)
        figures = {"net": round(gain, 2), "income_per_turn": round(income - base, 2), "cost": colony.move_cost(kind)}
        reason = f"${income - base:+.1f} a turn for ${colony.move_cost(kind)}"
        suggestions.append(Suggestion(move, state.describe(move), figures, reason))
    return sorted(suggestions, key=lambda s: -s.advice["net"])


def advise(state: ColonyState) -> list[Suggestion]:
    """The legal moves, best first, each with figures and a one-line reason."""
    if state.is_terminal() or state.dice_to_roll() is not None:
        return []
    seat = state.seat
    handler = {"move": _move_suggestions, "build": _build_suggestions, "energy": _energy_suggestions,
               "production": _production_suggestions, "gift_boxes": _gift_suggestions,
               "sales": _sales_suggestions, "lawsuit": _lawsuit_suggestions}[state.stage]
    return handler(state, seat)


def best_move(state: ColonyState) -> Move | None:
    """The top suggestion, found without figuring every placement in the build and move steps."""
    if state.is_terminal() or state.dice_to_roll() is not None:
        return None
    seat = state.seat
    if state.stage == "build":
        return _best_build(state, seat)
    if state.stage == "production":
        return Move.make("allocate", **best_allocation(state, seat))
    if state.stage == "energy":
        sheet = state.sheets[seat]
        return Move.make("turn_off", space=space_name(DarkTrials(state, seat, sheet).cheapest(sheet.dark)))
    suggestions = advise(state)
    return suggestions[0].move if suggestions else None
