"""``companion run --self-test PNG``: the app checks a new install by itself, end to end.

It starts a game, throws the simulated camera's dice, lets the reader read them once they
come to rest, compares the reading with the dice the camera drew, uses the roll, waits for
the suggestions on screen, saves a screenshot and closes the app.  The verdict is one line;
the app's exit code says whether it passed.  It plays in a database and settings of its
own, so a player's games and settings are never touched.
"""
from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

from kivy.clock import Clock
from kivy.core.window import Window

SELF_TEST_SECONDS = 900.0
"""The longest a self-test may take before it gives up (an emulated arm64 system is slow)."""


class SelfTest:
    """Drives a running :class:`ui.app.CompanionApp` through one roll, step by step on its clock."""

    def __init__(self, app, screenshot: Path, game: str, players: list[str], time_limit: float = SELF_TEST_SECONDS):
        self.app = app
        self.screenshot = Path(screenshot)
        self.game = game
        self.players = players
        self.deadline = time.monotonic() + time_limit
        self.step = self._start_game
        self.truth: list = []
        self.headline = ""
        self.passed = False
        self.verdict = "the self-test did not finish"

    def begin(self) -> None:
        Clock.schedule_interval(self._tick, 0.1)

    def _tick(self, _dt) -> None:
        if time.monotonic() > self.deadline:
            self._finish(False, f"gave up after {SELF_TEST_SECONDS:.0f} s while {self.step.__doc__}")
            return
        self.step()

    def _start_game(self) -> None:
        """starting a game"""
        if not self.app.simulated:
            self._finish(False, f"the self-test needs the simulated camera, not {self.app.camera_spec}")
        elif self.app.start_game(self.game, self.players, {}):
            self.step = self._throw
        else:
            self._finish(False, f"could not start {self.game}: {self.app.notice}")

    def _throw(self) -> None:
        """throwing the dice"""
        if self.app.throw_dice():
            self.app.grabber.call_soon(lambda source: self.truth.extend(source.truth))
            self.step = self._wait_for_reading
        else:
            self._finish(False, f"could not throw the dice: {self.app.notice}")

    def _wait_for_reading(self) -> None:
        """waiting for the dice to be read"""
        if not self.app.reading or self.app.reading_busy or not self.truth:
            return
        read = Counter((d.value, d.colour) for d in self.app.reading)
        thrown = Counter((d.value, d.colour) for d in self.truth)
        if read != thrown:
            self._finish(False, f"read {_dice_words(read)}, but the camera threw {_dice_words(thrown)}")
            return
        for index in self.app.doubted_dice():   # read right but marked ?: a tap each, as the player would
            self.app.confirm_die(index)
        if self.app.accept_reading():
            self._expect_advice()
        else:
            self._finish(False, f"the roll was refused: {self.app.notice}")

    def _expect_advice(self) -> None:
        """The roll is used: the top advice, in the words the screen shows, is what to wait for."""
        state = self.app.state
        suggestions = state.game.advise(state)
        if not suggestions:
            self._finish(False, "the game gave no advice after the roll")
            return
        top = suggestions[0]
        self.headline = state.suggestion_words(top)["headline"] if hasattr(state, "suggestion_words") else top.text
        self.step = self._wait_for_advice

    def _wait_for_advice(self) -> None:
        """waiting for the advice on screen"""
        if any(self.headline in getattr(widget, "text", "") for widget in self.app.root.walk()):
            self._save_screenshot()
            thrown = _dice_words(Counter((d.value, d.colour) for d in self.truth))
            self._finish(True, f"{len(self.truth)} dice thrown and read right ({thrown}); the advice on "
                               f"screen: {self.headline}; screenshot {self.screenshot}")

    def _save_screenshot(self) -> None:
        Window.dispatch("on_draw")
        self.screenshot.parent.mkdir(parents=True, exist_ok=True)
        written = Window.screenshot(str(self.screenshot.with_name(f".{self.screenshot.stem}-part.png")))
        os.replace(written, self.screenshot)

    def _finish(self, passed: bool, verdict: str) -> None:
        Clock.unschedule(self._tick)
        self.passed = passed
        self.verdict = f"self-test {'passed' if passed else 'FAILED'}: {verdict}"
        self.app.stop()


def _dice_words(dice: Counter) -> str:
    """Dice as a player says them, e.g. "white 3, white 3 and red 5"."""
    words = [f"{colour} {value}" if colour else str(value)
             for (value, colour), count in sorted(dice.items(), key=lambda item: (str(item[0][1]), item[0][0]))
             for _ in range(count)]
    if len(words) < 2:
        return words[0] if words else "no dice"
    return ", ".join(words[:-1]) + " and " + words[-1]
