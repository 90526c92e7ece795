"""``companion history``: who did what and when in a saved game, or the list of games."""
from __future__ import annotations

import json

from companion.errors import UserError
from companion.session import Session, SessionStore


def register(sub) -> None:
    parser = sub.add_parser("history", help="show every roll and move of a saved game")
    parser.add_argument("--session", type=int, help="session number (default: the most recently played)")
    parser.add_argument("--list", action="store_true", help="list the saved games instead")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--db", help="session database file (default: sessions.sqlite3 in the data directory)")
    parser.set_defaults(func=run)


def chosen_session(store: SessionStore, session_id: int | None) -> Session:
    """The session asked for, or the most recently played one."""
    if session_id is not None:
        return store.open(session_id)
    session = store.latest()
    if session is None:
        raise UserError(f"no saved games in {store.path}")
    return session


def run(args) -> int:
    with SessionStore(args.db, read_only=True) as store:
        if args.list:
            sessions = store.list_sessions()
            if args.json:
                print(json.dumps(sessions))
                return 0
            for info in sessions:
                status = "finished" if info["finished"] else "unfinished"
                print(f"{info['id']:>4} {info['updated_at']} {info['game']:<16} {', '.join(info['players'])}"
                      f" - {info['actions']} actions, {status}")
            return 0
        session = chosen_session(store, args.session)
        entries = session.history()
        if args.json:
            print(json.dumps({"session": session.id, "game": session.game.name, "players": list(session.players),
                              "finished": session.finished, "events": entries}))
            return 0
        print(f"session {session.id}: {session.game.title} for {', '.join(session.players)}"
              f" ({'finished' if session.finished else 'unfinished'})")
        for entry in entries:
            undone = " (undone)" if entry.get("undone") else ""
            photo = entry.get("photo")
            photo_text = f" [photo {photo if isinstance(photo, str) else 'sha256:' + photo['sha256']}]" if photo else ""
            print(f"{entry['seq']:>4} {entry['time']} {entry['kind']:<8} {entry['text']}{undone}{photo_text}")
    return 0
