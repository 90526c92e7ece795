"""DYCE's rules engine: the rule text's worked examples, illegal actions, whole seeded games."""
import random
from collections import Counter

import pytest

from companion.engine import Die, Move
from companion.errors import RuleError, UserError
from companion.games import get_game
from companion.games.dyce import choose_step, load_rules, parse_space

GAME = get_game("dyce")
RULES = load_rules()
FULL_MARKET = {"orange": ["blue:1", "red:2", "yellow:3", "black:5"], "green": ["yellow:2", "blue:2", "green:4", "black:6"],
               "purple": ["red:1", "red:3", "orange:5", "purple:4"], "black": ["yellow:1", "blue:3", "green:5", "purple:6"]}
# Markets for the examples, each with no more dice of a colour than the game has.
PURPLE_WANTS_BLACK = {"orange": ["blue:1", "red:2", "yellow:3", "purple:5"], "green": ["yellow:2", "blue:2", "green:4", "black:6"],
                      "purple": ["black:5", "red:3", "orange:5", "purple:4"], "black": ["yellow:1", "blue:3", "green:5", "red:1"]}
ORANGE_WANTS_PURPLE = {**FULL_MARKET, "orange": ["purple:4", "red:2", "yellow:3", "black:5"],
                       "black": ["yellow:1", "blue:3", "green:5", "blue:2"]}
ORANGE_WANTS_GREEN = {**FULL_MARKET, "orange": ["green:4", "red:2", "yellow:3", "black:5"],
                      "black": ["yellow:1", "blue:3", "blue:2", "purple:6"]}
ORANGE_WANTS_YELLOW = {**FULL_MARKET, "orange": ["yellow:3", "red:2", "blue:1", "black:5"]}
BLACK_WANTS_YELLOW = {"orange": ["black:5", "red:2", "yellow:3", "blue:1"], "green": ["black:6", "blue:2", "green:4", "yellow:2"],
                      "purple": ["orange:5", "red:3", "red:1", "purple:4"], "black": ["yellow:2", "blue:3", "green:5", "purple:6"]}
ORANGE_WANTS_BLACK = {"orange": ["black:5", "red:2", "yellow:3", "blue:1"], "green": ["red:1", "blue:2", "green:4", "yellow:2"],
                      "purple": ["red:2", "red:3", "orange:5", "purple:4"], "black": ["blue:1", "blue:3", "green:5", "purple:6"]}
ALL_WANT_BLUE = {"orange": ["blue:1", "red:2", "yellow:3", "black:5"], "green": ["blue:2", "red:1", "green:4", "yellow:2"],
                 "purple": ["blue:3", "red:3", "orange:5", "purple:4"], "black": ["blue:1", "yellow:1", "green:5", "purple:6"]}


def make_state(**changes):
    """A two-player game (Ann, Bob) in the player round, Ann to act; ``changes`` override the JSON."""
    data = {"game": "dyce", "players": ["Ann", "Bob"], "options": {}, "seed": 0, "stage": "actions", "round": 1,
            "white": 1, "start_player": "Ann", "turn_player": "Ann", "actions": 0, "seals": [False, False],
            "pounds": [6, 6], "cubes": [{}, {}], "vps": [0, 0], "shops_in_hand": [6, 6], "shops": [],
            "barons": {"orange": None, "green": None, "purple": None, "black": None}, "market": FULL_MARKET}
    data.update(changes)
    data["shops_in_hand"] = [6 - sum(s["owner"] == p for s in data["shops"]) for p in data["players"]]
    return GAME.state_from_json(data)


def cell(name):
    return parse_space(RULES, name)


def move(kind, **params):
    return Move.make(kind, **params)


