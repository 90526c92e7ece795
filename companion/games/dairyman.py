"""Dairyman (Chih-Fan Chen, 2-4 players): roll dairy dice, lock sets of ten on the
barns, claim milk tiles from the order display, flip them to cheese or ice cream.

Rules data (dice, tokens, the 22 tiles, defaults for what the rule text leaves out)
lives in ``dairyman.toml``; the odds and advice in ``dairyman_advice``.

A turn: the player rolls (chance node), locks one or more sets (``lock``) or, with no
set, fails (``fail``); then re-rolls the unlocked dice (``reroll``, optionally freezing
some with freeze tokens) or stops and claims tiles (``claim``; ``fail`` when none fit).
At any decision node of the turn the player may ``flip`` an own tile (cheese with the
unlocked yellow die, ice cream with a freeze token); right after a roll, before
locking, a flipped ice cream tile's re-roll ability may be used once (``ability``).
Dice in moves are written ``colour:value`` (``"white:5"``); a bare value matches a
white die first, then red, then yellow.  A roll a person gives (:meth:`DairymanState.colour_roll`)
names the yellow die; its other dice may be bare values, white or red alike.
"""
from __future__ import annotations

import random
import tomllib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from companion.engine import Alert, DiceRequest, Die, Game, GameState, Move, Option, Suggestion, percent_words
from companion.errors import RuleError, UserError
from companion.games import dairyman_advice as dice_math

RULES = tomllib.loads((Path(__file__).with_name("dairyman.toml")).read_text(encoding="utf-8"))

WHITE, YELLOW, RED = "white", "yellow", "red"
DIE_COLOURS = (WHITE, YELLOW, RED)
_BARE_DIE_PREFERENCE = (WHITE, RED, YELLOW)  # a bare value keeps the yellow die for last

ROLL, LOCK, CONTINUE, OVER = "roll", "lock", "continue", "over"


@dataclass(frozen=True)
class Tile:
    """One milk tile: ``kind`` is ``ice_cream`` or ``cheese`` (the side it flips to)."""

    id: int
    kind: str
    value: int
    flipped_value: int
    ability: str | None = None   # ice cream: "ones", "twos" or "one"
    face: int | None = None      # cheese: the yellow die value that flips it

    def label(self, flipped: bool = False) -> str:
        """The tile as a player names it: its value and, face down, what it flips to and how
        ("milk 20 (cheese on a yellow 4)"), so two tiles of one value are told apart without numbers."""
        kind = "ice cream" if self.kind == "ice_cream" else "cheese"
        if flipped:
            return f"{kind} {self.flipped_value}"
        return f"milk {self.value} ({'ice cream' if self.kind == 'ice_cream' else f'cheese on a yellow {self.face}'})"


ABILITY_TEXT = dice_math.ABILITY_TEXT
_SHARED_DICE = {(value, colour): Die(value, colour) for value in range(1, 7) for colour in DIE_COLOURS}


@lru_cache(maxsize=64)
def build_tiles(cheese_faces: str) -> tuple[Tile, ...]:
    """The 22 tiles from the rules data, cheese faces taken in order from ``cheese_faces``."""
    try:
        faces = [int(f) for f in cheese_faces.replace(",", " ").split()]
    except ValueError as exc:
        raise UserError(f"option cheese_faces: {cheese_faces!r} is not a list of die values") from exc
    cheese_count = sum(t["count"] for t in RULES["tiles"] if t["kind"] == "cheese")
    if len(faces) != cheese_count or not all(1 <= f <= 6 for f in faces):
        raise UserError(f"option cheese_faces needs {cheese_count} die values 1-6, one per cheese tile")
    tiles: list[Tile] = []
    face_iter = iter(faces)
    for spec in RULES["tiles"]:
        for _ in range(spec["count"]):
            if spec["kind"] == "ice_cream":
                tiles.append(Tile(len(tiles), "ice_cream", spec["value"], spec["value"], ability=spec["ability"]))
            else:
                tiles.append(Tile(len(tiles), "cheese", spec["value"], spec["cheese_value"], face=next(face_iter)))
    return tuple(tiles)


die_text = dice_math.die_text


def dice_words(die: Die) -> dict:
    """A die for the table: its colour, its value and how a player names it (white dice by value)."""
    return {"colour": die.colour, "value": die.value,
            "text": str(die.value) if die.colour in (WHITE, None) else f"{die.colour} {die.value}"}


def set_words(dice: Sequence[Die]) -> str:
    """A set of ten as a player writes it: "6+4", "5+yellow 5"."""
    return "+".join(dice_words(d)["text"] for d in sorted(dice, key=lambda d: -d.value))


