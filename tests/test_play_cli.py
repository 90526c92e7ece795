"""``companion play`` as a real process, and the history/export/stats commands.

The play tests drive the command through its stdin, wait for each ``ok`` line (the
acknowledgement printed only after the commit), kill the process with SIGKILL in the
middle of a game and start it again.  They use the toy race of ``test_session_toy``
(each turn: roll one white and one red die, then take a value or pass), so every
expected score below is worked out from the dice the test types in.
"""
from __future__ import annotations

import hashlib
import json
import os
import queue
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_session_toy import toy_registered

from companion.cli import main
from companion.errors import UserError
from companion.games import all_games
from companion.session import SessionStore, replay_export

TESTS = Path(__file__).parent
REPO = TESTS.parent

# The real command line, with the toy race registered first (a game defined in tests/).
TOY_RUNNER = (
    f"import sys; sys.path.insert(0, {str(TESTS)!r}); import test_session_toy as toy; "
    "from companion.games import all_games; all_games()[toy.GAME.name] = toy.GAME; "
    "from companion.cli import main; sys.exit(main(sys.argv[1:]))"
)
WAIT_SECONDS = 60


class PlayProcess:
    """A running ``companion play`` whose output lines are collected as they come."""

    def __init__(self, args: list[str], toy: bool = True):
        command = [sys.executable, "-c", TOY_RUNNER] if toy else [sys.executable, "-m", "companion"]
        self.proc = subprocess.Popen(command + ["play", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1, cwd=REPO)
        self.out: queue.Queue[str | None] = queue.Queue()
        self.err: list[str | None] = []
        self._pumps = [threading.Thread(target=self._pump, args=(self.proc.stdout, self.out.put), daemon=True),
                       threading.Thread(target=self._pump, args=(self.proc.stderr, self.err.append), daemon=True)]
        for pump in self._pumps:
            pump.start()

    @staticmethod
    def _pump(stream, put) -> None:
        for line in stream:
            put(line.rstrip("\n"))
        put(None)

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def expect(self, prefix: str) -> str:
        """The next stdout line starting with ``prefix`` (other lines are skipped)."""
        while True:
            try:
                line = self.out.get(timeout=WAIT_SECONDS)
            except queue.Empty:
                self.kill()
                pytest.fail(f"no line starting {prefix!r} within {WAIT_SECONDS} s; stderr: {self.err}")
            if line is None:
                pytest.fail(f"companion play ended before printing {prefix!r}; stderr: {self.err}")
            if line.startswith(prefix):
                return line

    def act(self, line: str) -> str:
        """Send a roll/move/undo/redo and wait for its acknowledgement."""
        self.send(line)
        return self.expect("ok ")

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=WAIT_SECONDS)

    def finish(self) -> int:
        """Wait for the process to end and its output to be read; its exit status."""
        status = self.proc.wait(timeout=WAIT_SECONDS)
        for pump in self._pumps:
            pump.join(timeout=WAIT_SECONDS)
        return status

    def quit(self) -> int:
        self.send("quit")
        return self.finish()


def state_of(process: PlayProcess) -> dict:
    process.send("state")
    return json.loads(process.expect("{"))


@pytest.fixture
def toy_game():
    with toy_registered() as game:
        yield game


@pytest.fixture
def db(tmp_path) -> Path:
    return tmp_path / "sessions.sqlite3"


def toy_args(db: Path, *extra: str) -> list[str]:
    return ["--game", "toy-race", "--players", "Ann,Bob", "--options", "rounds=3", "--seed", "1",
            "--db", str(db), *extra]


def test_sigkill_mid_game_loses_no_acknowledged_action(db):
    first = PlayProcess(toy_args(db))
    assert first.expect("started session").startswith("started session 1:")
    acknowledged = [
        first.act("roll white:6 red:1"),
        first.act("move 1"),                               # Ann takes the higher die: 6
        first.act("roll 2 5"),
        first.act('move {"kind": "take", "value": 2}'),    # Bob takes 2
        first.act("roll 3 3"),
        first.act("move 2"),                               # 3 3 offers: take 3, pass -> Ann passes
        first.act("roll 4 5"),
        first.act("move 1"),                               # Bob takes 5
        first.act("roll 1 6"),                             # Ann has rolled; her move is still to come
    ]
    first.send("move 1")                                   # maybe saved, maybe not: never acknowledged
    first.kill()

    second = PlayProcess(toy_args(db))
    resumed = second.expect("resumed session")
    assert resumed.startswith("resumed session 1:")
    second.send("history")
    lines = [second.expect(f"{n:>4} ") for n in range(len(acknowledged) + 1)]
    for ack, line in zip(acknowledged, lines[1:], strict=True):
        seq, text = ack.split(" ", 2)[1:]
        assert line.startswith(f"{int(seq):>4} ") and line.endswith(text)
    state = state_of(second)
    if state["current_player"] == "Ann":   # the unacknowledged move was lost: Ann still to choose
        assert state["scores"] == {"Ann": 6, "Bob": 7} and state["phase"] == "take"
    else:                                  # it was committed just before the kill: Ann took 6
        assert state["scores"] == {"Ann": 12, "Bob": 7} and state["phase"] == "roll"
    assert second.quit() == 0


