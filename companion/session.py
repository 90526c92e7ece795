"""Games in progress as an append-only event log in SQLite.

A session is a list of events: ``created`` (game, players, resolved options, seed),
then ``roll``, ``move``, ``undo``, ``redo`` and ``finished``.  A roll corrected afterwards
(:meth:`Session.correct_die`) is a ``roll`` event naming the roll it corrects (``corrects``),
played on the state before that roll; undoing it brings back the roll as first given.
Nothing is ever updated or deleted (triggers refuse it).  The current state is rebuilt by replaying
the log through the rules engine from ``game.new_game``; an action is checked by the
engine first and written only if legal, so a rejected roll or move leaves no trace.

Durability: the file is in WAL mode with ``synchronous=FULL``.  Each action is one
transaction that is fsynced before :class:`Session` returns, so anything a caller has
shown survives a killed process *and* a pulled power plug (a Raspberry Pi on a
table gets unplugged; NORMAL would survive only the former).  A commit costs a few
milliseconds on an SD card, which no player notices between two rolls.

A roll may carry the photo the dice were read from: a file path is logged as is;
image bytes are written to ``<file>-photos/<sha256>.<ext>`` beside the database and
logged by digest, so camera frames never bloat the log.

Several processes may share one file: writes take SQLite's write lock
(``BEGIN IMMEDIATE``, busy timeout), and a session catches up with events another
process appended before it validates and writes its own (and :meth:`Session.refresh`
catches up before showing anything).

A store opened with ``read_only=True`` (history, export, stats) never writes, never
creates a file and leaves no ``-wal``/``-shm`` files behind, so it also works on a
read-only disk or directory; a writable store refuses such a place in one line.

A saved game is self-contained: its ``created`` event keeps everything its replay
depends on, including the contents of a data file named by an option (see
``self_contained_options`` of a game), so moving or editing that file later does not
change or break the game.
"""
from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
import os
import random
import secrets
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from companion.engine import Die, GameState, Move, dice_to_json, parse_dice, roll_words
from companion.errors import RuleError, UserError
from companion.games import get_game
from companion.paths import data_dir

__all__ = ["DEFAULT_FILE_NAME", "MAX_NAME_LENGTH", "Session", "SessionStore", "bench_sessions", "check_player_names",
           "replay_export"]

DEFAULT_FILE_NAME = "sessions.sqlite3"
# Written into the SQLite header (PRAGMA application_id / user_version) so that a file
# from another program or another schema is recognised before anything is read from it.
APPLICATION_ID = 0x44434D50  # "DCMP"
SCHEMA_VERSION = 1
EXPORT_FORMAT = "dice-companion-session"
BUSY_TIMEOUT_SECONDS = 10.0
ACTION_KINDS = ("roll", "move")
EVENT_KINDS = ("created", "roll", "move", "undo", "redo", "finished")
MAX_NAME_LENGTH = 24   # characters of a player name: what a scoreboard row on the 800x480 screen shows

_SQLITE_MAGIC = b"SQLite format 3\x00"
_IMAGE_TYPES = ((b"\xff\xd8\xff", ".jpg"), (b"\x89PNG\r\n\x1a\n", ".png"))

_SCHEMA = f"""
CREATE TABLE events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ({", ".join(repr(k) for k in EVENT_KINDS)})),
    player     TEXT,
    payload    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (session_id, seq)
);
CREATE INDEX events_by_kind ON events (kind, session_id);
CREATE TRIGGER events_are_never_updated BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'the session log is append-only'); END;
CREATE TRIGGER events_are_never_deleted BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the session log is append-only'); END;
PRAGMA application_id = {APPLICATION_ID};
PRAGMA user_version = {SCHEMA_VERSION};
"""
_EXPECTED_COLUMNS = {
    "events": ["id", "session_id", "seq", "kind", "player", "payload", "created_at"],
}


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _refuse(path: Path, why: str) -> UserError:
    return UserError(f"session file {path} {why}; it was left untouched (move it away or use --db)")


def _check_header(path: Path) -> None:
    """Refuse a file that is not our SQLite database, reading only its 100-byte header."""
    if path.is_dir():
        raise _refuse(path, "is a directory")
    if not path.is_file():  # a named pipe or a device would block or never end
        raise _refuse(path, "is not a regular file")
    with open(path, "rb") as handle:
        header = handle.read(100)
    if not header:
        raise _refuse(path, "is empty")
    if not header.startswith(_SQLITE_MAGIC):
        raise _refuse(path, "is not a SQLite database")
    if len(header) < 100:
        raise _refuse(path, "is truncated")
    app_id = int.from_bytes(header[68:72], "big")
    if app_id != APPLICATION_ID:
        raise _refuse(path, "is a SQLite database of another program")
    version = int.from_bytes(header[60:64], "big")
    if version != SCHEMA_VERSION:
        raise _refuse(path, f"has session schema version {version}, this companion reads version {SCHEMA_VERSION}")


