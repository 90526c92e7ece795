"""Dicey Farm (vivit-jc, ver 1.02): eight rounds of dice placed on farm actions; feed yourself,
grow crops and animals, hire craftsmen and ship goods for VP.

The original is solo.  The companion also seats a table of 1-4 farmers: each runs a farm of
their own, all use the one roll the camera read each round, the same craftsman deck order and
the same merchants' slots, and the scores are compared at the end (the companion's reading).

A round: the craftsman row is refilled to 6, the merchants' slots are reshuffled, fields and
animals are harvested; then the roll (a chance node, or in Daily Mode the day's dice appear by
themselves); then each farmer in seat order places every die on an action and ends the round
(upkeep with begging counters, whisky VP, rot, the row loses its two leftmost craftsmen unless
recruit was used).  After round 8 the end-game craftsmen and the begging counters are scored.

Moves (a touchscreen panel's "tap a die, then an action" is one move with ``die`` = the face):
  die actions   ``fishing``, ``plow``, ``sow``, ``ship``, ``recruit``, ``bread_oven``, ``official``
                (each ``die``); ``merchant`` (``die``, ``merchant``), ``contract`` (``die``,
                ``craftsman``), ``build`` (``die``, ``facility``), ``tourism`` (``die``, ``vp``),
                ``slaughterhouse`` (``die``, ``animal``), ``elder`` / ``night_watchman``
                (``die``, ``to``: the new face); ``discard`` (``die``) only when no action takes
                any die left (a dead end the original cannot leave).
  steps of a half-done action  ``plant`` (``seed``), ``sell`` (``goods``), ``deliver``
                (``craftsman``, ``choice``), ``bake``, ``keep`` (``craftsman``), ``stop``.
  dice-free     ``convert`` (``goods``), ``cook`` (``goods``: two names), ``horse_ship``.
  ``end_round`` once every die is used and nothing is half done.

Every number is in ``dicey_farm.toml``; Daily Mode's generator is in ``dicey_farm_daily``;
the advice in ``dicey_farm_advice``.
"""
from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

from companion.engine import Alert, DiceRequest, Die, Game, GameState, Move, Option, Suggestion
from companion.errors import RuleError, UserError
from companion.games.dicey_farm_daily import Tables, daily_tables, parse_day, seeded_tables

DATA = tomllib.loads(Path(__file__).with_suffix(".toml").read_text(encoding="utf-8"))

ROUNDS = int(DATA["rounds"]["count"])
DICE_PER_ROUND = tuple(int(n) for n in DATA["rounds"]["dice"])
NAMES: dict[str, str] = dict(DATA["names"])
ANIMALS = ("chicken", "sheep", "pig", "cow")
LIVESTOCK = ANIMALS + ("horse",)
SEEDS = ("wheat_seed", "vegetable_seed", "flower_seed")
GOODS = ("food", "wheat", "vegetable", "flower", "fish", "meat", "egg", "milk", "wool", "butter", "whisky",
         "jewel") + SEEDS
CRAFTSMEN: tuple[str, ...] = tuple(DATA["craftsmen"]["order"])
CRAFTSMAN: dict[str, dict] = {c: DATA["craftsmen"][c] for c in CRAFTSMEN}
FACILITIES: tuple[str, ...] = tuple(DATA["facilities"]["order"])
MERCHANTS: tuple[str, ...] = tuple(DATA["merchants"]["order"])
PRICES: dict[str, int] = dict(DATA["market"]["prices"])
LOTS: dict[str, int] = dict(DATA["market"]["lots"])
INGREDIENTS: tuple[str, ...] = tuple(DATA["kitchen"]["ingredients"])
PERISHABLE: tuple[str, ...] = tuple(DATA["rounds"]["perishable"])
ACT = DATA["actions"]
SCORING = DATA["scoring"]

DIE_ACTIONS = ("fishing", "plow", "sow", "merchant", "ship", "contract", "recruit", "build", "tourism",
               "bread_oven", "slaughterhouse", "elder", "official", "night_watchman")
STEP_MOVES = ("plant", "sell", "deliver", "bake", "keep", "stop")
FREE_MOVES = ("convert", "cook", "horse_ship")
ONCE_A_ROUND = ("fishing", "sow", "ship", "contract", "recruit", "build", "tourism", "bread_oven",
                "slaughterhouse", "elder", "official", "night_watchman", "horse_ship")
ACTION_WORDS = {"fishing": "fishing", "plow": "plow", "sow": "sow", "merchant": "merchant", "ship": "ship",
                "contract": "contract", "recruit": "recruit", "build": "build", "tourism": "tourism",
                "bread_oven": "bread oven", "slaughterhouse": "slaughterhouse", "elder": "elder",
                "official": "official", "night_watchman": "night watchman", "horse_ship": "horse shipping",
                "discard": "no action (lost)"}

STOP_WORDS = {"sow": "sowing", "ship": "shipping", "bread_oven": "baking", "recruit": "recruiting"}
"""What a player stops when a half-done action is stopped ("stop shipping here")."""


def name_of(item: str) -> str:
    """Player words for a good, animal, craftsman, facility or merchant id."""
    if item in NAMES:
        return NAMES[item]
    if item in CRAFTSMAN:
        return CRAFTSMAN[item]["name"]
    if item in DATA["facilities"] and item != "numbers":
        return DATA["facilities"][item]["name"]
    if item in DATA["merchants"] and item not in ("order", "cow_round"):
        return DATA["merchants"][item]["name"]
    return item.replace("_", " ")


def upkeep_for(round_number: int) -> int:
    return DICE_PER_ROUND[round_number - 1] + int(DATA["rounds"]["upkeep_extra"])


def counters_text(n: int) -> str:
    """'1 begging counter', '3 begging counters'."""
    return f"{n} begging counter{'s' * (n != 1)}"


def rots(farm, goods: str) -> bool:
    """Whether ``goods`` on this farm rot at the round's end (smoked ones keep in the smokehouse)."""
    return goods in PERISHABLE and not ("smokehouse" in farm.facilities and goods in DATA["rounds"]["smoked"])


def count_text(n: int, item: str) -> str:
    word = name_of(item)
    if n != 1 and item in SEEDS + ("egg", "vegetable", "flower", "jewel", "chicken", "pig", "cow", "horse"):
        word += "s"
    return f"{n} {word}"


# -- the rules context of one game ----------------------------------------------------------


@dataclass(frozen=True)
class Rules:
    """One game's fixed draws and options: what every farm shares."""

    tables: Tables
    cap_tourism_total: bool
    daily: str            # "" in Normal Mode, else the date YYYY-MM-DD

    def deck(self) -> tuple[str, ...]:
        return tuple(CRAFTSMEN[i] for i in self.tables.deck)

    def goods_of(self, merchant: str, round_number: int) -> list[tuple[str, int]]:
        info = DATA["merchants"][merchant]
        goods = [(g, int(n)) for g, n in info["goods"]]
        if round_number >= int(DATA["merchants"]["cow_round"]):
            goods += [(g, int(n)) for g, n in info.get("late_goods", [])]
        return goods

    def slots(self, merchant: str, round_number: int) -> list[tuple[str, int]]:
        """The merchant's row this round: ``row[f-1]`` is what a die of face f buys (6 at most)."""
        goods = self.goods_of(merchant, round_number)
        order = self.tables.slot_order(MERCHANTS.index(merchant), round_number)
        return [goods[i] for i in order if i < len(goods)][:6]

    def unbuyable(self, merchant: str, round_number: int) -> list[tuple[str, int]]:
        goods = self.goods_of(merchant, round_number)
        order = self.tables.slot_order(MERCHANTS.index(merchant), round_number)
        return [goods[i] for i in order if i < len(goods)][6:]


