"""A whole two-player Dairyman game played through the real app by touch, on Dairyman's
board panel (checked against the state's ``board_view`` at every step).

The simulated camera throws the dice the game asks for; the real reader reads each
photo; the test, like a player, compares what was read with what is on the table (the
simulator's truth) and fixes every difference by touch: it taps a misread die in the
picture, removes a false find, adds a missed die.  Along the way: one undo, one move
built by hand, the app closed and started again (resume), and screenshots of every
screen for the README.
"""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

import math
import random
from collections import Counter

from test_ui_dairyman_panel import check_screen
from test_ui_harness import UiDriver, kivy_window, ui  # noqa: F401  (fixtures)

from companion.engine import Die
from companion.games import get_game

GAME_SEED = 2          # the tiles' shuffle; with these dice the game is short (24 rolls)
DICE_SEED = 2          # the values the simulated camera throws
RESUME_AFTER_ROLLS = 6
UNDO_AT_MOVE = 3
HAND_MOVE_AT = 5


def the_same_game_without_the_app(players: tuple[str, ...]):
    """The engine alone, fed the same seeded dice and choices: (rolls, moves, final state)."""
    game = get_game("dairyman")
    state = game.new_game(players, seed=GAME_SEED)
    dice_values = random.Random(DICE_SEED)
    rolls = moves = 0
    while not state.is_terminal():
        request = state.dice_to_roll()
        if request is not None:
            state = state.apply_roll([Die(dice_values.randint(1, 6), c) for c in request.colours])
            rolls += 1
            continue
        if moves == HAND_MOVE_AT:
            legal = state.legal_moves()
            state = state.apply([m for m in legal if m.kind == legal[0].kind][-1])
        else:
            state = state.apply(game.advise(state)[0].move)
        moves += 1
    return rolls, moves, state


def wait_for_thrown_dice(ui: UiDriver, app, throws_before: int) -> list:
    source = app.grabber.source
    ui.wait(lambda: source.throws > throws_before and not source.rolling, what="the dice to come to rest")
    shown = app.grabber.count
    ui.wait(lambda: app.grabber.count >= shown + 2, what="a picture of the resting dice")
    return list(source.truth)


def match(read, truth) -> dict[int, int]:
    """Read die index -> truth index, nearest centres within half a die's side."""
    pairs = sorted((math.dist(r.center, t.center), i, j) for i, r in enumerate(read) for j, t in enumerate(truth))
    matched: dict[int, int] = {}
    for distance, i, j in pairs:
        if distance < truth[j].side / 2 and i not in matched and j not in matched.values():
            matched[i] = j
    return matched


def set_die_in_popup(ui: UiDriver, popup, colour: str, value: int) -> None:
    ui.tap(ui.button(colour, root=popup))
    ui.tap(ui.button(str(value), root=popup))
    ui.wait(lambda: popup.parent is None, what="the die popup to close")


def open_die_editor(ui: UiDriver, app, index: int, counts: Counter) -> None:
    """Tap die ``index`` in the picture; if another outline lies on top of it, tap its chip."""
    play = app.screen("play")
    view = play.ids.view
    view_index = [i for i, d in enumerate(app.reading) if d.bbox[2] > 0].index(index)
    x, y, w, h = view.die_rect(view_index)
    ui.tap_at(*view.to_window(x + w / 2, y + h / 2))
    if not play.die_popup.title.startswith(f"Die {index + 1}:"):
        ui.tap(ui.button("Cancel", root=play.die_popup))
        if index in app.doubted_dice():
            ui.tap(play.ids.chips.children[::-1][index + 1])   # a die marked ?: the first tap confirms it
        ui.tap(play.ids.chips.children[::-1][index + 1])
        counts["chip taps"] += 1
    assert play.die_popup.parent and play.die_popup.title.startswith(f"Die {index + 1}:"), play.die_popup.title


def fix_reading_by_touch(ui: UiDriver, app, truth, counts: Counter) -> None:
    """Make the dice to be used equal the dice on the table, only by touches, and confirm those marked "?"."""
    play = app.screen("play")
    matched = match(app.reading, truth)
    for index in sorted(set(range(len(app.reading))) - set(matched), reverse=True):
        open_die_editor(ui, app, index, counts)                # a false find: remove it
        ui.tap(ui.button("Not a die: remove", root=play.die_popup))
        matched = {i - (i > index): j for i, j in matched.items()}
        counts["removed"] += 1
    for index, j in matched.items():
        read, real = app.reading[index], truth[j]
        if (read.value, read.colour) != (real.value, real.colour):
            open_die_editor(ui, app, index, counts)            # a misread: tap it in the picture
            if not counts["corrected"]:
                ui.screenshot("play-correct-die")
            set_die_in_popup(ui, play.die_popup, real.colour, real.value)
            counts["corrected"] += 1
    for j in sorted(set(range(len(truth))) - set(matched.values())):
        ui.tap(play.ids.chips.children[-1])                    # a missed die: add it with "+"
        set_die_in_popup(ui, play.die_popup, truth[j].colour, truth[j].value)
        counts["added"] += 1
    for index in app.doubted_dice():
        ui.tap(play.ids.chips.children[::-1][index + 1])   # read right but marked ?: one tap confirms it
        counts["confirmed"] += 1


