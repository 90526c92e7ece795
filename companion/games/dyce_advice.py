"""Advice for DYCE's player round.

For a plan of one or two actions the advice plays the barons forward on the city as it would
stand (nobody else acting): this baron round and ``rounds_ahead`` more, with the very
functions the engine moves and trades with (``dyce.baron_turn``).  The market's known dice
are exact; a die drawn during the forecast stays unknown until it becomes the first die of a
line, and then counts with its exact draw probabilities: every die not seen in the market is
equally likely to be it (the bag and the unseen drawn dice together), each colour in
proportion, each of its three faces a third.

The figures of a plan are the expected change of its player's score parts (pounds, whiskies
in hand at 3, VPs at 6) from now to the end of the forecast, action costs included.  Its
reason names the first trade a baron will make at the player's shops.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from companion.engine import Move, Suggestion
from companion.games.dyce import (
    ACTION_KINDS,
    DATA,
    STOP_KINDS,
    BaronReport,
    DyceState,
    Rules,
    Table,
    baron_turn,
    new_die_line,
    parse_space,
    space_name,
)

ADVICE = DATA["advice"]
UNKNOWN = ("?", 0)
"""A die drawn during a forecast, not yet known."""

PARTS = ("pounds", "whiskies", "VPs")


@dataclass
class Forecast:
    """The expected score parts of every seat at the forecast's end, the chance that the
    game ends within it, and the barons' reports while the future is certain."""

    parts: list[dict[str, float]]
    sold: list[dict[str, float]]
    ends: float = 0.0
    reports: list[tuple[int, BaronReport]] = field(default_factory=list)    # (round offset, report)


def _reveal(rules: Rules, table: Table) -> list[tuple[str, int, float]]:
    """The colour, value and probability of an unknown die: every die not seen in the
    market is equally likely, a die's three turned faces each a third."""
    unseen = Counter({c: n for c, n in rules.dice.items() if c in rules.whiskies})
    unseen.subtract(c for line in table.market for c, _ in line if c != "?")
    total = sum(n for n in unseen.values() if n > 0)
    low, high = DATA["market"]["natural_values"], DATA["market"]["blended_values"]
    outcomes = []
    for colour, n in sorted(unseen.items()):
        if n > 0:
            first, last = (low if colour in rules.natural else high)
            values = range(first, last + 1)
            outcomes += [(colour, v, n / total / len(values)) for v in values]
    return outcomes


def forecast(state: DyceState, rounds_ahead: int | None = None) -> Forecast:
    """Play the barons forward from ``state``'s city, the player round ending now."""
    rounds = ADVICE["rounds_ahead"] if rounds_ahead is None else rounds_ahead
    count = len(state.players)
    result = Forecast([dict.fromkeys(PARTS, 0.0) for _ in range(count)], [{} for _ in range(count)])
    trace: list[tuple[int, BaronReport]] | None = result.reports
    rules = state.rules

    def play(table: Table, first: int, offset: int, white: int, weight: float, traced: bool) -> None:
        for baron in range(first, len(rules.barons)):
            if table.market[baron][0] == UNKNOWN:
                for colour, value, p in _reveal(rules, table):
                    branch = table.copy()
                    branch.market[baron][0] = (colour, value)
                    play(branch, baron, offset, white, weight * p, False)
                return
            report = baron_turn(rules, table, baron, state.solo)
            if traced:
                trace.append((offset, report))
            if report.returns_die:
                table.market[new_die_line(rules, baron)].append(UNKNOWN)
        over = False
        if table.blended_returned:
            over = white >= rules.white_top
            white += 0 if over else 1
            table.blended_returned = False
        if over or offset >= rounds:
            result.ends += weight * over
            for seat in range(count):
                for part, value in table.score_parts(rules, seat).items():
                    result.parts[seat][part] += weight * value
                for kind in table.sold[seat]:
                    result.sold[seat][kind] = result.sold[seat].get(kind, 0.0) + weight
            return
        play(table, 0, offset + 1, white, weight, traced)

    first = state.baron_next if state.stage == "draw" else 0
    table = state.table()
    if state.stage == "draw":
        table.market[new_die_line(rules, state.baron_next)].append(UNKNOWN)
        first += 1
    play(table, first, 0, state.white, 1.0, True)
    return result


@dataclass(frozen=True)
class PlanValue:
    """A plan of one or two moves with its expected figures for the player who makes it."""

    moves: tuple[Move, ...]
    value: float
    pounds: float
    whiskies: float
    vps: float
    forecast: Forecast

    def key(self) -> float:
        return self.value


