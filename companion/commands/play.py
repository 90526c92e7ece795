"""``companion play``: a text front end for a game at the table, one command per line.

Commands are read from stdin (a person typing, or a script): ``roll 6 4 5 5``,
``roll random``, ``correct DIE VALUE`` (one die of the last roll was misread or mistyped),
``moves``, ``move N``, ``move {json}``, ``undo``, ``redo``, ``state``, ``history``, ``help``,
``quit``.  Every roll or move is saved before it
is acknowledged with a line starting ``ok``; an error is one line on stderr and the
game goes on.  On start the last unfinished game is resumed unless ``--new`` is given.

Before each command the game is refreshed from the file: what another process (a second
``play``, the app) saved meanwhile is printed as ``seen SEQ TEXT`` lines, and a ``move N``
typed before that news is refused, since N numbered the moves of a position that is gone.
"""
from __future__ import annotations

import json
import sys

from companion.cli import parse_options
from companion.engine import GameState, Move
from companion.errors import CompanionError, UserError
from companion.games import get_game
from companion.limits import parse_json
from companion.session import Session, SessionStore

DESCRIPTION = ("Play a game at the table in text mode. Commands, one per line on stdin: roll DICE (e.g. "
               "roll 6 4 5 5 or roll white:6 yellow:2; name the colour of a die whose colour matters), "
               "roll random, correct DIE VALUE (e.g. correct 5 6: the 5 of the last roll is a 6), moves, "
               "move N, move {json}, undo, redo, state, history, help, quit. Each roll or move is saved "
               "before its 'ok' line is printed. The last unfinished game is resumed unless --new is given.")
HELP = ("commands: roll DICE | roll random | correct DIE VALUE | moves | move N | move {json} | undo | redo | "
        "state | history | help | quit")


def register(sub) -> None:
    parser = sub.add_parser("play", help="play a game in text mode, one command per line on stdin",
                            description=DESCRIPTION)
    parser.add_argument("--game", help="game name (see `companion games`); needed unless a game is resumed")
    parser.add_argument("--players", help='player names in seat order, e.g. "Ann,Bob"')
    parser.add_argument("--seed", type=int, default=None, help="seed of the game's shuffles (default: random)")
    parser.add_argument("--options", help="rules options as name=value,name=value")
    parser.add_argument("--new", action="store_true", help="start a new game even if one is unfinished")
    parser.add_argument("--db", help="session database file (default: sessions.sqlite3 in the data directory)")
    parser.set_defaults(func=run)


def _say(text: str = "") -> None:
    print(text, flush=True)


def _next_step(state: GameState) -> str:
    if state.is_terminal():
        scores = ", ".join(f"{p} {s}" for p, s in state.scores().items())
        return f"game over: {' & '.join(state.winners())} won ({scores})"
    request = state.dice_to_roll()
    if request is not None:
        return f"next: {request.player} rolls {request.describe()}"
    return f"next: {state.current_player} chooses a move ({len(state.legal_moves())} legal; `moves` lists them)"


def _acknowledge(session: Session) -> None:
    """The line for the event just committed, then the alerts and what happens next."""
    committed = [e for e in session.history() if e["kind"] != "finished"][-1]
    _say(f"ok {committed['seq']} {committed['text']}")
    for alert in session.state.alerts():
        _say(f"alert {alert.severity}: {alert.message}")
    _say(_next_step(session.state))


def _start(args, store: SessionStore) -> Session:
    players = [p for p in args.players.split(",")] if args.players else None
    if not args.new:
        session = store.latest_unfinished(args.game, players)
        if session is not None:
            _say(f"resumed session {session.id}: {session.game.title} for {', '.join(session.players)}, "
                 f"{session.actions} actions so far")
            return session
    if not args.game:
        raise UserError("no unfinished game to resume: start one with --game NAME --players A,B")
    game = get_game(args.game)
    session = store.new_session(game.name, players or game.default_players(),
                                parse_options(args.options), args.seed)
    _say(f"started session {session.id}: {game.title} for {', '.join(session.players)} (seed {session.seed})")
    return session


