"""Whirling Derby's advice, over the compact simulator's states.

It looks past the dice this turn gives away:

- a re-roll is rated by the dice the best card could then give away, those left ready on
  other complete cards, and the chance that it ends the game at once (every die on the card
  activated, none left on the Stove): over every possible roll of up to three dice, over
  16 sample rolls for more (:func:`reroll_outlook`, remembered per cards and dice rolled);
- choosing the card to activate, it adds what the cards left behind (the activated one
  turned to its other side) offer on the next turn (:func:`next_turn`);
- a die handed to another player may come back: a die of your own colour never can (it
  would bounce to the Compost), any other may when that player hands out the card it lands
  on.  Handing out, the advice weighs how much the die helps that player's best card (more
  the closer they are to winning) and the share of their next hand-out that reaches you
  (:func:`comes_back`); giving two dice, it burdens the player closest to winning;
- a hand is placed as one plan (the most dice given away now, then those ready), with your
  own colour on the card you activate, so that what leaves you cannot come back.

:func:`policy` is the tournament player; :func:`rate` rates one legal move with the figures
the engine's suggestions show (:func:`companion.games.whirling_derby.advise`).
"""
from __future__ import annotations

import random
from functools import cache

from companion.games.whirling_derby_policies import (
    _OUTLOOKS,
    Placer,
    _previous_lift,
    _with_die,
    layout,
    plan,
    remember,
    reroll_candidates,
    sampled_outlook,
)
from companion.games.whirling_derby_sim import NEUTRAL, PLACING, DerbySim, SimState, values_of

WIN_WEIGHT = 12.0
"""A re-roll's chance to end the game now, in dice given away."""
READY_WEIGHT = 0.5
"""A die on a second complete card, ready for the next turn, against one given away now."""
LOOK_AHEAD = 1.0
"""The next turn's best re-roll rating, when choosing the card to activate, against a die given now."""
RETURN_WEIGHT = 1.0
"""A handed-out die's chance to come back, in dice (1: it comes back for sure)."""


EXACT_UP_TO = 3
"""Re-rolls of at most this many dice are rated over every possible roll; larger ones over
LARGE_SAMPLES sample rolls (:func:`~companion.games.whirling_derby_policies.sampled_outlook`)."""
LARGE_SAMPLES = 16
"""Sample rolls behind the rating of a larger re-roll."""
_EXACT: dict = {}


