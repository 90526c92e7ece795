"""Dicey Farm's rules engine: the digest's worked example, the limits, scripted games, properties."""
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.engine import Die, Move
from companion.errors import RuleError, UserError
from companion.games import get_game
from companion.games.dicey_farm import ANIMALS, CRAFTSMEN, MERCHANTS, end_round, final_parts

GAME = get_game("dicey-farm")
IDENTITY = list(range(8))


def move(kind, **params):
    return Move.make(kind, **params)


def dice(*faces):
    return [Die(f) for f in faces]


def deck_starting(*first):
    return list(first) + [c for c in CRAFTSMEN if c not in first]


def slot_orders(**base_rounds):
    """Every merchant sells in goods-list order, except the base merchant's rounds given."""
    orders = {m: [IDENTITY] * 8 for m in MERCHANTS}
    orders["merchant"] = [base_rounds.get(f"r{r}", IDENTITY) for r in range(1, 9)]
    return orders


def farm_json(**changes):
    farm = {"goods": {"food": 3}, "animals": {}, "fields": ["empty"], "row": [], "deck_next": 0, "contracted": [],
            "facilities": [], "vp": {}, "begging": 0, "dice_in_hand": [], "dice_used": [], "actions_used": []}
    farm.update(changes)
    return farm


def make_state(farms, stage="act", round_number=1, dice_rolled=(), deck=None, orders=None, options=None, players=None):
    data = {"game": "dicey-farm", "players": players or [f"Farmer {i + 1}" for i in range(len(farms))],
            "options": options or {}, "seed": 0, "stage": stage, "round": round_number, "dice": list(dice_rolled),
            "deck": deck or list(CRAFTSMEN), "slot_orders": orders or slot_orders(), "farms": farms}
    return GAME.state_from_json(data)


def play(state, *moves):
    for m in moves:
        state = state.apply(m)
    return state


# -- the digest's worked example (section 9: solo, round 6) -------------------------------------------

# Base merchant, round 6: goods 0 wheat seed x2, 1 veg seed x2, 2 flower seed x2, 3 chicken, 4 pig, 5 sheep, 6 cow.
# The example's slots are 1 pig, 2 sheep, 3 wheat seed x2, 4 cow, 5 flower seed x2, 6 chicken; veg seed x2 unsold.
EXAMPLE_ORDER = [4, 5, 0, 6, 2, 3, 1, 7]
# S0 is "round 5 over".  We enter it as round 5's last moment: no dice left, 4 food for the upkeep of 4,
# the row before its trim (two craftsmen before the four of S0), official and chef next in the deck.
EXAMPLE_DECK = deck_starting("elder", "sower", "cheesemaker", "fisherman", "porter", "carpenter", "florist",
                             "accountant", "night_watchman", "official", "chef")


def example_round5_end():
    farm = farm_json(goods={"food": 4, "wheat": 2, "vegetable_seed": 1, "flower_seed": 1},
                     animals={"chicken": 2, "cow": 1},
                     fields=["wheat_seed", "vegetable_seed", "chicken", "cow"],
                     row=["fisherman", "porter", "carpenter", "florist", "accountant", "night_watchman"], deck_next=9,
                     contracted=["elder", "sower", "cheesemaker"], facilities=["compost_shed"],
                     vp={"tourism": 8, "tourism_tally": 8, "market": 5},
                     dice_used=[[1, "fishing"], [1, "plow"], [1, "sow"]])
    return make_state([farm], round_number=5, dice_rolled=(1, 1, 1), deck=EXAMPLE_DECK,
                      orders=slot_orders(r6=EXAMPLE_ORDER, r7=EXAMPLE_ORDER))


