"""Every screen of the app for Dairyman and Whirling Derby at 2 and 4 players with 24-character
names, each screenshot checked by the harness (no engine notation, no type under 18 px), plus the
camera that is not there.  The screenshots are the README's gallery."""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

import pytest
from test_ui_harness import kivy_window, ui  # noqa: F401  (fixtures)

from companion.session import MAX_NAME_LENGTH, SessionStore

LONG_NAMES = ["Maximilian Alexandersson", "Cecilia Montgomery-Smyth", "Bartholomew Fitzgerald Jr", "Anastasia Konstantinova"]
SHORT = {"dairyman": "dairyman", "whirling-derby": "derby"}


def play_on(session, steps: int) -> None:
    """``steps`` rolls and moves by the game's own advice (rolls from the session's seeded dice)."""
    for _ in range(steps):
        if session.finished:
            return
        if session.state.dice_to_roll() is not None:
            session.random_roll()
        else:
            session.play(session.game.best_move(session.state))


@pytest.mark.parametrize("game", ["dairyman", "whirling-derby"])
@pytest.mark.parametrize("count", [2, 4])
def test_every_screen_at_the_table(ui, game, count):
    names = [n[:MAX_NAME_LENGTH] for n in LONG_NAMES[:count]]
    assert all(len(n) == MAX_NAME_LENGTH for n in names[:2])
    with SessionStore() as store:
        session = store.new_session(game, names, seed=count)
        play_on(session, 12)
    app = ui.launch(camera="sim")
    prefix = f"{SHORT[game]}-{count}-players"
    start = app.screen("start")
    ui.screenshot(f"{prefix}-start")
    ui.tap(start.ids.resume)
    assert app.root.current == "play"
    ui.screenshot(f"{prefix}-play")
    for button, screen in (("Scores", "scoreboard"), ("History", "history"), ("Settings", "settings")):
        ui.tap(ui.button(button, root=app.screen("play")))
        assert app.root.current == screen
        ui.screenshot(f"{prefix}-{screen}")
        app.show("play")
    with SessionStore() as store:
        session = store.open(app.session.id)
        play_on(session, 5000)
        assert session.finished
    app.session = app.store.open(app.session.id)
    app._changed()
    ui.pump(3)
    assert app.root.current == "summary"
    ui.screenshot(f"{prefix}-summary")


def test_a_camera_that_is_not_there_on_the_start_and_play_screens(ui):
    app = ui.launch(camera="usb:9")
    ui.wait(lambda: "not found" in app.camera_problem, what="the camera problem")
    app.start_game("dairyman", LONG_NAMES[:2], {})
    ui.pump(3)
    ui.screenshot("camera-not-found")
