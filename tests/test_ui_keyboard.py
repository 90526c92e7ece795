"""The Pi's docked on-screen keyboard: the field being typed into stays in sight above it."""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

from test_ui_harness import kivy_window, ui  # noqa: F401  (fixtures)


def test_the_fourth_name_stays_above_the_docked_keyboard(ui):
    from kivy.config import Config
    from kivy.core.window import Window
    from kivy.uix.vkeyboard import VKeyboard

    before = Config.get("kivy", "keyboard_mode")
    Config.set("kivy", "keyboard_mode", "dock")        # as scripts/pi/kivy_config.ini's systemanddock on the Pi
    Window.configure_keyboards()
    try:
        app = ui.launch(camera="sim")
        start = app.screen("start")
        ui.choose(start.ids.game_choice, "Dairyman")
        while start.player_count < 4:
            ui.tap(ui.button("+", root=start))
        field = start.ids.players.children[0].name_input     # the fourth seat, lowest on the screen
        field.focus = True
        ui.wait(lambda: any(isinstance(w, VKeyboard) for w in Window.children), what="the on-screen keyboard")
        keyboard = next(w for w in Window.children if isinstance(w, VKeyboard))
        ui.wait(lambda: abs(Window._kheight - Window.keyboard_height) < 1, what="the screen to make room")
        ui.pump(3)
        bottom_on_screen = field.to_window(field.x, field.y)[1] + Window._kheight
        assert field.to_window(field.x, field.y)[1] < keyboard.height * keyboard.scale, \
            "the test must use a field the keyboard would cover"
        assert bottom_on_screen >= keyboard.height * keyboard.scale - 1
        ui.screenshot("start-keyboard-open")
        field.focus = False
        ui.pump(3)
    finally:
        Config.set("kivy", "keyboard_mode", before)
        Window.configure_keyboards()