def test_worked_example_round_six_reaches_the_digests_end_state():
    state = example_round5_end().apply(move("end_round"))
    farm = state.farms[0]
    # S0: VP 13, no food, the row of four.
    assert farm.goods["food"] == 0 and farm.begging == 0
    assert sum(state.scores().values()) == 13
    # Steps 1-3: refill, slots, harvest (compost: 2 chickens + 1 cow = 3 animals -> +1 crop a field).
    assert state.stage == "roll" and state.round == 6
    assert farm.row == ["carpenter", "florist", "accountant", "night_watchman", "official", "chef"]
    slots = [s["goods"] for s in state.board_view()["merchants"][0]["slots"]]
    assert slots == ["pig", "sheep", "2 wheat seeds", "cow", "2 flower seeds", "chicken"]
    assert state.board_view()["merchants"][0]["not_sold"] == ["vegetable seed"]
    assert {g: farm.goods[g] for g in ("food", "wheat", "vegetable", "egg", "milk")} == \
        {"food": 0, "wheat": 2 + 3 + 1, "vegetable": 2 + 1, "egg": 2, "milk": 1}
    assert (farm.goods["wheat_seed"], farm.goods["vegetable_seed"], farm.goods["flower_seed"]) == (1, 2, 1)
    assert farm.fields == ["empty", "empty", "chicken", "cow"]
    assert state.dice_to_roll().reason == "Round 6: roll 4 dice for your farm"
    assert state.board_view()["moves"] == []
    # Step 4-5.
    state = state.apply_roll(dice(3, 4, 6, 2))
    view = state.board_view()
    assert {m["action"] for m in view["moves"] if m["die"] == 4} >= {"elder", "plow", "merchant", "tourism"}
    assert [d["face"] for d in view["farms"][0]["dice"]] == [2, 3, 4, 6]
    state = play(state, move("elder", die=4, to=3))                         # 5a
    assert sorted(state.farms[0].pool) == [2, 3, 3, 6]
    state = play(state, move("plow", die=3), move("plow", die=3))          # 5b, 5c
    assert len(state.farms[0].fields) == 6
    state = play(state, move("tourism", die=6, vp=4))                      # 5d: 13 -> 17, a 2 comes back
    assert sorted(state.farms[0].pool) == [2, 2] and state.farms[0].tally == 12
    state = play(state, move("merchant", die=2, merchant="merchant"))      # 5e: slot 2 is the sheep
    assert state.farms[0].fields[0] == "sheep" and state.farms[0].animals["sheep"] == 1
    state = play(state, move("sow", die=2))                                # 5f: the sower gives a 1
    assert state.farms[0].pool == [1]
    state = play(state, move("plant", seed="wheat_seed"), move("plant", seed="vegetable_seed"),
                 move("plant", seed="flower_seed"))
    assert not state.farms[0].pending                                      # no empty field left: sowing ends
    state = play(state, move("ship", die=1))                               # 5g: 1 + 2 = 3 shipments
    state = play(state, move("deliver", craftsman="cheesemaker", choice=""), move("sell", goods="vegetable"),
                 move("sell", goods="vegetable"))
    assert not state.farms[0].pending and sum(state.scores().values()) == 24
    state = play(state, move("cook", goods=["egg", "wheat"]), move("convert", goods="egg"),
                 move("convert", goods="vegetable"))                       # 5h
    assert state.farms[0].goods["food"] == 5
    # 6-8: the state goes on into round 7 at once, so the end of round 6 is read off the very
    # function the end_round move runs, on a copy of the farm.
    farm = state.farms[0].copy()
    end_round(farm, 6)
    parts = final_parts(farm)
    assert parts["tourism"] == 12 and parts["market"] == 7 and parts["craftsmen"] == 5
    assert sum(parts.values()) == 24 and farm.begging == 0 and farm.goods["food"] == 0
    assert farm.goods["wheat"] == 5 and farm.row == ["accountant", "night_watchman", "official", "chef"]
    assert all(farm.goods[g] == 0 for g in ("fish", "vegetable", "flower", "meat", "egg", "milk"))
    assert farm.fields == ["sheep", "wheat_seed", "chicken", "cow", "vegetable_seed", "flower_seed"]
    assert {a: farm.animals[a] for a in ANIMALS} == {"chicken": 2, "sheep": 1, "pig": 0, "cow": 1}
    assert (farm.goods["wheat_seed"], farm.goods["vegetable_seed"], farm.goods["flower_seed"]) == (0, 1, 0)
    state = state.apply(move("end_round"))
    assert state.stage == "roll" and state.round == 7 and state.score_breakdown()["Farmer 1"] == parts
    farm = state.farms[0]
    assert (farm.goods["wheat_seed"], farm.goods["vegetable_seed"], farm.goods["flower_seed"]) == (0 + 1, 1 + 1, 0)
    # The preview of round 7's harvest (H = 4 animals: +2 a field); the trim left 4, the refill drew 2 more.
    assert farm.row[:4] == ["accountant", "night_watchman", "official", "chef"]
    assert farm.goods["wheat"] == 5 + 3 + 2 and farm.goods["vegetable"] == 2 + 2 and farm.goods["flower"] == 2 + 2
    assert (farm.goods["egg"], farm.goods["wool"], farm.goods["milk"]) == (2, 1, 1)


