"""Dairyman's board panel in the real app, by touch: the display tiles, the barns, the dice,
the supplies and a card per player as the state's ``board_view`` says; sets locked, dice
frozen and tiles claimed by tapping them; the advice as one large button in player words;
illegal taps refused in one line with nothing changed.  Screenshots at 2 and 4 players with
24-character names (``dairyman-*.png``).
"""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

import re

import pytest
from test_ui_harness import UiDriver, assert_refused, enter_dice, kivy_window, ui  # noqa: F401  (fixtures)

from companion.engine import parse_dice

MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")
MACHINE_WORDS = ("_", "None", "[]", "{", "#", "ice_cream", "white:", "yellow:", "red:", "setup_roll")
LONG_NAMES = ("Maximilian Alexandersson", "Konstantina Papadopoulou", "Bartholomew Fitzwilliams",
              "Gwendolyn Featherstonehaugh"[:24])
FIRST_ROLL = "white:6 white:4 white:5 white:5 white:3 white:2 white:1 yellow:4"


def visible_texts(root) -> list[str]:
    """The text of every label and button shown under ``root``, markup removed."""
    from kivy.uix.label import Label

    return [MARKUP.sub("", w.text) for w in root.walk(restrict=True)
            if isinstance(w, Label) and w.text and w.opacity > 0 and w.get_root_window()]


def fits(label) -> bool:
    """The label's whole text (bold parts bold) fits its box: nothing cut, nothing shortened."""
    from kivy.core.text.markup import MarkupLabel

    width = label.text_size[0] or label.width
    core = MarkupLabel(text=label.text if label.markup else label.text.replace("[", "&bl;"),
                       font_size=label.font_size, bold=label.bold, text_size=(width, None))
    core.refresh()
    return core.texture.size[1] <= label.height + 1


def fits_button(button) -> bool:
    """The button's whole text (bold parts bold) fits its height at its text width."""
    from kivy.core.text.markup import MarkupLabel

    core = MarkupLabel(text=button.text, font_size=button.font_size, text_size=(button.text_size[0], None))
    core.refresh()
    return core.texture.size[1] <= button.height + 1


def check_screen(panel, state) -> None:
    """The panel shows what ``board_view`` says, in player words, nothing cut."""
    from kivy.base import EventLoop

    for _ in range(2):                 # the layout settles, as a player's eye would wait for it
        EventLoop.idle()
    view = state.board_view()
    assert panel.step_text == view["step"] and fits(panel.ids.step) and fits(panel.ids.supply)
    assert fits(panel.ids.chosen), panel.chosen_text
    assert f"{view['supply']['freeze']} freeze" in panel.supply_text
    assert f"{view['supply']['backorders']} backorder" in panel.supply_text
    assert f"{view['stack']} tiles" in panel.supply_text
    tiles = panel.ids.display.children[::-1]
    for tile, button in zip(view["display"], tiles):
        text = MARKUP.sub("", button.text)
        assert tile["name"] in text.lower() and tile["flip_needs"] in text and tile["flips_to"] in text
        assert fits(button), text
    for barn, box in zip(view["barns"], panel.ids.barns.children[::-1]):
        text = MARKUP.sub("", box.text)
        assert barn["name"] in text.lower() and fits(box), text
        for dice in barn["sets"]:
            assert "+".join(d["text"] for d in dice) in text
    if not panel.rolling:
        assert [c.text for c in panel.chips] == [str(d["value"]) for d in view["roll"]]
        assert [c.colour_name for c in panel.chips] == [d["colour"] for d in view["roll"]]
    for player, card in zip(view["players"], panel.cards):
        assert card.name_label.text.startswith(player["player"]) and fits(card.name_label)
        assert card.score_label.text == str(player["score"]) and fits(card.score_label)
        assert f"{player['freeze']} freeze" in card.detail_label.text and fits(card.detail_label)
        assert f"{player['backorders']} backorder" in card.detail_label.text
        assert card.current == player["current"]
    if panel.advising:
        best = state.suggestion_words(state.game.advise(state)[0])
        assert best["headline"] in MARKUP.sub("", panel.advice.best.text) and fits_button(panel.advice.best)
    for text in visible_texts(panel):
        assert not any(word in text for word in MACHINE_WORDS), text



