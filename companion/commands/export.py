"""``companion export``: a saved game as JSON (everything to replay it) or CSV (one row per event)."""
from __future__ import annotations

import json
from pathlib import Path

from companion.commands.history import chosen_session
from companion.errors import UserError
from companion.session import SessionStore


def register(sub) -> None:
    parser = sub.add_parser("export", help="write a saved game as JSON or CSV")
    parser.add_argument("--session", type=int, help="session number (default: the most recently played)")
    parser.add_argument("--format", required=True, choices=("json", "csv"), help="json or csv")
    parser.add_argument("-o", "--output", help="file to write (default: standard output)")
    parser.add_argument("--db", help="session database file (default: sessions.sqlite3 in the data directory)")
    parser.set_defaults(func=run)


def run(args) -> int:
    with SessionStore(args.db) as store:
        session = chosen_session(store, args.session)
        if args.format == "json":
            text = json.dumps(session.export_json(), indent=2) + "\n"
        else:
            text = session.export_csv()
    if not args.output:
        print(text, end="")
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {args.output}: {exc.strerror}") from exc
    print(f"exported session {session.id} to {args.output}")
    return 0
