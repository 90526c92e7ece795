"""A whole two-player Space Colony Cheeses game (15 turns) played through the real app by
touch, on the Space Colony Cheeses board panel.

The test is the table: Space Colony Cheeses is chosen on the start screen, every roll is
drawn from a seeded generator and typed on the play screen's roll keypad (one tap per die)
or added with "+" and the die popup, and every decision is made by tapping the panel: a
module and a map space to build, a lit module to turn off, a module and its new space to
move, the [-]/[+] of the production, gift box and sales popups, the lawsuit buttons.  The
players follow the game's own advice, with a wish list of modules each (so that gift boxes,
leather sales, lawsuits and moving a module all happen) and, now and then, a share of the
output of their own.  After every step the panel must show what ``board_view()`` says; a
few illegal taps (a module not connected, storage away from a processing plant, turning off
an energy plant, more output than storage holds, the map while dice are due) each give one
line and change nothing.  The game ends on the summary with the winner and the final money.
"""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

import random
import re
import time
from collections import Counter

from slow_machine import TIME_SCALE
from test_ui_harness import UiDriver, kivy_window, ui  # noqa: F401  (fixtures)

from companion.engine import Move
from ui.board_panels import PLAYER_RGBA

GAME_SEED = 7
TABLE_SEED = 3          # the dice and the players' own choices
CAMERA_FPS = 1.0 / TIME_SCALE
"""The live picture stays on screen but costs a frame a second (software GL draws slowly), fewer on a
slow machine (``tests/slow_machine.py``)."""
WISHES = {"Ann": ("law_office", "construction", "leather_storage"),
          "Bob": ("cheese_storage", "beef_storage", "catalog_store", "leather_storage")}
"""Modules each player builds (where the rules allow) from turn 3 on, beside the advice's."""
MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")
MACHINE_WORDS = ("_", "None", "[]", "{", "#", "skip_move", "end_build", "turn_off")


def texts_of(root) -> list[str]:
    from kivy.uix.label import Label

    return [MARKUP.sub("", w.text) for w in root.walk(restrict=True) if isinstance(w, Label) and w.text]


def plain(text: str) -> str:
    return MARKUP.sub("", text)


def check_screen(panel, state) -> None:
    """Every page of the panel shows what ``board_view()`` says, in player words."""
    from ui.space_colony_cheeses_panel import CURRENT_RGBA, DARK_RGBA, EMPTY_RGBA, tag_of  # after the window

    view = state.board_view()
    seat_rgba = {p: PLAYER_RGBA[i] for i, p in enumerate(state.players)}
    current = view["current"]
    status = plain(panel.status_text)
    if current["player"] is not None:
        assert f"Turn {view['turn']} of {view['turns']}" in status and current["player"] in status, status
    for space in view["map"]["spaces"]:
        cell = panel.ids.map.cells[space["space"]]
        module = space["module"]
        if module is None:
            assert cell.text == space["space"] and tuple(cell.fill) == EMPTY_RGBA, space
        else:
            owner = seat_rgba[module["owner"]]
            assert cell.text == tag_of(module["name"]), (cell.text, module)
            if module["dark"]:
                assert tuple(cell.fill) == DARK_RGBA and tuple(cell.edge) == owner, space
            else:
                assert tuple(cell.fill) == owner, space
            assert cell.sick == module["sick"], space
        assert cell.octagon == (space["shape"] == "octagon") and cell.fault == space["fault_line"]
        assert cell.lush == space["lush_pasture"]
    cells = panel.sheet_cells
    for player in view["players"]:
        name = player["player"]
        for item in player["sheets"]["commodities"]:
            assert cells["stored", item["product"], name].text == f"{item['stored']} of {item['storage']}"
            price = cells["price", item["product"], name].text
            assert price == ("\u2013" if item["price"] is None else f"${item['price']}"), (price, item)
        assert plain(cells["money", name].text) == f"${player['money']}"
        for entry in player["sheets"]["score"]["ledger"]:
            shown = cells["ledger", entry["label"], name].text
            assert shown.replace("\u2212", "-") == (f"${entry['amount']}" if entry["amount"] >= 0
                                                    else f"-${-entry['amount']}"), (shown, entry)
        energy = player["energy"]
        assert cells["made", name].text == str(energy["made"])
        assert plain(cells["used", name].text).startswith(str(energy["used"]))
        assert ("short" in cells["used", name].text) == bool(energy["short"])
        assert cells["output", name].text == str(player["output"])
        assert cells["diseases", name].text == str(player["diseases"])
        event = player["event"]
        events = plain(panel.ids.events.text).splitlines()
        line = next(t for t in events if t.startswith(f"{name}'s event"))
        if event is None:
            assert "not rolled" in line
        else:
            assert event["dice"] in line and event["text"] in line and ("our own entry" in line) == event["default"]
    for step, label in zip(view["steps"], panel.step_labels, strict=True):
        assert step["title"].lower() in plain(label.text).lower() and label.step_state == step["state"]
        assert (tuple(label.background.rgba) == CURRENT_RGBA) == (step["state"] == "current")
    roll = view["roll"]
    if roll is not None:
        assert roll["reason"][1:] in plain(panel.ids.roll_box.children[-1].text)
        if len(roll["order"]) > 1:
            assert [plain(c.text) for c in panel.order_chips] == [f"{i} {m}" for i, m in enumerate(roll["order"], 1)]
        assert panel.camera_slot.height > 100 and panel.camera_slot.opacity == 1
    else:
        assert panel.camera_slot.opacity == 0 and not panel.order_chips
        assert all(news[1:] in plain(panel.ids.log.text) for news in view["log"][-1:])
    for page in panel.pages.values():
        for text in texts_of(page):
            assert not any(word in text for word in MACHINE_WORDS), text


