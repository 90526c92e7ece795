"""The harness that drives the real Kivy app in an SDL offscreen window (software GL,
no display needed), and tests of the app's shell: window, input providers, keyboard.

Other ``test_ui_*`` modules import :class:`UiDriver` and the ``ui`` fixture from here.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from slow_machine import TIME_SCALE

# Before Kivy is first imported: no display needed, no user Kivy config, no log files.
os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
os.environ["KIVY_HOME"] = tempfile.mkdtemp(prefix="kivy-home-")
os.environ["KIVY_NO_CONSOLELOG"] = "1"
os.environ["KIVY_NO_FILELOG"] = "1"
os.environ["KIVY_NO_ARGS"] = "1"
pytest.importorskip("kivy", reason="the UI tests need Kivy: pip install kivy==2.3.1")

TEST_CAMERA_FPS = 8.0 / TIME_SCALE
"""The live view's frame rate in tests: enough to see the dice, cheap with software GL.  Each picture
shown makes Mesa's software renderer draw the whole screen (about 0.1 s here, seconds under qemu), so
on a slow machine the live view shows fewer pictures a second, as the time scale says."""
SCROLLVIEW_TAP_DELAY = 0.25
"""Seconds Kivy's ScrollView takes to pass a tap to the widget under it (0.2 s, and a frame)."""
SCREENSHOTS = Path(os.environ.get("COMPANION_SCREENSHOTS") or tempfile.mkdtemp(prefix="ui-screenshots-"))
"""Where the tests save screenshots: docs/screenshots is refreshed with
``COMPANION_SCREENSHOTS=docs/screenshots pytest tests/test_ui_game.py tests/test_ui_screens.py``."""


@pytest.fixture(scope="session")
def kivy_window():
    """One offscreen 800x480 Kivy window for the whole test run (Kivy allows one per process)."""
    from ui.window import configure_window

    configure_window(size=(800, 480))
    from kivy.config import Config

    Config.set("graphics", "maxfps", "0")  # tests advance frames as fast as they can
    from kivy.core.window import Window

    return Window


class UiDriver:
    """Starts app instances and drives them by touches, keys and frames."""

    def __init__(self, window):
        self.window = window
        self.apps = []

    def launch(self, auto_read: bool = False, **kwargs):
        """A new app instance; automatic reading is off unless asked for (tests read on demand)."""
        from ui.app import CompanionApp

        kwargs.setdefault("camera_fps", TEST_CAMERA_FPS)
        app = CompanionApp(**kwargs)
        app.auto_read = auto_read
        app._run_prepare()
        self.apps.append(app)
        self.app = app
        self.pump(3)
        return app

    def close(self, app=None) -> None:
        """Close an app the way a player quitting would (its on_stop runs)."""
        app = app or self.app
        if app in self.apps:
            self.apps.remove(app)
            app.stop()
            for child in list(self.window.children):   # Kivy's stop skips every other child of the window
                self.window.remove_widget(child)
            self.pump(2)

    def pump(self, frames: int = 2) -> None:
        from kivy.base import EventLoop

        for _ in range(frames):
            EventLoop.idle()

    def wait(self, condition, timeout: float = 20.0, what: str = "condition") -> None:
        deadline = time.monotonic() + timeout * TIME_SCALE
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; notice: {self.app.notice!r}")
            self.pump(1)
            time.sleep(0.005)

    def reveal(self, widget) -> None:
        """Scroll every scroll view that holds ``widget`` until it shows (a player's swipe)."""
        from kivy.uix.scrollview import ScrollView

        parent = widget.parent
        while parent is not None and parent is not self.window:
            if isinstance(parent, ScrollView) and not self._shows(parent, widget):
                parent.scroll_to(widget, padding=0, animate=False)
                self.pump(2)
            parent = parent.parent

    @staticmethod
    def _shows(view, widget) -> bool:
        x, y = widget.to_window(*widget.center)
        left, bottom = view.to_window(*view.pos)
        return left <= x <= left + view.width and bottom <= y <= bottom + view.height

    def tap(self, widget) -> None:
        """A finger down and up at the widget's centre, dispatched through the window."""
        from kivy.tests.common import UnitTestTouch

        assert not widget.disabled, f"{widget!r} ({getattr(widget, 'text', '')!r}) is disabled"
        self.pump(2)                      # let layouts settle, as a player's eye would
        assert widget.get_root_window() is not None, f"{widget!r} is not on screen"
        self.reveal(widget)
        x, y = widget.to_window(*widget.center)
        assert 0 <= x <= self.window.width and 0 <= y <= self.window.height, f"{widget!r} is off screen"
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        self.pump(1)
        if self._scrolled(widget):
            # A scroll view passes a quick tap on to its content 0.2 s after the finger lifts.
            until = time.monotonic() + SCROLLVIEW_TAP_DELAY
            while time.monotonic() < until:
                self.pump(1)
                time.sleep(0.01)

    def _scrolled(self, widget) -> bool:
        from kivy.uix.scrollview import ScrollView

        parent = widget.parent
        while parent is not None and parent is not self.window:
            if isinstance(parent, ScrollView):
                return True
            parent = parent.parent
        return False

    def tap_at(self, x: float, y: float) -> None:
        from kivy.tests.common import UnitTestTouch

        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        self.pump(2)

    def key(self, key: int, text: str | None = None, modifiers=()) -> None:
        self.window.dispatch("on_key_down", key, 0, text, list(modifiers))
        self.window.dispatch("on_key_up", key, 0)
        self.pump(2)

    def buttons(self, root=None, text: str | None = None) -> list:
        """Visible buttons under ``root`` (default: the window, popups included)."""
        from kivy.uix.button import Button

        roots = [root] if root is not None else list(self.window.children)
        found = [w for r in roots for w in r.walk(restrict=True) if isinstance(w, Button) and w.get_root_window()]
        return [b for b in found if text is None or b.text == text]

    def button(self, text: str, root=None):
        matches = self.buttons(root, text)
        assert len(matches) == 1, f"{len(matches)} buttons say {text!r}"
        return matches[0]

    def choose(self, spinner, text: str) -> None:
        """Open a spinner's list by touch and touch one of its entries."""
        self.tap(spinner)
        self.pump(3)
        self.tap(self.button(text, root=spinner._dropdown))
        self.wait(lambda: spinner._dropdown.parent is None, what="the list to close")

    def screenshot(self, name: str) -> Path:
        """Save the window as it is now to SCREENSHOTS/<name>.png (the app draws it), after checking
        that every word on it is a player's word in type a player can read (:func:`screen_problems`)."""
        self.pump(3)
        problems = screen_problems(self.window)
        assert not problems, f"{name}: " + "; ".join(problems)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.window.dispatch("on_draw")
        written = Path(self.window.screenshot(str(SCREENSHOTS / f"{name}.png")))
        target = SCREENSHOTS / f"{name}.png"
        shutil.move(written, target)
        assert target.read_bytes()[16:24] == (800).to_bytes(4, "big") + (480).to_bytes(4, "big")  # PNG size
        return target


