"""``companion run``: the touchscreen app (an 800x480 window, or full screen on the Pi).

``--game`` and ``--players`` fill in the start screen; an unfinished game is still
offered first.  Everything is checked before a window opens, so a bad option is one
line on stderr.
"""
from __future__ import annotations

from companion.errors import UserError
from companion.games import get_game
from companion.session import SessionStore, check_player_names


def register(sub) -> None:
    parser = sub.add_parser("run", help="start the touchscreen app", description=__doc__.split("\n\n")[1])
    parser.add_argument("--camera", help="sim, pi, usb, usb:N or replay:PATH "
                                         "(default: the saved setting, else pi on a Raspberry Pi and sim elsewhere)")
    parser.add_argument("--game", help="the game to offer first (see `companion games`)")
    parser.add_argument("--players", help='player names in seat order, e.g. "Ann,Bob"')
    parser.add_argument("--seed", type=int, default=None, help="seed of new games' shuffles (default: random)")
    parser.add_argument("--fullscreen", action="store_true", help="fill the screen (the Pi's touchscreen)")
    parser.add_argument("--db", help="session database file (default: sessions.sqlite3 in the data directory)")
    parser.set_defaults(func=run)


def run(args) -> int:
    from hardware.camera import parse_camera_spec
    from ui.preferences import check_camera

    camera = check_camera(args.camera) if args.camera is not None else None
    if camera:
        parse_camera_spec(camera)
    game = get_game(args.game) if args.game else None
    players = [p for p in args.players.split(",")] if args.players else []
    if players:
        if game is None:
            raise UserError("--players needs --game")
        players = list(check_player_names(game, players))
    try:
        import kivy  # noqa: F401  (only to give a clear message when it is missing)
    except ImportError:
        raise UserError("the app needs Kivy: pip install 'dice-companion[ui]'") from None
    from ui.window import configure_window

    store = SessionStore(args.db)
    configure_window(fullscreen=args.fullscreen)
    from ui.app import CompanionApp

    CompanionApp(camera=camera, game=game.name if game else None, players=players, store=store,
                 seed=args.seed).run()
    return 0
