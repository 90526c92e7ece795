"""The duplicate tournament: fair seating, win shares and intervals, on a toy dice game."""
import random

import pytest

from companion.tournament import GameResult, head_to_head, markdown_table, seating, wilson_interval


def toy_game(bonus: dict[str, int]):
    """Each seat throws two dice; a policy adds its bonus; the highest total wins (ties shared)."""
    def play(seed, seat_policies):
        rng = random.Random(seed)
        scores = tuple(rng.randint(1, 6) + rng.randint(1, 6) + bonus[p] for p in seat_policies)
        best = max(scores)
        return GameResult(scores, tuple(i for i, s in enumerate(scores) if s == best))
    return play


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_duplicate_pair_gives_each_policy_every_seat_equally(players):
    for seed in range(players):
        first, second = seating(players, seed, False), seating(players, seed, True)
        assert all(a != b for a, b in zip(first, second))
    taken = [sum(seating(players, seed, swapped)[seat] for seed in range(players) for swapped in (False, True))
             for seat in range(players)]
    assert len(set(taken)) == 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_policy_against_itself_wins_half_the_games(players):
    row = head_to_head(toy_game({"a": 0, "b": 0}), "a", "b", players, games=400)
    assert row["win_rate"] == pytest.approx(0.5)    # the same dice, roles swapped: exactly even
    low, high = row["win_rate_95"]
    assert low < 0.5 < high
    assert row["score_difference"] == pytest.approx(0.0)


def test_a_stronger_policy_wins_with_an_interval_above_half():
    row = head_to_head(toy_game({"strong": 2, "weak": 0}), "strong", "weak", 3, games=400)
    assert row["win_rate_95"][0] > 0.5
    assert row["score_difference_95"][0] > 0   # +2 a seat on the same dice
    assert row["score_difference"] == pytest.approx(2.0)


def test_wilson_interval_matches_the_textbook_figures():
    low, high = wilson_interval(50, 100)
    assert (round(low, 3), round(high, 3)) == (0.404, 0.596)
    assert wilson_interval(0, 10)[0] == 0.0 and round(wilson_interval(0, 10)[1], 3) == 0.278
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)


def test_a_tournament_needs_a_pair_of_games():
    with pytest.raises(ValueError):
        head_to_head(toy_game({"a": 0}), "a", "a", 2, games=1)


def test_the_table_has_one_row_a_match_with_its_win_rate_in_percent():
    rows = [head_to_head(toy_game({"a": 0, "b": 0}), "a", "b", p, games=20) for p in (2, 3)]
    lines = markdown_table(rows).splitlines()
    assert len(lines) == 4
    assert lines[2].startswith("| 2 | a | b | 20 | 50.0% (")
