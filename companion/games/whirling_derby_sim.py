"""Whirling Derby as small integers: the compact simulator that tournaments, benchmarks and
the advice's look-ahead use.

The rules are the engine's (:mod:`companion.games.whirling_derby`), read from the same
:class:`~companion.games.whirling_derby.Rules`; only the state is smaller.  A die is one int,
``value * 8 + colour`` (colour: the seat whose colour it is, :data:`NEUTRAL` for the neutral
dice of a two-player game), so a sorted tuple of dice is sorted by value.  A state is a
:class:`SimState` of ints and tuples; a move is a tuple whose first item names its kind:

``("reroll_card", card)``, ``("reroll_colour", colour)``, ``("place", die, card)``,
``("activate", card)``, ``("end_turn",)``, ``("hand", die)``, ``("give", seat)``,
``("keep_sides",)``, ``("set_side", card, side)``, ``("lift", card, die)``, ``("done_lifting",)``.

:meth:`DerbySim.apply` trusts its move (the engine is where a table's moves are checked);
tests play random games on both and check they agree move for move.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import NamedTuple

from companion.engine import Die, Move
from companion.games.whirling_derby import DerbyState, Rules, Side

NEUTRAL = 4
"""The colour number of the neutral dice (seats are 0-3)."""
PLACING = ("setup_place", "assign", "receive", "reassign")


def die(value: int, colour: int) -> int:
    return value * 8 + colour


def value_of(d: int) -> int:
    return d >> 3


def colour_of(d: int) -> int:
    return d & 7


_VALUES: dict = {}


def values_of(dice: tuple[int, ...]) -> tuple[int, ...]:
    """The values of sorted dice (remembered: the same few tuples come back all the time)."""
    values = _VALUES.get(dice)
    if values is None:
        if len(_VALUES) > 100_000:
            _VALUES.clear()
        values = _VALUES[dice] = tuple(d >> 3 for d in dice)
    return values


class SimState(NamedTuple):
    """A position: ``boards[seat][card] = (side index, sorted dice)``; the other fields as
    in :class:`~companion.games.whirling_derby.DerbyState`."""

    stage: str
    turn_seat: int
    actor: int
    boards: tuple
    compost: tuple[int, ...]
    pending: tuple[int, ...] = ()
    outgoing: tuple[int, ...] = ()
    hand_step: int = 0
    reroll: tuple[int, ...] = ()
    turn: int = 0
    winner: int | None = None
    ended_by: str | None = None


def _without(dice: tuple[int, ...], d: int) -> tuple[int, ...]:
    i = dice.index(d)
    return dice[:i] + dice[i + 1:]


def _with(dice: tuple[int, ...], d: int) -> tuple[int, ...]:
    i = 0
    while i < len(dice) and dice[i] < d:
        i += 1
    return dice[:i] + (d,) + dice[i:]


class DerbySim:
    """The rules of one table (card data, number of players) over :class:`SimState`."""

    def __init__(self, rules: Rules, players: int) -> None:
        self.rules = rules
        self.players = players
        self.cards = rules.cards
        self.card_count = len(rules.cards)
        self.flipping = tuple(i for i, c in enumerate(rules.cards) if c.flips)
        self.four = rules.four_equal_is_two_pairs
        extra = rules.neutral_dice_two_players if players == 2 else 0
        self.starting = tuple(tuple([seat] * rules.dice_by_seat[seat] + [NEUTRAL] * extra) for seat in range(players))
        self._fits: dict = {}
        self._complete: dict = {}

    # -- patterns (memoised by side and values) ---------------------------------------------
    def side(self, state: SimState, seat: int, card: int) -> Side:
        return self.cards[card].sides[state.boards[seat][card][0]]

    def fits(self, side: Side, values: tuple[int, ...], value: int) -> bool:
        """May a die showing ``value`` join ``values`` (sorted) on ``side``?"""
        key = (side, values, value)
        known = self._fits.get(key)
        if known is None:
            known = self._fits[key] = self._check_fit(side, values, value)
        return known

    def _check_fit(self, side: Side, values: tuple[int, ...], value: int) -> bool:
        count, pattern = len(values), side.pattern
        if side.slots and count >= side.slots:
            return False
        if pattern in ("consecutive", "distinct") and value in values:
            return False
        if pattern == "equal" and values and values[0] != value:
            return False
        if pattern == "not_all_equal" and count + 1 == side.slots and set(values) == {value}:
            return False
        if pattern == "pairs":
            counts = Counter(values)
            counts[value] += 1
            if not self.four and counts[value] > 2:
                return False
            if count + 1 + sum(n % 2 for n in counts.values()) > side.slots:
                return False
        return True

    def complete(self, side: Side, values: tuple[int, ...]) -> bool:
        """Can ``side`` holding ``values`` (sorted) be activated?"""
        key = (side, values)
        known = self._complete.get(key)
        if known is None:
            known = self._complete[key] = self._check_complete(side, values)
        return known

    @staticmethod
    def _check_complete(side: Side, values: tuple[int, ...]) -> bool:
        count, pattern = len(values), side.pattern
        if side.action == "none" or count < side.required:
            return False
        distinct = len(set(values))
        if pattern == "consecutive":
            return distinct == count and values[-1] - values[0] == count - 1
        if pattern == "equal":
            return distinct <= 1
        if pattern == "pairs":
            return all(n % 2 == 0 for n in Counter(values).values())
        if pattern == "distinct":
            return distinct == count
        if pattern == "not_all_equal":
            return count <= 1 or distinct > 1
        return True

    # -- views --------------------------------------------------------------------------------
    def new_game(self) -> SimState:
        empty = tuple((0, ()) for _ in self.cards)
        return SimState("setup_roll", 0, 1, (empty,) * self.players, (), reroll=self.starting[1])

    def dice_on_cards(self, state: SimState, seat: int) -> int:
        return sum(len(dice) for _, dice in state.boards[seat])

    def activatable(self, state: SimState) -> list[int]:
        board = state.boards[state.turn_seat]
        return [i for i in range(self.card_count)
                if self.complete(self.cards[i].sides[board[i][0]], values_of(board[i][1]))]

    def target(self, state: SimState) -> int | None:
        """Who gets the next die handed out: a seat, or None for the Compost."""
        seat = (state.turn_seat + state.hand_step) % self.players
        return None if seat == state.turn_seat else seat

    def may_give(self, state: SimState, seat: int, dice: tuple[int, ...]) -> bool:
        """May the turn player hand ``dice`` to ``seat`` (own colour only when forced)?"""
        if all(d & 7 != seat for d in dice):
            return True
        if state.stage == "distribute":
            return all(d & 7 == seat for d in state.outgoing)
        return not any(all(d & 7 != s for d in dice) for s in range(self.players) if s != state.turn_seat)

    def stalemate(self, state: SimState) -> bool:
        for seat, board in enumerate(state.boards):
            needed = [max(self.cards[i].sides[board[i][0]].required, 1) for i in self.flipping]
            if needed and sum(len(dice) for _, dice in board) >= min(needed):
                return False
        return True

    # -- legal moves -------------------------------------------------------------------------
    def legal_moves(self, state: SimState) -> list[tuple]:
        stage, seat = state.stage, state.actor
        board = state.boards[seat]
        if stage == "choose_reroll":
            colours = sorted({d & 7 for _, dice in board for d in dice})
            return [("reroll_card", i) for i in range(self.card_count) if board[i][1]] + \
                [("reroll_colour", c) for c in colours]
        if stage in PLACING:
            return [("place", d, i) for d in sorted(set(state.pending)) for i in range(self.card_count)
                    if self.fits(self.cards[i].sides[board[i][0]], values_of(board[i][1]), d >> 3)]
        if stage == "activate":
            return [("activate", i) for i in self.activatable(state)] or [("end_turn",)]
        if stage == "distribute":
            target = self.target(state)
            return [("hand", d) for d in sorted(set(state.outgoing))
                    if target is None or self.may_give(state, target, (d,))]
        if stage == "give":
            return [("give", s) for s in range(self.players) if s != seat and self.may_give(state, s, state.outgoing)]
        if stage == "set_side":
            return [("keep_sides",)] + [("set_side", i, k) for i in self.flipping
                                        for k in range(len(self.cards[i].sides)) if k != board[i][0]]
        if stage == "lift":
            return [("done_lifting",)] + [("lift", i, d) for i in range(self.card_count) for d in sorted(set(board[i][1]))]
        return []

    # -- transitions -------------------------------------------------------------------------
    def roll(self, state: SimState, values: list[int] | tuple[int, ...]) -> SimState:
        """The dice of ``state.reroll`` land showing ``values`` (in the same order)."""
        pending = tuple(sorted(v * 8 + c for v, c in zip(values, state.reroll)))
        return state._replace(stage="setup_place" if state.stage == "setup_roll" else "assign",
                              pending=pending, reroll=())

    @staticmethod
    def _set_card(boards: tuple, seat: int, card: int, side: int, dice: tuple[int, ...]) -> tuple:
        board = boards[seat]
        board = board[:card] + ((side, dice),) + board[card + 1:]
        return boards[:seat] + (board,) + boards[seat + 1:]

    def apply(self, state: SimState, move: tuple) -> SimState:
        kind = move[0]
        seat, boards = state.actor, state.boards
        if kind == "place":
            _, d, card = move
            side, dice = boards[seat][card]
            state = state._replace(boards=self._set_card(boards, seat, card, side, _with(dice, d)),
                                   pending=_without(state.pending, d))
            return state if state.pending else self._placed_all(state)
        if kind == "hand":
            d = move[1]
            target = self.target(state)
            state = state._replace(outgoing=_without(state.outgoing, d), hand_step=state.hand_step + 1)
            if target is None or d & 7 == target:
                state = state._replace(compost=_with(state.compost, d))
                return state if state.outgoing else self._end_turn(state)
            return state._replace(stage="receive", actor=target, pending=(d,))
        if kind == "reroll_card":
            card = move[1]
            side, dice = boards[seat][card]
            return state._replace(boards=self._set_card(boards, seat, card, side, ()), stage="roll",
                                  reroll=tuple(sorted(d & 7 for d in dice)))
        if kind == "reroll_colour":
            colour = move[1]
            board = tuple((side, tuple(d for d in dice if d & 7 != colour)) for side, dice in boards[seat])
            count = sum(d & 7 == colour for _, dice in boards[seat] for d in dice)
            return state._replace(boards=boards[:seat] + (board,) + boards[seat + 1:], stage="roll",
                                  reroll=(colour,) * count)
        if kind == "activate":
            card = move[1]
            side_index, dice = boards[seat][card]
            action = self.cards[card].sides[side_index].action
            flipped = (side_index + 1) % len(self.cards[card].sides)
            state = state._replace(boards=self._set_card(boards, seat, card, flipped, ()))
            if action == "distribute":
                return state._replace(stage="distribute", outgoing=dice, hand_step=0)
            if action == "give":
                return state._replace(stage="give", outgoing=dice)
            return state._replace(stage="set_side", pending=dice)
        if kind == "end_turn":
            return self._end_turn(state)
        if kind == "give":
            to = move[1]
            kept = tuple(d for d in state.outgoing if d & 7 != to)
            bounced = tuple(d for d in state.outgoing if d & 7 == to)
            state = state._replace(outgoing=(), compost=tuple(sorted(state.compost + bounced)))
            return state._replace(stage="receive", actor=to, pending=kept) if kept else self._end_turn(state)
        if kind == "keep_sides":
            return state._replace(stage="lift")
        if kind == "set_side":
            _, card, side = move
            dice = boards[seat][card][1]
            return state._replace(boards=self._set_card(boards, seat, card, side, ()),
                                  pending=tuple(sorted(state.pending + dice)), stage="lift")
        if kind == "lift":
            _, card, d = move
            side, dice = boards[seat][card]
            return state._replace(boards=self._set_card(boards, seat, card, side, _without(dice, d)),
                                  pending=_with(state.pending, d))
        if kind == "done_lifting":
            return state._replace(stage="reassign") if state.pending else self._end_turn(state)
        raise ValueError(f"not a Whirling Derby move: {move!r}")

    def _placed_all(self, state: SimState) -> SimState:
        stage = state.stage
        if stage == "setup_place":
            seat = state.actor + 1
            if seat < self.players:
                return state._replace(stage="setup_roll", actor=seat, reroll=self.starting[seat])
            return state._replace(stage="roll", actor=0, turn_seat=0, turn=1, reroll=self.starting[0])
        if stage == "assign":
            return state._replace(stage="activate")
        if stage == "receive" and state.outgoing:
            return state._replace(stage="distribute", actor=state.turn_seat)
        return self._end_turn(state)

    def _end_turn(self, state: SimState) -> SimState:
        seat = state.turn_seat
        done = state._replace(pending=(), outgoing=(), hand_step=0, actor=seat)
        if not self.dice_on_cards(state, seat):
            return done._replace(stage="over", winner=seat)
        ended_by = "stalemate" if self.stalemate(done) else "turn_cap" if state.turn >= self.rules.turn_cap else None
        if ended_by:
            fewest = min(range(self.players), key=lambda s: self.dice_on_cards(done, s))
            return done._replace(stage="over", winner=fewest, ended_by=ended_by)
        seat = (seat + 1) % self.players
        return done._replace(stage="choose_reroll", turn_seat=seat, actor=seat, turn=state.turn + 1)


# -- the engine's states and moves in small integers (the advice and the cross-check) --------


class Bridge:
    """Translates one engine game (its rules, players and colour names) to and from the
    simulator's integers."""

    def __init__(self, state: DerbyState) -> None:
        self.rules, self.players = state.rules, state.players
        count = len(state.players)
        self.sim = simulator(state.rules, count)
        self.names = {**{state.rules.colours[s]: s for s in range(count)}, state.rules.neutral: NEUTRAL}
        self.colour_names = {number: name for name, number in self.names.items()}

    def die(self, engine_die: Die) -> int:
        return engine_die.value * 8 + self.names[engine_die.colour]

    def engine_die(self, d: int) -> str:
        return f"{self.colour_names[d & 7]}:{d >> 3}"

    def dice(self, dice: tuple[Die, ...]) -> tuple[int, ...]:
        return tuple(sorted(self.die(d) for d in dice))

    def state(self, state: DerbyState) -> SimState:
        boards = tuple(tuple((side, self.dice(dice)) for side, dice in board) for board in state.boards)
        return SimState(state.stage, state.turn_seat, state.actor, boards, self.dice(state.compost),
                        self.dice(state.pending), self.dice(state.outgoing), state.hand_step,
                        tuple(sorted(self.names[c] for c in state.reroll)), state.turn, state.winner, state.ended_by)

    def move(self, move: Move) -> tuple:
        """An engine move as a simulator move."""
        kind, cards = move.kind, self.rules.cards
        card = self.rules.card_index(move["card"]) if move.get("card") is not None else None
        if kind == "reroll":
            return ("reroll_card", card) if card is not None else ("reroll_colour", self.names[move["colour"]])
        if kind in ("place", "hand", "lift"):
            colour, value = str(move["die"]).split(":")
            d = int(value) * 8 + self.names[colour]
            return {"place": ("place", d, card), "hand": ("hand", d), "lift": ("lift", card, d)}[kind]
        if kind == "activate":
            return ("activate", card)
        if kind == "give":
            return ("give", self.players.index(move["to"]))
        if kind == "set_side":
            return ("set_side", card, [s.key for s in cards[card].sides].index(move["side"]))
        return (kind,)

    def engine_move(self, move: tuple) -> Move:
        """A simulator move as an engine move."""
        kind, keys = move[0], [c.key for c in self.rules.cards]
        if kind == "reroll_card":
            return Move.make("reroll", card=keys[move[1]])
        if kind == "reroll_colour":
            return Move.make("reroll", colour=self.colour_names[move[1]])
        if kind == "place":
            return Move.make("place", die=self.engine_die(move[1]), card=keys[move[2]])
        if kind == "hand":
            return Move.make("hand", die=self.engine_die(move[1]))
        if kind == "lift":
            return Move.make("lift", card=keys[move[1]], die=self.engine_die(move[2]))
        if kind == "activate":
            return Move.make("activate", card=keys[move[1]])
        if kind == "give":
            return Move.make("give", to=self.players[move[1]])
        if kind == "set_side":
            return Move.make("set_side", card=keys[move[1]], side=self.rules.cards[move[1]].sides[move[2]].key)
        return Move.make(kind)


@lru_cache(maxsize=64)
def simulator(rules: Rules, players: int) -> DerbySim:
    """The simulator of a table (one per rules and number of players, with its memos)."""
    return DerbySim(rules, players)
