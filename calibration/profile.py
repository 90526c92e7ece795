"""The calibration profile: one human-readable TOML file per table, lamp and dice set.

It holds the tray region, the white balance, the camera controls to lock, the expected die
size and the colour palette (a :class:`vision.colour.Palette`).  ``load_profile`` checks
every field, each number against its range in :data:`RANGES`, and names the first bad one
in a one-line :class:`UserError`.  ``save_profile`` checks the text it is about to write
with that same loader, so it never replaces a profile with one that cannot be read; the
file it replaces is kept beside it as ``<name>.bak``.

A palette colour may appear several times with the same name: each entry is one *shade*
(for example solid red and marbled maroon dice both named "red").
"""
from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from calibration.toml_writer import dumps
from calibration.tray import TrayLayout, aruco_dictionary, flat_tray
from calibration.white_balance import GAIN_LIMITS, WhiteBalance
from calibration.white_balance import METHODS as WB_METHODS
from companion.errors import UserError
from companion.limits import regular_file
from companion.paths import config_dir
from companion.safe_files import write_atomically
from vision import dice_net
from vision.colour import Palette, PaletteColour, default_palette
from vision.reader import FaceHead

FORMAT_VERSION = 1
TRAY_METHODS = ("markers", "corners", "none")
PROFILE_ENV = "COMPANION_PROFILE"
MAX_PROFILE_BYTES = 1_000_000
"""Size of a profile file read whole (a real one is about 3 kB)."""
HEADER = ("Dice Companion calibration profile, written by `companion calibrate`.\n"
          "Hand edits are checked when the profile is loaded; a bad field is named in the error.")


@dataclass(frozen=True)
class TraySettings:
    """Where the tray is in the camera's picture, and how big the flattened tray is."""

    method: str = "none"
    layout: TrayLayout = field(default_factory=lambda: TrayLayout(300.0, 200.0, 30.0))
    corners_px: tuple[tuple[float, float], ...] | None = None
    px_per_mm: float = 2.0

    def flatten(self, frame: np.ndarray) -> np.ndarray:
        """The tray from straight above and cropped to it (the frame itself without a tray region)."""
        if self.method == "none" or self.corners_px is None:
            return frame
        return flat_tray(frame, self.corners_px, self.layout, self.px_per_mm)


@dataclass(frozen=True)
class CameraControls:
    """Camera settings to lock so colours stay put; None leaves the camera's automatic value.

    ``colour_gains`` is (red, blue), as picamera2's ``ColourGains``; ``lens_position`` is
    the focus in dioptres.
    """

    exposure_us: int | None = None
    analogue_gain: float | None = None
    colour_gains: tuple[float, float] | None = None
    lens_position: float | None = None

    def as_controls(self) -> dict[str, Any]:
        """The locked controls in picamera2's names (automatic ones left out)."""
        controls: dict[str, Any] = {}
        if self.exposure_us is not None:
            controls.update(AeEnable=False, ExposureTime=self.exposure_us)
        if self.analogue_gain is not None:
            controls.update(AeEnable=False, AnalogueGain=self.analogue_gain)
        if self.colour_gains is not None:
            controls.update(AwbEnable=False, ColourGains=self.colour_gains)
        if self.lens_position is not None:
            controls.update(AfMode=0, LensPosition=self.lens_position)
        return controls


#: The expected die size range is the sizes seen at calibration widened by this share either way.
DIE_SIZE_MARGIN = 0.3


@dataclass(frozen=True)
class DieSize:
    """The expected size of one die, in pixels of the picture the reader sees."""

    min_px: float = 15.0
    max_px: float = 120.0

    @classmethod
    def around(cls, sizes) -> DieSize:
        """The range that holds every seen size, widened by :data:`DIE_SIZE_MARGIN`."""
        return cls(round(min(sizes) * (1 - DIE_SIZE_MARGIN), 1), round(max(sizes) * (1 + DIE_SIZE_MARGIN), 1))