def test_sigkill_during_a_burst_of_writes_keeps_every_acknowledged_action(db):
    args = ["--game", "toy-race", "--players", "Ann,Bob", "--options", "rounds=30", "--db", str(db)]
    first = PlayProcess(args)
    first.expect("started session 1")
    for _ in range(40):                      # queued at once: the process writes as fast as it can
        first.send("roll random")
        first.send('move {"kind": "pass"}')
    acknowledged = [first.expect("ok ") for _ in range(12)]
    first.kill()                             # somewhere in the middle of the burst

    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    logged = dict(conn.execute("SELECT seq, json_extract(payload, '$.text') FROM events WHERE seq > 0"))
    conn.close()
    for ack in acknowledged:
        seq, text = ack.split(" ", 2)[1:]
        assert logged[int(seq)] == text
    assert sorted(logged) == list(range(1, len(logged) + 1))   # no gap: a prefix of the burst survived

    second = PlayProcess(args)
    resumed = second.expect("resumed session 1")
    assert resumed.endswith(f"{len(logged)} actions so far")
    next_action = "roll random" if state_of(second)["dice_to_roll"] else 'move {"kind": "pass"}'
    assert second.act(next_action).startswith(f"ok {len(logged) + 1} ")
    assert second.quit() == 0


def test_undo_and_redo_survive_a_restart(db):
    first = PlayProcess(toy_args(db))
    first.act("roll 6 2")
    first.act("move 1")            # Ann 6
    first.act("roll 5 1")
    first.act("move 1")            # Bob 5
    assert first.act("undo") == "ok 5 undo: Bob takes 5"
    first.kill()

    second = PlayProcess(toy_args(db))
    second.expect("resumed session 1")
    state = state_of(second)
    assert state["scores"] == {"Ann": 6, "Bob": 0} and state["can_redo"]
    assert second.act("redo") == "ok 6 redo: Bob takes 5"
    assert second.quit() == 0

    third = PlayProcess(toy_args(db))
    third.expect("resumed session 1")
    state = state_of(third)
    assert state["scores"] == {"Ann": 6, "Bob": 5} and not state["can_redo"]
    for line in ["roll 1 2", "move 2", "roll 3 4", "move 1", "roll 6 6", "move 1", "roll 2 2", "move 2"]:
        third.act(line)            # Ann 1 + 6, Bob 4 (and a pass)
    assert third.expect("game over") == "game over: Ann won (Ann 13, Bob 9)"
    assert third.quit() == 0
    assert SessionStore(db).player_stats()["Ann"] == {"games": 1, "wins": 1, "average_score": 13.0,
                                                      "best_score": 13}


def test_errors_are_one_line_on_stderr_and_the_game_goes_on(db):
    process = PlayProcess(toy_args(db))
    process.expect("started session")
    for bad in ["roll 9 1", "roll 1 2 3", "move 1", 'move {"kind": "take"', "dance"]:
        process.send(bad)
    assert process.act("roll 3 4") == "ok 1 Ann rolled 3 4"
    for bad in ["move 5", 'move {"kind": "take", "value": 6}', "redo"]:
        process.send(bad)
    assert process.act("move 2") == "ok 2 Ann takes 3"
    assert process.quit() == 0
    assert len(process.err) == 9, process.err
    assert all(line.startswith("companion: ") for line in process.err[:8])
    assert process.err[8] is None  # end of stream
    assert not any("Traceback" in line for line in process.err[:8])
    assert "not rolled" in process.err[6]


def test_new_starts_another_game_and_resume_takes_the_last_unfinished(db):
    first = PlayProcess(toy_args(db))
    first.expect("started session 1")
    first.act("roll 6 6")
    assert first.quit() == 0
    second = PlayProcess(toy_args(db, "--new"))
    second.expect("started session 2")
    assert second.quit() == 0
    third = PlayProcess(["--db", str(db)])
    assert third.expect("resumed session").startswith("resumed session 2")
    assert third.quit() == 0
    other_players = PlayProcess(["--game", "toy-race", "--players", "Cy", "--db", str(db)])
    other_players.expect("started session 3")
    assert other_players.quit() == 0