@cache
def make_rules(seed: int, daily: str, cap_tourism_total: bool) -> Rules:
    if daily:
        try:
            day = parse_day(daily)
        except ValueError as exc:
            raise UserError(f"option daily: {daily!r} is not a date YYYY-MM-DD") from exc
        tables = daily_tables(day, len(CRAFTSMEN), ROUNDS)
    else:
        tables = seeded_tables(seed, len(CRAFTSMEN), ROUNDS)
    return Rules(tables, cap_tourism_total, daily)


# -- a farm ---------------------------------------------------------------------------------


@dataclass
class Farm:
    """One farmer's farm and round.  States hold farms they never change: every transition
    works on a :meth:`copy`."""

    goods: dict[str, int]
    animals: dict[str, int]
    fields: list[str]                 # "empty", a seed id (sown) or an animal id
    row: list[str]                    # craftsmen face up, left first
    deck_next: int                    # index of the next craftsman in the shared deck order
    contracted: list[str]
    facilities: list[str]
    tourism: int = 0                  # VP from tourism
    tally: int = 0                    # tourism tally (capped at 20)
    market: int = 0
    crafts: int = 0                   # VP from shipping-target craftsmen
    whisky_vp: int = 0
    begging: int = 0
    pool: list[int] = field(default_factory=list)
    used: list[tuple[int, str]] = field(default_factory=list)   # (face, action) in order
    done: list[str] = field(default_factory=list)               # once-a-round actions used
    plow_face: int = 0
    plow_uses: int = 0
    recruited: bool = False
    pending: tuple = ()               # ("ship", left) ("sow",) ("bread_oven", left) ("recruit", keep, kept...)
    finished: bool = False

    def copy(self) -> Farm:
        return Farm(dict(self.goods), dict(self.animals), list(self.fields), list(self.row), self.deck_next,
                    list(self.contracted), list(self.facilities), self.tourism, self.tally, self.market,
                    self.crafts, self.whisky_vp, self.begging, list(self.pool), list(self.used), list(self.done),
                    self.plow_face, self.plow_uses, self.recruited, self.pending, self.finished)

    def key(self) -> tuple:
        """Everything that matters for the rest of the game, hashable (for the advice's memo)."""
        return (tuple(self.goods.values()), tuple(self.animals.values()), tuple(self.fields), tuple(self.row),
                self.deck_next, tuple(self.contracted), tuple(self.facilities), self.tourism, self.tally,
                self.market, self.crafts, self.whisky_vp, self.begging, tuple(sorted(self.pool)),
                tuple(sorted(self.done)), self.plow_face, self.plow_uses, self.recruited, self.pending)

    def has(self, craftsman: str) -> bool:
        return craftsman in self.contracted

    def empty_fields(self) -> int:
        return self.fields.count("empty")

    def field_for(self, animal: str) -> int | None:
        """The index of the field that takes ``animal``: its species' field, else the first empty one."""
        if animal in self.fields:
            return self.fields.index(animal)
        return self.fields.index("empty") if "empty" in self.fields else None

    def merchants(self) -> list[str]:
        return ["merchant"] + [m for m in MERCHANTS[1:] if m in self.contracted]


def new_farm() -> Farm:
    goods = dict.fromkeys(GOODS, 0)
    goods["food"] = int(DATA["start"]["food"])
    return Farm(goods, dict.fromkeys(LIVESTOCK, 0), ["empty"] * int(DATA["start"]["fields"]), [], 0, [], [])


def refill_row(farm: Farm, deck: Sequence[str]) -> None:
    while len(farm.row) < int(DATA["rounds"]["row_size"]) and farm.deck_next < len(deck):
        farm.row.append(deck[farm.deck_next])
        farm.deck_next += 1


def harvest(farm: Farm) -> None:
    """Round start: animal products and the crops of every sown field (the field empties)."""
    herd = sum(farm.animals[a] for a in ANIMALS)
    bonus = 0
    if "compost_shed" in farm.facilities:
        for least, extra in DATA["facilities"]["numbers"]["compost"]:
            if herd >= least:
                bonus = extra
    for animal in ANIMALS:
        product = DATA["animals"][animal]["product"]
        if product:
            farm.goods[product] += farm.animals[animal]
    if farm.has("shepherd"):
        farm.goods["wool"] += farm.animals["sheep"] // 2
    for index, content in enumerate(farm.fields):
        if content in SEEDS:
            crop = DATA["harvest"][content]
            farm.goods[crop["crop"]] += int(crop["crops"]) + bonus
            farm.goods[content] += int(crop["seeds"]) + (1 if farm.has("beekeeper") else 0)
            farm.fields[index] = "empty"


def start_round(farm: Farm, deck: Sequence[str]) -> None:
    """Refill the row, harvest, and the caretaker's food (the merchants' slots are shared)."""
    refill_row(farm, deck)
    harvest(farm)
    if farm.has("caretaker"):
        farm.goods["food"] += 2


def end_round(farm: Farm, round_number: int) -> None:
    """Upkeep with begging counters, whisky VP, rot, trim the row; the round's marks cleared."""
    need = upkeep_for(round_number)
    short = max(0, need - farm.goods["food"])
    farm.goods["food"] = max(0, farm.goods["food"] - need)
    farm.begging += short
    farm.whisky_vp += farm.goods["whisky"] * int(DATA["rounds"]["whisky_vp"])
    kept = DATA["rounds"]["smoked"] if "smokehouse" in farm.facilities else ()
    for goods in PERISHABLE:
        if goods not in kept:
            farm.goods[goods] = 0
    if not farm.recruited:
        del farm.row[:int(DATA["rounds"]["row_trim"])]
    farm.used, farm.done, farm.plow_face, farm.plow_uses = [], [], 0, 0
    farm.recruited, farm.pending, farm.finished = False, (), True


def final_parts(farm: Farm) -> dict[str, int]:
    """The score by source, the end-game craftsmen in the code's order."""
    tourism = farm.tourism
    jewels = farm.goods["jewel"] * int(SCORING["jewel_vp"])
    running = tourism + farm.market + farm.crafts + farm.whisky_vp + jewels
    end = 0
    if farm.has("animal_scientist"):
        end += int(SCORING["animal_scientist_vp"]) * min(farm.animals[a] for a in ANIMALS)
    if farm.has("surveyor") and len(farm.fields) >= int(SCORING["surveyor_fields"]):
        end += int(SCORING["surveyor_vp"])
    counters = farm.begging
    if farm.has("pastor"):
        counters = max(0, counters - int(SCORING["pastor_counters"]))
    if farm.has("accountant"):
        end += (running + end) // int(SCORING["accountant_divisor"])
    if farm.has("tour_guide") and farm.tally >= int(SCORING["tour_guide_tally"]):
        end += int(SCORING["tour_guide_vp"])
    return {"tourism": tourism, "market": farm.market, "craftsmen": farm.crafts, "whisky": farm.whisky_vp,
            "jewels": jewels, "end-game craftsmen": end, "begging": counters * int(DATA["rounds"]["begging_vp"])}


# -- playing one move on a farm ---------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """What a move on a farm needs to know besides the farm: the round and the shared draws."""

    rules: Rules
    round: int

    @property
    def final(self) -> bool:
        return self.round == ROUNDS