def test_worked_example_with_only_three_food_takes_two_begging_counters():
    state = example_round5_end().apply(move("end_round")).apply_roll(dice(3, 4, 6, 2))
    state = play(state, move("elder", die=4, to=3), move("plow", die=3), move("plow", die=3),
                 move("tourism", die=6, vp=4), move("merchant", die=2, merchant="merchant"), move("sow", die=2),
                 move("plant", seed="wheat_seed"), move("plant", seed="vegetable_seed"),
                 move("plant", seed="flower_seed"), move("ship", die=1),
                 move("deliver", craftsman="cheesemaker", choice=""), move("sell", goods="vegetable"),
                 move("sell", goods="vegetable"), move("cook", goods=["egg", "wheat"]))
    assert state.board_view()["farms"][0]["upkeep"]["text"] == "you need 5 food, you have 3: 2 begging counters"
    state = state.apply(move("end_round"))
    assert state.farms[0].begging == 2 and state.farms[0].goods["food"] == 0
    assert state.score_breakdown()["Farmer 1"]["begging"] == -6


# -- limits: refused in one line, nothing changed --------------------------------------------------------


def round_state(pool, round_number=3, **farm):
    base = {"goods": {"food": 3}, "row": ["fisherman", "porter", "broker"], "deck_next": 6}
    base.update(farm)
    return make_state([farm_json(dice_in_hand=list(pool), **base)], round_number=round_number,
                      dice_rolled=(1,) * [2, 2, 3, 3, 3, 4, 4, 4][round_number - 1])


def refused(state, *moves_then_bad):
    *setup, bad = moves_then_bad
    state = play(state, *setup)
    before = state.to_json()
    with pytest.raises(RuleError) as info:
        state.apply(bad)
    assert "\n" not in str(info.value) and len(str(info.value)) < 200
    assert state.to_json() == before
    assert bad not in state.legal_moves()
    return str(info.value)


def test_a_third_plow_is_refused():
    state = round_state([3, 3, 3])
    assert "twice" in refused(state, move("plow", die=3), move("plow", die=3), move("plow", die=3))


def test_a_second_plow_needs_the_same_face():
    state = round_state([3, 4, 1])
    assert "needs a 3" in refused(state, move("plow", die=3), move("plow", die=4))


def test_ship_twice_before_round_eight_is_refused_and_allowed_in_round_eight():
    state = round_state([2, 3, 1])
    assert "used this round" in refused(state, move("ship", die=2), move("stop"), move("ship", die=3))
    last = round_state([2, 3, 1, 1], round_number=8)
    last = play(last, move("ship", die=2), move("stop"), move("ship", die=3), move("stop"))
    assert last.farms[0].pool == [1, 1]


def test_build_needs_a_six_without_the_carpenter():
    state = round_state([5, 6, 1])
    assert "needs a 6" in refused(state, move("build", die=5, facility="smokehouse"))
    with_carpenter = round_state([5, 6, 1], contracted=["carpenter"])
    assert "smokehouse" in with_carpenter.apply(move("build", die=5, facility="smokehouse")).farms[0].facilities


def test_an_animal_needs_a_free_field():
    # Round 1 base merchant in goods-list order: face 4 = chicken.  The only field holds wheat seed.
    state = round_state([4, 1], round_number=1, fields=["wheat_seed"])
    assert "no field is free" in refused(state, move("merchant", die=4, merchant="merchant"))


def test_contract_needs_enough_food():
    state = round_state([5, 1, 1], goods={"food": 4})
    assert "costs 5 food" in refused(state, move("contract", die=5, craftsman="porter"))


def test_recruit_cannot_keep_more_than_the_row_holds():
    state = round_state([4, 1, 1])
    assert "row holds 3" in refused(state, move("recruit", die=4))


def test_the_round_does_not_end_with_a_die_unused():
    state = round_state([4, 1, 1])
    assert "every die is used" in refused(state, move("fishing", die=4), move("end_round"))


def test_free_actions_wait_while_an_action_is_half_done():
    state = round_state([4, 1, 1], goods={"food": 3, "fish": 2})
    assert "finish the ship" in refused(state, move("ship", die=4), move("convert", goods="fish"))