def _move_from(text: str, session: Session) -> Move:
    if text.startswith("{"):
        return Move.from_json(parse_json(text, "move"))
    if not text.isdigit():
        raise UserError("write `move N` (a number from `moves`) or `move {json}`")
    suggestions = _suggestions(session)
    if len(text) > 6 or not 1 <= int(text) <= len(suggestions):
        raise UserError(f"move {text[:12]}: choose 1 to {len(suggestions)}")
    number = int(text)
    return suggestions[number - 1].move


def _suggestions(session: Session):
    state = session.state
    request = state.dice_to_roll()
    if request is not None:
        raise UserError(f"{request.player} must roll {request.describe()} first")
    if state.is_terminal():
        raise UserError("the game is over: no moves")
    return session.game.advise(state)


def _handle(line: str, session: Session) -> bool:
    """Carry out one command line; False when the player quits."""
    command, _, rest = line.partition(" ")
    command, rest = command.lower(), rest.strip()
    if command in ("quit", "exit"):
        return False
    if command == "help":
        _say(HELP)
    elif command == "roll":
        if not rest:
            raise UserError("roll what? e.g. `roll 6 4 5 5` or `roll random`")
        if rest.lower() == "random":
            session.random_roll()
        else:
            session.roll(rest)
        _acknowledge(session)
    elif command == "correct":
        parts = rest.split()
        if len(parts) != 2:
            raise UserError("write `correct DIE VALUE`, e.g. `correct 5 6` (the 5 of the last roll is a 6) "
                            "or `correct yellow:4 3`")
        session.correct_die(*parts)
        _acknowledge(session)
    elif command == "moves":
        for number, suggestion in enumerate(_suggestions(session), 1):
            reason = f" - {suggestion.reason}" if suggestion.reason else ""
            _say(f"{number}. {suggestion.text}{reason}  {json.dumps(suggestion.move.to_json())}")
    elif command == "move":
        session.play(_move_from(rest, session))
        _acknowledge(session)
    elif command == "undo":
        session.undo()
        _acknowledge(session)
    elif command == "redo":
        session.redo()
        _acknowledge(session)
    elif command == "state":
        _say(json.dumps({"session": session.id, **session.state.summary(),
                         "alerts": [a.to_json() for a in session.state.alerts()],
                         "can_undo": session.can_undo, "can_redo": session.can_redo}))
    elif command == "history":
        for entry in session.history():
            undone = " (undone)" if entry.get("undone") else ""
            _say(f"{entry['seq']:>4} {entry['time']} {entry['kind']:<8} {entry.get('text', '')}{undone}")
    else:
        raise UserError(f"unknown command {command!r}; {HELP}")
    return True


def _input_lines():
    """Lines from stdin, with a prompt when a person is typing at a terminal."""
    if not sys.stdin.isatty():
        yield from sys.stdin
        return
    while True:
        try:
            yield input("> ")
        except EOFError:
            print()
            return


def _show_news(session: Session) -> bool:
    """Print what another process saved since this one last looked; True if there was any."""
    news = session.refresh()
    for entry in news:
        _say(f"seen {entry['seq']} {entry.get('text', '')}")
    if news:
        _say(_next_step(session.state))
    return bool(news)


def run(args) -> int:
    with SessionStore(args.db) as store:
        return _play(_start(args, store))


def _play(session: Session) -> int:
    _say(_next_step(session.state))
    for raw in _input_lines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            command, _, rest = line.partition(" ")
            if _show_news(session) and command.lower() == "move" and rest.strip().isdigit():
                raise UserError("another player acted meanwhile (see above): type `moves` for the moves now")
            if not _handle(line, session):
                break
        except CompanionError as exc:
            print(f"companion: {exc}", file=sys.stderr, flush=True)
        except Exception as exc:  # noqa: BLE001 - a bug in one command must not end the game at the table
            print(f"companion: internal error in {line!r}: {type(exc).__name__}: {exc}".replace("\n", " "),
                  file=sys.stderr, flush=True)
    return 0