def _check_die(farm: Farm, move: Move) -> int:
    face = move.get("die")
    if not isinstance(face, int) or isinstance(face, bool) or face not in farm.pool:
        dice = " ".join(map(str, sorted(farm.pool))) or "none"
        raise RuleError("dice in hand", f"no die showing {face} in hand (dice in hand: {dice})")
    return face


def _take_die(farm: Farm, move: Move, action: str) -> int:
    face = _check_die(farm, move)
    farm.pool.remove(face)
    farm.used.append((face, action))
    return face


def _give_die(farm: Farm, face: int) -> None:
    if face > 0:
        farm.pool.append(face)


def _add_animals(farm: Farm, animal: str, count: int) -> None:
    if animal == "horse" and "stable" in farm.facilities:
        farm.animals["horse"] += count
        return
    where = farm.field_for(animal)
    if where is None:
        raise RuleError("a field per species", f"no free field for the {name_of(animal)}: plow first")
    farm.fields[where] = animal
    farm.animals[animal] += count


def _remove_animal(farm: Farm, animal: str) -> None:
    farm.animals[animal] -= 1
    if farm.animals[animal] == 0 and animal in farm.fields:
        farm.fields[farm.fields.index(animal)] = "empty"


def shipments(farm: Farm, face: int) -> int:
    total = face + int(ACT["ship_base"]) + farm.animals["horse"]
    return total + (int(ACT["porter_bonus"]) if farm.has("porter") else 0)


def recipe(craftsman: str, choice: str) -> dict | None:
    for option in CRAFTSMAN.get(craftsman, {}).get("recipes", ()):
        if option["choice"] == choice:
            return option
    return None


def _stock(farm: Farm, item: str) -> int:
    return farm.animals[item] if item in farm.animals else farm.goods[item]


def die_problem(farm: Farm, turn: Turn, move: Move) -> str | None:
    """Why the die action ``move`` is refused now (the die itself is checked apart), or None."""
    kind, face = move.kind, move.get("die")
    if kind in ONCE_A_ROUND and kind in farm.done and not (kind == "ship" and turn.final) and \
            not (kind == "contract" and farm.has("broker")):
        return f"{ACTION_WORDS[kind]} was used this round already"
    if kind in ("elder", "official", "night_watchman") and not farm.has(kind):
        return f"the {name_of(kind)} is not contracted"
    if kind in ("bread_oven", "slaughterhouse") and kind not in farm.facilities:
        return f"the {name_of(kind)} is not built"
    if kind == "plow":
        if farm.plow_uses >= int(ACT["plow_uses"]):
            return "plow was used twice this round already"
        if farm.plow_uses and face != farm.plow_face:
            return f"the second plow needs a {farm.plow_face} like the first"
    elif kind == "sow":
        if not farm.empty_fields():
            return "no empty field to sow"
    elif kind == "merchant":
        merchant = move.get("merchant", "merchant")
        if merchant not in farm.merchants():
            return f"no {name_of(str(merchant))} to buy from"
        item, _ = turn.rules.slots(merchant, turn.round)[face - 1]
        if item in LIVESTOCK and not (item == "horse" and "stable" in farm.facilities) and farm.field_for(item) is None:
            return f"slot {face} is a {name_of(item)} and no field is free for it: plow first"
    elif kind == "contract":
        who = move.get("craftsman")
        if who not in farm.row:
            return f"the {name_of(str(who))} is not in the row"
        cost = int(ACT["broker_cost"]) if farm.has("broker") else face
        if farm.goods["food"] < cost:
            return f"a contract with a {face} costs {cost} food; you have {farm.goods['food']}"
    elif kind == "recruit":
        if face > len(farm.row):
            return f"recruit with a {face} keeps {face} craftsmen; the row holds {len(farm.row)}"
    elif kind == "build":
        if face != int(ACT["build_face"]) and not farm.has("carpenter"):
            return f"building needs a {ACT['build_face']} (or the carpenter)"
        what = move.get("facility")
        if what not in FACILITIES:
            return f"{what!r} is not a facility"
        if what in farm.facilities:
            return f"the {name_of(what)} is built already"
    elif kind == "tourism":
        k = move.get("vp")
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= face:
            return f"tourism with a {face} gives 1 to {face} VP, not {k}"
    elif kind == "slaughterhouse":
        animal = move.get("animal")
        if animal not in ANIMALS or farm.animals[animal] < 1:
            return f"no {name_of(str(animal))} to slaughter"
    elif kind == "elder":
        to = move.get("to")
        if to not in (face - 1, face + 1) or not isinstance(to, int) or not 1 <= to <= 6:
            return f"the elder turns a {face} one up or down, not to {to}"
    elif kind == "night_watchman" and move.get("to") not in (2, 5):
        return "the night watchman turns a die to 2 or 5"
    return None


def play_die(farm: Farm, turn: Turn, move: Move) -> None:
    """Play a die action on ``farm`` (a copy: on a RuleError the caller drops it)."""
    kind = move.kind
    if farm.pending:
        raise RuleError("one action at a time", f"finish the {ACTION_WORDS[farm.pending[0]]} first (or stop it)")
    _check_die(farm, move)
    problem = die_problem(farm, turn, move)
    if problem:
        raise RuleError(ACTION_WORDS[kind], problem)
    face = _take_die(farm, move, kind)
    if kind in ONCE_A_ROUND and kind not in farm.done:
        farm.done.append(kind)
    if kind == "fishing":
        fish = int(ACT["fishing"][face - 1]) + (int(ACT["fisherman_bonus"]) if farm.has("fisherman") else 0)
        farm.goods["fish"] += fish
    elif kind == "plow":
        farm.plow_face, farm.plow_uses = face, farm.plow_uses + 1
        farm.fields.append("empty")
        if farm.has("cowherd") and farm.animals["cow"] >= 1:
            farm.fields.append("empty")
    elif kind == "sow":
        if farm.has("sower"):
            _give_die(farm, 1)
        farm.pending = ("sow",)
    elif kind == "merchant":
        item, count = turn.rules.slots(move.get("merchant", "merchant"), turn.round)[face - 1]
        if item in LIVESTOCK:
            _add_animals(farm, item, count)
        else:
            farm.goods[item] += count
    elif kind == "ship":
        farm.pending = ("ship", shipments(farm, face))
    elif kind == "contract":
        who = move["craftsman"]
        farm.goods["food"] -= int(ACT["broker_cost"]) if farm.has("broker") else face
        farm.row.remove(who)
        farm.contracted.append(who)
    elif kind == "recruit":
        farm.recruited = True
        farm.pending = ("recruit", face)
        _finish_recruit(farm, turn)
    elif kind == "build":
        what = move["facility"]
        farm.facilities.append(what)
        if what == "stable":
            farm.animals["horse"] += 1
            if "horse" in farm.fields:
                farm.fields[farm.fields.index("horse")] = "empty"
    elif kind == "tourism":
        k = move["vp"]
        farm.tourism += min(k, max(0, int(ACT["tourism_cap"]) - farm.tourism)) if turn.rules.cap_tourism_total else k
        farm.tally = min(int(ACT["tourism_cap"]), farm.tally + k)
        _give_die(farm, face - k)
    elif kind == "bread_oven":
        farm.pending = ("bread_oven", face)
    elif kind == "slaughterhouse":
        animal = move["animal"]
        _remove_animal(farm, animal)
        farm.goods["meat"] += int(DATA["animals"][animal]["meat"])
        _give_die(farm, face - 1)
    elif kind == "official":
        _give_die(farm, 7 - face)
    elif kind in ("elder", "night_watchman"):
        _give_die(farm, move["to"])
    _close_if_done(farm)