def test_a_broken_state_file_is_one_line():
    data = round_state([1, 1, 1]).to_json()
    data["farms"][0]["goods"]["wheat"] = -2
    with pytest.raises(UserError) as info:
        GAME.state_from_json(data)
    assert "wheat" in str(info.value) and "\n" not in str(info.value)
    data = round_state([1, 1, 1]).to_json()
    data["farms"][0]["fields"] = ["chicken"]
    with pytest.raises(UserError):
        GAME.state_from_json(data)


# -- scripted games: fixed dice, deck and choices; scores worked out by hand -----------------------------


def run_script(state, rounds):
    for faces, moves in rounds:
        state = state.apply_roll(dice(*faces))
        state = play(state, *moves, move("end_round"))
    return state


def tourist_rounds():
    """Tourism with the big die, fishing, plowing; the fish become food."""
    m = move
    return [
        ((6, 1), [m("tourism", die=6, vp=6), m("fishing", die=1), m("convert", goods="fish"), m("convert", goods="fish")]),
        ((5, 2), [m("tourism", die=5, vp=5), m("fishing", die=2), m("convert", goods="fish"), m("convert", goods="fish")]),
        ((6, 6, 1), [m("tourism", die=6, vp=6), m("fishing", die=6), m("plow", die=1)] + [m("convert", goods="fish")] * 4),
        ((3, 3, 3), [m("tourism", die=3, vp=3), m("fishing", die=3), m("plow", die=3)] + [m("convert", goods="fish")] * 3),
        ((4, 4, 4), [m("tourism", die=4, vp=4), m("fishing", die=4), m("plow", die=4)] + [m("convert", goods="fish")] * 3),
        ((2, 2, 5, 5), [m("tourism", die=5, vp=5), m("fishing", die=5), m("plow", die=2), m("plow", die=2)]
         + [m("convert", goods="fish")] * 4),
        ((1, 1, 1, 1), [m("tourism", die=1, vp=1), m("fishing", die=1), m("plow", die=1), m("plow", die=1)]
         + [m("convert", goods="fish")] * 2),
        ((6, 6, 6, 6), [m("tourism", die=6, vp=6), m("fishing", die=6), m("ship", die=6)]
         + [m("sell", goods="fish")] * 4 + [m("stop"), m("ship", die=6), m("stop")]),
    ]


def test_scripted_tourist_game_scores_as_the_rules_say():
    state = run_script(GAME.new_game(["Ann"], seed=1), tourist_rounds())
    assert state.is_terminal()
    # Food each round (start 3; upkeep 3,3,4,4,4,5,5,5; leftovers rot):
    #   R1 3+2 fish=5 -> 2 left, rots.  R2 0+2=2 < 3: 1 counter.  R3 4 fish=4: 0.  R4 3 fish=3 < 4: 1.
    #   R5 3 < 4: 1.  R6 4 fish (a 5 fishes 4) < 5: 1.  R7 2 < 5: 3.  R8 the fish are sold, 0 < 5: 5.
    begging = 1 + 0 + 1 + 1 + 1 + 3 + 5
    tourism = 6 + 5 + 6 + 3 + 4 + 5 + 1 + 6            # 36: the 1.02 code does not cap the VP
    market = 4 * 1                                     # 4 fish at 1 VP
    parts = state.score_breakdown()["Ann"]
    assert parts == {"tourism": tourism, "market": market, "craftsmen": 0, "whisky": 0, "jewels": 0,
                     "end-game craftsmen": 0, "begging": -3 * begging}
    assert state.scores()["Ann"] == 36 + 4 - 36
    assert len(state.farms[0].fields) == 1 + 1 + 1 + 1 + 2 + 2


def test_scripted_tourist_game_with_the_rule_texts_tourism_cap():
    state = run_script(GAME.new_game(["Ann"], {"cap_tourism_total": True}, seed=1), tourist_rounds())
    assert state.score_breakdown()["Ann"]["tourism"] == 20
    assert state.scores()["Ann"] == 20 + 4 - 36


