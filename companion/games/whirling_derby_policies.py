"""Whirling Derby players for tournaments, on the compact simulator: each is a function
``policy(sim, state, rng) -> move`` called at every decision node of its seat.

- ``random``: any legal move, uniformly.
- ``greedy``: re-rolls the Stove (or, when it is empty, the card with the fewest dice),
  places its dice as the planner's best split (the most dice given away now), activates the
  card giving away the most, hands out and gives in the first legal order, never reassigns.
- ``previous``: the advice as it was before issue 20, kept to measure the new one against:
  it plans a hand over the cards (:func:`companion.games.whirling_derby._best_plan`),
  rates a re-roll by 16 sample rolls (dice given away now plus half those ready for next
  turn), hands out its own colour first and gives to the player with the fewest dice.

The current advice is :func:`companion.games.whirling_derby_advice.policy`.
"""
from __future__ import annotations

import random
from collections.abc import Callable

from companion.games.whirling_derby import Plan, _best_plan, best_activation
from companion.games.whirling_derby_sim import NEUTRAL, PLACING, DerbySim, SimState, values_of

Policy = Callable[[DerbySim, SimState, random.Random], tuple]

PREVIOUS_SAMPLES = 16
"""Sample rolls the previous advice planned per re-roll choice."""
CACHE_LIMIT = 200_000
"""Entries a planning memo keeps before it starts again (memory stays bounded)."""


def layout(sim: DerbySim, board: tuple) -> tuple:
    """The cards that can be activated, as the planner takes them: (index, side, values)."""
    cards = sim.cards
    return tuple((i, cards[i].sides[board[i][0]], values_of(board[i][1])) for i in sim.flipping)


def plan(sim: DerbySim, board: tuple, hand: tuple[int, ...], on_turn: bool = True) -> Plan:
    """The planner's best split of ``hand`` (dice) over ``board`` (see ``_best_plan``)."""
    return _best_plan(layout(sim, board), tuple(sorted(d >> 3 for d in hand)), on_turn, sim.four)


def remember(memo: dict, key, value):
    if len(memo) > CACHE_LIMIT:
        memo.clear()
    memo[key] = value
    return value


class Placer:
    """Places a whole hand as one plan says, one die per call: the first call plans the
    hand and queues every placement, the next calls (the same hand, one die fewer) read
    the queue.  ``colours(seat, card, dice)`` orders equal-valued dice for a card."""

    def __init__(self, colours: Callable[[int, int | None, list[int]], list[int]] | None = None) -> None:
        self.queue: dict = {}
        self.colours = colours

    def move(self, sim: DerbySim, state: SimState) -> tuple:
        seat = state.actor
        key = (sim, state.stage == "assign", seat, state.boards[seat], state.pending)
        queued = self.queue.get(key)
        if queued is None:
            self._plan(sim, state)
            queued = self.queue[key]
        return queued

    def _plan(self, sim: DerbySim, state: SimState) -> None:
        seat, board, hand = state.actor, state.boards[state.actor], list(state.pending)
        on_turn = state.stage == "assign"
        found = plan(sim, board, state.pending, on_turn)
        stove = next(i for i, c in enumerate(sim.cards) if not c.flips)
        order = []
        for card, values in found.adds:
            for value in values:
                same = [d for d in hand if d >> 3 == value]
                if self.colours is not None and len(same) > 1:
                    same = self.colours(seat, card if card == found.best_card else None, same)
                hand.remove(same[0])
                order.append((same[0], card))
        order += [(d, stove) for d in hand]
        pending = state.pending
        if len(self.queue) > CACHE_LIMIT:
            self.queue.clear()
        for d, card in order:
            self.queue[(sim, on_turn, seat, board, pending)] = ("place", d, card)
            side, dice = board[card]
            board = board[:card] + ((side, tuple(sorted(dice + (d,)))),) + board[card + 1:]
            pending = _drop(pending, d)


def _drop(dice: tuple[int, ...], d: int) -> tuple[int, ...]:
    i = dice.index(d)
    return dice[:i] + dice[i + 1:]


def _with_die(board: tuple, card: int, d: int) -> tuple:
    side, dice = board[card]
    return board[:card] + ((side, tuple(sorted(dice + (d,)))),) + board[card + 1:]


def reroll_candidates(sim: DerbySim, state: SimState, move: tuple) -> tuple[tuple, tuple[int, ...], int]:
    """What a re-roll leaves: the board after it, the colours rolled, the Stove dice kept."""
    after = sim.apply(state, move)
    board = after.boards[state.actor]
    stove = sum(len(board[i][1]) for i in range(sim.card_count) if not sim.cards[i].flips)
    return board, after.reroll, stove


def random_policy(sim: DerbySim, state: SimState, rng: random.Random) -> tuple:
    return rng.choice(sim.legal_moves(state))


_GREEDY_PLACER = Placer()


def greedy(sim: DerbySim, state: SimState, rng: random.Random) -> tuple:
    moves = sim.legal_moves(state)
    stage, board = state.stage, state.boards[state.actor]
    if stage == "choose_reroll":
        stove = next(i for i, c in enumerate(sim.cards) if not c.flips)
        if board[stove][1]:
            return ("reroll_card", stove)
        return min((m for m in moves if m[0] == "reroll_card"), key=lambda m: len(board[m[1]][1]))
    if stage in PLACING:
        return _GREEDY_PLACER.move(sim, state)
    if stage == "activate" and moves[0][0] == "activate":
        return max(moves, key=lambda m: (sim.side(state, state.actor, m[1]).action != "reassign",
                                         len(board[m[1]][1])))
    return moves[0]


