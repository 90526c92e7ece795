"""Space Colony Cheeses: each module rule and each step of the turn, rolls, JSON, whole games."""
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine import Die, Move
from companion.errors import RuleError, UserError
from companion.games import get_game
from companion.games.space_colony_cheeses import LEDGER, STEPS, load_board, load_rules, parse_space

GAME = get_game("space-colony-cheeses")
RULES = load_rules()
BOARD = load_board()

# Ann's working colony in the north-west: start-up C3, processing plant D4 (both octagons, corner
# to corner), a barn E5 next to the plant, milk storage D5 (a square touching D4), space port C4,
# one solar panel B3.  Energy: 3 + 2 made, 2 + 1 + 1 + 1 used.
ANN = {"C3": "start_up", "D4": "processing_plant", "E5": "barn", "D5": "milk_storage", "C4": "space_port",
       "B3": "solar_panel"}
BOB = {"J9": "start_up"}


def sheet(modules=None, money=100, dark=(), sick=(), stock=None):
    ledger = dict.fromkeys(LEDGER, 0)
    ledger["starting money"] = money
    return {"money": money, "modules": dict(modules or {}), "dark": list(dark), "sick": list(sick),
            "stock": dict(stock or {}), "ledger": ledger}


def make_state(stage="build", ann=None, bob=None, turn=2, actor=0, **changes):
    """Ann and Bob (Ann first) at ``stage`` of ``turn``, Ann's part due unless ``actor`` says otherwise."""
    data = {"game": GAME.name, "players": ["Ann", "Bob"], "options": {}, "seed": 0, "stage": stage, "turn": turn,
            "order": ["Ann", "Bob"], "actor": actor, "tied": [], "built": 0, "events": [None, None],
            "prices": [None, None], "defendant": None, "log": [],
            "sheets": [ann if ann is not None else sheet(ANN), bob if bob is not None else sheet(BOB)]}
    data.update(changes)
    return GAME.state_from_json(data)


def build(state, module, space):
    return state.apply(Move.make("build", module=module, space=space))


def stock_of(state, seat, product):
    return state.sheets[seat].stock[RULES.products.index(product)]


def roll(state, *faces):
    return state.apply_roll([Die(f) for f in faces])


# -- the map -------------------------------------------------------------------------------------


def test_an_octagon_touches_eight_spaces_and_a_square_four():
    assert len(BOARD.neighbours[parse_space(BOARD, "D4")]) == 8
    assert len(BOARD.neighbours[parse_space(BOARD, "D5")]) == 4
    octagons = [c for c in BOARD.spaces if c in BOARD.octagons]
    assert all(len(BOARD.neighbours[c]) <= 8 for c in octagons)
    assert all(len(BOARD.neighbours[c]) <= 4 for c in BOARD.spaces if c not in BOARD.octagons)
    for cell in BOARD.spaces:                                  # touching goes both ways
        assert all(cell in BOARD.neighbours[n] for n in BOARD.neighbours[cell])


def test_three_or_four_players_play_on_two_maps_side_by_side():
    two = GAME.new_game(["A", "B"])
    four = GAME.new_game(["A", "B", "C", "D"])
    assert four.board.width == 2 * two.board.width and four.board.maps == 2
    assert len(four.board.faults) == 2 * len(two.board.faults)
    names = {s["space"] for s in four.board_view()["map"]["spaces"]}
    assert "A1" in names and f"{chr(ord('A') + four.board.width - 1)}1" in names


def test_a_space_off_the_map_is_refused_in_one_line():
    with pytest.raises(RuleError, match="not a space of the map"):
        build(make_state(), "solar_panel", "Z99")


# -- building: start-up, connection, distance ------------------------------------------------------


def test_the_first_module_must_be_the_start_up_and_only_one():
    state = make_state(ann=sheet(), turn=1)
    with pytest.raises(RuleError, match="Start-Up Module must be the colony's first"):
        build(state, "solar_panel", "C3")
    after = build(state, "start_up", "C3")
    assert after.sheets[0].colony == {parse_space(BOARD, "C3"): "start_up"} and after.sheets[0].money == 60
    with pytest.raises(RuleError, match="one Start-Up Module"):
        build(after, "start_up", "B2")


