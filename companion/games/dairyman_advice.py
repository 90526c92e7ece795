"""Dairyman dice arithmetic and advice: sets of ten, the locks a roll allows, exact odds.

The dice functions are pure functions of dice multisets and are cached.  Odds are
exact, never sampled: the chance of a set comes from a table counting, for every
capped count vector, the ordered rolls of n more dice that complete a set (built
backwards one die at a time); the re-roll values from enumerating the multisets of
faces n dice can show, weighted by their ordered outcomes (the no-freeze rows ship as
``dairyman_rerolls.json``).  A roll's locks are walked with its colour-coded counts
packed into one integer, so taking a set's dice is one subtraction.  Every cache is
keyed by all the inputs its answer depends on (tests/test_dairyman_fast.py).

The advice ranks moves by what they are worth, in points relative to the other players,
counting the game around the turn (:func:`turn_model`, from the compact simulator's view
of the state): a claim is worth its tiles (a claim that ends the game decides the
standings, and is marked); a failure costs a backorder token's worth, or, when it takes
the last token, the spoilage it triggers (the tiles each player loses, every backorder
token returning); a freeze token is worth what it adds later, so spending one costs that
and a re-roll from the third roll on earns it; the standings set the player's taste for
risk (far behind gambles, far ahead banks: a certainty equivalent of an exponential
utility).  What tokens, backorders, abilities and face-up milk are worth beyond the turn
is fitted by self-play and shipped as ``dairyman_values.toml`` (``dairyman_fit``).
The rest of the turn is valued by an exact dynamic programme over (unlocked dice, sets
locked, roll number) that re-rolls without freezing; the immediate re-roll is valued
exactly for no freeze and for the best freeze of each size, the other freeze choices get
their exact odds only.  Flips and ice cream abilities are ranked by simpler rules, each
stated where it is made: a cheese flip by its +5 and spoilage protection against the
points the yellow die was worth, an ice cream flip when its protection and ability are
worth more than the token, an ability only on a roll without a set (assuming the rescued
roll then locks one pair).  ``turn_model(..., previous=True)`` is the advice before issue
20 (the turn's expected points alone), kept for the tournaments.

A *count vector* is a 6-tuple: ``counts[v - 1]`` dice show ``v``.
"""
from __future__ import annotations

import json
import math
import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from itertools import combinations_with_replacement, product
from math import factorial
from pathlib import Path

from companion.engine import Die, Move, Suggestion, percent_words

SET_TOTAL = 10
SET_SIZES = (2, 3)

# Every multiset of 2 or 3 faces totalling exactly ten, as count vectors.
SET_PATTERNS: tuple[tuple[int, ...], ...] = tuple(
    tuple(faces.count(v) for v in range(1, 7))
    for size in SET_SIZES
    for faces in combinations_with_replacement(range(1, 7), size)
    if sum(faces) == SET_TOTAL
)
# Whether a roll contains a set only depends on each face's count up to these caps
# (no pattern uses more than this many dice of a face).
CAPS = tuple(max(p[i] for p in SET_PATTERNS) for i in range(6))


def counts_of(values) -> tuple[int, ...]:
    """The count vector of an iterable of face values."""
    counts = [0] * 6
    for v in values:
        counts[v - 1] += 1
    return tuple(counts)


def has_set(counts: tuple[int, ...]) -> bool:
    """True if these faces hold at least one set of 2-3 dice totalling ten."""
    c1, c2, c3, c4, c5, c6 = counts
    return bool(
        (c4 and c6) or c5 >= 2 or (c1 and c3 and c6) or (c1 and c4 and c5) or (c2 >= 2 and c6)
        or (c2 and c3 and c5) or (c2 and c4 >= 2) or (c3 >= 2 and c4)
    )


