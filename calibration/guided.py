"""``companion calibrate``'s guided sequence: empty tray, tray corners or markers, then each
dice colour in turn, then a check of how well the colours separate.

Frames come from a :class:`FrameSource`: a live camera (the player is prompted and presses
Enter when the tray is ready) or image files named on the command line.  Dice are found by
what changed since the empty tray (the camera does not move during calibration), so
calibration works before, and independently of, the reader's die finder.
"""
from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from calibration.palette import MAX_SHADES, Separation, learn_palette, separation
from calibration.profile import CameraControls, DieSize, Profile, TraySettings
from calibration.tray import TrayLayout, detect_markers, homography_from_markers, tray_corners_in_image
from calibration.white_balance import from_empty_tray, from_grey_card
from companion.errors import UserError
from vision.colour import die_colour_features

PRESETS_FILE = Path(__file__).with_name("presets.toml")
#: Finding dice against the empty tray: a pixel is part of a die when a channel's share of
#: its brightness changes by more than HUE_CHANGE, or it is BRIGHTER / DARKER times the tray.
HUE_CHANGE = 0.15
BRIGHTER = 1.1
DARKER = 0.45
#: ... and only where some channel changed by more than this many grey levels (dark pixels'
#: ratios are mostly noise).
MIN_LEVEL_CHANGE = 25.0
#: Smaller things (pixels of the flattened tray) are specks, not dice.
MIN_DIE_SIDE_PX = 8


def preset_colours(game: str) -> list[str]:
    """The dice colours a game's preset names (``presets.toml``); UserError for a game without one."""
    presets = tomllib.loads(PRESETS_FILE.read_text())
    key = game.strip().lower().replace("_", "-").replace(" ", "-")
    if key not in presets:
        raise UserError(f"no dice colours known for {game!r} (presets: {', '.join(presets)}): "
                        "name them with --colours")
    return list(presets[key]["colours"])


def plan_colours(game: str | None, colours: Sequence[str] = (), renames: Sequence[str] = (),
                 added: Sequence[str] = ()) -> list[str]:
    """The colours to calibrate: the game's preset or ``colours``, renamed (old=new), plus ``added``."""
    plan = [c.strip().lower() for c in colours if c.strip()] or (preset_colours(game) if game else [])
    for rename in renames:
        old, sep, new = (part.strip().lower() for part in rename.partition("="))
        if not sep or not old or not new:
            raise UserError(f"--rename {rename!r}: write old=new, e.g. white=ivory")
        if old not in plan:
            raise UserError(f"--rename {rename!r}: {old!r} is not among the colours ({', '.join(plan) or 'none'})")
        plan[plan.index(old)] = new
    for name in added:
        name = name.strip().lower()
        if name and name not in plan:
            plan.append(name)
    if not plan:
        raise UserError("which dice colours? give --game, --colours or --dice NAME=FILE")
    if len(set(plan)) != len(plan):
        raise UserError(f"a colour is named twice: {', '.join(plan)}")
    return plan


class Console(Protocol):
    def say(self, text: str) -> None: ...
    def ask(self, prompt: str) -> str: ...


class TerminalConsole:
    """Prompts on standard output, answers from standard input; ``instead`` says, when the answers run
    out, what could have been given instead of them."""

    def __init__(self, instead: str = "give --empty and --dice files"):
        self.instead = instead

    def say(self, text: str) -> None:
        print(text, flush=True)

    def ask(self, prompt: str) -> str:
        try:
            return input(prompt)
        except EOFError:
            raise UserError(f"calibration needs answers at the prompts (or {self.instead})") from None


class FrameSource(Protocol):
    live: bool  # True: the player can be asked again and re-throw

    def frames(self, step: str, prompt: str, console: Console) -> list[np.ndarray]: ...

    def controls(self) -> CameraControls: ...


