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


def claimable(state: SimState) -> tuple[tuple[int, ...], ...]:
    """Every non-empty set of display tiles the barns pay for (identical tiles once)."""
    return _claimable(state.display, state.barn_total, state.cheese_faces)


@lru_cache(maxsize=65536)
def _claimable(display: tuple[int, ...], budget: int, cheese_faces: str) -> tuple[tuple[int, ...], ...]:
    tiles = tiles_for(cheese_faces)
    found, seen = [], set()
    for mask in range(1, 1 << len(display)):
        ids = tuple(t for i, t in enumerate(display) if mask >> i & 1)
        if sum(tiles.value[t] for t in ids) > budget:
            continue
        key = tuple(sorted(tiles.same_as[t] for t in ids))
        if key not in seen:
            seen.add(key)
            found.append(ids)
    return tuple(found)


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


# -- policies: who plays the moves in simulated games ----------------------------------------
def _lock_rows(roll: tuple[int, ...]) -> tuple[tuple, ...]:
    """The roll's locks for a policy: ``(sim move, dice left, faces left, sets, uses the yellow
    die)``, one per lock of faces.  Red and white dice play alike, so every red die is read as
    a white one: a policy passes the move it picks through :func:`playable`."""
    counts = [0] * 18
    for d in roll:
        counts[d + 1 if d % 3 == RED else d] += 1
    return _lock_rows_of(tuple(counts))


def playable(move: tuple, roll: tuple[int, ...]) -> tuple:
    """A lock from :func:`_lock_rows` with the roll's red dice where its whites run out."""
    if move[0] != LOCK or not any(d % 3 == RED for d in roll):
        return move
    return (LOCK, _recolour(move[1], roll))


def _recolour(sets: tuple, roll: tuple[int, ...]) -> tuple:
    """``sets`` written with white dice, some made red where the roll has too few whites."""
    whites = [0] * 18
    for d in roll:
        whites[d] += 1
    out = []
    for s in sets:
        dice = []
        for d in s:
            if d % 3 == WHITE:
                if whites[d] > 0:
                    whites[d] -= 1
                else:
                    d -= 1
            dice.append(d)
        out.append(tuple(sorted(dice)))
    return tuple(sorted(out))


@lru_cache(maxsize=65536)
def _lock_rows_of(counts: tuple[int, ...]) -> tuple[tuple, ...]:
    locks, rows = dm._coded_locks(counts)
    return tuple(((LOCK, tuple(sorted(s.codes for s in lock))), row[3], row[2], row[4], row[5])
                 for lock, row in zip(locks, rows))


def _faces(roll) -> tuple[int, ...]:
    return dm.counts_of(value_of(d) for d in roll)


def _best_lock_worth(values, roll: tuple[int, ...], sets: int, roll_no: int, fail: float) -> float:
    return max((values.value(left, sets + k, roll_no) for _, left, _, k, _ in _lock_rows(roll)), default=fail)


def _freeze_codes(roll: tuple[int, ...], frozen_faces: tuple[int, ...]) -> tuple[int, ...]:
    """Dice of ``roll`` showing ``frozen_faces``, lowest codes first (the yellow die last)."""
    chosen, need = [], list(frozen_faces)
    for d in roll:
        face = d // 3
        if need[face]:
            need[face] -= 1
            chosen.append(d)
    return tuple(chosen)