def _finish_recruit(farm: Farm, turn: Turn) -> None:
    keep, kept = farm.pending[1], farm.pending[2:]
    if keep >= len(farm.row):
        kept = tuple(farm.row)
    elif len(kept) < keep:
        return
    farm.row = [c for c in farm.row if c in kept]
    refill_row(farm, turn.rules.deck())
    farm.pending = ()


def _close_if_done(farm: Farm) -> None:
    """A half-done action ends by itself when nothing is left to do in it."""
    if not farm.pending:
        return
    kind = farm.pending[0]
    if (kind == "sow" and not farm.empty_fields()) or (kind in ("ship", "bread_oven") and farm.pending[1] == 0):
        farm.pending = ()


def step_problem(farm: Farm, move: Move) -> str | None:
    """Why a step of the half-done action is refused now, or None."""
    kind = move.kind
    pending = farm.pending[0] if farm.pending else None
    wanted = {"plant": "sow", "sell": "ship", "deliver": "ship", "bake": "bread_oven", "keep": "recruit",
              "stop": None}[kind]
    if pending is None:
        return f"no action is half done: {kind} belongs to {'an action' if wanted is None else ACTION_WORDS[wanted]}"
    if wanted is not None and pending != wanted:
        return f"the {ACTION_WORDS[pending]} is half done: {kind} does not belong to it"
    if kind == "stop":
        return "recruit keeps exactly as many craftsmen as the die shows" if pending == "recruit" else None
    if kind == "plant":
        seed = move.get("seed")
        if seed not in SEEDS or farm.goods[seed] < 1:
            return f"no {name_of(str(seed))} to sow"
    elif kind == "sell":
        goods = move.get("goods")
        if goods not in PRICES:
            return f"the market does not buy {name_of(str(goods))}"
        lot = LOTS.get(goods, 1)
        if farm.goods[goods] < lot:
            return f"selling {name_of(goods)} takes {lot}; you have {farm.goods[goods]}"
    elif kind == "deliver":
        who, choice = move.get("craftsman"), move.get("choice", "")
        if not farm.has(who) or CRAFTSMAN[who]["kind"] != "shipping":
            return f"no {name_of(str(who))} contracted to ship to"
        option = recipe(who, choice)
        if option is None:
            return f"the {name_of(who)} takes no {choice!r}"
        short = [item for item, n in option["take"].items() if _stock(farm, item) < n]
        if short:
            return f"the {name_of(who)} needs {', '.join(count_text(option['take'][i], i) for i in short)}"
    elif kind == "bake":
        if farm.goods["wheat"] < 1:
            return "no wheat to bake"
    elif kind == "keep":
        who = move.get("craftsman")
        if who not in farm.row or who in farm.pending[2:]:
            return f"the {name_of(str(who))} is not in the row to keep"
    return None


def play_step(farm: Farm, turn: Turn, move: Move) -> None:
    problem = step_problem(farm, move)
    if problem:
        raise RuleError("half-done action", problem)
    kind, pending = move.kind, farm.pending
    if kind == "stop":
        if pending[0] == "bread_oven":
            _give_die(farm, pending[1])
        farm.pending = ()
        return
    if kind == "plant":
        seed = move["seed"]
        farm.goods[seed] -= 1
        farm.fields[farm.fields.index("empty")] = seed
    elif kind == "sell":
        goods = move["goods"]
        farm.goods[goods] -= LOTS.get(goods, 1)
        farm.market += PRICES[goods]
        farm.pending = ("ship", pending[1] - 1)
    elif kind == "deliver":
        option = recipe(move["craftsman"], move.get("choice", ""))
        for item, n in option["take"].items():
            if item in farm.animals:
                for _ in range(n):
                    _remove_animal(farm, item)
            else:
                farm.goods[item] -= n
        for item, n in option["give"].items():
            farm.goods[item] += n
        farm.crafts += int(option["vp"])
        farm.pending = ("ship", pending[1] - 1)
    elif kind == "bake":
        farm.goods["wheat"] -= 1
        farm.goods["food"] += int(DATA["facilities"]["numbers"]["bread_food"])
        farm.pending = ("bread_oven", pending[1] - 1)
    elif kind == "keep":
        farm.pending = pending + (move["craftsman"],)
        _finish_recruit(farm, turn)
    _close_if_done(farm)


def free_problem(farm: Farm, move: Move) -> str | None:
    if farm.pending:
        return f"finish the {ACTION_WORDS[farm.pending[0]]} first (or stop it)"
    if move.kind == "convert":
        goods = move.get("goods")
        if goods not in INGREDIENTS:
            return f"{name_of(str(goods))} is not an ingredient"
        if farm.goods[goods] < 1:
            return f"no {name_of(goods)} to turn into food"
    elif move.kind == "cook":
        pair = move.get("goods")
        if not isinstance(pair, tuple) or len(pair) != 2 or pair[0] == pair[1]:
            return "cooking takes two different ingredients"
        for goods in pair:
            if goods not in INGREDIENTS:
                return f"{name_of(str(goods))} is not an ingredient"
            if farm.goods[goods] < 1:
                return f"no {name_of(goods)} to cook"
    elif move.kind == "horse_ship":
        if farm.animals["horse"] < 1:
            return "horse shipping needs a horse"
        if "horse_ship" in farm.done:
            return "horse shipping was used this round already"
    return None


def play_free(farm: Farm, move: Move) -> None:
    problem = free_problem(farm, move)
    if problem:
        raise RuleError(ACTION_WORDS.get(move.kind, move.kind), problem)
    if move.kind == "convert":
        farm.goods[move["goods"]] -= 1
        farm.goods["food"] += int(DATA["kitchen"]["convert_food"])
    elif move.kind == "cook":
        for goods in move["goods"]:
            farm.goods[goods] -= 1
        farm.goods["food"] += int(DATA["kitchen"]["cook_food"])
    else:
        farm.done.append("horse_ship")
        farm.pending = ("ship", int(ACT["horse_ship"]))


_MOVES: dict[tuple, Move] = {}


def mv(kind: str, **params: Any) -> Move:
    """``Move.make`` for hashable parameters, each move built once (the advice asks for many)."""
    key = (kind, tuple(sorted(params.items())))
    found = _MOVES.get(key)
    if found is None:
        found = _MOVES[key] = Move.make(kind, **params)
    return found


def die_moves(farm: Farm, turn: Turn, face: int) -> list[Move]:
    """Every die action a die of ``face`` may take now."""
    candidates = [mv(k, die=face) for k in ("fishing", "plow", "sow", "ship", "recruit", "bread_oven", "official")]
    candidates += [mv("merchant", die=face, merchant=m) for m in farm.merchants()]
    candidates += [mv("contract", die=face, craftsman=c) for c in dict.fromkeys(farm.row)]
    candidates += [mv("build", die=face, facility=f) for f in FACILITIES]
    candidates += [mv("tourism", die=face, vp=k) for k in range(1, face + 1)]
    candidates += [mv("slaughterhouse", die=face, animal=a) for a in ANIMALS]
    candidates += [mv("elder", die=face, to=t) for t in (face - 1, face + 1) if 1 <= t <= 6]
    candidates += [mv("night_watchman", die=face, to=t) for t in (2, 5)]
    return [m for m in candidates if die_problem(farm, turn, m) is None]