@dataclass(frozen=True)
class MyDice:
    """What "learn my dice" (:mod:`calibration.learn_dice`) learnt of the player's own set besides its
    palette: the dice's side range in the picture, the camera's slant, the finder's thresholds that
    read the set best, the number its symbol face stands for, where the camera shows a die's side faces and
    whether the finder sees the set's dice too small."""

    rolls: int                  # confirmed rolls it was learnt from
    dice: int                   # confirmed dice in them
    min_side_px: float          # finds smaller than this are no die of the set
    max_side_px: float          # ... nor finds larger than this
    find_threshold: float
    not_a_die_threshold: float
    view_angle_deg: float = 0.0   # a slanted camera's squash, undone by stretching the frame this way
    view_stretch: float = 1.0     # ... by this factor (1: the camera looks straight down)
    symbol_value: int | None = None   # the number the set's symbol face stands for (None: none learnt)
    side_face_offset: tuple[float, float] | None = None   # from a die's centre to its side faces, in die sides
    # (x right, y down): a find there is no die (None: none learnt)
    wider_look: bool = False      # finds read as no die are read again from wider crops (vision.reader.WIDER_LOOK_SCALES):
    # the finder sees this set's dice too small (as it sees dice with a symbol face)
    faces: FaceHead | None = None  # the face reader's last layer refitted to the set's confirmed dice (None: the shipped one)

    def reader_params(self):
        """The reader's parameters for this set (sizes in the frame's own pixels); a learnt slant replaces
        the reader's own search for one (a camera learnt to look straight down keeps the search)."""
        from vision.reader import DEFAULT_PARAMS, WIDER_LOOK_SCALES
        from vision.top_face import SideFaceParams

        return replace(DEFAULT_PARAMS, min_side=self.min_side_px, max_side=self.max_side_px,
                       find_threshold=self.find_threshold, not_a_die_threshold=self.not_a_die_threshold,
                       symbol_value=self.symbol_value, wider_look_scales=WIDER_LOOK_SCALES if self.wider_look else (),
                       side_faces=None if self.side_face_offset is None else SideFaceParams(self.side_face_offset),
                       slant_doubtful=DEFAULT_PARAMS.slant_doubtful if self.view_stretch == 1.0 else 0.0,
                       face_head=self.faces)

    def read(self, frame: np.ndarray, palette: Palette | None = None, search: bool = True):
        """Read ``frame`` as this set is best read: the camera's slant undone, finds of other sizes
        dropped, the learnt thresholds; ``palette`` names the colours; ``search`` False keeps a camera
        learnt to look straight down from searching for a slant."""
        from vision.reader import read_through_slant
        from vision.view import Stretch

        return read_through_slant(frame, palette=palette, params=self.reader_params(),
                                  slant=Stretch(self.view_angle_deg, self.view_stretch), search=search).reading


@dataclass(frozen=True)
class Profile:
    """Everything calibration learns; ``palette`` is what the reader's colour step uses."""

    name: str = "default"
    tray: TraySettings = field(default_factory=TraySettings)
    white_balance: WhiteBalance = field(default_factory=WhiteBalance)
    camera: CameraControls = field(default_factory=CameraControls)
    die_size: DieSize = field(default_factory=DieSize)
    palette: Palette = field(default_factory=default_palette)
    my_dice: MyDice | None = None

    def prepare(self, frame: np.ndarray) -> np.ndarray:
        """A camera frame as the reader should see it: flattened to the tray, then white-balanced."""
        return self.white_balance.correct(self.tray.flatten(frame))

    def read(self, frame: np.ndarray, camera=None):
        """Read ``frame`` white-balanced, with this palette and the learnt dice's settings, keeping the
        frame's own pixel coordinates; without learnt dice, ``camera`` (a :class:`vision.reader.CameraReader`
        for a stream of one camera's frames) remembers the camera's slant from frame to frame."""
        from vision.reader import as_bgr8, read_frame

        frame = self.white_balance.correct(as_bgr8(frame))
        if self.my_dice is not None:
            return self.my_dice.read(frame, self.palette)
        return read_frame(frame, palette=self.palette) if camera is None else camera.read(frame, self.palette)


# -- paths ------------------------------------------------------------------------------

def default_profile_path() -> Path:
    """The active profile: ``$COMPANION_PROFILE`` or ``profile.toml`` in the config directory."""
    return Path(os.environ[PROFILE_ENV]) if os.environ.get(PROFILE_ENV) else config_dir() / "profile.toml"


# -- writing ----------------------------------------------------------------------------

