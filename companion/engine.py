"""The rules-engine API that every game in ``companion.games`` implements.

A game is a :class:`Game` (its rules data, options and advice) and a :class:`GameState`
(an immutable position).  A state is either a *chance node*, where the current player
must roll the dice named by :meth:`GameState.dice_to_roll` and the camera (or a seeded
random draw) supplies the outcome through :meth:`GameState.apply_roll`, or a *decision
node*, where :meth:`GameState.legal_moves` lists what the player may do and
:meth:`GameState.apply` plays one.  Every transition returns a new state; a broken rule
raises :class:`~companion.errors.RuleError` and leaves the old state untouched.
"""
from __future__ import annotations

import math
import random
import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.errors import RuleError, UserError
from companion.limits import MAX_DICE_PER_ROLL, MAX_DIE_TOKEN_LENGTH, check_player_count

__all__ = [
    "Alert", "DiceRequest", "Die", "Game", "GameState", "Move", "Option", "Suggestion",
    "dice_to_json", "parse_dice", "percent_words", "roll_words",
]


@dataclass(frozen=True, order=True)
class Die:
    """One die as read from the table: its face value and, when known, its colour."""

    value: int
    colour: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.value, int) or not 1 <= self.value <= 6:
            raise UserError(f"a die shows 1 to 6, not {self.value!r}")

    def to_json(self) -> dict:
        return {"value": self.value, "colour": self.colour}

    @classmethod
    def from_json(cls, data: Mapping | int) -> Die:
        if isinstance(data, int):
            return cls(data)
        try:
            return cls(int(data["value"]), data.get("colour"))
        except (KeyError, TypeError, ValueError) as exc:
            raise UserError(f"not a die: {data!r}") from exc

    def __str__(self) -> str:
        return f"{self.colour}:{self.value}" if self.colour else str(self.value)


_DIE_TOKEN = re.compile(r"^(?:(?P<colour>[a-zA-Z][\w-]*):)?(?P<value>\d+)$")


def parse_dice(text: str) -> tuple[Die, ...]:
    """Parse ``"white:6 white:4 yellow:2 5"`` (commas allowed) into dice."""
    tokens = text.replace(",", " ").split()
    if len(tokens) > MAX_DICE_PER_ROLL:
        raise UserError(f"{len(tokens)} dice: a roll has at most {MAX_DICE_PER_ROLL}")
    dice = []
    for token in tokens:
        if len(token) > MAX_DIE_TOKEN_LENGTH:
            raise UserError(f"cannot read die {token[:12]!r}...: a die is at most {MAX_DIE_TOKEN_LENGTH} characters")
        match = _DIE_TOKEN.match(token)
        if not match:
            raise UserError(f"cannot read die {token!r}: write a value 1-6, optionally as colour:value")
        value = int(match["value"])
        if not 1 <= value <= 6:
            raise UserError(f"die {token!r}: a die shows 1 to 6")
        colour = match["colour"].lower() if match["colour"] else None
        dice.append(Die(value, colour))
    return tuple(dice)


def dice_to_json(dice: Iterable[Die]) -> list[dict]:
    return [d.to_json() for d in dice]


def roll_words(dice: Iterable[Die]) -> str:
    """A roll as a player reads it, the values grouped by colour in the order the colours first
    appear: "white 6 4 5, yellow 4" (dice without a colour are given by value alone)."""
    groups: dict[str | None, list[str]] = {}
    for die in dice:
        groups.setdefault(die.colour, []).append(str(die.value))
    return ", ".join(" ".join(values) if colour is None else f"{colour} {' '.join(values)}"
                     for colour, values in groups.items())


CERTAIN = 1e-9
"""How close to 0 or 1 a computed chance must be to be said as impossible or certain."""