# -- the players ---------------------------------------------------------------------------


def choose_move(state, rng: random.Random, counts: Counter) -> Move:
    """The advice's move, but each player's wished modules first, a module moved once,
    a share of the output of one's own now and then, and always a lawsuit when one can."""
    game, legal = state.game, state.legal_moves()
    player = state.current_player
    if state.stage == "build" and state.turn >= 3:
        built = {name for _, name in state.sheets[state.seat].modules}
        for wish in WISHES[player]:
            spaces = [m for m in legal if m.kind == "build" and m.get("module") == wish]
            if wish not in built and spaces:
                return rng.choice(spaces)
    if state.stage == "move":
        relocations = [m for m in legal if m.kind == "relocate"]
        if relocations and not counts["relocate"]:
            return rng.choice(relocations)
        return Move.make("skip_move")
    if state.stage == "lawsuit":
        return next((m for m in legal if m.kind == "sue"), Move.make("no_lawsuit"))
    if state.stage == "gift_boxes":
        return max(legal, key=lambda m: m.get("count"))
    if state.stage == "sales":
        return rng.choice(legal)
    if state.stage == "production" and rng.random() < 0.3:
        return own_share(state, rng)
    return game.best_move(state)


def own_share(state, rng: random.Random) -> Move:
    """The output shared at random among the products with room (as a player might)."""
    colony = state.colony(state.seat)
    rooms = {p: colony.room(p) for p in state.rules.products}
    left, share = colony.output(), {}
    for product in rng.sample(list(rooms), len(rooms)):
        if rooms[product] and left:
            share[product] = rng.randint(0, min(left, rooms[product]))
            left -= share[product]
    return Move.make("allocate", **share)


# -- touches ---------------------------------------------------------------------------------


def tap_space(ui: UiDriver, panel, space: str) -> None:
    """Swipe the map until the whole space shows, then tap it."""
    cell, view = panel.ids.map.cells[space], panel.ids.map_scroll
    left, bottom = cell.to_window(*cell.pos)
    right, top = cell.to_window(cell.right, cell.top)
    view_left, view_bottom = view.to_window(*view.pos)
    if left < view_left or bottom < view_bottom or right > view_left + view.width or top > view_bottom + view.height:
        view.scroll_to(cell, padding=10, animate=False)
        ui.pump(2)
    ui.tap(cell)


def tap_build(ui: UiDriver, panel, module_key: str, space: str) -> None:
    """Choose the module (if it is not the chosen one) and tap the space; with no module
    chosen yet, tap the space first and choose the module in the popup."""
    name = panel.view["module_keys"][module_key]
    if not panel.module_name:
        tap_space(ui, panel, space)
        assert panel.module_popup.parent is not None
        ui.tap(panel.module_buttons[name])
        return
    if panel.module_name != name:
        ui.tap(panel.controls["module"])
        ui.tap(panel.module_buttons[name])
        assert panel.module_popup.parent is None and panel.module_name == name
    tap_space(ui, panel, space)


def set_amounts(ui: UiDriver, panel, amounts: dict) -> None:
    """Tap [-] and [+] of the open popup until it shows ``amounts``."""
    for key, stepper in panel.steppers.items():
        wanted = amounts.get(key, 0)
        while stepper.value != wanted:
            before = stepper.value
            ui.tap(stepper.plus if stepper.value < wanted else stepper.minus)
            assert stepper.value != before, f"{key} stuck at {before}, {wanted} wanted"
            assert stepper.shown.text == str(stepper.value)