def advice_choice(state: SimState, previous: bool = False, model=None) -> tuple[tuple, float]:
    """The move the advice puts first at a decision node, with its worth.

    Each move gets the first figure of the rank key ``dairyman_advice.advise`` gives it (the
    same functions compute it); among equal worths the simulator keeps the first found
    where the engine compares texts, so the two can pick different moves of equal worth.
    """
    model = model or dm.turn_model(state, previous)
    values, me = model.values, state.current
    sets, roll_no, roll = state.sets_locked, state.roll_no, state.roll
    best_key, best_move = None, None

    def consider(key, move):
        nonlocal best_key, best_move
        if best_key is None or key < best_key:
            best_key, best_move = key, move

    tokens = state.freeze[me]
    if state.phase == PICK:
        rows = _lock_rows(roll)
        for move, left, faces, k, uses_yellow in rows:
            consider(dm.lock_key(values, tokens, faces, sets + k, roll_no) + (uses_yellow,), move)
        if not rows:
            consider((-model.fail, 0, 0, False), (FAIL,))
        now = -best_key[0]                 # the best plain move, as a flip is weighed against it
        if not rows:
            faces = _faces(roll)
            for move in ability_moves(state):
                ability = state.tiles.ability[move[1]]
                die_value = value_of(move[2]) if move[2] >= 0 else None
                consider(dm._ability_advice(values, sets, faces, ability, die_value, roll_no)[2], move)
    else:
        now = None
        for ids in claimable(state):
            consider((-model.claims[ids], -sum(state.tiles.value[t] for t in ids), 0, False), (CLAIM, ids))
        if best_key is None:
            consider((-model.fail, 0, 0, False), (FAIL,))
        if roll:
            n = len(roll)
            if previous:
                choices = dict.fromkeys(_faces(move[1]) for move in reroll_moves(roll, freeze_limit(state)))
                candidates = dm.previous_freeze_candidates(tuple(choices), n)
            else:
                candidates = dm.freeze_candidates(_faces(roll), freeze_limit(state))
            for frozen in candidates:
                size = sum(frozen)
                points, total = values.reroll(n - size, sets, frozen, roll_no)
                odds = dm.set_outcomes(frozen, n - size) / 6 ** (n - size)
                consider((-(points - size * model.token), -total, -odds, False), (REROLL, _freeze_codes(roll, frozen)))
        stop = values.claim(sets)
        now = max(stop, values.value(len(roll), sets, roll_no))
    for move in flip_moves(state):
        tile = move[1]
        protect = model.stage.spoil_share * state.tiles.value[tile]
        if state.tiles.cheese[tile]:
            without = list(roll)
            without.remove(code(state.tiles.face[tile], YELLOW))
            without = tuple(without)
            if state.phase == PICK:
                after = _best_lock_worth(values, without, sets, roll_no, model.fail)
            else:
                after = max(values.claim(sets), values.value(len(without), sets, roll_no))
            bonus = state.tiles.flipped_value[tile] - state.tiles.value[tile]
            consider((-(after + bonus + protect), 0, 0, False), move)
        else:
            gain = 0.5 if previous else protect + model.stage.ice_cream_ability - model.token
            consider((-(now + gain), 0, 0, False), move)
    return playable(best_move, roll), -best_key[0]


class AdvicePolicy:
    """The advice as a player of one game: :func:`advice_choice` with the turn's model kept
    while nothing it reads changes (tokens, flips; the rest is fixed during a turn)."""

    def __init__(self, previous: bool = False):
        self.previous = previous
        self._key = None
        self._model = None

    def __call__(self, state: SimState, rng: random.Random) -> tuple:
        key = (state.turns, state.freeze, len(state.flipped))
        if key != self._key:
            self._key, self._model = key, dm.turn_model(state, self.previous)
        return advice_choice(state, self.previous, self._model)[0]


def greedy_policy(state: SimState, rng: random.Random) -> tuple:
    """Lock as many sets as the roll allows, stop and claim the most points as soon as any tile
    fits, re-roll (never freezing) only when nothing fits yet; never flip or use an ability."""
    if state.phase == PICK:
        rows = _lock_rows(state.roll)
        if not rows:
            return (FAIL,)
        return playable(max(rows, key=lambda row: (row[3], row[1]))[0], state.roll)
    subsets = claimable(state)
    if subsets:
        return (CLAIM, max(subsets, key=lambda ids: sum(state.tiles.value[t] for t in ids)))
    return (REROLL, ()) if state.roll else (FAIL,)


def random_policy(state: SimState, rng: random.Random) -> tuple:
    """A legal move drawn at random."""
    return rng.choice(legal_moves(state))


POLICIES = {"advice": AdvicePolicy, "previous advice": lambda: AdvicePolicy(previous=True),
            "greedy": lambda: greedy_policy, "random legal": lambda: random_policy}
"""Each policy by name: a function that makes a player for one game."""


def play(seed: int, policies, players: int | None = None) -> SimState:
    """A whole game with seat ``i`` played by ``policies[i]`` (a name of :data:`POLICIES` or a
    function of (state, rng)); dice and random choices from one generator seeded by ``seed``."""
    chosen = [POLICIES[p]() if isinstance(p, str) else p for p in policies]
    state = new_game(len(chosen), seed)
    rng = random.Random(seed)
    while state.phase != OVER:
        if state.pending is not None:
            state = apply_roll(state, draw(state, rng))
        else:
            state = apply(state, chosen[state.current](state, rng))
    return state
