"""Space Colony Cheeses advice: build figures, production allocation, energy, lawsuits, sales."""
import itertools

import pytest
from test_space_colony_cheeses_rules import ANN, BOB, make_state, roll, sheet

from companion.engine import Move
from companion.games import get_game
from companion.games.space_colony_cheeses import load_rules
from companion.games.space_colony_cheeses_advice import allocation_value, average_prices, lawsuit_expectation

GAME = get_game("space-colony-cheeses")
RULES = load_rules()


def test_every_legal_build_is_advised_once_with_its_figures():
    state = make_state(ann=sheet(ANN, money=40))
    suggestions = GAME.advise(state)
    assert sorted(map(repr, (s.move for s in suggestions))) == sorted(map(repr, state.legal_moves()))
    for s in suggestions:
        assert s.reason and "\n" not in s.reason
        if s.move.kind == "build":
            a = s.advice
            assert {"energy", "production", "storage", "income_per_turn", "expected_income", "net", "cost"} <= set(a)
            module = RULES.modules[s.move["module"]]
            assert a["energy"] == module.makes - module.uses and a["cost"] == module.cost
    best = GAME.best_move(state)
    assert best.kind == suggestions[0].move.kind
    if best.kind == "build":
        assert best["module"] == suggestions[0].move["module"]


def test_a_barn_is_worth_its_output_at_average_prices_over_the_turns_left():
    colony = dict(ANN, D3="solar_panel", E4="cream_storage")          # energy to spare, storage for 20
    state = make_state(ann=sheet(colony, money=50), turn=6)
    barns = [s for s in GAME.advise(state) if s.move.kind == "build" and s.move["module"] == "barn"]
    assert {s.move["space"] for s in barns} == {"C5", "E3"}
    per_turn = RULES.barn_output * average_prices(RULES)["milk"]
    turns_left = RULES.turns - 6 + 1
    for barn in barns:
        assert barn.advice["with"] == [] and barn.advice["production"] == RULES.barn_output
        assert barn.advice["income_per_turn"] == pytest.approx(per_turn, abs=0.01)
        assert barn.advice["expected_income"] == pytest.approx(per_turn * turns_left, abs=0.05)
        assert barn.advice["net"] == pytest.approx(per_turn * turns_left - RULES.modules["barn"].cost, abs=0.05)


def test_a_new_colony_is_advised_to_build_its_core_first():
    state = make_state(ann=sheet({"C3": "start_up"}, money=60), turn=1)
    top = GAME.advise(state)[0]
    assert top.move.kind == "build" and top.move["module"] in ("processing_plant", "space_port")
    assert top.advice["with"] and top.advice["net"] > 0 and "with" in top.reason


def test_the_first_module_advised_is_the_start_up():
    state = make_state(ann=sheet(), turn=1)
    top = GAME.advise(state)[0]
    assert top.move["module"] == "start_up" and "room to grow" in top.reason
    assert GAME.best_move(state)["module"] == "start_up"


def test_in_the_last_turn_only_what_pays_at_once_is_built():
    state = make_state(ann=sheet(dict(ANN, D3="solar_panel"), money=30), turn=15)
    suggestions = GAME.advise(state)
    barn = next(s for s in suggestions if s.move.kind == "build" and s.move["module"] == "barn")
    assert barn.advice["net"] == pytest.approx(17.5 - 10, abs=0.01)
    mega = next(s for s in suggestions if s.move.kind == "build" and s.move["module"] == "mega_barn")
    assert [RULES.modules[k].stores is not None for k in mega.advice["with"]] == [True]
    assert mega.advice["net"] == pytest.approx(10 * 3.5 - 20 - 5, abs=0.01)
    assert suggestions[0].move["module"] == "mega_barn"
    lab = next(s for s in suggestions if s.move.kind == "build" and s.move["module"] == "cheese_lab")
    assert lab.advice["net"] == pytest.approx(4 - 25, abs=0.01)
    poor = make_state(ann=sheet(dict(ANN, D3="solar_panel"), money=9), turn=15)
    assert GAME.advise(poor)[0].move.kind == "end_build" and GAME.best_move(poor).kind == "end_build"