def test_scripted_game_with_the_tour_guide_and_the_accountant():
    m = move
    state = make_state([farm_json(row=deck_starting("tour_guide", "accountant")[:6], deck_next=6)], stage="roll",
                       deck=deck_starting("tour_guide", "accountant"))
    sixes = [m("tourism", die=6, vp=6), m("fishing", die=6), m("plow", die=6)]
    rounds = [
        ((1, 2), [m("contract", die=1, craftsman="tour_guide"), m("recruit", die=2),
                  m("keep", craftsman="accountant"), m("keep", craftsman="porter")]),
        ((1, 1), [m("fishing", die=1), m("convert", goods="fish"), m("convert", goods="fish"),
                  m("contract", die=1, craftsman="accountant")]),
        ((6, 6, 6), sixes + [m("convert", goods="fish")] * 4),
        ((6, 6, 6), sixes + [m("convert", goods="fish")] * 4),
        ((6, 6, 6), sixes + [m("convert", goods="fish")] * 4),
        ((6, 6, 6, 6), sixes + [m("plow", die=6)] + [m("convert", goods="fish")] * 4),
        ((6, 6, 6, 6), sixes + [m("plow", die=6)] + [m("convert", goods="fish")] * 4),
        ((6, 6, 6, 6), [m("tourism", die=6, vp=6), m("fishing", die=6), m("ship", die=6)]
         + [m("sell", goods="fish")] * 4 + [m("stop"), m("ship", die=6), m("stop")]),
    ]
    state = run_script(state, rounds)
    # Food: R1 3-1 (contract) = 2 < 3: 1 counter.  R2 2 fish - 1 (contract) = 1 < 3: 2.  R3-R5 4 = 4: 0.
    #   R6, R7 4 < 5: 1 each.  R8 0 < 5: 5.
    begging = 1 + 2 + 0 + 0 + 0 + 1 + 1 + 5
    tourism = 6 * 6                                    # tally 36, capped at 20: the tour guide's 20 is reached
    market = 4
    accountant = (tourism + market) // 12              # 40 // 12 = 3, before the tour guide and the begging
    tour_guide = 10
    parts = state.score_breakdown()["Farmer 1"]
    assert parts["end-game craftsmen"] == accountant + tour_guide == 13
    assert parts["begging"] == -3 * begging == -30
    assert state.scores()["Farmer 1"] == tourism + market + 13 - 30 == 23


def test_a_table_of_farmers_share_the_roll_and_end_together():
    state = GAME.new_game(["Ann", "Bob"], seed=4)
    assert state.dice_to_roll().reason == "Round 1: roll 2 dice for every farm"
    state = state.apply_roll(dice(6, 3))
    assert state.current_player == "Ann"
    state = play(state, move("tourism", die=6, vp=6), move("fishing", die=3), move("end_round"))
    assert state.current_player == "Bob" and sorted(state.farms[1].pool) == [3, 6]
    with pytest.raises(RuleError):
        state.apply(move("fishing", die=3, player="Ann"))
    state = play(state, move("tourism", die=6, vp=5), move("fishing", die=3), move("plow", die=1), move("end_round"))
    assert state.stage == "roll" and state.round == 2
    assert state.farms[0].row == state.farms[1].row


# -- properties: any sequence of legal moves ------------------------------------------------------------



def returned_faces(before, after_move):
    """The dice a move gives back, by the rules (digest section 2 and 5)."""
    kind, face = after_move.kind, after_move.get("die")
    if kind == "tourism":
        return [face - after_move.get("vp")] if face > after_move.get("vp") else []
    if kind == "sow" and before.has("sower"):
        return [1]
    if kind == "slaughterhouse":
        return [face - 1] if face > 1 else []
    if kind in ("elder", "night_watchman"):
        return [after_move.get("to")]
    if kind == "official":
        return [7 - face]
    if kind == "stop" and before.pending and before.pending[0] == "bread_oven":
        return [before.pending[1]]
    return []


def check_move(before_state, chosen, after_state):
    before, after = before_state.farm, after_state.farms[before_state.turn_seat]
    if chosen.kind == "end_round":
        return
    expected = Counter(before.pool) + Counter(returned_faces(before, chosen))
    if chosen.get("die") is not None:
        expected[chosen.get("die")] -= 1
        assert len(after.used) == len(before.used) + 1
    else:
        assert len(after.used) == len(before.used)
    assert Counter(after.pool) == +expected


def check_counts(state):
    for farm in state.farms:
        assert all(n >= 0 for n in farm.goods.values()) and all(n >= 0 for n in farm.animals.values())
        assert farm.begging >= 0 and farm.tally <= 20
        for animal in ANIMALS:
            assert (animal in farm.fields) == (farm.animals[animal] > 0)
        assert len(farm.row) <= 6
    for player, parts in state.score_breakdown().items():
        assert sum(parts.values()) == state.scores()[player]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), players=st.integers(1, 3), daily=st.booleans())