def step_moves(farm: Farm) -> list[Move]:
    kind = farm.pending[0]
    if kind == "sow":
        candidates = [mv("plant", seed=s) for s in SEEDS]
    elif kind == "ship":
        candidates = [mv("sell", goods=g) for g in PRICES]
        for who in farm.contracted:
            for option in CRAFTSMAN[who].get("recipes", ()):
                candidates.append(mv("deliver", craftsman=who, choice=option["choice"]))
    elif kind == "bread_oven":
        candidates = [mv("bake")]
    else:
        candidates = [mv("keep", craftsman=c) for c in farm.row]
    candidates.append(mv("stop"))
    return [m for m in candidates if step_problem(farm, m) is None]


def free_moves(farm: Farm) -> list[Move]:
    candidates = [mv("convert", goods=g) for g in INGREDIENTS]
    candidates += [mv("cook", goods=tuple(sorted((a, b)))) for i, a in enumerate(INGREDIENTS) for b in INGREDIENTS[i + 1:]]
    candidates.append(mv("horse_ship"))
    return [m for m in candidates if free_problem(farm, m) is None]


def farm_moves(farm: Farm, turn: Turn) -> list[Move]:
    """The legal moves of a farm in its round."""
    if farm.pending:
        return step_moves(farm)
    moves = [m for face in sorted(set(farm.pool)) for m in die_moves(farm, turn, face)]
    if farm.pool and not moves:
        moves = [mv("discard", die=face) for face in sorted(set(farm.pool))]
    moves += free_moves(farm)
    if not farm.pool:
        moves.append(mv("end_round"))
    return moves


def play_move(farm: Farm, turn: Turn, move: Move) -> None:
    """Play ``move`` on ``farm`` (a working copy), end_round excepted."""
    if move.kind in DIE_ACTIONS:
        play_die(farm, turn, move)
    elif move.kind in STEP_MOVES:
        play_step(farm, turn, move)
    elif move.kind in FREE_MOVES:
        play_free(farm, move)
    elif move.kind == "discard":
        if farm.pending or any(die_moves(farm, turn, face) for face in farm.pool):
            raise RuleError("every die on an action", "a die can be left unused only when no action takes any die in hand")
        _take_die(farm, move, "discard")
    else:
        raise RuleError("moves", f"{move.kind!r} is not a Dicey Farm move")