def check_invariants(state):
    rules = state.rules
    in_market = sum(len(line) for line in state.market)
    assert in_market + sum(state.bag().values()) + 1 == sum(rules.dice.values()) == 21
    if state.stage in ("actions", "over"):
        assert in_market == 16
    if state.stage == "draw":
        assert in_market == 15
    for colour in rules.whiskies:
        held = sum(dict(h).get(colour, 0) for h in state.cubes) + sum(s[2] == colour for s in state.shops)
        assert 0 <= held <= rules.cubes[colour]
    for seat in range(len(state.players)):
        assert state.pounds[seat] >= 0 and state.shops_in_hand[seat] >= 0
        assert state.shops_in_hand[seat] + state.shops_in_city(seat) == rules.shops
    assert all(s[3] >= 0 for s in state.shops)
    for line in state.market:
        for colour, value in line:
            assert (1 <= value <= 3) if colour in rules.natural else (4 <= value <= 6)
    assert 1 <= state.white <= rules.white_top


# -- the movement example ---------------------------------------------------------------------


def test_orange_first_move_goes_toward_the_closer_purple_shop():
    targets = [(cell("D4"), 0), (cell("A1"), 0)]      # the blue shop near orange's side, the white one far
    step, reason = choose_step(RULES, 0, None, targets)
    assert step == cell("D5") and step in RULES.sides[0] and reason == "closer to the target shop"


def test_green_prefers_the_equally_close_shop_with_a_pound_along_the_path_nearer_the_castle():
    yellow_shop, red_shop = (cell("C1"), 0), (cell("A3"), 1)
    step, reason = choose_step(RULES, 1, cell("B2"), [yellow_shop, red_shop])
    assert step == cell("B3") and reason == "closer to the castle"
    step_without_pound, _ = choose_step(RULES, 1, cell("B2"), [yellow_shop, (cell("A3"), 0)])
    assert step_without_pound == cell("C2")        # then both shops count alike: clockwise decides


def test_purple_with_no_black_whisky_in_the_city_stays_and_its_die_goes_back():
    state = make_state(seals=[True, True], turn_player="Bob",
                       shops=[{"space": "B2", "owner": "Ann", "whisky": "red", "pounds": 0}],
                       market=PURPLE_WANTS_BLACK)
    after = state.apply(move("take_pound"))
    assert after.stage == "draw" and after.dice_to_roll().count == 1      # orange wants blue: nobody has it
    after = finish_baron_round(after)
    purple = next(r for r in after.log if r.baron == "purple")
    assert purple.target == "black" and purple.start is None and purple.end is None
    assert purple.returns_die and purple.trade is None
    assert after.white == 2 and after.round == 2          # a blended die went back to the bag


def test_black_goes_round_the_castle_clockwise_when_it_stands_in_the_way():
    step, reason = choose_step(RULES, 3, cell("D3"), [(cell("B3"), 0)])
    assert step == cell("D4") and reason == "clockwise round the castle"


def test_a_baron_at_a_target_shop_does_not_move():
    assert choose_step(RULES, 2, cell("B2"), [(cell("B2"), 0), (cell("B1"), 3)]) == (None, "already at a target shop")


# -- the trade examples -----------------------------------------------------------------------


def finish_baron_round(state):
    while state.stage == "draw":
        state = state.apply_roll([Die(1, min(state.bag()))])
    return state


def baron_round(state):
    """End the player round: Bob, whose turn starts with every seal on the castle, takes a pound."""
    return state.apply(move("take_pound", player="Bob"))


def test_purple_sale_pays_blue_and_red_for_four_pounds_and_one_vp():
    state = make_state(seals=[True, True], turn_player="Bob", cubes=[{"blue": 1, "red": 1, "yellow": 1}, {}],
                       shops=[{"space": "C5", "owner": "Ann", "whisky": "purple", "pounds": 0}],
                       market=ORANGE_WANTS_PURPLE)
    after = baron_round(state)
    orange = after.log[0]
    assert (orange.end, orange.trade, orange.completed, orange.price) == (cell("C5"), "sell", True, 4)
    assert after.pounds[0] == 6 + 4 and after.vps[0] == 1 and dict(after.cubes[0]) == {"yellow": 1}
    assert after.shop_at(cell("C5"))[2] is None and after.supply("purple") == RULES.cubes["purple"]
    assert [c for c, _ in after.market[0]] == ["red", "yellow", "black"]      # the purple die went to the bag
    assert after.bag()["purple"] == state.bag()["purple"] + 1 and after.stage == "draw"
    placed = after.apply_roll([Die(6, "blue")])
    assert placed.market[0][-1] == ("blue", 1)
    assert placed.last_die.text.startswith("the blue die goes to the orange baron") and "turned to 1" in placed.last_die.text


