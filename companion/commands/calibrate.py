"""``companion calibrate``: learn this table's tray, light and dice colours into a profile.

Guided (prompts on the terminal, pictures from the camera)::

    companion calibrate --game dairyman [--camera pi] [--tray markers --tray-size 300x200]

From image files (no prompts)::

    companion calibrate --game dairyman --empty tray.jpg --dice white=w1.jpg,w2.jpg \\
        --dice yellow=y.jpg --dice red=r.jpg

Learn my dice: roll your own dice a few times and confirm each reading; the reader adapts to them::

    companion calibrate --learn-my-dice [--camera pi] [--rolls 5]
    companion calibrate --learn-my-dice roll1.jpg roll2.jpg ...
    companion calibrate --forget-my-dice

From labelled photos (a dataset manifest)::

    companion calibrate --from-labelled ../shared/datasets/byler_d6/manifest.json

Other:  --markers-sheet FILE writes the four tray markers as a printable PNG.

The new profile is checked by the loader that ``read --profile`` uses before it replaces the
old one, which is kept as ``profile.toml.bak`` (``<output>.bak``).  An existing ``--output``
that is not a calibration profile, or an existing ``--markers-sheet`` file, is replaced only
with ``--force``; an input (manifest, image) never.
"""
from __future__ import annotations

from pathlib import Path

import cv2

from companion.errors import UserError
from companion.safe_files import check_output_path, write_atomically


def register(subparsers) -> None:
    parser = subparsers.add_parser("calibrate", help="learn the tray, light and dice colours into a profile",
                                   description="Calibrate colours, tray and white balance for this table.")
    parser.add_argument("--output", "-o", type=Path,
                        help="profile file to write (default: profile.toml in the config directory); the profile "
                             "it replaces is kept as OUTPUT.bak")
    parser.add_argument("--force", action="store_true",
                        help="replace an --output file that is not a calibration profile, or an existing "
                             "--markers-sheet file")
    parser.add_argument("--name", default="default", help="a name for the profile (e.g. the room or lamp)")
    what = parser.add_argument_group("colours")
    what.add_argument("--game", help="ask for this game's dice colours (dairyman, dyce, whirling-derby)")
    what.add_argument("--colours", help="the dice colours to calibrate, comma-separated (instead of --game)")
    what.add_argument("--rename", action="append", default=[], metavar="OLD=NEW", help="rename a preset colour")
    what.add_argument("--add", action="append", default=[], metavar="NAME", help="add a dice colour")
    source = parser.add_argument_group("pictures")
    source.add_argument("--camera", help="camera to use: pi, usb, usb:N, replay:PATH (default: pi on a Pi)")
    source.add_argument("--shots", type=int, default=3, help="pictures per colour from the camera (default 3)")
    source.add_argument("--empty", type=Path, metavar="FILE", help="image of the empty tray (instead of a camera)")
    source.add_argument("--dice", action="append", default=[], metavar="COLOUR=FILE[,FILE]",
                        help="images of the dice of one colour (instead of a camera)")
    tray = parser.add_argument_group("tray")
    tray.add_argument("--tray", choices=("markers", "corners", "none"), default="none",
                      help="find the tray by ArUco markers at its corners, by given corners, or not at all")
    tray.add_argument("--tray-size", default="300x200", metavar="WxH", help="tray inside size in mm (300x200)")
    tray.add_argument("--marker-size", type=float, default=30.0, help="printed marker side in mm (30)")
    tray.add_argument("--marker-inset", type=float, default=5.0, help="marker distance from the walls in mm (5)")
    tray.add_argument("--marker-dictionary", default="DICT_4X4_50", help="ArUco dictionary (DICT_4X4_50)")
    tray.add_argument("--corners", metavar="'x,y x,y x,y x,y'",
                      help="tray corners in the picture: top-left, top-right, bottom-right, bottom-left")
    tray.add_argument("--px-per-mm", type=float, default=2.0, help="resolution of the flattened tray (2.0)")
    tray.add_argument("--grey-card", metavar="x,y,w,h",
                      help="white balance from a grey card in this box of the empty-tray picture (of the flattened "
                           "tray, at --px-per-mm, when a tray region is set; default: the tray itself)")
    learn = parser.add_argument_group("labelled photos")
    learn.add_argument("--from-labelled", type=Path, metavar="MANIFEST", help="learn the palette from a manifest")
    learn.add_argument("--holdout-every", type=int, default=4,
                       help="hold back every Nth photo to check the palette on (default 4; 0: none)")
    learn.add_argument("--no-white-balance", action="store_true", help="learn without the tray's white balance")
    learn.add_argument("--labelled-boxes-only", action="store_true",
                       help="learn from the labelled boxes only, not also from the boxes the reader finds")
    mine = parser.add_argument_group("learn my dice")
    mine.add_argument("--learn-my-dice", nargs="*", type=Path, metavar="PHOTO",
                      help="roll your own dice (or give photos of rolls), confirm each reading, and let the reader "
                           "adapt to your dice; added to the profile at --output")
    mine.add_argument("--rolls", type=int, default=5, help="rolls to take from the camera (default 5)")
    mine.add_argument("--forget-my-dice", action="store_true",
                      help="remove what --learn-my-dice learnt from the profile at --output")
    parser.add_argument("--max-shades", type=int, default=None, help="most shades learnt per colour")
    parser.add_argument("--markers-sheet", type=Path, metavar="PNG", help="write the printable tray markers and stop")
    parser.set_defaults(func=run)