# -- the state -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class FarmState(GameState):
    """A Dicey Farm position.  ``stage``: ``roll`` (the round's dice are due), ``act`` (the
    farmer ``turn_seat`` places dice), ``over``."""

    game: DiceyFarm
    rules: Rules
    options: tuple[tuple[str, Any], ...]
    players: tuple[str, ...]
    seed: int
    stage: str
    round: int
    farms: tuple[Farm, ...]
    turn_seat: int = 0
    dice: tuple[int, ...] = ()        # the round's roll, shared by every farm

    # -- views ------------------------------------------------------------------------------
    @property
    def current_player(self) -> str | None:
        if self.stage == "over":
            return None
        return self.players[0] if self.stage == "roll" else self.players[self.turn_seat]

    @property
    def phase(self) -> str:
        return self.stage

    def is_terminal(self) -> bool:
        return self.stage == "over"

    @property
    def turn(self) -> Turn:
        return Turn(self.rules, self.round)

    @property
    def farm(self) -> Farm:
        """The farm of the farmer acting now."""
        return self.farms[self.turn_seat]

    def dice_to_roll(self) -> DiceRequest | None:
        if self.stage != "roll":
            return None
        count = DICE_PER_ROUND[self.round - 1]
        who = "every farm" if len(self.players) > 1 else "your farm"
        return DiceRequest(self.players[0], (None,) * count, f"Round {self.round}: roll {count} dice for {who}")

    # -- transitions --------------------------------------------------------------------------
    def _apply_roll(self, dice: tuple[Die, ...]) -> FarmState:
        return self._with_dice(tuple(d.value for d in dice))

    def _with_dice(self, values: tuple[int, ...]) -> FarmState:
        farms = []
        for farm in self.farms:
            farm = farm.copy()
            farm.pool, farm.finished = list(values), False
            farms.append(farm)
        return replace(self, stage="act", farms=tuple(farms), turn_seat=0, dice=values)

    def legal_moves(self) -> list[Move]:
        if self.stage != "act":
            return []
        return farm_moves(self.farm, self.turn)

    def _apply(self, move: Move) -> FarmState:
        if self.stage != "act":
            raise RuleError("roll first", "the round's dice are not on the table yet")
        if move.kind == "end_round":
            return self._end_round()
        farm = self.farm.copy()
        play_move(farm, self.turn, move)
        return self._with_farm(farm)

    def _with_farm(self, farm: Farm, seat: int | None = None) -> FarmState:
        seat = self.turn_seat if seat is None else seat
        return replace(self, farms=self.farms[:seat] + (farm,) + self.farms[seat + 1:])

    def _end_round(self) -> FarmState:
        farm = self.farm
        if farm.pending:
            raise RuleError("every die on an action", f"finish the {ACTION_WORDS[farm.pending[0]]} first")
        if farm.pool:
            dice = " ".join(map(str, sorted(farm.pool)))
            raise RuleError("every die on an action", f"the round ends once every die is used (left: {dice})")
        farm = farm.copy()
        end_round(farm, self.round)
        state = self._with_farm(farm)
        if self.turn_seat + 1 < len(self.players):
            return replace(state, turn_seat=self.turn_seat + 1)
        if self.round == ROUNDS:
            return replace(state, stage="over", turn_seat=0)
        return state._next_round()

    def _next_round(self) -> FarmState:
        number = self.round + 1
        deck = self.rules.deck()
        farms = []
        for farm in self.farms:
            farm = farm.copy()
            start_round(farm, deck)
            farms.append(farm)
        state = replace(self, stage="roll", round=number, farms=tuple(farms), turn_seat=0, dice=())
        return state._daily_dice()

    def _daily_dice(self) -> FarmState:
        """In Daily Mode the day's dice come by themselves: no roll."""
        if self.rules.tables.dice is None:
            return self
        first = sum(DICE_PER_ROUND[:self.round - 1])
        return self._with_dice(self.rules.tables.dice[first:first + DICE_PER_ROUND[self.round - 1]])

    # -- scores and alerts ------------------------------------------------------------------
    def score_breakdown(self) -> dict[str, dict[str, int]]:
        return {p: final_parts(f) for p, f in zip(self.players, self.farms)}

    def alerts(self) -> list[Alert]:
        if self.stage == "over":
            scores = self.scores()
            if len(self.players) == 1:
                score = scores[self.players[0]]
                return [Alert("game_over", f"game over: {score} VP ({score_band(score)} on the score guide)",
                              "info", self.players)]
            names = " & ".join(self.winners())
            return [Alert("game_over", f"game over: {names} won ({', '.join(f'{p} {s}' for p, s in scores.items())})",
                          "info", tuple(self.winners()))]
        alerts = []
        if self.round == ROUNDS:
            alerts.append(Alert("final_round", "round 8, the last: ship may be used again and again", "warning"))
        if self.stage == "act" and self.rules.tables.dice is not None and not self.farm.used:
            faces = " ".join(map(str, self.dice))
            alerts.append(Alert("dice_dealt", f"Daily Mode, round {self.round}: the day's dice are {faces}", "info"))
        if self.stage == "act":
            farm, who = self.farm, (self.current_player,)
            need, food = upkeep_for(self.round), self.farm.goods["food"]
            if food < need:
                alerts.append(Alert("upkeep", f"{self.current_player} needs {need} food at the round's end and has "
                                    f"{food}: {counters_text(need - food)} unless you make food", "warning", who))
            rotting = [name_of(g) for g in PERISHABLE if g != "food" and farm.goods[g] and rots(farm, g)]
            if rotting:
                alerts.append(Alert("spoilage", f"{', '.join(rotting)} rot at the round's end", "info", who))
            if farm.pending:
                alerts.append(Alert("half_done", f"{ACTION_WORDS[farm.pending[0]]} is half done: finish or stop it",
                                    "info", who))
        return alerts

    # -- text and JSON ------------------------------------------------------------------------
    def describe(self, move: Move) -> str:
        return describe_move(self.farm if self.stage == "act" else self.farms[0], self.turn, move)

    def to_json(self) -> dict:
        return {"game": self.game.name, "players": list(self.players), "options": dict(self.options),
                "seed": self.seed, "stage": self.stage, "round": self.round,
                "turn_player": self.players[self.turn_seat], "dice": list(self.dice),
                "deck": list(self.rules.deck()),
                "slot_orders": {m: [list(o) for o in self.rules.tables.slot_orders[i]] for i, m in enumerate(MERCHANTS)},
                "farms": [farm_to_json(f) for f in self.farms]}

    def board_view(self) -> dict:
        """Everything a touchscreen panel draws, in player words.

        Keys: ``round``, ``rounds``, ``stage`` ("roll", "act", "over"), ``mode`` ("Normal Mode" /
        "Daily Mode <date>"), ``player`` (who acts now), ``dice_due`` (dice to roll, 0 if none),
        ``merchants`` (per merchant open to the acting farmer: ``id`` (the move's parameter), ``name`` and ``slots``, a list of
        ``{"face", "goods"}`` for faces 1-6, plus ``not_sold`` this round), ``farms`` (one per farmer,
        seat order): ``player``, ``acting``, ``finished`` (ended the round), ``vp`` (score so far),
        ``breakdown``, ``food``, ``goods`` (name -> count, non-zero, perishables marked by
        ``perishable``), ``seeds``, ``animals``, ``fields`` (list of ``{"number", "holds", "label"}``
        where holds is "empty", "sown" or "animals"), ``row`` (craftsmen you may contract, each
        ``{"id", "name", "effect"}``; ``id`` is only the move's parameter, never shown), ``contracted``
        (same form), ``facilities`` (built) and ``to_build`` (not yet built), both ``{"id", "name",
        "effect"}``, ``dice`` (``{"face", "used"}`` per die of the round incl. dice that came back,
        ``"action"`` naming where a used die went), ``half_done`` (the action being carried out, or
        None), ``upkeep`` (``{"need", "have", "begging", "text"}``), ``begging`` (counters so far),
        ``actions_used`` (once-a-round actions used).

        ``moves``: the acting farmer's legal moves, each ``{"die"`` (the face it uses, or None),
        ``"action"`` (its action in words), ``"text"``, ``"move"`` (the JSON to send)``}``: a panel
        lights the actions of the die tapped from it.

        A panel's "tap a die, then an action" sends ``Move.make(action, die=face, ...)`` with
        the action's parameter (merchant / craftsman / facility / vp / animal / to); steps of a
        half-done action and the dice-free actions come from ``legal_moves()``.
        """
        acting = self.farm if self.stage == "act" else self.farms[0]
        merchants = [{"id": m, "name": name_of(m),
                      "slots": [{"face": f, "goods": count_text(n, g) if n > 1 else name_of(g)}
                                for f, (g, n) in enumerate(self.rules.slots(m, self.round), 1)],
                      "not_sold": [name_of(g) for g, _ in self.rules.unbuyable(m, self.round)]}
                     for m in acting.merchants()]
        return {"round": self.round, "rounds": ROUNDS, "stage": self.stage,
                "mode": f"Daily Mode {self.rules.daily}" if self.rules.daily else "Normal Mode",
                "player": self.current_player,
                "dice_due": DICE_PER_ROUND[self.round - 1] if self.stage == "roll" else 0,
                "merchants": merchants,
                "farms": [self._farm_view(seat) for seat in range(len(self.players))],
                "moves": [{"die": m.get("die"), "action": ACTION_WORDS.get(m.kind, m.kind.replace("_", " ")),
                           "text": self.describe(m), "move": m.to_json()} for m in self.legal_moves()]}

    def _farm_view(self, seat: int) -> dict:
        farm = self.farms[seat]
        need, food = upkeep_for(self.round), farm.goods["food"]
        short = max(0, need - food)
        text = f"you need {need} food, you have {food}" + (f": {counters_text(short)}" if short else "")
        fields = []
        for number, holds in enumerate(farm.fields, 1):
            if holds == "empty":
                fields.append({"number": number, "holds": "empty", "label": "empty"})
            elif holds in SEEDS:
                fields.append({"number": number, "holds": "sown", "label": f"sown with {name_of(holds)}"})
            else:
                fields.append({"number": number, "holds": "animals", "label": count_text(farm.animals[holds], holds)})
        dice = [{"face": face, "used": True, "action": ACTION_WORDS.get(action, action)} for face, action in farm.used]
        dice += [{"face": face, "used": False, "action": None} for face in sorted(farm.pool)]
        return {"player": self.players[seat], "acting": self.stage == "act" and seat == self.turn_seat,
                "finished": farm.finished, "vp": sum(final_parts(farm).values()),
                "breakdown": final_parts(farm), "food": food,
                "goods": {name_of(g): n for g, n in farm.goods.items() if n and g not in SEEDS + ("food",)},
                "perishable": [name_of(g) for g in PERISHABLE if farm.goods[g] and rots(farm, g)],
                "seeds": {name_of(s): farm.goods[s] for s in SEEDS if farm.goods[s]},
                "animals": {name_of(a): n for a, n in farm.animals.items() if n},
                "fields": fields,
                "row": [craftsman_view(c) for c in farm.row],
                "contracted": [craftsman_view(c) for c in farm.contracted],
                "facilities": [facility_view(f) for f in farm.facilities],
                "to_build": [facility_view(f) for f in FACILITIES if f not in farm.facilities],
                "dice": dice,
                "half_done": half_done_text(farm),
                "upkeep": {"need": need, "have": food, "begging": short, "text": text},
                "begging": farm.begging,
                "actions_used": [ACTION_WORDS[a] for a in farm.done] + (["plow"] * farm.plow_uses)}


def craftsman_view(craftsman: str) -> dict:
    info = CRAFTSMAN[craftsman]
    return {"id": craftsman, "name": info["name"], "effect": info["effect"]}


def facility_view(facility: str) -> dict:
    return {"id": facility, "name": name_of(facility), "effect": DATA["facilities"][facility]["effect"]}


def half_done_text(farm: Farm) -> str | None:
    if not farm.pending:
        return None
    kind = farm.pending[0]
    if kind == "ship":
        return f"shipping: {farm.pending[1]} shipments left"
    if kind == "bread_oven":
        return f"bread oven: {farm.pending[1]} bakes left"
    if kind == "recruit":
        return f"recruit: keep {farm.pending[1] - len(farm.pending) + 2} more craftsmen"
    return f"sowing: {farm.empty_fields()} empty fields"


def score_band(score: int) -> str:
    for top, label in SCORING["score_guide"]:
        if score <= top:
            return label
    return SCORING["score_guide"][-1][1]


