"""``companion read IMAGE...``: read the dice in photos, as text, JSON lines or annotated images."""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from companion.errors import UserError
from companion.safe_files import write_new_file
from vision.types import Reading


def register(subparsers) -> None:
    parser = subparsers.add_parser("read", help="read the dice in photos",
                                   description="Read every die's value and colour in each image.")
    parser.add_argument("images", nargs="*", metavar="IMAGE", help="image files (JPEG, PNG, ...)")
    parser.add_argument("--camera", metavar="SPEC",
                        help="read camera frames instead of files: replay:DIR|VIDEO, sim, usb[:N], pi")
    parser.add_argument("--frames", type=int, metavar="N",
                        help="with --camera: how many frames (default: every image of a replay folder)")
    parser.add_argument("--json", action="store_true", help="one JSON line per image (the score_dice.py format)")
    parser.add_argument("--annotate", metavar="DIR", type=Path,
                        help="write each image with the dice outlined to DIR as NAME.png (NAME-2.png, ... when "
                             "that file exists: no file is ever replaced)")
    parser.add_argument("--profile", metavar="FILE", type=Path, help="name colours with a calibration profile")
    parser.add_argument("--colours", metavar="A,B,...",
                        help="name only these colours (the game's dice, e.g. DYCE's white,blue,red,yellow,green,"
                             "orange,purple,black); default: every colour of the palette")
    parser.add_argument("--threads", type=int, metavar="N", help="OpenCV threads (default: OpenCV's choice)")
    parser.set_defaults(func=run)


def load_profile_option(path: Path | None):
    """The calibration profile given with ``--profile``, or None for the reader's defaults."""
    if path is None:
        return None
    try:
        from calibration.profile import load_profile
    except ImportError:
        raise UserError("calibration profiles are not available in this installation") from None
    return load_profile(path)


def frame_reader(profile, colours: str | None = None) -> Callable[[np.ndarray], Reading]:
    """The reader, white-balanced and with the palette of ``profile`` when there is one, naming only the
    comma-separated ``colours`` when given."""
    from vision.colour import default_palette
    from vision.reader import as_bgr8, read_frame

    if colours is None:
        return profile.read if profile is not None else read_frame
    names = [name.strip() for name in colours.split(",") if name.strip()]
    if not names:
        raise UserError("--colours needs at least one colour name, e.g. --colours white,red")
    try:
        palette = (profile.palette if profile is not None else default_palette()).only(names)
    except ValueError as exc:
        raise UserError(f"--colours: {exc}") from None
    if profile is not None:
        return lambda frame: read_frame(profile.white_balance.correct(as_bgr8(frame)), palette=palette)
    return lambda frame: read_frame(frame, palette=palette)


def describe(reading) -> str:
    """One human-readable line for a reading."""
    if not reading.dice:
        return f"{reading.image}: no dice ({reading.ms:.0f} ms)"
    parts = []
    for die in sorted(reading.dice, key=lambda d: (d.center[1], d.center[0])):
        parts.append(f"{die.value_text} {die.colour or 'unknown colour'}")
    return f"{reading.image}: {len(reading.dice)} dice: {', '.join(parts)} ({reading.ms:.0f} ms)"


def annotate(image, reading, scale: float = 1.0):
    """A copy of the image with each die's box and its value, colour and confidence drawn on
    (``scale``: the image's size over the size the reading's positions refer to)."""
    from vision.reader import as_bgr8

    out = as_bgr8(image).copy()
    thick = max(1, round(max(out.shape[:2]) / 500))
    for die in reading.dice:
        x, y, w, h = (round(v * scale) for v in die.bbox)
        colour = (0, 200, 0) if die.value is not None else (0, 0, 255)
        cv2.rectangle(out, (x, y), (x + w, y + h), colour, thick)
        label = f"{die.value_text} {die.colour or '-'} {die.confidence:.2f}"
        origin = (x, max(y - 4, 12))
        cv2.putText(out, label, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.4 * thick, (0, 0, 0), thick + 2, cv2.LINE_AA)
        cv2.putText(out, label, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.4 * thick, colour, thick, cv2.LINE_AA)
    return out


def write_annotated(directory: Path, reading, image) -> Path:
    """Save an annotated image in ``directory`` under a name no file there has yet (never over an input)."""
    encoded, data = cv2.imencode(".png", image)
    if not encoded:
        raise UserError(f"cannot encode the annotated {reading.image} as PNG")
    return write_new_file(directory, Path(reading.image).stem, ".png", data.tobytes())


def run(args) -> int:
    from vision.image_files import load_scaled_image
    from vision.reader import read_files

    if bool(args.images) == bool(args.camera):
        raise UserError("give image files or --camera SPEC (one of the two)")
    if args.frames is not None and (not args.camera or args.frames < 1):
        raise UserError("--frames needs --camera and at least 1")
    read = frame_reader(load_profile_option(args.profile), args.colours)
    if args.threads is not None:
        if args.threads < 1:
            raise UserError("--threads must be at least 1")
        cv2.setNumThreads(args.threads)
    if args.annotate:
        try:
            args.annotate.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot create {args.annotate}: {exc.strerror or exc}") from None
    if args.camera:
        from companion.commands.watch import camera_readings

        if args.annotate and not args.camera.startswith("replay:"):
            raise UserError("--annotate with --camera needs a replay: source (the frames are files)")
        readings = camera_readings(args.camera, read=read, limit=args.frames)
    else:
        readings = read_files(args.images, read)
    failed = 0
    for reading in readings:
        if reading.error:
            failed += 1
            print(f"companion: {reading.error}", file=sys.stderr)
        if args.json:
            print(json.dumps(reading.to_json()), flush=True)
        elif not reading.error:
            print(describe(reading), flush=True)
        if args.annotate and not reading.error:
            try:
                image, scale = load_scaled_image(reading.image)
            except UserError as exc:  # gone or changed since it was read
                failed += 1
                print(f"companion: not annotated: {exc}", file=sys.stderr)
                continue
            write_annotated(args.annotate, reading, annotate(image, reading, scale))
    return 2 if failed else 0
