"""Whirling Derby properties over random play: dice are conserved per colour, nobody ever
receives a die of their own colour, exactly the listed moves are accepted, games end."""
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.bench_derby import derby_games_per_second
from companion.cli import main
from companion.engine import Die, Move
from companion.errors import RuleError, UserError
from companion.games import get_game
from companion.simulate import play_game

GAME = get_game("whirling-derby")


def own_colour_held(state, seat):
    """Dice of ``seat``'s colour that ``seat`` holds: on their cards, or in their hand while acting."""
    colour = state.colour_of(seat)
    held = sum(d.colour == colour for _, dice in state.boards[seat] for d in dice)
    if state.actor == seat and not state.is_terminal():
        held += sum(d.colour == colour for d in state.pending) + state.reroll.count(colour)
    return held


def check_step(before, after):
    assert after.dice_by_colour() == after.starting_totals()
    if after.phase == "receive":
        assert all(d.colour != after.colour_of(after.actor) for d in after.pending)
    if not before.phase.startswith("setup"):        # set-up hands each player their own dice
        for seat in range(len(after.players)):
            assert own_colour_held(after, seat) <= own_colour_held(before, seat)


@settings(max_examples=25)
@given(st.integers(2, 4), st.integers(0, 10**6))
def test_random_legal_play_keeps_the_invariants_and_ends(count, seed):
    rng = random.Random(seed)
    state = GAME.new_game(GAME.default_players(count), {"turn_cap": 30})
    for step in range(20_000):
        if state.is_terminal():
            break
        if state.dice_to_roll() is not None:
            after = state.apply_roll(state.random_roll(rng))
        else:
            moves = state.legal_moves()
            assert moves, f"no legal move in phase {state.phase}"
            after = state.apply(rng.choice(moves))
        check_step(state, after)
        if step % 25 == 0:
            assert GAME.state_from_json(json.loads(json.dumps(after.to_json()))) == after
        state = after
    assert state.is_terminal() and len(state.winners()) == 1
    if state.ended_by is None:
        assert state.dice_on_cards(state.winner) == 0


def candidate_moves(state, rng):
    """Moves a confused player might try: every kind with cards, sides, players and dice from the game."""
    dice = sorted({str(d) for board in state.boards for _, on in board for d in on}
                  | {str(d) for d in state.pending + state.outgoing} | {f"{c}:{rng.randint(1, 6)}" for c in
                                                                        ("red", "blue", "white")})
    cards = [c.key for c in state.rules.cards] + ["table"]
    sides = [s.key for c in state.rules.cards for s in c.sides]
    picks = [Move.make("place", die=rng.choice(dice), card=rng.choice(cards)),
             Move.make("activate", card=rng.choice(cards)), Move.make("end_turn"),
             Move.make("hand", die=rng.choice(dice)), Move.make("give", to=rng.choice(state.players)),
             Move.make("reroll", card=rng.choice(cards)), Move.make("reroll", colour=rng.choice(["red", "blue"])),
             Move.make("set_side", card=rng.choice(cards), side=rng.choice(sides)), Move.make("keep_sides"),
             Move.make("lift", card=rng.choice(cards), die=rng.choice(dice)), Move.make("done_lifting"),
             Move.make("fly")]
    return picks


@settings(max_examples=12)
@given(st.integers(2, 4), st.integers(0, 10**6))
def test_exactly_the_legal_moves_are_accepted_and_refusals_change_nothing(count, seed):
    rng = random.Random(seed)
    state = GAME.new_game(GAME.default_players(count), {"turn_cap": 20})
    for _ in range(200):
        if state.is_terminal():
            break
        if state.dice_to_roll() is not None:
            state = state.apply_roll(state.random_roll(rng))
            continue
        legal = set(state.legal_moves())
        before = json.dumps(state.to_json(), sort_keys=True)
        for move in candidate_moves(state, rng):
            try:
                state.apply(move)
            except (RuleError, UserError) as exc:
                assert move not in legal, f"{move} is listed but refused: {exc}"
                assert "\n" not in str(exc)
            else:
                assert move in legal, f"{move} is accepted but not listed in phase {state.phase}"
            assert json.dumps(state.to_json(), sort_keys=True) == before
        state = state.apply(rng.choice(sorted(legal, key=str)))


