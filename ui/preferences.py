"""The app's saved settings: camera source, calibration profile, GPIO pins and each
game's preferred rules options, kept as JSON in the config directory.

Every value has a documented default in :data:`DEFAULTS`; a bad value is refused with a
one-line :class:`~companion.errors.UserError` and nothing is saved.
"""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

from companion.errors import UserError
from companion.paths import config_dir
from companion.safe_files import write_atomically

FILE_NAME = "ui.json"

DEFAULTS: dict[str, Any] = {
    # "" = the Pi camera on a Raspberry Pi, else the simulated one; or name one:
    # "sim" (dice drawn on screen), "pi", "usb", "usb:N" or "replay:PATH".
    "camera": "",
    # Read the dice by itself once they come to rest (else only on space / the Read button).
    "auto_read": True,
    # Name of a calibration profile in the config directory; "" uses the reader's defaults.
    "calibration": "",
    # GPIO pins (BCM numbers) that differ from hardware.gpio.DEFAULT_PINS; None = not fitted.
    "pins": {},
    # Game name -> option name -> value, used to pre-fill the start screen.
    "options": {},
    # The players of the last game started, in seat order, to pre-fill the start screen.
    "players": [],
}

_CAMERA_SPEC = re.compile(r"^(|sim|pi|usb(:\d+|:/dev/\S+)?|replay:.+)$")
BCM_PINS = range(2, 28)


def check_camera(spec: str) -> str:
    spec = spec.strip()
    if not _CAMERA_SPEC.match(spec):
        raise UserError(f"camera {spec!r}: use sim, pi, usb, usb:N or replay:PATH")
    return spec


def single_pins() -> dict[str, int | None]:
    """The one-pin GPIO functions and their default pins (hardware.gpio's table)."""
    from hardware.gpio import DEFAULT_PINS

    return {name: pin for name, pin in DEFAULT_PINS.items() if name.endswith(("_button", "_led", "buzzer"))
            and not isinstance(pin, (list, tuple)) and name != "rgb_led"}


def check_pins(pins: dict[str, Any]) -> dict[str, int | None]:
    """Pin numbers for the one-pin functions; "" or None means not fitted."""
    known = single_pins()
    checked: dict[str, int | None] = {}
    for name, value in pins.items():
        if name not in known:
            raise UserError(f"unknown pin {name!r} (pins: {', '.join(known)})")
        if value is None or str(value).strip() == "":
            checked[name] = None
            continue
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise UserError(f"pin {name}: {value!r} is not a number") from None
        if number not in BCM_PINS:
            raise UserError(f"pin {name}: GPIO {number} is not a free BCM pin (2-27)")
        checked[name] = number
    numbers = [n for n in {**known, **checked}.values() if n is not None]
    if len(set(numbers)) != len(numbers):
        raise UserError("two functions cannot share one GPIO pin")
    return checked


class Preferences:
    """Load, change and save the app's settings."""

    def __init__(self, path: Path | None = None):
        self.path = path or config_dir() / FILE_NAME
        self.values = copy.deepcopy(DEFAULTS)
        if self.path.exists():
            try:
                saved = json.loads(self.path.read_text())
            except (OSError, ValueError) as exc:
                raise UserError(f"cannot read settings {self.path}: {exc}") from exc
            if not isinstance(saved, dict):
                raise UserError(f"cannot read settings {self.path}: not a JSON object")
            for key, default in DEFAULTS.items():
                if key in saved and isinstance(saved[key], type(default)):
                    self.values[key] = saved[key]

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def pins(self) -> dict[str, int | None]:
        """Every one-pin GPIO function with its pin: the defaults overlaid with the saved ones."""
        return {**single_pins(), **self.values["pins"]}

    def update(self, camera: str | None = None, calibration: str | None = None,
               pins: dict[str, Any] | None = None, auto_read: bool | None = None) -> None:
        """Check every given value first, then change and save them together."""
        changed: dict[str, Any] = {}
        if auto_read is not None:
            changed["auto_read"] = bool(auto_read)
        if camera is not None:
            changed["camera"] = check_camera(camera)
        if calibration is not None:
            changed["calibration"] = calibration.strip()
        if pins is not None:
            changed["pins"] = check_pins({**self.values["pins"], **pins})
        self.values.update(changed)
        self.save()

    def game_options(self, game_name: str) -> dict[str, Any]:
        return dict(self.values["options"].get(game_name, {}))

    def set_game_options(self, game_name: str, options: dict[str, Any]) -> None:
        self.values["options"][game_name] = dict(options)
        self.save()

    def set_players(self, players: list[str]) -> None:
        """Remember the players of the game just started."""
        self.values["players"] = [str(p) for p in players]
        self.save()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path, json.dumps(self.values, indent=2, sort_keys=True))
