"""``companion games``: the games the companion knows, with their options."""
from __future__ import annotations

import json

from companion.games import all_games


def register(sub) -> None:
    parser = sub.add_parser("games", help="list the games and their rules options")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=run)


def run(args) -> int:
    games = [game.describe() for game in all_games().values()]
    if args.json:
        print(json.dumps(games, indent=2))
        return 0
    for info in games:
        low, high = info["players"]
        print(f"{info['name']:<16} {info['title']} ({low}-{high} players)")
        for option in info["options"]:
            print(f"    {option['name']} = {option['default']!r}: {option['description']}")
        for note in info.get("notes", []):
            print(f"    {note}")
    return 0
