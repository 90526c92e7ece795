"""A compact Dairyman simulator: the rules of ``dairyman.py`` on small integers and tuples.

The tournaments and property tests play thousands of games; the engine's immutable
states, dice objects and move parameters cost too much for that.  Here a die is a code
``(value - 1) * 3 + colour`` (colours red 0, white 1, yellow 2, the order the engine
sorts dice in), a roll a sorted tuple of codes, a tile its number in the rules data, and
a state a :class:`SimState` of tuples.  A move is a tuple whose first item names it:

- ``(LOCK, sets)``: the sets, each a sorted code tuple, sorted;
- ``(FAIL,)``;  ``(REROLL, frozen codes)``;  ``(CLAIM, tiles in display order)``;
- ``(FLIP, tile)``;  ``(ABILITY, tile, die code or -1 for "every 1" / "every 2")``.

Every rule follows the engine, readings included (a re-roll rolls at least one die, a
token is earned as the re-roll is declared, the first tile in the rules data spoils of
two equal ones, the same seeded shuffles): ``tests/test_dairyman_sim.py`` plays random
games on both and checks that they offer the same moves and reach the same states.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from companion.games import dairyman_advice as dm
from companion.games.dairyman import RULES, build_tiles

LOCK, FAIL, REROLL, CLAIM, FLIP, ABILITY = range(6)
ROLL, PICK, CONTINUE, OVER = "roll", "lock", "continue", "over"   # the engine's phase names

RED, WHITE, YELLOW = range(3)
COLOUR_NAMES = ("red", "white", "yellow")
ONES, TWOS, ONE_DIE = "ones", "twos", "one"
DISPLAY_SIZE = RULES["display"]["size"]
BARNS = RULES["barns"]["count"]
PENALTY = RULES["tokens"]["backorder_penalty"]
RED_MAX = RULES["dice"]["red_max"]


def code(value: int, colour: int) -> int:
    return (value - 1) * 3 + colour


def value_of(die: int) -> int:
    return die // 3 + 1


def colour_of(die: int) -> int:
    return die % 3


@dataclass(frozen=True)
class Tiles:
    """The 22 tiles as parallel tuples, indexed by tile number."""
    value: tuple[int, ...]
    flipped_value: tuple[int, ...]
    cheese: tuple[bool, ...]
    ability: tuple[str | None, ...]
    face: tuple[int, ...]          # cheese: the yellow face that flips it (0 for ice cream)
    same_as: tuple[tuple, ...]     # what tells two tiles apart for a player: kind, value, face


@lru_cache(maxsize=16)
def tiles_for(cheese_faces: str) -> Tiles:
    tiles = build_tiles(cheese_faces)
    return Tiles(tuple(t.value for t in tiles), tuple(t.flipped_value for t in tiles),
                 tuple(t.kind == "cheese" for t in tiles), tuple(t.ability for t in tiles),
                 tuple(t.face or 0 for t in tiles), tuple((t.kind, t.value, t.face or 0) for t in tiles))


class SimState:
    """One position: the engine's fields as ints and tuples.  ``pending`` is (kept codes,
    colours to roll) at a roll, else None.  Treat it as immutable: :meth:`with_` copies."""

    FIELDS = ("players", "seed", "freeze_total", "earn_from", "cheese_faces", "tiles", "shuffles", "stack",
              "display", "owned", "flipped", "backorders", "freeze", "current", "roll_no", "phase", "roll",
              "barns", "set_aside", "abilities_used", "pending", "reds", "turns")

    def __init__(self, *values):
        self.__dict__.update(zip(self.FIELDS, values, strict=True))

    def with_(self, **changes) -> SimState:
        """A copy with some fields changed."""
        state = object.__new__(SimState)
        state.__dict__.update(self.__dict__, **changes)
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SimState) and self.__dict__ == other.__dict__

    __hash__ = None

    def __repr__(self) -> str:
        return "SimState(" + ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if k != "tiles") + ")"

    @property
    def backorder_total(self) -> int:
        return RULES["tokens"]["backorders"][str(self.players)]

    @property
    def backorder_supply(self) -> int:
        return self.backorder_total - sum(self.backorders)

    @property
    def freeze_supply(self) -> int:
        return self.freeze_total - sum(self.freeze)

    @property
    def sets_locked(self) -> int:
        return sum(len(barn) for barn in self.barns)

    @property
    def barn_total(self) -> int:
        return dm.SET_TOTAL * self.sets_locked


def starting_colours(reds: int) -> tuple[int, ...]:
    return (WHITE,) * RULES["dice"]["white"] + (YELLOW,) * RULES["dice"]["yellow"] + (RED,) * reds


def new_game(players: int, seed: int = 0, freeze_tokens: int = RULES["tokens"]["freeze_supply"],
             earn_from: int = RULES["defaults"]["freeze_earned_from_roll"],
             cheese_faces: str = RULES["defaults"]["cheese_faces"]) -> SimState:
    """The engine's ``new_game`` for ``players`` seats and ``seed`` (the same shuffle)."""
    tiles = tiles_for(cheese_faces)
    order = list(range(len(tiles.value)))
    random.Random(f"dairyman:{seed}:0").shuffle(order)
    return SimState(players, seed, freeze_tokens, earn_from, cheese_faces, tiles, 1, tuple(order[DISPLAY_SIZE:]),
                    tuple(order[:DISPLAY_SIZE]), ((),) * players, frozenset(), (0,) * players, (0,) * players,
                    0, 1, ROLL, (), ((),) * BARNS, (), frozenset(), ((), starting_colours(0)), 0, 0)


