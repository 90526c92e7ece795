"""``companion run``: the touchscreen app (an 800x480 window, or full screen on the Pi).

``--game`` and ``--players`` fill in the start screen; an unfinished game is still
offered first.  Everything is checked before a window opens, so a bad option is one
line on stderr.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

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
    parser.add_argument("--self-test", metavar="PNG",
                        help="check the install: play one roll with the simulated camera in a game and settings of "
                             "its own, save a screenshot to PNG, close, and say whether it passed")
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
    if args.self_test:
        check_self_test(args, camera)
    try:
        import kivy  # noqa: F401  (only to give a clear message when it is missing)
    except ImportError:
        raise UserError("the app needs Kivy: pip install 'dice-companion[ui]'") from None
    from ui.window import configure_window

    if args.self_test:
        return run_self_test(args, game, players)
    store = SessionStore(args.db)
    configure_window(fullscreen=args.fullscreen)
    from ui.app import CompanionApp

    CompanionApp(camera=camera, game=game.name if game else None, players=players, store=store,
                 seed=args.seed).run()
    return 0


def check_self_test(args, camera: str | None) -> None:
    """The self-test's options, checked before any window opens."""
    if args.db:
        raise UserError("--self-test plays in a database of its own: leave out --db")
    if Path(args.self_test).suffix.lower() != ".png":
        raise UserError(f"the self-test's screenshot must be a .png file, not {args.self_test}")
    if camera not in (None, "sim"):
        raise UserError("the self-test plays with the simulated camera: leave out --camera or use --camera sim")


def run_self_test(args, game, players: list[str]) -> int:
    """``--self-test PNG``: one roll end to end in a throw-away database and settings."""
    screenshot = Path(args.self_test).resolve()
    game = game or get_game("dairyman")
    players = players or list(game.default_players())
    from ui.window import configure_window

    configure_window(fullscreen=args.fullscreen)
    from ui.app import CompanionApp
    from ui.preferences import Preferences
    from ui.self_test import SelfTest

    with tempfile.TemporaryDirectory(prefix="companion-self-test-") as scratch:
        store = SessionStore(Path(scratch) / "sessions.sqlite3")
        app = CompanionApp(camera="sim", store=store, preferences=Preferences(Path(scratch) / "settings.json"),
                           seed=args.seed if args.seed is not None else 1)
        test = SelfTest(app, screenshot, game.name, players)
        app.bind(on_start=lambda *_: test.begin())
        app.run()
    print(test.verdict)
    return 0 if test.passed else 1