def test_yellow_purchase_takes_the_whisky_and_the_shop_pound_goes_to_the_supply():
    state = make_state(seals=[True, True], turn_player="Bob", pounds=[6, 3],
                       shops=[{"space": "E2", "owner": "Bob", "whisky": "yellow", "pounds": 1}],
                       barons={"orange": None, "green": None, "purple": None, "black": "E3"},
                       market=BLACK_WANTS_YELLOW)
    state = finish_baron_round(baron_round(state))     # Bob takes a pound; the other barons have no target
    black = state.log[-1]
    assert (black.end, black.trade, black.completed, black.price) == (cell("E2"), "buy", True, 2)
    assert state.pounds[1] == 3 + 1 - 2 and dict(state.cubes[1]) == {"yellow": 1}
    assert state.shop_at(cell("E2"))[2:] == (None, 0)


def test_a_purchase_the_owner_cannot_pay_sends_the_shop_back_to_the_hand():
    state = make_state(seals=[True, True], turn_player="Bob", pounds=[1, 6],
                       shops=[{"space": "C5", "owner": "Ann", "whisky": "yellow", "pounds": 1}],
                       market=ORANGE_WANTS_YELLOW)
    after = baron_round(state)
    assert after.log[0].trade == "buy" and not after.log[0].completed and not after.log[0].returns_die
    assert after.shop_at(cell("C5")) is None and after.shops_in_hand[0] == 6 and after.pounds[0] == 1
    assert after.market[0][0] == ("yellow", 3)        # the die stays: no trade was completed
    assert after.supply("yellow") == RULES.cubes["yellow"]


# -- end of round and game --------------------------------------------------------------------


def test_end_of_game_count_is_8_plus_6_plus_18():
    state = make_state(stage="over", pounds=[5, 0], cubes=[{"blue": 1, "yellow": 1}, {}], vps=[3, 0],
                       shops=[{"space": "B2", "owner": "Ann", "whisky": None, "pounds": 3}])
    assert state.score_breakdown()["Ann"] == {"pounds": 8, "whiskies": 6, "VPs": 18}
    assert state.scores()["Ann"] == 32 and state.winners() == ["Ann"]


def test_the_game_ends_after_a_round_in_which_a_black_die_goes_back_with_the_white_die_at_six():
    state = make_state(seals=[True, True], turn_player="Bob", white=6, cubes=[{"blue": 1, "red": 1, "yellow": 1}, {}],
                       shops=[{"space": "C5", "owner": "Ann", "whisky": "black", "pounds": 0}],
                       market=ORANGE_WANTS_BLACK)
    state = baron_round(state)
    assert state.vps[0] == 2 and state.pounds[0] == 11
    while not state.is_terminal():
        state = state.apply_roll([Die(2, min(state.bag()))])
    assert state.ended_by == "round_die" and state.white == 6
    assert any(a.kind == "game_over" for a in state.alerts())


def test_the_white_die_goes_up_only_when_a_blended_die_went_back():
    quiet = make_state(seals=[True, True], turn_player="Bob",
                       shops=[{"space": "A1", "owner": "Ann", "whisky": "blue", "pounds": 0}],
                       market=ALL_WANT_BLUE)
    after = finish_baron_round(baron_round(quiet))      # green buys Ann's blue: a natural die goes back
    assert [r.trade for r in after.log] == [None, "buy", None, None] and after.log[1].returns_die
    assert after.stage == "actions" and after.round == 2 and after.white == 1
    assert after.players[after.start_seat] == "Bob" and not any(after.seals)


# -- set-up and the dice from the bag ---------------------------------------------------------