def percent_words(chance: float) -> str:
    """A chance in per cent as a player reads it: whole per cent, but never "100 %" for what may
    fail nor "0 %" for what may happen ("over 99 %", "under 1 %")."""
    chance = float(chance)
    if chance >= 1 - CERTAIN:
        return "100 %"
    if chance <= CERTAIN:
        return "0 %"
    shown = round(100 * chance)
    return "over 99 %" if shown >= 100 else "under 1 %" if shown <= 0 else f"{shown} %"


def _freeze(value: Any) -> Any:
    """Turn JSON-like data into hashable data (lists become tuples, dicts sorted pairs)."""
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, Die):
        return (value.colour, value.value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(v) for v in value]
    return value


@dataclass(frozen=True)
class Move:
    """A player's decision: a ``kind`` and JSON-able parameters, hashable and comparable.

    The optional ``player`` parameter names who acts; :meth:`GameState.apply` refuses
    a move made out of turn and ignores ``player`` otherwise.
    """

    kind: str
    params: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def make(cls, kind: str, **params: Any) -> Move:
        return cls(kind, tuple(sorted((k, _freeze(v)) for k, v in params.items())))

    def get(self, key: str, default: Any = None) -> Any:
        for name, value in self.params:
            if name == key:
                return value
        return default

    def __getitem__(self, key: str) -> Any:
        for name, value in self.params:
            if name == key:
                return value
        raise KeyError(key)

    def without(self, *keys: str) -> Move:
        return Move(self.kind, tuple(p for p in self.params if p[0] not in keys))

    def to_json(self) -> dict:
        return {"kind": self.kind, **{k: _thaw(v) for k, v in self.params}}

    @classmethod
    def from_json(cls, data: Mapping) -> Move:
        if not isinstance(data, Mapping) or not isinstance(data.get("kind"), str):
            raise UserError(f"a move is an object with a 'kind', not {data!r}")
        params = {k: v for k, v in data.items() if k != "kind"}
        return cls.make(data["kind"], **params)


@dataclass(frozen=True)
class Option:
    """A rules option: a documented default a group may change before the game."""

    name: str
    default: Any
    description: str
    choices: tuple | None = None

    def coerce(self, value: Any) -> Any:
        """Return ``value`` converted to the default's type; UserError if it does not fit."""
        kind = type(self.default)
        try:
            if kind is bool and isinstance(value, str):
                if value.lower() not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                    raise ValueError(value)
                converted: Any = value.lower() in ("1", "true", "yes", "on")
            elif kind in (int, float, str, bool):
                converted = kind(value)
            else:
                converted = value
        except (TypeError, ValueError) as exc:
            raise UserError(f"option {self.name}: {_shown(value)} is not a {kind.__name__}") from exc
        if kind is float and not math.isfinite(converted):
            raise UserError(f"option {self.name}: {_shown(value)} is not a finite number")
        if self.choices is not None and converted not in self.choices:
            raise UserError(f"option {self.name}: {_shown(value)} is not one of {', '.join(map(str, self.choices))}")
        return converted


