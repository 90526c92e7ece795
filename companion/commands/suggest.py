"""``companion suggest``: the legal moves for a roll, best first, with the advice figures."""
from __future__ import annotations

import json
from pathlib import Path

from companion.engine import Die, dice_to_json, parse_dice
from companion.errors import UserError
from companion.games import get_game
from companion.limits import player_count, read_json_file


def register(sub) -> None:
    parser = sub.add_parser("suggest", help="rank the legal moves for a roll")
    parser.add_argument("--game", required=True, help="game name (see `companion games`)")
    parser.add_argument("--dice", help='the roll, e.g. "white:6 white:4 yellow:2 red:5" or "6 4 5 5 3 2 1 yellow:4" '
                        '(a die without a colour is white; name a die whose colour matters)')
    parser.add_argument("--state", type=Path, help="a state JSON file (as a game's to_json writes it); default: a new game")
    parser.add_argument("--players", help="for a new game: player names, comma separated, or a count")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def _load_state(game, path: Path):
    data = read_json_file(path, "state file")
    if isinstance(data, dict) and "state" in data and isinstance(data["state"], dict):
        data = data["state"]
    return game.state_from_json(data)


def _players(game, text: str | None) -> tuple[str, ...]:
    if not text:
        return game.default_players()
    if text.strip().isdigit():
        return game.default_players(player_count(game, text))
    return tuple(name.strip() for name in text.split(","))


def run(args) -> int:
    game = get_game(args.game)
    state = _load_state(game, args.state) if args.state else game.new_game(_players(game, args.players))
    roll: tuple[Die, ...] = ()
    request = state.dice_to_roll()
    if args.dice is not None:
        if request is None:
            raise UserError(f"no roll is due now: {state.current_player} is in phase {state.phase!r}")
        roll = state.colour_roll(parse_dice(args.dice))
        state = state.apply_roll(roll)
    elif request is not None:
        raise UserError(f"give the roll with --dice: {request.player} rolls {request.count} dice ({request.describe()})")
    suggestions = game.advise(state)
    alerts = state.alerts()
    if args.json:
        print(json.dumps({
            "game": game.name,
            "player": state.current_player,
            "phase": state.phase,
            "roll": dice_to_json(roll),
            "moves": [s.to_json() for s in suggestions],
            "alerts": [a.to_json() for a in alerts],
        }))
        return 0
    for alert in alerts:
        print(f"[{alert.severity}] {alert.message}")
    for rank, suggestion in enumerate(suggestions, 1):
        print(f"{rank:>2}. {suggestion.text}")
        if suggestion.reason:
            print(f"    {suggestion.reason}")
    return 0
