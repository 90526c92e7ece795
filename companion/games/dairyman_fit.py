"""Fit what the Dairyman advice counts tokens and tiles as worth beyond the turn.

The advice plays games against itself on the compact simulator; turn starts are taken
from those games, per stage of the game (tiles left in the stack).  Whole games played
twice from one start differ too much to show a token's worth, so each thing is valued by
what it does to one turn (the turn played twice with the same dice, with and without it)
and by how long it stays, both measured:

- freeze token: the turn's points (tiles claimed, or a backorder token's worth) plus the
  tokens left at the end at the same worth; the worth is the fixed point of "one more
  token adds this much", found by a few rounds;
- backorder token: -5 for each token still held at the end of the game (the share of
  tokens taken in the stage that no spoilage returns).  The extra red die it brings is
  measured too (its gain per turn and the turns a token is held) but not counted: most of
  what one more die claims in a turn is tiles the other players would have claimed, which
  one turn cannot show, and counting it makes a failure look like a gain;
- ice cream ability: its gain per turn times the player's turns still to come;
- spoil share: the share of a face-up milk tile's value that spoilage takes by the end.

``write_values`` ships the result as ``dairyman_values.toml``;
``python -m companion.games.dairyman_fit`` refits.
"""
from __future__ import annotations

import random
import statistics
import sys
import tomllib
from dataclasses import replace

from companion.games import dairyman_advice as dm
from companion.games import dairyman_sim as sim

ROUNDS = 3
"""Rounds of the freeze token's fixed point (it settles within a tenth of a point)."""


def _stage_of(stack_left: int) -> int:
    return next(at_least for at_least, _ in dm.STAGES if stack_left >= at_least)


def self_play(games: int, seed: int) -> dict:
    """Turn starts of ``games`` self-play games (2, 3 and 4 players in turn) by stage, and the
    counts behind the backorder, ability and spoilage figures."""
    starts: dict[int, list] = {at: [] for at, _ in dm.STAGES}
    milk: list = []
    backorders: list = []          # (stage taken, own turns held, held at the end)
    turns_to_come: dict[int, list] = {at: [] for at, _ in dm.STAGES}
    for game in range(games):
        players = 2 + game % 3
        policies = [sim.AdvicePolicy() for _ in range(players)]
        state = sim.new_game(players, seed + game)
        rng = random.Random(seed + game)
        held, active, own_starts = [], [[] for _ in range(players)], []
        while state.phase != sim.OVER:
            if state.pending is not None:
                if state.roll_no == 1 and not state.pending[0] and not state.sets_locked:
                    me, stage = state.current, _stage_of(len(state.stack))
                    starts[stage].append(state)
                    own_starts.append((stage, me))
                    held.extend((stage, me, t) for t in state.owned[me] if t not in state.flipped)
                    for record in active[me]:
                        record[1] += 1
                state = sim.apply_roll(state, sim.draw(state, rng))
                continue
            before = state
            state = sim.apply(state, policies[state.current](state, rng))
            if state.shuffles != before.shuffles:                 # spoilage: every token returns
                for records in active:
                    backorders.extend((stage, turns, False) for stage, turns in records)
                    records.clear()
            elif sum(state.backorders) > sum(before.backorders):
                active[before.current].append([_stage_of(len(before.stack)), 0])
        for records in active:
            backorders.extend((stage, turns, True) for stage, turns in records)
        milk.extend((stage, state.tiles.value[t], t not in state.owned[me]) for stage, me, t in held)
        for n, (stage, me) in enumerate(own_starts):
            turns_to_come[stage].append(sum(1 for _, who in own_starts[n + 1:] if who == me))
    return {"starts": starts, "milk": milk, "backorders": backorders, "turns_to_come": turns_to_come}


def _turn_worth(state: sim.SimState, dice_seed: int, token: float) -> float:
    """Play the current player's turn with the advice: what it claims (or a backorder's worth
    if it fails) plus ``token`` per freeze token held at its end."""
    me, policy = state.current, sim.AdvicePolicy()
    rng = random.Random(dice_seed)
    backorder = dm.stage_at(len(state.stack)).backorder
    start_tiles, turns = len(state.owned[me]), state.turns
    while state.turns == turns and state.phase != sim.OVER:
        if state.pending is not None:
            state = sim.apply_roll(state, sim.draw(state, rng))
        else:
            state = sim.apply(state, policy(state, rng))
    claimed = sum(state.tiles.value[t] for t in state.owned[me][start_tiles:])
    return (claimed or backorder) + token * state.freeze[me]       # a turn claims or fails


def _one_more(state: sim.SimState, thing: str) -> sim.SimState | None:
    me = state.current
    if thing == "freeze_token" and state.freeze_total > sum(state.freeze):
        return state.with_(freeze=tuple(n + (i == me) for i, n in enumerate(state.freeze)))
    if thing == "red_die" and state.reds < sim.RED_MAX:
        reds = state.reds + 1
        return state.with_(reds=reds, pending=((), sim.starting_colours(reds)))
    ice = [t for t in state.owned[me] if not state.tiles.cheese[t] and t not in state.flipped]
    if thing == "ice_cream_ability" and ice:
        return state.with_(flipped=state.flipped | {ice[0]})
    return None


def turn_gain(starts: list, thing: str, token: float, seed: int) -> float:
    """Mean gain of one turn from holding one more ``thing`` (the same dice both times)."""
    gains = []
    for n, state in enumerate(starts):
        other = _one_more(state, thing)
        if other is not None:
            dice = seed * 1_000_003 + n
            gains.append(_turn_worth(other, dice, token) - _turn_worth(state, dice, token))
    return statistics.fmean(gains) if gains else 0.0