def _shown(value: Any) -> str:
    """``value`` for an error message, cut short."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Alert:
    """Something a player must notice or act on now.

    ``kind`` is a stable identifier (``"spoilage"``, ``"final_round"``, ``"game_over"``,
    ``"roll_failed"``, ...); ``severity`` is ``"info"``, ``"warning"`` or ``"critical"``.
    """

    kind: str
    message: str
    severity: str = "info"
    players: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"kind": self.kind, "message": self.message, "severity": self.severity, "players": list(self.players)}


@dataclass(frozen=True)
class DiceRequest:
    """The dice the current player must roll now: one colour per die (``None``: any)."""

    player: str
    colours: tuple[str | None, ...]
    reason: str = ""

    @property
    def count(self) -> int:
        return len(self.colours)

    def check(self, dice: Sequence[Die]) -> None:
        """Raise RuleError unless ``dice`` are this many dice of these colours.

        A die whose colour was not read (``None``) may stand for any requested colour, and a
        colourless slot (``None`` in ``colours``) takes a die of any colour.
        """
        if len(dice) != self.count:
            raise RuleError("dice to roll", f"{self.player} rolls {self.count} dice now, not {len(dice)}")
        wanted = Counter(c for c in self.colours if c is not None)
        given = Counter(d.colour for d in dice if d.colour is not None)
        unwanted = given - wanted
        if sum(unwanted.values()) > self.colours.count(None):
            extra = ", ".join(f"{n} {c}" for c, n in sorted(unwanted.items()))
            raise RuleError("dice to roll", f"{extra} die(s) are not among the dice to roll ({self.describe()})")

    def describe(self) -> str:
        counts = Counter(c or "of any colour" for c in self.colours)
        return ", ".join(f"{n} {c}" for c, n in sorted(counts.items()))

    def colour_bare_dice(self, dice: Sequence[Die], alike: Iterable[str] = ()) -> tuple[Die, ...]:
        """``dice`` with a colour for every die given without one, where it is certain which dice
        they are: the colours the named dice leave over are all one colour, or all among ``alike``
        (colours the rules treat the same, filled in request order).  Otherwise a one-line RuleError
        says which colours to name.  Dice of a colourless slot stay as they are."""
        dice = tuple(dice)
        self.check(dice)
        if all(d.colour is not None for d in dice) or None in self.colours:
            return dice
        left = list((Counter(self.colours) - Counter(d.colour for d in dice if d.colour)).elements())
        left.sort(key=self.colours.index)
        kinds, alike = set(left), set(alike)
        if len(kinds) > 1 and not kinds <= alike:
            plain = max(kinds, key=left.count)
            others = {c: left.count(c) for c in left if c != plain and not {c, plain} <= alike}
            need = " and ".join(f"the {c} die" if n == 1 else f"the {n} {c} dice" for c, n in others.items())
            count = sum(others.values())
            raise RuleError("dice colours", f"which {'die is' if count == 1 else 'dice are'} {' and '.join(others)}? "
                            f"Give {need} {'its' if count == 1 else 'their'} colour (typed as colour:value, e.g. "
                            f"{next(iter(others))}:4); dice without a colour are taken as {plain}")
        fill = iter(left)
        return tuple(d if d.colour is not None else Die(d.value, next(fill)) for d in dice)

    def draw(self, rng: random.Random) -> tuple[Die, ...]:
        """A seeded random roll of exactly these dice."""
        return tuple(Die(rng.randint(1, 6), colour) for colour in self.colours)

    def to_json(self) -> dict:
        return {"player": self.player, "count": self.count, "colours": list(self.colours), "reason": self.reason}


@dataclass(frozen=True)
class Suggestion:
    """A legal move with its advice figures and a one-line reason for its rank."""

    move: Move
    text: str
    advice: dict = field(default_factory=dict)
    reason: str = ""

    def to_json(self) -> dict:
        return {"move": self.move.to_json(), "text": self.text, "advice": self.advice, "reason": self.reason}


class GameState(ABC):
    """An immutable game position.  Subclasses implement the abstract methods."""

    game: Game
    players: tuple[str, ...]

    # -- whose turn, what now ---------------------------------------------------------
    @property
    @abstractmethod
    def current_player(self) -> str | None:
        """The player who must act now (roll or move); None once the game is over."""

    @property
    @abstractmethod
    def phase(self) -> str:
        """A short name of what happens now, e.g. ``"roll"``, ``"lock"``, ``"claim"``."""

    @abstractmethod
    def dice_to_roll(self) -> DiceRequest | None:
        """The dice the current player must roll now, or None at a decision node."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """True once the game has ended."""

    # -- transitions ------------------------------------------------------------------
    @abstractmethod
    def _apply_roll(self, dice: tuple[Die, ...]) -> GameState:
        """Game-specific part of :meth:`apply_roll`; ``dice`` already match the request."""

    @abstractmethod
    def legal_moves(self) -> list[Move]:
        """Every legal move at this decision node (empty at a chance node or the end)."""

    @abstractmethod
    def _apply(self, move: Move) -> GameState:
        """Game-specific part of :meth:`apply`: validate ``move`` and return the next state."""

    def apply_roll(self, dice: Sequence[Die]) -> GameState:
        """Supply the outcome of the roll asked for by :meth:`dice_to_roll`."""
        if self.is_terminal():
            raise RuleError("game over", "the game is over: no more rolls")
        request = self.dice_to_roll()
        if request is None:
            raise RuleError("roll order", f"{self.current_player} must choose a move now, not roll")
        dice = tuple(dice)
        request.check(dice)
        return self._apply_roll(dice)

    def apply(self, move: Move) -> GameState:
        """Play ``move`` for the current player and return the next state."""
        if self.is_terminal():
            raise RuleError("game over", "the game is over: no more moves")
        if self.dice_to_roll() is not None:
            raise RuleError("roll first", f"{self.current_player} must roll {self.dice_to_roll().describe()} first")
        actor = move.get("player")
        if actor is not None and actor != self.current_player:
            raise RuleError("turn order", f"it is {self.current_player}'s turn, not {actor}'s")
        return self._apply(move.without("player"))

    def colour_roll(self, dice: Sequence[Die]) -> tuple[Die, ...]:
        """The dice a person gives for the roll due now (typed, or read and checked on screen),
        with the colours the game can be sure of filled in; a one-line RuleError when a die
        without a colour could be one of several colours that play differently.  The game's
        rules (:meth:`apply_roll`) take bare dice in request order; games whose dice play
        differently by colour override this to ask instead of guessing."""
        return tuple(dice)

    def legal_moves_for(self, dice: Sequence[Die]) -> list[Move]:
        """The legal moves after rolling ``dice`` at this chance node."""
        return self.apply_roll(dice).legal_moves()

    def random_roll(self, rng: random.Random) -> tuple[Die, ...]:
        """A seeded random draw of the dice asked for now (for simulation)."""
        request = self.dice_to_roll()
        if request is None:
            raise RuleError("roll order", "no roll is due now")
        return request.draw(rng)

    # -- scores and alerts ------------------------------------------------------------
    @abstractmethod
    def score_breakdown(self) -> dict[str, dict[str, int]]:
        """Player -> score source -> points; each player's total is the sum."""

    def scores(self) -> dict[str, int]:
        return {p: sum(parts.values()) for p, parts in self.score_breakdown().items()}

    def winners(self) -> list[str]:
        """The players with the highest score (games with a tie-break override this)."""
        scores = self.scores()
        best = max(scores.values())
        return [p for p in self.players if scores[p] == best]

    @abstractmethod
    def alerts(self) -> list[Alert]:
        """What the players must notice now (spoilage coming, last round, game over...)."""

    # -- text and JSON ----------------------------------------------------------------
    @abstractmethod
    def describe(self, move: Move) -> str:
        """One line describing ``move`` for a person."""

    @abstractmethod
    def to_json(self) -> dict:
        """The whole state as JSON; ``game.state_from_json`` reads it back."""

    def summary(self) -> dict:
        """A small JSON view for displays: players, whose turn, phase, scores."""
        request = self.dice_to_roll()
        return {
            "game": self.game.name,
            "players": list(self.players),
            "current_player": self.current_player,
            "phase": self.phase,
            "dice_to_roll": request.to_json() if request else None,
            "terminal": self.is_terminal(),
            "scores": self.scores(),
        }