def _connect(path: Path, mode: str = "rw") -> sqlite3.Connection:
    """A connection in SQLite URI ``mode``: ``rw``, ``ro``, or ``immutable`` (read-only, no locks, no side files)."""
    query = "immutable=1" if mode == "immutable" else f"mode={mode}"
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?{query}", uri=True, timeout=BUSY_TIMEOUT_SECONDS,
                           isolation_level=None, check_same_thread=False)  # the store's lock serialises threads
    return conn


def _read_only_place(path: Path) -> str | None:
    """Why ``path`` (an existing file) cannot be written, or None if it and its directory can."""
    if not os.access(path.parent, os.W_OK):
        return f"is in the read-only directory {path.parent}"
    if not os.access(path, os.W_OK):
        return "is read-only"
    return None


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that never writes and leaves no ``-wal``/``-shm`` files behind.

    Where the file and its directory can be written, a read-write connection with
    ``query_only`` (SQLite removes its side files when it closes); elsewhere ``mode=ro``
    when another process's ``-wal`` file is there to be read, else ``immutable``, which
    needs no side files (``mode=ro`` would create them and could not remove them).
    """
    if _read_only_place(path) is None:
        conn = _connect(path, "rw")
        conn.execute("PRAGMA query_only = ON")
        return conn
    return _connect(path, "ro" if Path(f"{path}-wal").exists() else "immutable")


def _check_contents(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a file whose pages or tables are damaged (``conn`` only reads)."""
    problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
    if problems != ["ok"]:
        raise _refuse(path, f"is corrupt ({problems[0]})")
    for table, columns in _EXPECTED_COLUMNS.items():
        found = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
        if found != columns:
            raise _refuse(path, f"does not have the session table {table!r} this companion expects")


def _check_before_writing(path: Path) -> None:
    """Check the file through a read-only connection before a writable one touches it.

    A read-only look at a WAL-mode file makes SQLite create empty ``-wal``/``-shm``
    side files; when the file is refused, those it created are removed again.
    """
    side_files = [Path(f"{path}-wal"), Path(f"{path}-shm")]
    existed = [side.exists() for side in side_files]
    try:
        conn = _connect(path, "ro")
        try:
            _check_contents(conn, path)
        finally:
            conn.close()
    except (sqlite3.DatabaseError, UserError) as exc:
        wal, _ = side_files
        if not any(existed) and (not wal.exists() or wal.stat().st_size == 0):
            for side in side_files:
                side.unlink(missing_ok=True)
        if isinstance(exc, UserError):
            raise
        raise _refuse(path, f"cannot be read as a session database ({exc})") from exc


