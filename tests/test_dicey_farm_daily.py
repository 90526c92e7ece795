"""Dicey Farm's Daily Mode: the day's dice, craftsman order and merchant slots (digest section 7)."""
import datetime

import pytest

from companion.engine import Move
from companion.errors import UserError
from companion.games import get_game
from companion.games.dicey_farm_daily import MersenneTwister, daily_tables, seed_number, seed_string

GAME = get_game("dicey-farm")
FRIDAY = datetime.date(2024, 6, 7)


def test_the_seed_string_is_month_day_and_weekday_from_sunday():
    assert seed_string(FRIDAY) == "06075"
    assert seed_string(datetime.date(2024, 6, 9)) == "06090"          # a Sunday
    assert seed_string(datetime.date(2024, 6, 8)) == "06086"          # a Saturday


def test_the_hash_with_its_length_quirk_matches_the_digest():
    assert seed_number("06075") == 13808371720
    assert seed_number("06075") % 2**32 == 923469832


def test_mt19937_gives_the_reference_outputs():
    # The reference implementation's first outputs for init_genrand(5489).
    mt = MersenneTwister(5489)
    assert [mt.next_u32() for _ in range(3)] == [3499211612, 581869302, 3890346734]


def test_the_digests_vector_for_06075():
    tables = daily_tables(FRIDAY, 31, 8)
    by_round, start = [], 0
    for count in (2, 2, 3, 3, 3, 4, 4, 4):
        by_round.append(list(tables.dice[start:start + count]))
        start += count
    assert by_round == [[6, 1], [6, 5], [2, 1, 5], [2, 6, 6], [6, 6, 2], [5, 6, 4, 3], [1, 6, 3, 2], [3, 1, 4, 1]]
    state = GAME.new_game(["Ann"], {"daily": "2024-06-07"})
    first_six = [c["name"] for c in state.board_view()["farms"][0]["row"]]
    assert first_six == ["baker", "chef", "carpenter", "cheesemaker", "grocer", "shepherd"]
    assert tables.merchant_table[0] == (7, 3, 2, 5, 4, 0, 1, 6)
    base = state.board_view()["merchants"][0]
    assert [s["goods"] for s in base["slots"]] == ["pig", "2 vegetable seeds", "2 flower seeds", "chicken",
                                                 "2 wheat seeds", "sheep"]


def test_daily_mode_deals_the_dice_without_a_roll():
    state = GAME.new_game(["Ann"], {"daily": "2024-06-07"})
    assert state.dice_to_roll() is None and state.stage == "act"
    assert sorted(state.farm.pool) == [1, 6]
    assert any("the day's dice are 6 1" in a.message for a in state.alerts())
    state = state.apply(Move.make("tourism", die=6, vp=6)).apply(Move.make("fishing", die=1))
    state = state.apply(Move.make("convert", goods="fish")).apply(Move.make("end_round"))
    assert state.round == 2 and state.dice_to_roll() is None and sorted(state.farm.pool) == [5, 6]
    state = state.apply(Move.make("tourism", die=6, vp=6)).apply(Move.make("fishing", die=5))
    state = state.apply(Move.make("end_round"))
    assert state.round == 3 and sorted(state.farm.pool) == [1, 2, 5]
    base = [s["goods"] for s in state.board_view()["merchants"][0]["slots"]]
    assert base == ["pig", "2 flower seeds", "sheep", "2 wheat seeds", "cow", "chicken"]
    assert state.board_view()["merchants"][0]["not_sold"] == ["vegetable seed"]
    assert state.board_view()["mode"] == "Daily Mode 2024-06-07"


def test_daily_mode_survives_a_state_file():
    state = GAME.new_game(["Ann", "Bob"], {"daily": "2024-06-07"})
    again = GAME.state_from_json(state.to_json())
    assert again.to_json() == state.to_json() and again.rules.tables.dice[:2] == (6, 1)


def test_a_bad_date_is_one_line():
    with pytest.raises(UserError) as info:
        GAME.new_game(["Ann"], {"daily": "2024-13-40"})
    assert "YYYY-MM-DD" in str(info.value)


def test_normal_mode_draws_deck_and_slots_from_the_seed():
    one, same, other = (GAME.new_game(["Ann"], seed=s) for s in (7, 7, 8))
    assert one.dice_to_roll() is not None
    assert one.board_view()["farms"][0]["row"] == same.board_view()["farms"][0]["row"]
    assert one.rules.tables != other.rules.tables
