"""The app's screens one by one: keyboard shortcuts, the alert banner, refused input,
games with seat colours, settings.  Each drives the real app by touches and keys."""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

import json

from test_ui_harness import kivy_window, ui  # noqa: F401  (fixtures)

from companion.session import SessionStore
from ui.preferences import FILE_NAME

NO_SET_ROLL = "white:1 white:1 white:1 white:1 white:1 white:1 white:1 yellow:1"


def test_space_reads_and_ctrl_z_undoes_ctrl_y_redoes(ui):
    with SessionStore() as store:
        session = store.new_session("dairyman", ["Ann", "Bob"], seed=4)
        session.roll("white:6 white:4 white:5 white:5 white:3 white:2 white:1 yellow:4")
        session.play(session.game.advise(session.state)[0].move)
        after_roll = session.history()[1]
    app = ui.launch(camera="sim")
    ui.tap(app.screen("start").ids.resume)
    moved = app.state.to_json()
    ui.key(122, "z", ["ctrl"])
    assert app.session.history()[-1]["kind"] == "undo"
    assert app.state.to_json()["roll"] != moved["roll"] or app.state.phase != moved["phase"]
    assert sorted(app.state.to_json()["roll"]) == sorted(f"{d['colour']}:{d['value']}" for d in after_roll["dice"])
    ui.key(121, "y", ["ctrl"])
    assert app.state.to_json() == moved

    ui.key(122, "z", ["ctrl"])
    assert not app.screen("play").ids.undo_button.disabled
    ui.key(122, "z", ["ctrl"])                       # back to the chance node: the dice are to be read
    assert app.state.dice_to_roll() is not None
    assert app.screen("play").ids.undo_button.disabled, "nothing left to undo, yet Undo can be tapped"
    done = app.readings_done
    ui.key(32, " ")
    assert app.reading_busy or app.readings_done > done, app.notice
    ui.wait(lambda: app.readings_done > done, timeout=60, what="the reading started by space")


def test_a_critical_alert_fills_the_banner(ui):
    from kivy.uix.label import Label

    with SessionStore() as store:
        session = store.new_session("dairyman", ["Ann", "Bob"], seed=1)
        session.roll(NO_SET_ROLL)
        alerts = [a for a in session.state.alerts() if a.severity == "critical"]
    assert alerts, "a roll without a set of ten is a critical alert in Dairyman"
    app = ui.launch(camera="sim")
    ui.tap(app.screen("start").ids.resume)
    play = app.screen("play")
    banner = play.ids.banner
    ui.pump(3)
    first = alerts[0].message
    assert first[:1].upper() + first[1:] in banner.text.split("\n")[0]        # a sentence, most severe first
    assert banner.text != banner.text.upper()
    assert banner.height >= 48 and banner.width == ui.window.width     # compact above a board panel
    assert play.banner_rgba[0] > 0.5 > play.banner_rgba[1] and play.banner_ink[:3] == [1, 1, 1]
    ui.screenshot("play-alert")
    ui.tap(banner)                                   # a tap shows every alert in full
    popup = play.alert_popup
    assert popup is not None and popup.parent is not None
    shown = [w.text for w in popup.walk() if isinstance(w, Label)]
    assert any(first[1:] in text for text in shown)
    ui.screenshot("play-alert-expanded")
    ui.tap(ui.button("Close", root=popup))
    assert popup.parent is None
    ui.tap(play.board.advice.best)                   # the only move: fail, take a backorder token
    assert app.state.to_json()["backorders"] == [1, 0]


def test_a_bad_rules_option_is_one_line_and_starts_nothing(ui):
    app = ui.launch(camera="sim")
    start = app.screen("start")
    ui.choose(start.ids.game_choice, "Dairyman")
    faces = next(row.children[0] for row in start.ids.options.children
                 if "cheese faces" in row.children[1].text.lower())
    faces.text = "1 2 3"
    ui.tap(start.ids.start_button)
    assert app.root.current == "start"
    assert "cheese_faces" in app.notice and "\n" not in app.notice
    assert app.session is None
    assert app.store.list_sessions() == []


