"""A whole two-player Whirling Derby game played through the real app by touch, on the
Derby board panel, and the table at four players with 24-character names.

The test is the table: it rolls each die with a seeded random draw and enters it by touch
("+", the colour, the value, "Use dice").  It plays what the advice would, by tapping the
table: dice in hand and then a card (several dice in one step), a card to re-roll,
activate or turn, a die to hand on or lift, a player to give to.  After every step it
checks that the panel shows what ``board_view`` says in player words, nothing cut; illegal
taps (another player's card, a die that does not fit a card, an incomplete card) each give
one line and change nothing.  Screenshots: ``derby-*.png``.
"""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

import random
import re
import time
from collections import Counter

from test_ui_harness import UiDriver, assert_refused, enter_dice, kivy_window, ui  # noqa: F401  (fixtures)

from companion.engine import Move

MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")
MACHINE_WORDS = ("_", "None", "[]", "{", "#", "setup", "choose_reroll", "red:", "blue:", "white:", "green:")
LONG_NAMES = ("Maximilian Alexandersson", "Konstantina Papadopoulou", "Bartholomew Fitzwilliams",
              "Cecilia Montgomery-Smyth")
TABLE_SEED = 7
ADVICE_EVERY = 4
"""Every so many placing steps the test taps the advice's "place as advised" instead of the table."""


def visible_texts(root) -> list[str]:
    from kivy.uix.label import Label

    return [MARKUP.sub("", w.text) for w in root.walk(restrict=True)
            if isinstance(w, Label) and w.text and w.opacity > 0 and w.get_root_window()]


def fits(label) -> bool:
    """The label's whole text fits its box (nothing cut, nothing shortened)."""
    from kivy.core.text import Label as CoreLabel

    core = CoreLabel(text=MARKUP.sub("", label.text), font_size=label.font_size, bold=label.bold,
                     text_size=(label.width, None))
    core.refresh()
    return core.texture.size[1] <= label.height + 1 and core.texture.size[0] <= label.width + 1


def reads_whole(label, name: str) -> bool:
    """The label shows ``name`` in lines that break only between words or after a hyphen,
    unless a word is too wide for a line on its own."""
    from kivy.core.text import Label as CoreLabel

    core = CoreLabel(text=label.text, font_size=label.font_size, bold=label.bold, text_size=(label.width, None))
    core.refresh()
    lines = ["".join(word.text for word in line.words).strip() for line in core._cached_lines]
    joined = lines[0]
    for line in lines[1:]:
        joined += line if joined.endswith("-") else " " + line
    too_wide = any(core.get_extents(word)[0] > label.width for word in re.split(r"(?<=-)| ", name))
    return joined == name or (too_wide and joined.replace(" ", "") == name.replace(" ", ""))


def check_screen(ui: UiDriver, panel, state) -> None:
    """The panel shows what ``board_view`` says, in player words, nothing cut."""
    ui.pump(1)
    view = state.board_view()
    assert panel.step_text == view["step"]
    assert str(len(view["compost"])) in panel.compost_text or not view["compost"]
    assert panel.ids.boards.children[::-1] == panel.rows     # the rows in seat order, one each
    for player, row in zip(view["players"], panel.rows):
        assert row.name_label.name == player["player"] and fits(row.name_label), player["player"]
        assert reads_whole(row.name_label, player["player"]), row.name_label.text
        assert row.count_label.text == str(player["dice_on_cards"])
        assert row.current == player["acting"]
        for card_view, card in zip(player["cards"], row.cards):
            assert card.title.text == card_view["title"] and fits(card.title), card_view["title"]
            assert [(c.colour_name, c.text) for c in card.chips] == [(d["colour"], str(d["value"]))
                                                                    for d in card_view["dice"]]
            assert card.complete == card_view["complete"]
            assert all(chip.top <= card.top + 1 and chip.y >= card.y - 1 for chip in card.chips), "a die sticks out"
    shown = [(c.colour_name, int(c.text)) for c in panel.hand_chips]
    if view["stage"] in ("setup_place", "assign", "receive", "reassign"):
        assert shown == [(d["colour"], d["value"]) for d in view["hand"]]
    elif view["stage"] in ("distribute", "give"):
        assert shown == [(d["colour"], d["value"]) for d in view["to_hand_out"]]
    assert fits(panel.ids.hand_title) and fits(panel.ids.step), (panel.hand_text, panel.step_text)
    if panel.advising:
        assert fits_button(panel.advice.best), panel.advice.best.text
    for text in visible_texts(panel):
        assert not any(word in text for word in MACHINE_WORDS), text


