"""A keypad to type a whole roll without a camera: one tap per die.

The dice the game asks for are filled in their order: each value key fills the next die
in that die's colour (a die of any colour takes the colour chosen above the keys), so
Dairyman's eight dice take eight taps and one more to use them.  The engine checks the
roll; a refused one keeps the keypad open with the reason.
"""
from __future__ import annotations

from kivy.app import App
from kivy.metrics import dp
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.popup import Popup
from kivy.uix.togglebutton import ToggleButton

from companion.engine import Die
from ui.widgets import colour_rgba


def ink(rgba) -> tuple:
    return (0, 0, 0, 1) if sum(rgba[:3]) > 1.5 else (1, 1, 1, 1)


class RollKeypad(Popup):
    """Type the dice of ``request`` (a DiceRequest); "Use dice" hands them to ``app.enter_roll``.

    ``colours``: what a die of any colour may be (the game's box); none means such dice have no
    colour that matters and are typed by value alone."""

    def __init__(self, request, colours=(), **kwargs):
        super().__init__(title=f"Type the roll: {request.describe()}", title_size="19sp", size_hint=(0.96, 0.94),
                         _anim_duration=0, auto_dismiss=False, **kwargs)
        self.request = request
        self.entered: list[Die] = []
        self.any_colour = colours[0] if colours else None
        content = BoxLayout(orientation="vertical", spacing=dp(6))
        self.slots = BoxLayout(size_hint_y=None, height=dp(52), spacing=dp(4))
        content.add_widget(self.slots)
        if None in request.colours and colours:
            picks = GridLayout(rows=1, spacing=dp(4), size_hint_y=None, height=dp(50))
            for colour in colours:
                rgba = colour_rgba(colour)
                button = ToggleButton(text=colour, group="keypad-colour", allow_no_selection=False, font_size="18sp",
                                      background_normal="", background_down="", background_color=rgba,
                                      color=ink(rgba), state="down" if colour == self.any_colour else "normal")
                button.bind(on_release=lambda _b, c=colour: setattr(self, "any_colour", c))
                picks.add_widget(button)
            content.add_widget(picks)
        keys = GridLayout(cols=6, spacing=dp(6))
        for value in range(1, 7):
            key = Button(text=str(value), font_size="36sp", bold=True)
            key.bind(on_release=lambda _b, v=value: self.type_value(v))
            keys.add_widget(key)
        content.add_widget(keys)
        self.message = Label(text="", font_size="18sp", size_hint_y=None, height=dp(28), color=(1, 0.6, 0.4, 1))
        content.add_widget(self.message)
        actions = BoxLayout(size_hint_y=None, height=dp(56), spacing=dp(6))
        for text, action in (("Cancel", self.dismiss), ("Back", self.back), ("Use dice", self.use)):
            button = Button(text=text, font_size="20sp", bold=text == "Use dice")
            button.bind(on_release=lambda _b, a=action: a())
            actions.add_widget(button)
        self.use_button = actions.children[0]
        content.add_widget(actions)
        self.content = content
        self._show()

    def _colour_of_next(self) -> str | None:
        wanted = self.request.colours[len(self.entered)]
        return wanted if wanted is not None else self.any_colour

    def type_value(self, value: int) -> None:
        if len(self.entered) < self.request.count:
            self.entered.append(Die(value, self._colour_of_next()))
            self._show()

    def back(self) -> None:
        if self.entered:
            self.entered.pop()
            self._show()

    def use(self) -> None:
        app = App.get_running_app()
        if app.enter_roll(self.entered):
            self.dismiss()
        else:
            self.message.text = app.notice

    def _show(self) -> None:
        self.slots.clear_widgets()
        for index, wanted in enumerate(self.request.colours):
            die = self.entered[index] if index < len(self.entered) else None
            colour = die.colour if die else wanted
            rgba = colour_rgba(colour) if colour else (0.35, 0.35, 0.4, 1)
            self.slots.add_widget(Button(text=str(die.value) if die else "", font_size="26sp", bold=True,
                                         background_normal="", background_color=rgba, color=ink(rgba),
                                         opacity=1 if die else 0.45))
        done = len(self.entered) == self.request.count
        self.use_button.disabled = not done
        self.message.text = "" if done or not self.entered else f"{self.request.count - len(self.entered)} to go"
