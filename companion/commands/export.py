"""``companion export``: a saved game as JSON (everything to replay it) or CSV (one row per event)."""
from __future__ import annotations

import json
from pathlib import Path

from companion.commands.history import chosen_session
from companion.errors import UserError
from companion.paths import data_dir
from companion.safe_files import check_output_path, same_file, write_atomically
from companion.session import DEFAULT_FILE_NAME, SessionStore


def register(sub) -> None:
    parser = sub.add_parser("export", help="write a saved game as JSON or CSV")
    parser.add_argument("--session", type=int, help="session number (default: the most recently played)")
    parser.add_argument("--format", required=True, choices=("json", "csv"), help="json or csv")
    parser.add_argument("-o", "--output", help="file to write (default: standard output); an existing file is "
                                               "refused unless --force is given, the database always")
    parser.add_argument("--force", action="store_true", help="replace the --output file if it exists")
    parser.add_argument("--db", help="session database file (default: sessions.sqlite3 in the data directory)")
    parser.set_defaults(func=run)


def check_export_path(output: str, db: str | None, force: bool) -> None:
    """UserError unless ``output`` may be written: never the database, its SQLite side files or its photos."""
    database = Path(db) if db else data_dir() / DEFAULT_FILE_NAME
    if database.name and same_file(Path(output).parent, database.with_name(f"{database.stem}-photos")):
        raise UserError(f"will not write {output}: it is in the session database's photo folder")
    sides = ("", "-wal", "-shm", "-journal")
    check_output_path(output, {Path(f"{database}{side}"): "the session database" for side in sides}, force)


def run(args) -> int:
    if args.output:
        check_export_path(args.output, args.db, args.force)
    with SessionStore(args.db, read_only=True) as store:
        session = chosen_session(store, args.session)
        if args.format == "json":
            text = json.dumps(session.export_json(), indent=2) + "\n"
        else:
            text = session.export_csv()
    if not args.output:
        print(text, end="")
        return 0
    write_atomically(args.output, text)
    print(f"exported session {session.id} to {args.output}")
    return 0
