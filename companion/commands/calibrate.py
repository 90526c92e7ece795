"""``companion calibrate``: learn this table's tray, light and dice colours into a profile.

Guided (prompts on the terminal, pictures from the camera)::

    companion calibrate --game dairyman [--camera pi] [--tray markers --tray-size 300x200]

From image files (no prompts)::

    companion calibrate --game dairyman --empty tray.jpg --dice white=w1.jpg,w2.jpg \\
        --dice yellow=y.jpg --dice red=r.jpg

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
    pictures = [path for paths in files.values() for path in paths]
    inputs = {path: "an input of this calibration" for path in [args.from_labelled, *pictures] if path}
    _check_profile_output(output, inputs, args.force)
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
