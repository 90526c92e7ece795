"""Learn my dice: the player rolls their own dice a few times, corrects each reading with a tap, and the
reader learns them (calibration.learn_dice); the profile keeps what it learnt until it is forgotten in
the settings.  No learning here: the app's methods do it, in the reader process."""
from __future__ import annotations

from kivy.app import App
from kivy.metrics import dp
from kivy.uix.screenmanager import Screen

from ui.dice_chips import DiceChips


class LearnScreen(DiceChips, Screen):
    typed_roll = False     # dice typed by hand have no place in the picture: nothing to learn from

    def on_kv_post(self, _base) -> None:
        app = App.get_running_app()
        app.bind(reading=self._reading_changed, reading_busy=self._reading_changed, lesson=self._reading_changed,
                 learning=self._reading_changed)

    def takes_dice(self) -> bool:
        app = App.get_running_app()
        return app.lesson is not None and not app.learning

    def on_pre_enter(self, *_args) -> None:
        self._reading_changed()

    def _reading_changed(self, *_args) -> None:
        app = App.get_running_app()
        lesson = app.lesson
        self.ids.view.dice = [d for d in app.reading if d.bbox[2] > 0]
        self._show_chips(app.reading if lesson is not None else [])
        busy = app.learning or lesson is None
        self.ids.roll_button.disabled = busy or not app.simulated
        self.ids.read_button.disabled = busy or app.reading_busy
        self.ids.keep_button.disabled = busy or not app.reading
        self.ids.learn_button.disabled = busy or not lesson.ready
        self.ids.chips_row.height = dp(48) if lesson is not None else 0


SCREEN_CLASS = LearnScreen