def test_a_short_colony_is_advised_a_solar_panel():
    colony = dict(ANN, E3="barn")                                     # one energy short
    state = make_state(ann=sheet(colony, money=20), turn=5)
    top = GAME.advise(state)[0]
    assert top.move.kind == "build" and top.move["module"] in ("solar_panel", "geothermal_plant")


def test_production_allocation_maximises_expected_sales_within_storage():
    colony = dict(ANN, E4="leather_storage", E3="manure_storage", D3="solar_panel", C5="barn", B2="solar_panel")
    state = make_state(stage="production", ann=sheet(colony))
    output = state.colony(0).output()
    values = average_prices(RULES)
    best = GAME.advise(state)[0]
    rooms = {"milk": 10, "leather": 10, "manure": 10}
    brute = max(allocation_value(RULES, dict(zip(rooms, split)), values, None)
                for split in itertools.product(range(11), repeat=3) if sum(split) <= output)
    assert best.advice["expected_sales"] == pytest.approx(brute, abs=0.01)
    assert dict(best.move.params)["milk"] == 10 and GAME.best_move(state) == best.move


def test_cheese_and_beef_go_in_pairs_when_gift_boxes_sell():
    colony = dict(ANN, E4="cheese_storage", E3="beef_storage", B2="catalog_store", A1="solar_panel",
                  A3="solar_panel")
    state = make_state(stage="production", ann=sheet(colony))
    made = dict(GAME.best_move(state).params)
    assert made.get("cheese") == made.get("beef") == 2
    assert "make" in GAME.advise(state)[0].text


def test_energy_advice_turns_off_what_costs_least():
    colony = dict(ANN, B2="veterinary")                              # one short: vet, barn, storage...
    state = make_state(stage="energy", ann=sheet(colony))
    suggestions = GAME.advise(state)
    assert suggestions[0].move["space"] == "B2" and GAME.best_move(state)["space"] == "B2"
    barn = next(s for s in suggestions if s.move["space"] == "E5")
    assert suggestions[0].advice["income_per_turn"] > barn.advice["income_per_turn"]


def test_a_lawsuit_is_worth_twelve_and_a_half_dollars_on_average():
    state = make_state(stage="lawsuit", ann=sheet(dict(ANN, B2="law_office", A1="solar_panel")),
                       bob=sheet(BOB, money=60))
    expected = sum(10 * f for f in (1, 2, 3, 4)) / 6 - 25 / 6
    assert lawsuit_expectation(state, 0, 1) == pytest.approx(expected)
    top = GAME.advise(state)[0]
    assert top.move == Move.make("sue", defendant="Bob") and top.advice["expected"] == pytest.approx(expected, abs=0.01)
    assert "Bob" in top.reason


def test_gift_boxes_are_advised_when_a_box_beats_the_parts():
    colony = dict(ANN, E4="cheese_storage", E3="beef_storage", B2="catalog_store", A1="solar_panel")
    state = make_state(stage="gift_boxes", ann=sheet(colony, stock={"cheese": 3, "beef": 3}))
    top = GAME.advise(state)[0]
    assert top.move["count"] == 3 and top.advice["expected_gain"] == pytest.approx(3 * (10 - 7), abs=0.01)


def test_cheap_leather_is_kept_for_later_but_sold_in_the_last_turn():
    leather = sheet(dict(ANN, E4="leather_storage"), stock={"leather": 4})
    cheap = roll(make_state(stage="prices", ann=leather, turn=5), 1, 1, 1, 1, 1, 1, 1, 1)
    assert GAME.advise(cheap)[0].move["leather"] == 0
    last = roll(make_state(stage="prices", ann=leather, turn=15), 1, 1, 1, 1, 1, 1, 1, 1)
    assert GAME.advise(last)[0].move["leather"] == 4


def test_no_advice_at_a_roll():
    state = make_state(stage="event")
    assert GAME.advise(state) == [] and GAME.best_move(state) is None