def tap_move(ui: UiDriver, panel, move: Move) -> None:
    """Make ``move`` by touch on the panel."""
    kind = move.kind
    if kind == "build":
        tap_build(ui, panel, move.get("module"), move.get("space"))
    elif kind == "turn_off":
        tap_space(ui, panel, move.get("space"))
    elif kind == "relocate":
        tap_space(ui, panel, move.get("source"))
        assert panel.ids.map.cells[move.get("source")].marked and panel.ids.map.cells[move.get("target")].marked
        tap_space(ui, panel, move.get("target"))
    elif kind in ("allocate", "gift_boxes", "sell"):
        ui.tap(panel.controls[kind])
        set_amounts(ui, panel, dict(move.params))
        ui.tap(panel.amounts_send)
    elif kind == "sue":
        ui.tap(panel.controls[f"sue {move.get('defendant')}"])
    else:
        ui.tap(panel.controls[kind])


def enter_roll(ui: UiDriver, app, dice, by_keypad: bool) -> None:
    """The dice typed on the roll keypad (a tap a die, then "Use dice"), or each added with
    "+" and its value in the die popup, then "Use dice"."""
    play = app.screen("play")
    if by_keypad:
        ui.tap(play.keypad_button)
        keypad = play.keypad
        keys = {b.text: b for b in keypad.content.walk() if getattr(b, "text", None) in set("123456")
                and b.font_size > 30}
        for die in dice:
            ui.tap(keys[str(die.value)])
        ui.tap(ui.button("Use dice", root=keypad))
        return
    for die in dice:
        ui.tap(play.ids.chips.children[-1])
        ui.tap(ui.button(str(die.value), root=play.die_popup))
    ui.tap(play.ids.accept_button)


def assert_refused(ui: UiDriver, app, tap) -> str:
    """``tap`` is refused in one line on screen and changes nothing."""
    before, events = app.state.to_json(), len(app.session.history())
    tap()
    notice = app.notice
    assert notice and "\n" not in notice and len(notice) < 200, notice
    assert app.state.to_json() == before and len(app.session.history()) == events
    ui.pump(2)
    return notice


def try_illegal_taps(ui: UiDriver, app, panel, counts: Counter) -> None:
    """Each kind of illegal tap once, when the game allows it."""
    state = app.state
    view = panel.view
    legal = state.legal_moves()
    if state.stage == "build" and state.turn >= 2 and state.sheets[state.seat].modules:
        builds = [m for m in legal if m.kind == "build"]
        near = {n for c, _ in state.sheets[state.seat].modules for n in state.board.neighbours[c]}
        empty = [s["space"] for s in view["map"]["spaces"] if s["module"] is None]
        far = [s for s in empty if space_cell(state, s) not in near]
        if not counts["not connected"] and far and any(m.get("module") == "barn" for m in builds):
            notice = assert_refused(ui, app, lambda: tap_build(ui, panel, "barn", far[0]))
            assert "connected" in notice, notice
            counts["not connected"] += 1
        solar = {m.get("space") for m in builds if m.get("module") == "solar_panel"}
        storage = {m.get("space") for m in builds if m.get("module") == "milk_storage"}
        if not counts["storage away"] and solar - storage and state.sheets[state.seat].money >= 5:
            space = min(solar - storage)
            notice = assert_refused(ui, app, lambda: tap_build(ui, panel, "milk_storage", space))
            assert "processing plant" in notice, notice
            counts["storage away"] += 1
    if state.stage == "energy" and not counts["energy plant off"]:
        plants = [space for space, kind in ((s["space"], s["module"]) for s in view["map"]["spaces"])
                  if kind and kind["owner"] == state.current_player and kind["name"] in ("Solar Panel", "Start-Up Module")]
        if plants:
            notice = assert_refused(ui, app, lambda: tap_space(ui, panel, plants[0]))
            assert "never turned off" in notice, notice
            counts["energy plant off"] += 1
    if state.stage == "production" and not counts["over storage"]:
        colony = state.colony(state.seat)
        full = next((p for p in state.rules.products if colony.capacity(p) and colony.output() > colony.room(p)), None)
        if full is not None:
            ui.tap(panel.controls["allocate"])
            set_amounts(ui, panel, {full: colony.room(full) + 1})
            assert_refused(ui, app, lambda: ui.tap(panel.amounts_send))
            assert "room for" in panel.amounts_message.text.lower(), panel.amounts_message.text
            ui.tap(ui.button("Cancel", root=panel.amounts_popup))
            counts["over storage"] += 1
    if state.dice_to_roll() is not None and not counts["map while rolling"]:
        ui.tap(panel.tabs["map"])
        notice = assert_refused(ui, app, lambda: tap_space(ui, panel, "F5"))
        assert "dice" in notice
        ui.tap(panel.tabs["turn"])
        counts["map while rolling"] += 1


def space_cell(state, name: str):
    from companion.games.space_colony_cheeses import parse_space

    return parse_space(state.board, name)


# -- the game ----------------------------------------------------------------------------------