def test_a_bad_session_file_stops_play_with_one_line(tmp_path):
    path = tmp_path / "sessions.sqlite3"
    path.write_bytes(b"these are not the sessions you are looking for\n" * 20)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    process = PlayProcess(["--db", str(path)])
    assert process.finish() == 2
    assert process.err[:-1] == [(f"companion: session file {path} is not a SQLite database; it was left "
                                "untouched (move it away or use --db)")]
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


@pytest.mark.skipif("dairyman" not in all_games(), reason="companion/games/dairyman.py has not landed")
def test_real_dairyman_game_survives_sigkill(db):
    args = ["--game", "dairyman", "--players", "Ann,Bob", "--seed", "5", "--db", str(db)]
    first = PlayProcess(args, toy=False)
    first.expect("started session 1")
    acknowledged = []
    for _ in range(6):
        state = state_of(first)
        acknowledged.append(first.act("roll random" if state["dice_to_roll"] else "move 1"))
    before_kill = state_of(first)
    first.kill()
    second = PlayProcess(args, toy=False)
    second.expect("resumed session 1")
    assert state_of(second) == before_kill
    second.send("history")
    for ack in acknowledged:
        seq, text = ack.split(" ", 2)[1:]
        assert second.expect(f"{int(seq):>4} ").endswith(text)
    assert second.quit() == 0


# -- history, export, stats ---------------------------------------------------------------

def _finished_race(store: SessionStore, players: list[str], turns: list[tuple[str, int]]):
    session = store.new_session("toy-race", players, {"rounds": 1}, seed=2)
    for dice, value in turns:
        session.roll(dice)
        session.play({"kind": "take", "value": value})
    return session


def test_history_export_and_stats_commands(db, toy_game, capsys, tmp_path):
    with SessionStore(db) as store:
        _finished_race(store, ["Ann", "Bob"], [("6 1", 6), ("2 3", 3)])
        _finished_race(store, ["Bob", "Ann"], [("5 4", 5), ("1 1", 1)])
        open_game = store.new_session("toy-race", ["Ann", "Bob"], {"rounds": 1}, seed=3)
        open_game.roll("white:4 red:2", photo=b"frame")
        expected_state = open_game.state.to_json()

    assert main(["stats", "--json", "--db", str(db)]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "Ann": {"games": 2, "wins": 1, "average_score": 3.5, "best_score": 6},
        "Bob": {"games": 2, "wins": 1, "average_score": 4.0, "best_score": 5},
    }

    assert main(["history", "--db", str(db)]) == 0   # default: the game played last
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "session 3: Toy race for Ann, Bob (unfinished)"
    assert out[-1].endswith(f"Ann rolled white 4, red 2 [photo sha256:{hashlib.sha256(b'frame').hexdigest()}]")

    assert main(["history", "--session", "1", "--json", "--db", str(db)]) == 0
    history = json.loads(capsys.readouterr().out)
    assert history["finished"] and [e["kind"] for e in history["events"]] == [
        "created", "roll", "move", "roll", "move", "finished"]

    exported = tmp_path / "game3.json"
    assert main(["export", "--session", "3", "--format", "json", "-o", str(exported), "--db", str(db)]) == 0
    assert capsys.readouterr().out == f"exported session 3 to {exported}\n"
    assert replay_export(json.loads(exported.read_text())).to_json() == expected_state

    assert main(["export", "--session", "1", "--format", "csv", "--db", str(db)]) == 0
    csv_lines = capsys.readouterr().out.splitlines()
    assert len(csv_lines) == 1 + 6 and csv_lines[0].startswith("session,seq,time,kind")


def test_commands_report_a_missing_session_or_bad_file_in_one_line(db, toy_game, capsys, tmp_path):
    SessionStore(db).new_session("toy-race", ["Ann"])
    assert main(["history", "--session", "99", "--db", str(db)]) == 2
    assert capsys.readouterr().err == f"companion: no session 99 in {db}\n"
    assert main(["export", "--format", "json", "-o", str(tmp_path / "no" / "dir" / "x.json"),
                 "--db", str(db)]) == 2
    assert capsys.readouterr().err.startswith("companion: cannot write")
    foreign = tmp_path / "notes.sqlite3"
    foreign.write_bytes(b"")
    for command in (["stats"], ["history"], ["export", "--format", "csv"]):
        assert main([*command, "--db", str(foreign)]) == 2
        err = capsys.readouterr().err
        assert err == f"companion: session file {foreign} is empty; it was left untouched (move it away or use --db)\n"
    assert foreign.read_bytes() == b""
    empty_store = tmp_path / "fresh.sqlite3"
    assert main(["history", "--db", str(empty_store)]) == 2
    assert "no saved games" in capsys.readouterr().err
    with pytest.raises(UserError):
        SessionStore(foreign)
    assert os.path.getsize(foreign) == 0
