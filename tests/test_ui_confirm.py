"""A die the reader doubts is marked "?" on its chip and is not used until the player confirms it with
one tap; a tap on the confirmed die opens the editor as for any other die; a die the reader missed is
added by a tap where it lies."""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

from test_ui_game import set_die_in_popup
from test_ui_harness import kivy_window, ui  # noqa: F401  (fixtures)

from vision.types import DieReading, Reading

ROLL = [(6, "white"), (4, "white"), (5, "white"), (5, "white"), (3, "white"), (2, "white"), (1, "white"),
        (4, "yellow")]


def read_dice(app, doubted: dict[int, str]):
    """The reader's hand-over of a reading in which the dice at the given places are doubted ("value"/"colour")."""
    places = [(90.0 + 150 * (i % 4), 120.0 + 220 * (i // 4)) for i in range(len(ROLL))]   # two rows in the picture
    dice = tuple(DieReading(value, colour, (x, y), (x - 35, y - 35, 70.0, 70.0), 0.9,
                            value_unsure=doubted.get(i) == "value", colour_unsure=doubted.get(i) == "colour")
                 for i, ((value, colour), (x, y)) in enumerate(zip(ROLL, places)))
    app._reading_done(Reading(dice), None, settled=False)


def test_doubted_dice_wait_for_a_one_tap_confirmation(ui):
    app = ui.launch(camera="usb:9")
    app.start_game("dairyman", ["Ann", "Bob"], {})
    ui.pump(3)
    play = app.screen("play")
    read_dice(app, {2: "value", 7: "colour"})
    ui.pump(2)
    chips = list(reversed(play.ids.chips.children))[1:]           # after the "+"
    assert [c.text for c in chips] == ["6", "4", "5?", "5", "3", "2", "1", "4?"]
    assert "2 dice marked ?" in app.notice
    ui.screenshot("play-dice-to-confirm")
    events = len(app.session.history())
    ui.tap(play.ids.accept_button)
    assert len(app.session.history()) == events                     # nothing used while dice are doubted
    assert app.notice.startswith("dice 3 (5 white?), 8 (4 yellow?) not sure") and "8 (4 yellow?)" in app.notice and "\n" not in app.notice
    ui.tap(chips[2])
    ui.pump(2)
    chips = list(reversed(play.ids.chips.children))[1:]
    assert [c.text for c in chips][2] == "5" and "1 die marked ?" in app.notice
    ui.tap(chips[7])
    ui.pump(2)
    assert app.notice == ""
    ui.tap(play.ids.accept_button)
    history = app.session.history()
    assert len(history) == events + 1 and history[-1]["kind"] == "roll"
    assert sorted((d["value"], d["colour"]) for d in history[-1]["dice"]) == sorted(ROLL)


def test_a_doubted_colour_is_not_asked_about_when_the_game_ignores_colours(ui):
    """Dicey Farm's dice have no colours that count: a doubted colour is no reason to stop the player."""
    app = ui.launch(camera="usb:9")
    app.start_game("dicey-farm", ["Ann", "Bob"], {})
    ui.pump(3)
    assert not app.colours_matter()
    dice = (DieReading(3, "ivory", (40.0, 60.0), (20.0, 40.0, 40.0, 40.0), 0.9, colour_unsure=True),
            DieReading(5, "white", (90.0, 60.0), (70.0, 40.0, 40.0, 40.0), 0.9))
    app._reading_done(Reading(dice), None, settled=False)
    assert app.notice == ""
    events = len(app.session.history())
    assert app.accept_reading()
    assert len(app.session.history()) == events + 1


def test_a_die_the_reader_missed_is_added_by_a_tap_where_it_lies_while_dice_are_awaited(ui):
    app = ui.launch(camera="sim", seed=4)
    app.start_game("dairyman", ["Ann", "Bob"], {})
    play = app.screen("play")
    view = play.ids.view
    ui.wait(lambda: view.frames_shown > 0, what="the camera picture")
    read_dice(app, {})
    missed = app.reading[-1]                                        # the yellow 4: as if the reader had not seen it
    app.reading = app.reading[:-1]
    ui.pump(2)
    ui.tap_at(*view.to_window(*view.frame_to_widget(*missed.center)))
    assert play.die_popup.title.startswith("Add the die you tapped")
    set_die_in_popup(ui, play.die_popup, "yellow", 4)
    added = app.reading[-1]
    assert (added.value, added.colour) == (4, "yellow") and len(view.dice) == len(ROLL)
    assert abs(added.center[0] - missed.center[0]) < 2 and abs(added.center[1] - missed.center[1]) < 2
    assert added.bbox[2] == 70.0                                    # as big as the dice read beside it
    ui.tap(play.ids.accept_button)
    assert sorted((d["value"], d["colour"]) for d in app.session.history()[-1]["dice"]) == sorted(ROLL)
    # Now the game waits for a choice, not for dice: a tap on the picture adds nothing.
    assert app.state.dice_to_roll() is None
    ui.tap_at(*view.to_window(*view.frame_to_widget(*missed.center)))
    assert play.die_popup.parent is None and app.reading == []


def test_a_die_showing_a_symbol_asks_for_its_number_before_the_roll_is_used(ui):
    app = ui.launch(camera="usb:9")
    app.start_game("dairyman", ["Ann", "Bob"], {})
    ui.pump(3)
    play = app.screen("play")
    places = [(90.0 + 150 * (i % 4), 120.0 + 220 * (i // 4)) for i in range(len(ROLL))]
    dice = tuple(DieReading(None if i == 0 else value, colour, (x, y), (x - 35, y - 35, 70.0, 70.0), 0.9, symbol=i == 0)
                 for i, ((value, colour), (x, y)) in enumerate(zip(ROLL, places)))   # the first die's 6 is a symbol
    app._reading_done(Reading(dice), None, settled=False)
    ui.pump(2)
    assert app.notice == "1 die shows a symbol: tap to set its number"
    ui.screenshot("play-symbol-die")
    events = len(app.session.history())
    ui.tap(play.ids.accept_button)
    assert len(app.session.history()) == events                     # not used without its number
    ui.tap(list(reversed(play.ids.chips.children))[1])
    ui.pump(2)
    assert play.die_popup.title.startswith("Die 1: read as symbol white")
    set_die_in_popup(ui, play.die_popup, "white", 6)
    assert app.notice == ""
    ui.tap(play.ids.accept_button)
    history = app.session.history()
    assert len(history) == events + 1
    assert sorted((d["value"], d["colour"]) for d in history[-1]["dice"]) == sorted(ROLL)