def misread_one_die(ui: UiDriver, app, truth) -> None:
    """Give one found die a wrong value by touch, as a misread would show it, so that the
    correction below always has a misread die to fix, however well the reader did."""
    play = app.screen("play")
    matched = match(app.reading, truth)
    if matched:
        index = min(matched)
        real = truth[matched[index]]
        open_die_editor(ui, app, index, Counter())
        set_die_in_popup(ui, play.die_popup, real.colour, real.value % 6 + 1)


def test_a_whole_dairyman_game_by_touch(ui):
    app = ui.launch(camera="sim", seed=GAME_SEED)
    dice_values = random.Random(DICE_SEED)
    start = app.screen("start")
    ui.choose(start.ids.game_choice, "Dairyman")
    for row, name in zip(start.ids.players.children[::-1], ("Ann", "Bob")):
        row.name_input.text = name
    ui.tap(ui.button("down", root=start.ids.players.children[-1]))   # Bob takes the first seat
    ui.screenshot("start")
    ui.tap(start.ids.start_button)
    assert app.root.current == "play"
    assert app.session.players == ("Bob", "Ann")

    counts: Counter = Counter()
    rolls = moves = 0
    resumed = undone = hand_move = False
    while app.root.current != "summary":
        play = app.screen("play")
        state = app.state
        check_screen(play.board, state)                        # the board panel shows the table as it is
        request = state.dice_to_roll()
        if request is not None:
            throws = app.grabber.source.throws
            app.grabber.source.set_values([dice_values.randint(1, 6) for _ in request.colours])
            ui.tap(play.ids.roll_button)
            truth = wait_for_thrown_dice(ui, app, throws)
            assert Counter(d.colour for d in truth) == Counter(request.colours)
            done = app.readings_done
            ui.tap(play.ids.read_button)
            ui.wait(lambda a=app, d=done: a.readings_done > d, timeout=60, what="the reading")
            if rolls == 0:
                ui.screenshot("play-reading")
                misread_one_die(ui, app, truth)
            fix_reading_by_touch(ui, app, truth, counts)
            assert sorted(d.to_die() for d in app.reading) == sorted(t.to_die() for t in truth)
            ui.tap(play.ids.accept_button)
            assert app.session.history()[-1]["kind"] in ("roll", "finished")
            rolled = [e for e in app.session.history() if e["kind"] == "roll"][-1]
            assert sorted(Die.from_json(d) for d in rolled["dice"]) == sorted(t.to_die() for t in truth)
            assert rolled["photo"] is not None
            rolls += 1
            if rolls == RESUME_AFTER_ROLLS and not resumed:
                before = app.state.to_json()
                ui.close(app)
                app = ui.launch(camera="sim", seed=GAME_SEED)
                assert app.root.current == "start"
                ui.screenshot("start-resume")
                ui.tap(app.screen("start").ids.resume)
                assert app.root.current == "play"
                assert app.state.to_json() == before
                resumed = True
            continue

        panel = play.board                                     # Dairyman's board panel: the advice on it
        assert panel is not None and not panel.advice.best.disabled, f"no suggestion in phase {state.phase}"
        if moves == 1:
            ui.screenshot("play-suggestions")
        if moves == HAND_MOVE_AT and not hand_move:
            ui.tap(play.ids.other_button)
            ui.screenshot("play-other-move")
            chosen = play.move_list.children[0]                # the last move of the first kind
            expected = chosen.text
            ui.tap(chosen)
            assert [e for e in app.session.history() if e["kind"] == "move"][-1]["text"] == expected
            hand_move = True
            moves += 1
            continue
        ui.tap(panel.advice.best)
        moves += 1
        if moves == UNDO_AT_MOVE and not undone:
            after = app.state.to_json()
            ui.tap(play.ids.undo_button)
            assert app.state.to_json() == state.to_json()
            assert app.session.history()[-1]["kind"] == "undo"
            ui.tap(play.board.advice.best)                     # the same top suggestion again
            assert app.state.to_json() == after
            undone = True
            ui.tap(ui.button("Scores"))
            ui.screenshot("scoreboard")
            ui.tap(ui.button("History"))
            rows = app.screen("history").ids.entries.children
            assert any("(undone)" in w.text for row in rows for w in row.children if hasattr(w, "text"))
            photos = [w for row in rows for w in row.children if type(w).__name__ == "PhotoThumbnail"]
            assert photos                                                  # each roll's photo
            ui.screenshot("history")
            ui.tap(photos[0])
            shown = ui.window.children[0]
            assert type(shown).__name__ == "Popup" and shown.content.texture.size == (640, 480)
            ui.tap(shown.content)
            ui.tap(ui.button("Play"))

    assert app.state.is_terminal()
    assert resumed and undone and hand_move
    assert counts["corrected"] >= 1, f"no misread die was corrected ({dict(counts)})"
    winners = app.state.winners()
    summary = app.screen("summary")
    assert all(w in summary.ids.winner.text for w in winners)
    assert summary.ids.chart.sources
    ui.screenshot("summary")
    expected_rolls, expected_moves, expected = the_same_game_without_the_app(("Bob", "Ann"))
    assert (rolls, moves) == (expected_rolls, expected_moves)
    assert app.state.score_breakdown() == expected.score_breakdown()
    print(f"rolls {rolls}, moves {moves}, touch fixes {dict(counts)}")