def test_random_legal_play_keeps_counts_and_dice_straight_and_ends_after_round_eight(seed, players, daily):
    rng = random.Random(seed)
    options = {"daily": "2024-06-07"} if daily else {}
    state = GAME.new_game([f"P{i}" for i in range(players)], options, seed=seed)
    rounds_seen = {state.round}
    for _ in range(5000):
        if state.is_terminal():
            break
        if state.dice_to_roll() is not None:
            state = state.apply_roll(state.random_roll(rng))
        else:
            moves = state.legal_moves()
            assert moves
            chosen = rng.choice(moves)
            after = state.apply(chosen)
            check_move(state, chosen, after)
            state = after
        rounds_seen.add(state.round)
        check_counts(state)
    assert state.is_terminal() and rounds_seen == set(range(1, 9))
    again = GAME.state_from_json(state.to_json())
    assert again.scores() == state.scores()


# -- craftsmen and facilities: each effect as the digest gives it -------------------------------------


def test_broker_contracts_for_one_food_again_and_again():
    state = round_state([1, 5, 6], goods={"food": 3}, row=["broker", "porter", "fisherman"])
    state = play(state, move("contract", die=1, craftsman="broker"))           # a 1: 1 food
    state = play(state, move("contract", die=6, craftsman="porter"), move("contract", die=5, craftsman="fisherman"))
    assert state.farm.goods["food"] == 3 - 1 - 1 - 1                            # the broker's price, 1 each
    assert state.farm.contracted == ["broker", "porter", "fisherman"] and not state.farm.pool


def test_recruit_keeps_the_chosen_in_order_and_fills_from_the_deck_on_the_right():
    deck = deck_starting("fisherman", "porter", "broker", "carpenter", "beekeeper", "cowherd", "shepherd", "sower")
    state = make_state([farm_json(dice_in_hand=[2, 1, 1], row=deck[:6], deck_next=6)], round_number=3,
                       dice_rolled=(2, 1, 1), deck=deck)
    state = play(state, move("recruit", die=2), move("keep", craftsman="cowherd"), move("keep", craftsman="porter"))
    assert state.farm.row == ["porter", "cowherd", "shepherd", "sower", deck[8], deck[9]]
    state = play(state, move("fishing", die=1), move("plow", die=1), move("end_round"))
    assert state.farms[0].row[:2] == ["porter", "cowherd"]          # no trim after a recruit


def test_passive_craftsmen_change_the_numbers():
    farm = farm_json(dice_in_hand=[5, 3, 4], contracted=["fisherman", "porter", "cowherd"], animals={"cow": 1},
                     fields=["cow"], goods={"food": 3, "wool": 9}, row=["broker"], deck_next=31)
    state = make_state([farm], round_number=3, dice_rolled=(5, 3, 4))
    state = state.apply(move("fishing", die=5))
    assert state.farm.goods["fish"] == 4 + 3                          # a 5 fishes 4, the fisherman 3 more
    state = state.apply(move("plow", die=3))
    assert len(state.farm.fields) == 1 + 2                            # the cowherd with a cow: 2 fields
    state = state.apply(move("ship", die=4))
    assert state.farm.pending == ("ship", 4 + 2 + 3)                  # the porter: 3 more shipments


def test_harvest_with_beekeeper_shepherd_compost_and_caretaker():
    farm = farm_json(dice_in_hand=[], contracted=["beekeeper", "shepherd", "caretaker"], facilities=["compost_shed"],
                     animals={"sheep": 5}, fields=["sheep", "wheat_seed", "flower_seed"], goods={"food": 9},
                     row=["broker"], deck_next=31)
    state = make_state([farm], round_number=2, dice_rolled=(1, 1), orders=slot_orders())
    farm = state.apply(move("end_round")).farms[0]
    # compost: 5 animals (4 or more) -> +2 crops a field
    assert farm.goods["wheat"] == 3 + 2 and farm.goods["flower"] == 2 + 2
    assert farm.goods["wheat_seed"] == 1 + 1 and farm.goods["flower_seed"] == 0 + 1      # the beekeeper's seed
    assert farm.goods["wool"] == 5 + 5 // 2                                              # the shepherd
    assert farm.goods["food"] == 2                                                       # 9-3 rotted; caretaker 2