def _value(before: DyceState, after: DyceState, moves: tuple[Move, ...], extra_pounds: int = 0) -> PlanValue:
    seat = before.turn_seat
    now = before.table().score_parts(before.rules, seat)
    seen = forecast(after)
    parts = seen.parts[seat]
    gains = {p: parts[p] - now[p] for p in PARTS}
    gains["pounds"] += extra_pounds
    value = sum(gains.values())
    if before.solo:
        new = [k for k in before.rules.blended if k not in before.sold[seat]]
        value += ADVICE["solo_new_kind"] * sum(seen.sold[seat].get(k, 0.0) for k in new)
    return PlanValue(moves, round(value, 6), gains["pounds"], gains["whiskies"] / before.rules.score["whisky_in_hand"],
                     gains["VPs"] / before.rules.score["vp"], seen)


def relevant_colours(state: DyceState) -> frozenset[str]:
    """The whiskies a baron may target within the forecast: with new dice at the end of the
    same line, the first ``rounds_ahead + 1`` dice of each line (a drawn die cannot come
    first that soon); otherwise every whisky."""
    rules, depth = state.rules, ADVICE["rounds_ahead"] + 1
    if rules.new_die_place != "baron_line" or depth > rules.line_length:
        return frozenset(rules.whiskies)
    return frozenset(c for line in state.market for c, _ in line[:depth])


def _unnoticed(state: DyceState, move: Move, relevant: frozenset[str]) -> int | None:
    """The score change of a move no baron can notice within the forecast (a shop with no
    whisky, a pound on a shop no baron will want, a whisky no baron will want on a shop
    whose whisky no baron wants either); None for a move a baron may notice."""
    if move.kind == "shop":
        return -state.rules.shop_cost
    if move.kind not in ("pound", "whisky"):
        return None
    shop = state.shop_at(parse_space(state.rules, move["space"]))
    if move.kind == "pound":
        if shop[2] in relevant:
            return None
        return 0 if shop[1] == state.turn_seat else -1
    return 0 if move["colour"] not in relevant and shop[2] not in relevant else None


def rank_plans(state: DyceState) -> list[PlanValue]:
    """The player's plans for the rest of this turn, best first: every single legal move (a
    stop move is a plan of itself) and two-action plans: the best few single actions
    followed by one another or by an action on the same space, and a new shop stocked with
    a whisky a baron wants, on the free spaces nearest to that baron."""
    relevant = relevant_colours(state)
    base = _value(state, state, ())
    singles: list[PlanValue] = []
    for move in state.legal_moves():
        change = _unnoticed(state, move, relevant)
        if move.kind == "take_pound":
            change = state.rules.pass_pounds
        elif move.kind in STOP_KINDS:
            change = 0
        if change is not None:
            singles.append(replace(base, moves=(move,), value=base.value + change, pounds=base.pounds + change))
        else:
            singles.append(_value(state, state.apply(move), (move,)))
    plans = list(singles)
    if state.actions + 1 < state.rules.actions_per_turn:
        actions = sorted((p for p in singles if p.moves[0].kind in ACTION_KINDS and p.value != base.value
                          and p.moves[0].kind != "shop"), key=PlanValue.key, reverse=True)
        best = actions[:ADVICE["plan_width"]]
        wanted = {p.moves[0] for p in best}
        pairs = [(p.moves[0], second) for p in best for second in wanted if second != p.moves[0]]
        pairs += [(p.moves[0], Move.make("pound", space=p.moves[0]["space"])) for p in best]
        pairs += _new_shop_pairs(state)
        seen = set()
        for first, second in pairs:
            if (first, second) in seen:
                continue
            seen.add((first, second))
            after = state.apply(first)
            if second in after.legal_moves():
                plans.append(_value(state, after.apply(second), (first, second)))
    return sorted(plans, key=lambda p: (p.key() + _stop_bonus(state, p.moves[0])), reverse=True)


def _new_shop_pairs(state: DyceState) -> list[tuple[Move, Move]]:
    """A shop and then the whisky a baron's first die wants, on the free spaces it reaches first."""
    rules, seat = state.rules, state.turn_seat
    if not state.shops_in_hand[seat] or state.pounds[seat] < rules.shop_cost:
        return []
    taken = {s[0] for s in state.shops} | {b for b in state.barons if b is not None}
    free = [c for c in rules.spaces if c not in taken]
    pairs = []
    for baron, line in enumerate(state.market):
        colour = line[0][0]
        if state.supply(colour) <= 0:
            continue
        nearest = sorted(free, key=lambda c: (rules.steps(baron, state.barons[baron], c), c))
        for cell in nearest[:ADVICE["shop_spaces"]]:
            name = space_name(cell)
            pairs.append((Move.make("shop", space=name), Move.make("whisky", space=name, colour=colour)))
    return pairs


def _stop_bonus(state: DyceState, move: Move) -> float:
    """Stopping wins near-ties, and always once the player has had its turns this round."""
    if move.kind not in STOP_KINDS:
        return 0.0
    return float("inf") if state.turns[state.turn_seat] >= ADVICE["turns_per_round"] else ADVICE["min_gain"]


