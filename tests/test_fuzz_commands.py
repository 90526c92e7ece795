"""Fuzzing every command's arguments and input files (hypothesis).

Whatever the input, a command gives its normal output, or one line on stderr per refused
input with a non-zero status (``play`` and ``read`` go on after a refused line or file and
refuse each in its own line).  Never a traceback, never the last-resort "unexpected error"
or ``play``'s "internal error" (every refusal must be a deliberate one), never a hang (an alarm ends the example), and
never a changed file: every file in the workspace is hashed before and after, except the
database that ``play`` writes its accepted moves to.

The examples are derandomised, so CI sees the same inputs every run; ``FUZZ_EXAMPLES``
raises the number of examples per command for a longer hunt.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import signal
import struct
import sys
import tempfile
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion import cli
from companion.games import all_games, get_game

DATA = Path(__file__).parent / "data"
PHOTO = next(DATA.glob("byler_d6/**/*.jpg"))
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
TIME_LIMIT_S = 60
"""Longest an example may run before it counts as a hang."""

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # a numeric warning is a missed check too
fuzz = settings(max_examples=EXAMPLES, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` pixels, followed by one tiny compressed row."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")


def _seed_workspace(root: Path) -> None:
    """Files a person might hand to a command: a real saved game, a photo, broken and hostile files."""
    env = {"COMPANION_DATA_DIR": str(root / "data"), "COMPANION_CONFIG_DIR": str(root / "config")}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            script = "roll 6 4 5 5 3 2 1 yellow:4\nmove 1\n"
            _run(["play", "--game", "dairyman", "--players", "Ann,Bob", "--seed", "3", "--db",
                  str(root / "games.sqlite3")], stdin=script)
    finally:
        for k, v in old.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    shutil.copy(PHOTO, root / "photo.jpg")
    (root / "state.json").write_text(json.dumps({"players": ["Ann", "Bob"]}))
    (root / "empty.jpg").write_bytes(b"")
    (root / "junk.png").write_bytes(bytes(range(256)) * 4)
    (root / "huge.png").write_bytes(_png_header(20000, 20000))
    (root / "truncated.jpg").write_bytes(PHOTO.read_bytes()[:2000])
    (root / "notes.txt").write_text("not a picture\n")
    (root / "folder").mkdir()
    os.mkfifo(root / "pipe.jpg")


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz-template")
    _seed_workspace(root)
    return root


@contextlib.contextmanager
def workspace(template: Path):
    """A fresh copy of the template workspace as the current directory, data and config inside it."""
    with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
        root = Path(tmp) / "w"
        shutil.copytree(template, root, ignore=shutil.ignore_patterns("pipe.jpg"))
        os.mkfifo(root / "pipe.jpg")
        saved_cwd, saved_env = os.getcwd(), {k: os.environ.get(k) for k in ("COMPANION_DATA_DIR", "COMPANION_CONFIG_DIR")}
        os.chdir(root)
        os.environ["COMPANION_DATA_DIR"] = str(root / "data")
        os.environ["COMPANION_CONFIG_DIR"] = str(root / "config")
        try:
            yield root
        finally:
            os.chdir(saved_cwd)
            for k, v in saved_env.items():
                os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def _hashes(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.name.endswith(("-wal", "-shm", "-journal"))}


class Hang(BaseException):
    """An example that ran too long (a BaseException, so no handler takes it for an error)."""


def _alarm(_signum, _frame):
    raise Hang(f"the command ran for more than {TIME_LIMIT_S} s")


def _run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT_S)
    saved_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = cli.main(argv)
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else 2
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        sys.stdin = saved_stdin
    return status, out.getvalue(), err.getvalue()


def check(root: Path, argv: list[str], stdin: str = "", writes: tuple[str, ...] = ()) -> tuple[int, str, str]:
    """Run ``argv`` in ``root`` and assert the fuzz rules; ``writes`` may change (a game's own database)."""
    before = _hashes(root)
    status, out, err = _run(argv, stdin)
    lines = err.splitlines()
    assert "Traceback" not in err, (argv, err)
    assert "unexpected error" not in err and "internal error" not in err, (argv, err)
    assert all(line.startswith("companion") for line in lines), (argv, err)
    if status not in (0, None):
        assert lines, (argv, status, "a refusal says why")
    after = _hashes(root)
    changed = {name for name in before if before[name] != after.get(name)} - set(writes)
    assert not changed, (argv, f"changed or removed {sorted(changed)}")
    return status, out, err


# -- building blocks --------------------------------------------------------------------------------------------
hostile_text = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", " ", "0", "-1", "1e30", "nan", "inf", "9" * 5000, "99999999999999999999", "a\nb",
                     "\x00", "é", "Ann,Ann", ",", "=", "x=y", "white:7", "red:0", "6" * 40, "{}", "[]"]),
)
small_count = st.one_of(st.integers(-3, 6).map(str), st.sampled_from(["99999999999999999999", "1e3", "x", ""]))
paths = st.sampled_from(["games.sqlite3", "photo.jpg", "state.json", "empty.jpg", "junk.png", "huge.png",
                         "truncated.jpg", "notes.txt", "folder", "pipe.jpg", "missing.file", "folder/new.out",
                         "", "/", "/dev/null", "no/such/dir/x"])
