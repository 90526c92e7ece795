"""Buttons, a status light and a buzzer on the Raspberry Pi's GPIO header, with gpiozero.

:class:`GpioPanel` wires a "read dice" button (short press: read now; long press: undo),
an "end turn" button, an optional separate undo button, a status LED (one PWM LED or an
RGB LED) and an optional buzzer to the app's callbacks.  Pins come from a config dict
(BCM numbers, see :data:`DEFAULT_PINS`).  On a machine without GPIO, or without gpiozero,
the panel is quietly off: every method still works and does nothing.
"""
from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Mapping
from typing import Any, Self

from companion.errors import UserError

__all__ = ["DEFAULT_PINS", "LONG_PRESS_SECONDS", "RGB_STATUS", "SINGLE_LED_STATUS", "STATUSES", "GpioPanel"]

log = logging.getLogger(__name__)

DEFAULT_PINS: dict[str, Any] = {
    "read_button": 17,       # short press: read the dice now; long press: undo
    "end_turn_button": 27,
    "undo_button": None,     # optional separate undo button
    "status_led": 22,        # a single LED (PWM for a dim "ready")...
    "rgb_led": None,         # ...or an RGB LED as [red, green, blue] pins (replaces status_led)
    "rgb_active_high": True,  # False for a common-anode RGB LED
    "buzzer": None,
}
LONG_PRESS_SECONDS = 0.8
"""How long the read button must be held to mean "undo" instead of "read"."""

STATUSES = ("off", "ready", "reading", "read_ok", "attention")

# status -> (colour, blink): colour is (r, g, b) 0..1; blink is (on s, off s) or None for steady.
RGB_STATUS: dict[str, tuple[tuple[float, float, float], tuple[float, float] | None]] = {
    "off": ((0.0, 0.0, 0.0), None),
    "ready": ((0.0, 0.25, 0.0), None),         # dim green
    "reading": ((0.0, 0.0, 1.0), (0.15, 0.15)),  # blue, blinking
    "read_ok": ((0.0, 1.0, 0.0), None),        # bright green
    "attention": ((1.0, 0.0, 0.0), (0.4, 0.4)),  # red, blinking
}
# status -> (brightness 0..1, blink) for a single LED.
SINGLE_LED_STATUS: dict[str, tuple[float, tuple[float, float] | None]] = {
    "off": (0.0, None),
    "ready": (0.2, None),
    "reading": (1.0, (0.1, 0.1)),
    "read_ok": (1.0, None),
    "attention": (1.0, (0.5, 0.5)),
}
ATTENTION_BEEPS = (0.15, 0.1, 3)
"""Buzzer on "needs attention": on seconds, off seconds, number of beeps."""


def _check_pins(config: Mapping[str, Any]) -> dict[str, Any]:
    unknown = set(config) - set(DEFAULT_PINS)
    if unknown:
        raise UserError(f"unknown GPIO setting {min(unknown)!r} (known: {', '.join(DEFAULT_PINS)})")
    pins = {**DEFAULT_PINS, **config}
    if pins["rgb_led"] is not None and "status_led" not in config:
        pins["status_led"] = None            # an RGB LED replaces the default single LED
    used: list[int] = []
    for name in ("read_button", "end_turn_button", "undo_button", "status_led", "rgb_led", "buzzer"):
        value = pins[name]
        if value is None:
            continue
        if name == "rgb_led" and (not isinstance(value, list | tuple) or len(value) != 3):
            raise UserError("GPIO rgb_led needs three pins: [red, green, blue]")
        for number in value if name == "rgb_led" else [value]:
            if not isinstance(number, int) or isinstance(number, bool) or not 2 <= number <= 27:
                raise UserError(f"GPIO {name}: {number!r} is not a BCM pin number 2-27")
            used.append(number)
    if len(set(used)) != len(used):
        raise UserError("two GPIO functions cannot share one pin")
    return pins