@cache
def _rolls(count: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every roll of ``count`` dice as sorted values, with its probability."""
    rolls = [((), 1.0)]
    for _ in range(count):
        rolls = [(values + (v,), p / 6) for values, p in rolls for v in range(1, 7)]
    merged: dict = {}
    for values, p in rolls:
        key = tuple(sorted(values))
        merged[key] = merged.get(key, 0.0) + p
    return tuple(merged.items())


def reroll_outlook(sim: DerbySim, board: tuple, rolled: int, stove_kept: int) -> tuple[float, float, float]:
    """Expected dice given away now, ready for the next turn, and the chance to win now
    (every die on the card activated, none left on the Stove) for ``rolled`` dice rolled
    onto ``board``: exact for small re-rolls, sampled for larger ones."""
    if rolled > EXACT_UP_TO:
        now, ready, cleared = sampled_outlook(sim, board, rolled, LARGE_SAMPLES)
    else:
        key = (layout(sim, board), rolled)
        found = _EXACT.get(key)
        if found is None:
            held = sum(len(dice) for _, dice in board) - sum(
                len(board[i][1]) for i in range(sim.card_count) if i not in sim.flipping) + rolled
            now = ready = cleared = 0.0
            for values, p in _rolls(rolled):
                sample = plan(sim, board, tuple(v * 8 for v in values))
                now, ready, cleared = now + p * sample.now, ready + p * sample.ready, cleared + p * (sample.now == held)
            found = remember(_EXACT, key, (now, ready, cleared))
        now, ready, cleared = found
    return now, ready, 0.0 if stove_kept else cleared


def next_turn(sim: DerbySim, board: tuple) -> float:
    """The rating of the best re-roll of one card that ``board`` offers its owner next turn (dice given
    away now, ready, the chance to win; dice received in between left out)."""
    stove = next(i for i, c in enumerate(sim.cards) if not c.flips)
    best = 0.0
    for i, (side, dice) in enumerate(board):
        if dice:
            after = board[:i] + ((side, ()),) + board[i + 1:]
            kept = 0 if i == stove else len(board[stove][1])
            now, ready, win = reroll_outlook(sim, after, len(dice), kept)
            best = max(best, now + READY_WEIGHT * ready + WIN_WEIGHT * win)
    return best


def comes_back(sim: DerbySim, state: SimState, d: int, target: int) -> tuple[int, float]:
    """How much die ``d`` handed to ``target`` helps them (dice added to their best card)
    and its chance to come back to the turn player on their next hand-out."""
    board = state.boards[target]
    before = plan(sim, board, ()).now
    grown = max((plan(sim, _with_die(board, i, d), ()).now for i in range(sim.card_count)
                 if sim.fits(sim.side(state, target, i), values_of(board[i][1]), d >> 3)), default=before)
    helps = grown - before
    if d & 7 == state.turn_seat:
        return helps, 0.0
    size = max(grown, 2)
    offset = (state.turn_seat - target) % sim.players
    reaching = len(range(offset, size, sim.players))      # hand-out steps 1.. size-1 that land on you
    return helps, reaching / size * (1.0 if helps > 0 else 0.3)


def _colour_rank(state: SimState, d: int) -> int:
    """Your own colour first, then neutral dice, then other players' colours."""
    colour = d & 7
    return 2 if colour == state.turn_seat else 1 if colour == NEUTRAL else 0


def _own_first(seat: int, card: int | None, dice: list[int]) -> list[int]:
    return sorted(dice, key=lambda d: d & 7 != seat) if card is not None else sorted(dice, key=lambda d: d & 7 == seat)


_PLACER = Placer(_own_first)


def rate(sim: DerbySim, state: SimState, move: tuple) -> tuple[tuple, dict]:
    """The advice's rating of one legal move (higher is better) and its figures."""
    kind, seat = move[0], state.actor
    if kind in ("reroll_card", "reroll_colour"):
        board, rolled, stove = reroll_candidates(sim, state, move)
        now, ready, win = reroll_outlook(sim, board, len(rolled), stove)
        value = now + READY_WEIGHT * ready + WIN_WEIGHT * win
        return (round(value, 6), len(rolled)), {"expected_give_now": round(now, 2), "expected_give_next": round(ready, 2),
                                                "win_chance": round(win, 3), "rolled": len(rolled)}
    if kind == "place":
        _, d, card = move
        rest = list(state.pending)
        rest.remove(d)
        on_turn = state.stage == "assign"
        found = plan(sim, _with_die(state.boards[seat], card, d), tuple(rest), on_turn)
        chosen = _PLACER.move(sim, state) == move
        figures = {"give_now": found.now, "give_next": found.ready, "can_act": found.can_act,
                   "best_card": found.best_card} if on_turn else \
            {"give_now": 0, "give_next": found.now + found.ready, "best_next": found.now, "best_card": found.best_card}
        return (*found.key(on_turn), chosen), figures
    if kind == "activate":
        card = move[1]
        board = state.boards[seat]
        side = sim.side(state, seat, card)
        given = len(board[card][1]) if side.action in ("distribute", "give") else 0
        wins = given > 0 and given == sim.dice_on_cards(state, seat)
        waiting = sum(len(board[i][1]) for i in sim.flipping if i != card)
        if wins or not given:
            return (wins, given, 0.0, waiting), {"give_now": given, "give_next": waiting, "wins": wins}
        flipped = (board[card][0] + 1) % len(sim.cards[card].sides)
        after = board[:card] + ((flipped, ()),) + board[card + 1:]
        later = next_turn(sim, after)
        return (False, round(given + LOOK_AHEAD * later, 6), given, waiting), \
            {"give_now": given, "give_next": waiting, "wins": False, "next_turn": round(later, 2)}
    if kind == "hand":
        d, target = move[1], sim.target(state)
        if target is None:
            return (1, -_colour_rank(state, d), 0.0), {"to": None}
        if d & 7 == target:
            return (0, 0, 0.0), {"to": target, "bounces": True}
        helps, back = comes_back(sim, state, d, target)
        urgency = 1.0 + 4.0 / max(sim.dice_on_cards(state, target), 1)
        cost = helps * urgency + RETURN_WEIGHT * back
        return (1, -round(cost, 6), _colour_rank(state, d)), {"to": target, "helps_them": helps,
                                                              "comes_back": round(back, 2)}
    if kind == "give":
        to = move[1]
        kept = sum(d & 7 != to for d in state.outgoing)
        left = sim.dice_on_cards(state, to)
        return (kept, -left), {"received": kept, "their_dice": left}
    if kind in ("keep_sides", "set_side"):
        board, pending = state.boards[seat], state.pending
        if kind == "set_side":
            _, card, side = move
            pending = tuple(sorted(pending + board[card][1]))
            board = board[:card] + ((side, ()),) + board[card + 1:]
        found = plan(sim, board, pending, on_turn=False)
        return (*found.key(False), kind == "keep_sides"), {"give_next": found.now + found.ready,
                                                           "best_next": found.now, "best_card": found.best_card}
    if kind in ("lift", "done_lifting"):
        key = _previous_lift(sim, state, move, None)
        return key, {"rank": key[0]}
    return (0,), {}


def policy(sim: DerbySim, state: SimState, rng: random.Random | None = None) -> tuple:
    """The advice's move: the first of the best-rated legal moves (a hand: as one plan)."""
    if state.stage in PLACING:
        return _PLACER.move(sim, state)
    moves = sim.legal_moves(state)
    if len(moves) == 1:
        return moves[0]
    return max(moves, key=lambda m: rate(sim, state, m)[0])


def forget() -> None:
    """Empty the memos that grow with every position seen."""
    _OUTLOOKS.clear()
    _EXACT.clear()
    _PLACER.queue.clear()