def enter_dice(ui: UiDriver, app, dice) -> None:
    """Dice entered by touch: "+", the colour, the value; then "Use dice"."""
    play = app.screen("play")
    for die in dice:
        ui.tap(play.ids.chips.children[-1])
        ui.tap(ui.button(die.colour, root=play.die_popup))
        ui.tap(ui.button(str(die.value), root=play.die_popup))
        ui.wait(lambda: play.die_popup.parent is None, what="the die popup to close")
    ui.tap(play.ids.accept_button)


def assert_refused(ui: UiDriver, app, tap) -> None:
    """``tap`` is refused in one line and changes nothing."""
    before, events = app.state.to_json(), len(app.session.history())
    tap()
    assert app.notice and "\n" not in app.notice and len(app.notice) < 200, app.notice
    assert app.state.to_json() == before and len(app.session.history()) == events
    ui.pump(2)


MACHINE_WORDS = ("_", "[]", "#", "None", "{")
"""What engine notation looks like: never on screen."""
SMALLEST_TYPE_PX = 18
"""Nothing a player must read is smaller (the 800x480 screen at arm's length)."""
_MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")
_MARKUP_SIZE = re.compile(r"\[size=(\d+(?:\.\d+)?)(sp|dp|px)?\]")


def screen_problems(window) -> list[str]:
    """Machine words, and type under SMALLEST_TYPE_PX px, in the labels and buttons on screen now
    (Kivy's own on-screen keyboard left out)."""
    from kivy.metrics import dp, sp
    from kivy.uix.label import Label
    from kivy.uix.vkeyboard import VKeyboard

    units = {"sp": sp, "dp": dp, "px": float, None: float}
    problems = []
    for top in window.children:
        if isinstance(top, VKeyboard):
            continue
        for widget in top.walk(restrict=True):
            if not isinstance(widget, Label) or not widget.text or widget.opacity == 0 or min(widget.size) < 2 \
                    or not widget.get_root_window():
                continue
            text = _MARKUP.sub("", widget.text) if widget.markup else widget.text
            words = [w for w in MACHINE_WORDS if w in text]
            if words:
                problems.append(f"{text[:60]!r} shows {' '.join(words)}")
            sizes = [units[unit](float(value)) for value, unit in _MARKUP_SIZE.findall(widget.text)] \
                if widget.markup else []
            smallest = min([widget.font_size, *sizes])
            if smallest < SMALLEST_TYPE_PX - 0.5:
                problems.append(f"{text[:60]!r} in {smallest:.0f} px type")
    return problems


@pytest.fixture
def ui(kivy_window):
    driver = UiDriver(kivy_window)
    yield driver
    for app in list(driver.apps):
        driver.close(app)


def test_window_is_800_by_480_and_the_app_adds_no_input_provider(ui):
    from kivy.base import EventLoop
    from kivy.config import Config

    before = dict(Config.items("input"))
    providers = [type(p).__name__ for p in EventLoop.input_providers]
    app = ui.launch(camera="sim")
    assert tuple(ui.window.size) == (800, 480)
    assert dict(Config.items("input")) == before
    assert [type(p).__name__ for p in EventLoop.input_providers] == providers
    assert app.root.current == "start"


def test_one_tap_is_one_event(ui):
    """A tap on "+" adds exactly one player (two events would add two)."""
    app = ui.launch(camera="sim")
    start = app.screen("start")
    ui.choose(start.ids.game_choice, "Dairyman")
    assert start.player_count == 2
    ui.tap(ui.button("+"))
    assert start.player_count == 3
    assert len(start.ids.players.children) == 3


def test_with_a_touchscreen_provider_configured_sdl_touches_are_dropped(ui):
    """The Pi config reads the touchscreen with hidinput; SDL must not deliver the same taps."""
    from kivy.base import EventLoop
    from kivy.config import Config

    from ui.window import drop_duplicate_touch_source

    sdl = [p for p in EventLoop.input_providers if type(p).__name__ == "SDL2MotionEventProvider"]
    assert len(sdl) == 1
    assert drop_duplicate_touch_source() is False          # desktop config: mouse only, SDL stays
    Config.set("input", "touchscreen", "hidinput,/dev/input/touchscreen")
    try:
        assert drop_duplicate_touch_source() is True
        assert sdl[0] not in EventLoop.input_providers
    finally:
        Config.remove_option("input", "touchscreen")
        EventLoop.add_input_provider(sdl[0])
