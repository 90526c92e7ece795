"""Settings: camera source, calibration profile, GPIO pins, and each game's preferred
rules options (they pre-fill the start screen)."""
from __future__ import annotations

from pathlib import Path

from kivy.app import App
from kivy.metrics import dp
from kivy.properties import ListProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.textinput import TextInput

from companion.errors import CompanionError
from companion.games import all_games
from ui.start_screen import ROW_HEIGHT, option_row

CAMERA_CHOICES = ("sim", "usb:0", "pi")


class SettingsScreen(Screen):
    camera_choices = ListProperty(CAMERA_CHOICES)
    game_titles = ListProperty([])
    profile_text = StringProperty("")
    my_dice_text = StringProperty("")

    def on_pre_enter(self, *_args) -> None:
        app = App.get_running_app()
        prefs = app.preferences
        self.ids.camera.text = app.camera_spec
        self.ids.calibration.text = prefs["calibration"]
        self.ids.auto_read.state = "down" if app.auto_read else "normal"
        self._describe_profile()
        self.describe_my_dice()
        box = self.ids.pins
        box.clear_widgets()
        self._pin_inputs = {}
        for name, number in prefs.pins().items():
            row = BoxLayout(size_hint_y=None, height=ROW_HEIGHT, spacing=dp(4))
            row.add_widget(Label(text=name.replace("_", " ").replace(" led", " light").capitalize(), font_size="18sp"))
            field = TextInput(text="" if number is None else str(number), multiline=False, input_filter="int",
                              hint_text="none", font_size="20sp", size_hint_x=None, width=dp(80),
                              padding=(dp(8), dp(14)))
            self._pin_inputs[name] = field
            row.add_widget(field)
            box.add_widget(row)
        self.game_titles = [g.title for g in all_games().values()]
        if self.game_titles and self.ids.game_choice.text not in self.game_titles:
            self.ids.game_choice.text = self.game_titles[0]
        else:
            self.show_options(self.ids.game_choice.text)

    def _describe_profile(self) -> None:
        from calibration.profile import default_profile_path

        path = Path(self.ids.calibration.text) if self.ids.calibration.text else default_profile_path()
        self.profile_text = (f"using {path.name}" if path.exists()
                             else f"no {path.name} yet: default colours, whole frame")

    def describe_my_dice(self) -> None:
        """Whether the reader knows the player's own dice ("learn my dice") and from how many rolls."""
        mine = App.get_running_app().my_dice
        self.my_dice_text = (f"Your dice: learnt from {mine.rolls} rolls" if mine is not None
                             else "Any dice (yours not learnt)")
        self.ids.forget_button.disabled = mine is None

    def show_options(self, title: str) -> None:
        box = self.ids.options
        box.clear_widgets()
        self._option_readers = {}
        game = next((g for g in all_games().values() if g.title == title), None)
        if game is None:
            return
        self._options_game = game
        saved = App.get_running_app().preferences.game_options(game.name)
        for option in game.options:
            row, self._option_readers[option.name] = option_row(option, saved.get(option.name, option.default))
            box.add_widget(row)

    def save(self) -> bool:
        """Check every field, then save them together and switch the camera if it changed."""
        app = App.get_running_app()
        try:
            game = getattr(self, "_options_game", None)
            options = game.resolve_options({n: read() for n, read in self._option_readers.items()}) if game else None
            camera = self.ids.camera.text.strip()
            if camera != app.camera_spec:
                app.open_camera(camera)
            app.preferences.update(camera=camera, calibration=self.ids.calibration.text,
                                   pins={n: f.text for n, f in self._pin_inputs.items()},
                                   auto_read=self.ids.auto_read.state == "down")
            app.auto_read = app.preferences["auto_read"]
            app.open_gpio()
            if game:
                app.preferences.set_game_options(game.name, options)
            app.load_profile()
        except CompanionError as exc:
            app.notice = str(exc)
            return False
        self._describe_profile()
        app.notice = "settings saved"
        return True


SCREEN_CLASS = SettingsScreen