def profile_to_dict(profile: Profile) -> dict[str, Any]:
    """The profile as plain TOML-ready data (None values are left out of the file)."""
    tray, layout, cam = profile.tray, profile.tray.layout, profile.camera
    return {
        "version": FORMAT_VERSION,
        "name": profile.name,
        "tray": {
            "method": tray.method,
            "width_mm": float(layout.width_mm),
            "height_mm": float(layout.height_mm),
            "px_per_mm": float(tray.px_per_mm),
            "corners_px": [[float(x), float(y)] for x, y in tray.corners_px] if tray.corners_px else None,
            "marker_dictionary": layout.dictionary,
            "marker_ids": [int(i) for i in layout.marker_ids],
            "marker_size_mm": float(layout.marker_size_mm),
            "marker_inset_mm": float(layout.marker_inset_mm),
        },
        "white_balance": {
            "method": profile.white_balance.method,
            "gains_bgr": [float(g) for g in profile.white_balance.gains_bgr],
            "reference_bgr": [float(v) for v in profile.white_balance.reference_bgr],
        },
        "camera": {
            "exposure_us": cam.exposure_us,
            "analogue_gain": None if cam.analogue_gain is None else float(cam.analogue_gain),
            "colour_gains": None if cam.colour_gains is None else [float(g) for g in cam.colour_gains],
            "lens_position": None if cam.lens_position is None else float(cam.lens_position),
        },
        "dice": {"min_size_px": float(profile.die_size.min_px), "max_size_px": float(profile.die_size.max_px)},
        "my_dice": None if profile.my_dice is None else {
            "rolls": profile.my_dice.rolls,
            "dice": profile.my_dice.dice,
            "min_side_px": float(profile.my_dice.min_side_px),
            "max_side_px": float(profile.my_dice.max_side_px),
            "find_threshold": float(profile.my_dice.find_threshold),
            "not_a_die_threshold": float(profile.my_dice.not_a_die_threshold),
            "view_angle_deg": float(profile.my_dice.view_angle_deg),
            "view_stretch": float(profile.my_dice.view_stretch),
            "symbol_value": profile.my_dice.symbol_value,
            "side_face_offset": None if profile.my_dice.side_face_offset is None
            else [float(v) for v in profile.my_dice.side_face_offset],
            "wider_look": profile.my_dice.wider_look,
            "faces": None if profile.my_dice.faces is None else _faces_to_dict(profile.my_dice.faces),
        },
        "palette": {
            "max_distance": float(profile.palette.max_distance),
            "lightness_weight": _optional_float(getattr(profile.palette, "lightness_weight", None)),
            "colour": [{"name": c.name, "centre_lab": [float(v) for v in c.centre_lab], "spread": float(c.spread)}
                       for c in profile.palette.colours],
        },
    }


def _faces_to_dict(faces: FaceHead) -> dict[str, Any]:
    return {"reader_model": faces.model, "weights": [[round(float(v), 6) for v in row] for row in faces.weights],
            "bias": [round(float(v), 6) for v in faces.bias]}


def _optional_float(value: float | None) -> float | None:
    return None if value is None else float(value)


def backup_path(path: str | Path) -> Path:
    """Where :func:`save_profile` keeps the profile it replaced: ``profile.toml.bak`` beside ``profile.toml``."""
    path = Path(path)
    return path.with_name(path.name + ".bak")


def save_profile(profile: Profile, path: str | Path) -> Path:
    """Write ``profile`` to ``path`` whole, never half-written, once :func:`load_profile`'s checks pass
    on the text to be written (else UserError, and nothing changes); a file already at ``path`` is
    first copied to :func:`backup_path`."""
    path = Path(path)
    text = dumps(profile_to_dict(profile), HEADER)
    try:
        profile_from_text(text, "the new calibration profile")
    except UserError as exc:
        raise UserError(f"{exc}; {path} was left as it was") from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        old = path.read_bytes() if path.is_file() else None
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    if old is not None:
        write_atomically(backup_path(path), old)
    return write_atomically(path, text)


# -- reading and checking ---------------------------------------------------------------

_REQUIRED = object()


@dataclass(frozen=True)
class Range:
    """The sane values of one number in a profile, both ends included."""

    low: float
    high: float

    def holds(self, value: Any) -> bool:
        return _is_number(value) and self.low <= value <= self.high

    def __str__(self) -> str:
        return f"from {_plain(self.low)} to {_plain(self.high)}"


