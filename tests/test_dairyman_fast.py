"""Dairyman's fast paths give exactly what the direct computation gives.

Every cache and table in the advice is checked two ways: a fast answer equals the same
answer worked out from scratch (caches emptied) or by independent counting, and an
answer cached for one state never shows up for a state that differs in something the
advice depends on (tokens, display, tiles owned or flipped, backorders, roll number).
"""
import itertools
import random
from collections import Counter
from math import factorial

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import Die, GameState
from companion.games import dairyman, get_game
from companion.games import dairyman_advice as dm

GAME = get_game("dairyman")


def clear_caches() -> None:
    """Empty every memo of the rules and the advice, as in a fresh process."""
    for module in (dm, dairyman):
        for value in vars(module).values():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


def advice_json(state) -> list[dict]:
    return [s.to_json() for s in GAME.advise(state)]


def assert_best_move_is_ranked_first(state):
    """``best_move`` is a legal move worth as much as the top suggestion (ties may differ)."""
    move = GAME.best_move(state)
    suggestions = GAME.advise(state)
    ranked = next(s for s in suggestions if s.move == move)
    assert move in state.legal_moves()
    assert ranked.advice["expected_points"] == suggestions[0].advice["expected_points"]
    return move


def decision_states(seed: int, players: int, options: dict, every: int) -> list:
    """Decision nodes of a seeded game where each move is a random legal one."""
    rng = random.Random(seed)
    state = GAME.new_game([f"P{i}" for i in range(players)], options, seed=seed)
    found = []
    step = 0
    while not state.is_terminal():
        if state.dice_to_roll() is not None:
            state = state.apply_roll(state.random_roll(rng))
            continue
        step += 1
        if step % every == 0:
            found.append(state)
        moves = state.legal_moves()
        kind = rng.choice(sorted({m.kind for m in moves}))  # every kind of move gets played
        state = state.apply(rng.choice([m for m in moves if m.kind == kind]))
    return found


OPTIONS = st.fixed_dictionaries({
    "freeze_tokens": st.sampled_from([10, 20]),
    "freeze_earned_from_roll": st.sampled_from([3, 4]),
    "cheese_faces": st.sampled_from(["1 2 3 4 5 6 1 2 3 4 5", "6 6 5 5 4 4 3 3 2 2 1"]),
})


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), options=OPTIONS)
def test_cached_advice_equals_advice_worked_out_from_scratch(seed, players, options):
    states = decision_states(seed, players, options, every=3)
    warm = [advice_json(s) for s in states]           # caches filled by every earlier state
    for state, expected in zip(states, warm):
        clear_caches()
        assert advice_json(state) == expected
        assert_best_move_is_ranked_first(state)


def _variants(state) -> dict[str, object]:
    """Copies of ``state`` that each differ in one thing the advice depends on."""
    data = state.to_json()
    me = data["current"]
    out = {}

    def variant(name, change):
        changed = state.to_json()
        change(changed)
        out[name] = GAME.state_from_json(changed)

    variant("freeze tokens", lambda d: d["freeze"].__setitem__(me, (d["freeze"][me] + 2) % 5))
    variant("roll number", lambda d: d.__setitem__("roll_no", d["roll_no"] % 3 + 1))
    others = [i for i in range(len(data["players"])) if i != me]
    variant("backorders", lambda d: d["backorders"].__setitem__(
        others[0], 0 if sum(d["backorders"]) + 1 - d["backorders"][others[0]] >= 3 else 1))
    if data["stack"]:
        def swap_display(d):
            d["display"][0], d["stack"][-1] = d["stack"][-1], d["display"][0]
        variant("display", swap_display)

        def give_tile(d):
            tile = d["stack"].pop()
            d["owned"][me].append(tile)
        variant("tiles owned", give_tile)
    if data["owned"][me]:
        variant("tiles flipped", lambda d: d.__setitem__("flipped", sorted(set(d["flipped"]) ^ {d["owned"][me][0]})))
    return out


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4))
def test_a_cached_answer_never_leaks_to_a_state_that_differs(seed, players):
    states = decision_states(seed, players, {}, every=7)[:6]
    for state in states:
        variants = _variants(state)
        expected = {}
        for name, other in variants.items():
            clear_caches()
            expected[name] = (advice_json(other), GAME.best_move(other))
        clear_caches()
        advice_json(state)
        GAME.best_move(state)                            # caches now hold the original's answers
        for name, other in variants.items():
            assert (advice_json(other), GAME.best_move(other)) == expected[name], name