def _numbers(text: str, count: int, what: str) -> list[float]:
    try:
        values = [float(v) for v in text.replace(",", " ").split()]
    except ValueError:
        values = []
    if len(values) != count:
        raise UserError(f"{what}: expected {count} numbers, not {text!r}")
    return values


def _layout(args):
    from calibration.tray import TrayLayout

    width, height = _numbers(args.tray_size.replace("x", " "), 2, "--tray-size")
    if min(width, height, args.marker_size) <= 0 or args.marker_inset < 0:
        raise UserError("--tray-size, --marker-size must be positive and --marker-inset not negative")
    if 2 * (args.marker_size + args.marker_inset) > min(width, height):
        raise UserError(f"--marker-size {args.marker_size:g} mm markers do not fit in a {args.tray_size} mm tray")
    return TrayLayout(width, height, args.marker_size, args.marker_inset, (0, 1, 2, 3), args.marker_dictionary)


def _tray_choice(args):
    from calibration.guided import TrayChoice

    corners = None
    if args.corners:
        flat = _numbers(args.corners, 8, "--corners")
        corners = tuple((flat[i], flat[i + 1]) for i in range(0, 8, 2))
    grey = tuple(int(v) for v in _numbers(args.grey_card, 4, "--grey-card")) if args.grey_card else None
    if args.px_per_mm <= 0:
        raise UserError("--px-per-mm must be positive")
    method = "corners" if corners and args.tray == "none" else args.tray
    return TrayChoice(method, _layout(args), corners, args.px_per_mm, grey)


def _files(args) -> dict[str, list[Path]]:
    files: dict[str, list[Path]] = {}
    if args.empty:
        files["empty"] = [args.empty]
    for item in args.dice:
        colour, sep, paths = item.partition("=")
        colour = colour.strip().lower()
        if not sep or not colour or not paths.strip():
            raise UserError(f"--dice {item!r}: write COLOUR=FILE[,FILE], e.g. red=red_dice.jpg")
        files.setdefault(colour, []).extend(Path(p.strip()) for p in paths.split(",") if p.strip())
    for paths in files.values():
        for path in paths:
            if not path.is_file():
                raise UserError(f"no image file {path}")
    return files


def _max_shades(args) -> int:
    from calibration.palette import MAX_SHADES

    if args.max_shades is None:
        return MAX_SHADES
    if args.max_shades < 1:
        raise UserError("--max-shades must be 1 or more")
    return args.max_shades


def run(args) -> int:
    from calibration.profile import default_profile_path

    if args.markers_sheet:
        return _markers_sheet(args)
    output = args.output or default_profile_path()
    files = _files(args)
    pictures = [path for paths in files.values() for path in paths] + list(args.learn_my_dice or [])
    inputs = {path: "an input of this calibration" for path in [args.from_labelled, *pictures] if path}
    _check_profile_output(output, inputs, args.force)
    if args.forget_my_dice:
        return _forget_my_dice(output)
    if args.learn_my_dice is not None:
        return _learn_my_dice(args, output)
    if args.from_labelled:
        return _from_labelled(args, output)
    return _guided(args, output, files)


def _check_profile_output(output: Path, inputs: dict[Path, str], force: bool) -> None:
    """UserError unless the profile may go to ``output``: never onto an input, a directory or a device; onto an
    existing file only if that is a calibration profile (it is kept as a backup) or with ``--force``."""
    from calibration.profile import backup_path, load_profile

    check_output_path(output, inputs, force=True)
    if output.exists() and not force:
        try:
            load_profile(output)
        except UserError:
            raise UserError(f"{output} exists and is not a usable calibration profile: give --force to replace it "
                            f"(it is then kept as {backup_path(output)})") from None


