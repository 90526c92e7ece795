"""DYCE advice: forecasts by the engine's own baron code, exact odds for unknown dice, ranked plans."""
from dataclasses import replace

import pytest
from test_dyce_rules import ORANGE_WANTS_PURPLE, finish_baron_round, make_state

from companion.engine import Move
from companion.games import dyce_advice, get_game
from companion.games.dyce_advice import UNKNOWN, forecast

GAME = get_game("dyce")


def sale_state():
    """Ann holds blue and red; the orange baron's first die is purple at 4; the city is empty."""
    return make_state(cubes=[{"blue": 1, "red": 1}, {}], market=ORANGE_WANTS_PURPLE)


def test_every_legal_move_is_advised_once_with_consistent_figures():
    state = sale_state()
    suggestions = GAME.advise(state)
    assert sorted(map(repr, (s.move for s in suggestions))) == sorted(map(repr, state.legal_moves()))
    for s in suggestions:
        a = s.advice
        assert a["expected_score"] == pytest.approx(a["expected_pounds"] + 3 * a["expected_whiskies"]
                                                    + 6 * a["expected_vp"], abs=1e-2)
        assert s.reason and "\n" not in s.reason and len(a["plan"]) in (1, 2)
    assert GAME.best_move(state) == suggestions[0].move


def test_the_best_plan_is_a_shop_stocked_with_purple_where_the_orange_baron_buys_it_this_round():
    state = sale_state()
    top = GAME.advise(state)[0]
    assert top.move.kind == "shop" and len(top.advice["plan"]) == 2 and "purple" in top.advice["plan"][1]
    assert top.advice["expected_vp"] == 1 and top.advice["expected_pounds"] == 4 - 1
    assert top.advice["expected_whiskies"] == -2 and "orange baron" in top.reason and "this round" in top.reason
    orange = next(b for b in top.advice["barons"] if b["baron"] == "orange")
    assert orange["this_round"]["to"] == top.move["space"] and orange["this_round"]["trade"] == "sell"
    assert top.advice["shops_reached"] == [top.move["space"]]


def test_the_predicted_baron_paths_are_what_the_engine_then_does():
    state = sale_state()
    top = GAME.advise(state)[0]
    played = state.apply(top.move)
    second = Move.from_json({"kind": "whisky", "space": top.move["space"], "colour": "purple"})
    played = played.apply(second).apply(Move.make("pass")).apply(Move.make("pass"))   # Bob, then Ann
    played = played.apply(Move.make("take_pound"))    # Bob's turn starts with both seals on the castle
    played = finish_baron_round(played)
    predicted = {b["baron"]: b["this_round"]["to"] for b in top.advice["barons"]}
    actual = {r.baron: r.to_json(played.players)["to"] for r in played.log}
    assert predicted == actual
    assert played.vps[0] == 1 and played.pounds[0] == 6 - 1 + 4


def test_an_unknown_first_die_counts_with_its_exact_draw_odds():
    state = make_state(pounds=[2, 6], shops=[{"space": "C5", "owner": "Ann", "whisky": "yellow", "pounds": 0}])
    market = ((UNKNOWN, ("red", 1), ("red", 2), ("blue", 1)), (("red", 3), ("red", 1), ("blue", 2), ("green", 4)),
              (("green", 5), ("orange", 4), ("orange", 6), ("blue", 3)),
              (("purple", 4), ("purple", 5), ("black", 6), ("black", 5)))
    state = replace(state, market=market)       # unseen: 4 yellow and 1 blue die
    seen = forecast(state, rounds_ahead=0)
    # yellow (4/5) at 1, 2 or 3: Ann buys at 1 or 2 and cannot pay 3; blue (1/5): no target
    assert seen.parts[0]["pounds"] == pytest.approx(2 - 4 / 5 * (1 + 2) / 3)
    assert seen.parts[0]["whiskies"] == pytest.approx(3 * 4 / 5 * 2 / 3)
    assert seen.reports == []        # the future is uncertain from the first baron on


def test_the_advice_passes_once_its_turns_this_round_are_used():
    state = replace(sale_state(), turns=(dyce_advice.ADVICE["turns_per_round"], 0))
    assert GAME.advise(state)[0].move.kind == "pass"


def test_start_cubes_are_advised_and_no_advice_at_a_draw():
    state = GAME.new_game(["Ann", "Bob"], seed=2)
    assert {s.move.kind for s in GAME.advise(state)} == {"take_cube"}
    state = state.apply(state.legal_moves()[0]).apply(state.apply(state.legal_moves()[0]).legal_moves()[0])
    assert state.dice_to_roll() is not None and GAME.advise(state) == [] and GAME.best_move(state) is None