games = st.sampled_from([*all_games(), "DAIRYMAN", "chess", ""])
die = st.one_of(st.integers(-2, 8).map(str),
                st.tuples(st.sampled_from(["white", "yellow", "red", "blue", "purple", "black", "x", ""]),
                          st.integers(0, 7))
                .map(lambda t: f"{t[0]}:{t[1]}"),
                hostile_text)
dice_text = st.lists(die, max_size=12).map(" ".join)
json_values = st.recursive(st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                        max_size=4), max_leaves=20)


def optional(flag: str, values) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), values.map(lambda v: [flag, v]))


def written_file(root: Path, name: str, content: bytes | str) -> str:
    path = root / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    return name


# -- the commands -----------------------------------------------------------------------------------------------
@fuzz
@given(game=games, dice=dice_text, players=st.one_of(small_count, hostile_text), as_json=st.booleans())
def test_suggest_arguments(template, game, dice, players, as_json):
    with workspace(template) as root:
        check(root, ["suggest", "--game", game, "--dice", dice, "--players", players] + (["--json"] if as_json else []))


@fuzz
@example(game="dairyman", state="[" * 200_000, dice="")
@example(game="dairyman", state=b"\xff\xfe\x00", dice="")
@given(game=games, state=st.one_of(json_values.map(json.dumps), st.binary(max_size=200),
                                   st.sampled_from(["[" * 200_000, "1e30", "\xff\xfe", '{"state": 1e400}'])),
       dice=dice_text)
def test_suggest_state_files(template, game, state, dice):
    with workspace(template) as root:
        name = written_file(root, "given-state.json", state)
        check(root, ["suggest", "--game", game, "--state", name, "--dice", dice])


def _leaves(value, path=()):
    """Every (path, leaf) of JSON data."""
    if isinstance(value, dict):
        return [leaf for key, inner in value.items() for leaf in _leaves(inner, (*path, key))]
    if isinstance(value, list):
        return [leaf for index, inner in enumerate(value) for leaf in _leaves(inner, (*path, index))]
    return [(path, value)]


def _real_state(name: str) -> dict:
    game = get_game(name)
    return game.new_game(game.default_players(game.max_players), seed=1).to_json()


@fuzz
@given(game=st.sampled_from(list(all_games())), pick=st.integers(0, 10_000),
       value=json_values, dice=dice_text)
def test_suggest_on_a_real_state_with_one_value_changed(template, game, pick, value, dice):
    """A saved state with one leaf replaced (a hand-edited or damaged file) is read or refused in one line."""
    state = _real_state(game)
    path, _ = _leaves(state)[pick % len(_leaves(state))]
    holder = state
    for key in path[:-1]:
        holder = holder[key]
    if path:
        holder[path[-1]] = value
    with workspace(template) as root:
        name = written_file(root, "edited-state.json", json.dumps(state))
        check(root, ["suggest", "--game", game, "--state", name, "--dice", dice])


@fuzz
@given(game=games, players=optional("--players", small_count), seed=optional("--seed", small_count),
       count=optional("--games", st.sampled_from(["0", "1", "2", "-5", "99999999999999999999", "x"])),
       options=optional("--options", hostile_text))
def test_simulate_arguments(template, game, players, seed, count, options):
    with workspace(template) as root:
        check(root, ["simulate", "--game", game, *players, *seed, *count, *options])


commands_typed = st.lists(st.one_of(
    dice_text.map(lambda d: f"roll {d}"), st.just("roll random"), st.just("moves"),
    st.one_of(st.integers(-2, 40), hostile_text).map(lambda n: f"move {n}"), json_values.map(lambda v: f"move {json.dumps(v)}"),
    st.sampled_from(["undo", "redo", "state", "history", "help", ""]), hostile_text), max_size=12)


