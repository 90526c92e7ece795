"""The app's reader process reads with what "learn my dice" put in the profile, and stops when it is forgotten."""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

from test_ui_harness import kivy_window, ui  # noqa: F401  (fixtures)

from calibration.learn_dice import forget_my_dice
from calibration.profile import MyDice, Profile, default_profile_path, save_profile


def throw_and_read(ui, app) -> list:
    source = app.grabber.source
    throws, done = source.throws, app.readings_done
    assert app.throw_dice()
    ui.wait(lambda: source.throws > throws and not source.rolling, what="the dice to come to rest")
    shown = app.grabber.count
    ui.wait(lambda: app.grabber.count >= shown + 2, what="a picture of the resting dice")
    assert app.read_dice()
    ui.wait(lambda: app.readings_done > done, timeout=60, what="the reading")
    return app.reading


def test_the_app_reads_with_the_learnt_dice_of_its_profile(ui):
    # Dice learnt as 300-400 px across: the simulated camera's dice are far smaller, so none is one of "my dice".
    learnt = save_profile(Profile(my_dice=MyDice(5, 30, 300.0, 400.0, 0.3, 0.5)), default_profile_path())
    app = ui.launch(camera="sim", seed=3)
    assert app.my_dice is not None
    assert app.start_game("dairyman", ["Ann", "Bob"], {})
    assert throw_and_read(ui, app) == []
    save_profile(forget_my_dice(Profile(my_dice=app.my_dice)), learnt)
    app.load_profile()
    assert app.my_dice is None
    assert throw_and_read(ui, app)                 # the same dice are found again
