"""Saved games and the session store when files move, are read-only or missing, or are shared.

Real SQLite files in tmp_path and real ``companion`` processes: a Whirling Derby game
whose card data file moves away, data directories and files that cannot be written,
a ``--db`` that does not exist, two players' processes on one game, and player names
that would break the text commands.
"""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from slow_machine import TIME_SCALE
from test_play_cli import PlayProcess, state_of, toy_game  # noqa: F401 - toy_game is a fixture

from companion.errors import UserError
from companion.session import MAX_NAME_LENGTH, SessionStore

REPO = Path(__file__).parent.parent
TIMEOUT_SECONDS = 120 * TIME_SCALE
CARD_DATA = '[sides.not_equal]\npattern = "not_all_equal"\n[setup]\nfour_equal_is_two_pairs = false\n'


def companion(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", *args], input=stdin, capture_output=True, text=True,
                          timeout=TIMEOUT_SECONDS, cwd=REPO, check=False)


def refused_in_one_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, result
    assert result.stderr.startswith("companion: ") and result.stderr.count("\n") == 1, result.stderr
    return result.stderr


def exported_state(db: Path) -> dict:
    result = companion("export", "--format", "json", "--db", str(db))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


# -- 1. a saved game carries its card data ------------------------------------------------

def test_a_derby_game_replays_from_its_own_copy_of_the_card_data(tmp_path):
    cards, db = tmp_path / "cards.toml", tmp_path / "games.sqlite3"
    cards.write_text(CARD_DATA)
    started = companion("play", "--game", "whirling-derby", "--players", "Ann,Bob", "--seed", "1", "--db", str(db),
                        "--options", f"card_data={cards}", stdin="roll random\nmove 1\nmove 1\nquit\n")
    assert started.returncode == 0 and started.stdout.count("\nok ") == 3, started
    before = exported_state(db)

    cards.rename(tmp_path / "moved.toml")
    for replaced in (None, "not toml ["):   # the file gone, then something else at its path
        if replaced is not None:
            cards.write_text(replaced)
        export = exported_state(db)
        assert export["state"] == before["state"] and export["events"] == before["events"]
        assert json.loads(export["options"]["card_data"])["sides"]["not_equal"]["pattern"] == "not_all_equal"
        history = companion("history", "--db", str(db))
        assert history.returncode == 0 and "\n   3 " in history.stdout, history.stderr
        resumed = companion("play", "--db", str(db), stdin="state\nquit\n")
        assert resumed.returncode == 0 and resumed.stdout.startswith("resumed session 1:"), resumed.stderr
        assert json.loads(resumed.stdout.splitlines()[-1])["phase"] == before["state"]["stage"]

    # A game saved before saves carried their data (its options name the file) still reads the file.
    cards.write_text(CARD_DATA)
    options = {**before["options"], "card_data": str(cards)}
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO events (session_id, seq, kind, player, payload, created_at) VALUES (2, 0, 'created', "
                 "NULL, ?, '2025-01-01T00:00:00.000+00:00')",
                 (json.dumps({"game": "whirling-derby", "players": ["Ann", "Bob"], "options": options, "seed": 1,
                              "text": "an old save"}),))
    conn.commit()
    conn.close()
    with SessionStore(db) as store:
        old_save = store.open(2)
        assert old_save.options["card_data"] == str(cards)
        assert old_save.state.rules.cards[0].sides[1].pattern == "not_all_equal"


# -- 2. read-only places ------------------------------------------------------------------

@pytest.fixture
def make_read_only():
    """Make files or directories read-only, also for root (``chattr +i``); undone afterwards."""
    changed: list[tuple[Path, int]] = []

    def protect(*paths: Path) -> None:
        for path in paths:
            changed.append((path, path.stat().st_mode))
            path.chmod(0o555 if path.is_dir() else 0o444)
            if os.geteuid() == 0 and subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False).returncode:
                pytest.skip("running as root where chattr +i does not work: cannot make a file read-only")
            if os.access(path, os.W_OK):
                pytest.skip(f"{path} stays writable here")

    yield protect
    for path, mode in reversed(changed):
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True, check=False)
        path.chmod(mode)


def saved_games(directory: Path) -> Path:
    directory.mkdir()
    db = directory / "games.sqlite3"
    result = companion("play", "--game", "dairyman", "--players", "Ann,Bob", "--seed", "2", "--db", str(db),
                       stdin="roll random\nmove 1\nquit\n")
    assert result.returncode == 0 and result.stdout.count("\nok ") == 2, result
    return db


@pytest.mark.parametrize("read_only", ["directory", "file", "directory and file"])
def test_reading_commands_work_where_nothing_can_be_written_and_leave_no_files(tmp_path, make_read_only,
                                                                              read_only):
    db = saved_games(tmp_path / "data")
    expected = companion("history", "--json", "--db", str(db)).stdout
    assert '"kind": "move"' in expected
    contents = db.read_bytes()
    make_read_only(*[p for name, p in (("directory", db.parent), ("file", db)) if name in read_only])

    history = companion("history", "--db", str(db))
    assert history.returncode == 0 and history.stdout.startswith("session 1: Dairyman for Ann, Bob"), history.stderr
    listing = companion("history", "--list", "--db", str(db))
    assert listing.returncode == 0 and "Ann, Bob - 2 actions, unfinished" in listing.stdout, listing.stderr
    stats = companion("stats", "--db", str(db))
    assert stats.returncode == 0 and stats.stdout == "no finished games yet\n", stats.stderr
    assert companion("history", "--json", "--db", str(db)).stdout == expected
    assert sorted(p.name for p in db.parent.iterdir()) == ["games.sqlite3"]
    assert db.read_bytes() == contents


