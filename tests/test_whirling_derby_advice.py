"""Whirling Derby's advice: a re-roll's chance to clear your cards, a winning activation
said as such, a die handed out weighed by how much it helps and whether it may come back,
the app giving exactly the advice the tournaments measure."""
import random
from dataclasses import replace

from companion.engine import Move, parse_dice
from companion.games import get_game
from companion.games.whirling_derby_advice import comes_back, policy
from companion.games.whirling_derby_policies import greedy, play, previous, random_policy
from companion.games.whirling_derby_sim import Bridge

GAME = get_game("whirling-derby")
P = ("Ann", "Bob", "Cy")          # red, blue, green by default


def position(players=P, stage="activate", boards=None, sides=None, turn_seat=0, actor=None, **fields):
    """A state with the given cards: boards = {seat: {card: "red:1 red:2"}}, sides = {seat: {card: 1}}."""
    state = GAME.new_game(players)
    rows = []
    for seat in range(len(players)):
        rows.append(tuple(((sides or {}).get(seat, {}).get(card.key, 0),
                           tuple(sorted(parse_dice((boards or {}).get(seat, {}).get(card.key, "")))))
                          for card in state.rules.cards))
    for key in ("pending", "outgoing"):
        if key in fields:
            fields[key] = tuple(sorted(parse_dice(fields[key])))
    return replace(state, boards=tuple(rows), stage=stage, turn_seat=turn_seat,
                   actor=turn_seat if actor is None else actor, reroll=(), turn=5, **fields)


def top(state):
    return GAME.advise(state)[0]


def test_a_reroll_that_can_clear_your_cards_says_how_likely_that_is():
    """A run 2-5 and one die on the Stove: re-rolling the Stove wins on a 1 or a 6."""
    state = position(stage="choose_reroll", boards={0: {"run": "red:2 red:3 red:4 red:5", "stove": "red:6"}})
    best = top(state)
    assert best.move == Move.make("reroll", card="stove")
    assert 0.1 < best.advice["win_chance"] < 0.6
    assert "chance to clear your cards this turn" in best.reason
    other = next(s for s in GAME.advise(state) if s.move == Move.make("reroll", card="run"))
    assert other.advice["win_chance"] == 0                # the Stove die stays: no way out this turn


def test_an_activation_that_empties_your_cards_is_said_to_win():
    state = position(boards={0: {"kind": "red:4 red:4 red:4"}})
    best = top(state)
    assert best.move == Move.make("activate", card="kind")
    assert best.reason == "gives away your last 3 dice: you win"
    state = position(boards={0: {"kind": "red:4 red:4 red:4", "stove": "red:1"}})
    assert "win" not in top(state).reason


def test_handing_out_does_not_feed_the_next_players_card_even_with_your_own_colour():
    """Bob's run 4-5 would grow with a 6 (or a 3); the previous advice handed him Ann's red 6
    (own colour first), this one a neutral 1 that fits nothing of his."""
    players = ("Ann", "Bob")
    state = position(players, boards={0: {"run": "white:1 white:2 white:3 white:4 white:5 red:6"},
                                      1: {"run": "blue:4 blue:5", "stove": "blue:1 blue:1 blue:2"}})
    state = state.apply(Move.make("activate", card="run")).apply(Move.make("hand", die="white:2"))
    assert state.target() == 1
    best = top(state)
    assert best.move == Move.make("hand", die="white:1")
    fed = next(s for s in GAME.advise(state) if s.move == Move.make("hand", die="red:6"))
    assert fed.advice["helps_them"] == 1 and "add 1 to their best card" in fed.reason
    bridge = Bridge(state)
    mine = bridge.state(state)
    assert previous(bridge.sim, mine, random.Random(0)) == bridge.move(Move.make("hand", die="red:6"))


def test_a_die_of_your_own_colour_never_comes_back_another_may():
    """A 6 completes Bob's run 5-6: when he hands those 2 dice out, the first goes to the
    Compost and the second to Ann in two players, to Cy in three; own colour never comes back."""
    for players, reaches in ((("Ann", "Bob"), True), (P, False)):
        state = position(players, stage="distribute", boards={1: {"run": "blue:5"}},
                         outgoing=("red:6 white:6" if len(players) == 2 else "red:6 green:6"), hand_step=1)
        bridge = Bridge(state)
        mirror = bridge.state(state)
        own = bridge.die(parse_dice("red:6")[0])
        other = next(d for d in mirror.outgoing if d != own)
        assert comes_back(bridge.sim, mirror, own, 1) == (2, 0.0)
        helps, back = comes_back(bridge.sim, mirror, other, 1)
        assert helps == 2 and (back > 0) == reaches


def test_the_app_gives_the_advice_the_tournaments_measure():
    """Whole games: the engine's first suggestion is the simulator policy's move, every time."""
    for seed, count in ((3, 2), (4, 3), (5, 4)):
        rng = random.Random(seed)
        state = GAME.new_game(GAME.default_players(count))
        bridge = Bridge(state)
        while not state.is_terminal():
            if state.dice_to_roll() is not None:
                state = state.apply_roll(state.random_roll(rng))
                continue
            move = top(state).move
            assert bridge.move(move) == policy(bridge.sim, bridge.state(state))
            state = state.apply(move)


def test_every_tournament_player_makes_only_legal_moves_to_the_end():
    bridge = Bridge(GAME.new_game(GAME.default_players(3)))
    sim = bridge.sim

    def checked(player):
        def move(sim_, state, rng):
            chosen = player(sim_, state, rng)
            assert chosen in sim_.legal_moves(state), (state.stage, chosen)
            return chosen
        return move

    for seed in range(4):
        final = play(sim, seed, [checked(p) for p in (policy, greedy, previous)][seed % 3:] +
                     [checked(p) for p in (policy, greedy, previous)][:seed % 3])
        assert final.stage == "over" and final.winner is not None
    final = play(sim, 9, [checked(random_policy)] * 3)
    assert final.stage == "over"


def test_a_small_tournament_gives_a_row_per_player_count_and_opponent():
    from companion.bench_advice import derby_tournaments
    report = derby_tournaments(games=4, player_counts=(2, 3), opponents=("greedy", "random legal"))
    rows = report["rows"]
    assert [(r["players"], r["opponent"]) for r in rows] == [(2, "greedy"), (3, "greedy"), (2, "random legal"),
                                                             (3, "random legal")]
    assert all(r["games"] == 4 and 0 <= r["win_rate"] <= 1 for r in rows)
    assert report["table"].count("\n") == len(rows) + 1 and "| 3 | advice | random legal | 4 |" in report["table"]
