"""Dicey Farm's advice: legal, ranked, playable plans with one-line reasons."""
import random
import statistics

from test_dicey_farm_rules import dice, example_round5_end, farm_json, make_state, move

from companion.engine import Move
from companion.games import get_game
from companion.games.dicey_farm_advice import advise, best_move, plan_round, reason

GAME = get_game("dicey-farm")


def positions(seed, count=6):
    """Decision positions of a game played by the advice, every few moves."""
    rng = random.Random(seed)
    state = GAME.new_game(["Ann"], seed=seed)
    found = []
    while not state.is_terminal() and len(found) < count:
        if state.dice_to_roll() is not None:
            state = state.apply_roll(state.random_roll(rng))
            continue
        if rng.random() < 0.3:
            found.append(state)
        state = state.apply(rng.choice(state.legal_moves()) if rng.random() < 0.3 else GAME.best_move(state))
    return found


def test_suggestions_are_the_legal_moves_ranked_and_the_top_is_the_best_move():
    for seed in (1, 2):
        for state in positions(seed):
            suggestions = GAME.advise(state)
            legal = state.legal_moves()
            assert sorted(map(repr, (s.move for s in suggestions))) == sorted(map(repr, legal))
            values = [s.advice["expected_vp"] for s in suggestions]
            assert values == sorted(values, reverse=True)
            assert GAME.best_move(state) == suggestions[0].move
            for s in suggestions:
                assert s.reason and "\n" not in s.reason and "_" not in s.reason
                assert s.advice["plan"][-1].startswith("end the round") or not s.advice["searched"]
            assert suggestions[0].advice["searched"] and suggestions[0].advice["loss"] == 0


def test_the_top_plan_plays_to_the_end_of_the_round_without_a_refusal():
    state = example_round5_end().apply(move("end_round")).apply_roll(dice(3, 4, 6, 2))
    value, plan = plan_round(state.farm, state.turn)
    for step in plan:
        state = state.apply(step)
    assert state.round == 7 and state.stage == "roll"
    assert state.farms[0].begging == 0          # 5 food can be made, as the worked example shows
    assert value >= 24


def test_advice_makes_food_from_the_catch_before_the_upkeep():
    farm = farm_json(goods={"food": 0, "fish": 4}, dice_in_hand=[2], row=["porter"], deck_next=6)
    state = make_state([farm], round_number=1, dice_rolled=(2, 2))
    for _ in range(12):
        chosen = best_move(state)
        if chosen.kind == "end_round":
            break
        state = state.apply(chosen)
    assert state.farm.goods["food"] >= 3 and not state.farm.pool


def test_a_half_done_shipment_is_advised_step_by_step():
    farm = farm_json(goods={"food": 3, "wool": 2, "wheat": 3}, dice_in_hand=[4, 1], row=["porter"], deck_next=6)
    state = make_state([farm], round_number=3, dice_rolled=(4, 1, 1)).apply(move("ship", die=4))
    kinds = {s.move.kind for s in advise(state)}
    assert kinds <= {"sell", "deliver", "stop"} and "sell" in kinds


def test_the_reason_names_what_the_dice_do_and_why():
    state = example_round5_end().apply(move("end_round")).apply_roll(dice(3, 3, 6, 2))
    plan = [move("plow", die=3), move("plow", die=3), move("merchant", die=2, merchant="merchant"),
            move("sow", die=6), Move.make("end_round")]
    text = reason(state.farm, state.turn, plan)
    assert text.startswith("plow twice with the two 3s") and "you need fields for the sheep and the seeds" in text


def final_score(seed, pick):
    state = GAME.new_game(["Ann"], seed=seed)
    roll = random.Random(f"dice:{seed}")
    while not state.is_terminal():
        state = state.apply_roll(state.random_roll(roll)) if state.dice_to_roll() else state.apply(pick(state))
    return state.scores()["Ann"]


def test_the_advice_plays_far_better_than_chance():
    chance = random.Random(0)
    advised = [final_score(seed, GAME.best_move) for seed in range(4)]
    random_play = [final_score(seed, lambda s: chance.choice(s.legal_moves())) for seed in range(4)]
    assert statistics.mean(advised) > 30 and statistics.mean(random_play) < 0


def test_every_advised_move_of_a_whole_game_is_among_the_legal_moves():
    state, roll = GAME.new_game(["Ann", "Bob"], seed=5), random.Random(5)
    while not state.is_terminal():
        if state.dice_to_roll() is not None:
            state = state.apply_roll(state.random_roll(roll))
            continue
        chosen = GAME.best_move(state)
        assert chosen in state.legal_moves()
        state = state.apply(chosen)
    assert len(set(state.scores().values())) == 1 and min(state.scores().values()) > 0
