"""The session store: an append-only SQLite log replayed through the engine.

Played with the toy race from ``test_session_toy`` (one white and one red die per
turn, take one value or pass), so the expected scores below follow from the dice the
tests choose, not from anything the store computes.
"""
from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import multiprocessing
import sqlite3
import sys
import threading
from pathlib import Path

import pytest
from test_session_toy import GAME as TOY
from test_session_toy import toy_registered

from companion.engine import Die, Move
from companion.errors import RuleError, UserError
from companion.session import SessionStore, replay_export

TAKE = {"kind": "take"}


def take(value: int) -> dict:
    return {**TAKE, "value": value}


def rows(path: Path) -> list[tuple]:
    """Every event row, read by a separate plain SQLite connection."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT session_id, seq, kind, player, payload FROM events ORDER BY id").fetchall()
    finally:
        conn.close()


@pytest.fixture
def toy_game():
    with toy_registered() as game:
        yield game


@pytest.fixture
def db(tmp_path, toy_game) -> Path:
    return tmp_path / "sessions.sqlite3"


def play_whole_race(store: SessionStore, players: list[str], takes: list[tuple[str, int]], rounds: int = 1):
    """A finished race in which each (dice, value) turn rolls ``dice`` and takes ``value``."""
    session = store.new_session("toy-race", players, {"rounds": rounds}, seed=1)
    for dice, value in takes:
        session.roll(dice)
        session.play(take(value) if value else {"kind": "pass"})
    assert session.finished
    return session


def test_default_file_is_in_the_data_directory_in_wal_mode(toy_game, tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    with SessionStore() as store:
        store.new_session("toy-race", ["Ann"])
    path = tmp_path / "data" / "sessions.sqlite3"
    assert path.is_file()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_every_action_is_a_committed_row_visible_to_another_connection(db):
    store = SessionStore(db)
    session = store.new_session("toy-race", ["Ann", "Bob"], seed=5)
    session.roll("white:6 red:2")
    # another connection (as another process would) already sees the roll: it was committed
    assert [r[2] for r in rows(db)] == ["created", "roll"]
    session.play(take(6))
    logged = rows(db)
    assert [r[2] for r in logged] == ["created", "roll", "move"]
    assert json.loads(logged[2][4])["move"] == take(6)
    assert logged[2][3] == "Ann"


def test_undo_and_redo_are_appended_and_step_one_action(db):
    store = SessionStore(db)
    session = store.new_session("toy-race", ["Ann", "Bob"])
    session.roll("5 3")
    session.play(take(5))
    assert session.state.scores() == {"Ann": 5, "Bob": 0}
    session.undo()  # back before the move: Ann chooses again
    assert session.state.scores() == {"Ann": 0, "Bob": 0}
    assert session.state.legal_moves()  # the roll is still there
    session.undo()  # back before the roll
    assert session.state.dice_to_roll() is not None and not session.can_undo
    with pytest.raises(UserError, match="nothing to undo"):
        session.undo()
    session.redo()
    session.redo()
    assert session.state.scores() == {"Ann": 5, "Bob": 0} and not session.can_redo
    assert [r[2] for r in rows(db)] == ["created", "roll", "move", "undo", "undo", "redo", "redo"]


def test_a_new_action_after_undo_clears_the_redo_stack(db):
    session = SessionStore(db).new_session("toy-race", ["Ann", "Bob"])
    session.roll("5 3")
    session.play(take(5))
    session.undo()
    assert session.can_redo
    session.play(take(3))
    assert not session.can_redo
    with pytest.raises(UserError, match="nothing to redo"):
        session.redo()
    assert session.state.scores()["Ann"] == 3
    history = session.history()
    assert [(e["kind"], e.get("undone")) for e in history] == [
        ("created", None), ("roll", False), ("move", True), ("undo", None), ("move", False)]


def test_the_log_cannot_be_edited_or_shortened(db):
    session = SessionStore(db).new_session("toy-race", ["Ann"])
    session.roll("4 4")
    conn = sqlite3.connect(db)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE events SET payload = '{}'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("DELETE FROM events")
    conn.close()


def test_rejected_roll_or_move_writes_nothing_and_changes_nothing(db):
    store = SessionStore(db)
    session = store.new_session("toy-race", ["Ann", "Bob"])
    session.roll("6 1")
    before_rows, before_state = rows(db), session.state.to_json()
    with pytest.raises(RuleError, match="not rolled"):
        session.play(take(4))
    with pytest.raises(RuleError, match="roll order"):
        session.roll("2 2")
    with pytest.raises(RuleError, match="turn order"):
        session.play({**take(6), "player": "Bob"})
    with pytest.raises(UserError):
        session.roll("7 1")
    with pytest.raises(RuleError):
        session.roll("1 1", photo=b"\xff\xd8\xff a frame of a roll out of order")
    assert rows(db) == before_rows
    assert not store.photo_dir.exists()
    assert session.state.to_json() == before_state
    assert store.open(session.id).state.to_json() == before_state
    assert session.can_undo and not session.can_redo


def test_bad_new_game_writes_nothing(db):
    store = SessionStore(db)
    for bad in (lambda: store.new_session("no-such-game", ["Ann"]),
                lambda: store.new_session("toy-race", ["Ann", "Ann"]),
                lambda: store.new_session("toy-race", ["Ann"], {"laps": 3}),
                lambda: store.new_session("toy-race", ["Ann"], {"rounds": "many"}),
                lambda: store.new_session("toy-race", ["Ann"], {"rounds": 0})):
        with pytest.raises(UserError):
            bad()
    assert rows(db) == [] and store.list_sessions() == []


def test_reopening_replays_to_the_same_state_with_undo_and_redo_intact(db):
    with SessionStore(db) as store:
        session = store.new_session("toy-race", ["Ann", "Bob"], {"rounds": 2}, seed=9)
        session.roll("6 2")
        session.play(take(6))
        session.roll("3 4")
        session.play(take(4))
        session.undo()
        expected = session.state.to_json()
    with SessionStore(db) as store:
        resumed = store.latest_unfinished()
        assert resumed.id == session.id
        assert resumed.state.to_json() == expected
        assert resumed.can_redo
        resumed.redo()
        assert resumed.state.scores() == {"Ann": 6, "Bob": 4}
    with SessionStore(db) as store:
        assert store.open(session.id).state.scores() == {"Ann": 6, "Bob": 4}


def test_latest_unfinished_picks_the_last_played_open_game(db):
    store = SessionStore(db)
    older = store.new_session("toy-race", ["Ann", "Bob"])
    newer = store.new_session("toy-race", ["Cy"])
    play_whole_race(store, ["Dee"], [("1 2", 2)])
    assert store.latest_unfinished().id == newer.id
    older.roll("1 1")  # now the older game is the one last touched
    assert store.latest_unfinished().id == older.id
    assert store.latest_unfinished(players=["Cy"]).id == newer.id
    assert store.latest_unfinished(players=["Zed"]) is None
    finished_ids = {s["id"] for s in store.list_sessions() if s["finished"]}
    assert finished_ids == {3}


def test_history_records_who_what_when_dice_and_photos(db, tmp_path):
    store = SessionStore(db)
    session = store.new_session("toy-race", ["Ann", "Bob"])
    photo = tmp_path / "roll1.jpg"
    photo.write_bytes(b"\xff\xd8 not really a jpeg")
    session.roll([Die(6, "white"), Die(2, "red")], photo=photo)
    session.play(take(2))
    session.roll("3 5", photo=b"camera frame bytes")
    history = store.open(session.id).history()
    roll, move, second = history[1], history[2], history[3]
    assert roll["player"] == "Ann" and roll["dice"] == [{"value": 6, "colour": "white"}, {"value": 2, "colour": "red"}]
    assert roll["photo"] == str(photo.resolve())
    assert move["text"] == "Ann takes 2" and move["move"] == take(2)
    assert second["player"] == "Bob"
    assert store.photo(second["photo"]["sha256"]) == b"camera frame bytes"
    assert b"camera frame bytes" not in db.read_bytes()  # frames are kept beside the log, not in it
    assert [p.name for p in store.photo_dir.iterdir()] == [f"{second['photo']['sha256']}.bin"]
    for not_a_digest in ("", "*", "../" + second["photo"]["sha256"]):
        with pytest.raises(UserError, match="photo"):
            store.photo(not_a_digest)
    assert all(e["time"] <= f["time"] for e, f in itertools.pairwise(history))


def test_export_json_replays_to_the_same_final_state(db):
    store = SessionStore(db)
    session = store.new_session("toy-race", ["Ann", "Bob"], {"rounds": 2}, seed=4)
    for dice, value in [("6 2", 6), ("3 4", 3), ("5 5", 5)]:
        session.roll(dice)
        session.play(take(value))
    session.undo()
    session.play({"kind": "pass"})
    session.roll("1 2")
    session.undo()
    session.redo()
    session.play(take(2))
    exported = json.loads(json.dumps(session.export_json()))
    assert exported["finished"]

    # replay by hand through the engine, independently of the store's code
    state = TOY.new_game(exported["players"], exported["options"], exported["seed"])
    stack, undone = [state], []
    for event in exported["events"]:
        if event["kind"] == "undo":
            stack.pop()
            undone.append(event["undoes"])
            continue
        if event["kind"] == "redo":
            redone = undone.pop()
            event = next(e for e in exported["events"] if e["seq"] == redone)
        elif event["kind"] in ("roll", "move"):
            undone.clear()
        if event["kind"] == "roll":
            stack.append(stack[-1].apply_roll([Die.from_json(d) for d in event["dice"]]))
        elif event["kind"] == "move":
            stack.append(stack[-1].apply(Move.from_json(event["move"])))
    assert stack[-1].to_json() == session.state.to_json() == exported["state"]
    assert stack[-1].scores() == {"Ann": 6, "Bob": 5}
    assert replay_export(exported).to_json() == session.state.to_json()


def test_export_csv_has_one_row_per_event(db):
    session = SessionStore(db).new_session("toy-race", ["Ann", "Bob"])
    session.roll("white:6 red:2")
    session.play(take(6))
    session.undo()
    table = list(csv.DictReader(io.StringIO(session.export_csv())))
    assert [r["kind"] for r in table] == ["created", "roll", "move", "undo"]
    assert table[1]["dice"] == "white:6 red:2" and table[1]["player"] == "Ann"
    assert json.loads(table[2]["move"]) == take(6) and table[2]["undone"] == "yes"


def test_player_stats_come_from_finished_games_only(db):
    store = SessionStore(db)
    play_whole_race(store, ["Ann", "Bob"], [("6 2", 6), ("4 3", 4)])          # Ann 6, Bob 4
    play_whole_race(store, ["Bob", "Ann"], [("5 5", 5), ("2 1", 1)])          # Bob 5, Ann 1
    play_whole_race(store, ["Ann", "Cy"], [("3 2", 3), ("6 6", 6)])           # Ann 3, Cy 6
    unfinished = store.new_session("toy-race", ["Ann", "Bob"], {"rounds": 1})
    unfinished.roll("6 6")
    unfinished.play(take(6))
    reopened = play_whole_race(store, ["Dee"], [("6 5", 6)])
    reopened.undo()  # the end was taken back: no longer a finished game
    assert store.player_stats() == {
        "Ann": {"games": 3, "wins": 1, "average_score": round(10 / 3, 2), "best_score": 6},
        "Bob": {"games": 2, "wins": 1, "average_score": 4.5, "best_score": 5},
        "Cy": {"games": 1, "wins": 1, "average_score": 6.0, "best_score": 6},
    }


def test_two_connections_share_a_session_without_losing_events(db):
    first = SessionStore(db).new_session("toy-race", ["Ann", "Bob"])
    second = SessionStore(db).open(first.id)
    first.roll("6 3")
    second.play(take(3))  # the second view catches up with the roll before checking the move
    first.roll("2 2")
    assert first.state.scores() == {"Ann": 3, "Bob": 0}
    assert SessionStore(db).open(first.id).state.to_json() == first.state.to_json()
    assert [r[1] for r in rows(db)] == [0, 1, 2, 3]


def _play_many(path: str, player: str, turns: int) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from test_session_toy import GAME

    from companion.games import all_games

    all_games()[GAME.name] = GAME
    session = SessionStore(path).new_session("toy-race", [player], {"rounds": turns})
    for _ in range(turns):
        session.random_roll()
        session.play({"kind": "pass"})


def test_two_processes_writing_at_once_keep_the_file_whole(db):
    SessionStore(db).close()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_play_many, args=(str(db), name, 25)) for name in ("Ann", "Bob")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    store = SessionStore(db)
    sessions = store.list_sessions()
    assert sorted(s["players"][0] for s in sessions) == ["Ann", "Bob"]
    assert all(s["finished"] and s["actions"] == 50 for s in sessions)
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


# -- files that are not a healthy session database ---------------------------------------

def _real_database(path: Path) -> bytes:
    with SessionStore(path) as store:
        for seed in range(12):
            session = store.new_session("toy-race", ["Ann", "Bob"], {"rounds": 6}, seed=seed)
            while not session.finished:
                session.random_roll()
                session.play(take(session.state.rolled[0].value))
    assert not Path(f"{path}-wal").exists()  # closed cleanly: everything is in the main file
    return path.read_bytes()


def _foreign_sqlite(path: Path) -> bytes:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE events (id INTEGER PRIMARY KEY, what TEXT)")
    conn.execute("INSERT INTO events (what) VALUES ('a shopping list')")
    conn.commit()
    conn.close()
    return path.read_bytes()


def _other_schema_version(path: Path) -> bytes:
    _real_database(path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    return path.read_bytes()


def _first_half(path: Path) -> bytes:
    data = _real_database(path)
    return data[: len(data) // 2]


def _overwritten_page(path: Path) -> bytes:
    data = bytearray(_real_database(path))
    middle = len(data) // 2 // 4096 * 4096
    data[middle:middle + 4096] = bytes(range(256)) * 16
    return bytes(data)


BAD_FILES = {
    "empty": (lambda path: b"", "is empty"),
    "not sqlite": (lambda path: b"Ann 12\nBob 9\n" * 50, "is not a SQLite database"),
    "foreign sqlite": (_foreign_sqlite, "another program"),
    "other schema version": (_other_schema_version, "schema version 99"),
    "truncated": (_first_half, "malformed"),
    "corrupt page": (_overwritten_page, "corrupt|malformed"),
    "short header": (lambda path: b"SQLite format 3\x00\x10\x00", "truncated"),
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_a_bad_file_is_refused_in_one_line_and_left_untouched(tmp_path, toy_game, kind):
    make, reason = BAD_FILES[kind]
    source = tmp_path / "source.sqlite3"
    content = make(source)
    target = tmp_path / "bad" / "sessions.sqlite3"
    target.parent.mkdir()
    target.write_bytes(content)
    digest = hashlib.sha256(content).hexdigest()
    with pytest.raises(UserError, match=reason) as refused:
        SessionStore(target)
    message = str(refused.value)
    assert "\n" not in message and str(target) in message and "untouched" in message
    assert hashlib.sha256(target.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in target.parent.iterdir()) == ["sessions.sqlite3"]


def test_a_damaged_record_is_refused_when_its_session_is_opened(tmp_path, toy_game):
    path = tmp_path / "sessions.sqlite3"
    data = _real_database(path)
    marker = b'{"move": {"kind": "take"'
    assert marker in data
    path.write_bytes(data.replace(marker, b"#" + marker[1:], 1))  # same length: pages stay valid
    store = SessionStore(path)  # the structure is sound, so the file opens
    damaged = []
    for info in store.list_sessions():
        try:
            store.open(info["id"])
        except UserError as exc:
            assert "\n" not in str(exc) and "unreadable event" in str(exc) and str(path) in str(exc)
            damaged.append(info["id"])
    assert len(damaged) == 1


def test_a_directory_in_place_of_the_file_is_refused(tmp_path):
    (tmp_path / "sessions.sqlite3").mkdir()
    with pytest.raises(UserError, match="is a directory"):
        SessionStore(tmp_path / "sessions.sqlite3")


def test_threads_sharing_one_store_do_not_trip_over_each_other(db):
    store = SessionStore(db)
    sessions = [store.new_session("toy-race", [name], {"rounds": 30}) for name in ("Ann", "Bob", "Cy")]
    failures: list[BaseException] = []

    def play(session):
        try:
            while not session.finished:
                session.random_roll()
                session.play({"kind": "pass"})
                store.list_sessions()
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            failures.append(exc)

    threads = [threading.Thread(target=play, args=(s,)) for s in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert failures == []
    assert [s["actions"] for s in SessionStore(db).list_sessions()] == [60, 60, 60]


def test_a_session_whose_log_no_longer_replays_is_refused_alone(db):
    store = SessionStore(db)
    broken = store.new_session("toy-race", ["Ann"])
    broken.roll("2 3")
    healthy = store.new_session("toy-race", ["Bob"])
    healthy.roll("4 4")
    conn = sqlite3.connect(db)  # as if the rules had changed: a logged move is now illegal
    conn.execute("INSERT INTO events (session_id, seq, kind, player, payload, created_at) "
                 "VALUES (?, 2, 'move', 'Ann', ?, '2026-01-01T00:00:00+00:00')",
                 (broken.id, json.dumps({"move": take(6), "text": "Ann takes 6"})))
    conn.commit()
    conn.close()
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    with pytest.raises(UserError, match=f"session {broken.id} .* does not replay .*event 2") as refused:
        SessionStore(db).open(broken.id)
    assert "\n" not in str(refused.value)
    assert SessionStore(db).open(healthy.id).state.to_json() == healthy.state.to_json()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest


def test_the_benchmark_plays_a_whole_game_and_leaves_no_file(toy_game, tmp_path):
    from companion.session import bench_sessions

    figures = bench_sessions(directory=tmp_path, game_name="toy-race", repeats=1, stored_games=5)
    assert figures["game_finished"] and figures["actions"] == 2 * 2  # 1 player, 2 rounds, roll + move each
    assert figures["large_store"]["games"] == 5
    assert set(figures["ms_per_bare_commit"]) == {"FULL", "NORMAL"}
    assert list(tmp_path.iterdir()) == []


def test_resume_follows_the_order_of_play_even_when_the_clock_jumps_back(db, monkeypatch):
    import companion.session as session_module

    store = SessionStore(db)
    monkeypatch.setattr(session_module, "_now", lambda: "2026-06-02T20:00:00.000+00:00")
    first = store.new_session("toy-race", ["Ann"])
    second = store.new_session("toy-race", ["Bob"])
    second.roll("1 2")
    # a Pi without a real-time clock, booted offline: its clock says 1970
    monkeypatch.setattr(session_module, "_now", lambda: "1970-01-01T00:01:00.000+00:00")
    first.roll("3 4")
    assert store.latest_unfinished().id == first.id
    assert [s["id"] for s in store.list_sessions()] == [first.id, second.id]


def test_a_path_that_cannot_be_created_is_a_one_line_error(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where a directory should be")
    with pytest.raises(UserError, match="cannot use session file") as refused:
        SessionStore(blocker / "sessions.sqlite3")
    assert "\n" not in str(refused.value)
    assert blocker.read_text() == "a file where a directory should be"
