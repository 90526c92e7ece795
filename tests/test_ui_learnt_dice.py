"""The app's reader process reads with what "learn my dice" put in the profile, and stops when it is forgotten."""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

import numpy as np
from test_ui_harness import kivy_window, ui  # noqa: F401  (fixtures)

from calibration.learn_dice import forget_my_dice
from calibration.profile import MyDice, Profile, default_profile_path, load_profile, save_profile
from vision.reader import shipped_face_head


def throw_and_read(ui, app, screen=None) -> list:
    """Throw the simulated dice and read them once they rest (by the screen's buttons when given)."""
    source = app.grabber.source
    throws, done = source.throws, app.readings_done
    ui.tap(screen.ids.roll_button) if screen else app.throw_dice()
    ui.wait(lambda: source.throws > throws and not source.rolling, what="the dice to come to rest")
    shown = app.grabber.count
    ui.wait(lambda: app.grabber.count >= shown + 2, what="a picture of the resting dice")
    ui.tap(screen.ids.read_button) if screen else app.read_dice()
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


def test_learn_my_dice_by_touch_then_forget_them(ui):
    """Settings -> Learn my dice: two simulated rolls read, one die corrected by a tap and a missed one added by a
    tap where it lies, each roll kept, learnt in the reader process into the profile; the settings say so, and
    Forget takes it out again."""
    app = ui.launch(camera="sim", seed=5)
    app.show("settings")
    ui.pump(3)
    settings = app.screen("settings")
    assert settings.my_dice_text == "Any dice (yours not learnt)" and settings.ids.forget_button.disabled
    ui.tap(settings.ids.learn_button)
    learn = app.screen("learn")
    assert app.root.current == "learn" and learn.ids.learn_button.disabled and learn.ids.keep_button.disabled
    assert app.lesson_text.startswith("Roll 1 of 5")
    for roll in range(2):
        throw_and_read(ui, app, learn)
        assert app.reading and not learn.ids.keep_button.disabled
        if roll == 0:                       # the first die set to another value by hand, as a correction
            first = list(reversed(learn.ids.chips.children))[1]        # after the "+"
            if 0 in app.doubted_dice():
                ui.tap(first)                                          # a die marked ?: the first tap confirms it
            ui.tap(first)
            corrected = app.reading[0].value % 6 + 1
            ui.tap(ui.button(str(corrected), root=learn.die_popup))
            ui.wait(lambda: learn.die_popup.parent is None, what="the die popup to close")
            ui.screenshot("learn-my-dice")
        else:                               # a die the reader missed, tapped where it lies in the picture
            view = learn.ids.view
            width, height = view.frame_size
            grid = [(width * x / 10, height * y / 10) for x in range(2, 9) for y in range(3, 8)]
            place = max(grid, key=lambda p: min(np.hypot(p[0] - d.center[0], p[1] - d.center[1]) for d in app.reading))
            assert view.die_at(*view.frame_to_widget(*place)) is None
            read = len(app.reading)
            ui.tap_at(*view.frame_to_widget(*place))
            assert learn.die_popup.title.startswith("Add the die you tapped")
            ui.tap(ui.button("3", root=learn.die_popup))
            added = app.reading[-1]
            assert len(app.reading) == read + 1 and added.value == 3
            assert np.allclose(added.center, place, atol=1.0) and len(view.dice) == read + 1   # outlined there
            sides = [d.bbox[2] for d in app.reading[:-1]]
            assert min(sides) <= added.bbox[2] <= max(sides)          # as big as the dice read beside it
            ui.screenshot("learn-my-dice-missed-die-added")
        ui.tap(learn.ids.keep_button)
        assert app.lesson_text.startswith(f"Roll {roll + 1} kept") and not app.reading
    assert app.lesson.rolls[0].dice[0].value == corrected
    assert app.lesson.rolls[1].dice[-1].center == added.center and app.lesson.rolls[1].dice[-1].value == 3
    ui.tap(learn.ids.learn_button)
    ui.wait(lambda: not app.learning, timeout=180, what="the dice to be learnt")
    assert app.lesson is None and app.root.current == "settings", app.notice
    assert app.my_dice is not None and app.my_dice.rolls == 2
    assert load_profile(default_profile_path()).my_dice == app.my_dice
    assert settings.my_dice_text == "Your dice: learnt from 2 rolls" and "learnt your dice" in app.notice
    ui.screenshot("settings-my-dice-learnt")
    ui.tap(settings.ids.forget_button)
    assert app.my_dice is None and load_profile(default_profile_path()).my_dice is None
    assert settings.my_dice_text == "Any dice (yours not learnt)"


def test_what_was_learnt_besides_the_dice_is_said_in_one_whole_line(ui):
    """A set whose symbol face was learnt, seen by a camera whose side faces were learnt, which the finder sees too
    small, whose faces the face reader learnt: the settings screen says all four, in one line the narrowest screen
    shows whole."""
    from kivy.uix.label import Label
    from test_ui_camera import whole_text_fits

    app = ui.launch(camera="sim", seed=3)
    app._learnt(Profile(my_dice=MyDice(5, 30, 20.0, 100.0, 0.3, 0.5, 0.0, 1.0, 6, (-0.5, -0.5), True,
                                       shipped_face_head())))
    ui.pump(3)
    assert app.root.current == "settings" and app.my_dice.side_face_offset == (-0.5, -0.5)
    assert "symbol face as a 6" in app.notice and "side faces" in app.notice and "full size" in app.notice
    assert "their faces" in app.notice
    shown = [w for w in app.screen("settings").walk() if isinstance(w, Label) and w.text == app.notice]
    assert any(w.height > 0 and w.get_root_window() and whole_text_fits(w) for w in shown), app.notice
    ui.screenshot("settings-my-dice-symbol-and-side-faces-learnt")