def _markers_sheet(args) -> int:
    from calibration.tray import render_tray

    check_output_path(args.markers_sheet, force=args.force)
    layout = _layout(args)
    dpi = 300
    sheet = render_tray(layout, dpi / 25.4, tray_grey=255)
    try:
        encoded, data = cv2.imencode(args.markers_sheet.suffix or ".png", sheet)
    except cv2.error:
        encoded = False
    if not encoded:
        raise UserError(f"cannot write {args.markers_sheet}: name a .png file")
    write_atomically(args.markers_sheet, data.tobytes())
    print(f"wrote {args.markers_sheet}: print at {dpi} dpi ({layout.width_mm:g} x {layout.height_mm:g} mm), "
          f"or cut out the four {layout.marker_size_mm:g} mm markers and stick them "
          f"{layout.marker_inset_mm:g} mm in from the tray's corners (0 top-left, clockwise)")
    return 0


def _from_labelled(args, output: Path) -> int:
    from dataclasses import replace

    from calibration.labelled import learn_from_manifest
    from calibration.profile import Profile, save_profile

    result = learn_from_manifest(args.from_labelled, args.holdout_every, not args.no_white_balance,
                                 _max_shades(args), not args.labelled_boxes_only,
                                 progress=lambda text: print(f"  {text}", flush=True))
    profile = replace(Profile(name=args.name), white_balance=result.white_balance, palette=result.palette,
                      die_size=result.die_size)
    print(f"learnt {len(profile.palette.colours)} shades of {len(result.separation)} colours "
          f"from {result.learnt_dice} dice in {result.learnt_images} photos")
    for line in result.separation:
        print("  " + line.line())
    print(f"expected die size {profile.die_size.min_px:g}-{profile.die_size.max_px:g} px")
    print(f"colour accuracy on the photos learnt from: {_share(result.learnt_accuracy)}")
    print(f"colour accuracy on the {result.held_images} held-back photos ({result.held_dice} dice): "
          f"{_share(result.held_accuracy)}")
    if result.held_reader_accuracy is not None:
        print(f"colour accuracy on the held-back dice as the reader finds them: {_share(result.held_reader_accuracy)}")
    print(f"saved {save_profile(profile, output)}")
    return 0


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _guided(args, output: Path, files: dict[str, list[Path]]) -> int:
    from calibration.guided import CameraFrames, FileFrames, TerminalConsole, plan_colours, run_guided
    from calibration.profile import save_profile

    tray = _tray_choice(args)
    max_shades = _max_shades(args)
    dice_colours = [c for c in files if c != "empty"]
    colours = plan_colours(args.game, (args.colours or "").split(","), args.rename, [*args.add, *dice_colours])
    console = TerminalConsole()
    console.say(f"Calibrating {', '.join(colours)} dice; the profile goes to {output}")
    if files:
        if args.camera:
            raise UserError("give either --camera or image files (--empty, --dice), not both")
        outcome = run_guided(FileFrames(files), colours, tray, console, args.name, max_shades)
    else:
        from hardware.camera import default_spec, open_camera

        if args.shots < 1:
            raise UserError("--shots must be 1 or more")
        spec = args.camera or default_spec()
        if spec.strip().lower().startswith("sim"):
            raise UserError("calibration needs real dice: use --camera pi/usb, or image files (--empty, --dice)")
        with open_camera(spec) as camera:
            outcome = run_guided(CameraFrames(camera, args.shots), colours, tray, console, args.name, max_shades)
    console.say(f"saved {save_profile(outcome.profile, output)}")
    return 0


def _profile_at(output: Path, name: str, force: bool):
    """The profile already at ``output`` (learning adds to it), or a new one called ``name`` (also
    when ``force`` replaces a file there that is no profile)."""
    from calibration.profile import Profile, load_profile

    return load_profile(output) if output.exists() and not force else Profile(name=name)


def _forget_my_dice(output: Path) -> int:
    from calibration.learn_dice import forget_my_dice
    from calibration.profile import load_profile, save_profile

    profile = load_profile(output)
    if profile.my_dice is None:
        print(f"{output} holds no learnt dice: nothing to forget")
        return 0
    print(f"forgot the dice learnt from {profile.my_dice.rolls} rolls; saved {save_profile(forget_my_dice(profile), output)}")
    return 0