def fits_button(button) -> bool:
    """The button's whole text (bold parts bold) fits its height at its text width."""
    from kivy.core.text.markup import MarkupLabel

    core = MarkupLabel(text=button.text, font_size=button.font_size, text_size=(button.text_size[0], None))
    core.refresh()
    return core.texture.size[1] <= button.height + 1



def actor_row(panel):
    return next(r for r in panel.rows if r.current)


def card_box(row, key: str):
    return next(c for c in row.cards if c.card == key)


def place_by_touch(ui: UiDriver, app, panel, plan: Move, counts: Counter) -> int:
    """The plan's placements made by tapping the dice in hand, then their card; one step per card."""
    steps = 0
    by_card: dict[str, list[str]] = {}
    for die, card in plan["placements"]:
        by_card.setdefault(card, []).append(die)
    for card, dice in by_card.items():
        taken: set = set()
        for die in dice:
            place = next(i for i, c in enumerate(panel.hand_chips) if c.die == die and i not in taken)
            taken.add(place)
            ui.tap(panel.hand_chips[place])
        ui.tap(card_box(actor_row(panel), card))
        assert not app.notice, app.notice
        steps += 1
        counts["several dice in one step"] += len(dice) > 1
        if app.state.stage not in ("setup_place", "assign", "receive", "reassign"):
            break
        check_screen(ui, panel, app.state)
    return steps


def tap_move(ui: UiDriver, app, panel, move: Move) -> None:
    """``move`` made by touch on the table."""
    row = actor_row(panel)
    if move.kind == "reroll":
        if move.get("card") is not None:
            ui.tap(card_box(row, move["card"]))
        else:
            ui.tap(panel.stage_buttons[f"colour {move['colour']}"])
    elif move.kind in ("activate", "set_side"):
        ui.tap(card_box(row, move["card"]))
    elif move.kind == "lift":
        card = card_box(row, move["card"])
        ui.tap(next(c for c in card.chips if c.die == move["die"]))
    elif move.kind == "hand":
        ui.tap(next(c for c in panel.hand_chips if c.die == move["die"]))
    elif move.kind == "give":
        ui.tap(panel.stage_buttons[f"to {move['to']}"])
    else:
        ui.tap(panel.stage_buttons[move.kind])


def try_illegal_taps(ui: UiDriver, app, panel, counts: Counter) -> None:
    state = app.state
    other = next(r for r in panel.rows if not r.current)
    if not counts["another player's card"]:
        assert_refused(ui, app, lambda: ui.tap(other.cards[0]))
        counts["another player's card"] += 1
    if state.stage in ("assign", "setup_place") and not counts["a die that does not fit"]:
        seat = state.actor
        for place, die in enumerate(state.pending):
            bad = next((i for i in range(len(state.rules.cards)) if state.can_place(seat, i, die)), None)
            if bad is not None:
                chip = next(i for i, c in enumerate(panel.hand_chips) if c.die == str(die))
                assert_refused(ui, app, lambda c=chip, b=bad: (ui.tap(panel.hand_chips[c]),
                                                               ui.tap(actor_row(panel).cards[b])))
                ui.tap(panel.hand_chips[chip])                   # not chosen any more
                counts["a die that does not fit"] += 1
                break
    if state.stage == "assign" and not counts["nothing chosen"]:
        assert_refused(ui, app, lambda: ui.tap(actor_row(panel).cards[0]))
        counts["nothing chosen"] += 1
    if state.stage == "activate" and not counts["an incomplete card"]:
        row = actor_row(panel)
        incomplete = [c for c in row.cards[:3] if not c.complete]
        if incomplete:
            assert_refused(ui, app, lambda: ui.tap(incomplete[0]))
            counts["an incomplete card"] += 1