def _create(path: Path) -> None:
    """Create a complete, empty session database at ``path`` atomically.

    The schema is built in a temporary file that is then hard-linked into place, so no
    other process ever sees a half-made file; if another process won the race, its
    file is kept.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.new")
    try:
        conn = sqlite3.connect(temporary, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.executescript(_SCHEMA)
        finally:
            conn.close()
        try:
            os.link(temporary, path)
        except FileExistsError:
            return
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    finally:
        for leftover in (temporary, Path(f"{temporary}-wal"), Path(f"{temporary}-shm")):
            leftover.unlink(missing_ok=True)


def check_player_names(game, players: Sequence[str]) -> tuple[str, ...]:
    """The names of a new game's players, stripped, or a one-line UserError.

    A name is 1 to :data:`MAX_NAME_LENGTH` characters with no control characters (a
    newline would split the lines of ``play`` and ``history``); ``game`` checks the
    number of players and that the names differ.
    """
    names = tuple(str(name).strip() for name in players)
    for name in names:
        if len(name) > MAX_NAME_LENGTH:
            raise UserError(f"player name {name[:MAX_NAME_LENGTH]!r}... is too long: "
                            f"at most {MAX_NAME_LENGTH} characters")
        if any(unicodedata.category(char) in ("Cc", "Zl", "Zp") for char in name):
            raise UserError(f"player name {name!r} has a control character (a line break or tab?)")
    return game.check_players(names)


@dataclass(frozen=True)
class _Event:
    seq: int
    kind: str
    player: str | None
    payload: dict
    created_at: str

    def to_json(self) -> dict:
        return {"seq": self.seq, "kind": self.kind, "player": self.player, "time": self.created_at, **self.payload}


def _reading(method):
    """Turn a damaged row met while reading into the one-line refusal of the file."""
    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        try:
            with self._lock:
                return method(self, *args, **kwargs)
        except (sqlite3.DatabaseError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise _refuse(self.path, f"has a damaged record ({type(exc).__name__}: {exc})") from exc
    return guarded


class SessionStore:
    """The session database: opens (or creates) it and hands out :class:`Session` objects.

    ``path`` defaults to ``sessions.sqlite3`` in :func:`companion.paths.data_dir`.  An
    empty, truncated, corrupt or foreign file is refused with a one-line UserError and
    left exactly as it was, and so is a file or directory that cannot be written.
    With ``read_only`` the store only reads: a missing file is refused (nothing is
    created), a read-only file or directory is fine, and every write is refused.
    """

    def __init__(self, path: str | os.PathLike | None = None, *, read_only: bool = False):
        self.path = Path(path) if path is not None else data_dir() / DEFAULT_FILE_NAME
        self.read_only = read_only
        self._lock = threading.RLock()  # one connection, shared by the UI's threads one at a time
        try:
            if not self.path.exists():
                if read_only:
                    raise UserError(f"no saved games in {self.path}: there is no such file (nothing was created)")
                if self.path.parent.is_dir() and not os.access(self.path.parent, os.W_OK):
                    raise UserError(f"cannot create session file {self.path}: its directory is read-only")
                _create(self.path)
            _check_header(self.path)
        except (OSError, sqlite3.DatabaseError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise UserError(f"cannot use session file {self.path}: {reason}") from exc
        self._conn = self._open_read_only() if read_only else self._open_writable()

    def _open_read_only(self) -> sqlite3.Connection:
        try:
            conn = _connect_read_only(self.path)
        except sqlite3.DatabaseError as exc:
            raise _refuse(self.path, f"cannot be opened for reading ({exc})") from exc
        try:
            _check_contents(conn, self.path)
        except (sqlite3.DatabaseError, UserError) as exc:
            conn.close()
            if isinstance(exc, UserError):
                raise
            raise _refuse(self.path, f"cannot be read as a session database ({exc})") from exc
        return conn

    def _open_writable(self) -> sqlite3.Connection:
        unwritable = _read_only_place(self.path)
        if unwritable:
            raise UserError(f"session file {self.path} {unwritable}, so games cannot be saved "
                            "(make it writable or use --db with a writable file)")
        _check_before_writing(self.path)
        try:
            conn = _connect(self.path)
            conn.execute("PRAGMA synchronous = FULL")
        except sqlite3.DatabaseError as exc:
            raise _refuse(self.path, f"cannot be opened ({exc})") from exc
        return conn

    # -- plumbing ---------------------------------------------------------------------
    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write_transaction(self) -> _Transaction:
        if self.read_only:
            raise UserError(f"session file {self.path} is open read-only here: nothing can be saved")
        return _Transaction(self._conn, self.path, self._lock)

    def _events(self, session_id: int, after_seq: int = -1) -> list[_Event]:
        try:
            with self._lock:
                rows = self._conn.execute(
                    "SELECT seq, kind, player, payload, created_at FROM events "
                    "WHERE session_id = ? AND seq > ? ORDER BY seq", (session_id, after_seq)).fetchall()
            return [_Event(seq, kind, player, json.loads(payload), created_at)
                    for seq, kind, player, payload, created_at in rows]
        except (sqlite3.DatabaseError, json.JSONDecodeError) as exc:
            raise _refuse(self.path, f"has an unreadable event in session {session_id} ({exc})") from exc

    def _append(self, session_id: int, seq: int, kind: str, player: str | None, payload: Mapping) -> _Event:
        event = _Event(seq, kind, player, dict(payload), _now())
        self._conn.execute(
            "INSERT INTO events (session_id, seq, kind, player, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (session_id, seq, kind, player, json.dumps(event.payload, sort_keys=True), event.created_at))
        return event

    @property
    def photo_dir(self) -> Path:
        """Where photo bytes given to :meth:`Session.roll` are kept, one file per image.

        Camera frames stay out of the event log so that the log stays small and the
        integrity check on every start stays fast on a Raspberry Pi's SD card.
        """
        return self.path.with_name(f"{self.path.stem}-photos")

    def _store_photo(self, data: bytes) -> str:
        """Write ``data`` (atomically, fsynced) under its SHA-256 and return the digest."""
        digest = hashlib.sha256(data).hexdigest()
        extension = next((ext for magic, ext in _IMAGE_TYPES if data.startswith(magic)), ".bin")
        target = self.photo_dir / f"{digest}{extension}"
        if not target.exists():
            try:
                self.photo_dir.mkdir(exist_ok=True)
                partial = target.with_name(f".{target.name}.{os.getpid()}.part")
                with open(partial, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(partial, target)
            except OSError as exc:
                raise UserError(f"cannot save the photo in {self.photo_dir}: {exc.strerror}") from exc
        return digest

    def photo(self, sha256: str) -> bytes:
        """The image bytes a roll referenced by ``{"sha256": ...}``."""
        is_digest = len(sha256) == 64 and all(c in "0123456789abcdef" for c in sha256)
        found = sorted(self.photo_dir.glob(f"{sha256}.*")) if is_digest else []
        if not found:
            raise UserError(f"photo {sha256} is not in {self.photo_dir}")
        return found[0].read_bytes()

    # -- sessions ---------------------------------------------------------------------
    def new_session(self, game_name: str, players: Sequence[str], options: Mapping[str, Any] | None = None,
                    seed: int | None = None) -> Session:
        """Start a game: checks players and options, then writes the ``created`` event.

        The options logged are the game's self-contained ones (a data file's contents
        instead of its path), so the saved game replays without any file outside the log.
        """
        game = get_game(game_name)
        players = check_player_names(game, players)
        resolved = game.resolve_options(options)
        self_contained = getattr(game, "self_contained_options", None)
        if self_contained is not None:
            resolved = self_contained(resolved)
        if seed is None:
            seed = secrets.randbelow(2**31)
        elif not isinstance(seed, int) or isinstance(seed, bool):
            raise UserError(f"a seed is a whole number, not {seed!r}")
        game.new_game(players, resolved, seed)  # a bad combination fails here, before anything is written
        with self._write_transaction():
            (last,) = self._conn.execute("SELECT COALESCE(MAX(session_id), 0) FROM events").fetchone()
            session_id = last + 1
            self._append(session_id, 0, "created", None,
                         {"game": game.name, "players": list(players), "options": resolved, "seed": seed,
                          "text": f"new game of {game.title} for {', '.join(players)} (seed {seed})"})
        return self.open(session_id)

    @_reading
    def open(self, session_id: int) -> Session:
        """The session ``session_id``, its state rebuilt by replaying its log."""
        session_id = int(session_id)
        events = self._events(session_id) if 0 < session_id < 2 ** 63 else []
        if not events or events[0].kind != "created":
            raise UserError(f"no session {session_id} in {self.path}")
        return Session(self, int(session_id), events)

    @_reading
    def list_sessions(self) -> list[dict]:
        """Every session, the most recently played first: id, game, players, when it was
        created and last played, the rolls and moves logged (undone ones included) and
        whether it is finished.

        "Recently" follows the order events were written, not the clock, which a
        Raspberry Pi without a real-time clock may have wrong until it is online.
        """
        rows = self._conn.execute(
            """SELECT c.session_id, c.payload, c.created_at,
                      (SELECT MAX(id) FROM events e WHERE e.session_id = c.session_id) AS last_event,
                      (SELECT created_at FROM events e WHERE e.session_id = c.session_id ORDER BY seq DESC LIMIT 1),
                      (SELECT COUNT(*) FROM events e WHERE e.session_id = c.session_id AND e.kind IN ('roll', 'move')),
                      (SELECT kind FROM events e WHERE e.session_id = c.session_id AND e.kind IN ('finished', 'undo')
                       ORDER BY seq DESC LIMIT 1)
               FROM events c WHERE c.kind = 'created' ORDER BY last_event DESC""").fetchall()
        sessions = []
        for session_id, payload, created_at, _, played_at, actions, last_end_or_undo in rows:
            created = json.loads(payload)
            sessions.append({"id": session_id, "game": created["game"], "players": created["players"],
                             "created_at": created_at, "updated_at": played_at, "actions": actions,
                             "finished": last_end_or_undo == "finished"})
        return sessions

    def latest_unfinished(self, game_name: str | None = None,
                          players: Sequence[str] | None = None) -> Session | None:
        """The most recently played unfinished session, or None; ``game_name`` and
        ``players`` (in seat order), when given, must match."""
        wanted = get_game(game_name).name if game_name else None
        seats = [p.strip() for p in players] if players else None
        for info in self.list_sessions():
            if not info["finished"] and wanted in (None, info["game"]) and seats in (None, info["players"]):
                return self.open(info["id"])
        return None

    def latest(self) -> Session | None:
        """The most recently played session, finished or not, or None if there is none."""
        sessions = self.list_sessions()
        return self.open(sessions[0]["id"]) if sessions else None

    @_reading
    def player_stats(self) -> dict[str, dict]:
        """Per player name, over finished games: games, wins, average and best score."""
        rows = self._conn.execute(
            """SELECT f.payload FROM events f
               WHERE f.kind = 'finished' AND f.seq = (
                   SELECT MAX(seq) FROM events e WHERE e.session_id = f.session_id AND e.kind IN ('finished', 'undo'))
               ORDER BY f.session_id""").fetchall()
        totals: dict[str, list] = {}
        for (payload,) in rows:
            result = json.loads(payload)
            for player, score in result["scores"].items():
                games, wins, scores = totals.setdefault(player, [0, 0, []])
                totals[player][0] = games + 1
                totals[player][1] = wins + (player in result["winners"])
                scores.append(score)
        return {player: {"games": games, "wins": wins, "average_score": round(sum(scores) / len(scores), 2),
                         "best_score": max(scores)}
                for player, (games, wins, scores) in sorted(totals.items())}


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back on any error); disk errors become UserError."""

    def __init__(self, conn: sqlite3.Connection, path: Path, lock: threading.RLock):
        self._conn = conn
        self._path = path
        self._lock = lock

    def __enter__(self) -> None:
        self._lock.acquire()
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            self._lock.release()
            raise UserError(f"session file {self._path} is busy or cannot be written ({exc})") from exc

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            self._finish(exc_type, exc)
        finally:
            self._lock.release()

    def _finish(self, exc_type, exc) -> None:
        if exc_type is None:
            try:
                self._conn.execute("COMMIT")
                return
            except sqlite3.DatabaseError as commit_error:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise UserError(f"could not save to {self._path} ({commit_error})") from commit_error
        if self._conn.in_transaction:
            self._conn.execute("ROLLBACK")
        if isinstance(exc, sqlite3.DatabaseError):
            raise UserError(f"could not save to {self._path} ({exc})") from exc