# -- rolls ------------------------------------------------------------------------------
def apply_roll(state: SimState, faces: tuple[int, ...]) -> SimState:
    """The pending roll came up ``faces`` (one value per colour of ``pending[1]``, in order)."""
    kept, colours = state.pending
    rolled = tuple((f - 1) * 3 + c for f, c in zip(faces, colours))
    return state.with_(roll=tuple(sorted(kept + rolled)), pending=None, phase=PICK)


def draw(state: SimState, rng: random.Random) -> tuple[int, ...]:
    """A random roll of the pending dice."""
    random_number = rng.random
    return tuple(int(random_number() * 6) + 1 for _ in state.pending[1])


# -- legal moves ------------------------------------------------------------------------
def _code_counts(roll: tuple[int, ...]) -> tuple[int, ...]:
    counts = [0] * 18
    for die in roll:
        counts[die] += 1
    return tuple(counts)


def lock_moves(roll: tuple[int, ...]) -> list[tuple]:
    return [(LOCK, tuple(sorted(s.codes for s in lock))) for lock in dm._coded_locks(_code_counts(roll))[0]]


def has_set(roll: tuple[int, ...]) -> bool:
    return dm.has_set(dm.counts_of(value_of(d) for d in roll))


def claimable(state: SimState) -> list[tuple[int, ...]]:
    """Every non-empty set of display tiles the barns pay for (identical tiles once)."""
    budget, tiles = state.barn_total, state.tiles
    found, seen = [], set()
    display = state.display
    for mask in range(1, 1 << len(display)):
        ids = tuple(t for i, t in enumerate(display) if mask >> i & 1)
        if sum(tiles.value[t] for t in ids) > budget:
            continue
        key = tuple(sorted(tiles.same_as[t] for t in ids))
        if key not in seen:
            seen.add(key)
            found.append(ids)
    return found


def freeze_limit(state: SimState) -> int:
    return min(state.freeze[state.current], len(state.roll) - 1)


def reroll_moves(roll: tuple[int, ...], most: int) -> list[tuple]:
    kinds = sorted(Counter(roll).items())
    return [(REROLL, tuple(d for (d, _), n in zip(kinds, pick) for _ in range(n)))
            for pick in dm._sub_multisets([n for _, n in kinds], most)]


def flip_moves(state: SimState) -> list[tuple]:
    me, tiles = state.current, state.tiles
    yellow_faces = {value_of(d) for d in state.roll if colour_of(d) == YELLOW}
    moves, seen = [], set()
    for t in sorted(state.owned[me]):
        if t in state.flipped or tiles.same_as[t] in seen:
            continue
        if (not tiles.cheese[t] and state.freeze[me] > 0) or (tiles.cheese[t] and tiles.face[t] in yellow_faces):
            moves.append((FLIP, t))
            seen.add(tiles.same_as[t])
    return moves


def ability_moves(state: SimState) -> list[tuple]:
    tiles, moves, seen = state.tiles, [], set()
    for t in sorted(state.owned[state.current]):
        ability = tiles.ability[t]
        if tiles.cheese[t] or t not in state.flipped or t in state.abilities_used or ability in seen:
            continue
        seen.add(ability)
        if ability == ONE_DIE:
            moves.extend((ABILITY, t, d) for d in sorted(set(state.roll)))
        elif any(value_of(d) == (1 if ability == ONES else 2) for d in state.roll):
            moves.append((ABILITY, t, -1))
    return moves


