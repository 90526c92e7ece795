"""The camera's state on the banner: a camera that cannot open, and one lost mid-game.

Either way the banner says in a few words that the camera is not working and dice go in by hand, the picture's
place says in a sentence what is wrong, and the camera is tried again by itself: when it comes back the banner clears.
"""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

import shutil
from pathlib import Path

from kivy.core.text import Label as CoreLabel
from kivy.uix.label import Label
from test_ui_game import set_die_in_popup
from test_ui_harness import kivy_window, ui  # noqa: F401  (fixtures)

PHOTOS = Path(__file__).parent / "data" / "byler_d6" / "images"
HAND_ROLL = (("white", 6), ("white", 4), ("white", 5), ("white", 5), ("white", 3), ("white", 2), ("white", 1),
             ("yellow", 4))


def whole_text_fits(label: Label) -> bool:
    """Whether the label's whole text, wrapped to its width in its type, fits its height (none of it cut off)."""
    probe = CoreLabel(text=label.text, font_size=label.font_size, bold=label.bold, text_size=(label.width, None))
    probe.refresh()
    return probe.texture.width <= label.width + 1 and probe.texture.height <= label.height + 1


def test_a_camera_that_cannot_open_is_on_the_banner_and_dice_go_in_by_hand(ui):
    app = ui.launch(camera="usb:9")
    ui.wait(lambda: "USB camera 9 not found" in app.camera_problem, what="the camera problem on the banner")
    assert "entered by hand" in app.camera_problem and "\n" not in app.camera_problem
    app.start_game("dairyman", ["Ann", "Bob"], {})
    ui.pump(3)
    play = app.screen("play")
    banner = [w for w in play.walk() if isinstance(w, Label) and w.text == app.camera_notice]
    in_full = [w for w in play.walk() if isinstance(w, Label) and w.text == app.camera_problem]
    for shown, what in ((banner, "the banner's words"), (in_full, "the camera problem in full")):
        assert any(w.height > 0 and w.get_root_window() and whole_text_fits(w) for w in shown), f"{what} not shown whole"
    for colour, value in HAND_ROLL:
        ui.tap(play.ids.chips.children[-1])                    # "+": a die by hand
        set_die_in_popup(ui, play.die_popup, colour, value)
    events = len(app.session.history())
    ui.tap(play.ids.accept_button)
    history = app.session.history()
    assert len(history) == events + 1 and history[-1]["kind"] == "roll"
    assert sorted((d["colour"], d["value"]) for d in history[-1]["dice"]) == sorted(HAND_ROLL)


def test_a_replay_camera_unplugged_mid_game_is_reported_and_comes_back(ui, tmp_path):
    folder = tmp_path / "tray"
    folder.mkdir()
    for photo in sorted(PHOTOS.iterdir())[:3]:
        shutil.copy(photo, folder / photo.name)
    app = ui.launch(camera=f"replay:{folder}")
    app.start_game("dairyman", ["Ann", "Bob"], {})
    ui.wait(lambda: app.grabber.count > 0 and not app.camera_problem, what="pictures from the replay camera")
    hidden = tmp_path / "unplugged"
    folder.rename(hidden)
    ui.wait(lambda: "has gone" in app.camera_problem or "does not exist" in app.camera_problem,
            what="the lost camera on the banner")
    assert app.session.state.dice_to_roll() is not None          # the game is untouched and waits for dice
    ui.pump(3)
    play = app.screen("play")
    assert any(isinstance(w, Label) and w.text == app.camera_problem and w.height > 0 and whole_text_fits(w)
               for w in play.walk()), "the lost camera is not said in full over its last picture"
    hidden.rename(folder)
    ui.wait(lambda: not app.camera_problem, timeout=30, what="the camera to come back")
    ui.pump(3)
    assert not any(isinstance(w, Label) and "camera" in w.text and w.height > 0 for w in play.walk())
    before = app.grabber.count
    ui.wait(lambda: app.grabber.count > before, what="new pictures")


def test_a_whole_roll_typed_on_the_keypad_in_ten_taps(ui):
    app = ui.launch(camera="usb:9")
    app.start_game("dairyman", ["Ann", "Bob"], {})
    ui.pump(3)
    play = app.screen("play")
    taps = 0

    def tap(widget):
        nonlocal taps
        ui.tap(widget)
        taps += 1

    tap(play.keypad_button)
    keypad = play.keypad
    keys = {b.text: b for b in keypad.content.walk() if getattr(b, "text", None) in {"1", "2", "3", "4", "5", "6"}
            and b.font_size > 30}
    use = ui.button("Use dice", root=keypad)
    ui.tap(keys["2"])
    ui.tap(ui.button("Back", root=keypad))             # a slip, taken back
    assert keypad.entered == []
    for index, (_colour, value) in enumerate(HAND_ROLL):
        assert use.disabled
        tap(keys[str(value)])
        if index == 4:
            ui.screenshot("keypad")
    assert not use.disabled
    tap(use)
    assert taps == 10 and keypad.parent is None
    roll = app.session.history()[-1]
    assert roll["kind"] == "roll" and [(d["colour"], d["value"]) for d in roll["dice"]] == list(HAND_ROLL)