class GpioPanel:
    """The physical controls; ``available`` is False when there is no GPIO here."""

    def __init__(self, config: Mapping[str, Any] | None = None, *,
                 on_read: Callable[[], None] | None = None, on_undo: Callable[[], None] | None = None,
                 on_end_turn: Callable[[], None] | None = None, pin_factory: Any = None,
                 long_press_seconds: float = LONG_PRESS_SECONDS):
        self.pins = _check_pins(config or {})
        self.on_read, self.on_undo, self.on_end_turn = on_read, on_undo, on_end_turn
        self.status = "off"
        self.available = False
        self._devices: list[Any] = []
        self._held = False
        self._led_dims = False
        self.read_button = self.end_turn_button = self.undo_button = None
        self.led = self.rgb_led = self.buzzer = None
        try:
            with warnings.catch_warnings():   # gpiozero warns about each pin library it cannot use
                warnings.simplefilter("ignore")
                self._open(pin_factory, long_press_seconds)
        except Exception as exc:  # noqa: BLE001 - no GPIO here (no gpiozero, no pin factory, not a Pi)
            log.info("GPIO off: %s", exc)
            self.close()
            return
        self.available = True
        self.show("ready")

    def _open(self, factory: Any, long_press: float) -> None:
        from gpiozero import LED, PWMLED, RGBLED, Button, Buzzer

        pins = self.pins

        def add(device):
            self._devices.append(device)
            return device

        if pins["read_button"] is not None:
            self.read_button = add(Button(pins["read_button"], hold_time=long_press, pin_factory=factory))
            self.read_button.when_pressed = self._read_pressed
            self.read_button.when_held = self._read_held
            self.read_button.when_released = self._read_released
        if pins["end_turn_button"] is not None:
            self.end_turn_button = add(Button(pins["end_turn_button"], pin_factory=factory))
            self.end_turn_button.when_pressed = lambda: self._call(self.on_end_turn)
        if pins["undo_button"] is not None:
            self.undo_button = add(Button(pins["undo_button"], pin_factory=factory))
            self.undo_button.when_pressed = lambda: self._call(self.on_undo)
        if pins["rgb_led"] is not None:
            red, green, blue = pins["rgb_led"]
            self.rgb_led = add(RGBLED(red, green, blue, active_high=pins["rgb_active_high"], pin_factory=factory))
        elif pins["status_led"] is not None:
            try:
                self.led = add(PWMLED(pins["status_led"], pin_factory=factory))
                self._led_dims = True
            except Exception:  # noqa: BLE001 - a pin without PWM still lights, only not dimmed
                self.led = add(LED(pins["status_led"], pin_factory=factory))
        if pins["buzzer"] is not None:
            self.buzzer = add(Buzzer(pins["buzzer"], pin_factory=factory))

    # -- buttons ----------------------------------------------------------------------
    @staticmethod
    def _call(callback: Callable[[], None] | None) -> None:
        if callback is None:
            return
        try:
            callback()
        except Exception:
            log.exception("GPIO button action failed")

    def _read_pressed(self) -> None:
        self._held = False

    def _read_held(self) -> None:
        self._held = True
        self._call(self.on_undo)

    def _read_released(self) -> None:
        if not self._held:
            self._call(self.on_read)
        self._held = False

    # -- status light and buzzer ------------------------------------------------------------
    def show(self, status: str) -> None:
        """Show the app's state: off, ready, reading, read_ok or attention (which also beeps)."""
        if status not in STATUSES:
            raise UserError(f"unknown status {status!r} (known: {', '.join(STATUSES)})")
        self.status = status
        if not self.available:
            return
        if self.rgb_led is not None:
            colour, blink = RGB_STATUS[status]
            if blink:
                self.rgb_led.blink(on_time=blink[0], off_time=blink[1], on_color=colour, off_color=(0, 0, 0))
            else:
                self.rgb_led.color = colour
        elif self.led is not None:
            level, blink = SINGLE_LED_STATUS[status]
            if blink:
                self.led.blink(on_time=blink[0], off_time=blink[1])
            elif self._led_dims:
                self.led.value = level
            elif level:
                self.led.on()
            else:
                self.led.off()
        if self.buzzer is not None:
            if status == "attention":
                on, off, count = ATTENTION_BEEPS
                self.buzzer.beep(on_time=on, off_time=off, n=count)
            else:
                self.buzzer.off()

    def close(self) -> None:
        for device in reversed(self._devices):
            try:
                device.close()
            except Exception:
                log.debug("closing %r failed", device, exc_info=True)
        self._devices.clear()
        self.available = False

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