def chip_for(panel, text: str, taken: set) -> object:
    """The first die chip of the roll showing ``text`` ("6", "yellow 4") not yet tapped."""
    view = panel.view["roll"]
    place = next(i for i, d in enumerate(view) if d["text"] == text and i not in taken)
    taken.add(place)
    return panel.chips[place]


@pytest.mark.parametrize("count", [2, 4])
def test_dairyman_table_by_touch(ui, count):
    app = ui.launch(camera="sim", seed=3)
    names = LONG_NAMES[:count]
    assert all(len(n) == 24 for n in names)
    assert app.start_game("dairyman", names, {})
    play = app.screen("play")
    panel = play.board
    assert type(panel).__name__ == "DairymanPanel" and play.ids.view.parent == panel.camera_slot
    check_screen(panel, app.state)
    assert panel.camera_slot.opacity == 1 and panel.camera_slot.height > 60
    ui.screenshot(f"dairyman-{count}-roll")

    enter_dice(ui, app, parse_dice(FIRST_ROLL))                 # the first roll, by touch
    assert app.state.phase == "lock"
    check_screen(panel, app.state)
    taken: set = set()
    assert_refused(ui, app, lambda: (ui.tap(chip_for(panel, "6", taken)), ui.tap(chip_for(panel, "5", taken)),
                                     ui.tap(panel.ids.lock)))    # 6+5 is not ten
    for chip in [c for c in panel.chips if c.chosen]:
        ui.tap(chip)                                             # a second tap takes a die out of the set
    assert not any(c.chosen for c in panel.chips)
    taken = set()
    ui.tap(chip_for(panel, "6", taken))
    ui.tap(chip_for(panel, "4", taken))
    ui.tap(panel.ids.new_set)
    ui.tap(chip_for(panel, "5", taken))
    ui.tap(chip_for(panel, "5", taken))
    assert "6+4 | 5+5" in panel.chosen_text
    ui.screenshot(f"dairyman-{count}-sets-chosen")
    ui.tap(panel.ids.lock)
    assert not app.notice, app.notice
    state = app.state
    assert state.phase == "continue" and state.board_view()["barns"][0]["total"] == 20
    check_screen(panel, state)

    expensive = next(b for b in panel.ids.display.children if b.tile is not None
                     and state.tile_view(b.tile)["value"] > 20)
    assert_refused(ui, app, lambda: (ui.tap(expensive), ui.tap(panel.ids.claim)))   # costs more than 20
    ui.tap(expensive)                                            # not chosen any more
    assert_refused(ui, app, lambda: (ui.tap(panel.chips[0]), ui.tap(panel.ids.reroll)))   # no freeze token
    ui.tap(panel.chips[0])
    ui.screenshot(f"dairyman-{count}-after-lock")
    ui.tap(panel.advice.more)
    popup = panel.advice.popup
    shown = [MARKUP.sub("", b.text) for b in panel.advice.listing.children[::-1]]
    assert shown and all(not any(w in t for w in MACHINE_WORDS) for t in shown)
    ui.screenshot(f"dairyman-{count}-more-choices")
    ui.tap(ui.button("Back", root=popup))

    ui.tap(panel.ids.reroll)                                      # re-roll the four dice left
    assert app.state.dice_to_roll() is not None and app.state.dice_to_roll().count == 4
    check_screen(panel, app.state)
    enter_dice(ui, app, parse_dice("white:5 white:5 white:2 yellow:1"))
    check_screen(panel, app.state)
    best = app.state.game.advise(app.state)[0]
    ui.tap(panel.advice.best)                                     # the advice's best move, one tap
    assert app.session.history()[-1]["move"] == best.move.to_json()
    check_screen(panel, app.state)
    cheap = [b for b in panel.ids.display.children if b.tile is not None
             and app.state.tile_view(b.tile)["value"] <= app.state.barn_total]
    if app.state.phase == "continue" and cheap:
        ui.tap(cheap[0])
        ui.tap(panel.ids.claim)
        assert not app.notice, app.notice
        assert app.state.board_view()["players"][0]["tiles"], "the claimed tile is the first player's"
    check_screen(panel, app.state)
    ui.screenshot(f"dairyman-{count}-claimed")