def test_a_colony_is_not_started_within_five_spaces_of_another():
    state = make_state(ann=sheet(), turn=1)
    with pytest.raises(RuleError, match="within 5 spaces"):
        build(state, "start_up", "H8")              # two steps from Bob's J9
    spaces = state.build_spaces(0, "start_up")
    j9 = parse_space(BOARD, "J9")
    assert spaces and all(c not in BOARD.near(j9, 5) for c in spaces)
    assert parse_space(BOARD, "A1") in spaces


def test_an_unconnected_module_is_refused_and_a_connected_one_built():
    state = make_state()
    with pytest.raises(RuleError, match="does not touch Ann's colony"):
        build(state, "solar_panel", "H1")
    after = build(state, "solar_panel", "B2")       # B2 touches C3 corner to corner
    assert after.sheets[0].colony[parse_space(BOARD, "B2")] == "solar_panel"
    assert after.sheets[0].money == 100 - RULES.modules["solar_panel"].cost and after.built == 1


def test_a_square_touches_only_its_four_sides():
    # C2 is a square: it touches C3 (below it); B4 is a square diagonal to C3: no touch
    state = make_state()
    with pytest.raises(RuleError, match="does not touch"):
        build(state, "solar_panel", "B5")
    assert build(state, "solar_panel", "C2").built == 1


def test_one_module_per_space_and_at_most_three_a_turn():
    state = make_state()
    with pytest.raises(RuleError, match="taken"):
        build(state, "solar_panel", "J9")
    for space in ("B2", "A1", "B1"):
        state = build(state, "solar_panel", space)
    assert state.current_player == "Bob"            # Ann's third module ends her building


def test_money_limits_building():
    state = make_state(ann=sheet(ANN, money=6))
    with pytest.raises(RuleError, match=r"a Barn Module costs \$10; Ann has \$6"):
        build(state, "barn", "C5")
    assert {m["module"] for m in state.legal_moves() if m.kind == "build"} <= {"solar_panel", "hub", "pasture_dome"} \
        | {k for k in RULES.modules if k.endswith("_storage")}
    assert make_state(ann=sheet(ANN, money=0)).current_player == "Bob"      # nothing to build: Ann's part skipped


# -- module rules -------------------------------------------------------------------------------------


def test_storage_and_barns_must_be_next_to_a_processing_plant():
    state = make_state()
    with pytest.raises(RuleError, match="storage must be next to a processing plant"):
        build(state, "cream_storage", "B2")
    with pytest.raises(RuleError, match="a barn must be next to a processing plant"):
        build(state, "barn", "B2")
    with pytest.raises(RuleError, match="a barn must be next to a processing plant"):
        build(state, "mega_barn", "B2")
    assert build(state, "cream_storage", "E4").built == 1       # E4 (a square) touches D4
    assert build(state, "mega_barn", "C5").built == 1           # C5 octagon, corner to corner with D4


def test_a_hub_makes_its_neighbours_count_as_next_to_each_other():
    state = make_state()
    with pytest.raises(RuleError, match="next to a processing plant"):
        build(state, "cheese_storage", "F4")                    # F4 touches the barn, not the plant
    with_hub = build(state, "hub", "E4")                        # E4 touches the plant D4 and F4
    after = build(with_hub, "cheese_storage", "F4")
    assert after.sheets[0].colony[parse_space(BOARD, "F4")] == "cheese_storage"
    assert RULES.modules["hub"].uses == 0


def test_a_pasture_dome_must_be_next_to_a_barn():
    state = make_state()
    with pytest.raises(RuleError, match="pasture dome must be next to a barn"):
        build(state, "pasture_dome", "B2")
    assert build(state, "pasture_dome", "F5").built == 1        # F5 touches the barn at E5


def test_a_geothermal_plant_stands_only_on_a_fault_line():
    fault = min(BOARD.faults)
    assert parse_space(BOARD, "C2") in BOARD.faults
    state = make_state()
    with pytest.raises(RuleError, match="fault line"):
        build(state, "geothermal_plant", "B2")
    after = build(state, "geothermal_plant", "C2")
    assert after.colony(0).energy_made() == state.colony(0).energy_made() + RULES.modules["geothermal_plant"].makes
    assert fault in BOARD.faults


