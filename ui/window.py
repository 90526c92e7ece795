"""Kivy settings that must be made before Kivy opens its window.

The app never touches Kivy's ``[input]`` section: on the Pi the touchscreen's single
input provider is chosen by the Kivy config in ``scripts/pi/`` (``KIVY_HOME``), and an
extra provider added here would turn one tap into two events.
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