class Game(ABC):
    """A game's rules: its name, player count, options and rules data, and advice."""

    name: str            # command-line name, e.g. "dairyman"
    title: str           # display name, e.g. "Dairyman"
    min_players: int
    max_players: int
    options: tuple[Option, ...] = ()
    dice_colours: tuple[str, ...] | None = None
    """The colours of the game's dice, when the box fixes them: the reader then names only these
    (None: any colour of the palette)."""
    readings: tuple[Mapping[str, str], ...] = ()
    """Where the rule text is silent or unclear, the reading the rules follow: ``topic``,
    ``reading`` and, when an option changes it, ``option`` (kept in the game's TOML data)."""

    def score_words(self, score: int) -> str:
        """A score as players say it ("42 points"; a game counting money says "$42")."""
        return f"{score} point{'s' * (score != 1)}"

    def resolve_options(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Defaults overlaid with ``given``; UserError names an unknown or bad option."""
        known = {o.name: o for o in self.options}
        resolved = {o.name: o.default for o in self.options}
        for key, value in (given or {}).items():
            option = known.get(key.replace("-", "_"))
            if option is None:
                names = ", ".join(sorted(known)) or "none"
                raise UserError(f"{self.name} has no option {key!r} (options: {names})")
            resolved[option.name] = option.coerce(value)
        return resolved

    def check_players(self, players: Sequence[str]) -> tuple[str, ...]:
        players = tuple(p.strip() for p in players)
        check_player_count(self, len(players))
        if any(not p for p in players) or len(set(players)) != len(players):
            raise UserError("players need distinct, non-empty names")
        return players

    def default_players(self, count: int | None = None) -> tuple[str, ...]:
        count = self.min_players if count is None else check_player_count(self, count)
        return tuple(f"Player {i + 1}" for i in range(count))

    @abstractmethod
    def new_game(self, players: Sequence[str], options: Mapping[str, Any] | None = None,
                 seed: int = 0) -> GameState:
        """A fresh game for ``players`` in seat order; ``seed`` fixes every shuffle."""

    def state_from_json(self, data: Mapping) -> GameState:
        """Read a state written by :meth:`GameState.to_json` (UserError if it is not one).

        Checks that ``data`` is this game's and hands it to ``self._read_state``; whatever a
        damaged or edited file makes that raise becomes one line naming the game."""
        if not isinstance(data, Mapping) or data.get("game") != self.name:
            raise UserError(f"not a {self.title} state (it must be an object with \"game\": \"{self.name}\")")
        try:
            return self._read_state(data)
        except UserError as exc:
            raise UserError(f"not a {self.title} state: {exc}") from exc
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RuleError) as exc:
            raise UserError(f"not a {self.title} state: {type(exc).__name__} {exc}") from exc

    def _read_state(self, data: Mapping) -> GameState:
        """The state in ``data``, already known to be this game's (games that use the default
        :meth:`state_from_json` define it)."""
        raise NotImplementedError

    @abstractmethod
    def advise(self, state: GameState) -> list[Suggestion]:
        """The legal moves at a decision node, best first, each with figures and a reason.

        Moves that differ only by which of two identical dice is used appear once.
        """

    def forget_positions(self) -> None:
        """Drop what the advice remembers of positions seen so far (caches that grow with play);
        a long-running app calls it when a game starts.  Games without such caches do nothing."""

    def best_move(self, state: GameState) -> Move | None:
        """The top suggestion's move, None if there is none.

        Games may override it to find the same move without building every suggestion
        (simulation asks for it at every decision).
        """
        suggestions = self.advise(state)
        return suggestions[0].move if suggestions else None

    def describe(self) -> dict:
        """The game's rules data for displays and ``companion games``."""
        info = {
            "name": self.name,
            "title": self.title,
            "players": [self.min_players, self.max_players],
            "options": [{"name": o.name, "default": o.default, "description": o.description,
                         **({"choices": list(o.choices)} if o.choices else {})} for o in self.options],
        }
        if self.readings:
            info["readings"] = [dict(r) for r in self.readings]
            info["notes"] = [f"our reading, {r['topic']}: {r['reading']}"
                             + (f" (option {r['option']})" if r.get("option") else "") for r in self.readings]
        return info