def test_the_thirteenth_module_must_be_a_habitation():
    twelve = dict(ANN, B2="solar_panel", A1="solar_panel", B1="solar_panel", A3="solar_panel", C2="solar_panel",
                  A2="solar_panel")
    assert len(twelve) == 12
    state = make_state(ann=sheet(twelve))
    with pytest.raises(RuleError, match="module 13 of a colony must be a Habitation"):
        build(state, "solar_panel", "D2")
    after = build(state, "habitation", "D2")
    assert build(after, "solar_panel", "D3").built == 2          # past twelve with a habitation


def test_no_building_while_the_habitation_is_dark():
    colony = dict(ANN, B2="habitation")
    state = make_state(ann=sheet(colony, dark=["B2"]))
    assert state.current_player == "Bob"                     # Ann's building is skipped
    state = make_state(ann=sheet(colony, dark=["B2"]), stage="move")
    assert state.stage == "build" and state.current_player == "Bob"
    lit = make_state(ann=sheet(colony))
    assert lit.current_player == "Ann" and build(lit, "solar_panel", "A1").built == 1


def test_the_processing_plant_needs_two_energy():
    alone = make_state(ann=sheet({"C3": "start_up", "D4": "processing_plant"}))
    colony = alone.colony(0)
    assert colony.energy_used() == 2 and RULES.modules["processing_plant"].uses == 2


def test_construction_module_discounts_each_new_module_by_one():
    state = make_state(ann=sheet(dict(ANN, B2="construction", A1="solar_panel")))
    after = build(state, "solar_panel", "C2")
    assert after.sheets[0].money == 100 - (RULES.modules["solar_panel"].cost - 1)


def test_construction_module_moves_one_module_at_half_its_full_price():
    state = make_state(stage="move", ann=sheet(dict(ANN, B2="construction", A1="solar_panel")))
    assert state.stage == "move" and state.current_player == "Ann"
    with pytest.raises(RuleError, match="another space"):
        state.apply(Move.make("relocate", source="E5", target="E5"))
    with pytest.raises(RuleError, match="taken"):
        state.apply(Move.make("relocate", source="E5", target="J9"))
    with pytest.raises(RuleError, match="next to a processing plant"):
        state.apply(Move.make("relocate", source="E5", target="A3"))      # a barn away from the plant
    moved = state.apply(Move.make("relocate", source="E5", target="C5"))
    assert moved.sheets[0].colony[parse_space(BOARD, "C5")] == "barn"
    assert parse_space(BOARD, "E5") not in moved.sheets[0].colony
    assert moved.sheets[0].money == 100 - RULES.modules["barn"].cost // 2
    assert moved.stage == "build" and moved.current_player == "Ann"      # one move, then building
    assert state.colony(0).move_cost("processing_plant") == RULES.modules["processing_plant"].cost // 2 == 7


def test_a_move_that_cuts_the_colony_in_two_is_refused():
    state = make_state(stage="move", ann=sheet(dict(ANN, B2="construction", A1="solar_panel")))
    with pytest.raises(RuleError, match="connected"):
        state.apply(Move.make("relocate", source="B2", target="F6"))     # A1 hangs on B2


def test_without_a_working_construction_module_there_is_no_move_step():
    state = make_state(stage="move", ann=sheet(dict(ANN, B2="construction"), dark=["B2"]))
    assert state.stage == "build"


# -- disease, energy, production ---------------------------------------------------------------------


def test_disease_check_is_one_die_a_one_makes_a_barn_sick():
    state = make_state(stage="disease")
    request = state.dice_to_roll()
    assert request.reason.startswith("Ann: disease check, one die") and request.colours == (None,)
    assert state.board_view()["roll"]["order"] == ["the die"]
    healthy = roll(state, 2)
    assert not healthy.sheets[0].sick
    sick = roll(state, 1)
    assert sick.sheets[0].sick == {parse_space(BOARD, "E5")}
    assert sick.colony(0).output() == 0


def test_no_more_than_four_diseases():
    barns = dict(ANN, C5="barn", E3="barn", D3="barn", E4="barn")
    state = make_state(stage="disease", ann=sheet(barns, sick=["C5", "E3", "D3", "E5"]))
    assert state.current_player != "Ann" or state.stage != "disease"       # no check at four diseases
    three = make_state(stage="disease", ann=sheet(barns, sick=["C5", "E3", "D3"]))
    assert len(roll(three, 1).sheets[0].sick) == 4