def describe_move(farm: Farm, turn: Turn, move: Move) -> str:
    """One line for a person."""
    kind, face = move.kind, move.get("die")
    with_die = f" with the {face}"
    if kind == "fishing":
        fish = int(ACT["fishing"][face - 1]) + (int(ACT["fisherman_bonus"]) if farm.has("fisherman") else 0) \
            if isinstance(face, int) and 1 <= face <= 6 else "?"
        return f"fish{with_die} ({fish} fish)"
    if kind == "plow":
        return f"plow{with_die} (+1 field)"
    if kind == "sow":
        return f"sow{with_die}" + (" (the sower gives a 1)" if farm.has("sower") else "")
    if kind == "merchant":
        merchant = move.get("merchant", "merchant")
        try:
            item, n = turn.rules.slots(merchant, turn.round)[face - 1]
            what = count_text(n, item)
        except (KeyError, IndexError, TypeError, ValueError):
            what = "?"
        return f"buy {what} from the {name_of(str(merchant))}{with_die}"
    if kind == "ship":
        return f"ship{with_die} ({shipments(farm, face) if isinstance(face, int) else '?'} shipments)"
    if kind == "contract":
        cost = int(ACT["broker_cost"]) if farm.has("broker") else face
        return f"contract the {name_of(str(move.get('craftsman')))}{with_die} (pay {cost} food)"
    if kind == "recruit":
        return f"recruit{with_die}: keep {face} craftsmen, refill the row"
    if kind == "build":
        return f"build the {name_of(str(move.get('facility')))}{with_die}"
    if kind == "tourism":
        k = move.get("vp")
        back = face - k if isinstance(face, int) and isinstance(k, int) else 0
        return f"tourism{with_die}: {k} VP" + (f", a {back} comes back" if back > 0 else "")
    if kind == "bread_oven":
        return f"bread oven{with_die} (up to {face} wheat for 2 food each)"
    if kind == "slaughterhouse":
        back = f", a {face - 1} comes back" if isinstance(face, int) and face > 1 else ""
        return f"slaughter a {name_of(str(move.get('animal')))}{with_die}{back}"
    if kind == "elder":
        return f"elder: turn the {face} into a {move.get('to')}"
    if kind == "official":
        return f"official: turn the {face} into a {7 - face if isinstance(face, int) else '?'}"
    if kind == "night_watchman":
        return f"night watchman: turn the {face} into a {move.get('to')}"
    if kind == "discard":
        return f"leave the {face} unused (no action takes it)"
    if kind == "plant":
        return f"sow a {name_of(str(move.get('seed')))}"
    if kind == "sell":
        goods = str(move.get("goods"))
        return f"sell {count_text(LOTS.get(goods, 1), goods)} at the market ({PRICES.get(goods, '?')} VP)"
    if kind == "deliver":
        who, choice = str(move.get("craftsman")), move.get("choice", "")
        option = recipe(who, choice)
        if option is None:
            return f"ship to the {name_of(who)}"
        take = " + ".join(count_text(n, i) for i, n in option["take"].items())
        give = [count_text(n, i) for i, n in option["give"].items()] + ([f"{option['vp']} VP"] if option["vp"] else [])
        return f"ship {take} to the {name_of(who)} for {' + '.join(give)}"
    if kind == "bake":
        return "bake 1 wheat into 2 food"
    if kind == "keep":
        return f"keep the {name_of(str(move.get('craftsman')))}"
    if kind == "stop":
        return f"stop {STOP_WORDS.get(farm.pending[0], 'this action')} here" if farm.pending else "stop here"
    if kind == "convert":
        return f"turn 1 {name_of(str(move.get('goods')))} into 1 food"
    if kind == "cook":
        pair = move.get("goods") or ()
        return f"cook {' and '.join(name_of(str(g)) for g in pair)} into 3 food"
    if kind == "horse_ship":
        return "horse shipping (2 shipments, no die)"
    if kind == "end_round":
        need = upkeep_for(turn.round)
        short = max(0, need - farm.goods["food"])
        return f"end the round: eat {need} food" + (f", take {counters_text(short)}" if short else "")
    return kind


# -- JSON ------------------------------------------------------------------------------------------


def farm_to_json(farm: Farm) -> dict:
    return {"goods": {g: n for g, n in farm.goods.items() if n}, "animals": {a: n for a, n in farm.animals.items() if n},
            "fields": list(farm.fields), "row": list(farm.row), "deck_next": farm.deck_next,
            "contracted": list(farm.contracted), "facilities": list(farm.facilities),
            "vp": {"tourism": farm.tourism, "tourism_tally": farm.tally, "market": farm.market,
                   "craftsmen": farm.crafts, "whisky": farm.whisky_vp},
            "begging": farm.begging, "dice_in_hand": sorted(farm.pool),
            "dice_used": [[face, action] for face, action in farm.used], "actions_used": list(farm.done),
            "plow": {"face": farm.plow_face, "uses": farm.plow_uses}, "recruited": farm.recruited,
            "half_done": list(farm.pending), "finished": farm.finished}


def _whole(value: Any, what: str, top: int = 10_000) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= top:
        raise UserError(f"{what} must be a whole number 0-{top}, not {value!r}")
    return value


def farm_from_json(data: Mapping, rules: Rules) -> Farm:
    farm = new_farm()
    farm.goods = dict.fromkeys(GOODS, 0)
    for goods, n in dict(data.get("goods") or {}).items():
        if goods not in GOODS:
            raise UserError(f"unknown goods {goods!r}")
        farm.goods[goods] = _whole(n, name_of(goods))
    for animal, n in dict(data.get("animals") or {}).items():
        if animal not in LIVESTOCK:
            raise UserError(f"unknown animal {animal!r}")
        farm.animals[animal] = _whole(n, name_of(animal))
    farm.fields = [str(f) for f in data["fields"]]
    if not farm.fields or len(farm.fields) > 200 or any(f not in ("empty",) + SEEDS + LIVESTOCK for f in farm.fields):
        raise UserError("fields hold 'empty', a seed or an animal")
    for animal in LIVESTOCK:
        held = farm.fields.count(animal)
        if held > 1:
            raise UserError(f"two fields of {name_of(animal)}")
        stabled = animal == "horse" and "stable" in data.get("facilities", ())
        if (held == 1) != (farm.animals[animal] > 0 and not stabled):
            raise UserError(f"the {name_of(animal)} count and fields do not match")
    deck = rules.deck()
    farm.row = [str(c) for c in data["row"]]
    farm.deck_next = _whole(data["deck_next"], "deck position", len(CRAFTSMEN))
    farm.contracted = [str(c) for c in data.get("contracted") or ()]
    seen = set(deck[:farm.deck_next])
    if any(c not in seen for c in farm.row + farm.contracted) or \
            len(set(farm.row + farm.contracted)) != len(farm.row) + len(farm.contracted) or len(farm.row) > 6:
        raise UserError("the row and the contracted craftsmen are craftsmen drawn from the deck, each once")
    farm.facilities = [str(f) for f in data.get("facilities") or ()]
    if any(f not in FACILITIES for f in farm.facilities) or len(set(farm.facilities)) != len(farm.facilities):
        raise UserError("facilities are the five of the game, each once")
    vp = dict(data.get("vp") or {})
    farm.tourism = _whole(vp.get("tourism", 0), "tourism VP")
    farm.tally = _whole(vp.get("tourism_tally", 0), "tourism tally", int(ACT["tourism_cap"]))
    farm.market = _whole(vp.get("market", 0), "market VP")
    farm.crafts = _whole(vp.get("craftsmen", 0), "craftsmen VP")
    farm.whisky_vp = _whole(vp.get("whisky", 0), "whisky VP")
    farm.begging = _whole(data.get("begging", 0), "begging counters")
    farm.pool = [int(_whole(f, "die")) for f in data.get("dice_in_hand") or ()]
    if any(not 1 <= f <= 6 for f in farm.pool) or len(farm.pool) > 30:
        raise UserError("dice in hand show 1 to 6")
    farm.used = []
    for entry in data.get("dice_used") or ():
        face, action = entry
        if not isinstance(face, int) or not 1 <= face <= 6 or action not in DIE_ACTIONS + ("discard",):
            raise UserError(f"a used die is [face, action], not {entry!r}")
        farm.used.append((face, str(action)))
    farm.done = [str(a) for a in data.get("actions_used") or ()]
    if any(a not in ONCE_A_ROUND for a in farm.done):
        raise UserError("actions used are once-a-round actions")
    plow = dict(data.get("plow") or {})
    farm.plow_face = _whole(plow.get("face", 0), "plow face", 6)
    farm.plow_uses = _whole(plow.get("uses", 0), "plow uses", int(ACT["plow_uses"]))
    farm.recruited = bool(data.get("recruited", False))
    pending = tuple(data.get("half_done") or ())
    if pending:
        kind = pending[0]
        ok = (kind == "sow" and len(pending) == 1) or (
            kind in ("ship", "bread_oven") and len(pending) == 2 and isinstance(pending[1], int) and 0 < pending[1] < 100) or (
            kind == "recruit" and len(pending) >= 2 and isinstance(pending[1], int) and 1 <= pending[1] <= 6
            and all(c in farm.row for c in pending[2:]) and len(pending) - 2 < pending[1])
        if not ok:
            raise UserError(f"not a half-done action: {list(pending)!r}")
    farm.pending = pending
    farm.finished = bool(data.get("finished", False))
    return farm