def test_a_whole_derby_game_by_touch(ui):
    started = time.monotonic()
    app = ui.launch(camera="sim")
    table = random.Random(TABLE_SEED)
    start = app.screen("start")
    ui.choose(start.ids.game_choice, "Whirling Derby")
    for row, name in zip(start.ids.players.children[::-1], LONG_NAMES):
        row.name_input.text = name
    ui.tap(start.ids.start_button)
    assert app.root.current == "play" and app.session.players == LONG_NAMES[:2]
    play = app.screen("play")
    panel = play.board
    assert type(panel).__name__ == "DerbyPanel" and play.ids.view.parent == panel.camera_slot

    counts: Counter = Counter()
    shots: set = set()
    while app.root.current != "summary":
        state = app.state
        check_screen(ui, panel, state)
        if state.dice_to_roll() is not None:
            assert panel.rolling and panel.camera_slot.width > 100 and play.ids.view.get_root_window() is not None
            if "roll" not in shots and state.stage == "roll":
                shots.add("roll")
                ui.screenshot("derby-2-roll")
            enter_dice(ui, app, state.random_roll(table))
            assert app.session.history()[-1]["kind"] == "roll", app.notice
            counts["rolls"] += 1
            continue
        try_illegal_taps(ui, app, panel, counts)
        if state.stage in ("setup_place", "assign", "receive", "reassign"):
            if state.stage == "setup_place" and "setup" not in shots:
                shots.add("setup")
                ui.screenshot("derby-2-setup")
            plan = state.placement_plan()
            if state.stage == "setup_place" and not counts["all on a run"]:   # equal dice break a run
                assert_refused(ui, app, lambda: (ui.tap(panel.all_button), ui.tap(card_box(actor_row(panel), "run"))))
                ui.tap(panel.all_button)                                 # none chosen any more
                assert not any(c.chosen for c in panel.hand_chips)
                counts["all on a run"] += 1
            if len(plan["placements"]) > 1 and counts["placing"] % ADVICE_EVERY == 0:
                assert panel.advice.items[0][2] == plan
                ui.tap(panel.advice.best)                               # "place the dice as advised"
                counts["advice"] += 1
            else:
                counts["place steps"] += place_by_touch(ui, app, panel, plan, counts)
            counts["placing"] += 1
            assert not app.notice, app.notice
            continue
        move = state.game.advise(state)[0].move
        lifts = [m for m in state.legal_moves() if m.kind == "lift"]
        if state.stage == "lift" and lifts and not counts["lift"]:
            move = lifts[0]                                             # a die lifted off a card by touch
        if move.kind == "hand" and "hand out" not in shots:
            shots.add("hand out")
            ui.screenshot("derby-2-hand-out")
        if state.turn == 4 and "turn" not in shots:
            shots.add("turn")
            ui.screenshot("derby-2-turn")
        before = len(app.session.history())
        tap_move(ui, app, panel, move)
        assert not app.notice, app.notice
        entries = app.session.history()[before:]                       # the move, and the game's end if it ends it
        assert entries[0]["move"] == move.to_json() and [e["kind"] for e in entries[1:]] in ([], ["finished"])
        counts[move.kind] += 1

    state = app.state
    assert state.is_terminal() and state.winner is not None
    assert counts["another player's card"] and counts["a die that does not fit"] and counts["an incomplete card"]
    assert counts["nothing chosen"] and counts["all on a run"] and counts["advice"] and counts["place steps"]
    assert counts["several dice in one step"] and counts["activate"] and counts["hand"] and counts["reroll"]
    assert {"setup", "roll", "hand out", "turn"} <= shots
    summary = app.screen("summary")
    assert state.players[state.winner] in summary.ids.winner.text
    print(f"Whirling Derby by touch: {dict(counts)}, {state.turn} turns, {time.monotonic() - started:.0f} s")


def test_the_derby_table_at_four_players(ui):
    """Four players with 24-character names: every name whole, every card and die shown."""
    app = ui.launch(camera="sim")
    assert app.start_game("whirling-derby", LONG_NAMES, {})
    panel = app.screen("play").board
    table = random.Random(TABLE_SEED)
    while app.state.turn < 3:
        state = app.state
        if state.dice_to_roll() is not None:
            app.session.roll(state.random_roll(table))
            app._changed()
        elif state.stage in ("setup_place", "assign", "receive", "reassign"):
            assert app.play(state.placement_plan())
        else:
            assert app.play(state.game.advise(state)[0].move)
        if app.state.stage == "setup_place" and app.state.actor == 3:
            check_screen(ui, panel, app.state)
            ui.screenshot("derby-4-setup")
    ui.screenshot("derby-4-turn")
    check_screen(ui, panel, app.state)
    while app.state.stage not in ("activate", "distribute"):
        state = app.state
        if state.dice_to_roll() is not None:
            app.session.roll(state.random_roll(table))
            app._changed()
        else:
            before = {row.player: row for row in panel.rows}
            assert app.play(state.placement_plan() or state.game.advise(state)[0].move)
            for player, row in zip(app.state.board_view()["players"], panel.rows):
                # a player the move left as they were keeps their row; a changed one gets a new row
                assert (row is before[player["player"]]) == (player == before[player["player"]].view)
    check_screen(ui, panel, app.state)
    ui.screenshot("derby-4-activate")
    ui.tap(panel.advice.more)
    shown = [MARKUP.sub("", b.text) for b in panel.advice.listing.children]
    assert shown and all(not any(w in t for w in MACHINE_WORDS) for t in shown)
    ui.screenshot("derby-4-more-choices")