def _learn_my_dice(args, output: Path) -> int:
    """Read each roll, have the player confirm or correct it at the terminal, learn, report, save."""
    from dataclasses import replace

    from calibration.guided import TerminalConsole
    from calibration.learn_dice import (
        MIN_ROLLS,
        ConfirmedDie,
        added_die_side,
        confirmed_from_reading,
        forget_my_dice,
        learn_my_dice,
        leave_one_roll_out,
        parse_added_dice,
        parse_corrections,
        where_side_faces_show,
    )
    from calibration.profile import save_profile
    from vision.image_files import load_image

    profile = forget_my_dice(_profile_at(output, args.name, args.force))
    console = TerminalConsole(instead="an empty line for each roll read right")
    photos = list(args.learn_my_dice)
    if photos and args.camera:
        raise UserError("give either --camera or photos of your rolls, not both")
    count = len(photos) or args.rolls
    if count < MIN_ROLLS:
        raise UserError(f"learning your dice needs at least {MIN_ROLLS} rolls, not {count}")
    # The camera's pictures as the app reads them: cut to the profile's tray region and flattened.
    images = (load_image(path) for path in photos) if photos else \
        (profile.tray.flatten(frame) for frame in _camera_rolls(args, count, console))
    rolls = []
    for number, image in enumerate(images, 1):
        reading = profile.read(image)
        console.say(f"Roll {number} of {count}: {len(reading.dice)} dice read")
        for i, die in enumerate(_reading_order(reading.dice), 1):
            console.say(f"  {i}: {_die_words(die)}")
        ordered = replace(reading, dice=_reading_order(reading.dice))
        while True:
            answer = console.ask("Enter if every die is right; else fix them, e.g. 2=4, 3=blue, 5=x (no die), "
                                 "+4 at 310 220 (a missed die, its centre as x y): ")
            try:
                side = added_die_side([d.bbox[2] for d in ordered.dice], image.shape)
                added = [ConfirmedDie(at, side, value, colour) for value, colour, at in parse_added_dice(answer, image.shape)]
                rolls.append(confirmed_from_reading(image, ordered, parse_corrections(answer, len(ordered.dice)), added))
                break
            except UserError as exc:
                console.say(f"  {exc}")
    console.say("Learning your dice...")
    learnt = learn_my_dice(rolls, profile)
    check = leave_one_roll_out(rolls, profile)
    mine = learnt.my_dice
    console.say(f"learnt from {mine.rolls} rolls ({mine.dice} dice): dice {mine.min_side_px:g}-{mine.max_side_px:g} px, "
                f"{len(learnt.palette.colours)} colour shades"
                + (f", the camera's slant undone (x{mine.view_stretch:g} at {mine.view_angle_deg:g} degrees)"
                   if mine.view_stretch != 1 else "")
                + (f", the symbol face read as a {mine.symbol_value}" if mine.symbol_value else "")
                + (", dice first seen too small looked at again whole" if mine.wider_look else "")
                + (", the faces of your dice learnt by the face reader" if mine.faces is not None else "")
                + (f", side faces showing {where_side_faces_show(mine.side_face_offset)} each die not taken for dice"
                   if mine.side_face_offset else ""))
    console.say(f"each roll read by what the others taught: {_share(check.before.die_acc)} of dice right before, "
                f"{_share(check.after.die_acc)} after (colours {_share(check.before.colour_acc)} -> "
                f"{_share(check.after.colour_acc)})")
    console.say(f"saved {save_profile(learnt, output)}; undo with companion calibrate --forget-my-dice")
    return 0


def _reading_order(dice) -> tuple:
    """Dice top to bottom, then left to right, as the player counts them on the tray."""
    return tuple(sorted(dice, key=lambda d: (round(d.center[1] / max(d.bbox[3], 1.0)), d.center[0])))


def _die_words(die) -> str:
    value = "symbol face" if die.symbol and die.value is None else "no value" if die.value is None else str(die.value)
    colour = f" {die.colour}" if die.colour else ""
    return f"{value}{colour} at ({die.center[0]:.0f}, {die.center[1]:.0f})" + ("  (unsure)" if die.needs_check() else "")


def _camera_rolls(args, count: int, console):
    """``count`` frames from the camera, each taken when the player presses Enter."""
    from hardware.camera import default_spec, open_camera

    spec = args.camera or default_spec()
    if spec.strip().lower().startswith("sim"):
        raise UserError("learning your dice needs your real dice: use --camera pi/usb, or photos of your rolls")
    with open_camera(spec) as camera:
        for number in range(1, count + 1):
            console.ask(f"Roll {number} of {count}: roll your dice into the tray, then press Enter ")
            yield camera.read()