def test_energy_shortage_turns_off_the_chosen_modules_and_production_follows():
    short = dict(ANN, B2="cheese_lab", A1="sausage_lab", E4="cream_storage")     # uses 8, makes 5
    state = make_state(stage="energy", ann=sheet(short))
    assert state.colony(0).shortage() == 3 and state.current_player == "Ann"
    with pytest.raises(RuleError, match="never turned off"):
        state.apply(Move.make("turn_off", space="B3"))
    state = state.apply(Move.make("turn_off", space="E5"))          # the barn
    assert state.current_player == "Ann" and state.colony(0).shortage() == 2
    state = state.apply(Move.make("turn_off", space="D4"))          # the plant (2 energy)
    assert state.stage == "energy" and state.current_player == "Bob" or state.stage != "energy"
    assert state.sheets[0].dark == {parse_space(BOARD, "E5"), parse_space(BOARD, "D4")}
    assert state.colony(0).output() == 0 and state.colony(0).capacity("milk") == 10
    lit_barn = make_state(stage="energy", ann=sheet(short)).apply(Move.make("turn_off", space="B2"))
    lit_barn = lit_barn.apply(Move.make("turn_off", space="A1")).apply(Move.make("turn_off", space="E4"))
    assert lit_barn.stage == "production" and lit_barn.colony(0).output() == 5


def test_energy_is_balanced_again_each_turn():
    state = make_state(stage="disease", actor=2, ann=sheet(ANN, dark=["E5"]))
    assert state.stage != "disease" and not state.sheets[0].dark                                  # everything on again, no shortage


def test_production_is_allocated_within_storage():
    state = make_state(stage="production")
    assert state.colony(0).output() == RULES.barn_output
    with pytest.raises(RuleError, match="no working cream storage: cream cannot be made"):
        state.apply(Move.make("allocate", cream=1))
    with pytest.raises(RuleError, match="make 5 units"):
        state.apply(Move.make("allocate", milk=6))
    with pytest.raises(RuleError, match="room for 3 more milk"):
        make_state(stage="production", ann=sheet(ANN, stock={"milk": 7})).apply(Move.make("allocate", milk=5))
    after = state.apply(Move.make("allocate", milk=4))
    assert stock_of(after, 0, "milk") == 4


def test_a_barn_on_a_lush_pasture_makes_seven():
    colony = {"G3": "start_up", "H4": "barn", "G4": "processing_plant", "G5": "solar_panel"}
    assert parse_space(BOARD, "H4") in BOARD.pastures
    state = make_state(stage="production", ann=sheet(colony), bob=sheet({"A9": "start_up"}))
    assert state.colony(0).output() == RULES.lush_barn_output


def test_a_mega_barn_counts_as_two_barns_and_one_module_of_energy():
    state = make_state(stage="production", ann=sheet(dict(ANN, C5="mega_barn", A3="solar_panel")))
    assert state.colony(0).output() == 3 * RULES.barn_output
    assert RULES.modules["mega_barn"].uses == 1


# -- the random event ------------------------------------------------------------------------------------


def test_the_event_is_two_dice_read_in_order():
    state = make_state(stage="event")
    request = state.dice_to_roll()
    assert request.count == 2 and "first die, second die" in request.reason
    milk = roll(state, 1, 2)
    cream = roll(state, 2, 1)
    assert milk.events[0] == "1-2" and cream.events[0] == "2-1"
    assert "milk price +1" in milk.board_view()["players"][0]["event"]["text"]