def tables_from_json(data: Mapping, seeded: Tables) -> Tables:
    """A state file's own deck order and slot orders (each optional) over the seeded ones."""
    deck = seeded.deck
    if "deck" in data:
        names = list(data["deck"])
        if sorted(names) != sorted(CRAFTSMEN):
            raise UserError("the deck lists each of the 31 craftsmen once")
        deck = tuple(CRAFTSMEN.index(c) for c in names)
    orders = seeded.slot_orders
    if "slot_orders" in data:
        given = dict(data["slot_orders"])
        if set(given) != set(MERCHANTS):
            raise UserError(f"slot orders name the merchants {', '.join(MERCHANTS)}")
        orders = []
        for merchant in MERCHANTS:
            rounds = [tuple(o) for o in given[merchant]]
            if len(rounds) != ROUNDS or any(sorted(o) != list(range(8)) for o in rounds):
                raise UserError(f"slot orders of the {name_of(merchant)}: 8 rounds, each an order of 0-7")
            orders.append(tuple(rounds))
        orders = tuple(orders)
    if deck == seeded.deck and orders == seeded.slot_orders:
        return seeded
    return Tables(seeded.dice, deck, orders)


# -- the game --------------------------------------------------------------------------------------


class DiceyFarm(Game):
    name = "dicey-farm"
    title = "Dicey Farm"
    min_players = int(DATA["players"]["min"])
    max_players = int(DATA["players"]["max"])
    options = (
        Option("daily", "", "Daily Mode: a date YYYY-MM-DD gives that day's 25 dice, craftsman order and merchant "
               "slots as the original's Daily Mode (the dice appear by themselves, no roll); empty: Normal Mode "
               "(dice from the tray, deck and slots from the game's seed)"),
        Option("cap_tourism_total", False, "False: tourism VP are not capped, only the tourism tally stops at 20 "
               "(how ver 1.02 plays); True: tourism gives at most 20 VP in all (the rule text)"),
    )

    def rules_for(self, options: Mapping[str, Any], seed: int) -> Rules:
        return make_rules(seed, str(options["daily"]).strip(), bool(options["cap_tourism_total"]))

    def new_game(self, players: Sequence[str], options: Mapping[str, Any] | None = None,
                 seed: int = 0) -> FarmState:
        """Round 1 set up (row refilled, nothing to harvest); its dice are due (or, in Daily Mode, dealt)."""
        players = self.check_players(players)
        resolved = self.resolve_options(options)
        rules = self.rules_for(resolved, seed)
        farms = []
        for _ in players:
            farm = new_farm()
            start_round(farm, rules.deck())
            farms.append(farm)
        state = FarmState(self, rules, tuple(sorted(resolved.items())), players, seed, "roll", 1, tuple(farms))
        return state._daily_dice()

    def _read_state(self, data: Mapping) -> FarmState:
        players = self.check_players(list(data["players"]))
        resolved = self.resolve_options(data.get("options") or {})
        seed = data.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise UserError("seed must be a whole number")
        rules = self.rules_for(resolved, seed)
        tables = tables_from_json(data, rules.tables)
        if tables is not rules.tables:
            rules = replace(rules, tables=tables)
        stage = data["stage"]
        if stage not in ("roll", "act", "over"):
            raise UserError(f"unknown stage {stage!r}")
        number = _whole(data["round"], "round", ROUNDS)
        if number < 1:
            raise UserError("round is 1 to 8")
        farms = list(data["farms"])
        if len(farms) != len(players):
            raise UserError("one farm per player")
        farms = tuple(farm_from_json(f, rules) for f in farms)
        turn_player = data.get("turn_player", players[0])
        if turn_player not in players:
            raise UserError(f"no player {turn_player!r}")
        dice = tuple(int(_whole(d, "die", 6)) for d in data.get("dice") or ())
        if stage == "act" and len(dice) != DICE_PER_ROUND[number - 1] or any(d < 1 for d in dice):
            raise UserError(f"round {number} is played with {DICE_PER_ROUND[number - 1]} dice")
        if stage != "act" and any(f.pool or f.pending or f.used for f in farms):
            raise UserError("dice in hand only while the farmers act")
        return FarmState(self, rules, tuple(sorted(resolved.items())), players, seed, stage, number, farms,
                         players.index(turn_player), dice)

    def advise(self, state: GameState) -> list[Suggestion]:
        from companion.games import dicey_farm_advice
        return dicey_farm_advice.advise(state)

    def best_move(self, state: GameState) -> Move | None:
        from companion.games import dicey_farm_advice
        return dicey_farm_advice.best_move(state)

    def forget_positions(self) -> None:
        from companion.games import dicey_farm_advice
        dicey_farm_advice.forget()

    def describe(self) -> dict:
        info = super().describe()
        info["notes"] = [
            ("solo as the original (ver 1.02); with 2-4 players each farmer runs a farm of their own with the "
             "same dice each round (everyone uses the one roll the camera read), the same craftsman deck order "
             "and merchant slots, and the scores are compared at the end: the companion's own reading"),
            (f"{ROUNDS} rounds with {'/'.join(map(str, DICE_PER_ROUND))} dice; upkeep is the dice + 1 food, "
             f"each missing food a begging counter ({DATA['rounds']['begging_vp']} VP)"),
            "score guide: " + ", ".join(label for _, label in SCORING["score_guide"]) + " VP (flavour)",
        ]
        return info


GAME = DiceyFarm()
