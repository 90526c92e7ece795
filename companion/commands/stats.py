"""``companion stats``: each player's record over finished games."""
from __future__ import annotations

import json

from companion.session import SessionStore


def register(sub) -> None:
    parser = sub.add_parser("stats", help="games, wins, average and best score per player (finished games)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--db", help="session database file (default: sessions.sqlite3 in the data directory)")
    parser.set_defaults(func=run)


def run(args) -> int:
    with SessionStore(args.db, read_only=True) as store:
        stats = store.player_stats()
    if args.json:
        print(json.dumps(stats))
        return 0
    if not stats:
        print("no finished games yet")
        return 0
    width = max(len("player"), *(len(name) for name in stats))
    print(f"{'player':<{width}}  games  wins  average  best")
    for name, row in stats.items():
        games, wins, average, best = row["games"], row["wins"], row["average_score"], row["best_score"]
        print(f"{name:<{width}}  {games:>5}  {wins:>4}  {average:>7}  {best:>4}")
    return 0