def test_known_events_change_stock_and_modules():
    stocked = sheet(dict(ANN, E4="cheese_storage", F5="pasture_dome"), stock={"milk": 6, "cheese": 4})
    state = make_state(stage="event", ann=stocked)
    assert stock_of(roll(state, 1, 1), 0, "milk") == 3                          # half the largest
    assert stock_of(roll(state, 1, 4), 0, "milk") == 8                          # +2 within storage
    assert stock_of(roll(state, 4, 2), 0, "milk") == 10                         # doubled, capped by storage
    assert stock_of(roll(state, 2, 6), 0, "cheese") == 0
    no_domes = make_state(stage="event", ann=sheet(dict(ANN, E4="cheese_storage"), stock={"milk": 6, "cheese": 4}))
    assert stock_of(roll(no_domes, 1, 3), 0, "milk") == 0 and stock_of(roll(state, 1, 3), 0, "milk") == 6
    assert stock_of(roll(no_domes, 4, 3), 0, "cheese") == 2
    assert roll(state, 3, 5).sheets[0].sick == {parse_space(BOARD, "E5")}
    lose = make_state(stage="event", ann=sheet(dict(ANN, C2="geothermal_plant")))
    after = roll(lose, 2, 3)
    assert parse_space(BOARD, "C2") not in after.sheets[0].colony and parse_space(BOARD, "B3") in after.sheets[0].colony
    labs = make_state(stage="event", ann=sheet(dict(ANN, B2="cheese_lab", A1="solar_panel")))
    assert roll(labs, 4, 4).sheets[0].money == 100 + RULES.lab_event_money


def test_unknown_events_are_marked_as_defaults():
    view = make_state().board_view()
    marked = {e["dice"]: e["default"] for e in view["defaults"]["events"]}
    assert len(marked) == 36
    assert all(marked[f"{a}-{b}"] is (a >= 5) for a in range(1, 7) for b in range(1, 7))
    start_up = next(m for m in view["defaults"]["modules"] if m["name"] == "Start-Up Module")
    lab = next(m for m in view["defaults"]["modules"] if m["name"] == "Cheese Lab")
    assert "cost" in start_up["default"] and "income" not in lab["default"] and "cost" in lab["default"]


# -- gift boxes, prices, sales -----------------------------------------------------------------------------


GIFT_SHOP = dict(ANN, E4="cheese_storage", E3="beef_storage", B2="catalog_store", A1="solar_panel", A3="solar_panel")


def test_gift_boxes_need_a_working_space_port_and_catalog_store():
    state = make_state(stage="gift_boxes", ann=sheet(GIFT_SHOP, stock={"cheese": 3, "beef": 2}))
    assert state.current_player == "Ann"
    assert [m["count"] for m in state.legal_moves()] == [0, 1, 2]
    with pytest.raises(RuleError, match="gift boxes: 0 to 2"):
        state.apply(Move.make("gift_boxes", count=3))
    after = state.apply(Move.make("gift_boxes", count=2))
    assert after.sheets[0].money == 100 + 2 * RULES.gift_box_price
    assert stock_of(after, 0, "cheese") == 1 and stock_of(after, 0, "beef") == 0
    dark_port = make_state(stage="gift_boxes", ann=sheet(GIFT_SHOP, dark=["C4"], stock={"cheese": 3, "beef": 2}))
    assert dark_port.stage != "gift_boxes" or dark_port.current_player != "Ann"


LEATHER = sheet(dict(ANN, E4="leather_storage"), stock={"leather": 1})
"""Ann keeps a leather to sell: the sales step waits for her, so the turn's prices can be read."""


def test_prices_are_eight_dice_in_product_order_and_leather_is_capped():
    state = make_state(stage="prices", ann=LEATHER)
    request = state.dice_to_roll()
    view = state.board_view()
    assert request.count == 8 and request.colours == (None,) * 8
    assert view["roll"]["order"] == ["milk", "cream", "butter", "ice cream", "cheese", "beef", "leather", "manure"]
    assert "prices" in request.reason and "eight dice" in request.reason
    after = roll(state, 1, 2, 3, 4, 5, 6, 5, 6)
    assert after.price(0, "leather") == 2 and after.price(0, "manure") == 1
    assert after.price(0, "beef") == 6 and after.price(1, "beef") == 6        # one roll for everyone


def test_the_each_player_rolls_option_gives_each_their_own_prices():
    state = make_state(stage="prices", options={"price_rolls": "each"}, ann=LEATHER)
    first = roll(state, *[6] * 8)
    assert first.stage == "prices" and first.current_player == "Bob"
    second = roll(first, *[1] * 8)
    assert second.price(0, "milk") == 6 and second.price(1, "milk") == 1


def test_events_move_prices_and_prices_stop_at_zero():
    state = make_state(stage="prices", events=["3-2", "2-4"], ann=LEATHER)
    after = roll(state, 1, 3, 3, 3, 3, 3, 6, 6)
    assert after.price(0, "milk") == 0 and after.price(0, "cream") == 2 and after.price(0, "manure") == 1
    assert after.price(0, "leather") == 2 and after.price(1, "leather") == 4    # an event beats the cap