@pytest.mark.parametrize("read_only", ["directory", "file"])
def test_writing_commands_say_in_one_line_that_the_place_is_read_only(tmp_path, make_read_only, read_only):
    db = saved_games(tmp_path / "data")
    contents = db.read_bytes()
    make_read_only(db.parent if read_only == "directory" else db)
    for args in (["--new", "--game", "dairyman"], []):
        message = refused_in_one_line(companion("play", "--db", str(db), *args, stdin="roll random\n"))
        assert "read-only" in message and str(db) in message
    assert sorted(p.name for p in db.parent.iterdir()) == ["games.sqlite3"]
    assert db.read_bytes() == contents


def test_a_store_opened_read_only_refuses_to_write(tmp_path):
    db = saved_games(tmp_path / "data")
    contents = db.read_bytes()
    with SessionStore(db, read_only=True) as store:
        with pytest.raises(UserError, match="read-only"):
            store.new_session("dairyman", ["Cy", "Di"])
        with pytest.raises(UserError, match="read-only"):
            store.open(1).undo()
    assert db.read_bytes() == contents and sorted(p.name for p in db.parent.iterdir()) == ["games.sqlite3"]


# -- 3. a --db that does not exist ----------------------------------------------------------

@pytest.mark.parametrize("command", [["history"], ["history", "--list"], ["stats"], ["export", "--format", "csv"]])
def test_reading_commands_refuse_a_missing_database_and_create_nothing(tmp_path, command):
    typo = tmp_path / "typo.sqlite3"
    message = refused_in_one_line(companion(*command, "--db", str(typo)))
    assert str(typo) in message
    assert list(tmp_path.iterdir()) == []


# -- 4. two processes on one game -----------------------------------------------------------

def test_a_session_sees_what_another_one_saved_before_it_shows_anything(tmp_path, toy_game):  # noqa: F811
    db = tmp_path / "games.sqlite3"
    with SessionStore(db) as first_store, SessionStore(db) as second_store:
        first = first_store.new_session("toy-race", ["Ann", "Bob"], {"rounds": 2}, seed=1)
        second = second_store.open(first.id)
        first.roll("6 2")
        news = second.refresh()
        assert [(e["seq"], e["kind"], e["text"]) for e in news] == [(1, "roll", "Ann rolled 6 2")]
        assert second.state == first.state and second.refresh() == []
        second.play(second.game.advise(second.state)[0].move)
        first.refresh()
        assert first.state == second.state and [e["seq"] for e in first.history()] == [0, 1, 2]


def test_two_play_processes_on_one_game_show_each_others_moves(tmp_path, toy_game):  # noqa: F811
    db = str(tmp_path / "games.sqlite3")
    ann = PlayProcess(["--new", "--game", "toy-race", "--players", "Ann,Bob", "--options", "rounds=2", "--db", db])
    ann.expect("next: Ann rolls")
    bob = PlayProcess(["--game", "toy-race", "--players", "Ann,Bob", "--db", db])
    bob.expect("resumed session 1")
    ann.act("roll 6 2")
    bob.send("moves")
    assert bob.expect("seen 1 ") == "seen 1 Ann rolled 6 2"
    assert "Ann takes 6" in bob.expect("1. ")
    ann.send("moves")
    ann.expect("1. ")
    assert bob.act("move 1").startswith("ok 2 ")
    ann.send("move 1")     # numbered from a list made before Bob's move: refused, nothing played twice
    assert ann.expect("seen 2 ").startswith("seen 2 Ann ")
    assert state_of(ann) == state_of(bob)
    assert ann.quit() == 0 and bob.quit() == 0
    assert [line for line in ann.err if line] == [
        "companion: another player acted meanwhile (see above): type `moves` for the moves now"]
    with SessionStore(db, read_only=True) as store:
        assert [e["seq"] for e in store.open(1).history()] == [0, 1, 2]


# -- 5. player names ----------------------------------------------------------------------

@pytest.mark.parametrize("bad_name", ["Ann\nEve", "Ann\tEve", "Eve\u2028Ann", "x" * 100_000, "x" * (MAX_NAME_LENGTH + 1)])
def test_a_player_name_that_would_break_a_line_or_a_screen_is_refused(tmp_path, bad_name):
    db = tmp_path / "games.sqlite3"
    with SessionStore(db) as store:
        with pytest.raises(UserError) as refused:
            store.new_session("dairyman", [bad_name, "Bob"])
        assert "\n" not in str(refused.value) and len(str(refused.value)) < 200
        assert store.list_sessions() == []


def test_names_are_stripped_and_may_use_the_documented_length(tmp_path):
    longest = "Å" * MAX_NAME_LENGTH
    with SessionStore(tmp_path / "games.sqlite3") as store:
        session = store.new_session("dairyman", [f"  {longest} ", "Bob"])
        assert session.players == (longest, "Bob")
        with pytest.raises(UserError):
            store.new_session("dairyman", [longest + "x", "Bob"])


def test_play_refuses_a_name_with_a_line_break_in_one_line_and_saves_nothing(tmp_path):
    db = tmp_path / "games.sqlite3"
    message = refused_in_one_line(companion("play", "--game", "dairyman", "--players", "Ann\nEve,Bob",
                                            "--db", str(db), stdin="quit\n"))
    assert "control character" in message
    with SessionStore(db, read_only=True) as store:
        assert store.list_sessions() == []