def legal_moves(state: SimState) -> list[tuple]:
    """Every legal move at a decision node, as the engine lists them (any order)."""
    if state.phase == PICK:
        moves = lock_moves(state.roll) or [(FAIL,)]
        return moves + flip_moves(state) + ability_moves(state)
    if state.phase == CONTINUE:
        subsets = claimable(state)
        moves = [(CLAIM, ids) for ids in subsets] or [(FAIL,)]
        if state.roll:
            moves += reroll_moves(state.roll, freeze_limit(state))
        return moves + flip_moves(state)
    return []


# -- moves ------------------------------------------------------------------------------
def apply(state: SimState, move: tuple) -> SimState:
    """Play a legal move (the simulator trusts its callers: moves come from ``legal_moves``
    or a policy that builds them the same way)."""
    kind = move[0]
    if kind == LOCK:
        left = list(state.roll)
        for s in move[1]:
            for d in s:
                left.remove(d)
        barn = min(state.roll_no, BARNS) - 1
        barns = tuple(b + move[1] if i == barn else b for i, b in enumerate(state.barns))
        return state.with_(roll=tuple(left), barns=barns, phase=CONTINUE)
    if kind == FAIL:
        return _end_failed(state)
    if kind == REROLL:
        return _reroll(state, move[1])
    if kind == CLAIM:
        return _end_claimed(state, move[1])
    if kind == FLIP:
        return _flip(state, move[1])
    return _ability(state, move[1], move[2])


def _reroll(state: SimState, frozen: tuple[int, ...]) -> SimState:
    me = state.current
    rolled = list(state.roll)
    for d in frozen:
        rolled.remove(d)
    tokens = list(state.freeze)
    tokens[me] -= len(frozen)
    roll_no = state.roll_no + 1
    if roll_no >= state.earn_from and state.freeze_total - sum(tokens) > 0:
        tokens[me] += 1
    return state.with_(roll=(), pending=(tuple(frozen), tuple(colour_of(d) for d in rolled)), phase=ROLL,
                   roll_no=roll_no, freeze=tuple(tokens))


def _flip(state: SimState, tile: int) -> SimState:
    me = state.current
    if not state.tiles.cheese[tile]:
        tokens = tuple(n - 1 if i == me else n for i, n in enumerate(state.freeze))
        return state.with_(freeze=tokens, flipped=state.flipped | {tile})
    yellow = code(state.tiles.face[tile], YELLOW)
    left = list(state.roll)
    left.remove(yellow)
    return state.with_(roll=tuple(left), set_aside=state.set_aside + (yellow,), flipped=state.flipped | {tile})


def _ability(state: SimState, tile: int, die: int) -> SimState:
    ability = state.tiles.ability[tile]
    if ability == ONE_DIE:
        kept = list(state.roll)
        kept.remove(die)
        rolled = [die]
    else:
        face = 1 if ability == ONES else 2
        kept = [d for d in state.roll if value_of(d) != face]
        rolled = [d for d in state.roll if value_of(d) == face]
    return state.with_(roll=(), pending=(tuple(kept), tuple(colour_of(d) for d in rolled)), phase=ROLL,
                   abilities_used=state.abilities_used | {tile})


def _end_failed(state: SimState) -> SimState:
    me = state.current
    backorders = tuple(n + (i == me) for i, n in enumerate(state.backorders))
    state = state.with_(backorders=backorders)
    if state.backorder_supply == 0:
        state = spoil(state)
    return _next_turn(state)


def spoiled_tiles(state: SimState) -> list[int | None]:
    """For each player, the tile spoilage takes now (None: none), by the engine's reading."""
    most = max(state.backorders)
    lost: list[int | None] = []
    for i, count in enumerate(state.backorders):
        milk = [t for t in state.owned[i] if t not in state.flipped]
        lost.append(max(milk, key=lambda t: (state.tiles.value[t], -t)) if count == most and milk else None)
    return lost


def spoil(state: SimState) -> SimState:
    """The last backorder token was taken: discard, shuffle under the stack, refill."""
    lost = spoiled_tiles(state)
    owned = tuple(tuple(t for t in tiles if t != gone) for tiles, gone in zip(state.owned, lost))
    returned = [t for t in lost if t is not None] + list(state.display)
    random.Random(f"dairyman:{state.seed}:{state.shuffles}").shuffle(returned)
    stack = state.stack + tuple(returned)
    return state.with_(owned=owned, stack=stack[DISPLAY_SIZE:], display=stack[:DISPLAY_SIZE],
                   backorders=(0,) * state.players, shuffles=state.shuffles + 1)