def test_set_up_deals_start_cubes_counter_clockwise_then_fills_and_orders_the_market():
    state = GAME.new_game(["Red", "Blue", "Yellow", "White"], seed=4)
    order = []
    while state.stage == "cubes":
        order.append(state.current_player)
        state = state.apply(state.legal_moves()[0])
    assert order == ["White", "Yellow", "Blue", "Red"]
    assert sum(sum(dict(h).values()) for h in state.cubes) == 4
    assert state.dice_to_roll().count == 16
    state = state.apply_roll([Die(2, "black"), Die(6, "blue")])        # several dice at once
    assert state.market[0] == (("black", 5), ("blue", 1))
    rng = random.Random(1)
    while state.stage == "market":
        state = state.apply_roll(state.random_roll(rng)[:1])             # then one at a time
    check_invariants(state)
    for line in state.market:
        ranks = [RULES.line_rank(c) for c, _ in line]
        assert ranks == sorted(ranks)
    assert state.stage == "actions" and state.current_player == "Red"


@pytest.mark.parametrize("dice, message", [
    ([Die(3, "white")], "castle"),
    ([Die(3, "pink")], "not a DYCE die"),
    ([Die(3, "green"), Die(3, "green"), Die(3, "green")], "no longer in the bag"),
    ([Die(3)], "not read"),
])
def test_a_die_the_bag_cannot_hold_is_refused_in_one_line(dice, message):
    state = make_state(stage="market", market={b: [] for b in FULL_MARKET})
    with pytest.raises(RuleError, match=message) as error:
        state.apply_roll(dice)
    assert "\n" not in str(error.value)
    assert state.market_count() == 0


def test_a_colour_gone_from_the_bag_and_a_second_die_are_refused_at_a_draw():
    state = baron_round(make_state(seals=[True, True], turn_player="Bob", market=ORANGE_WANTS_GREEN))
    assert state.stage == "draw" and state.bag()["green"] == 1
    before = state.to_json()
    for dice, message in (([Die(4, "black")], "no longer in the bag"), ([Die(1, "blue"), Die(2, "red")], "1 dice")):
        with pytest.raises(RuleError, match=message):
            state.apply_roll(dice)
        assert state.to_json() == before


# -- illegal actions ----------------------------------------------------------------------------


@pytest.mark.parametrize("changes, action, message", [
    ({"barons": {"orange": "B2", "green": None, "purple": None, "black": None}}, move("shop", space="B2"), "baron"),
    ({"shops": [{"space": f"{c}1", "owner": "Ann"} for c in "ABCDE"] + [{"space": "A2", "owner": "Ann"}]},
     move("shop", space="D4"), "shops are in the city"),
    ({"shops": [{"space": "B2", "owner": "Bob"}]}, move("whisky", space="B2", colour="blue"), "own shops"),
    ({"shops": [{"space": "B2", "owner": "Ann"}],
      "barons": {"orange": "B2", "green": None, "purple": None, "black": None}},
     move("whisky", space="B2", colour="blue"), "baron stands"),
    ({}, move("shop", space="C3"), "castle"),
    ({"pounds": [0, 6]}, move("shop", space="B2"), "no pound"),
    ({"shops": [{"space": "B2", "owner": "Ann", "whisky": "red"}]}, move("whisky", space="B2", colour="red"), "already"),
    ({}, move("pass", player="Bob"), "turn"),
    ({"seals": [True, False]}, move("pass"), "seal is on the castle"),
    ({}, move("take_pound"), "seal on the castle"),
    ({}, move("end_turn"), "pass or take a pound"),
])
def test_an_illegal_action_is_one_line_and_changes_nothing(changes, action, message):
    state = make_state(**changes)
    before = state.to_json()
    with pytest.raises(RuleError, match=message) as error:
        state.apply(action)
    assert "\n" not in str(error.value) and state.to_json() == before
    assert action not in state.legal_moves()


def test_a_third_action_is_refused():
    state = make_state(shops=[{"space": "B2", "owner": "Ann"}])
    state = state.apply(move("pound", space="B2", player="Ann")).apply(move("whisky", space="B2", colour="red"))
    assert state.current_player == "Bob"
    before = state.to_json()
    with pytest.raises(RuleError, match="has taken 2 actions") as error:
        state.apply(move("pound", space="B2", player="Ann"))
    assert "\n" not in str(error.value) and state.to_json() == before