_PREVIOUS_PLACER = Placer()
_OUTLOOKS: dict = {}


def previous(sim: DerbySim, state: SimState, rng: random.Random) -> tuple:
    """The advice before issue 20: the first of the best-rated legal moves.  Its hands are
    placed as its plan says (the move it rated first has that plan's rating)."""
    if state.stage in PLACING:
        return _PREVIOUS_PLACER.move(sim, state)
    moves = sim.legal_moves(state)
    if len(moves) == 1:
        return moves[0]
    rate = _PREVIOUS[moves[0][0]]
    best, best_key = moves[0], None
    for move in moves:
        key = rate(sim, state, move, rng)
        if best_key is None or key > best_key:
            best, best_key = move, key
    return best


def _previous_place(sim, state, move, rng):
    _, d, card = move
    board = _with_die(state.boards[state.actor], card, d)
    rest = list(state.pending)
    rest.remove(d)
    on_turn = state.stage == "assign"
    return plan(sim, board, tuple(rest), on_turn).key(on_turn)


def sampled_outlook(sim: DerbySim, board: tuple, rolled: int, samples: int = PREVIOUS_SAMPLES) -> tuple[float, float, float]:
    """For ``rolled`` dice rolled onto ``board``: over ``samples`` sample rolls (seeded by the
    position, remembered), the planner's mean dice given away now, ready for next turn, and
    how often every die on the cards goes on the card activated."""
    cards = layout(sim, board)
    key = (cards, rolled, samples)
    found = _OUTLOOKS.get(key)
    if found is None:
        rng = random.Random(f"{[(i, side.key, values) for i, side, values in cards]}|{rolled}")
        held = sum(len(values) for _, _, values in cards) + rolled
        now = ready = cleared = 0
        for _ in range(samples):
            sample = plan(sim, board, tuple(rng.randint(1, 6) * 8 for _ in range(rolled)))
            now, ready, cleared = now + sample.now, ready + sample.ready, cleared + (sample.now == held)
        found = remember(_OUTLOOKS, key, (now / samples, ready / samples, cleared / samples))
    return found


def _previous_reroll(sim, state, move, rng):
    """Dice given away now plus half those ready, over 16 sample rolls."""
    board, rolled, _ = reroll_candidates(sim, state, move)
    now, ready, _ = sampled_outlook(sim, board, len(rolled))
    return round(now + ready / 2, 6), len(rolled)


def _previous_activate(sim, state, move, rng):
    seat, card = state.turn_seat, move[1]
    board = state.boards[seat]
    given = len(board[card][1]) if sim.side(state, seat, card).action in ("distribute", "give") else 0
    waiting = sum(len(board[i][1]) for i in sim.flipping if i != card)
    return given, waiting


def _previous_hand(sim, state, move, rng):
    d, target, mine = move[1], sim.target(state), state.turn_seat
    colour = d & 7
    if target is None:
        return (1 if colour == mine else 2 if colour == NEUTRAL else 3), 0
    if colour == target:
        return 0, 0
    board = state.boards[target]
    before = plan(sim, board, ()).now
    helps = max(plan(sim, _with_die(board, i, d), ()).now for i in range(sim.card_count)
                if sim.fits(sim.side(state, target, i), values_of(board[i][1]), d >> 3)) - before
    return (3 if colour == mine else 2 if colour == NEUTRAL else 1), -helps


def _previous_give(sim, state, move, rng):
    seat = move[1]
    return sum(d & 7 != seat for d in state.outgoing), -sim.dice_on_cards(state, seat)


def _previous_set_side(sim, state, move, rng):
    board, pending = state.boards[state.actor], state.pending
    if move[0] == "set_side":
        _, card, side = move
        pending = tuple(sorted(pending + board[card][1]))
        board = board[:card] + ((side, ()),) + board[card + 1:]
    return (*plan(sim, board, pending, on_turn=False).key(False), move[0] == "keep_sides")


def _previous_lift(sim, state, move, rng):
    if move[0] == "done_lifting":
        return (1,)
    _, card, d = move
    if sim.cards[card].flips:
        return (0,)
    for i, (side_index, dice) in enumerate(state.boards[state.actor]):
        side = sim.cards[i].sides[side_index]
        values = values_of(dice)
        grown = tuple(sorted(values + (d >> 3,)))
        if dice and side.action != "none" and sim.fits(side, values, d >> 3) \
                and best_activation(side, grown, (), sim.four) > best_activation(side, values, (), sim.four):
            return (2,)
    return (0,)


_PREVIOUS = {"place": _previous_place, "reroll_card": _previous_reroll, "reroll_colour": _previous_reroll,
             "activate": _previous_activate, "hand": _previous_hand, "give": _previous_give,
             "keep_sides": _previous_set_side, "lift": _previous_lift, "done_lifting": _previous_lift}


def play(sim: DerbySim, seed: int, policies: list[Policy] | tuple[Policy, ...]) -> SimState:
    """One whole game, seat ``s`` played by ``policies[s]``: the dice come from ``seed``, the
    policies' own random choices from a second generator, so that whoever sits where, the
    same seed rolls the same dice as long as the same dice are rolled.  Returns the final state."""
    dice, choices = random.Random(seed), random.Random(f"choices:{seed}")
    randint, apply = dice.randint, sim.apply
    state = sim.new_game()
    while state.stage != "over":
        if state.stage in ("roll", "setup_roll"):
            state = sim.roll(state, [randint(1, 6) for _ in state.reroll])
        else:
            state = apply(state, policies[state.actor](sim, state, choices))
    return state