def test_the_variants_really_change_the_advice_somewhere():
    # Guards the test above: its variants must differ in the advice, not just in the state.
    changed = Counter()
    for seed in range(4):
        for state in decision_states(seed, 3, {}, every=5)[:10]:
            before = advice_json(state)
            for name, other in _variants(state).items():
                changed[name] += advice_json(other) != before
    assert all(changed[name] > 0 for name in ("freeze tokens", "display", "backorders")), changed


def test_simulated_games_play_the_top_suggestion():
    for seed in range(2):
        rng = random.Random(seed)
        state = GAME.new_game(GAME.default_players(3), seed=seed)
        while not state.is_terminal():
            if state.dice_to_roll() is not None:
                state = state.apply_roll(state.random_roll(rng))
                continue
            move = assert_best_move_is_ranked_first(state)
            state = state.apply(move)


# -- odds tables against independent counting ---------------------------------------------
def _brute_has_set(values) -> bool:
    return any(sum(c) == 10 for size in (2, 3) for c in itertools.combinations(values, size))


def _multisets(n):
    """Each multiset of n faces with its number of ordered rolls."""
    for faces in itertools.combinations_with_replacement(range(1, 7), n):
        weight = factorial(n)
        for count in Counter(faces).values():
            weight //= factorial(count)
        yield faces, weight


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 6), max_size=5), st.integers(0, 7))
def test_set_odds_table_counts_every_roll(kept, n):
    expected = sum(weight for faces, weight in _multisets(n) if _brute_has_set(list(kept) + list(faces)))
    assert dm.set_outcomes(dm.counts_of(kept), n) == expected


def _brute_lock_options(values):
    """For each number of disjoint sets, the fewest dice that lock that many."""
    sets = [c for size in (2, 3) for c in itertools.combinations(range(len(values)), size)
            if sum(values[i] for i in c) == 10]
    best = {}

    def walk(start, used, k):
        for i in range(start, len(sets)):
            if used.isdisjoint(sets[i]):
                now = used | set(sets[i])
                best[k + 1] = min(best.get(k + 1, 99), len(now))
                walk(i + 1, now, k + 1)

    walk(0, frozenset(), 0)
    return tuple(sorted(best.items()))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 6), max_size=9))
def test_lock_options_match_brute_force(values):
    assert dm.lock_options(dm.counts_of(values)) == _brute_lock_options(values)


def test_shipped_reroll_table_is_the_direct_computation():
    table = dm._plain_rerolls()
    assert len(table) == dm.PLAIN_REROLL_DICE + 1
    for n, rows in enumerate(table):
        assert rows == dm.direct_lock_option_distribution(n)
        assert sum(weight for _, weight in rows) == 6 ** n


def test_shipped_reroll_table_small_rows_by_brute_force():
    for n in range(5):
        grouped = Counter()
        for roll in itertools.product(range(1, 7), repeat=n):
            grouped[_brute_lock_options(list(roll))] += 1
        assert dict(dm.lock_option_distribution(n)) == dict(grouped)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.builds(Die, st.integers(1, 6), st.sampled_from(["white", "yellow", "red"])), max_size=12))
def test_lock_table_rows_describe_their_lock(dice):
    roll = tuple(sorted(dice))
    for (move, shown, faces, left, sets, yellow), lock in zip(dm.lock_table(roll), dm.enumerate_locks(roll)):
        locked = [d for s in lock for d in s]
        rest = Counter(roll) - Counter(locked)
        assert move.to_json()["sets"] == [[dm.die_text(d) for d in s] for s in lock]
        assert shown == ", ".join("+".join(dm.die_text(d) for d in s) for s in lock)
        assert faces == dm.counts_of(d.value for d in rest.elements()) and left == sum(rest.values())
        assert sets == len(lock) and yellow == any(d.colour == "yellow" for d in locked)
        assert dm.lock_outcome(roll, move) == (lock, tuple(sorted(rest.elements())))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4))
def test_direct_roll_and_move_paths_match_the_engine(seed, players):
    rng = random.Random(seed)
    state = GAME.new_game([f"P{i}" for i in range(players)], seed=seed)
    for _ in range(60):
        if state.is_terminal():
            break
        if state.dice_to_roll() is None:
            move = rng.choice(state.legal_moves())
            fast = state.apply(move)
            assert fast.to_json() == GameState.apply(state, move).to_json()
            state = fast
            continue
        twin = random.Random(rng.random())
        draw_state = twin.getstate()
        dice = state.random_roll(twin)
        twin.setstate(draw_state)
        assert dice == state.dice_to_roll().draw(twin)       # the engine's draw, same calls to rng
        fast = state.apply_roll(dice)
        assert fast.to_json() == GameState.apply_roll(state, dice).to_json()
        state = fast
