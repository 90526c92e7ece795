"""The read dice as big chips under the picture: a tap on one corrects it (its value, its colour, or "not a
die"), a "+" (or a tap where it lies in the picture) adds a die the reader missed, a die the reader doubts is
confirmed with one tap.  Shared by the play screen and the learn-my-dice screen; the screen's kv gives it
``ids.chips``."""
from __future__ import annotations

from kivy.app import App
from kivy.metrics import dp
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.popup import Popup
from kivy.uix.togglebutton import ToggleButton

from ui.widgets import colour_rgba


class DiceChips:
    """Mixin for a screen that shows the app's reading as chips."""

    typed_roll = True
    """Offer "Type the roll" (the screen's ``open_keypad``) when no dice are read."""
    die_popup = None
    """The die editor, while it is open."""

    def takes_dice(self) -> bool:
        """Whether the screen waits for dice now (a tap on the picture adds one only then)."""
        return True

    def add_die_at(self, x: float, y: float) -> None:
        """The die editor for a missed die the player tapped in the picture at (x, y), frame pixels."""
        if self.takes_dice():
            self.edit_die(None, at=(x, y))

    def edit_die(self, index: int | None, at: tuple[float, float] | None = None) -> None:
        """A popup to set a die's colour and value (``index`` None: add a die the reader missed, lying ``at``
        that place in the picture if given).

        Tap a colour, then the value: the value commits the change.  Dice whose colours do not count
        (``app.die_colours()`` names none) show the values only."""
        app = App.get_running_app()
        die = app.reading[index] if index is not None else None
        colours = app.die_colours()
        content = BoxLayout(orientation="vertical", spacing=dp(8))
        step = "tap colour, then value" if colours else "tap its value"
        read_as = f"{die.value_text} {die.colour or ''}".strip() if die else ""
        title = (f"Die {index + 1}: read as {read_as}: {step}" if die else
                 f"Add the die you tapped: {step}" if at else f"Add a die: {step}")
        popup = Popup(title=title, title_size="19sp", content=content, size_hint=(0.94, 0.86),
                      _anim_duration=0)
        swatches = GridLayout(rows=1, spacing=dp(6), size_hint_y=None, height=dp(60) if colours else 0)
        chosen = {"colour": die.colour if die and die.colour in colours else (colours[0] if colours else None)}
        for colour in colours:
            button = ToggleButton(text=colour, group="die-colour", font_size="20sp", background_normal="",
                                  background_down="", allow_no_selection=False,
                                  state="down" if colour == chosen["colour"] else "normal")
            button.bind(state=lambda b, st, c=colour: self._swatch(b, c, chosen))
            self._swatch(button, colour, chosen)
            swatches.add_widget(button)
        content.add_widget(swatches)
        values = GridLayout(cols=6, spacing=dp(6))
        for value in range(1, 7):
            button = Button(text=str(value), font_size="34sp", bold=True)
            button.bind(on_release=lambda _b, v=value: self._commit_die(popup, index, v, chosen["colour"], at))
            values.add_widget(button)
        content.add_widget(values)
        actions = BoxLayout(size_hint_y=None, height=dp(56), spacing=dp(6))
        if die is not None:
            remove = Button(text="Not a die: remove", font_size="19sp")
            remove.bind(on_release=lambda _b: (app.remove_die(index), popup.dismiss()))
            actions.add_widget(remove)
        cancel = Button(text="Cancel", font_size="19sp")
        cancel.bind(on_release=popup.dismiss)
        actions.add_widget(cancel)
        content.add_widget(actions)
        self.die_popup = popup
        popup.open()

    @staticmethod
    def reading_index(view_index: int) -> int:
        """The reading's index of the ``view_index``-th die outlined in the picture."""
        reading = App.get_running_app().reading
        return [i for i, d in enumerate(reading) if d.bbox[2] > 0][view_index]

    @staticmethod
    def _swatch(button, colour: str, chosen: dict) -> None:
        rgba = colour_rgba(colour)
        if button.state == "down":
            chosen["colour"] = colour
        button.background_color = rgba if button.state == "down" else (rgba[0] * 0.45, rgba[1] * 0.45,
                                                                        rgba[2] * 0.45, 1)
        button.bold = button.state == "down"
        button.color = (0, 0, 0, 1) if sum(rgba[:3]) > 1.5 and button.state == "down" else (1, 1, 1, 1)

    def _commit_die(self, popup, index: int | None, value: int, colour: str, at: tuple[float, float] | None) -> None:
        app = App.get_running_app()
        if index is None:
            app.attempt(lambda: app.add_die(value, colour, at))
        else:
            if app.attempt(lambda: app.correct_die(index, value=value, colour=colour)):
                app.notice = app.check_words()
        popup.dismiss()

    def _show_chips(self, dice) -> None:
        """The dice to be used, big and tappable, and a "+" to add one the reader missed."""
        box = self.ids.chips
        box.clear_widgets()
        add = Button(text="+", font_size="26sp", size_hint_x=None, width=dp(48))
        add.bind(on_release=lambda _b: self.edit_die(None))
        box.add_widget(add)
        if not dice and self.typed_roll:
            typed = Button(text="Type the roll", font_size="19sp", size_hint_x=None, width=dp(150))
            typed.bind(on_release=lambda _b: self.open_keypad())
            box.add_widget(typed)
            self.keypad_button = typed
        app = App.get_running_app()
        doubted_places = set(app.doubted_dice()) if dice else set()
        for index, die in enumerate(dice):
            rgba = colour_rgba(die.colour) if die.certain else (0.9, 0.3, 0.1, 1)
            doubted = index in doubted_places
            chip = Button(text=f"{die.value}?" if doubted else str(die.value) if die.certain else "?", font_size="24sp",
                          bold=True, background_normal="", background_color=rgba, size_hint_x=None,
                          width=dp(60) if doubted else dp(48),
                          color=(0, 0, 0, 1) if sum(rgba[:3]) > 1.5 else (1, 1, 1, 1))
            if doubted:   # one tap says "yes, that is right"; a tap on the confirmed die changes it
                chip.bind(on_release=lambda _b, i=index: app.confirm_die(i))
            else:
                chip.bind(on_release=lambda _b, i=index: self.edit_die(i))
            box.add_widget(chip)