class CameraFrames:
    """Frames from a live camera: after each prompt the player presses Enter to take a picture."""

    live = True

    def __init__(self, camera, shots_per_colour: int = 3):
        self.camera = camera
        self.shots = shots_per_colour

    def frames(self, step: str, prompt: str, console: Console) -> list[np.ndarray]:
        console.say(prompt)
        if step == "empty":
            console.ask("  press Enter when the tray is empty and still ")
            return [self.camera.read()]
        taken = []
        for shot in range(1, self.shots + 1):
            answer = console.ask(f"  picture {shot}/{self.shots}: press Enter to take it (s + Enter to skip) ")
            if answer.strip().lower() == "s":
                break
            taken.append(self.camera.read())
            if shot < self.shots:
                console.say("  now shake and re-throw those dice")
        return taken

    def controls(self) -> CameraControls:
        """The camera settings it locked at start (picamera2's names), or automatic ones."""
        locked = getattr(self.camera, "locked_controls", None) or {}
        gains = locked.get("ColourGains")
        return CameraControls(
            int(locked["ExposureTime"]) if "ExposureTime" in locked else None,
            float(locked["AnalogueGain"]) if "AnalogueGain" in locked else None,
            (float(gains[0]), float(gains[1])) if gains else None,
            float(locked["LensPosition"]) if "LensPosition" in locked else None)


class FileFrames:
    """Frames from image files: ``files`` maps "empty" and each colour to its images."""

    live = False

    def __init__(self, files: dict[str, list[Path]]):
        self.files = files

    def frames(self, step: str, prompt: str, console: Console) -> list[np.ndarray]:
        from vision.image_files import load_image

        paths = self.files.get(step, [])
        if not paths:
            raise UserError(f"no image for the {step} step: give --dice {step}=FILE" if step != "empty"
                            else "no image of the empty tray: give --empty FILE")
        console.say(f"{prompt}\n  using {', '.join(str(p) for p in paths)}")
        return [load_image(p) for p in paths]

    def controls(self) -> CameraControls:
        return CameraControls()


@dataclass
class TrayChoice:
    """How to find the tray: ``method`` markers, corners (given ``corners_px``) or none."""

    method: str = "none"
    layout: TrayLayout = field(default_factory=lambda: TrayLayout(300.0, 200.0, 30.0))
    corners_px: tuple[tuple[float, float], ...] | None = None
    px_per_mm: float = 2.0
    grey_card: tuple[int, int, int, int] | None = None


@dataclass
class Outcome:
    """The new profile, and per colour how well it separates (for a display to show)."""

    profile: Profile
    separation: list[Separation]


def progress_bar(done: int, total: int, width: int = 20) -> str:
    filled = round(width * done / total) if total else width
    return f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total}"


def dice_by_difference(image: np.ndarray, empty: np.ndarray, min_side_px: float = MIN_DIE_SIDE_PX
                       ) -> list[tuple[float, float, float, float]]:
    """Boxes (x, y, w, h) of the things on the tray that the empty tray did not show.

    A pixel belongs to a die when its colour differs from the empty tray's in hue, or it is
    much brighter or darker; a shadow only darkens the tray a little and keeps its hue, so
    it is left out.  Both images are already flattened and white-balanced the same way.
    """
    now = cv2.GaussianBlur(image, (5, 5), 0).astype(np.float32) + 1.0
    before = cv2.GaussianBlur(empty, (5, 5), 0).astype(np.float32) + 1.0
    ratio = now / before
    brightness = ratio.mean(axis=2)
    hue_change = np.abs(ratio / brightness[..., None] - 1.0).max(axis=2)
    changed = np.abs(now - before).max(axis=2) > MIN_LEVEL_CHANGE
    mask = (changed & ((hue_change > HUE_CHANGE) | (brightness > BRIGHTER) | (brightness < DARKER))).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    count, _labels, stats, _centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
    boxes = []
    for x, y, w, h, area in stats[1:count]:
        if min(w, h) < min_side_px or max(w, h) > 1.6 * min(w, h) or area < 0.45 * w * h:
            continue  # specks, two dice touching, or not die-shaped
        boxes.append((float(x), float(y), float(w), float(h)))
    return boxes


