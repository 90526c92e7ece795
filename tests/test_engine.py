"""The engine's shared pieces: dice text, moves, options, dice requests, the game registry."""
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.engine import DiceRequest, Die, Move, Option, parse_dice
from companion.errors import RuleError, UserError
from companion.games import all_games, get_game


def test_parse_dice_reads_colours_and_plain_values():
    assert parse_dice("white:6 yellow:2, 5") == (Die(6, "white"), Die(2, "yellow"), Die(5))
    assert parse_dice("RED:3") == (Die(3, "red"),)


@pytest.mark.parametrize("text", ["7", "white:0", "white:", "six", "w:6:1"])
def test_parse_dice_refuses_what_is_not_a_die(text):
    with pytest.raises(UserError) as err:
        parse_dice(text)
    assert "\n" not in str(err.value)


@given(st.dictionaries(st.sampled_from(["sets", "barn", "n", "flag"]),
                       st.recursive(st.integers() | st.text(max_size=4) | st.booleans(),
                                    lambda inner: st.lists(inner, max_size=3), max_leaves=6)))
def test_moves_round_trip_through_json_and_hash_equal(params):
    move = Move.make("lock", **params)
    again = Move.from_json(move.to_json())
    assert again == move and hash(again) == hash(move)


def test_move_without_drops_only_the_named_parameter():
    move = Move.make("claim", tiles=[3, 5], player="Ann")
    assert move.without("player") == Move.make("claim", tiles=[3, 5])
    assert move.get("player") == "Ann" and move["tiles"] == (3, 5)


def test_option_coerces_to_the_default_type_and_checks_choices():
    freeze = Option("freeze_supply", 20, "tokens in the box", choices=(10, 20))
    assert freeze.coerce("10") == 10
    with pytest.raises(UserError, match="freeze_supply"):
        freeze.coerce("15")
    flag = Option("strict", False, "a flag")
    assert flag.coerce("yes") is True and flag.coerce("off") is False
    with pytest.raises(UserError):
        flag.coerce("maybe")


def test_dice_request_checks_count_and_colours_but_accepts_unread_colours():
    request = DiceRequest("Ann", ("white", "white", "yellow"))
    request.check((Die(1, "white"), Die(2, "yellow"), Die(3, "white")))
    request.check((Die(1), Die(2), Die(3, "yellow")))
    with pytest.raises(RuleError, match="3 dice"):
        request.check((Die(1, "white"), Die(2, "yellow")))
    with pytest.raises(RuleError, match="red"):
        request.check((Die(1, "white"), Die(2, "red"), Die(3, "white")))


def test_dice_request_draws_the_requested_colours_reproducibly():
    request = DiceRequest("Ann", ("white",) * 7 + ("yellow",))
    first = request.draw(random.Random(3))
    assert first == request.draw(random.Random(3))
    assert [d.colour for d in first] == list(request.colours)
    request.check(first)


def test_every_registered_game_is_found_by_its_name_in_any_spelling():
    for name, game in all_games().items():
        assert get_game(name.upper().replace("-", "_")) is game
    with pytest.raises(UserError, match="unknown game"):
        get_game("monopoly")


def test_a_colourless_slot_takes_a_die_of_any_colour_but_only_one():
    request = DiceRequest("Ann", ("white", None))
    request.check((Die(1, "white"), Die(2, "purple")))
    request.check((Die(1, "white"), Die(2)))
    with pytest.raises(RuleError, match="purple"):
        request.check((Die(1, "red"), Die(2, "purple")))
    with pytest.raises(RuleError, match="2 dice"):
        request.check((Die(1, "white"),))
