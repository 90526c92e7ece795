"""Dicey Farm's fixed tables: Daily Mode from a date, Normal Mode from a seed.

Daily Mode reproduces the game's day tables (digest section 7): the seed string is the date
as ``MMDD`` plus the weekday digit (0 Sunday .. 6 Saturday); the string becomes a number by a
shift-add hash run once per character of the string and summed; that number mod 2**32 seeds
MT19937 (``init_genrand``), and each uniform draw is one 32-bit output divided by 2**32.
The draws, in order: 25 dice, the shuffle of the 31 craftsmen, 8 shuffles of 0..7 (table P),
5 shuffles of 0..7 (table M, one per merchant).  Merchant ``v`` in round ``r`` sorts its goods
by ``P[M[v][r-1]]``.  Python's ``random.Random`` seeds MT19937 differently (init_by_array) and
draws 53-bit floats, so the generator is written out here.
"""
from __future__ import annotations

import datetime
import random
from dataclasses import dataclass
from functools import cache

DICE_COUNT = 25
SHUFFLES = 8
MERCHANTS = 5
SLOT_RANGE = 8          # the longest goods list (the peddler's)


class MersenneTwister:
    """MT19937 seeded with ``init_genrand`` (one 32-bit number)."""

    def __init__(self, seed: int):
        self.state = [0] * 624
        self.state[0] = seed & 0xFFFFFFFF
        for i in range(1, 624):
            previous = self.state[i - 1]
            self.state[i] = (1812433253 * (previous ^ (previous >> 30)) + i) & 0xFFFFFFFF
        self.index = 624

    def _twist(self) -> None:
        mt = self.state
        for i in range(624):
            y = (mt[i] & 0x80000000) | (mt[(i + 1) % 624] & 0x7FFFFFFF)
            mt[i] = mt[(i + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        self.index = 0

    def next_u32(self) -> int:
        if self.index >= 624:
            self._twist()
        y = self.state[self.index]
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        return y & 0xFFFFFFFF

    def uniform(self) -> float:
        """A draw in [0, 1): one 32-bit output over 2**32."""
        return self.next_u32() / 4294967296.0

    def below(self, count: int) -> int:
        """A whole number 0 <= n < count."""
        return int(self.uniform() * count)

    def shuffled(self, items: list) -> list:
        """The library's shuffle: draw one of the positions not yet taken; the last one fills its gap."""
        positions = list(range(len(items)))
        last = len(items) - 1
        result = []
        for _ in range(len(items)):
            pick = self.below(last + 1)
            result.append(items[positions[pick]])
            positions[pick] = positions[last]
            last -= 1
        return result


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def seed_string(day: datetime.date) -> str:
    """``MMDD`` and the weekday digit, Sunday 0: 2024-06-07 (a Friday) gives ``"06075"``."""
    return f"{day.month:02d}{day.day:02d}{(day.weekday() + 1) % 7}"


def seed_number(text: str) -> int:
    """The string's hash times its length (the library re-hashes the string once per character).

    Each step is ``code + (h << 6) + (h << 16) - h``: the shifts act on ``h`` as a 32-bit signed
    number, the sum is exact (a double in the original; these sums stay well inside 2**53)."""
    total = 0
    for _ in text:
        h = 0
        for char in text:
            h = ord(char) + _int32(_int32(h) << 6) + _int32(_int32(h) << 16) - h
        total += h
    return total


@dataclass(frozen=True)
class Tables:
    """The fixed draws of one game: dice (Daily Mode only), deck order, and slot orders."""

    dice: tuple[int, ...] | None
    deck: tuple[int, ...]                       # craftsman indexes, top first
    slot_orders: tuple[tuple[tuple[int, ...], ...], ...]   # [merchant][round-1] -> order of goods indexes
    merchant_table: tuple[tuple[int, ...], ...] | None = None   # Daily Mode's M: [merchant][round-1] -> P index

    def slot_order(self, merchant: int, round_number: int) -> tuple[int, ...]:
        return self.slot_orders[merchant][round_number - 1]


@cache
def daily_tables(day: datetime.date, craftsmen: int, rounds: int) -> Tables:
    """The tables the game draws for ``day`` in Daily Mode."""
    mt = MersenneTwister(seed_number(seed_string(day)) % (1 << 32))
    dice = tuple(mt.below(6) + 1 for _ in range(DICE_COUNT))
    deck = tuple(mt.shuffled(list(range(craftsmen))))
    perms = [tuple(mt.shuffled(list(range(SLOT_RANGE)))) for _ in range(SHUFFLES)]
    merchant_table = [mt.shuffled(list(range(SLOT_RANGE))) for _ in range(MERCHANTS)]
    orders = tuple(tuple(perms[merchant_table[v][r]] for r in range(rounds)) for v in range(MERCHANTS))
    return Tables(dice, deck, orders, tuple(tuple(row) for row in merchant_table))


@cache
def seeded_tables(seed: int, craftsmen: int, rounds: int) -> Tables:
    """Normal Mode: the deck and every merchant's slot order of every round from ``seed``
    (the dice come from the tray)."""
    rng = random.Random(f"dicey-farm:{seed}")
    deck = tuple(rng.sample(range(craftsmen), craftsmen))
    orders = tuple(tuple(tuple(rng.sample(range(SLOT_RANGE), SLOT_RANGE)) for _ in range(rounds))
                   for _ in range(MERCHANTS))
    return Tables(None, deck, orders)


def parse_day(text: str) -> datetime.date:
    """``YYYY-MM-DD`` as a date; ValueError otherwise."""
    return datetime.date.fromisoformat(text.strip())
