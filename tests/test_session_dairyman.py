"""Sessions of the real Dairyman game: a whole game logged, replayed, exported and counted."""
from __future__ import annotations

import json
import random
import sqlite3

import pytest

from companion.engine import Die, Move
from companion.errors import RuleError
from companion.games import all_games
from companion.session import SessionStore, replay_export

pytestmark = pytest.mark.skipif("dairyman" not in all_games(), reason="companion/games/dairyman.py has not landed")


def event_count(path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        conn.close()


def play_to_the_end(session, seed: int) -> None:
    """Seeded random rolls and the top advised move until the game ends."""
    rng = random.Random(seed)
    game = session.game
    while not session.finished:
        state = session.state
        if state.dice_to_roll() is not None:
            session.roll(state.random_roll(rng))
        else:
            session.play(game.advise(state)[0].move)


def test_a_whole_game_replays_from_the_log_and_counts_in_the_stats(tmp_path):
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        session = store.new_session("dairyman", ["Ann", "Bob", "Cy"], seed=11)
        play_to_the_end(session, seed=11)
        exported = json.loads(json.dumps(session.export_json()))
        final = session.state

    # an independent replay of the exported events through the engine (no undo in this game)
    game = all_games()["dairyman"]
    state = game.new_game(exported["players"], exported["options"], exported["seed"])
    for event in exported["events"]:
        if event["kind"] == "roll":
            state = state.apply_roll([Die.from_json(d) for d in event["dice"]])
        elif event["kind"] == "move":
            state = state.apply(Move.from_json(event["move"]))
    assert state.is_terminal() and state.to_json() == final.to_json()
    assert replay_export(exported).to_json() == final.to_json()

    with SessionStore(path) as store:
        assert store.open(session.id).state.to_json() == final.to_json()
        assert store.latest_unfinished() is None
        stats = store.player_stats()
    scores, winners = state.scores(), state.winners()
    assert stats == {p: {"games": 1, "wins": int(p in winners), "average_score": float(scores[p]),
                         "best_score": scores[p]} for p in ["Ann", "Bob", "Cy"]}


def test_illegal_dairyman_moves_are_refused_and_not_logged(tmp_path):
    path = tmp_path / "sessions.sqlite3"
    session = SessionStore(path).new_session("dairyman", ["Ann", "Bob"], seed=3)
    session.roll("white:6 white:4 white:5 white:5 white:3 white:2 white:1 yellow:4")
    before, state = event_count(path), session.state.to_json()
    illegal = [
        {"kind": "lock", "sets": [["white:4", "white:5"]]},                        # totals 9
        {"kind": "lock", "sets": [["white:4", "white:6"], ["white:6", "white:4"]]},  # dice used twice
        {"kind": "lock", "sets": [["white:4", "white:6"]], "player": "Bob"},        # out of turn
    ]
    for move in illegal:
        with pytest.raises(RuleError):
            session.play(move)
    with pytest.raises(RuleError):
        session.roll("white:1 white:1")
    assert event_count(path) == before
    assert session.state.to_json() == state
    session.play({"kind": "lock", "sets": [["white:4", "white:6"]]})
    assert event_count(path) == before + 1


def test_undoing_the_last_move_reopens_a_finished_game(tmp_path):
    store = SessionStore(tmp_path / "sessions.sqlite3")
    session = store.new_session("dairyman", ["Ann", "Bob"], seed=4)
    play_to_the_end(session, seed=4)
    final = session.state.to_json()
    assert store.player_stats()["Ann"]["games"] == 1
    session.undo()
    assert not session.finished and store.player_stats() == {}
    assert store.latest_unfinished().id == session.id
    session.redo()
    assert session.finished and session.state.to_json() == final
    assert store.player_stats()["Ann"]["games"] == 1