def test_sales_sell_products_at_the_rolled_prices():
    state = make_state(stage="prices", ann=sheet(dict(ANN, E4="leather_storage"), stock={"milk": 5, "leather": 4}))
    after = roll(state, 4, 1, 1, 1, 1, 1, 3, 1)
    assert after.stage == "sales" and after.current_player == "Ann"
    assert after.sheets[0].money == 100 + 5 * 4 and stock_of(after, 0, "milk") == 0
    sold = after.apply(Move.make("sell", leather=3))
    assert sold.score_breakdown()["Ann"]["sales"] == 20 + 9 and stock_of(sold, 0, "leather") == 1


def test_four_diseases_block_sales_but_leather_and_manure():
    barns = dict(ANN, C5="barn", E3="barn", D3="barn", E4="leather_storage")
    state = make_state(stage="prices", ann=sheet(barns, sick=["C5", "E3", "D3", "E5"],
                                                 stock={"milk": 5, "leather": 2}))
    after = roll(state, 6, 6, 6, 6, 6, 6, 2, 1)
    assert stock_of(after, 0, "milk") == 5 and after.sheets[0].money == 100
    assert [m["leather"] for m in after.legal_moves()] == [0, 1, 2]
    assert after.apply(Move.make("sell", leather=2)).score_breakdown()["Ann"]["sales"] == 2 * 2
    assert any(a.kind == "four_diseases" for a in after.alerts())


def test_without_a_space_port_nothing_is_sold():
    state = make_state(stage="prices", ann=sheet(ANN, dark=["C4"], stock={"milk": 5}))
    assert roll(state, *[6] * 8).score_breakdown()["Ann"]["sales"] == 0


# -- income, lawsuits, cures, spoilage -------------------------------------------------------------------------


def law(money_ann=100, money_bob=100):
    return make_state(stage="lawsuit", ann=sheet(dict(ANN, B2="law_office", A1="solar_panel"), money=money_ann),
                      bob=sheet(BOB, money=money_bob))


def test_lawsuit_outcomes():
    state = law()
    assert {m.kind for m in state.legal_moves()} == {"sue", "no_lawsuit"}
    filed = state.apply(Move.make("sue", defendant="Bob"))
    assert filed.dice_to_roll().reason == "Ann: lawsuit against Bob, one die"
    won = roll(filed, 3)
    assert won.sheets[0].money == 130 and won.sheets[1].money == 70
    assert won.score_breakdown()["Bob"]["lawsuits"] == -30
    assert roll(filed, 5).sheets[0].money == 100
    lost = roll(filed, 6)
    assert lost.sheets[0].money == 75 and lost.sheets[1].money == 125


def test_a_player_under_fifty_cannot_be_sued():
    assert law(money_bob=49).current_player != "Ann" or law(money_bob=49).stage != "lawsuit"
    data = law().to_json()
    data.update(players=["Ann", "Bob", "Cid"], order=["Ann", "Bob", "Cid"], events=[None] * 3, prices=[None] * 3)
    data["sheets"].append(sheet({"V2": "start_up"}, money=49))
    state = GAME.state_from_json(data)
    assert state.current_player == "Ann" and [m.get("defendant") for m in state.legal_moves()] == ["Bob", None]
    before = state.to_json()
    with pytest.raises(RuleError, match=r"Cid has \$49: a player with less than \$50 cannot be sued"):
        state.apply(Move.make("sue", defendant="Cid"))
    assert state.to_json() == before


def test_labs_and_the_start_up_earn_money():
    state = make_state(stage="sales", ann=sheet(dict(ANN, B2="cheese_lab", A1="sausage_lab", A3="solar_panel")))
    after = state._settle() if state.stage == "sales" else state
    assert after.sheets[0].money == 100 + RULES.modules["start_up"].income + 4 + 4