def test_seat_colours_for_a_game_that_gives_each_player_a_colour(ui):
    app = ui.launch(camera="sim")
    start = app.screen("start")
    ui.choose(start.ids.game_choice, "Whirling Derby")
    rows = start.ids.players.children[::-1]
    assert [row.colour_choice.text for row in rows] == ["red", "blue"]
    ui.choose(rows[1].colour_choice, "red")
    ui.tap(start.ids.start_button)
    assert "different dice colour" in app.notice
    assert app.store.list_sessions() == []
    ui.choose(rows[1].colour_choice, "green")
    ui.tap(ui.button("down", root=start.ids.players.children[-1]))     # swap seats: colours move along
    assert [row.colour_choice.text for row in start.ids.players.children[::-1]] == ["green", "red"]
    ui.tap(start.ids.start_button)
    assert app.root.current == "play"
    colours = app.session.options["colours"].split(",")
    assert colours[:2] == ["green", "red"] and len(set(colours)) == len(colours) == 4
    assert app.session.players == ("Player 2", "Player 1")


def test_settings_refuse_a_bad_pin_and_save_good_ones(ui, tmp_path, monkeypatch):
    app = ui.launch(camera="sim")
    ui.tap(ui.button("Settings"))
    settings = app.screen("settings")
    settings._pin_inputs["read_button"].text = "99"
    ui.tap(settings.ids.save_button)
    assert "GPIO 99" in app.notice
    assert not app.preferences.path.exists()
    settings._pin_inputs["read_button"].text = "5"
    settings._pin_inputs["undo_button"].text = "5"
    ui.tap(settings.ids.save_button)
    assert "share" in app.notice and not app.preferences.path.exists()
    settings._pin_inputs["undo_button"].text = "6"
    ui.tap(settings.ids.save_button)
    ui.screenshot("settings")
    saved = json.loads(app.preferences.path.read_text())
    assert saved["pins"]["read_button"] == 5 and saved["pins"]["undo_button"] == 6
    assert app.preferences.path.name == FILE_NAME


def test_the_dice_are_read_by_themselves_once_they_come_to_rest(ui):
    app = ui.launch(camera="sim", auto_read=True)
    start = app.screen("start")
    ui.choose(start.ids.game_choice, "Dairyman")
    ui.tap(start.ids.start_button)
    play = app.screen("play")
    source = app.grabber.source
    ui.tap(play.ids.roll_button)
    ui.wait(lambda: source.throws == 1, what="the throw")
    ui.wait(lambda: app.readings_done >= 1, timeout=90, what="a reading without pressing Read")
    assert not app.reading_busy and app.reading
    truth = {(round(t.center[0]), round(t.center[1])) for t in source.truth}
    assert any(min(abs(d.center[0] - x) + abs(d.center[1] - y) for x, y in truth) < 20 for d in app.reading)


def test_gpio_buttons_and_status_light_with_mock_pins(ui):
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from hardware.gpio import DEFAULT_PINS, LONG_PRESS_SECONDS

    with SessionStore() as store:
        store.new_session("dairyman", ["Ann", "Bob"], seed=1).roll(NO_SET_ROLL)
    factory = MockFactory(pin_class=MockPWMPin)
    app = ui.launch(camera="sim", pin_factory=factory)
    ui.tap(app.screen("start").ids.resume)
    assert app.gpio.available and app.gpio.status == "attention"     # the no-set alert
    button = factory.pin(DEFAULT_PINS["read_button"])
    button.drive_low()                                                # hold: undo
    ui.wait(lambda: app.session.history()[-1]["kind"] == "undo", timeout=LONG_PRESS_SECONDS + 5, what="undo")
    button.drive_high()
    ui.pump(3)
    assert app.state.dice_to_roll() is not None and app.gpio.status == "ready"
    button.drive_low()                                                # short press: read
    button.drive_high()
    ui.wait(lambda: app.readings_done == 1, timeout=60, what="a reading from the button")
    assert app.gpio.status in ("read_ok", "ready")
    assert app.gpio.status == ("read_ok" if app.reading else "ready")


def test_an_unexpected_error_shows_on_the_banner_and_the_game_goes_on(ui):
    from kivy.clock import Clock

    app = ui.launch(camera="sim")
    app.start_game("dairyman", ["Ann", "Bob"], {})
    app.session.roll("white:6 white:4 white:5 white:5 white:3 white:2 white:1 yellow:4")
    events_before = len(app.session.history())

    def broken_callback(_dt):
        raise ValueError("a widget\nfailed")

    Clock.schedule_once(broken_callback)
    ui.pump(2)                                   # the error is caught: it does not escape the frame
    assert "a widget failed" in app.notice and "saved" in app.notice
    assert len(app.session.history()) == events_before
    assert app.play(app.session.game.advise(app.state)[0].move)     # the game carries on
    assert len(app.session.history()) == events_before + 1