def test_a_whisky_when_the_supply_is_empty_is_refused():
    state = make_state(shops=[{"space": "B2", "owner": "Ann"}], cubes=[{"blue": 4}, {"blue": 4}])
    with pytest.raises(RuleError, match="no blue whisky is left"):
        state.apply(move("whisky", space="B2", colour="blue"))


def test_a_state_holding_more_than_the_box_is_refused():
    with pytest.raises(UserError, match="more blue"):
        make_state(cubes=[{"blue": 5}, {"blue": 4}])


def test_solo_keeps_the_blend_instead_of_vps_and_takes_one_turn():
    state = make_state(players=["Solo"], seals=[False], pounds=[6], cubes=[{"blue": 1, "red": 1}], vps=[0],
                       shops=[{"space": "C5", "owner": "Solo", "whisky": "purple", "pounds": 0}],
                       market=ORANGE_WANTS_PURPLE, start_player="Solo", turn_player="Solo")
    assert {m.kind for m in state.legal_moves()} >= {"end_turn"} and "pass" not in {m.kind for m in state.legal_moves()}
    after = state.apply(move("end_turn"))
    assert after.vps[0] == 0 and dict(after.cubes[0]) == {"purple": 1} and after.pounds[0] == 10
    assert after.sold[0] == {"purple"}


# -- whole games ------------------------------------------------------------------------------


def play_whole_game(players, seed, chooser):
    state = GAME.new_game(GAME.default_players(players), seed=seed)
    rng = random.Random(seed)
    check_invariants(state)
    for _ in range(5000):
        if state.is_terminal():
            break
        if state.dice_to_roll() is not None:
            state = state.apply_roll(state.random_roll(rng))
        else:
            state = state.apply(chooser(state, rng))
        check_invariants(state)
    assert state.is_terminal()
    for name, parts in state.score_breakdown().items():
        assert sum(parts.values()) == state.scores()[name] and set(parts) == {"pounds", "whiskies", "VPs"}
    return state


def random_chooser(state, rng):
    moves = state.legal_moves()
    stops = [m for m in moves if m.kind in ("pass", "take_pound", "end_turn")]
    return rng.choice(stops) if stops and rng.random() < 0.4 else rng.choice(moves)


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_whole_games_by_the_advice_keep_every_invariant_and_end(players):
    final = play_whole_game(players, 11, lambda state, rng: GAME.best_move(state))
    assert final.ended_by == "round_die"             # by the rules' end, not the house-rule cap


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_whole_games_of_random_legal_moves_keep_every_invariant_and_end(players):
    for seed in range(3):
        final = play_whole_game(players, seed, random_chooser)
        assert final.ended_by in ("round_die", "round_cap")


def test_market_end_placement_moves_later_dice_forward():
    state = make_state(seals=[True, True], turn_player="Bob", options={"new_die_place": "market_end"},
                       market=ORANGE_WANTS_GREEN)
    after = baron_round(state)
    assert after.stage == "draw" and len(after.market[0]) == 4 and len(after.market[3]) == 3
    assert after.market[0][-1] == ("yellow", 2)             # the green baron's first die moved up
    placed = after.apply_roll([Die(3, "red")])
    assert placed.last_die.baron == "black"


def test_the_board_views_need_no_game_logic():
    state = make_state(shops=[{"space": "B2", "owner": "Bob", "whisky": "red", "pounds": 2}],
                       barons={"orange": "B2", "green": None, "purple": None, "black": None})
    view = state.board_view()
    cells = {c["space"]: c for c in view["city"]["cells"]}
    assert len(cells) == 25 and cells["C3"]["castle"] and not cells["B2"]["castle"]
    assert cells["B2"]["shop"] == {"owner": "Bob", "whisky": "red", "pounds": 2} and cells["B2"]["barons"] == ["orange"]
    assert [line["baron"] for line in view["market"]["lines"]] == ["orange", "green", "purple", "black"]
    assert view["market"]["lines"][0]["wants"] == "blue" and view["market"]["white_die"] == 1
    assert sum(view["market"]["bag"].values()) == 4
    assert view["turn"]["player"] == "Ann" and view["turn"]["actions_left"] == 2
    assert Counter(view["turn"]["moves"]) == Counter(["pass", "pound", "shop"])
