"""Kivy settings that must be made before Kivy opens its window.

The app never adds to Kivy's ``[input]`` section: on the Pi the touchscreen's single
input provider is chosen by the Kivy config in ``scripts/pi/`` (``KIVY_HOME``), and an
extra provider would turn one tap into two events.  For the same reason the app drops
the provider SDL's window adds by itself when that config reads the touchscreen directly.
"""
from __future__ import annotations

import os

TOUCHSCREEN_SIZE = (800, 480)
"""The official Raspberry Pi 7-inch touchscreen, the layout's first target."""


def configure_window(fullscreen: bool = False, size: tuple[int, int] = TOUCHSCREEN_SIZE) -> None:
    """Set the window size and mode; call before anything imports ``kivy.core.window``."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")  # our own command line, not Kivy's
    from kivy.config import Config

    Config.set("graphics", "width", str(size[0]))
    Config.set("graphics", "height", str(size[1]))
    Config.set("graphics", "resizable", "1")
    Config.set("graphics", "fullscreen", "auto" if fullscreen else "0")
    Config.set("kivy", "exit_on_escape", "0")


DEVICE_TOUCH_PROVIDERS = ("hidinput", "mtdev")
"""Kivy providers that read a touchscreen device directly (the Pi config names one)."""


def drop_duplicate_touch_source() -> bool:
    """Stop SDL's own touch events when the Kivy config reads the touchscreen directly.

    The SDL window adds an input provider by itself; on the Pi, SDL also sees the
    touchscreen, so with the config's device provider every tap would arrive twice.
    Returns True if SDL's provider was removed.
    """
    from kivy.base import EventLoop
    from kivy.config import Config

    configured = [value.split(",")[0].strip() for _name, value in Config.items("input")]
    if not any(name in DEVICE_TOUCH_PROVIDERS for name in configured):
        return False
    removed = False
    for provider in list(EventLoop.input_providers):
        if type(provider).__name__ == "SDL2MotionEventProvider":
            EventLoop.remove_input_provider(provider)
            removed = True
    return removed
