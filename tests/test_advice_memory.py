"""The advice's caches that grow with every position seen are emptied when a game starts in the app,
so days of play stay within the Pi's memory; the advice is the same with or without them."""
import random

from companion.games import dairyman_advice, get_game, whirling_derby
from companion.simulate import play_game


def test_forgetting_positions_empties_every_growing_cache_and_keeps_the_advice():
    game = get_game("dairyman")
    play_game(game, ("Ann", "Bob"), seed=4)            # a whole game fills the caches
    state = game.new_game(("Ann", "Bob"), seed=9)
    state = state.apply_roll(state.random_roll(random.Random(2)))
    remembered = [(s.text, s.reason) for s in game.advise(state)]
    assert sum(c.cache_info().currsize for c in dairyman_advice.POSITION_CACHES) > 100
    game.forget_positions()
    assert all(c.cache_info().currsize == 0 for c in dairyman_advice.POSITION_CACHES)
    assert [(s.text, s.reason) for s in game.advise(state)] == remembered


def test_whirling_derby_forgets_its_plans_too():
    game = get_game("whirling-derby")
    play_game(game, game.default_players(), seed=1)
    plans = (whirling_derby.best_additions, whirling_derby._best_plan)
    assert all(c.cache_info().currsize > 0 for c in plans)
    game.forget_positions()
    assert all(c.cache_info().currsize == 0 for c in plans)

