"""Advice for Dicey Farm: this round searched, the rounds after estimated.

A round plan places every die of the farmer's hand (dice that come back included) and ends the
round.  The search is a beam over die placements, on working copies of the farm with the very
functions the engine plays moves with: at each depth every die in hand may go to every action the
rules accept (each parameter: which merchant, craftsman, facility, tourism VP, animal, new face),
duplicates (the same farm reached in another order) are merged, and the best farms go on:
``search_width`` of them when the simulation asks for a move (a few ms a decision), the wider
``advise_width`` when a person asks (``advise``).  The beam is not exhaustive: a full search of a
four-dice round takes seconds to minutes in Python, and a wider beam gained little in tests.  A half-done action (sowing, a shipment, the bread oven, recruit) is completed step by
step by the best next step, "stop" included.  Once the hand is empty the plan feeds the farmer
(cooking pairs of ingredients first, then single ones; perishables before wheat), uses horse
shipping if it helps, and ends the round.

A farm is valued by its score so far plus a heuristic of the rounds left (weights in the TOML's
``[advice]``): what its animals, sown fields, seeds, stock, craftsmen and facilities are worth per
round still to play, and the end-game craftsmen's hopes.  Mid-round, dice still in hand count by
face.  ``expected_vp`` is the value of the best plan found through a move; the plan is followed
move by move (remembered along its way) until the farm leaves it.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from companion.engine import Move, Suggestion
from companion.games.dicey_farm import (
    ANIMALS,
    CRAFTSMAN,
    DATA,
    INGREDIENTS,
    PERISHABLE,
    ROUNDS,
    SEEDS,
    Farm,
    FarmState,
    Turn,
    count_text,
    describe_move,
    die_moves,
    end_round,
    final_parts,
    free_problem,
    mv,
    name_of,
    play_move,
    step_moves,
    upkeep_for,
)

ADVICE = DATA["advice"]
UNIT: dict[str, float] = dict(ADVICE["unit"])
DIE_VALUE: tuple[float, ...] = tuple(ADVICE["die_value"])
CRAFTSMAN_ROUND: dict[str, float] = dict(ADVICE["craftsman_round"])
FACILITY_ROUND: dict[str, float] = dict(ADVICE["facility_round"])
SMOKED = tuple(DATA["rounds"]["smoked"])
CROP_SHARE = float(ADVICE["crop_share"])
CROPS = {seed: (info["crop"], int(info["crops"])) for seed, info in DATA["harvest"].items()}
PIG_VALUE = float(ADVICE["pig_value"])
HORSE_ROUND = float(ADVICE["horse_round"])
ROW_SHARE = float(ADVICE["row_share"])
BOOSTED: dict[str, float] = dict(ADVICE["boosted_unit"])
TOURISM_A_ROUND = int(ADVICE["tourism_a_round"])
FIELDS_A_ROUND = int(ADVICE["fields_a_round"])
SCORING = DATA["scoring"]
FIELD_VALUE = float(ADVICE["field_value"])
COOK_FOOD = int(DATA["kitchen"]["cook_food"])
CONVERT_FOOD = int(DATA["kitchen"]["convert_food"])

_PLANS: dict[tuple, tuple[float, tuple[Move, ...]]] = {}
"""Best plan from a farm position: (farm key, round, seat count) -> (value, moves)."""
PLAN_CACHE_LIMIT = 20_000


def forget() -> None:
    _PLANS.clear()


# -- the value of a farm ---------------------------------------------------------------------------


def crop_value(farm: Farm, seed: str, bonus: int | None = None) -> float:
    """VP-like worth of one harvest of a field sown with ``seed`` (``bonus``: the compost's)."""
    crop, crops = CROPS[seed]
    unit = UNIT[crop]
    if crop == "flower" and "florist" in farm.contracted:
        unit = BOOSTED["flower"]
    elif crop == "wheat" and ("baker" in farm.contracted or "distiller" in farm.contracted):
        unit = BOOSTED["wheat"]
    return (crops + (compost_bonus(farm) if bonus is None else bonus)) * unit


def compost_bonus(farm: Farm) -> int:
    if "compost_shed" not in farm.facilities:
        return 0
    herd = sum(farm.animals[a] for a in ANIMALS)
    bonus = 0
    for least, extra in DATA["facilities"]["numbers"]["compost"]:
        if herd >= least:
            bonus = extra
    return bonus


def future_value(farm: Farm, rounds_left: int) -> float:
    """What the farm's assets are worth over ``rounds_left`` rounds (after the upkeep of this one)."""
    if rounds_left <= 0:
        return 0.0
    left = rounds_left
    value = farm.goods["whisky"] * left + farm.goods["wool"] * (BOOSTED["wool"] if farm.has("tailor") else UNIT["wool"])
    value += farm.goods["wheat"] * (BOOSTED["wheat"] if farm.has("baker") or "bread_oven" in farm.facilities
                                    else UNIT["wheat"])
    value += farm.goods["butter"] * UNIT["butter"]
    if "smokehouse" in farm.facilities:
        value += farm.goods["fish"] * UNIT["fish"] + farm.goods["meat"] * UNIT["meat"]
    # animals: their product every round
    milk = BOOSTED["milk"] if farm.has("cheesemaker") else UNIT["milk"]
    wool = BOOSTED["wool"] if farm.has("tailor") else UNIT["wool"]
    value += left * (farm.animals["chicken"] * UNIT["egg"] + farm.animals["cow"] * milk
                     + (farm.animals["sheep"] + (farm.animals["sheep"] // 2 if farm.has("shepherd") else 0)) * wool)
    value += farm.animals["pig"] * (BOOSTED["pig"] if farm.has("ham_maker") else PIG_VALUE)
    if farm.animals["horse"]:
        value += left * HORSE_ROUND
    # crops: the sown fields' next harvest, then the seeds and free fields of later rounds
    bonus = compost_bonus(farm)
    worth = {s: crop_value(farm, s, bonus) for s in SEEDS}
    sown = [f for f in farm.fields if f in worth]
    value += sum(worth[s] for s in sown)
    if left >= 2:
        room = farm.empty_fields() + len(sown)
        share = CROP_SHARE * (left - 1)
        kinds = sorted(((worth[s], farm.goods[s] + sown.count(s)) for s in SEEDS[:2]), reverse=True)
        lasting = 0
        for crop, count in kinds:
            used = min(count, room - lasting)
            value += share * used * crop
            lasting += used
        flowers = min(farm.goods["flower_seed"], (room - lasting) * (left - 1))
        value += CROP_SHARE * flowers * worth["flower_seed"]
        value += FIELD_VALUE * max(0, farm.empty_fields() - lasting - flowers)
    for who in farm.contracted:
        value += left * CRAFTSMAN_ROUND.get(who, 0.0)
    for built in farm.facilities:
        value += left * FACILITY_ROUND.get(built, 0.0)
    value += ROW_SHARE * left * sum(CRAFTSMAN_ROUND.get(c, 0.0) for c in farm.row)
    # end-game craftsmen still to come true
    goal, fields = int(SCORING["tour_guide_tally"]), int(SCORING["surveyor_fields"])
    if farm.has("tour_guide") and farm.tally < goal <= farm.tally + TOURISM_A_ROUND * left:
        value += float(ADVICE["tour_guide_hope"]) * int(SCORING["tour_guide_vp"])
    if farm.has("surveyor") and len(farm.fields) < fields <= len(farm.fields) + FIELDS_A_ROUND * left:
        value += float(ADVICE["surveyor_hope"]) * int(SCORING["surveyor_vp"]) * len(farm.fields) / fields
    if farm.has("animal_scientist"):
        kinds = sum(1 for a in ANIMALS if farm.animals[a] > 0)
        value += float(ADVICE["scientist_hope"]) * int(SCORING["animal_scientist_vp"]) * kinds / len(ANIMALS)
    return value


def feed(farm: Farm, need: int, moves: list[Move] | None = None) -> None:
    """Cook and convert until ``need`` food is met (or nothing is left to eat): perishables
    first, two different ones cooked together, wheat and butter last; the moves go to ``moves``."""
    goods = farm.goods
    short = need - goods["food"]
    if short <= 0:
        return
    keep = SMOKED if "smokehouse" in farm.facilities else ()
    fresh = [g for g in INGREDIENTS if g in PERISHABLE and g not in keep and goods[g] > 0]
    lasting = [g for g in INGREDIENTS if g not in PERISHABLE or g in keep]
    while short > 0:
        have = _most(goods, fresh)
        stock = _most(goods, lasting)
        if short >= 2 and len(have) >= 2:
            pair = have
        elif short >= 2 and have and stock:
            pair = [have[0], stock[0]]
        elif have:
            pair = have[:1]
        elif short >= 2 and len(stock) >= 2:
            pair = stock
        elif stock:
            pair = stock[:1]
        else:
            break
        for g in pair:
            goods[g] -= 1
        gained = COOK_FOOD if len(pair) == 2 else CONVERT_FOOD
        goods["food"] += gained
        short -= gained
        if moves is not None:
            moves.append(mv("cook", goods=tuple(sorted(pair))) if len(pair) == 2 else mv("convert", goods=pair[0]))


def _most(goods: dict[str, int], names: list[str]) -> list[str]:
    """The (up to) two of ``names`` held most, most first (ties: the list's order)."""
    first = second = None
    for g in names:
        n = goods[g]
        if n <= 0:
            continue
        if first is None or n > goods[first]:
            first, second = g, first
        elif second is None or n > goods[second]:
            second = g
    return [g for g in (first, second) if g is not None]


def settle(farm: Farm, turn: Turn, moves: list[Move] | None = None) -> float:
    """End the round on ``farm`` (a scratch copy): feed, end; the farm's value (the feeding
    moves go to ``moves``)."""
    feed(farm, upkeep_for(turn.round), moves)
    end_round(farm, turn.round)
    return sum(final_parts(farm).values()) + future_value(farm, ROUNDS - turn.round)


def mid_value(farm: Farm, turn: Turn, scratch: bool = False) -> float:
    """A farm in the middle of its round: settled as it stands, plus the dice still in hand
    (``scratch``: the farm may be used up)."""
    in_hand = sum(DIE_VALUE[f - 1] for f in farm.pool)
    work = farm if scratch else farm.copy()
    work.pool = []
    return settle(work, turn) + in_hand


# -- the round search ----------------------------------------------------------------------------------


def complete(farm: Farm, turn: Turn, moves: list[Move], memo: dict | None = None) -> Farm:
    """Finish a half-done action by the best next step each time (stop included); returns the
    farm (``memo``: completions already worked out, by farm)."""
    if not farm.pending:
        return farm
    key = farm.key() if memo is not None else None
    if key is not None and key in memo:
        done, steps = memo[key]
        moves.extend(steps)
        return done.copy()
    first = len(moves)
    while farm.pending:
        best, best_value = None, None
        for step in step_moves(farm):
            work = farm.copy()
            play_move(work, turn, step)
            value = _pending_value(work, turn) if work.pending else mid_value(work, turn, scratch=True)
            if best_value is None or value > best_value + 1e-9:
                best, best_value = step, value
        play_move(farm, turn, best)
        moves.append(best)
    if key is not None:
        memo[key] = (farm.copy(), moves[first:])
    return farm


def _pending_value(farm: Farm, turn: Turn) -> float:
    """A farm (a scratch copy) whose action is still half done: valued as if it stopped here
    (a bread oven's unused bakes come back as a die)."""
    if farm.pending[0] == "bread_oven":
        farm.pool.append(farm.pending[1])
    farm.pending = ()
    return mid_value(farm, turn, scratch=True)


def candidates(farm: Farm, turn: Turn) -> list[Move]:
    """The placements the search tries at a farm with nothing half done: every die action the
    rules accept now, horse shipping, and (only at a dead end) leaving a die unused."""
    moves = [m for face in sorted(set(farm.pool)) for m in die_moves(farm, turn, face)]
    if farm.pool and not moves:
        moves = [mv("discard", die=face) for face in sorted(set(farm.pool))]
    if free_problem(farm, mv("horse_ship")) is None:
        moves.append(mv("horse_ship"))
    return moves


Plan = tuple[float, tuple[Move, ...]]


def plan_round(farm: Farm, turn: Turn, width: int | None = None) -> Plan:
    """The best plan found for the rest of this farmer's round: (value, moves to end_round).
    Plans of the default width are remembered along their way."""
    key = (farm.key(), turn.round, turn.rules)
    if width is None and key in _PLANS:
        return _PLANS[key]
    best, _ = search(farm, turn, int(ADVICE["search_width"]) if width is None else width)
    if width is None:
        _remember(farm, turn, best)
    return best


def search(farm: Farm, turn: Turn, width: int) -> tuple[Plan, dict[Move, Plan]]:
    """The beam search: the best plan, and the best plan found through each first move."""
    memo: dict = {}
    prefix: list[Move] = []
    start = complete(farm.copy(), turn, prefix, memo)
    beam = [(mid_value(start, turn), start, prefix)]
    seen = {start.key()}
    best: Plan | None = None
    through: dict[Move, Plan] = {}
    while beam:
        children = []
        for _, node, moves in beam:
            if not node.pool:
                feeding: list[Move] = []
                value = settle(node.copy(), turn, feeding)
                plan = (value, tuple(moves + feeding + [mv("end_round")]))
                if best is None or value > best[0] + 1e-9:
                    best = plan
                first = plan[1][0]
                if first not in through or value > through[first][0] + 1e-9:
                    through[first] = plan
                if free_problem(node, mv("horse_ship")) is not None:
                    continue
            for move in candidates(node, turn):
                child = node.copy()
                play_move(child, turn, move)
                path = moves + [move]
                child = complete(child, turn, path, memo)
                child_key = child.key()
                if child_key in seen:
                    continue
                seen.add(child_key)
                children.append((mid_value(child, turn), child, path))
        children.sort(key=lambda c: -c[0])
        beam = children[:width]
    return best, through


def _remember(farm: Farm, turn: Turn, plan: tuple[float, tuple[Move, ...]]) -> None:
    """The plan's tail is the plan from every farm it passes through."""
    if len(_PLANS) > PLAN_CACHE_LIMIT:
        _PLANS.clear()
    value, moves = plan
    work = farm.copy()
    for index, move in enumerate(moves):
        _PLANS[(work.key(), turn.round, turn.rules)] = (value, moves[index:])
        if move.kind == "end_round":
            break
        play_move(work, turn, move)


# -- suggestions -----------------------------------------------------------------------------------------


def _after(state: FarmState, move: Move) -> Farm:
    farm = state.farm.copy()
    play_move(farm, state.turn, move)
    return farm


def best_move(state: FarmState) -> Move | None:
    if state.stage != "act":
        return None
    _, plan = plan_round(state.farm, state.turn)
    return plan[0] if plan else None


def advise(state: FarmState) -> list[Suggestion]:
    """Every legal move, best first: ``expected_vp`` is the value of the best plan found through it
    (by the wide search; for a move the search left behind, a narrow search after it, or for all
    but the ``rank_searched`` most promising of those, the farm's value right after the move,
    ``searched`` False and its plan that move alone)."""
    if state.stage != "act":
        return []
    turn, farm = state.turn, state.farm
    top = plan_round(farm, turn)
    fresh, through = search(farm, turn, int(ADVICE["advise_width"]))
    if fresh[0] > top[0] + 1e-9:
        _remember(farm, turn, fresh)
        top = fresh
    top_plan = top[1]
    through[top_plan[0]] = top
    ranked, left_behind = [], []
    for move in state.legal_moves():
        if move in through:
            value, plan = through[move]
            ranked.append((value, move, plan, True))
        elif move.kind == "end_round":
            ranked.append((settle(farm.copy(), turn), move, (move,), True))
        else:
            left_behind.append((_estimate(_after(state, move), turn), move))
    left_behind.sort(key=lambda e: -e[0])
    for index, (estimate, move) in enumerate(left_behind):
        if index < int(ADVICE["rank_searched"]):
            value, rest = plan_round(_after(state, move), turn, int(ADVICE["rank_width"]))
            ranked.append((value, move, (move,) + rest, True))
        else:
            ranked.append((min(estimate, top[0]), move, (move,), False))
    leader = max((r for r in ranked if r[3]), key=lambda r: (r[0], r[1] == top_plan[0]))
    if leader[1] != top_plan[0]:
        _remember(farm, turn, (leader[0], leader[2]))    # a narrower search after a move found better
        top_plan = leader[2]
    ranked.sort(key=lambda r: (r[1] != top_plan[0], -r[0]))
    best_value = ranked[0][0] if ranked else 0.0
    suggestions = []
    for value, move, plan, searched in ranked:
        advice = {"expected_vp": round(value, 1), "loss": round(best_value - value, 1), "searched": searched,
                  "score_now": sum(final_parts(farm).values()),
                  "plan": plan_text(farm, turn, plan),
                  "upkeep": upkeep_for(turn.round)}
        suggestions.append(Suggestion(move, state.describe(move), advice, reason(farm, turn, plan)))
    return suggestions


def _estimate(farm: Farm, turn: Turn) -> float:
    """A farm's value right after a move (a half-done action valued as if stopped there)."""
    return _pending_value(farm.copy(), turn) if farm.pending else mid_value(farm, turn)


def plan_text(farm: Farm, turn: Turn, plan: Sequence[Move]) -> list[str]:
    """The plan's moves in words, each described on the farm as it stands before it."""
    work, lines = farm.copy(), []
    for move in plan:
        lines.append(describe_move(work, turn, move))
        if move.kind != "end_round":
            play_move(work, turn, move)
    return lines


def reason(farm: Farm, turn: Turn, plan: Sequence[Move]) -> str:
    """One line: what the plan does with the dice and why."""
    placed = [m for m in plan if m.get("die") is not None]
    kinds = Counter(m.kind for m in placed)
    words = []
    for kind, count in kinds.items():
        mine = [m for m in placed if m.kind == kind]
        dice = _dice_words(sorted(m["die"] for m in mine))
        if kind == "plow" and count == 2:
            words.append(f"plow twice with {dice}")
        elif kind == "tourism":
            words.append(f"tourism for {sum(m['vp'] for m in mine)} VP with {dice}")
        elif kind == "merchant":
            bought = Counter(_slot_item(turn, m) for m in mine)
            words.append(f"buy {' and '.join(_items(bought))} with {dice}")
        elif kind == "contract":
            hired = [f"{name_of(m['craftsman'])} ({CRAFTSMAN[m['craftsman']]['effect']})" for m in mine]
            words.append(f"contract the {' and the '.join(hired)} with {dice}")
        elif kind == "build":
            words.append(f"build the {' and the '.join(name_of(m['facility']) for m in mine)} with {dice}")
        else:
            words.append(f"{kind.replace('_', ' ')} with {dice}")
    why = []
    if kinds.get("plow"):
        animals = Counter(item for m in placed if m.kind == "merchant"
                          for item in [_slot_item(turn, m)] if item in ANIMALS + ("horse",))
        if animals or kinds.get("sow"):
            what = [f"the {name_of(a)}" for a in animals] + (["the seeds"] if kinds.get("sow") else [])
            why.append(f"you need fields for {' and '.join(what)}")
    need, food = upkeep_for(turn.round), farm.goods["food"]
    feeding = [m for m in plan if m.kind in ("cook", "convert")]
    if food < need:
        short = _short_after(farm, turn, plan)
        why.append(f"upkeep {need} food covered" if short == 0 else f"{short} food short for the upkeep of {need}")
    elif feeding:
        why.append(f"upkeep {need} food covered")
    text = ", ".join(words) if words else ("end the round" if plan and plan[0].kind == "end_round" else
                                           describe_move(farm, turn, plan[0]) if plan else "nothing to do")
    return text + (": " + "; ".join(why) if why else "")


def _slot_item(turn: Turn, move: Move) -> str:
    """What a merchant move buys (its goods or animal id)."""
    return turn.rules.slots(move.get("merchant", "merchant"), turn.round)[move["die"] - 1][0]


def _items(counts: Counter) -> list[str]:
    return [f"a {name_of(item)}" if n == 1 else count_text(n, item) for item, n in counts.items()]


NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def _dice_words(faces: list[int]) -> str:
    """``the 3``, ``the two 3s``, ``the 2 and the 5``."""
    if len(faces) > 1 and len(set(faces)) == 1:
        return f"the {NUMBER_WORDS.get(len(faces), len(faces))} {faces[0]}s"
    return " and ".join(f"the {f}" for f in faces)


def _short_after(farm: Farm, turn: Turn, plan: Sequence[Move]) -> int:
    work = farm.copy()
    for move in plan:
        if move.kind == "end_round":
            break
        play_move(work, turn, move)
    return max(0, upkeep_for(turn.round) - work.goods["food"])