def capped(counts: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(map(min, counts, CAPS))


def _add(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x + y for x, y in zip(a, b))


def _multiplicity(counts: tuple[int, ...]) -> int:
    """How many ordered rolls of sum(counts) dice show exactly this multiset."""
    result = factorial(sum(counts))
    for c in counts:
        result //= factorial(c)
    return result


# The capped count vectors, and for each the vectors one more die of each face leads to.
_CAPPED_STATES = tuple(product(*(range(cap + 1) for cap in CAPS)))
_CAPPED_NEXT = {
    state: tuple(state[:face] + (min(state[face] + 1, CAPS[face]),) + state[face + 1:] for face in range(6))
    for state in _CAPPED_STATES
}


@cache
def _set_outcome_table(n: int) -> dict[tuple[int, ...], int]:
    """For each capped count vector, how many of the 6**n rolls of ``n`` more dice give a set.

    Built backwards one die at a time: a vector that already holds a set keeps it
    whatever is rolled; otherwise each face of the next die leads to another vector.
    """
    if n == 0:
        return {state: int(has_set(state)) for state in _CAPPED_STATES}
    fewer = _set_outcome_table(n - 1)
    every = 6 ** n
    return {state: every if has_set(state) else sum(fewer[nxt] for nxt in _CAPPED_NEXT[state])
            for state in _CAPPED_STATES}


def set_outcomes(kept: tuple[int, ...], n: int) -> int:
    """Of the 6**n ways to roll ``n`` dice beside the ``kept`` faces, how many hold a set."""
    return _set_outcome_table(n)[capped(kept)]


def p_set(kept: tuple[int, ...], n: int) -> Fraction:
    """Exact probability that ``kept`` plus a roll of ``n`` dice holds a set (0 if nothing is rolled)."""
    if n == 0:
        return Fraction(0)
    return Fraction(set_outcomes(kept, n), 6 ** n)


def best_freeze(counts: tuple[int, ...], tokens: int) -> tuple[Fraction, tuple[int, ...]]:
    """The best dice to freeze before re-rolling ``counts`` with ``tokens`` freeze tokens.

    At least one die must still be rolled.  Returns the probability that the re-roll
    holds a set and the frozen count vector; among equal odds, fewer tokens wins.
    Freezing more dice of a face than any set uses never beats rolling them, so those
    choices are skipped.
    """
    n = sum(counts)
    return _best_freeze(capped(counts), n, min(tokens, n - 1))


@cache
def _below(useful: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The count vectors below ``useful`` by size: entry k lists those of k dice, in
    lexicographic order."""
    by_size: list[list[tuple[int, ...]]] = [[] for _ in range(sum(useful) + 1)]
    for sub in product(*(range(c + 1) for c in useful)):
        by_size[sum(sub)].append(sub)
    return tuple(tuple(subs) for subs in by_size)


@cache
def _best_freeze(useful: tuple[int, ...], n: int, most: int) -> tuple[Fraction, tuple[int, ...]]:
    # Fewest frozen dice first, then lexicographic: the first best odds met is the answer.
    best_hits, best_frozen = set_outcomes((0,) * 6, n), (0,) * 6
    below = _below(useful)
    for size in range(1, min(most, len(below) - 1) + 1):
        table, scale = _set_outcome_table(n - size), 6 ** size  # hits counted over 6**n
        for frozen in below[size]:
            if table[frozen] * scale > best_hits:
                best_hits, best_frozen = table[frozen] * scale, frozen
    return Fraction(best_hits, 6 ** n), best_frozen


# -- how many sets a roll can lock, and with how few dice ------------------------------
_PATTERN_SIZES = tuple((pattern, sum(pattern)) for pattern in SET_PATTERNS)


@cache
def lock_options(counts: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """For a roll, each number of sets k >= 1 it can lock with the fewest dice used: (k, dice).

    Any lock of k sets is one set plus a lock of k - 1 sets from the dice left, so the
    fewest dice for k sets is the best over the first set of its size plus the fewest
    dice for k - 1 sets from the rest.
    """
    best: dict[int, int] = {}
    for pattern, size in _PATTERN_SIZES:
        if all(c >= p for c, p in zip(counts, pattern)):
            if size < best.get(1, 99):
                best[1] = size
            for k, used in lock_options(tuple(c - p for c, p in zip(counts, pattern))):
                if used + size < best.get(k + 1, 99):
                    best[k + 1] = used + size
    return tuple(sorted(best.items()))


@cache
def _roll_multisets(n: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Each multiset of faces ``n`` dice can show, with its number of ordered rolls."""
    return tuple((counts, _multiplicity(counts))
                 for counts in (counts_of(faces) for faces in combinations_with_replacement(range(1, 7), n)))


def lock_option_distribution(n: int, frozen: tuple[int, ...] = (0,) * 6) -> tuple[tuple[tuple, int], ...]:
    """Rolling ``n`` dice beside ``frozen``: each :func:`lock_options` outcome with its number of rolls.

    Without frozen dice the answer comes from the shipped table (the same figures,
    see :func:`write_plain_rerolls`); with frozen dice it is worked out here.
    """
    if not any(frozen):
        table = _plain_rerolls()
        if n < len(table):
            return table[n]
    return direct_lock_option_distribution(n, frozen)


@cache
def direct_lock_option_distribution(n: int, frozen: tuple[int, ...] = (0,) * 6) -> tuple[tuple[tuple, int], ...]:
    """:func:`lock_option_distribution` from every multiset ``n`` dice can show."""
    grouped: Counter = Counter()
    for counts, weight in _roll_multisets(n):
        grouped[lock_options(_add(frozen, counts))] += weight
    return tuple(grouped.items())


PLAIN_REROLLS = Path(__file__).with_name("dairyman_rerolls.json")
PLAIN_REROLL_DICE = 12  # the most dice a Dairyman roll has: 7 white, 1 yellow, 4 red


@cache
def _plain_rerolls() -> tuple[tuple[tuple[tuple, int], ...], ...]:
    """The shipped no-freeze table, index n: :func:`direct_lock_option_distribution` (n)."""
    data = json.loads(PLAIN_REROLLS.read_text(encoding="utf-8"))
    return tuple(tuple((tuple(tuple(option) for option in options), weight) for options, weight in rows)
                 for rows in data["rerolls"])


def write_plain_rerolls(path: Path = PLAIN_REROLLS) -> None:
    """Rebuild the shipped table (run after changing the sets of ten or the dice count)."""
    rows = [direct_lock_option_distribution(n) for n in range(PLAIN_REROLL_DICE + 1)]
    note = ("rerolls[n]: rolling n dice without freezing, each (sets, fewest dice) choice list "
            "with its number of ordered rolls; written by dairyman_advice.write_plain_rerolls")
    path.write_text(json.dumps({"note": note, "rerolls": rows}) + "\n", encoding="utf-8")


def certain_value(values: Sequence[float], weights: Sequence[int], risk: float) -> float:
    """What a gamble over ``values`` (with these weights) is worth for sure to a player whose
    taste for risk is ``risk``: the mean at 0, more than the mean above 0 (a player behind
    likes a long shot), less below 0 (a player ahead prefers the sure points).  It is the
    certainty equivalent of the exponential utility ``exp(risk * points)``."""
    total = sum(weights)
    if not risk:
        return sum(v * w for v, w in zip(values, weights)) / total
    top = max(values)
    return top + math.log(sum(w * math.exp(risk * (v - top)) for v, w in zip(values, weights)) / total) / risk


class TurnValues:
    """The exact value of the rest of a turn, re-rolling without freezing.

    ``claim_points[s]`` is what stopping with ``s`` sets (barn total 10*s) is worth, or
    ``fail_points`` when no tile fits.  A re-roll declared for roll ``earn_from`` or later
    earns ``earn_value`` (a freeze token's worth) whatever it brings.  ``risk`` turns the
    expected value into a certainty equivalent (:func:`certain_value`; 0: expected points).
    ``value(n, s, roll)`` is the value of the best stop/re-roll policy with ``n`` unlocked
    dice and ``s`` sets locked after roll number ``roll``, and ``total(n, s, roll)`` the
    expected barn total that policy ends with (0 on a failure).
    """

    def __init__(self, claim_points: tuple[float, ...], fail_points: float, earn_value: float = 0.0,
                 earn_from: int = 3, risk: float = 0.0, first_claim: int | None = None):
        self.claim_points = claim_points
        self.fail_points = fail_points
        self.earn_value = earn_value
        self.last_roll = max(1, earn_from - 1)   # rolls past this one all earn alike
        self.risk = risk
        self.first_claim = first_claim           # fewest sets that claim a tile (None: a positive claim)
        self._memo: dict[tuple[int, int, int], tuple[float, float, bool]] = {}
        self._rerolls: dict[tuple, tuple[float, float]] = {}

    def claim(self, sets: int) -> float:
        return self.claim_points[min(sets, len(self.claim_points) - 1)]

    def claims(self, sets: int) -> bool:
        """True if stopping with ``sets`` sets claims a tile (rather than failing)."""
        if self.first_claim is None:
            return self.claim(sets) > 0
        return sets >= self.first_claim

    def _roll(self, roll: int) -> int:
        return min(roll, self.last_roll)

    def _solve(self, n: int, sets: int, roll: int) -> tuple[float, float, bool]:
        key = (n, sets, roll)
        if key in self._memo:
            return self._memo[key]
        stop_value = self.claim(sets)
        stop_total = SET_TOTAL * sets if self.claims(sets) else 0
        result = (stop_value, stop_total, False)
        if n:
            reroll_value, reroll_total = self.reroll(n, sets, roll=roll)
            if reroll_value > stop_value:
                result = (reroll_value, reroll_total, True)
        self._memo[key] = result
        return result

    def earns(self, roll: int) -> bool:
        """True if a re-roll declared after roll number ``roll`` earns a freeze token."""
        return roll + 1 > self.last_roll

    def reroll(self, n: int, sets: int, frozen: tuple[int, ...] = (0,) * 6, roll: int = 1) -> tuple[float, float]:
        """(Value, expected barn total) of re-rolling ``n`` dice beside ``frozen`` after roll
        number ``roll`` and playing on well (the token it may earn included)."""
        roll = self._roll(roll)
        key = (n, sets, frozen, roll)
        if key in self._rerolls:
            return self._rerolls[key]
        after = self._roll(roll + 1)
        size = n + sum(frozen)
        outcomes, weights = [], []
        total = 0.0
        for options, weight in lock_option_distribution(n, frozen):
            weights.append(weight)
            if not options:
                outcomes.append(self.fail_points)
                continue
            best = max((self._solve(size - used, sets + k, after) for k, used in options),
                       key=lambda r: (r[0], r[1]))
            outcomes.append(best[0])
            total += weight * best[1]
        value = certain_value(outcomes, weights, self.risk) + (self.earn_value if self.earns(roll) else 0.0)
        self._rerolls[key] = result = (value, total / 6 ** n)
        return result

    def value(self, n: int, sets: int, roll: int = 1) -> float:
        return self._solve(n, sets, self._roll(roll))[0]

    def total(self, n: int, sets: int, roll: int = 1) -> float:
        return self._solve(n, sets, self._roll(roll))[1]

    def should_reroll(self, n: int, sets: int, roll: int = 1) -> bool:
        return self._solve(n, sets, self._roll(roll))[2]


@lru_cache(maxsize=4096)
def turn_values(claim_points: tuple[float, ...], fail_points: float, earn_value: float = 0.0, earn_from: int = 3,
                risk: float = 0.0, first_claim: int | None = None) -> TurnValues:
    return TurnValues(claim_points, fail_points, earn_value, earn_from, risk, first_claim)


# -- the game around the turn --------------------------------------------------------------
VALUES_FILE = Path(__file__).with_name("dairyman_values.toml")
VALUES = tomllib.loads(VALUES_FILE.read_text(encoding="utf-8"))
BACKORDER_PENALTY = 5   # the rules data's backorder_penalty (points per token held at the end)


@dataclass(frozen=True)
class Stage:
    """What things are worth beyond the turn at one stage of the game (``dairyman_values.toml``)."""
    freeze_token: float
    backorder: float
    spoil_share: float
    ice_cream_ability: float


STAGES = tuple((row["stack_at_least"], Stage(row["freeze_token"], row["backorder"], row["spoil_share"],
                                             row["ice_cream_ability"]))
               for row in sorted(VALUES["stage"], key=lambda r: -r["stack_at_least"]))
PREVIOUS_STAGE = Stage(0.0, -float(BACKORDER_PENALTY), 0.0, 0.0)
"""The previous advice's view: tokens worth nothing, a failure always the backorder's -5."""


def stage_at(stack_left: int) -> Stage:
    return next(stage for at_least, stage in STAGES if stack_left >= at_least)


def _quarter(x: float) -> float:
    return round(x * 4) / 4


@dataclass
class TurnModel:
    """Everything the advice needs of the game around one player's turn.

    Points are relative: the player's own points minus the average of the others' (only
    spoilage and the end of the game change the others').  ``claims`` maps each claimable
    set of display tiles (as the moves name them) to its worth, ``ending`` holds the claims
    that end the game; ``spoils`` the tile each player loses if this turn's failure spoils
    (None: no spoilage, or nothing to lose).
    """
    values: TurnValues
    stage: Stage
    token: float
    fail: float
    spoils: tuple | None
    claims: dict
    ending: dict
    risk: float
    lead: float
    previous: bool


def scores_now(state) -> list[int]:
    tiles = state.tiles
    return [sum(tiles.flipped_value[t] if t in state.flipped else tiles.value[t] for t in owned)
            - BACKORDER_PENALTY * b for owned, b in zip(state.owned, state.backorders)]


RISK_STEP = 0.005
"""Tastes for risk are rounded to this step (and worths to quarter points), so that turns
alike share one table of values."""


def turn_model(state, previous: bool = False) -> TurnModel:
    """The model of the turn of ``state.current`` (a ``dairyman_sim.SimState``).

    ``previous``: the previous advice's model (expected points of the turn alone: tokens
    worth nothing, a failure -5, the standings and the end of the game ignored).
    """
    from companion.games.dairyman_sim import spoiled_tiles

    me = state.current
    spoils = None
    if not previous and state.backorder_supply <= 1:
        taken = tuple(b + (i == me) for i, b in enumerate(state.backorders))
        spoils = tuple(spoiled_tiles(state.with_(backorders=taken)))
    return _turn_model(previous, me, state.display, len(state.stack), tuple(scores_now(state)), state.backorders,
                       spoils, state.freeze[me], state.freeze_total > sum(state.freeze), state.earn_from,
                       state.cheese_faces)


@lru_cache(maxsize=65536)
def _subsets(display: tuple[int, ...], cheese_faces: str) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every non-empty set of display tiles (as moves name them) with its points."""
    from companion.games.dairyman_sim import tiles_for

    value = tiles_for(cheese_faces).value
    found = []
    for mask in range(1, 1 << len(display)):
        ids = tuple(t for i, t in enumerate(display) if mask >> i & 1)
        found.append((ids, sum(value[t] for t in ids)))
    return tuple(found)


@lru_cache(maxsize=65536)
def _turn_model(previous: bool, me: int, display: tuple[int, ...], stack_left: int, scores: tuple[int, ...],
                backorders: tuple[int, ...], spoils: tuple | None, tokens: int, supply: bool, earn_from: int,
                cheese_faces: str) -> TurnModel:
    from companion.games.dairyman_sim import tiles_for

    tiles = tiles_for(cheese_faces)
    players = len(scores)
    stage = PREVIOUS_STAGE if previous else stage_at(stack_left)
    others = [i for i in range(players) if i != me]
    best_other = max(scores[i] for i in others)
    lead = scores[me] - best_other
    # -- failing: a backorder token, and spoilage if it is the last one
    fail = stage.backorder
    if spoils is not None:
        change = [-stage.backorder * b - (tiles.value[t] if t is not None else 0) for b, t in zip(backorders, spoils)]
        fail = change[me] - sum(change[i] for i in others) / len(others)
    fail = _quarter(fail)
    # -- claiming: the tiles' points; a claim that ends the game decides the standings
    claims, ending, costs = {}, {}, []
    end = VALUES["standings"]["game_end"]
    for ids, points in _subsets(display, cheese_faces):
        worth = float(points)
        if len(ids) > stack_left and not previous:
            final = scores[me] + points
            place = "first" if final > best_other else "tied" if final == best_other else "behind"
            ending[ids] = place
            worth += {"first": end, "tied": end / 2, "behind": -end}[place]
            worth -= stage.freeze_token * tokens   # tokens are worth nothing once the game ends
        claims[ids] = worth
        costs.append((points, worth))
    claim_points = []
    for sets in range(MAX_SETS + 1):
        budget = SET_TOTAL * sets
        fits = [worth for points, worth in costs if points <= budget]
        claim_points.append(_quarter(max(fits)) if fits else fail)
    cheapest = min(tiles.value[t] for t in display)
    first_claim = -(-cheapest // SET_TOTAL)
    risk = 0.0
    if not previous:
        standings = VALUES["standings"]
        tiles_left = (stack_left + len(display)) / players
        spread = standings["turn_spread"] ** 2 + standings["tile_spread"] ** 2 * tiles_left
        limit = standings["max_risk"]
        risk = round(max(-limit, min(limit, -lead / spread)) / RISK_STEP) * RISK_STEP
    earn = stage.freeze_token if supply else 0.0
    values = turn_values(tuple(claim_points), fail, earn, earn_from, risk, first_claim)
    return TurnModel(values, stage, stage.freeze_token, fail, spoils, claims, ending, risk, lead, previous)


def freeze_candidates(counts: tuple[int, ...], most: int) -> tuple[tuple[int, ...], ...]:
    """The freeze choices the advice values exactly before re-rolling dice showing ``counts``
    with at most ``most`` tokens: for each number of frozen dice, the one that gives the best
    odds of a set (the first in order among equals), nothing frozen first."""
    n = sum(counts)
    return _freeze_candidates(capped(counts), n, min(most, n - 1))


PREVIOUS_FREEZE_CHOICES = 2


def previous_freeze_candidates(choices: Sequence[tuple[int, ...]], n: int) -> list[tuple[int, ...]]:
    """The freeze choices the previous advice valued exactly among ``choices`` (frozen faces,
    in the order the re-roll moves list them) before re-rolling ``n`` dice: nothing frozen and
    the two with the best odds of a set (fewer dice first among equal odds)."""
    odds = {faces: set_outcomes(faces, n - sum(faces)) * 6 ** sum(faces) for faces in choices}
    best = sorted((f for f in choices if any(f)), key=lambda f: (-odds[f], sum(f)))[:PREVIOUS_FREEZE_CHOICES]
    return best + [(0,) * 6]


@cache
def _freeze_candidates(useful: tuple[int, ...], n: int, most: int) -> tuple[tuple[int, ...], ...]:
    below = _below(useful)
    found = [(0,) * 6]
    for size in range(1, min(most, len(below) - 1) + 1):
        table = _set_outcome_table(n - size)
        found.append(max(below[size], key=lambda frozen: table[frozen]))
    return tuple(found)


# -- the locks a coloured roll allows ---------------------------------------------------
# Dice are coded as small integers, ordered like ``Die`` (by value, then colour name), so
# a roll is a count vector over codes and sets are code tuples.
_CODE_COLOURS = ("red", "white", "yellow")
_CODES = {(v, c): (v - 1) * len(_CODE_COLOURS) + i for v in range(1, 7) for i, c in enumerate(_CODE_COLOURS)}
_DICE = tuple(Die(v, c) for v in range(1, 7) for c in _CODE_COLOURS)


def die_text(die: Die) -> str:
    return f"{die.colour}:{die.value}"


def _code_counts(roll: Sequence[Die]) -> tuple[int, ...]:
    counts = [0] * len(_DICE)
    for die in roll:
        counts[_CODES[(die.value, die.colour)]] += 1
    return tuple(counts)


# A roll's code counts packed into one integer: a FIELD_BITS-wide field per code holding
# the count plus a guard bit.  Taking a set's dice is one subtraction; a field that
# goes below zero clears its guard bit (no die has 16 copies, so no borrow spreads).
FIELD_BITS = 5
_GUARD = 1 << (FIELD_BITS - 1)
_ALL_GUARDS = sum(_GUARD << (FIELD_BITS * c) for c in range(len(_DICE)))
_YELLOW_FIELDS = sum(((1 << FIELD_BITS) - 1) << (FIELD_BITS * c) for c, die in enumerate(_DICE) if die.colour == "yellow")


def _pack_faces(faces: Sequence[int]) -> int:
    """A count vector of faces packed into FIELD_BITS-wide fields (no guards)."""
    return sum(n << (FIELD_BITS * face) for face, n in enumerate(faces))


@cache
def _unpack_faces(packed: int) -> tuple[tuple[int, ...], int]:
    """The count vector packed by :func:`_pack_faces`, and its number of dice."""
    mask = (1 << FIELD_BITS) - 1
    faces = tuple(packed >> (FIELD_BITS * face) & mask for face in range(6))
    return faces, sum(faces)


def _packed(counts: Sequence[int]) -> int:
    """``counts`` per code packed into guarded fields."""
    return _ALL_GUARDS + sum(n << (FIELD_BITS * c) for c, n in enumerate(counts))


class _CodedSet:
    """What the lock tables need to know of one coded set, worked out once."""

    __slots__ = ("codes", "faces", "packed", "packed_faces", "shown", "texts")

    def __init__(self, codes: tuple[int, ...]):
        self.codes = codes
        self.packed = sum(1 << (FIELD_BITS * c) for c in codes)
        self.texts = tuple(die_text(_DICE[c]) for c in codes)
        self.shown = "+".join(self.texts)
        self.faces = counts_of(_DICE[c].value for c in codes)
        self.packed_faces = _pack_faces(self.faces)


_CODED_SETS = {
    codes: _CodedSet(codes)
    for size in SET_SIZES
    for codes in combinations_with_replacement(range(len(_DICE)), size)
    if sum(_DICE[c].value for c in codes) == SET_TOTAL
}
_PATTERN_NEEDS = tuple(tuple((face, need) for face, need in enumerate(p) if need) for p in SET_PATTERNS)
# Each face pattern with its coded sets: colours chosen face by face, lowest code first.
_PATTERN_SETS = tuple(
    (pattern, tuple(_CODED_SETS[tuple(c for part in combo for c in part)] for combo in product(*(
        combinations_with_replacement(range(face * len(_CODE_COLOURS), (face + 1) * len(_CODE_COLOURS)), need)
        for face, need in pattern))))
    for pattern in _PATTERN_NEEDS
)


_CODE_CAPS = tuple(CAPS[die.value - 1] for die in _DICE)


def _fitting_sets(counts: tuple[int, ...]) -> tuple[_CodedSet, ...]:
    """Every coded set the roll ``counts`` can form: face patterns, then colours per face."""
    # no set uses more dice of a code than its face's cap, so counts above it change nothing
    return _fitting_capped(tuple(map(min, counts, _CODE_CAPS)))


@lru_cache(maxsize=65536)
def _fitting_capped(counts: tuple[int, ...]) -> tuple[_CodedSet, ...]:
    width = len(_CODE_COLOURS)
    faces = [counts[f * width] + counts[f * width + 1] + counts[f * width + 2] for f in range(6)]
    available = _packed(counts)
    found = []
    for pattern, coded_sets in _PATTERN_SETS:
        if all(faces[face] >= need for face, need in pattern):
            found.extend(s for s in coded_sets if (available - s.packed) & _ALL_GUARDS == _ALL_GUARDS)
    return tuple(found)


@lru_cache(maxsize=65536)
def _coded_locks(counts: tuple[int, ...]) -> tuple[tuple[tuple[_CodedSet, ...], ...], tuple[tuple, ...]]:
    """Every lock of the roll ``counts`` as its sets, and the same locks as :func:`lock_table` rows.

    Sets come in :func:`_fitting_sets` order, a later set never before an earlier one.
    """
    fitting = _fitting_sets(counts)
    locks: list[tuple[_CodedSet, ...]] = []
    rows: list[tuple] = []

    def walk(start: int, available: int, chosen: tuple, faces_left: int, texts: tuple, shown: str) -> None:
        for index in range(start, len(fitting)):
            candidate = fitting[index]
            left = available - candidate.packed
            if left & _ALL_GUARDS == _ALL_GUARDS:
                lock = chosen + (candidate,)
                remaining = faces_left - candidate.packed_faces
                lock_texts = texts + (candidate.texts,)
                lock_shown = f"{shown}, {candidate.shown}" if shown else candidate.shown
                faces, dice_left = _unpack_faces(remaining)
                locks.append(lock)
                rows.append((_lock_move(lock_texts), lock_shown, faces, dice_left, len(lock),
                             (everything - left) & _YELLOW_FIELDS != 0))
                walk(index, left, lock, remaining, lock_texts, lock_shown)

    everything = _packed(counts)
    width = len(_CODE_COLOURS)
    walk(0, everything, (), _pack_faces([sum(counts[f * width:(f + 1) * width]) for f in range(6)]), (), "")
    return tuple(locks), tuple(rows)


def enumerate_locks(roll: Sequence[Die]) -> tuple[tuple[tuple[Die, ...], ...], ...]:
    """Every way to lock one or more disjoint sets from ``roll``, each set sorted.

    Locks that differ only by which of two identical dice is used appear once.
    """
    return tuple(tuple(tuple(_DICE[c] for c in s.codes) for s in lock) for lock in _coded_locks(_code_counts(roll))[0])


# -- advice -----------------------------------------------------------------------------
MAX_SETS = 6  # twelve dice hold at most six sets


def _points(x: float) -> str:
    return f"{x:.1f}"


class _Adviser:
    """The figures shared by every suggestion at one decision node."""

    def __init__(self, state, previous: bool = False):
        from companion.games.dairyman_sim import from_engine

        self.state = state
        self.me = state.current
        self.tokens = state.freeze[self.me]
        self.sets = state.locked_sets
        self.roll_no = state.roll_no
        self.model = turn_model(from_engine(state), previous)
        self.values = self.model.values
        self.fail_points = self.model.fail
        self._current_best: float | None = None

    def best_lock_points(self, roll: tuple[Die, ...]) -> float:
        """Worth of the best lock from ``roll`` (the failure's if none)."""
        best = self.fail_points
        for entry in lock_table(roll):
            best = max(best, self.values.value(entry[3], self.sets + entry[4], self.roll_no))
        return best

    @property
    def current_best(self) -> float:
        """Worth of the best plain move (no flip) at this node."""
        if self._current_best is None:
            state = self.state
            if state.phase == "lock":
                self._current_best = self.best_lock_points(state.roll)
            else:
                stop = self.values.claim(self.sets)
                self._current_best = max(stop, self.values.value(len(state.roll), self.sets, self.roll_no))
        return self._current_best


def die_words(die: Die | str) -> str:
    """A die as a player says it: a white die by its value, another by colour and value ("yellow 4")."""
    if isinstance(die, str):
        colour, _, value = die.rpartition(":")
        die = Die(int(value), colour or None)
    return str(die.value) if die.colour in (None, "white") else f"{die.colour} {die.value}"


def lock_text(sets: Sequence[Sequence[Die]], barn: str) -> str:
    sets_shown = ['+'.join(die_words(d) for d in s) for s in sets]
    joined = ", ".join(sets_shown[:-1]) + " and " + sets_shown[-1] if len(sets_shown) > 1 else "".join(sets_shown)
    return f"lock {joined} in barn {barn}"


def lock_table(roll: Sequence[Die]) -> tuple[tuple, ...]:
    """Each lock of ``roll``: (move, sets as text, faces left, dice left, sets, uses the yellow die)."""
    return _coded_locks(_code_counts(roll))[1]


def lock_outcome(roll: Sequence[Die], move: Move) -> tuple[tuple, tuple[Die, ...]] | None:
    """(sets locked, dice left) if ``move`` is a lock of ``roll`` exactly as listed, else None."""
    counts = _code_counts(roll)
    lock = _lock_index(counts).get(move)
    if lock is None:
        return None
    left = list(counts)
    for s in lock:
        for c in s.codes:
            left[c] -= 1
    sets = tuple(tuple(_DICE[c] for c in s.codes) for s in lock)
    return sets, tuple(_DICE[c] for c, n in enumerate(left) for _ in range(n))


@lru_cache(maxsize=4096)
def _lock_index(counts: tuple[int, ...]) -> dict[Move, tuple[_CodedSet, ...]]:
    locks, rows = _coded_locks(counts)
    return {row[0]: lock for row, lock in zip(rows, locks)}


def _lock_move(texts: tuple) -> Move:
    """``Move("lock", (("sets", texts),))`` without the frozen dataclass's per-field
    ``object.__setattr__`` calls (a 12-dice roll has hundreds of locks)."""
    move = object.__new__(Move)
    move.__dict__.update(kind="lock", params=(("sets", texts),))
    return move


@lru_cache(maxsize=65536)
def lock_key(values: TurnValues, tokens: int, faces: tuple[int, ...], sets_after: int, roll: int) -> tuple:
    """The rank key of holding ``sets_after`` sets with ``faces`` unlocked after roll number
    ``roll``: worth, expected barn total, odds of another set with the best freeze (negated)."""
    n = sum(faces)
    p_more = set_outcomes((0,) * 6, n) / 6 ** n if n else 0.0
    if tokens and n > 1:
        p_more = float(best_freeze(faces, tokens)[0])
    return (-round(values.value(n, sets_after, roll), 3), -round(values.total(n, sets_after, roll), 3), -p_more)


@lru_cache(maxsize=65536)
def _lock_advice(values: TurnValues, tokens: int, faces: tuple[int, ...], sets_after: int,
                 roll: int) -> tuple[dict, str, tuple]:
    """Figures, reason and rank key of holding ``sets_after`` sets with ``faces`` unlocked
    after roll number ``roll``."""
    n = sum(faces)
    p_more = set_outcomes((0,) * 6, n) / 6 ** n if n else 0.0  # == float(p_set(...)): both round once
    claims = values.claims(sets_after)
    figures = {
        "barn_total": SET_TOTAL * sets_after,
        "claimable_now": max(0, int(values.claim(sets_after))) if claims else 0,
        "dice_left": n,
        "p_more_set": p_more,
        "p_more_set_with_freeze": p_more,
        "freeze": [],
        "expected_points": round(values.value(n, sets_after, roll), 3),
        "expected_total": round(values.total(n, sets_after, roll), 3),
        "then": "re-roll" if values.should_reroll(n, sets_after, roll) else "stop",
    }
    if tokens and n > 1:
        p_freeze, frozen = best_freeze(faces, tokens)
        figures["p_more_set_with_freeze"] = float(p_freeze)
        figures["freeze"] = [v + 1 for v in range(6) for _ in range(frozen[v])]
    if figures["then"] == "re-roll":
        reason = (f"then re-roll {n}: {percent_words(p_more)} to lock another set"
                  + (f" ({percent_words(figures['p_more_set_with_freeze'])} freezing "
                     f"{' '.join(map(str, figures['freeze']))})" if figures["freeze"] else "")
                  + f", worth {_points(figures['expected_points'])} points with the tokens it earns")
    else:
        reason = (f"then stop and claim {figures['claimable_now']}" if claims
                  else "then stop: nothing claimable, so the turn fails")
        if n:
            reason += f" (re-rolling {n} locks another set {percent_words(p_more)})"
    return figures, reason, lock_key(values, tokens, faces, sets_after, roll)


def _remove(pool: Sequence[Die], dice: Sequence[Die]) -> tuple[Die, ...]:
    left = Counter(pool)
    left.subtract(dice)
    return tuple(sorted(left.elements()))


def _as_die(text: str) -> Die:
    colour, _, value = text.rpartition(":")
    return Die(int(value), colour or None)


def _suggestion(move: Move, text: str, advice: dict, reason: str) -> Suggestion:
    """``Suggestion(move, text, advice, reason)`` without the frozen dataclass's per-field
    ``object.__setattr__`` calls (a 12-dice roll makes hundreds of suggestions)."""
    suggestion = object.__new__(Suggestion)
    suggestion.__dict__.update(move=move, text=text, advice=advice, reason=reason)
    return suggestion


def _rank_key(entry: tuple) -> tuple:
    return entry[0]


def advise(state) -> list[Suggestion]:
    """Every legal move at a Dairyman decision node, best first (see the module docstring)."""
    ranked = _ranked(state)
    ranked.sort(key=_rank_key)
    return [_suggestion(move, text, dict(figures), reason) for _, move, text, figures, reason in ranked]


def best_move(state) -> Move | None:
    """A move :func:`advise` ranks first (None if there is none), found by the compact
    simulator's player (``dairyman_sim.advice_choice``) without building the suggestions:
    the same worths, but among moves of equal worth it keeps the first found where
    :func:`advise` compares texts."""
    from companion.games import dairyman_sim as sim

    if state.phase not in ("lock", "continue"):
        return None
    move = sim.advice_choice(sim.from_engine(state))[0]
    if move[0] == sim.LOCK:
        return next(row[0] for row in lock_table(state.roll) if sim.move_from_engine(row[0]) == move)
    if move[0] == sim.FLIP and state.tiles[move[1]].kind == "cheese":
        return Move.make("flip", die=f"yellow:{state.tiles[move[1]].face}", tile=move[1])
    return sim.move_to_engine(move)


def _ranked(state, previous: bool = False) -> list[tuple]:
    """Every legal move as (rank key, move, text, figures, reason), in no particular order;
    ``previous``: as the previous advice ranked them (see :func:`turn_model`).

    Figures may be shared with a cache: copy them before handing them out.
    """
    moves = state.legal_moves()
    if not moves:
        return []
    adviser = _Adviser(state, previous)
    ranked = []
    if state.phase == "lock":
        barn = state.barn_label
        values, tokens, locked = adviser.values, adviser.tokens, adviser.sets
        for move, shown, faces, _, sets, uses_yellow in lock_table(state.roll):
            text = f"lock {shown} on barn {barn}"
            figures, reason, key = _lock_advice(values, tokens, faces, locked + sets, state.roll_no)
            ranked.append((key + (uses_yellow, text), move, text, figures, reason))
    for move in moves:
        if move.kind not in ("lock", "reroll"):
            ranked.append(_suggest(adviser, move))
    if state.phase == "continue" and state.roll:
        ranked.extend(_reroll_advice(adviser.values, adviser.sets, state.roll, state.freeze_limit, state.roll_no,
                                     adviser.model.token, previous))
    return ranked


def _suggest(adviser: _Adviser, move: Move) -> tuple:
    state = adviser.state
    text = state.describe(move)
    if move.kind == "fail":
        return _suggest_fail(adviser, move, text)
    if move.kind == "claim":
        return _suggest_claim(adviser, move, text)
    if move.kind == "flip":
        return _suggest_flip(adviser, move, text)
    return _suggest_ability(adviser, move, text)


def _suggest_fail(adviser: _Adviser, move: Move, text: str) -> tuple:
    state, model = adviser.state, adviser.model
    left = state.backorder_supply - 1
    figures = {"expected_points": model.fail, "backorder_tokens_left": left, "spoilage": left == 0,
               "claimable_now": 0}
    reason = "no set of 10 to lock" if state.phase == "lock" else "the barns cannot pay for any tile"
    if left > 0:
        reason += f": a backorder token (worth {_points(model.stage.backorder)} points by the end of the game), " \
                  f"{left} left before spoilage"
    else:
        lost = [f"{'you' if i == adviser.me else state.players[i]} "
                f"lose{'s' if i != adviser.me else ''} {state.tiles[t].label()}"
                for i, t in enumerate(model.spoils or ()) if t is not None]
        reason += (": you take the last backorder token, so milk spoils: " + (", ".join(lost) or "nobody loses a tile")
                   + f"; every backorder token returns (you held {state.backorders[adviser.me]})")
        figures["spoiled"] = {state.players[i]: state.tiles[t].label() for i, t in enumerate(model.spoils or ())
                              if t is not None}
    reason += f"; worth {_points(model.fail)} points against the other players"
    return (-model.fail, 0, 0, False, text), move, text, figures, reason


def _suggest_claim(adviser: _Adviser, move: Move, text: str) -> tuple:
    state, model = adviser.state, adviser.model
    ids = tuple(move["tiles"])
    points = sum(state.tiles[t].value for t in ids)
    worth = model.claims[ids]
    figures = {"expected_points": round(worth, 3), "claimed": points, "barn_total": state.barn_total,
               "lost_points": state.barn_total - points, "ends_game": ids in model.ending}
    reason = f"banks {points} points" + (f", {state.barn_total - points} barn points unused"
                                         if state.barn_total > points else "")
    if ids in model.ending:
        place = {"first": "you finish first", "tied": "you finish tied for first",
                 "behind": "you finish behind"}[model.ending[ids]]
        reason += f"; this claim ends the game: {place}"
    return (-worth, -points, 0, False, text), move, text, figures, reason


def _suggest_flip(adviser: _Adviser, move: Move, text: str) -> tuple:
    state, model = adviser.state, adviser.model
    tile = state.tiles[move["tile"]]
    now = adviser.current_best
    protect = model.stage.spoil_share * tile.value
    if tile.kind == "cheese":
        without = _remove(state.roll, [Die(tile.face, "yellow")])
        if state.phase == "lock":
            after = adviser.best_lock_points(without)
        else:
            after = max(adviser.values.claim(adviser.sets),
                        adviser.values.value(len(without), adviser.sets, adviser.roll_no))
        bonus = tile.flipped_value - tile.value
        gain = after + bonus + protect - now
        figures = {"expected_points": round(after + bonus + protect, 3), "flip_gain": round(gain, 3),
                   "bonus": bonus}
        reason = (f"+{bonus} points and safe from spoilage; giving up the yellow die costs "
                  f"{max(0.0, now - after):.1f} points this turn")
        return (-(after + bonus + protect), 0, 0, False, text), move, text, figures, reason
    # An ice cream flip keeps the points, protects the tile and adds a re-roll ability, for a
    # freeze token; the previous advice played it as soon as a token allowed.
    gain = 0.5 if model.previous else protect + model.stage.ice_cream_ability - model.token
    figures = {"expected_points": round(now + gain, 3), "flip_gain": round(gain, 3),
               "freeze_tokens_after": adviser.tokens - 1}
    reason = (f"safe from spoilage (worth {_points(protect)}) and gives '{ABILITY_TEXT[tile.ability]}' once per "
              f"turn (worth {_points(model.stage.ice_cream_ability)}), for a freeze token worth {_points(model.token)}")
    return (-(now + gain), 0, 0, False, text), move, text, figures, reason


ABILITY_TEXT = {"ones": "re-roll every 1", "twos": "re-roll every 2", "one": "re-roll one die"}


def _suggest_ability(adviser: _Adviser, move: Move, text: str) -> tuple:
    tile = adviser.state.tiles[move["tile"]]
    die = move.get("die")
    faces = counts_of(d.value for d in adviser.state.roll)
    figures, reason, key = _ability_advice(adviser.values, adviser.sets, faces, tile.ability,
                                           _as_die(die).value if die else None, adviser.roll_no)
    return key + (text,), move, text, figures, reason


@lru_cache(maxsize=65536)
def _ability_advice(values: TurnValues, sets: int, faces: tuple[int, ...], ability: str,
                    value: int | None, roll: int) -> tuple[dict, str, tuple]:
    """Figures, reason and rank key of an ice cream re-roll of a roll showing ``faces`` with
    ``sets`` locked: every die of one face (``ones``, ``twos``) or one die showing ``value``."""
    face = value if ability == "one" else (1 if ability == "ones" else 2)
    rolled = 1 if ability == "one" else faces[face - 1]
    kept = faces[:face - 1] + (faces[face - 1] - rolled,) + faces[face:]
    p = p_set(kept, rolled)
    figures = {"p_set_after": float(p), "dice_rerolled": rolled}
    if has_set(faces):
        # With a set already showing, the advice locks instead (ability kept for later).
        figures["expected_points"] = None
        reason = "a set is already showing: lock it instead"
        key = (-values.fail_points + 1, 0, -float(p), False)
    else:
        after_lock = values.value(max(0, sum(faces) - 2), sets + 1, roll)
        expected = float(p) * after_lock + (1 - float(p)) * values.fail_points
        figures["expected_points"] = round(expected, 3)
        reason = f"no set showing: {percent_words(p)} that this re-roll makes one instead of failing"
        key = (-expected, 0, -float(p), False)
    return figures, reason, key


def reroll_text(unlocked: int, frozen: Sequence) -> str:
    """One line for a re-roll of ``unlocked`` dice freezing the dice named in ``frozen``."""
    rolled = unlocked - len(frozen)
    return f"re-roll {rolled} {'die' if rolled == 1 else 'dice'}" + \
        (f", freezing {', '.join(die_words(d) for d in frozen)}" if frozen else "")


def _sub_multisets(counts: list[int], most: int):
    """Every choice of how many of each kind to take, at most ``most`` in all."""
    if not counts:
        yield ()
        return
    for take in range(min(counts[0], most) + 1):
        for rest in _sub_multisets(counts[1:], most - take):
            yield (take,) + rest


@lru_cache(maxsize=16384)
def reroll_moves(roll: tuple[Die, ...], most: int) -> tuple[Move, ...]:
    """Every re-roll of ``roll`` freezing at most ``most`` dice (identical dice once)."""
    kinds = sorted(Counter(roll).items())
    return tuple(Move("reroll", (("freeze", tuple(die_text(d) for (d, _), n in zip(kinds, pick) for _ in range(n))),))
                 for pick in _sub_multisets([n for _, n in kinds], most))


@lru_cache(maxsize=16384)
def _reroll_advice(values: TurnValues, sets: int, roll: tuple[Die, ...], most: int, roll_no: int,
                   token: float, previous: bool = False) -> tuple:
    """(rank key, move, text, figures, reason) of each re-roll of ``roll`` with ``sets`` locked
    after roll number ``roll_no``, freezing at most ``most`` dice that are worth ``token`` each.

    The choices of :func:`freeze_candidates` are valued exactly (the tokens they spend and
    the one the re-roll may earn included); the others get their odds only."""
    n = len(roll)
    by_faces: dict[tuple[int, ...], list[Move]] = {}
    for move in reroll_moves(roll, most):
        faces = counts_of(_as_die(d).value for d in move.get("freeze") or ())
        by_faces.setdefault(faces, []).append(move)
    odds = {faces: p_set(faces, n - sum(faces)) for faces in by_faces}
    empty = (0,) * 6
    if previous:
        exact = set(previous_freeze_candidates(tuple(by_faces), n))
    else:
        exact = set(freeze_candidates(counts_of(d.value for d in roll), most))
    stop = values.claim(sets)
    against = f"{_points(stop)} for stopping now" if values.claims(sets) else "a failure if stopping now"
    earns = values.earns(roll_no) and values.earn_value > 0
    results = []
    for faces, group in by_faces.items():
        size = sum(faces)
        figures = {"p_more_set": float(odds[empty]) if empty in odds else None,
                   "p_more_set_with_freeze": float(odds[faces]), "frozen": size,
                   "dice_rolled": n - size, "earns_token": earns}
        if faces in exact:
            points, total = values.reroll(n - size, sets, faces, roll_no)
            points -= size * token
            figures.update(expected_points=round(points, 3), expected_total=round(total, 3))
            reason = f"{percent_words(odds[faces])} to lock another set; worth {_points(points)} points against {against}"
            if size:
                reason += f", spending {size} freeze token{'s' * (size > 1)} worth {_points(size * token)}"
            if earns:
                reason += f"; earns a freeze token (worth {_points(values.earn_value)}) even if it fails"
            key = (-points, -total, -float(odds[faces]), False)
        else:
            figures.update(expected_points=None, expected_total=None)
            reason = f"{percent_words(odds[faces])} to lock another set (weaker freeze choice)"
            key = (float("inf"), 0, -float(odds[faces]), False)
        for move in group:
            text = reroll_text(n, move.get("freeze") or ())
            results.append((key + (text,), move, text, figures, reason))
    return tuple(results)


POSITION_CACHES = (_fitting_capped, _coded_locks, _lock_index, _unpack_faces, _lock_advice, lock_key, _below, _best_freeze,
                   _ability_advice, reroll_moves, _reroll_advice, turn_values, _freeze_candidates, _turn_model,
                   _subsets)
"""Caches keyed by what a roll or a table shows: they grow with every position seen (the odds tables that
depend only on the number of dice do not)."""


def forget_positions() -> None:
    """Empty :data:`POSITION_CACHES` (a long-running app does it when a game starts)."""
    for cached in POSITION_CACHES:
        cached.cache_clear()