@settings(max_examples=10)
@given(st.integers(2, 4), st.integers(0, 10**6))
def test_advice_ranks_every_legal_move_once_at_every_node(count, seed):
    rng = random.Random(seed)
    state = GAME.new_game(GAME.default_players(count))
    for _ in range(200):
        if state.is_terminal():
            break
        if state.dice_to_roll() is not None:
            state = state.apply_roll(state.random_roll(rng))
            continue
        advice = GAME.advise(state)
        moves = [s.move for s in advice]
        assert len(moves) == len(set(moves)) and set(moves) == set(state.legal_moves())
        state = state.apply(rng.choice(moves[:2]))


@given(st.lists(st.tuples(st.integers(1, 6), st.sampled_from(["blue", "white", "purple", None])),
                min_size=14, max_size=14))
def test_any_camera_reading_of_the_right_count_is_accepted_or_refused_in_one_line(reading):
    """Bob's set-up roll: 9 blue and 5 white dice; unknown colours are flagged, never lost."""
    state = GAME.new_game(("Ann", "Bob"))
    dice = [Die(v, c) for v, c in reading]
    try:
        rolled = state.apply_roll(dice)
    except RuleError as exc:         # more blue or white dice than rolled
        assert "\n" not in str(exc)
        return
    assert rolled.dice_by_colour() == rolled.starting_totals()
    unsure = sum(c not in ("blue", "white") for _, c in reading)
    flags = [a for a in rolled.alerts() if a.kind == "confirm_colour"]
    assert len(flags) == (1 if unsure else 0)      # one line for the whole roll, however many dice
    if unsure:
        colours = {c for _, c in reading}
        assert ("purple" in flags[0].message) == ("purple" in colours)
        assert ("not read" in flags[0].message) == (None in colours)


def test_advised_games_end_with_one_winner_and_conserve_dice():
    for count in (2, 3, 4):
        for seed in range(3):
            rng = random.Random(seed)
            state = GAME.new_game(GAME.default_players(count))
            while not state.is_terminal():
                state = state.apply_roll(state.random_roll(rng)) if state.dice_to_roll() else \
                    state.apply(GAME.advise(state)[0].move)
                assert state.dice_by_colour() == state.starting_totals()
            assert len(state.winners()) == 1
    assert len(play_game(GAME, GAME.default_players(2), 0)["winners"]) == 1


def test_simulate_command_plays_whirling_derby(capsys):
    assert main(["simulate", "--game", "whirling-derby", "--players", "3", "--games", "4", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 4 and all(len(r["winners"]) == 1 for r in report["results"])


def test_benchmark_reports_speed_and_how_every_game_ended():
    figures = derby_games_per_second(games=3, player_counts=(2, 4))
    assert sorted(figures) == ["2", "4"]
    for count, row in figures.items():
        assert row["players"] == int(count) and row["games_per_second"] > 0
        assert row["won_outright"] + row["stalemates"] + row["turn_caps"] == 3


def test_suggest_command_flags_a_die_of_nobodys_colour(capsys):
    roll = " ".join(["blue:3"] * 8 + ["purple:5"] + ["white:2"] * 5)
    assert main(["suggest", "--game", "whirling-derby", "--players", "Ann,Bob", "--dice", roll, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["player"] == "Bob" and report["phase"] == "setup_place"
    assert [a["kind"] for a in report["alerts"]] == ["confirm_colour"] and "purple" in report["alerts"][0]["message"]
    flagged = [m for m in report["moves"] if m["move"]["die"] == "blue:5"]
    assert flagged and all("confirm" in m["text"] for m in flagged)