def _plain(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


#: Every number a profile may hold, by field, and its sane range (nan and inf never are).
#: Beyond these a profile would make the reader name no colour, or allocate without end.
RANGES: dict[str, Range] = {
    "tray.width_mm": Range(10, 2000),
    "tray.height_mm": Range(10, 2000),
    "tray.px_per_mm": Range(0.1, 20),
    "tray.corners_px": Range(-50000, 50000),
    "tray.marker_ids": Range(0, 1023),
    "tray.marker_size_mm": Range(1, 500),
    "tray.marker_inset_mm": Range(0, 500),
    "white_balance.gains_bgr": Range(*GAIN_LIMITS),
    "white_balance.reference_bgr": Range(1, 255),
    "camera.exposure_us": Range(1, 1_000_000_000),
    "camera.analogue_gain": Range(1, 64),
    "camera.colour_gains": Range(0.1, 32),
    "camera.lens_position": Range(0, 32),
    "dice.min_size_px": Range(1, 10000),
    "dice.max_size_px": Range(1, 10000),
    "my_dice.rolls": Range(1, 1000),
    "my_dice.dice": Range(1, 100000),
    "my_dice.min_side_px": Range(1, 10000),
    "my_dice.max_side_px": Range(1, 10000),
    "my_dice.find_threshold": Range(0.01, 0.99),
    "my_dice.not_a_die_threshold": Range(0.01, 0.99),
    "my_dice.view_angle_deg": Range(0, 180),
    "my_dice.view_stretch": Range(1, 4),
    "my_dice.symbol_value": Range(1, 6),
    "my_dice.side_face_offset": Range(-2, 2),
    "my_dice.faces.weights": Range(-1000, 1000),
    "my_dice.faces.bias": Range(-1000, 1000),
    "palette.max_distance": Range(0.1, 100),
    "palette.lightness_weight": Range(0.01, 100),
    "palette.colour.centre_lab": Range(-128, 128),   # L (0 to 100) and the signed a and b all lie in it
    "palette.colour.spread": Range(0.1, 200),
}
#: The flattened tray (tray size x px_per_mm) is at most this many pixels on its longer side.
MAX_FLAT_TRAY_PX = 4000


class _Fields:
    """Reads typed fields out of a parsed TOML table, naming the field in every error.

    Numbers are checked against ``RANGES[section + "." + key]``; ``section`` is the prefix
    without an index (``palette.colour`` for ``palette.colour[2].``).
    """

    def __init__(self, source: str, table: Any, prefix: str, known: tuple[str, ...], section: str = ""):
        if not isinstance(table, dict):
            raise UserError(f"{source}: field {prefix.rstrip('.')} must be a table")
        unknown = sorted(set(table) - set(known))
        if unknown:
            raise UserError(f"{source}: unknown field {prefix}{unknown[0]} (a typing mistake?)")
        self.source, self.table, self.prefix = source, table, prefix
        self.section = section or prefix.rstrip(".")

    def fail(self, key: str, need: str) -> UserError:
        got = self.table.get(key, "nothing")
        return UserError(f"{self.source}: field {self.prefix}{key} must be {need}, not {got!r}")

    def get(self, key: str, need: str, check: Callable[[Any], bool], default: Any) -> Any:
        if key not in self.table:
            if default is _REQUIRED:
                raise self.fail(key, need)
            return default
        value = self.table[key]
        if not check(value):
            raise self.fail(key, need)
        return value

    def range(self, key: str) -> Range:
        return RANGES[f"{self.section}.{key}"]

    def number(self, key: str, default: Any = None) -> float | None:
        sane = self.range(key)
        value = self.get(key, f"a number {sane}", sane.holds, default)
        return None if value is None else float(value)

    def integer(self, key: str, default: Any = None) -> int | None:
        sane = self.range(key)
        return self.get(key, f"a whole number {sane}", lambda v: _is_integer(v) and sane.holds(v), default)

    def boolean(self, key: str, default: Any = None) -> bool | None:
        return self.get(key, "true or false", lambda v: isinstance(v, bool), default)

    def text(self, key: str, default: Any = None, choices: tuple[str, ...] = ()) -> str:
        need = f"one of {', '.join(choices)}" if choices else "a text"
        return self.get(key, need, lambda v: isinstance(v, str) and (not choices or v in choices) and v != "",
                         default)

    def numbers(self, key: str, count: int, default: Any = None) -> tuple | None:
        sane = self.range(key)
        value = self.get(key, f"a list of {count} numbers {sane}",
                         lambda v: isinstance(v, list) and len(v) == count and all(sane.holds(x) for x in v), default)
        return None if value is None else tuple(float(x) for x in value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def profile_from_dict(data: dict, source: str = "profile") -> Profile:
    """Check and build a profile from parsed TOML; UserError names the first bad field."""
    top = _Fields(source, data, "", ("version", "name", "tray", "white_balance", "camera", "dice", "my_dice",
                                     "palette"))
    top.get("version", f"{FORMAT_VERSION}", lambda v: _is_integer(v) and v == FORMAT_VERSION, _REQUIRED)
    name = top.text("name", "default")
    tray = _read_tray(_Fields(source, data.get("tray", {}), "tray.", TRAY_FIELDS))
    wb_f = _Fields(source, data.get("white_balance", {}), "white_balance.",
                   ("method", "gains_bgr", "reference_bgr"))
    wb = WhiteBalance()
    white_balance = WhiteBalance(wb_f.text("method", wb.method, WB_METHODS),
                                 wb_f.numbers("gains_bgr", 3, wb.gains_bgr),
                                 wb_f.numbers("reference_bgr", 3, wb.reference_bgr))
    cam_f = _Fields(source, data.get("camera", {}), "camera.",
                    ("exposure_us", "analogue_gain", "colour_gains", "lens_position"))
    camera = CameraControls(cam_f.integer("exposure_us"), cam_f.number("analogue_gain"),
                            cam_f.numbers("colour_gains", 2), cam_f.number("lens_position"))
    dice_f = _Fields(source, data.get("dice", {}), "dice.", ("min_size_px", "max_size_px"))
    die_size = DieSize(dice_f.number("min_size_px", DieSize().min_px), dice_f.number("max_size_px", DieSize().max_px))
    if die_size.min_px >= die_size.max_px:
        raise dice_f.fail("max_size_px", f"larger than dice.min_size_px ({die_size.min_px:g})")
    palette = _read_palette(source, data["palette"]) if "palette" in data else default_palette()
    my_dice = _read_my_dice(_Fields(source, data["my_dice"], "my_dice.", MY_DICE_FIELDS)) if "my_dice" in data else None
    return Profile(name, tray, white_balance, camera, die_size, palette, my_dice)


MY_DICE_FIELDS = ("rolls", "dice", "min_side_px", "max_side_px", "find_threshold", "not_a_die_threshold",
                  "view_angle_deg", "view_stretch", "symbol_value", "side_face_offset", "wider_look", "faces")
#: Most pooled features a refitted face reader layer may weigh (the shipped reader has 128).
MAX_FACE_FEATURES = 4096


def _read_my_dice(f: _Fields) -> MyDice:
    learnt = MyDice(f.integer("rolls", _REQUIRED), f.integer("dice", _REQUIRED), f.number("min_side_px", _REQUIRED),
                    f.number("max_side_px", _REQUIRED), f.number("find_threshold", _REQUIRED),
                    f.number("not_a_die_threshold", _REQUIRED), f.number("view_angle_deg", 0.0),
                    f.number("view_stretch", 1.0), f.integer("symbol_value"), f.numbers("side_face_offset", 2),
                    f.boolean("wider_look", False), _read_faces(f))
    if learnt.min_side_px >= learnt.max_side_px:
        raise f.fail("max_side_px", f"larger than my_dice.min_side_px ({learnt.min_side_px:g})")
    return learnt


def _read_faces(my_dice: _Fields) -> FaceHead | None:
    if "faces" not in my_dice.table:
        return None
    f = _Fields(my_dice.source, my_dice.table["faces"], "my_dice.faces.", ("reader_model", "weights", "bias"))
    sane = f.range("weights")
    weights = f.get("weights", f"{dice_net.N_CLASSES} lists of as many numbers {sane} each (at most {MAX_FACE_FEATURES})",
                    lambda v: isinstance(v, list) and len(v) == dice_net.N_CLASSES and all(
                        isinstance(row, list) and 0 < len(row) == len(v[0]) <= MAX_FACE_FEATURES
                        and all(sane.holds(x) for x in row) for row in v), _REQUIRED)
    return FaceHead(np.array(weights, np.float64), np.array(f.numbers("bias", dice_net.N_CLASSES, _REQUIRED)),
                    f.text("reader_model", _REQUIRED))


TRAY_FIELDS = ("method", "width_mm", "height_mm", "px_per_mm", "corners_px", "marker_dictionary", "marker_ids",
               "marker_size_mm", "marker_inset_mm")


def _read_tray(f: _Fields) -> TraySettings:
    default = TraySettings()
    method = f.text("method", default.method, TRAY_METHODS)
    id_range = f.range("marker_ids")
    ids = f.get("marker_ids", f"a list of 4 different whole numbers {id_range}",
                lambda v: isinstance(v, list) and len(v) == 4 and len(set(v)) == 4
                and all(_is_integer(i) and id_range.holds(i) for i in v),
                list(default.layout.marker_ids))
    layout = TrayLayout(f.number("width_mm", default.layout.width_mm),
                        f.number("height_mm", default.layout.height_mm),
                        f.number("marker_size_mm", default.layout.marker_size_mm),
                        f.number("marker_inset_mm", default.layout.marker_inset_mm),
                        tuple(ids), f.text("marker_dictionary", default.layout.dictionary))
    if method == "markers":
        try:
            aruco_dictionary(layout.dictionary)
        except UserError:
            raise f.fail("marker_dictionary", "an ArUco dictionary such as DICT_4X4_50") from None
    corner_range = f.range("corners_px")
    corners = f.get("corners_px", f"four [x, y] points with coordinates {corner_range}",
                    lambda v: isinstance(v, list) and len(v) == 4 and all(
                        isinstance(p, list) and len(p) == 2 and all(corner_range.holds(c) for c in p) for p in v),
                    None)
    if method != "none" and corners is None:
        raise f.fail("corners_px", f"four [x, y] points when tray.method is {method!r}")
    corners_px = None if corners is None else tuple((float(x), float(y)) for x, y in corners)
    px_per_mm = f.number("px_per_mm", default.px_per_mm)
    longer_mm = max(layout.width_mm, layout.height_mm)
    if px_per_mm * longer_mm > MAX_FLAT_TRAY_PX:
        raise f.fail("px_per_mm", f"at most {MAX_FLAT_TRAY_PX / longer_mm:g} for a {longer_mm:g} mm tray "
                                  f"(the flattened tray is at most {MAX_FLAT_TRAY_PX} px)")
    return TraySettings(method, layout, corners_px, px_per_mm)


def _read_palette(source: str, table: Any) -> Palette:
    f = _Fields(source, table, "palette.", ("max_distance", "lightness_weight", "colour"))
    max_distance = f.number("max_distance", _REQUIRED)
    entries = f.get("colour", "a list of [[palette.colour]] tables",
                    lambda v: isinstance(v, list) and bool(v) and all(isinstance(c, dict) for c in v), _REQUIRED)
    colours = []
    for i, entry in enumerate(entries):
        c = _Fields(source, entry, f"palette.colour[{i}].", ("name", "centre_lab", "spread"), "palette.colour")
        colours.append(PaletteColour(c.text("name", _REQUIRED), c.numbers("centre_lab", 3, _REQUIRED),
                                     c.number("spread", _REQUIRED)))
    # The reader's Palette weighs lightness against hue; older palettes have no such field.
    weight = f.number("lightness_weight", None)
    return Palette(tuple(colours), max_distance) if weight is None else \
        Palette(tuple(colours), max_distance, lightness_weight=weight)


def load_profile(path: str | Path) -> Profile:
    """Read and check a profile file; UserError (one line, naming the bad field) if it is not usable."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"no calibration profile at {path}: run `companion calibrate` first")
    if regular_file(path, "calibration profile").st_size > MAX_PROFILE_BYTES:
        raise UserError(f"calibration profile {path} is over {MAX_PROFILE_BYTES // 1000} kB: not a profile")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read calibration profile {path}: {exc}") from None
    return profile_from_text(text, f"calibration profile {path}")


def profile_from_text(text: str, source: str = "profile") -> Profile:
    """Check and build a profile from TOML text (what :func:`load_profile` reads, and
    :func:`save_profile` is about to write); UserError names ``source`` and the first bad field."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{source} is not valid TOML: {exc}") from None
    except RecursionError:
        raise UserError(f"{source} is nested too deeply to be a profile") from None
    return profile_from_dict(data, source)