def test_dice_that_come_back_and_dice_that_change():
    farm = farm_json(dice_in_hand=[6, 4, 3, 2], contracted=["elder", "official", "night_watchman"],
                     facilities=["bread_oven", "slaughterhouse"], animals={"pig": 1}, fields=["pig"],
                     goods={"food": 0, "wheat": 1}, row=["broker"], deck_next=31)
    state = make_state([farm], round_number=6, dice_rolled=(6, 4, 3, 2))
    state = state.apply(move("official", die=6))
    assert sorted(state.farm.pool) == [1, 2, 3, 4]                                   # 6 -> 1
    state = state.apply(move("night_watchman", die=1, to=5))
    state = state.apply(move("elder", die=5, to=6))
    assert sorted(state.farm.pool) == [2, 3, 4, 6]
    state = play(state, move("bread_oven", die=4), move("bake"), move("stop"))
    assert state.farm.goods["food"] == 2 and sorted(state.farm.pool) == [2, 3, 3, 6]   # 3 bakes unused: a 3
    state = state.apply(move("slaughterhouse", die=6, animal="pig"))
    assert state.farm.goods["meat"] == 6 and state.farm.fields == ["empty"] and sorted(state.farm.pool) == [2, 3, 3, 5]
    for kind in ("official", "elder", "bread_oven", "slaughterhouse"):
        assert kind not in {m.kind for m in state.legal_moves()}                       # once a round


def test_stable_horses_and_horse_shipping():
    farm = farm_json(dice_in_hand=[6, 2], goods={"food": 3, "wool": 3}, animals={"horse": 1},
                     fields=["horse"], row=["broker"], deck_next=31)
    state = make_state([farm], round_number=3, dice_rolled=(6, 2, 1))
    state = state.apply(move("build", die=6, facility="stable"))
    assert state.farm.animals["horse"] == 2 and state.farm.fields == ["empty"]
    state = play(state, move("horse_ship"), move("sell", goods="wool"), move("sell", goods="wool"))
    assert not state.farm.pending and state.farm.market == 2                            # 2 shipments, no die
    assert "horse_ship" not in {m.kind for m in state.legal_moves()}
    state = state.apply(move("ship", die=2))
    assert state.farm.pending == ("ship", 2 + 2 + 2)                                    # +1 a horse


def test_shipping_to_craftsmen_and_the_end_game():
    farm = farm_json(dice_in_hand=[6, 6], contracted=["distiller", "chef", "butcher", "animal_scientist", "surveyor",
                                                      "pastor", "accountant"],
                     goods={"food": 0, "wheat": 4, "fish": 1, "vegetable": 1, "jewel": 2},
                     animals={"chicken": 1, "sheep": 1, "pig": 1, "cow": 2},
                     fields=["chicken", "sheep", "pig", "cow", "empty", "empty", "empty", "empty"],
                     vp={"tourism": 10, "tourism_tally": 10}, begging=7, row=["broker"], deck_next=31)
    state = make_state([farm], round_number=8, dice_rolled=(6, 6, 1, 1))
    state = play(state, move("ship", die=6),
                 move("deliver", craftsman="distiller", choice=""), move("deliver", craftsman="distiller", choice=""),
                 move("deliver", craftsman="butcher", choice="cow"),
                 move("deliver", craftsman="chef", choice=""), move("stop"))
    assert state.farm.goods["whisky"] == 2 and state.farm.animals["cow"] == 1 and state.farm.crafts == 10
    state = play(state, move("tourism", die=6, vp=6))
    state = play(state, *[move("convert", goods="meat")] * 5, move("end_round"))
    parts = state.score_breakdown()["Farmer 1"]
    # whisky: 2 held at the end of round 8 -> 2.  Jewels 2 x 7 = 14.  Scientist: 1 full set -> 20.
    # Surveyor: 8 fields -> 25.  Accountant: (16 tourism + 10 chef + 2 whisky + 14 jewels + 20 + 25) // 12 = 87 // 12 = 7.
    # Begging: 7 + 0 (5 food from meat) = 7, the pastor cancels 5 -> 2 x -3.
    assert parts == {"tourism": 16, "market": 0, "craftsmen": 10, "whisky": 2, "jewels": 14,
                     "end-game craftsmen": 20 + 25 + 7, "begging": -6}