def _reason(state: DyceState, plan: PlanValue) -> str:
    seat, move = state.turn_seat, plan.moves[0]
    if move.kind == "pass":
        return "nothing gains enough now: put your seal on the castle"
    if move.kind == "take_pound":
        return f"take {state.rules.pass_pounds} pound: nothing else gains more"
    then = f"then {state.apply(move).describe(plan.moves[1])}: " if len(plan.moves) > 1 else ""
    for offset, report in plan.forecast.reports:
        if report.owner == seat and report.trade:
            when = "this round" if offset == 0 else "next round" if offset == 1 else f"in {offset} rounds"
            if not report.completed:
                return f"{then}the {report.baron} baron reaches your shop at {space_name(report.shop)} {when}, " \
                       f"but you could not trade: the shop would go back to your hand"
            pounds = f"{report.price} pound{'s' if report.price != 1 else ''}"
            deal = f"{report.trade} the {report.target} whisky for {pounds}"
            return f"{then}the {report.baron} baron reaches your shop at {space_name(report.shop)} {when}: " \
                   f"you {deal}"
    if move.kind == "end_turn":
        return "no further action gains more: end the turn"
    rounds = ADVICE["rounds_ahead"] + 1
    return f"{then}no baron reaches your shops within {rounds} rounds as the city would stand"


def _barons(state: DyceState, plan: PlanValue) -> list[dict]:
    """Each baron's predicted path (spaces, round by round), target and trade."""
    found: dict[str, dict] = {}
    for offset, report in plan.forecast.reports:
        entry = found.setdefault(report.baron, {"baron": report.baron, "path": [], "this_round": None, "trades": []})
        if report.end is not None and report.end != report.start:
            entry["path"].append(space_name(report.end))
        if offset == 0:
            entry["this_round"] = report.to_json(state.players)
        if report.trade:
            entry["trades"].append({"round": state.round + offset, "shop": space_name(report.shop),
                                    "owner": state.players[report.owner], "trade": report.trade,
                                    "completed": report.completed,
                                    "whisky": report.target, "price": report.price})
    return list(found.values())


def _suggestion(state: DyceState, plan: PlanValue) -> Suggestion:
    barons = _barons(state, plan)
    advice = {
        "expected_pounds": round(plan.pounds, 3), "expected_whiskies": round(plan.whiskies, 3),
        "expected_vp": round(plan.vps, 3), "expected_score": round(plan.value, 3),
        "plan": _plan_text(state, plan.moves),
        "barons": barons,
        "shops_reached": sorted({t["shop"] for b in barons for t in b["trades"]}),
        "game_ends_in_forecast": round(plan.forecast.ends, 3),
    }
    return Suggestion(plan.moves[0], state.describe(plan.moves[0]), advice, _reason(state, plan))


def _plan_text(state: DyceState, moves: tuple[Move, ...]) -> list[str]:
    texts = [state.describe(moves[0])]
    if len(moves) > 1:
        texts.append("then " + state.apply(moves[0]).describe(moves[1]))
    return texts


def _advise_cubes(state: DyceState) -> list[Suggestion]:
    """Start cubes: the natural most wanted by the market's first dice and their blends."""
    rules = state.rules
    wanted = Counter()
    for line in state.market:
        for place, (colour, _) in enumerate(line):
            weight = 1 / (place + 1)
            for natural in (rules.blends.get(colour) or ((colour,) if colour in rules.natural else ())):
                wanted[natural] += weight
    moves = sorted(state.legal_moves(), key=lambda m: -wanted[m.get("colour")])
    return [Suggestion(m, state.describe(m), {"demand": round(wanted[m.get("colour")], 3)},
                       f"{m.get('colour')} is wanted by the market's prices and blends"
                       if wanted[m.get("colour")] else "the market is not drawn yet: any cube serves")
            for m in moves]


def advise(state: DyceState) -> list[Suggestion]:
    """Every legal move, best first: a move's figures are those of the best plan it starts."""
    if state.is_terminal() or state.dice_to_roll() is not None:
        return []
    if state.stage == "cubes":
        return _advise_cubes(state)
    best: dict[Move, PlanValue] = {}
    for plan in rank_plans(state):
        best.setdefault(plan.moves[0], plan)
    return [_suggestion(state, plan) for plan in best.values()]


def best_move(state: DyceState) -> Move | None:
    """The first move of :func:`advise`, without building the suggestions' texts."""
    if state.is_terminal() or state.dice_to_roll() is not None:
        return None
    if state.stage == "cubes":
        return _advise_cubes(state)[0].move
    plans = rank_plans(state)
    return plans[0].moves[0] if plans else None