def test_cures_roll_once_per_sick_barn_and_twice_with_a_vet():
    sick = sheet(dict(ANN, C5="barn"), sick=["C5", "E5"])
    state = make_state(stage="cure", ann=sick)
    assert state.dice_to_roll().count == 2
    cured = roll(state, 5, 4)
    assert cured.sheets[0].sick == {parse_space(BOARD, "E5")}
    vet = make_state(stage="cure", ann=sheet(dict(ANN, C5="barn", B2="veterinary", A1="solar_panel"), sick=["C5", "E5"]))
    assert vet.dice_to_roll().count == 4
    assert vet.board_view()["roll"]["order"] == ["barn at C5, try 1", "barn at C5, try 2", "barn at E5, try 1",
                                                 "barn at E5, try 2"]
    assert not roll(vet, 1, 6, 2, 5).sheets[0].sick


def test_spoilage_keeps_leather_and_manure():
    stock = {"milk": 5, "leather": 3, "manure": 2}
    colony = dict(ANN, E4="leather_storage", E3="manure_storage", A3="solar_panel")
    after = make_state(stage="cure", ann=sheet(colony, dark=["C4"], stock=stock))
    assert after.turn == 3 and after.stage == "build"
    assert stock_of(after, 0, "milk") == 0 and stock_of(after, 0, "leather") == 3 and stock_of(after, 0, "manure") == 2
    kept = make_state(stage="cure", ann=sheet(colony, dark=["C4"], stock=stock), events=["1-5", None])
    assert stock_of(kept, 0, "milk") == 5


# -- the roll for the first player, the end, JSON -----------------------------------------------------------


def test_the_first_player_is_rolled_for_and_ties_roll_again():
    state = GAME.new_game(["Ann", "Bob", "Cid"])
    request = state.dice_to_roll()
    assert request.count == 3 and "Ann, Bob, Cid" in request.reason
    tie = roll(state, 5, 2, 5)
    assert tie.stage == "first_player" and tie.dice_to_roll().count == 2
    assert tie.board_view()["roll"]["order"] == ["Ann", "Cid"]
    done = roll(tie, 1, 4)
    assert done.order == (2, 0, 1) and done.current_player == "Cid" and done.stage == "build"


def test_the_game_ends_after_turn_fifteen():
    state = make_state(stage="cure", turn=15)
    assert state.is_terminal() and state.alerts()[0].kind == "game_over"
    assert make_state(stage="cure", turn=14).turn == 15


def test_the_state_round_trips_and_a_broken_file_is_one_line():
    state = make_state(stage="production")
    again = GAME.state_from_json(json.loads(json.dumps(state.to_json())))
    assert again.to_json() == state.to_json()
    for change in ({"stage": "dance"}, {"turn": 16}, {"order": ["Ann", "Ann"]}):
        with pytest.raises(UserError):
            GAME.state_from_json({**state.to_json(), **change})
    data = state.to_json()
    data["sheets"][0]["money"] = -5
    with pytest.raises(UserError, match="money"):
        GAME.state_from_json(data)
    data = state.to_json()
    data["sheets"][0]["modules"]["H1"] = "solar_panel"
    with pytest.raises(UserError, match="connected"):
        GAME.state_from_json(data)
    data = state.to_json()
    data["sheets"][0]["stock"]["milk"] = 11
    with pytest.raises(UserError, match="stored milk"):
        GAME.state_from_json(data)


def test_a_move_out_of_step_changes_nothing():
    state = make_state(stage="production")
    before = state.to_json()
    with pytest.raises(RuleError, match="production step"):
        state.apply(Move.make("end_build"))
    with pytest.raises(RuleError, match="turn order"):
        state.apply(Move.make("allocate", milk=1, player="Bob"))
    assert state.to_json() == before


def test_board_view_shows_the_checklist_the_map_and_both_sheets():
    state = make_state(stage="production")
    view = state.board_view()
    json.dumps(view)
    steps = [s["state"] for s in view["steps"]]
    assert steps[STEPS.index("production")] == "current" and steps[0] == "done" and steps[-1] == "to do"
    d4 = next(s for s in view["map"]["spaces"] if s["space"] == "D4")
    assert d4["shape"] == "octagon" and d4["module"] == {"owner": "Ann", "name": "Processing Plant", "dark": False,
                                                         "sick": False}
    ann = view["players"][0]
    milk = next(c for c in ann["sheets"]["commodities"] if c["product"] == "milk")
    assert milk == {"product": "milk", "stored": 0, "storage": 10, "room": 10, "price": None}
    assert {"kind": "allocate", "milk": 5} in view["legal"]
    assert ann["energy"] == {"made": 5, "used": 5, "short": 0}
    assert view["current"] == {"player": "Ann", "step": "production", "action": "decide"}
    assert view["moves"] == ["allocate"] and view["roll"] is None
    assert "ice_cream" in view["product_keys"] and "law_office" in view["module_keys"]


