"""``companion simulate``: whole games played by the advice, for testing and benchmarks."""
from __future__ import annotations

import json

from companion.cli import parse_options
from companion.errors import UserError
from companion.games import get_game
from companion.limits import MAX_GAMES_PER_SIMULATION, check_player_count
from companion.simulate import simulate


def register(sub) -> None:
    parser = sub.add_parser("simulate", help="play whole games with the top advised move")
    parser.add_argument("--game", required=True, help="game name (see `companion games`)")
    parser.add_argument("--players", type=int, default=None, help="number of players (default: the minimum)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game; game i uses seed+i")
    parser.add_argument("--games", type=int, default=1, help="how many games to play")
    parser.add_argument("--options", help="rules options as name=value,name=value")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def run(args) -> int:
    game = get_game(args.game)
    count = check_player_count(game, args.players) if args.players is not None else game.min_players
    if not 1 <= args.games <= MAX_GAMES_PER_SIMULATION:
        raise UserError(f"--games must be 1 to {MAX_GAMES_PER_SIMULATION:,}")
    report = simulate(game, count, seed=args.seed, games=args.games, options=parse_options(args.options))
    if args.json:
        print(json.dumps(report))
        return 0
    for result in report["results"]:
        scores = ", ".join(f"{p} {s}" for p, s in result["scores"].items())
        print(f"seed {result['seed']}: {scores}; winner {' & '.join(result['winners'])}; {result['moves']} moves")
    print(f"{report['games']} games in {report['seconds']} s ({report['games_per_second']} games/s)")
    return 0