def test_a_whole_space_colony_cheeses_game_by_touch(ui):
    started = time.monotonic()
    app = ui.launch(camera="sim", seed=GAME_SEED, camera_fps=CAMERA_FPS)
    table = random.Random(TABLE_SEED)
    start = app.screen("start")
    ui.choose(start.ids.game_choice, "Space Colony Cheeses")
    while start.player_count > 2:
        ui.tap(ui.button("-"))
    for row, name in zip(start.ids.players.children[::-1], ("Ann", "Bob")):
        row.name_input.text = name
    ui.tap(start.ids.start_button)
    assert app.root.current == "play" and app.session.players == ("Ann", "Bob")
    assert app.session.game.name == "space-colony-cheeses"
    play = app.screen("play")
    panel = play.board
    assert panel is not None and play.ids.view.parent is panel.camera_slot.__self__

    counts: Counter = Counter()
    shots: set = set()

    def shot(name: str) -> None:
        if name not in shots:
            shots.add(name)
            ui.screenshot(f"space-colony-{name}")

    while app.root.current != "summary":
        state = app.state
        check_screen(panel, state)
        try_illegal_taps(ui, app, panel, counts)
        request = state.dice_to_roll()
        if request is not None:
            assert panel.page == "turn"
            if state.stage == "prices":
                shot("roll-order")
            events = [p["event"] for p in panel.view["players"]]
            if any(e and e["default"] for e in events):
                shot("event")
            dice = state.random_roll(table)
            entries = len(app.session.history())
            by_keypad = state.stage not in ("first_player", "cure")
            if state.stage == "prices" and "keypad" not in shots:
                ui.tap(play.keypad_button)
                for die in dice[:5]:
                    ui.tap(next(b for b in play.keypad.content.walk() if getattr(b, "text", None) == str(die.value)
                                and b.font_size > 30))
                shot("keypad")
                ui.tap(ui.button("Cancel", root=play.keypad))
            enter_roll(ui, app, dice, by_keypad)
            roll = next(e for e in reversed(app.session.history()) if e["kind"] == "roll")
            assert [d["value"] for d in roll["dice"]] == [d.value for d in dice], app.notice
            assert len(app.session.history()) > entries
            counts["rolls by keypad" if by_keypad else "rolls by +"] += 1
            continue
        move = choose_move(state, table, counts)
        page = panel._page_for_step(panel.view)
        assert panel.page == page, (panel.page, page)
        if move.kind == "build" and state.turn >= 4 and "map-building" not in shots:
            ui.tap(panel.controls["module"])
            shot("module-choice")
            ui.tap(panel.module_buttons[panel.view["module_keys"][move.get("module")]])
            assert panel.ids.map.cells[move.get("space")].marked
            shot("map-building")
        if move.kind == "allocate":
            ui.tap(panel.controls["allocate"])
            shot("production")
            ui.tap(ui.button("Cancel", root=panel.amounts_popup))
        entries = len(app.session.history())
        tap_move(ui, panel, move)
        assert not app.notice, app.notice
        assert len(app.session.history()) > entries, f"the tap made no move: {move}"
        assert app.session.history()[-1]["kind"] in ("move", "finished")
        assert app.session.history()[-1]["move"]["kind"] == move.kind
        counts[move.kind] += 1
        if move.kind == "turn_off" and app.state.stage == "energy":
            shot("energy")
        if app.state.stage in ("sales", "lawsuit") and app.state.turn >= 5 and app.state.dice_to_roll() is None:
            ui.tap(panel.tabs["sheets"])
            shot("sheets")
            ui.tap(panel.tabs["key"])
            shot("key")
            ui.tap(panel.tabs[panel._page_for_step(panel.view) or "sheets"])

    state = app.state
    assert state.is_terminal() and state.turn == 15
    summary = app.screen("summary")
    shown = " ".join(texts_of(summary))
    for winner in state.winners():
        assert winner in summary.ids.winner.text
    for player, money in state.scores().items():
        assert player in shown and str(money) in shown
    ui.pump(10)                      # the summary's chart lays itself out over a few frames
    shot("game-over")
    for kind in ("build", "end_build", "turn_off", "allocate", "gift_boxes", "sell", "sue", "relocate"):
        assert counts[kind], (kind, dict(counts))
    for refusal in ("not connected", "storage away", "energy plant off", "over storage", "map while rolling"):
        assert counts[refusal], (refusal, dict(counts))
    assert counts["rolls by keypad"] and counts["rolls by +"]
    assert shots >= {"map-building", "module-choice", "sheets", "roll-order", "keypad", "energy", "event",
                     "production", "key", "game-over"}, shots
    print(f"Space Colony Cheeses by touch: {dict(counts)}, {state.scores()}, "
          f"{time.monotonic() - started:.0f} s")