@fuzz
@given(game=games, players=optional("--players", hostile_text), options=optional("--options", hostile_text),
       typed=commands_typed, new=st.booleans())
def test_play_typed_commands(template, game, players, options, typed, new):
    with workspace(template) as root:
        argv = ["play", "--game", game, *players, *options, "--db", "games.sqlite3"] + (["--new"] if new else [])
        check(root, argv, stdin="\n".join(typed) + "\nquit\n", writes=("games.sqlite3",))
        status, out, _ = check(root, ["history", "--db", "games.sqlite3", "--list", "--json"])
        assert status == 0 and len(json.loads(out)) >= 1          # the saved game is still there


@fuzz
@example(command="export", db="games.sqlite3", session=[], fmt="csv", output=["-o", "games.sqlite3"], force=True)
@example(command="history", db="missing.file", session=[], fmt="csv", output=[], force=False)
@given(command=st.sampled_from(["history", "stats", "export"]), db=paths, session=optional("--session", small_count),
       fmt=st.sampled_from(["json", "csv", "xml"]), output=optional("-o", paths), force=st.booleans())
def test_reading_saved_games(template, command, db, session, fmt, output, force):
    with workspace(template) as root:
        argv = [command, "--db", db]
        if command == "history":
            argv += session
        elif command == "export":
            argv += [*session, "--format", fmt, *output] + (["--force"] if force else [])
        status, _, _ = check(root, argv, writes=tuple(output[1:]) if force else ())
        if command == "export" and output and output[1] in ("games.sqlite3", "photo.jpg", "state.json"):
            assert status != 0                                     # never written onto an input or the database


@fuzz
@example(images=["pipe.jpg", "photo.jpg"], annotate=False, as_json=True, profile=[], profile_text="")
@example(images=["folder/photo.jpg", "photo.jpg"], annotate=True, as_json=False, profile=[], profile_text="")
@example(images=["photo.jpg"], annotate=False, as_json=False, profile=["--profile", "given.toml"],
         profile_text="[palette]\nlightness_weight = 1e308\n")
@given(images=st.lists(paths, min_size=1, max_size=4), annotate=st.booleans(), as_json=st.booleans(),
       profile=optional("--profile", st.one_of(paths, st.just("given.toml"))),
       profile_text=st.one_of(st.text(max_size=200), st.sampled_from(["[a]\n" * 3, "x = 1e308\n", "[[" * 5000])))
def test_read_files(template, images, annotate, as_json, profile, profile_text):
    with workspace(template) as root:
        written_file(root, "given.toml", profile_text)
        argv = ["read", *images, *profile] + (["--annotate", "folder"] if annotate else []) + (["--json"] if as_json else [])
        check(root, argv)


@fuzz
@example(manifest=[])
@given(manifest=st.one_of(json_values, st.fixed_dictionaries({"image": st.one_of(paths, json_values),
                                                              "dice": st.one_of(json_values, st.lists(
                                                                  st.fixed_dictionaries({"value": json_values,
                                                                                         "bbox": json_values,
                                                                                         "colour": json_values}),
                                                                  max_size=3))}).map(lambda d: [d])))
def test_calibrate_from_labelled_manifests(template, manifest):
    with workspace(template) as root:
        name = written_file(root, "manifest.json", json.dumps(manifest))
        check(root, ["calibrate", "--from-labelled", name, "-o", "folder/profile.toml"])


@fuzz
@example(camera="usb:99999999999999999999", rolls="1")
@given(camera=st.one_of(hostile_text, st.sampled_from(["usb:99999999999999999999", "usb:-1", "replay:folder",
                                                       "replay:junk.png", "replay:missing", "replay:", "pi:1", "sim:x"])),
       rolls=st.sampled_from(["1", "0", "-1", "x"]))
def test_watch_cameras(template, camera, rolls):
    with workspace(template) as root:
        check(root, ["watch", "--camera", camera, "--rolls", rolls])


@fuzz
@given(command=st.sampled_from(["run", "calibrate", "bench", "games", "nonsense"]), extra=st.lists(hostile_text, max_size=4))
def test_any_words_after_a_command(template, command, extra):
    """Arbitrary words are refused by the argument parser, or by the command's own checks, in one line."""
    with workspace(template) as root:
        argv = [command, *extra]
        if command == "run":
            argv += ["--game", "no-such-game"]               # never opens a window
        if command == "bench":
            argv = [command, "no-such-subject", *extra]
        check(root, argv)