def and_list(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""


def _parse_die(spec: Any) -> Die:
    """A die named in a move: ``"white:5"``, ``"5"``, ``5`` or ``{"value": 5, "colour": ...}``."""
    if isinstance(spec, Die):
        return spec
    if isinstance(spec, int) and not isinstance(spec, bool) and 1 <= spec <= 6:
        return Die(spec)
    if isinstance(spec, str):
        colour, _, value = spec.strip().rpartition(":")
        try:
            return Die(int(value), colour.lower() or None)
        except (ValueError, UserError) as exc:
            raise RuleError("die", f"cannot read die {spec!r}: write colour:value with a value 1-6") from exc
    if isinstance(spec, (tuple, list)) and len(spec) == 2 and all(isinstance(p, (list, tuple)) for p in spec):
        return _parse_die(dict(spec))  # a frozen {"value", "colour"} mapping
    if isinstance(spec, Mapping):
        try:
            return Die.from_json(spec)
        except UserError as exc:
            raise RuleError("die", str(exc)) from exc
    raise RuleError("die", f"cannot read die {spec!r}: write colour:value, e.g. white:5")


def take_dice(pool: Sequence[Die], wanted: Iterable[Any], rule: str = "each die once",
              taken_before: Sequence[Die] = ()) -> tuple[list[Die], list[Die]]:
    """Match die specs against ``pool``: (dice taken, dice left).  RuleError if one is missing;
    ``taken_before``: dice the same move already took from the roll (a die named twice is said so)."""
    left = Counter(pool)
    taken: list[Die] = []
    for spec in wanted:
        die = _parse_die(spec)
        if die.colour is None:
            match = next((Die(die.value, c) for c in _BARE_DIE_PREFERENCE if left[Die(die.value, c)] > 0), None)
        else:
            match = die if left[die] > 0 else None
        if match is None:
            used = sum(1 for d in (*taken_before, *taken)
                       if d.value == die.value and (die.colour is None or d.colour == die.colour))
            what = f"{die.colour} {die.value}" if die.colour else f"{die.value}"
            if used:
                times = "twice" if used == 1 else f"{used + 1} times"
                raise RuleError(rule, f"the {what} is used {times}, but the unlocked dice show "
                                f"{'only one' if used == 1 else f'only {used}'}: each die counts once")
            raise RuleError(rule, f"no unlocked {what} to use")
        left[match] -= 1
        taken.append(match)
    return taken, sorted(left.elements())


class DairymanState(GameState):
    """An immutable Dairyman position (see the module docstring for the turn)."""

    FIELDS = frozenset((
        "abilities_used", "backorders", "barns", "current", "display", "events", "flipped", "freeze", "game",
        "options", "owned", "pending", "phase", "players", "reds", "roll", "roll_no", "seed", "set_aside",
        "shuffles", "stack", "tiles", "turns",
    ))

    def __init__(self, **fields: Any):
        if fields.keys() != self.FIELDS:
            raise TypeError(f"a Dairyman state needs exactly the fields {sorted(self.FIELDS)}")
        self.__dict__.update(fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a game state is immutable")

    @property
    def phase(self) -> str:
        """``roll`` (chance node), ``lock`` (after a roll), ``continue`` (after locking) or ``over``."""
        return self.__dict__["phase"]

    def _with(self, **changes: Any) -> DairymanState:
        """A copy with some fields changed (one dict copy: states are made at every step)."""
        state = object.__new__(DairymanState)
        state.__dict__.update(self.__dict__, **changes)
        return state

    # -- totals that follow from the rules data ---------------------------------------
    @property
    def backorder_total(self) -> int:
        return RULES["tokens"]["backorders"][str(len(self.players))]

    @property
    def freeze_total(self) -> int:
        return self.options["freeze_tokens"]

    @property
    def backorder_supply(self) -> int:
        return self.backorder_total - sum(self.backorders)

    @property
    def freeze_supply(self) -> int:
        return self.freeze_total - sum(self.freeze)

    @property
    def fail_points(self) -> int:
        """What the advice counts a failed turn as (the backorder penalty, negative)."""
        return RULES["advice"]["fail_points"]

    @property
    def freeze_limit(self) -> int:
        """The most dice the current player can freeze for a re-roll now."""
        return min(self.freeze[self.current], len(self.roll) - 1)

    @property
    def barn_label(self) -> str:
        """The barn this roll's sets go on: "1", "2", ... and "3+" for the last."""
        barns = len(self.barns)
        return f"{barns}+" if self.roll_no >= barns else str(self.roll_no)

    @property
    def locked_sets(self) -> int:
        return sum(map(len, self.barns))

    @property
    def barn_total(self) -> int:
        return dice_math.SET_TOTAL * self.locked_sets  # every locked set totals exactly ten

    def turn_dice(self) -> list[Die]:
        """Every die of this turn wherever it is (roll, barns, set aside), pending rolls excluded."""
        dice = list(self.roll) + list(self.set_aside)
        for barn in self.barns:
            for s in barn:
                dice.extend(s)
        if self.pending:
            dice.extend(self.pending[0])
        return dice

    # -- GameState API ----------------------------------------------------------------
    @property
    def current_player(self) -> str | None:
        return None if self.phase == OVER else self.players[self.current]

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def dice_to_roll(self) -> DiceRequest | None:
        if self.phase != ROLL:
            return None
        kept, colours = self.pending
        if self.roll_no == 1 and not kept and not self.locked_sets:
            reason = "start of turn"
        else:
            reason = f"roll {self.roll_no}" + (f", {len(kept)} die(s) kept" if kept else "")
        return DiceRequest(self.players[self.current], colours, reason)

    def random_roll(self, rng: random.Random) -> tuple[Die, ...]:
        """:meth:`GameState.random_roll`'s draw (the same calls to ``rng``), with shared dice."""
        if self.phase != ROLL:
            raise RuleError("roll order", "no roll is due now")
        return tuple(_SHARED_DICE[rng.randint(1, 6), colour] for colour in self.pending[1])

    def colour_roll(self, dice: Sequence[Die]) -> tuple[Die, ...]:
        """:meth:`GameState.colour_roll`: dice without a colour are white (or red: the rules treat
        them alike); the yellow die, which flips cheese, must be named when it is rolled."""
        request = self.dice_to_roll()
        return tuple(dice) if request is None else request.colour_bare_dice(dice, alike=(WHITE, RED))

    def apply_roll(self, dice: Sequence[Die]) -> DairymanState:
        """:meth:`GameState.apply_roll`; a roll of exactly the requested colours skips the
        general check (the one that explains what is wrong with any other roll)."""
        dice = tuple(dice)
        if (self.phase == ROLL and len(dice) == len(self.pending[1])
                and sorted(d.colour or "" for d in dice) == sorted(self.pending[1])):
            return self._apply_roll(dice)
        return super().apply_roll(dice)

    def _apply_roll(self, dice: tuple[Die, ...]) -> DairymanState:
        kept, colours = self.pending
        if all(d.colour is not None for d in dice):
            return self._with(roll=tuple(sorted(kept + dice)), pending=None, phase=LOCK, events=())
        # Dice read without a colour take the colours still missing, in request order.
        missing = Counter(colours) - Counter(d.colour for d in dice if d.colour is not None)
        fill = []
        for colour in colours:
            if missing[colour] > 0:
                fill.append(colour)
                missing[colour] -= 1
        fill_iter = iter(fill)
        rolled = [d if d.colour is not None else Die(d.value, next(fill_iter)) for d in dice]
        return self._with(roll=tuple(sorted(list(kept) + rolled)), pending=None, phase=LOCK, events=())

    def legal_moves(self) -> list[Move]:
        if self.phase == LOCK:
            moves = [entry[0] for entry in dice_math.lock_table(self.roll)]
            if not moves:
                moves.append(Move("fail"))
            return moves + self._flip_moves() + self._ability_moves()
        if self.phase == CONTINUE:
            subsets = self.claimable_subsets()
            moves = [Move("claim", (("tiles", ids),)) for ids in subsets]
            if not subsets:
                moves.append(Move("fail"))
            if self.roll:
                moves.extend(dice_math.reroll_moves(self.roll, self.freeze_limit))
            return moves + self._flip_moves()
        return []

    def _flip_moves(self) -> list[Move]:
        """Flips of own milk tiles the player can pay for now (identical tiles once)."""
        moves, seen = [], set()
        yellow_faces = {d.value for d in self.roll if d.colour == YELLOW}
        for t in sorted(self.owned[self.current]):
            tile = self.tiles[t]
            key = (tile.kind, tile.value, tile.face)
            if t in self.flipped or key in seen:
                continue
            if tile.kind == "ice_cream" and self.freeze[self.current] > 0:
                moves.append(Move("flip", (("tile", t),)))
            elif tile.kind == "cheese" and tile.face in yellow_faces:
                moves.append(Move("flip", (("die", f"{YELLOW}:{tile.face}"), ("tile", t))))
            else:
                continue
            seen.add(key)
        return moves

    def _ability_moves(self) -> list[Move]:
        """Unused ice cream re-rolls that apply to the roll (one tile per ability kind)."""
        moves, seen = [], set()
        for t in sorted(self.owned[self.current]):
            tile = self.tiles[t]
            if (tile.kind != "ice_cream" or t not in self.flipped or t in self.abilities_used
                    or tile.ability in seen):
                continue
            seen.add(tile.ability)
            if tile.ability == "one":
                moves.extend(Move("ability", (("die", die_text(d)), ("tile", t))) for d in sorted(set(self.roll)))
            elif any(d.value == (1 if tile.ability == "ones" else 2) for d in self.roll):
                moves.append(Move("ability", (("tile", t),)))
        return moves

    def apply(self, move: Move) -> DairymanState:
        """:meth:`GameState.apply`; at a decision node a move naming no player goes straight
        to the rules (the engine's checks would pass and only copy the move)."""
        if self.phase in (LOCK, CONTINUE) and move.get("player") is None:
            return self._apply(move)
        return super().apply(move)

    def _apply(self, move: Move) -> DairymanState:
        handler = {"lock": self._lock, "fail": self._fail, "reroll": self._reroll, "claim": self._claim,
                   "flip": self._flip, "ability": self._ability}.get(move.kind)
        if handler is None:
            raise RuleError("move kind", f"Dairyman has no move {move.kind!r} (lock, fail, reroll, claim, flip, ability)")
        return handler(move)

    # -- moves ------------------------------------------------------------------------
    def _need_phase(self, move: str, *phases: str) -> None:
        if self.phase not in phases:
            when = {LOCK: "right after a roll", CONTINUE: "after locking"}
            allowed = " or ".join(when[p] for p in phases)
            raise RuleError("turn order", f"{move} is only possible {allowed}")

    def _lock(self, move: Move) -> DairymanState:
        self._need_phase("locking sets", LOCK)
        known = dice_math.lock_outcome(self.roll, move)
        if known is not None:  # a lock exactly as legal_moves lists it: already checked
            locked, pool = known
            return self._locked(locked, pool)
        sets = move.get("sets")
        if not isinstance(sets, (list, tuple)) or not sets:
            raise RuleError("lock a set", "name at least one set to lock, e.g. sets=[[\"white:6\", \"white:4\"]]")
        pool = list(self.roll)
        locked = []
        for spec in sets:
            if not isinstance(spec, (list, tuple)) or len(spec) not in (2, 3):
                raise RuleError("set of ten", f"a set is 2 or 3 dice, not {spec!r}")
            dice = [_parse_die(d) for d in spec]
            total = sum(d.value for d in dice)
            if total != 10:
                shown = "+".join(str(d.value) for d in dice)
                raise RuleError("set of ten", f"{shown} totals {total}: a set must total exactly 10")
            taken, pool = take_dice(pool, dice, taken_before=[d for s in locked for d in s])
            locked.append(tuple(sorted(taken)))
        return self._locked(tuple(locked), tuple(pool))

    def _locked(self, locked: tuple, pool: tuple[Die, ...]) -> DairymanState:
        barn = min(self.roll_no, len(self.barns)) - 1
        barns = tuple(b + locked if i == barn else b for i, b in enumerate(self.barns))
        return self._with(roll=pool, barns=barns, phase=CONTINUE, events=())

    def _fail(self, move: Move) -> DairymanState:
        self._need_phase("failing", LOCK, CONTINUE)
        if self.phase == LOCK and self.roll_has_set():
            raise RuleError("lock a set", "this roll holds a set of 10: lock at least one")
        if self.phase == CONTINUE and self.claimable_subsets():
            raise RuleError("must claim", f"a barn total of {self.barn_total} claims a tile: you must claim")
        return self._end_turn_failed()

    def _reroll(self, move: Move) -> DairymanState:
        self._need_phase("re-rolling", CONTINUE)
        if not self.roll:
            raise RuleError("re-roll", "every die is locked or set aside: nothing left to re-roll")
        frozen_specs = move.get("freeze") or ()
        if not isinstance(frozen_specs, (list, tuple)):
            raise RuleError("freeze", "freeze names a list of dice")
        me = self.current
        if len(frozen_specs) > self.freeze[me]:
            raise RuleError("freeze", f"freezing {len(frozen_specs)} dice needs {len(frozen_specs)} freeze tokens; "
                            f"{self.players[me]} has {self.freeze[me]}")
        # Our reading: a re-roll rolls at least one die (freezing every die would earn a
        # token and move to the next barn without rolling anything).
        if frozen_specs and len(frozen_specs) >= len(self.roll):
            raise RuleError("freeze", "at least one die must be rolled: freeze fewer dice")
        frozen, rolled = take_dice(self.roll, frozen_specs, rule="freeze")
        tokens = list(self.freeze)
        tokens[me] -= len(frozen)
        roll_no = self.roll_no + 1
        # A token is earned as the re-roll is declared, after freezing for it (our
        # reading), so it can pay for a later freeze or flip but not this re-roll; an
        # empty supply gives nothing.
        earned = roll_no >= self.options["freeze_earned_from_roll"] and self.freeze_total - sum(tokens) > 0
        if earned:
            tokens[me] += 1
        events = ({"kind": "freeze_earned", "player": self.players[me]},) if earned else ()
        return self._with(roll=(), pending=(tuple(frozen), tuple(d.colour for d in rolled)), phase=ROLL,
                          roll_no=roll_no, freeze=tuple(tokens), events=events)

    def _claim(self, move: Move) -> DairymanState:
        self._need_phase("claiming", CONTINUE)
        ids = move.get("tiles")
        if not isinstance(ids, (list, tuple)) or not ids or not all(isinstance(i, int) for i in ids):
            raise RuleError("claim", "name the display tiles to claim by number, e.g. tiles=[3]")
        if len(set(ids)) != len(ids) or not set(ids) <= set(self.display):
            shown = ", ".join(self.tiles[i].label() for i in self.display)
            raise RuleError("claim", f"claim distinct tiles from the display ({shown})")
        # Any non-empty set of display tiles the barns can pay for is a legal claim;
        # claiming less than the barns could buy is allowed, the rest is lost.
        cost = sum(self.tiles[i].value for i in ids)
        if cost > self.barn_total:
            raise RuleError("claim limit", f"the tiles cost {cost} but the barns hold {self.barn_total}")
        return self._end_turn_claimed(tuple(ids))

    def _flip(self, move: Move) -> DairymanState:
        self._need_phase("flipping", LOCK, CONTINUE)
        me = self.current
        tile = self._own_tile(move.get("tile"))
        if tile.id in self.flipped:
            raise RuleError("flip", f"{tile.label(True)} is already flipped")
        if tile.kind == "ice_cream":
            if self.freeze[me] < 1:
                raise RuleError("flip ice cream", "flipping to ice cream costs a freeze token and you have none")
            tokens = tuple(n - 1 if i == me else n for i, n in enumerate(self.freeze))
            return self._with(freeze=tokens, flipped=self.flipped | {tile.id}, events=())
        spec = move.get("die")
        die = _parse_die(spec) if spec is not None else Die(tile.face, YELLOW)
        if die.colour not in (None, YELLOW):
            raise RuleError("flip cheese", "only the yellow die flips a cheese tile")
        if die.value != tile.face:
            raise RuleError("cheese face", f"{tile.label()} needs the yellow die on {tile.face}, not {die.value}")
        taken, left = take_dice(self.roll, [Die(tile.face, YELLOW)], rule="flip cheese")
        return self._with(roll=tuple(left), set_aside=self.set_aside + tuple(taken),
                          flipped=self.flipped | {tile.id}, events=())

    def _ability(self, move: Move) -> DairymanState:
        # Our reading: an ability re-rolls dice of the roll just made, before locking
        # (after locking, the next normal re-roll rolls every unlocked die anyway).
        self._need_phase("an ice cream re-roll", LOCK)
        tile = self._own_tile(move.get("tile"))
        if tile.kind != "ice_cream" or tile.id not in self.flipped:
            raise RuleError("ice cream ability", f"{tile.label(tile.id in self.flipped)} has no re-roll ability")
        if tile.id in self.abilities_used:
            raise RuleError("ice cream ability", f"{tile.label(True)} was already used this turn")
        if tile.ability in ("ones", "twos"):
            face = 1 if tile.ability == "ones" else 2
            rolled = [d for d in self.roll if d.value == face]
            if not rolled:
                raise RuleError("ice cream ability", f"no unlocked die shows {face}")
            kept = [d for d in self.roll if d.value != face]
        else:
            spec = move.get("die")
            if spec is None:
                raise RuleError("ice cream ability", "name the die to re-roll, e.g. die=\"white:1\"")
            rolled, kept = take_dice(self.roll, [spec], rule="ice cream ability")
        return self._with(roll=(), pending=(tuple(kept), tuple(d.colour for d in rolled)), phase=ROLL,
                          abilities_used=self.abilities_used | {tile.id}, events=())

    def _own_tile(self, tile_id: Any) -> Tile:
        if not isinstance(tile_id, int) or tile_id not in self.owned[self.current]:
            raise RuleError("own tile", f"that tile is not {self.players[self.current]}'s")
        return self.tiles[tile_id]

    # -- ends of turns ----------------------------------------------------------------
    def _end_turn_failed(self) -> DairymanState:
        me = self.current
        backorders = list(self.backorders)
        backorders[me] += 1
        events = [{"kind": "roll_failed", "player": self.players[me]}]
        state = self._with(backorders=tuple(backorders))
        if state.backorder_supply == 0:
            state, spoiled = state._spoil()
            events.append({"kind": "spoilage", "discarded": spoiled})
        return state._next_turn(tuple(events))

    def _spoil(self) -> tuple[DairymanState, dict[str, int]]:
        """The last backorder token was taken: discard, shuffle under the stack, refill."""
        most = max(self.backorders)
        owned = [list(tiles) for tiles in self.owned]
        discarded: list[int] = []
        spoiled: dict[str, int] = {}
        for i, count in enumerate(self.backorders):
            milk = [t for t in owned[i] if t not in self.flipped]
            if count == most and milk:
                # Equal values: the tile first in the rules data (ice cream side before cheese).
                worst = max(milk, key=lambda t: (self.tiles[t].value, -t))
                owned[i].remove(worst)
                discarded.append(worst)
                spoiled[self.players[i]] = worst
        returned = discarded + list(self.display)
        random.Random(f"dairyman:{self.seed}:{self.shuffles}").shuffle(returned)
        stack = list(self.stack) + returned
        size = RULES["display"]["size"]
        state = self._with(owned=tuple(tuple(t) for t in owned), stack=tuple(stack[size:]),
                           display=tuple(stack[:size]), backorders=(0,) * len(self.players),
                           shuffles=self.shuffles + 1)
        return state, spoiled

    def _end_turn_claimed(self, ids: tuple[int, ...]) -> DairymanState:
        me = self.current
        owned = tuple(tiles + ids if i == me else tiles for i, tiles in enumerate(self.owned))
        display = [t for t in self.display if t not in ids]
        need = RULES["display"]["size"] - len(display)
        events = ({"kind": "claimed", "player": self.players[me], "tiles": list(ids)},)
        if need > len(self.stack):
            return self._with(owned=owned, display=tuple(display), phase=OVER, roll=(), barns=((),) * 3,
                              set_aside=(), pending=None, reds=0, events=events, turns=self.turns + 1)
        state = self._with(owned=owned, display=tuple(display) + self.stack[:need], stack=self.stack[need:])
        return state._next_turn(events)

    def _next_turn(self, events: tuple) -> DairymanState:
        nxt = (self.current + 1) % len(self.players)
        reds = min(self.backorders[nxt], RULES["dice"]["red_max"])
        return self._with(current=nxt, roll_no=1, phase=ROLL, roll=(), barns=((),) * RULES["barns"]["count"],
                          set_aside=(), abilities_used=frozenset(), reds=reds,
                          pending=((), starting_colours(reds)), events=events, turns=self.turns + 1)

    # -- questions the advice and the alerts ask ---------------------------------------
    def roll_has_set(self) -> bool:
        return dice_math.has_set(dice_math.counts_of(d.value for d in self.roll))

    def claimable_subsets(self) -> tuple[tuple[int, ...], ...]:
        """Every non-empty set of display tiles the barns can pay for (identical tiles once)."""
        return _claimable(self.options["cheese_faces"], self.display, self.barn_total)

    # -- scores and alerts ------------------------------------------------------------
    def score_breakdown(self) -> dict[str, dict[str, int]]:
        penalty = RULES["tokens"]["backorder_penalty"]
        result = {}
        for i, player in enumerate(self.players):
            parts = {"milk": 0, "cheese": 0, "ice_cream": 0, "backorders": -penalty * self.backorders[i]}
            for t in self.owned[i]:
                tile = self.tiles[t]
                if t in self.flipped:
                    parts[tile.kind] += tile.flipped_value
                else:
                    parts["milk"] += tile.value
            result[player] = parts
        return result

    def alerts(self) -> list[Alert]:
        found: list[Alert] = []
        for event in self.events:
            if event["kind"] == "freeze_earned":
                who = event["player"]
                held = self.freeze[self.players.index(who)]
                found.append(Alert("freeze_earned", f"{who} earned a freeze token for this re-roll and now has "
                                   f"{held}: each one keeps a die from a later re-roll or flips milk to ice cream",
                                   "info", (who,)))
            elif event["kind"] == "roll_failed":
                found.append(Alert("roll_failed", f"{event['player']} failed to produce milk and took a backorder "
                                   f"token (-{RULES['tokens']['backorder_penalty']} points)", "warning",
                                   (event["player"],)))
            elif event["kind"] == "spoilage":
                lost = ", ".join(f"{p} lost {self.tiles[t].label()}" for p, t in event["discarded"].items())
                found.append(Alert("spoilage", "Spoilage: " + (lost or "nobody had milk to lose")
                                   + "; backorder tokens returned, display reshuffled", "critical",
                                   tuple(event["discarded"])))
        if self.phase == OVER:
            winners = self.winners()
            scores = ", ".join(f"{p} {n}" for p, n in self.scores().items())
            found.append(Alert("game_over", f"Game over: {' and '.join(winners)} "
                               f"{'win' if len(winners) > 1 else 'wins'} ({scores})", "critical", tuple(winners)))
            return found
        me = self.players[self.current]
        if self.backorder_supply == 1:
            counts = [n + (i == self.current) for i, n in enumerate(self.backorders)]
            who = [p for p, n in zip(self.players, counts) if n == max(counts)]
            found.append(Alert("spoilage_coming", f"One backorder token left: if {me} fails this turn, milk spoils "
                               f"and {', '.join(who)} discard(s) the highest-value milk tile", "warning", tuple(who)))
        if self.phase == LOCK and not self.roll_has_set():
            cost = (f"-{RULES['tokens']['backorder_penalty']} points"
                    + (", and spoilage" if self.backorder_supply == 1 else ""))
            rescue = " unless an ice cream re-roll makes a set" if self._ability_moves() else ""
            found.append(Alert("roll_failed", f"No set of 10 in this roll: {me} fails to produce milk{rescue}, "
                               f"takes a backorder token ({cost}) and ends the turn", "critical", (me,)))
        if self.phase == CONTINUE:
            if self.claimable_subsets():
                found.append(Alert("must_claim", f"Stopping now: {me} must claim tiles worth up to "
                                   f"{self.barn_total}; unspent points are lost", "info", (me,)))
            else:
                cheapest = min(self.tiles[t].value for t in self.display)
                found.append(Alert("must_claim", f"A barn total of {self.barn_total} claims nothing (cheapest tile "
                                   f"{cheapest}): stopping now fails", "warning", (me,)))
        size = RULES["display"]["size"]
        if len(self.stack) < size:
            if self.stack:
                text = (f"Only {len(self.stack)} tile(s) left in the stack: claiming more than "
                        f"{len(self.stack)} tile(s) in one turn ends the game")
            else:
                text = "The stack is empty: the next claim ends the game"
            found.append(Alert("final_round", text, "warning"))
        return found

    def named_dice(self, specs: Sequence[Any], pool: Sequence[Die] | None = None) -> list[Die]:
        """The dice of the roll that ``specs`` name, as the move takes them (a bare value is the
        white die, then red, then yellow, that shows it); dice the roll does not hold as named."""
        try:
            return take_dice(self.roll if pool is None else pool, specs)[0]
        except RuleError:
            return [_parse_die(d) for d in specs]

    def named_sets(self, sets: Sequence[Sequence[Any]]) -> list[list[Die]]:
        """The sets of a lock as the dice of the roll they take, one set after another."""
        pool, named = list(self.roll), []
        for spec in sets:
            dice = self.named_dice(spec, pool)
            named.append(dice)
            left = Counter(pool) - Counter(dice)
            pool = list(left.elements())
        return named

    def describe(self, move: Move) -> str:
        kind = move.kind
        if kind == "lock":
            return dice_math.lock_text(self.named_sets(move.get("sets") or ()), self.barn_label)
        if kind == "fail":
            return (f"fail to produce: take a backorder token (-{RULES['tokens']['backorder_penalty']} points"
                    + (", triggers spoilage)" if self.backorder_supply == 1 else ")"))
        if kind == "reroll":
            return dice_math.reroll_text(len(self.roll), self.named_dice(move.get("freeze") or ()))
        if kind == "claim":
            tiles = [self.tiles[t] for t in move.get("tiles") or () if 0 <= t < len(self.tiles)]
            return f"stop and claim {', '.join(t.label() for t in tiles)} ({self.barn_total} in the barns)"
        if kind == "flip":
            tile = self.tiles[move["tile"]]
            how = f"the yellow {tile.face}" if tile.kind == "cheese" else "a freeze token"
            return f"flip milk {tile.value} to {tile.label(True)} with {how}"
        if kind == "ability":
            tile = self.tiles[move["tile"]]
            die = move.get("die")
            shown = f" (the {dice_words(self.named_dice([die])[0])['text']})" if die else ""
            return f"use {tile.label(True)}: {ABILITY_TEXT[tile.ability]}{shown}"
        return kind

    # -- the table in player words (board panels) ---------------------------------------
    def tile_view(self, tile_id: int) -> dict:
        """One tile as a player reads it: its name and value now, and what flipping it needs.

        ``tile`` is the number moves name it by (never shown)."""
        tile = self.tiles[tile_id]
        kind = "ice cream" if tile.kind == "ice_cream" else "cheese"
        flipped = tile_id in self.flipped
        needs = "a freeze token" if tile.kind == "ice_cream" else f"a yellow {tile.face}"
        return {"tile": tile_id, "name": f"{kind} {tile.flipped_value}" if flipped else f"milk {tile.value}",
                "value": tile.flipped_value if flipped else tile.value, "flipped": flipped,
                "flips_to": f"{kind} {tile.flipped_value}", "flip_needs": None if flipped else needs,
                "ability": ABILITY_TEXT[tile.ability] if tile.kind == "ice_cream" else None}

    def step_words(self) -> str:
        """What happens now, as a sentence for the table."""
        if self.phase == OVER:
            return "The game is over"
        me = self.players[self.current]
        if self.phase == ROLL:
            kept = len(self.pending[0])
            return (f"{me} rolls {len(self.pending[1])} dice" + (f", {kept} kept" if kept else "")
                    + f" (roll {self.roll_no})")
        if self.phase == LOCK:
            return f"{me} locks sets of ten in barn {self.barn_label}"
        return f"{me} re-rolls or stops and claims up to {self.barn_total}"

    def board_view(self) -> dict:
        """The whole table for a board display, in player words: the display tiles (value,
        what a flip needs), the barns with their locked sets, the dice rolled and set aside,
        the supplies and every player's tokens and tiles.  Dice are ``{"colour", "value",
        "text"}`` with ``text`` the value, coloured dice named ("yellow 4")."""
        request = self.dice_to_roll()
        barns = [{"name": f"barn {label}", "sets": [[dice_words(d) for d in sorted(s, key=lambda d: -d.value)]
                                                    for s in barn],
                  "total": dice_math.SET_TOTAL * len(barn)}
                 for label, barn in zip(("1", "2", "3+"), self.barns)]
        scores = self.scores()
        players = [{"player": p, "score": scores[p], "freeze": self.freeze[i], "backorders": self.backorders[i],
                    "tiles": [self.tile_view(t) for t in self.owned[i]],
                    "current": self.phase != OVER and i == self.current} for i, p in enumerate(self.players)]
        return {
            "step": self.step_words(), "player": self.current_player, "phase": self.phase,
            "roll_number": self.roll_no, "barn": f"barn {self.barn_label}",
            "to_roll": request.count if request else 0,
            "kept": [dice_words(d) for d in self.pending[0]] if self.pending else [],
            "display": [self.tile_view(t) for t in self.display], "stack": len(self.stack),
            "barns": barns, "barn_total": self.barn_total,
            "roll": [dice_words(d) for d in self.roll], "set_aside": [dice_words(d) for d in self.set_aside],
            "supply": {"freeze": self.freeze_supply, "backorders": self.backorder_supply},
            "players": players,
        }

    def move_words(self, move: Move) -> str:
        """``move`` as a player says it ("Lock 6+4 and 5+5 in barn 1"), no tile numbers or die codes."""
        kind = move.kind
        if kind == "lock":
            sets = [set_words(s) for s in self.named_sets(move.get("sets") or ())]
            return f"Lock {and_list(sets)} in barn {self.barn_label}"
        if kind == "fail":
            return "Take a backorder token and end the turn"
        if kind == "reroll":
            frozen = self.named_dice(move.get("freeze") or ())
            rolled = len(self.roll) - len(frozen)
            text = f"Re-roll {rolled} {'die' if rolled == 1 else 'dice'}"
            return text + (f", freezing {and_list([dice_words(d)['text'] for d in frozen])}" if frozen else "")
        if kind == "claim":
            names = [self.tile_view(t)["name"] for t in move.get("tiles") or () if 0 <= t < len(self.tiles)]
            return f"Stop and claim {and_list(names)}"
        if kind == "flip":
            view = self.tile_view(move["tile"])
            return f"Flip your {view['name']} to {view['flips_to']} with {view['flip_needs']}"
        if kind == "ability":
            view = self.tile_view(move["tile"])
            die = move.get("die")
            what = f"re-roll the {dice_words(self.named_dice([die])[0])['text']}" if die else view["ability"]
            return f"Use your {view['name']} to {what}"
        return kind.capitalize()

    def suggestion_words(self, suggestion: Suggestion) -> dict:
        """A suggestion as a headline (the move and its main figure) and a short reason, in
        player words (the advice's own reason where it is short already)."""
        figures, kind = suggestion.advice, suggestion.move.kind
        figure, reason = "", suggestion.reason
        if kind == "lock":
            left, claimable = figures["dice_left"], figures["claimable_now"]
            if figures["then"] == "re-roll":
                figure = f"{percent_words(figures['p_more_set'])} chance of another set"
                reason = f"then re-roll {left} {'die' if left == 1 else 'dice'}: {figures['expected_points']:.1f} " \
                         "points expected"
            else:
                figure = f"worth {claimable} points" if claimable else "nothing to claim"
                reason = ("then stop" if claimable else "then stop: the turn fails") + (
                    f"; re-rolling the {left} left makes a set {percent_words(figures['p_more_set'])}" if left else "")
        elif kind == "reroll":
            figure = f"{percent_words(figures['p_more_set_with_freeze'])} chance of a set"
            if figures["expected_points"] is not None:
                stop = self.barn_total if self.claimable_subsets() else 0
                reason = f"{figures['expected_points']:.1f} points expected" + (
                    f", against {stop} for stopping now" if stop else ", against failing if stopping now")
            else:
                reason = "a weaker freeze choice"
        elif kind == "claim":
            figure = f"{figures['claimed']} points"
        elif kind == "fail":
            figure = f"{-int(self.fail_points)} points lost"
            left = figures["backorder_tokens_left"]
            reason = ("no set to lock" if self.phase == LOCK else "the barns pay for no tile") + (
                ": spoilage follows" if left == 0 else f"; {left} backorder token{'s' if left != 1 else ''} left")
        elif kind == "flip" and figures.get("bonus"):
            figure = f"{figures['bonus']} more points"
            cost = max(0.0, figures["bonus"] - figures["flip_gain"])
            reason = f"safe from spoilage; the yellow die was worth {cost:.1f} points this turn"
        elif kind == "ability":
            figure = f"{percent_words(figures['p_set_after'])} chance of a set"
        headline = self.move_words(suggestion.move) + (f": {figure}" if figure else "")
        return {"headline": headline, "reason": reason[:1].upper() + reason[1:]}

    # -- JSON -------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "game": "dairyman",
            "players": list(self.players),
            "options": dict(self.options),
            "seed": self.seed,
            "shuffles": self.shuffles,
            "stack": list(self.stack),
            "display": list(self.display),
            "owned": [list(t) for t in self.owned],
            "flipped": sorted(self.flipped),
            "backorders": list(self.backorders),
            "freeze": list(self.freeze),
            "current": self.current,
            "roll_no": self.roll_no,
            "phase": self.phase,
            "roll": [die_text(d) for d in self.roll],
            "barns": [[[die_text(d) for d in s] for s in barn] for barn in self.barns],
            "set_aside": [die_text(d) for d in self.set_aside],
            "abilities_used": sorted(self.abilities_used),
            "pending": None if self.pending is None else {
                "kept": [die_text(d) for d in self.pending[0]], "colours": list(self.pending[1])},
            "reds": self.reds,
            "events": [dict(e) for e in self.events],
            "turns": self.turns,
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DairymanState) and self.to_json() == other.to_json()

    def __hash__(self) -> int:
        return hash((self.current, self.phase, self.roll, self.stack, self.display))


@lru_cache(maxsize=4096)
def _claimable(cheese_faces: str, display: tuple[int, ...], budget: int) -> tuple[tuple[int, ...], ...]:
    tiles = build_tiles(cheese_faces)
    found, seen = [], set()
    for mask in range(1, 1 << len(display)):
        ids = tuple(t for i, t in enumerate(display) if mask >> i & 1)
        if sum(tiles[t].value for t in ids) > budget:
            continue
        key = tuple(sorted((tiles[t].kind, tiles[t].value, tiles[t].face or 0) for t in ids))
        if key not in seen:
            seen.add(key)
            found.append(ids)
    return tuple(found)


def starting_colours(reds: int) -> tuple[str, ...]:
    return (WHITE,) * RULES["dice"]["white"] + (YELLOW,) * RULES["dice"]["yellow"] + (RED,) * reds


class Dairyman(Game):
    name = "dairyman"
    title = "Dairyman"
    min_players = 2
    max_players = 4
    readings = tuple(RULES["readings"])
    options = (
        Option("freeze_tokens", RULES["tokens"]["freeze_supply"],
               "freeze tokens in the supply: 20 in the rule text, 10 in one edition", choices=(10, 20)),
        Option("freeze_earned_from_roll", RULES["defaults"]["freeze_earned_from_roll"],
               "each re-roll that makes this roll number or later earns a freeze token: 3 = from the roll "
               "that fills barn 3+ (our reading), 4 = literally from the third re-roll", choices=(3, 4)),
        Option("cheese_faces", RULES["defaults"]["cheese_faces"],
               "the yellow die value printed on each cheese tile (10 x4, 20 x4, 40 x3 in that order); "
               "not in the rule text, the default spreads 1-6 evenly"),
    )

    def new_game(self, players: Sequence[str], options: Mapping[str, Any] | None = None,
                 seed: int = 0) -> DairymanState:
        players = self.check_players(players)
        resolved = self.resolve_options(options)
        tiles = build_tiles(resolved["cheese_faces"])
        order = [t.id for t in tiles]
        random.Random(f"dairyman:{seed}:0").shuffle(order)
        size = RULES["display"]["size"]
        count = len(players)
        return DairymanState(
            game=self, players=players, options=resolved, tiles=tiles, seed=seed, shuffles=1,
            stack=tuple(order[size:]), display=tuple(order[:size]), owned=((),) * count, flipped=frozenset(),
            backorders=(0,) * count, freeze=(0,) * count, current=0, roll_no=1, phase=ROLL, roll=(),
            barns=((),) * RULES["barns"]["count"], set_aside=(), abilities_used=frozenset(),
            pending=((), starting_colours(0)), reds=0, events=(), turns=0)

    def state_from_json(self, data: Mapping) -> DairymanState:
        try:
            state = self._read_state(data)
        except UserError as exc:
            raise UserError(f"not a Dairyman game state: {exc}") from exc
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RuleError) as exc:
            raise UserError(f"not a Dairyman game state: {type(exc).__name__} {exc}") from exc
        return state

    def _read_state(self, data: Mapping) -> DairymanState:
        if not isinstance(data, Mapping) or data.get("game") != self.name:
            raise UserError("it does not say game: dairyman")
        players = self.check_players(data["players"])
        options = self.resolve_options(data["options"])
        tiles = build_tiles(options["cheese_faces"])
        count = len(players)

        def ints(values, name: str, length: int | None = None) -> tuple[int, ...]:
            values = tuple(values)
            if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
                raise UserError(f"{name} must be whole numbers >= 0")
            if length is not None and len(values) != length:
                raise UserError(f"{name} needs {length} entries")
            return values

        def dice(values) -> tuple[Die, ...]:
            read = tuple(_parse_die(v) for v in values)
            if any(d.colour not in DIE_COLOURS for d in read):
                raise UserError("every die needs a colour: white, yellow or red")
            return read

        stack, display = ints(data["stack"], "stack"), ints(data["display"], "display")
        owned = tuple(ints(t, "owned tiles") for t in data["owned"])
        if len(owned) != count:
            raise UserError("owned tiles need one list per player")
        every = sorted(stack + display + sum(owned, ()))
        if every != list(range(len(tiles))):
            raise UserError(f"the {len(tiles)} tiles must each be in the stack, display or a player's hand once")
        flipped = frozenset(ints(data["flipped"], "flipped"))
        if not flipped <= set(sum(owned, ())):
            raise UserError("only players' tiles can be flipped")
        backorders = ints(data["backorders"], "backorders", count)
        freeze = ints(data["freeze"], "freeze", count)
        phase = data["phase"]
        if phase not in (ROLL, LOCK, CONTINUE, OVER):
            raise UserError(f"unknown phase {phase!r}")
        pending = data["pending"]
        if (pending is None) != (phase != ROLL):
            raise UserError("a pending roll exactly when the phase is roll")
        if pending is not None:
            colours = tuple(pending["colours"])
            if not colours or any(c not in DIE_COLOURS for c in colours):
                raise UserError("pending colours must be white, yellow or red")
            pending = (dice(pending["kept"]), colours)
        barns = tuple(tuple(tuple(sorted(dice(s))) for s in barn) for barn in data["barns"])
        if len(barns) != RULES["barns"]["count"] or any(len(s) not in (2, 3) or sum(d.value for d in s) != 10
                                                        for barn in barns for s in barn):
            raise UserError("barns hold sets of 2-3 dice totalling 10")
        state = DairymanState(
            game=self, players=players, options=options, tiles=tiles, seed=int(data["seed"]),
            shuffles=ints([data["shuffles"]], "shuffles")[0], stack=stack, display=display, owned=owned,
            flipped=flipped, backorders=backorders, freeze=freeze,
            current=ints([data["current"]], "current")[0], roll_no=ints([data["roll_no"]], "roll_no")[0],
            phase=phase, roll=tuple(sorted(dice(data["roll"]))), barns=barns,
            set_aside=dice(data["set_aside"]), abilities_used=frozenset(ints(data["abilities_used"], "abilities")),
            pending=pending, reds=ints([data["reds"]], "reds")[0],
            events=_read_events(data["events"], players, len(tiles)), turns=ints([data["turns"]], "turns")[0])
        if state.current >= count or state.roll_no < 1:
            raise UserError("current player or roll number out of range")
        if state.backorder_supply < 0 or state.freeze_supply < 0:
            raise UserError("more tokens held than the game has")
        if len(display) > RULES["display"]["size"]:
            raise UserError("the display holds at most 3 tiles")
        if state.reds > RULES["dice"]["red_max"]:
            raise UserError(f"a turn rolls at most {RULES['dice']['red_max']} red dice")
        if phase != OVER:
            held = Counter(d.colour for d in state.turn_dice()) + Counter(pending[1] if pending else ())
            if held != Counter(starting_colours(state.reds)):
                raise UserError("the turn's dice are not 7 white, 1 yellow and the red dice")
        return state

    def forget_positions(self) -> None:
        dice_math.forget_positions()

    def advise(self, state: GameState) -> list[Suggestion]:
        return dice_math.advise(state)

    def best_move(self, state: GameState) -> Move | None:
        """The first move of :meth:`advise`, found without building every suggestion."""
        return dice_math.best_move(state)


def _read_events(events: Any, players: tuple[str, ...], tile_count: int) -> tuple[dict, ...]:
    """The last transition's events, checked so that alerts can describe them."""
    read = []
    for event in events:
        kind = event["kind"]
        if kind in ("roll_failed", "freeze_earned", "claimed") and event["player"] not in players:
            raise UserError(f"event {kind} names an unknown player")
        if kind == "claimed" and not all(isinstance(t, int) and 0 <= t < tile_count for t in event["tiles"]):
            raise UserError("a claimed event names unknown tiles")
        if kind == "spoilage" and not all(p in players and isinstance(t, int) and 0 <= t < tile_count
                                          for p, t in event["discarded"].items()):
            raise UserError("a spoilage event names unknown players or tiles")
        if kind not in ("roll_failed", "freeze_earned", "claimed", "spoilage"):
            raise UserError(f"unknown event {kind!r}")
        read.append(dict(event))
    return tuple(read)


GAME = Dairyman()