class Session:
    """One game's log and the state it replays to.

    Every action (``roll``, ``play``, ``undo``, ``redo``) is checked by the engine,
    committed to disk, and only then reflected in :attr:`state`.
    """

    def __init__(self, store: SessionStore, session_id: int, events: list[_Event]):
        self.store = store
        self.id = session_id
        created = events[0].payload
        try:
            self.game = get_game(created["game"])
            self.players = tuple(created["players"])
            self.options = dict(created["options"])
            self.seed = int(created["seed"])
            self._states: list[GameState] = [self.game.new_game(self.players, self.options, self.seed)]
        except (KeyError, TypeError, ValueError) as exc:
            raise _refuse(store.path, f"has a damaged start of session {session_id} ({exc})") from exc
        self._events: list[_Event] = [events[0]]
        self._applied: list[_Event] = []   # the actions that make up the current state
        self._redo: list[_Event] = []      # undone actions, the next to redo last
        for event in events[1:]:
            self._replay(event)

    # -- replay -----------------------------------------------------------------------
    def _replay(self, event: _Event, next_state: GameState | None = None) -> None:
        """Apply one logged event; ``next_state`` is the engine's result when already known."""
        try:
            if event.kind in ACTION_KINDS:
                self._states.append(next_state or self._next_state(event))
                self._applied.append(event)
                self._redo.clear()
            elif event.kind == "undo":
                self._states.pop()
                self._redo.append(self._applied.pop())
            elif event.kind == "redo":
                action = self._redo.pop()
                self._states.append(next_state or self._next_state(action))
                self._applied.append(action)
        except (IndexError, KeyError, TypeError, ValueError, RuleError, UserError) as exc:
            raise UserError(f"session {self.id} in {self.store.path} does not replay with these rules "
                            f"(event {event.seq}: {exc}); it was left untouched, start a new game instead") from exc
        self._events.append(event)

    def _next_state(self, action: _Event) -> GameState:
        """The state ``action`` leads to from the current one (a corrected roll: from the state
        before the roll it corrects)."""
        if action.kind == "roll":
            base = self._before_roll(action.payload.get("corrects"))
            return base.apply_roll([Die.from_json(d) for d in action.payload["dice"]])
        return self.state.apply(Move.from_json(action.payload["move"]))

    def _before_roll(self, corrects: int | None) -> GameState:
        """The state a roll is played on: the current one, or for a correction of the roll logged
        as event ``corrects`` the state before that roll (every action since corrects it too)."""
        if corrects is None:
            return self.state
        seqs = [event.seq for event in self._applied]
        first = seqs.index(corrects)
        if any(event.payload.get("corrects") != corrects for event in self._applied[first + 1:]):
            raise ValueError(f"a correction of roll {corrects} after other actions")
        return self._states[first]

    def _catch_up(self) -> int:
        """Replay events another process appended since this session last looked; how many there were."""
        events = self.store._events(self.id, after_seq=self._events[-1].seq)
        for event in events:
            self._replay(event)
        return len(events)

    def refresh(self) -> list[dict]:
        """Catch up with what another process (a second screen, another ``play``) saved
        since this session last looked; the :meth:`history` entries it brought, oldest first.

        Call it before showing the state or the moves, so nobody chooses from a stale position.
        """
        with self.store._lock:
            added = self._catch_up()
            return self.history()[len(self._events) - added:]

    # -- reading ----------------------------------------------------------------------
    @property
    def state(self) -> GameState:
        return self._states[-1]

    @property
    def finished(self) -> bool:
        return self.state.is_terminal()

    def score_history(self) -> list[dict[str, int]]:
        """Every player's score after each roll and move of the current line of play, from the start."""
        return [state.scores() for state in self._states]

    @property
    def can_undo(self) -> bool:
        return bool(self._applied)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    @property
    def actions(self) -> int:
        """How many rolls and moves make up the current state."""
        return len(self._applied)

    def history(self) -> list[dict]:
        """Every event in order: seq, kind, player, time, and the dice, move, text or photo
        it carried; a roll or move now undone is marked ``"undone": True``."""
        live = {id(e) for e in self._applied}
        entries = []
        for event in self._events:
            entry = event.to_json()
            if event.kind in ACTION_KINDS:
                entry["undone"] = id(event) not in live
            entries.append(entry)
        return entries

    # -- acting -----------------------------------------------------------------------
    def roll(self, dice: Sequence[Die] | str, photo: str | os.PathLike | bytes | None = None) -> GameState:
        """Record the dice the current player rolled (and the photo they were read from)."""
        dice = parse_dice(dice) if isinstance(dice, str) else tuple(dice)
        if photo is not None and not isinstance(photo, (str, os.PathLike, bytes)):
            raise UserError(f"a photo is a file path or image bytes, not {type(photo).__name__}")

        def step(state: GameState) -> tuple[GameState, dict]:
            named = state.colour_roll(dice)
            return state.apply_roll(named), {
                "dice": dice_to_json(named), "photo": self._photo_reference(photo),
                "text": f"{state.current_player} rolled {roll_words(named)}"}
        return self._act("roll", step)

    def random_roll(self) -> GameState:
        """Roll the requested dice with a generator seeded by the game seed and the event number."""
        self._catch_up()
        rng = random.Random(f"{self.seed}/{self._events[-1].seq + 1}")
        return self.roll(self.state.random_roll(rng))

    def play(self, move: Move | Mapping) -> GameState:
        """Play ``move`` (a Move or its JSON) for the current player."""
        move = move if isinstance(move, Move) else Move.from_json(move)
        return self._act("move", lambda state: (state.apply(move), {
            "move": move.to_json(), "text": state.describe(move)}))

    def correct_die(self, was: Die | str, now: Die | str) -> GameState:
        """Correct one die of the last roll, a misread or a typo: ``was`` names it as the roll
        shows it (``"5"``, ``"yellow:4"``), ``now`` what it really shows (``"6"``; with a colour,
        its colour too).  The whole roll is played again through the engine from the state
        before it and logged as a ``roll`` event that names the roll it corrects; ``undo`` takes
        the correction back.  Only while no move has been made since that roll."""
        was_die, now_die = (_one_die(text) for text in (was, now))
        with self.store._write_transaction():
            self._catch_up()
            last = self._applied[-1] if self._applied else None
            if last is None or last.kind != "roll":
                raise UserError("no roll to correct: the last action was a move (undo back to the roll first)"
                                if last else "no roll to correct yet")
            if self.state.is_terminal():
                raise UserError("the game is over: undo first to correct the last roll")
            dice = [Die.from_json(d) for d in last.payload["dice"]]
            index = _find_die(dice, was_die)
            old, new = dice[index], Die(now_die.value, now_die.colour or dice[index].colour)
            if new == old:
                raise UserError(f"the {_die_words(old)} already shows {old.value}: nothing to correct")
            dice[index] = new
            root = last.payload.get("corrects", last.seq)
            before = self._before_roll(root)
            named = before.colour_roll(dice)
            next_state = before.apply_roll(named)
            text = (f"{last.player}'s roll corrected: the {_die_words(old)} is a {_die_words(new)}; "
                    f"{last.player} rolled {roll_words(named)}")
            event = self.store._append(self.id, self._events[-1].seq + 1, "roll", last.player, {
                "dice": dice_to_json(named), "photo": last.payload.get("photo"), "corrects": root, "text": text})
            finish = self._finish_event(next_state, event.seq + 1)
        self._replay(event, next_state)
        if finish:
            self._replay(finish)
        return self.state

    def undo(self) -> GameState:
        """Step back one roll or move; the step can be redone until a new action is taken."""
        with self.store._write_transaction():
            self._catch_up()
            if not self._applied:
                raise UserError("nothing to undo")
            undone = self._applied[-1]
            event = self.store._append(self.id, self._events[-1].seq + 1, "undo", undone.player,
                                       {"undoes": undone.seq, "text": f"undo: {undone.payload['text']}"})
        self._replay(event)
        return self.state

    def redo(self) -> GameState:
        """Re-apply the last undone roll or move."""
        with self.store._write_transaction():
            self._catch_up()
            if not self._redo:
                raise UserError("nothing to redo")
            action = self._redo[-1]
            next_state = self._next_state(action)
            event = self.store._append(self.id, self._events[-1].seq + 1, "redo", action.player,
                                       {"redoes": action.seq, "text": f"redo: {action.payload['text']}"})
            finish = self._finish_event(next_state, event.seq + 1)
        self._replay(event, next_state)
        if finish:
            self._replay(finish)
        return self.state

    def _act(self, kind: str, step) -> GameState:
        """Log one action: ``step(state)`` gives the next state and the event's payload."""
        with self.store._write_transaction():
            self._catch_up()
            state = self.state
            next_state, payload = step(state)  # RuleError here: the transaction is rolled back, nothing written
            event = self.store._append(self.id, self._events[-1].seq + 1, kind, state.current_player, payload)
            finish = self._finish_event(next_state, event.seq + 1)
        self._replay(event, next_state)
        if finish:
            self._replay(finish)
        return self.state

    def _finish_event(self, state: GameState, seq: int) -> _Event | None:
        if not state.is_terminal():
            return None
        winners, scores = state.winners(), state.scores()
        points = ", ".join(f"{player} {score}" for player, score in scores.items())
        return self.store._append(self.id, seq, "finished", None, {
            "scores": scores, "breakdown": state.score_breakdown(), "winners": winners,
            "text": f"game over: {' & '.join(winners)} won ({points})"})

    def _photo_reference(self, photo: str | os.PathLike | bytes | None) -> str | dict | None:
        if photo is None:
            return None
        if isinstance(photo, bytes):
            return {"sha256": self.store._store_photo(photo)}
        return str(Path(photo).resolve())

    # -- export -----------------------------------------------------------------------
    def export_json(self) -> dict:
        """Everything needed to replay this game: its setup, every event, the final state."""
        return {
            "format": EXPORT_FORMAT, "version": SCHEMA_VERSION, "session": self.id,
            "game": self.game.name, "players": list(self.players), "options": self.options, "seed": self.seed,
            "finished": self.finished, "events": [e.to_json() for e in self._events],
            "scores": self.state.scores(), "state": self.state.to_json(),
        }

    def export_csv(self) -> str:
        """One row per event: seq, time, kind, player, text, dice, move, photo, undone."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["session", "seq", "time", "kind", "player", "text", "dice", "move", "photo", "undone"])
        for entry in self.history():
            dice = " ".join(str(Die.from_json(d)) for d in entry.get("dice", []))
            move = json.dumps(entry["move"], sort_keys=True) if "move" in entry else ""
            photo = entry.get("photo") or ""
            if isinstance(photo, dict):
                photo = f"sha256:{photo['sha256']}"
            text = entry.get("text", "")
            undone = {True: "yes", False: "no"}.get(entry.get("undone"), "")
            writer.writerow([self.id, entry["seq"], entry["time"], entry["kind"], entry["player"] or "",
                             text, dice, move, photo, undone])
        return out.getvalue()


def _one_die(text: Die | str) -> Die:
    if isinstance(text, Die):
        return text
    dice = parse_dice(str(text))
    if len(dice) != 1:
        raise UserError(f"name one die, e.g. 5 or yellow:4, not {str(text)[:20]!r}")
    return dice[0]


def _die_words(die: Die) -> str:
    return f"{die.colour} {die.value}" if die.colour else str(die.value)


def _find_die(dice: Sequence[Die], wanted: Die) -> int:
    """The index in ``dice`` of the die ``wanted`` names (a bare value: a die of any colour
    showing it, as long as those dice are all one colour); UserError otherwise."""
    found = [i for i, d in enumerate(dice) if d.value == wanted.value and wanted.colour in (None, d.colour)]
    if not found:
        raise UserError(f"the last roll ({roll_words(dice)}) has no {_die_words(wanted)}")
    colours = sorted({dice[i].colour or "" for i in found})
    if len(colours) > 1:
        choices = " or ".join(f"{c}:{wanted.value}" for c in colours if c)
        raise UserError(f"which {wanted.value}? the last roll has {wanted.value}s of {len(colours)} colours: "
                        f"write {choices}")
    return found[0]


def replay_export(data: Mapping) -> GameState:
    """Rebuild the state an :meth:`Session.export_json` document describes, through the engine."""
    if not isinstance(data, Mapping) or data.get("format") != EXPORT_FORMAT:
        raise UserError("not a Dice Companion session export")
    try:
        game = get_game(data["game"])
        states = [game.new_game(data["players"], data["options"], data["seed"])]
        actions: dict[int, Mapping] = {}
        applied: list[Mapping] = []
        redo: list[Mapping] = []
        for event in data["events"]:
            kind = event["kind"]
            if kind in ACTION_KINDS:
                actions[event["seq"]] = event
                redo.clear()
            elif kind == "undo":
                redo.append(applied.pop())
                states.pop()
                continue
            elif kind == "redo":
                event = redo.pop()
            else:
                continue
            if event["kind"] == "roll":
                corrects = event.get("corrects")   # a corrected roll is played on the state before that roll
                base = states[-1] if corrects is None else states[[e["seq"] for e in applied].index(corrects)]
                states.append(base.apply_roll([Die.from_json(d) for d in event["dice"]]))
            else:
                states.append(states[-1].apply(Move.from_json(event["move"])))
            applied.append(event)
    except (KeyError, IndexError, TypeError, ValueError, RuleError) as exc:
        raise UserError(f"the session export does not replay ({exc})") from exc
    return states[-1]


def _raw_commit_ms(directory: Path, synchronous: str, commits: int) -> float:
    """Milliseconds per one-row WAL commit at the given ``synchronous`` level (the fsync cost)."""
    conn = sqlite3.connect(directory / f"raw-{synchronous}.sqlite3", isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute(f"PRAGMA synchronous = {synchronous}")
        conn.execute("CREATE TABLE rows (payload TEXT)")
        started = time.perf_counter()
        for _ in range(commits):
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO rows VALUES (?)", ("x" * 200,))
            conn.execute("COMMIT")
        return (time.perf_counter() - started) * 1000 / commits
    finally:
        conn.close()


def _fill_with_copies(store: SessionStore, session_id: int, copies: int) -> None:
    """Append ``copies`` replicas of one session's events under new session ids (benchmark set-up)."""
    rows = store._conn.execute("SELECT seq, kind, player, payload, created_at FROM events WHERE session_id = ?",
                               (session_id,)).fetchall()
    with store._write_transaction():
        (last,) = store._conn.execute("SELECT MAX(session_id) FROM events").fetchone()
        store._conn.executemany(
            "INSERT INTO events (session_id, seq, kind, player, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            ((last + copy, *row) for copy in range(1, copies + 1) for row in rows))


def _best_ms(repeats: int, work) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        best = min(best, (time.perf_counter() - started) * 1000)
    return round(best, 3)


def bench_sessions(actions: int = 400, repeats: int = 3, directory: str | os.PathLike | None = None,
                   game_name: str = "dairyman", seed: int = 1, stored_games: int = 300) -> dict:
    """Session store timings, for ``companion bench``.

    In a fresh file in ``directory`` (a temporary one by default; put it on the disk
    that matters, e.g. the Pi's SD card): milliseconds per committed action (engine
    check + fsynced commit) over one game of seeded random rolls and top advised
    moves; milliseconds to reopen that whole game by replaying its log; the bare cost
    of one WAL commit with ``synchronous`` FULL (what the store uses) and NORMAL; and,
    with ``stored_games`` copies of that game in the file, the time to open the store
    (its integrity check), list the sessions, find the game to resume and compute the
    player statistics.
    """
    import tempfile

    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        path = Path(tmp) / DEFAULT_FILE_NAME
        with SessionStore(path) as store:
            game = get_game(game_name)
            session = store.new_session(game.name, game.default_players(game.min_players), seed=seed)
            rng = random.Random(seed)
            spent = 0.0
            played = 0
            while played < actions and not session.finished:
                state = session.state
                if state.dice_to_roll() is not None:
                    dice = state.random_roll(rng)
                    started = time.perf_counter()
                    session.roll(dice)
                else:
                    move = game.advise(state)[0].move
                    started = time.perf_counter()
                    session.play(move)
                spent += time.perf_counter() - started
                played += 1
            reopen_ms = _best_ms(repeats, lambda: store.open(session.id))
            _fill_with_copies(store, session.id, stored_games - 1)
        raw = {level: round(_raw_commit_ms(Path(tmp), level, commits=200), 3) for level in ("FULL", "NORMAL")}
        large = {"games": stored_games, "file_kib": path.stat().st_size // 1024,
                 "ms_to_open_store": _best_ms(repeats, lambda: SessionStore(path).close())}
        with SessionStore(path) as store:
            large["ms_to_list_sessions"] = _best_ms(repeats, store.list_sessions)
            large["ms_to_find_unfinished"] = _best_ms(repeats, store.latest_unfinished)
            large["ms_for_player_stats"] = _best_ms(repeats, store.player_stats)
    return {"game": game_name, "actions": played, "game_finished": session.finished,
            "ms_per_committed_action": round(spent * 1000 / max(played, 1), 3),
            "ms_to_reopen_game": reopen_ms, "ms_per_bare_commit": raw,
            "store_uses": {"journal_mode": "WAL", "synchronous": "FULL"}, "large_store": large}