def _end_claimed(state: SimState, ids: tuple[int, ...]) -> SimState:
    me = state.current
    owned = tuple(tiles + ids if i == me else tiles for i, tiles in enumerate(state.owned))
    display = tuple(t for t in state.display if t not in ids)
    need = DISPLAY_SIZE - len(display)
    if need > len(state.stack):
        return state.with_(owned=owned, display=display, phase=OVER, roll=(), barns=((),) * BARNS,
                       set_aside=(), pending=None, reds=0, turns=state.turns + 1)
    state = state.with_(owned=owned, display=display + state.stack[:need], stack=state.stack[need:])
    return _next_turn(state)


def _next_turn(state: SimState) -> SimState:
    nxt = (state.current + 1) % state.players
    reds = min(state.backorders[nxt], RED_MAX)
    return state.with_(current=nxt, roll_no=1, phase=ROLL, roll=(), barns=((),) * BARNS, set_aside=(),
                   abilities_used=frozenset(), reds=reds, pending=((), starting_colours(reds)),
                   turns=state.turns + 1)


def scores(state: SimState) -> tuple[int, ...]:
    tiles = state.tiles
    return tuple(sum(tiles.flipped_value[t] if t in state.flipped else tiles.value[t] for t in owned)
                 - PENALTY * backorders for owned, backorders in zip(state.owned, state.backorders))


def winners(state: SimState) -> tuple[int, ...]:
    final = scores(state)
    best = max(final)
    return tuple(i for i, s in enumerate(final) if s == best)


# -- the engine's states and moves in simulator terms (the cross-check) --------------------
def die_code(die) -> int:
    return code(die.value, COLOUR_NAMES.index(die.colour))


def _text_code(text: str) -> int:
    colour, _, value = text.rpartition(":")
    return code(int(value), COLOUR_NAMES.index(colour))


def from_engine(state) -> SimState:
    """The simulator state of an engine ``DairymanState`` (barn sets in a canonical order)."""
    options = state.options
    pending = None
    if state.pending is not None:
        kept, colours = state.pending
        pending = (tuple(sorted(die_code(d) for d in kept)), tuple(COLOUR_NAMES.index(c) for c in colours))
    return SimState(
        len(state.players), state.seed, options["freeze_tokens"], options["freeze_earned_from_roll"],
        options["cheese_faces"], tiles_for(options["cheese_faces"]), state.shuffles, tuple(state.stack),
        tuple(state.display), tuple(tuple(t) for t in state.owned), frozenset(state.flipped),
        tuple(state.backorders), tuple(state.freeze), state.current, state.roll_no, state.phase,
        tuple(sorted(die_code(d) for d in state.roll)),
        tuple(tuple(sorted(tuple(sorted(die_code(d) for d in s)) for s in barn)) for barn in state.barns),
        tuple(die_code(d) for d in state.set_aside), frozenset(state.abilities_used), pending, state.reds,
        state.turns)


def canonical(state: SimState) -> SimState:
    """``state`` with each barn's sets sorted (a barn holds a set of sets, not a sequence)."""
    return state.with_(barns=tuple(tuple(sorted(barn)) for barn in state.barns))


def move_from_engine(move) -> tuple:
    """The simulator move of an engine ``Move`` as the engine lists it."""
    kind = move.kind
    if kind == "lock":
        return (LOCK, tuple(sorted(tuple(sorted(_text_code(d) for d in s)) for s in move["sets"])))
    if kind == "fail":
        return (FAIL,)
    if kind == "reroll":
        return (REROLL, tuple(sorted(_text_code(d) for d in move.get("freeze") or ())))
    if kind == "claim":
        return (CLAIM, tuple(move["tiles"]))
    if kind == "flip":
        return (FLIP, move["tile"])
    die = move.get("die")
    return (ABILITY, move["tile"], _text_code(die) if die else -1)


def move_to_engine(move: tuple):
    """The engine ``Move`` of a simulator move (lock sets and frozen dice in code order)."""
    from companion.engine import Move

    def text(d: int) -> str:
        return f"{COLOUR_NAMES[colour_of(d)]}:{value_of(d)}"

    kind = move[0]
    if kind == LOCK:
        return Move.make("lock", sets=[[text(d) for d in s] for s in move[1]])
    if kind == FAIL:
        return Move("fail")
    if kind == REROLL:
        return Move.make("reroll", freeze=[text(d) for d in move[1]])
    if kind == CLAIM:
        return Move.make("claim", tiles=list(move[1]))
    if kind == FLIP:
        return Move.make("flip", tile=move[1])
    return Move.make("ability", tile=move[1], **({"die": text(move[2])} if move[2] >= 0 else {}))
