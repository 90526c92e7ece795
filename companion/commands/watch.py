"""``companion watch``: watch a camera and print each settled reading as it happens.

One line per rest of the dice (a JSON object with ``--json``, in the shape ``companion
read --json`` prints, plus ``settle_to_reading_ms``; the simulated camera adds
``"truth"``, the dice it drew).  ``--frames`` reads every frame instead of waiting for
the dice to settle, which for ``replay:DIR`` means one reading per image, exactly as
reading the files themselves would give (:func:`camera_readings`).
"""
from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np

from companion.errors import UserError
from hardware.camera import CameraSource, EndOfReplay, FrameStamp, default_spec, open_camera, parse_camera_spec
from vision.settle import DEFAULT_SETTLE, Settler, SettleSettings
from vision.synth import SynthDie
from vision.types import Reading

REPLAY_FRAMES_PER_IMAGE = 12
"""How many camera frames each replayed photo stands for, so the settler sees it at rest."""
REPLAY_FPS = 30.0
"""The frame rate of a replay played live (``--realtime``)."""
MAX_HOLD_SECONDS = 3600
"""The longest ``--hold`` a live replay takes (an hour a photo)."""
REPLAY_HOLD_SECONDS = 2.0
"""How long each photo lies on the table in a live replay: dice rest a few seconds between throws,
and a slow machine (a Pi 4 reads a frame in about 0.2 s) must still see them come to rest."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "watch", help="print each settled reading from a camera",
        description="Watch the dice tray and print one reading each time the dice come to rest.")
    parser.add_argument("--camera", metavar="SPEC", default=None,
                        help="sim, pi, usb[:INDEX] or replay:PATH (default: pi on a Raspberry Pi, else sim)")
    parser.add_argument("--json", action="store_true", help="one JSON line per reading")
    parser.add_argument("--rolls", type=int, metavar="N", default=None, help="stop after N readings")
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulated camera's dice")
    parser.add_argument("--frames", action="store_true",
                        help="read every frame without waiting for the dice to settle (replay: once per image)")
    parser.add_argument("--realtime", action="store_true",
                        help="run the simulated camera or a replay live, at its real frame rate")
    parser.add_argument("--hold", type=float, metavar="SECONDS", default=REPLAY_HOLD_SECONDS,
                        help=f"how long each photo lies on the table in a live replay (default {REPLAY_HOLD_SECONDS:g})")
    parser.add_argument("--profile", metavar="FILE", type=Path,
                        help="calibration profile: its palette names colours, its camera controls lock the Pi camera")
    parser.set_defaults(func=run)


def camera_readings(spec: str, *, read: Callable[[np.ndarray], Reading] | None = None, limit: int | None = None,
                    **camera_options) -> Iterator[Reading]:
    """A reading of every frame of camera ``spec``, without settling; for ``replay:DIR`` one per image.

    ``read`` reads one frame (default: the reader with its default palette, remembering the
    camera's slant: :class:`vision.reader.CameraReader`); ``limit`` caps
    the number of frames (default: every readable image of a replay folder once, else no cap).
    Each reading's ``image`` names the frame (the file when replaying).  ``camera_options``
    go to :func:`~hardware.camera.open_camera`.
    """
    if read is None:
        from vision.reader import CameraReader

        read = CameraReader().read

    kind, arg = parse_camera_spec(spec)
    if limit is None and kind == "replay" and Path(arg).is_dir():
        camera_options = {**camera_options, "loop": False}
    with open_camera(spec, **camera_options) as camera:
        n = 0
        while limit is None or n < limit:
            try:
                frame = camera.read()
            except EndOfReplay:
                return
            n += 1
            reading = read(frame)
            yield Reading(reading.dice, reading.ms, image=camera.frame_name or f"{spec}#{n}")


def _open(spec: str, args, profile=None) -> CameraSource:
    kind, _, path = spec.partition(":")
    if kind == "pi" and profile is not None:
        return open_camera(spec, controls=profile.camera)     # the calibrated exposure, gains and focus
    if kind == "sim":
        return open_camera(spec, seed=args.seed, auto_throw=True, realtime=args.realtime)
    if kind == "replay" and not args.frames and Path(path).is_dir():
        if args.realtime:
            return open_camera(spec, frames_per_image=max(1, round(args.hold * REPLAY_FPS)), fps=REPLAY_FPS)
        return open_camera(spec, frames_per_image=REPLAY_FRAMES_PER_IMAGE)
    return open_camera(spec)


Frame = tuple[np.ndarray, float, FrameStamp]   # picture, time, what the source knew of it


def _live_frames(spec: str, args, profile=None) -> Iterator[Frame]:
    """Frames from a live camera through a CameraMonitor.

    A camera that cannot be opened at all is a one-line error; a fault after that is
    reported on stderr and healed by reconnecting, never fatal.
    """
    from hardware.monitor import CameraMonitor, patience_for

    def report(status) -> None:
        print(f"companion: {status.message}", file=sys.stderr, flush=True)

    opened = [_open(spec, args, profile)]

    def reopen() -> CameraSource:
        return opened.pop() if opened else _open(spec, args, profile)

    with CameraMonitor(reopen, on_status=report, **patience_for(spec)) as monitor:
        count = 0
        while True:
            count, frame, stamp = monitor.wait_for_stamped_frame(count, timeout=0.5)
            if frame is None:
                continue
            yield frame, time.monotonic(), stamp or FrameStamp()


def _slant_known_first(frames: Iterator[Frame], read: Callable[[np.ndarray], Reading]) -> Iterator[Frame]:
    """``frames``, the first one read once before it is passed on: a live camera's first reading,
    which searches for its slant (:class:`vision.reader.CameraReader`, several readings' time), is
    over before the first roll comes to rest, not in the middle of one."""
    for n, frame in enumerate(frames):
        if n == 0:
            read(frame[0])
        yield frame


def camera_frames(camera: CameraSource) -> Iterator[Frame]:
    """(frame, timestamp, stamp) read one after another; closes the camera at the end.

    A source's own clock (the sim's, an unpaced replay's) gives the time, else the wall clock.
    """
    with camera:
        while True:
            frame = camera.read()
            yield frame, camera.frame_time if camera.frame_time is not None else time.monotonic(), camera.stamp()


def settled_readings(frames: Iterator[Frame], read: Callable[[np.ndarray], Reading], *,
                     rolls: int | None = None, settings: SettleSettings = DEFAULT_SETTLE,
                     ) -> Iterator[tuple[Reading, float | None, list[SynthDie] | None]]:
    """(reading, settle-to-reading ms, sim truth or None) for each rest of the dice in ``frames``.

    With the simulated camera every throw gives exactly one line: a throw whose dice
    never gave an agreed reading yields an empty reading with ``error`` set, so a run
    of N rolls always ends.
    """
    settler = Settler(read, settings)
    done = n = 0
    read_this_throw, throw, previous_truth = True, None, None
    try:
        for frame, timestamp, stamp in frames:
            n += 1
            if stamp.throw is not None and stamp.throw != throw:
                if not read_this_throw:
                    missed = Reading(image=f"sim#throw{throw}", error="the dice never gave one agreed reading")
                    yield missed, None, previous_truth
                    done += 1
                    if rolls is not None and done >= rolls:
                        return
                throw, read_this_throw, previous_truth = stamp.throw, False, list(stamp.truth)
            event = settler.feed(frame, timestamp)
            if event.reading is None:
                continue
            read_this_throw = True
            reading = Reading(event.reading.dice, event.reading.ms, image=stamp.name or f"frame#{n}")
            yield reading, event.settle_to_reading_ms, list(stamp.truth) if stamp.truth is not None else None
            done += 1
            if rolls is not None and done >= rolls:
                return
    finally:
        frames.close()


def _line(reading: Reading, settle_ms: float | None, truth, as_json: bool) -> str:
    if as_json:
        out = reading.to_json()
        if settle_ms is not None:
            out["settle_to_reading_ms"] = round(settle_ms, 1)
        if truth is not None:
            out["truth"] = [{"value": t.value, "colour": t.colour, "center": [round(c, 1) for c in t.center]}
                            for t in truth]
        return json.dumps(out)
    if reading.error:
        return f"{reading.image}: {reading.error}"
    dice = ", ".join(f"{d.value_text} {d.colour or 'unknown colour'}"
                     for d in sorted(reading.dice, key=lambda d: (d.center[1], d.center[0]))) or "no dice"
    timing = f" (read {settle_ms:.0f} ms after the dice settled)" if settle_ms is not None else f" ({reading.ms:.0f} ms)"
    return f"{reading.image}: {dice}{timing}"


def run(args) -> int:
    from companion.commands.read import load_profile_option
    from vision.reader import CameraReader

    if args.rolls is not None and args.rolls < 1:
        raise UserError("--rolls must be at least 1")
    if not 0 < args.hold <= MAX_HOLD_SECONDS:
        raise UserError(f"--hold must be more than 0 and at most {MAX_HOLD_SECONDS} seconds, not {args.hold:g}")
    spec = args.camera or default_spec()
    profile = load_profile_option(args.profile)
    camera_reader = CameraReader()      # one camera's frames: its slant and side faces are remembered from frame to frame
    read = camera_reader.read if profile is None else partial(profile.read, camera=camera_reader)
    if args.frames:
        options = {"controls": profile.camera} if profile is not None and spec.split(":")[0] == "pi" else {}
        for reading in camera_readings(spec, read=read, limit=args.rolls, **options):
            print(_line(reading, None, None, args.json), flush=True)
        return 0
    kind = spec.split(":")[0]
    live = kind in ("pi", "usb") or args.realtime
    frames = _slant_known_first(_live_frames(spec, args, profile), read) if live \
        else camera_frames(_open(spec, args, profile))
    # A real tray that is empty is not news; a simulated throw or a replayed photo always is.
    settings = replace(DEFAULT_SETTLE, report_empty=kind in ("sim", "replay"))
    for reading, settle_ms, truth in settled_readings(frames, read,
                                                      rolls=args.rolls, settings=settings):
        print(_line(reading, settle_ms, truth, args.json), flush=True)
    return 0