def run_guided(source: FrameSource, colours: list[str], tray: TrayChoice, console: Console,
               name: str = "default", max_shades: int = MAX_SHADES) -> Outcome:
    """Walk the player through calibration and return the new profile and its separation check.

    With a live camera the player may first rename or add colours at a prompt.
    """
    if source.live:
        colours = confirm_colours(colours, console)
    total = 2 + len(colours) + 1
    step = 0

    def header(title: str) -> None:
        nonlocal step
        step += 1
        console.say(f"\n{progress_bar(step - 1, total)}  step {step}/{total}: {title}")

    header("empty tray")
    empty = source.frames("empty", "Clear every die off the tray; light it as it will be during play.", console)[0]
    header("tray region")
    while True:
        try:
            settings = _tray_settings(empty, tray, console)
            break
        except UserError as exc:
            if not source.live:
                raise
            console.say(f"  {exc}")
            empty = source.frames("empty", "Then show the empty tray again.", console)[0]
    flat_empty = settings.flatten(empty)
    if tray.grey_card:
        balance = from_grey_card(flat_empty, tray.grey_card)
        console.say(f"  white balance from the grey card: gains B,G,R {_fmt(balance.gains_bgr)}")
    else:
        balance = from_empty_tray(flat_empty)
        console.say(f"  white balance from the empty tray: gains B,G,R {_fmt(balance.gains_bgr)}")
    background = balance.correct(flat_empty)

    samples: dict[str, list[np.ndarray]] = {}
    sizes: list[float] = []
    for colour in colours:
        header(f"{colour} dice")
        while True:
            frames = source.frames(colour, f"Put all your {colour.upper()} dice on the tray, pips up, "
                                           "not touching, and nothing else.", console)
            found = []
            for frame in frames:
                image = balance.correct(settings.flatten(frame))
                for bbox in dice_by_difference(image, background):
                    found.append(die_colour_features(image, bbox))
                    sizes.append(max(bbox[2], bbox[3]))
            console.say(f"  found {len(found)} {colour} dice in {len(frames)} picture(s)")
            if found:
                samples[colour] = found
                break
            if not source.live:
                raise UserError(f"no dice found in the {colour} picture(s): check the image and the lighting")
            console.say("  no dice seen: check they are on the tray and well lit, then try again")

    header("check")
    arrays = {c: np.array(v) for c, v in samples.items()}
    palette = learn_palette(arrays, max_shades)
    report = separation(palette, arrays, max_shades)
    for line in report:
        console.say("  " + line.line())
    close = [s for s in report if s.too_close]
    if close:
        console.say(f"  {len(close)} colour(s) may be misread: see the warnings above")
    die_size = DieSize.around(sizes)
    console.say(f"  die size {min(sizes):.0f}-{max(sizes):.0f} px; expected range {die_size.min_px:g}-"
                f"{die_size.max_px:g} px")
    profile = Profile(name, settings, balance, source.controls(), die_size, palette)
    console.say(progress_bar(total, total) + "  done")
    return Outcome(profile, report)


def confirm_colours(colours: list[str], console: Console) -> list[str]:
    """Ask the player to keep the planned colours or type their own list (rename, add, drop)."""
    console.say(f"Dice colours to calibrate: {', '.join(colours)}")
    while True:
        answer = console.ask("  press Enter to keep them, or type the colours, comma-separated: ").strip().lower()
        if not answer:
            return colours
        typed = [c.strip() for c in answer.split(",") if c.strip()]
        if typed and len(set(typed)) == len(typed):
            return typed
        console.say("  give each colour once, e.g. white, yellow, red")


def _tray_settings(empty: np.ndarray, tray: TrayChoice, console: Console) -> TraySettings:
    if tray.method == "markers":
        found = detect_markers(empty, tray.layout.dictionary)
        to_mm = homography_from_markers(found, tray.layout)
        corners = tuple((round(float(x), 3), round(float(y), 3)) for x, y in tray_corners_in_image(to_mm, tray.layout))
        console.say(f"  found markers {', '.join(str(i) for i in tray.layout.marker_ids)}; "
                    f"tray {tray.layout.width_mm:g} x {tray.layout.height_mm:g} mm")
        return TraySettings("markers", tray.layout, corners, tray.px_per_mm)
    if tray.method == "corners":
        if tray.corners_px is None:
            raise UserError("--tray corners needs --corners 'x,y x,y x,y x,y'")
        console.say("  tray corners as given")
        return TraySettings("corners", tray.layout, tray.corners_px, tray.px_per_mm)
    console.say("  no tray region: the whole picture is read")
    return TraySettings("none", tray.layout, None, tray.px_per_mm)


def _fmt(values) -> str:
    return ", ".join(f"{v:.3f}" for v in values)