def _use_stage(at_least: int, **values: float) -> None:
    """Make the advice count the stage starting at ``at_least`` with these worths."""
    dm.STAGES = tuple((at, replace(stage, **values) if at == at_least else stage) for at, stage in dm.STAGES)
    dm.turn_values.cache_clear()


def fit(starts_per_stage: int = 1500, games: int = 600, seed: int = 0) -> dict:
    """Fit every stage from ``starts_per_stage`` turn starts drawn from ``games`` self-play games.

    Each stage's worths are used for the stages fitted after it; the advice's worths are put
    back as they were at the end (``write_values`` ships the result)."""
    shipped = dm.STAGES
    try:
        return _fit(starts_per_stage, games, seed)
    finally:
        dm.STAGES = shipped
        dm.turn_values.cache_clear()


def _fit(starts_per_stage: int, games: int, seed: int) -> dict:
    played = self_play(games, seed)
    rng = random.Random(seed)
    stages = []
    for at_least, current in dm.STAGES:
        pool = played["starts"][at_least]
        chosen = rng.sample(pool, min(starts_per_stage, len(pool)))
        token = current.freeze_token
        for _ in range(ROUNDS):
            token = round(max(0.0, turn_gain(chosen, "freeze_token", token, seed)), 2)
            _use_stage(at_least, freeze_token=token)
        to_come = statistics.fmean(played["turns_to_come"][at_least] or [0])
        red = turn_gain(chosen, "red_die", token, seed)
        taken = [(turns, at_end) for stage, turns, at_end in played["backorders"] if stage == at_least]
        held_share = sum(at_end for _, at_end in taken) / max(1, len(taken))
        held_turns = statistics.fmean([turns for turns, _ in taken] or [0])
        ability = turn_gain(chosen, "ice_cream_ability", token, seed)
        lost = [(value, gone) for stage, value, gone in played["milk"] if stage == at_least]
        row = {"stack_at_least": at_least, "freeze_token": token,
               "backorder": round(-dm.BACKORDER_PENALTY * held_share, 2),
               "spoil_share": round(sum(v for v, gone in lost if gone) / max(1, sum(v for v, _ in lost)), 3),
               "ice_cream_ability": round(max(0.0, ability) * to_come, 2),
               "turn_starts": len(chosen), "backorders_held_at_end": round(held_share, 3),
               "red_die_per_turn": round(red, 2), "turns_backorder_held": round(held_turns, 2),
               "ability_per_turn": round(ability, 2),
               "own_turns_to_come": round(to_come, 2)}
        _use_stage(at_least, freeze_token=token, backorder=row["backorder"], spoil_share=row["spoil_share"],
                   ice_cream_ability=row["ice_cream_ability"])
        stages.append(row)
    return {"starts_per_stage": starts_per_stage, "games": games, "seed": seed, "stages": stages}


def write_values(result: dict) -> None:
    """Rewrite ``dairyman_values.toml`` with fitted stages, keeping its [standings]."""
    standings = dm.VALUES["standings"]
    details = ("turn_starts", "backorders_held_at_end", "red_die_per_turn", "turns_backorder_held",
               "ability_per_turn", "own_turns_to_come")
    lines = [
        "# What the Dairyman advice counts things as worth beyond the turn, in end-of-game points.",
        "# Written by companion.games.dairyman_fit.write_values (see [fit]); edit by re-fitting.",
        "",
        "[fit]",
        ('method = "self-play of the advice on the compact simulator (2, 3 and 4 players in turn); per stage, '
         'turns played twice with the same dice with and without one more token, red die or ability; see '
         'companion/games/dairyman_fit.py"'),
        f"games = {result['games']}",
        f"starts_per_stage = {result['starts_per_stage']}",
        "",
        "# One row per stage of the game, by tiles left in the stack at the start of a turn (the",
        "# first row whose stack_at_least the stack reaches applies).",
        "#   freeze_token: what one more freeze token in hand adds to a player's final score",
        "#   backorder: what one backorder token held costs (the -5 at the end, less what a",
        "#              spoilage return and the extra red die give back)",
        "#   spoil_share: the share of a face-up milk tile's value that spoilage takes on average",
        "#   ice_cream_ability: what owning one more ice cream re-roll ability adds",
        "# The other figures are what the fit measured on the way (see dairyman_fit.py).",
    ]
    for stage in result["stages"]:
        lines += ["", "[[stage]]"] + [f"{key} = {stage[key]}" for key in
                                      ("stack_at_least", "freeze_token", "backorder", "spoil_share",
                                       "ice_cream_ability", *details)]
    lines += ["", "[standings]",
              "# A player's taste for risk is -lead / spread**2 (a player behind gambles, a player ahead",
              "# banks), kept within +-max_risk; spread**2 = turn_spread**2 + tile_spread**2 * tiles left",
              "# per player.  Chosen by hand, not fitted; the tournaments (docs/benchmarks.md) measure the advice with them.",
              *(f"{key} = {standings[key]}" for key in ("turn_spread", "tile_spread", "max_risk")),
              "# A claim that ends the game is worth this much more when it leaves the player first",
              "# (half when it ties for first) and this much less when it does not.",
              f"game_end = {standings['game_end']}", ""]
    text = "\n".join(lines)
    tomllib.loads(text)
    dm.VALUES_FILE.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    outcome = fit(*(int(a) for a in sys.argv[1:]))
    print(outcome)
    write_values(outcome)