# -- whole games --------------------------------------------------------------------------------------------------


def check_invariants(state):
    for seat, sheet_ in enumerate(state.sheets):
        colony = state.colony(seat)
        assert sheet_.money >= 0 and sum(sheet_.ledger) == sheet_.money
        assert 0 <= len(sheet_.sick) <= RULES.max_diseases
        for product, amount in zip(RULES.products, sheet_.stock):
            assert 0 <= amount <= colony.capacity(product, working_only=False)
        assert all(not RULES.modules[sheet_.colony[c]].producer for c in sheet_.dark)
    breakdown = state.score_breakdown()
    assert all(sum(parts.values()) == state.scores()[p] for p, parts in breakdown.items())


def play_randomly(players, seed, moves_rng):
    state = GAME.new_game(players, seed=seed)
    dice = random.Random(seed)
    steps = 0
    while not state.is_terminal():
        if state.dice_to_roll() is not None:
            state = state.apply_roll(state.random_roll(dice))
        else:
            legal = state.legal_moves()
            assert legal, state.stage
            builds = [m for m in legal if m.kind == "build"]
            state = state.apply(moves_rng.choice(builds if builds and moves_rng.random() < 0.7 else legal))
        check_invariants(state)
        steps += 1
        assert steps < 20_000
    return state


@settings(max_examples=12)
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000))
def test_random_play_keeps_every_limit_and_ends_after_fifteen_turns(players, seed):
    state = play_randomly([f"P{i}" for i in range(players)], seed, random.Random(seed))
    assert state.turn == RULES.turns and state.stage == "over"
    winners = state.winners()
    best = max(state.scores().values())
    assert winners and all(state.scores()[w] == best for w in winners)
    assert state.alerts()[0].kind == "game_over" and ("tie" in state.alerts()[0].message) == (len(winners) > 1)


def test_goods_that_cannot_be_sold_raise_a_spoilage_alert():
    state = make_state(stage="production", ann=sheet(ANN, dark=["C4"], stock={"milk": 4}))
    spoilage = [a for a in state.alerts() if a.kind == "spoilage"]
    assert len(spoilage) == 1 and spoilage[0].message == "Ann cannot sell milk: it spoils at the end of the turn"
    assert not [a for a in make_state(stage="production", ann=sheet(ANN, stock={"milk": 4})).alerts()
                if a.kind == "spoilage"]


def test_a_ledger_that_does_not_add_up_is_refused():
    data = make_state().to_json()
    data["sheets"][0]["ledger"]["sales"] = 7
    with pytest.raises(UserError, match="does not add up"):
        GAME.state_from_json(data)
    data["sheets"][0]["ledger"]["sales"] = "7"
    with pytest.raises(UserError, match="whole numbers"):
        GAME.state_from_json(data)


def test_enough_pasture_domes_cure_every_disease_on_event_4_6():
    barns = dict(ANN, C5="barn", F5="pasture_dome", A3="solar_panel")
    with_domes = make_state(stage="event", ann=sheet(barns, sick=["C5", "E5"]))
    assert not roll(with_domes, 4, 6).sheets[0].sick
    crowded = dict(barns, E3="mega_barn", D3="barn")                  # 5 barns' worth, one dome
    without = make_state(stage="event", ann=sheet(crowded, sick=["C5", "E5"]))
    assert len(roll(without, 4, 6).sheets[0].sick) == 2


def test_board_view_lists_what_a_tap_may_build_and_which_values_are_defaults():
    view = make_state(ann=sheet(ANN, money=12)).board_view()
    builds = [m for m in view["legal"] if m["kind"] == "build"]
    assert {"kind": "build", "module": "barn", "space": "C5"} in builds
    assert all(m["module"] in view["module_keys"] for m in builds)
    assert not any(m["module"] == "space_port" for m in builds)             # $20: too dear with $12
    assert view["current"]["step"] == "build 1-3 modules"
    assert view["defaults"]["map_default"] is True and view["map"]["source"] == "default"
    assert "end_build" in view["moves"]
