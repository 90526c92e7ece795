"""A whole solo Dicey Farm game (8 rounds) played through the real app by touch, on its board panel.

The test is the farmer: it rolls each round's dice with a seeded generator and enters them
by touch, rounds 1-4 the way the app takes dice the camera did not read ("+", the value,
"Use dice"; the request names no colours), rounds 5-8 on the roll keypad.  Then it plays
every die by tapping it and an action on the panel (the Actions page, a merchant's slot, a
craftsman for hire, a facility), steps through half-done actions (sowing seed by seed, a
shipment one sale at a time, recruit's choice), cooks in the Kitchen, and ends each round.
After every step it checks that the panel shows what ``board_view()`` and ``legal_moves()``
say; illegal taps (ending the round with a die unused, a third plow, fishing twice, an
action before a die) each give one line and change nothing.  Other tests: a table of two
farmers, and a Daily Mode game whose dice come by themselves.
"""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

import random
import re
import time
from collections import Counter

from test_ui_harness import UiDriver, kivy_window, ui  # noqa: F401  (fixtures)

from companion.engine import Move
from ui.dicey_farm_panel import PAGES

GAME_SEED = 7          # the craftsman deck and the merchants' slots
DICE_SEED = 14         # the dice rolled
FARMER_SEED = 1        # the test's own choices (which craftsmen recruit keeps)
MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")
MACHINE_WORDS = ("_", "None", "[]", "{", "#", "end_round", "night_watchman", "bread_oven")
DIE_PAGE = {"merchant": "market", "contract": "craftsmen", "build": "build"}
STEPS = ("plant", "sell", "deliver", "bake", "keep", "stop")


def shown_labels(root) -> list:
    from kivy.uix.label import Label

    return [w for w in root.walk(restrict=True)
            if isinstance(w, Label) and w.text and w.opacity > 0 and w.get_root_window()]


def plain(widget) -> str:
    return MARKUP.sub("", widget.text)


def check_screen(panel, state) -> None:
    """The panel shows what the state's views say, on its top row and on the page open, in
    player words at 18 px or more."""
    view = state.board_view()
    farm = view["farms"][panel.seat]
    in_hand = [d["face"] for d in farm["dice"] if not d["used"]]
    assert [die.face for die in panel.die_buttons] == in_hand
    assert [die.text for die in panel.die_buttons] == [str(face) for face in in_hand]
    if view["stage"] == "over":
        assert f"{farm['vp']} VP" in panel.status_text
    elif state.dice_to_roll() is not None:
        assert panel.status_text.startswith(f"Round {view['round']}: roll {view['dice_due']} dice")
    else:
        assert f"Round {view['round']} of 8" in panel.status_text and f"{farm['vp']} VP" in panel.status_text
        assert farm["upkeep"]["text"] in plain(panel.ids.upkeep)
    legal = state.legal_moves() if panel.acts_here() else []
    page = panel.page
    assert panel.pages[page].get_root_window() is not None
    if page == "farm":
        assert [t.holds for t in panel.field_tiles] == [f["holds"] for f in farm["fields"]]
        assert all(f["label"] in plain(t) for t, f in zip(panel.field_tiles, farm["fields"]))
        lines = " ".join(plain(label) for label in panel.farm_lines)
        assert f"Food {farm['food']}" in lines and f"Begging counters: {farm['begging']}" in lines
        assert all(f"{name} {count}" in lines for name, count in {**farm["goods"], **farm["animals"]}.items())
    elif page == "market":
        assert len(panel.slot_buttons) == 6 * len(view["merchants"])
        for merchant in view["merchants"]:
            for slot in merchant["slots"]:
                button = panel.slot_buttons[(merchant["id"], slot["face"])]
                assert plain(button) == f"{slot['face']}: {slot['goods']}"
    elif page == "craftsmen":
        assert list(panel.hire_buttons) == [c["id"] for c in farm["row"]]
        assert all(c["name"] in plain(b).lower() and c["effect"] in plain(b)
                   for c, b in zip(farm["row"], panel.hire_buttons.values()))
        assert [plain(label) for label in panel.contracted_labels] == \
            [f"{c['name'][:1].upper()}{c['name'][1:]}: {c['effect']}" for c in farm["contracted"]]
    elif page == "build":
        assert list(panel.build_buttons) == [f["id"] for f in farm["to_build"]]
        assert [plain(label).split(":")[0].lower() for label in panel.built_labels] == \
            [f["name"] for f in farm["facilities"]]
    elif page == "kitchen":
        assert Counter(b.move for b in panel.kitchen_buttons) == \
            Counter(m for m in legal if m.kind in ("convert", "cook"))
    elif farm["half_done"] and panel.acts_here():
        assert farm["half_done"] in plain(panel.half_done_label).lower()
        assert Counter(b.move for b in panel.step_buttons) == Counter(legal)
    elif panel.choosing is None and view["stage"] == "act":
        used = [f"{d['face']} {d['action']}" for d in farm["dice"] if d["used"]]
        assert all(u in plain(panel.used_label) for u in used)
    for label in shown_labels(panel):
        assert label.font_size >= 18, (label.text, label.font_size)
        assert not any(word in plain(label) for word in MACHINE_WORDS), label.text


def check_every_page(ui: UiDriver, panel, state) -> None:
    """Each page opened by touch shows what the state says."""
    for page, _title in PAGES:
        open_page(ui, panel, page)
        check_screen(panel, state)


def choose_move(state, rng: random.Random, counts: Counter) -> Move:
    """The test's farmer: the game's own advice, except that it plows twice with a pair once (to
    try a third plow), contracts a craftsman as soon as it can and recruits from round 3, once each."""
    legal = state.legal_moves()
    farm = state.farm
    if not farm.pending:
        pairs = [face for face in set(farm.pool) if farm.pool.count(face) >= 2 and len(farm.pool) >= 3]
        plows = [m for m in legal if m.kind == "plow" and (m["die"] in pairs or m["die"] == farm.plow_face)]
        if not counts["third plow"] and plows and (farm.plow_uses == 1 or pairs):
            return plows[0]
        contracts = sorted((m for m in legal if m.kind == "contract"), key=lambda m: m["die"])
        if not counts["contract"] and contracts:
            return contracts[0]
        recruits = [m for m in legal if m.kind == "recruit"]
        if not counts["recruit"] and recruits and state.round >= 3:
            return rng.choice(recruits)
    return state.game.best_move(state)


def tap_die(ui: UiDriver, panel, face: int) -> None:
    if panel.chosen_face != face:
        ui.tap(next(d for d in panel.die_buttons if d.face == face))
    assert panel.chosen_face == face


def open_page(ui: UiDriver, panel, page: str) -> None:
    if panel.page != page:
        ui.tap(panel.page_buttons[page])
    assert panel.page == page and panel.pages[page].get_root_window() is not None


def tap_move(ui: UiDriver, panel, move: Move, counts: Counter) -> None:
    """Make ``move`` by touch on the panel: a die, then its action; a step; a dish."""
    kind = move.kind
    if kind in STEPS:
        open_page(ui, panel, "actions")
        ui.tap(next(b for b in panel.step_buttons if b.move == move))
    elif kind in ("convert", "cook"):
        open_page(ui, panel, "kitchen")
        ui.tap(next(b for b in panel.kitchen_buttons if b.move == move))
    elif kind in ("end_round", "horse_ship"):
        open_page(ui, panel, "actions")
        ui.tap(panel.action_buttons[kind])
    else:
        tap_die(ui, panel, move["die"])
        page = DIE_PAGE.get(kind, "actions")
        open_page(ui, panel, page)
        if kind == "merchant":
            ui.tap(panel.slot_buttons[(move["merchant"], move["die"])])
        elif kind == "contract":
            ui.tap(panel.hire_buttons[move["craftsman"]])
        elif kind == "build":
            ui.tap(panel.build_buttons[move["facility"]])
        else:
            ui.tap(panel.action_buttons[kind])
            if panel.choosing is not None:             # the action asks which (tourism's VP, the animal ...)
                assert Counter(b.move for b in panel.choice_buttons) == Counter(
                    m for m in panel.state.legal_moves() if m.kind == kind and m.get("die") == move["die"])
                counts["choices"] += 1
                if "choice" not in counts:
                    counts["choice"] = 1
                    ui.screenshot("dicey-farm-choice")
                ui.tap(next(b for b in panel.choice_buttons if b.move == move))


def enter_dice(ui: UiDriver, app, values, shot: str | None = None) -> None:
    """The round's dice entered by touch: "+", the value (the request names no colour); "Use dice"."""
    play = app.screen("play")
    for value in values:
        ui.tap(play.ids.chips.children[-1])
        ui.tap(ui.button(str(value), root=play.die_popup))
        ui.wait(lambda: play.die_popup.parent is None, what="the die popup to close")
    assert [d.value for d in app.reading] == list(values)
    if shot:
        ui.screenshot(shot)
    ui.tap(play.ids.accept_button)


def type_dice(ui: UiDriver, app, values) -> None:
    """The round's dice typed on the roll keypad: one tap per die, then "Use dice"."""
    play = app.screen("play")
    ui.tap(play.keypad_button)
    keypad = play.keypad
    keys = {b.text: b for b in ui.buttons(keypad) if b.text in {"1", "2", "3", "4", "5", "6"} and b.parent
            is not keypad.slots}
    for value in values:
        ui.tap(keys[str(value)])
    ui.tap(ui.button("Use dice", root=keypad))
    assert keypad.parent is None, app.notice


def assert_refused(ui: UiDriver, app, tap) -> str:
    """``tap`` is refused in one line and changes nothing; the line."""
    before, events = app.state.to_json(), len(app.session.history())
    tap()
    assert app.notice and "\n" not in app.notice and len(app.notice) < 200, app.notice
    assert app.state.to_json() == before and len(app.session.history()) == events
    ui.pump(2)
    return app.notice


def try_illegal_taps(ui: UiDriver, app, panel, counts: Counter) -> None:
    """Each kind of illegal tap once, when the farm allows it; each one refused in one line."""
    state = app.state
    farm = state.board_view()["farms"][0]
    in_hand = [d["face"] for d in farm["dice"] if not d["used"]]
    if not in_hand or farm["half_done"] or panel.choosing is not None:
        return
    if not counts["end round early"]:
        open_page(ui, panel, "actions")
        line = assert_refused(ui, app, lambda: ui.tap(panel.action_buttons["end_round"]))
        assert "every die is used" in line
        counts["end round early"] += 1
    if len(set(in_hand)) > 1 and not panel.chosen_face and not counts["no die chosen"]:
        open_page(ui, panel, "actions")
        line = assert_refused(ui, app, lambda: ui.tap(panel.action_buttons["fishing"]))
        assert "tap a die" in line
        counts["no die chosen"] += 1
    if farm["actions_used"].count("plow") == 2 and not counts["third plow"]:
        line = assert_refused(ui, app, lambda: tap_move(ui, panel, Move.make("plow", die=in_hand[0]), counts))
        assert "plow" in line and "twice" in line
        counts["third plow"] += 1
    if "fishing" in farm["actions_used"] and not counts["fishing twice"]:
        line = assert_refused(ui, app, lambda: tap_move(ui, panel, Move.make("fishing", die=in_hand[-1]), counts))
        assert "fishing" in line
        counts["fishing twice"] += 1


def test_a_whole_solo_dicey_farm_game_by_touch(ui):
    started = time.monotonic()
    app = ui.launch(camera="sim", seed=GAME_SEED)
    dice, farmer = random.Random(DICE_SEED), random.Random(FARMER_SEED)
    start = app.screen("start")
    ui.choose(start.ids.game_choice, "Dicey Farm")
    while start.player_count > 1:
        ui.tap(ui.button("-"))
    ui.tap(start.ids.start_button)
    assert app.root.current == "play" and len(app.session.players) == 1
    play = app.screen("play")
    panel = play.board
    assert panel is not None and play.ids.view.parent in panel.camera_slot.walk()

    counts: Counter = Counter()
    shots: set = set()
    while app.root.current != "summary":
        state = app.state
        check_screen(panel, state)
        request = state.dice_to_roll()
        if request is not None:
            assert panel.camera_slot.width > 100 and play.ids.view.get_root_window() is not None
            assert request.colours == (None,) * request.count
            values = [dice.randint(1, 6) for _ in range(request.count)]
            if state.round <= 4:                   # "+" and the die popup, then the keypad
                enter_dice(ui, app, values, shot="dicey-farm-round-start" if state.round == 1 else None)
            else:
                type_dice(ui, app, values)
            assert app.session.history()[-1]["kind"] == "roll", app.notice
            assert [d.face for d in panel.die_buttons] == sorted(app.state.dice)
            assert panel.camera_slot.width == 0
            check_every_page(ui, panel, app.state)
            counts["rolls"] += 1
            continue
        try_illegal_taps(ui, app, panel, counts)
        move = choose_move(app.state, farmer, counts)
        if state.round == 2 and not counts["advice"]:          # the advice's popup names the move chosen
            ui.tap(panel.ids.advice_button)
            texts = [plain(b) for b in panel.advice_popup.content.children[::-1]]
            best = state.game.advise(state)[0]
            assert texts[0].startswith(best.text[:1].upper() + best.text[1:]) and best.reason in texts[0]
            ui.screenshot("dicey-farm-advice")
            ui.tap(ui.button("Back", root=panel.advice_popup))
            assert app.state is state
            counts["advice"] += 1
        if move.kind == "end_round" and app.state.farm.goods["food"] < app.state.board_view()["farms"][0][
                "upkeep"]["need"] and "upkeep" not in shots:
            open_page(ui, panel, "farm")
            assert "begging counter" in play.banner_text and "begging counter" in plain(panel.ids.upkeep)
            shots.add("upkeep")
            ui.screenshot("dicey-farm-upkeep")
        if move.kind not in STEPS and move.kind not in ("end_round", "convert", "cook") and "dice" not in shots \
                and len(app.state.farm.pool) >= 3:
            tap_die(ui, panel, move["die"])
            open_page(ui, panel, "actions")
            shots.add("dice")
            ui.screenshot("dicey-farm-dice-in-hand")
        if move.kind in ("convert", "cook") and "kitchen" not in shots:
            open_page(ui, panel, "kitchen")
            shots.add("kitchen")
            ui.screenshot("dicey-farm-kitchen")
        if move.kind == "keep" and "recruit" not in shots:
            shots.add("recruit")
            ui.screenshot("dicey-farm-recruit")
        tap_move(ui, panel, move, counts)
        assert not app.notice, app.notice
        assert app.session.history()[-1]["kind"] in ("move", "finished"), app.notice
        assert app.session.history()[-1].get("move", {}).get("kind") in (move.kind, None)
        counts[move.kind] += 1
        farm = app.state.board_view()["farms"][0]
        if farm["half_done"] and "ship" in farm["half_done"] and "half-done" not in shots:
            shots.add("half-done")
            ui.screenshot("dicey-farm-half-done")
        for page, kind in (("market", "merchant"), ("craftsmen", "contract"), ("build", "build")):
            if counts[kind] and page not in shots and app.state.stage == "act" and not farm["half_done"]:
                open_page(ui, panel, page)
                shots.add(page)
                ui.screenshot(f"dicey-farm-{page}")

    state = app.state
    assert state.is_terminal() and state.round == 8 and counts["rolls"] == 8 and counts["end_round"] == 8
    assert counts["plant"] and counts["sell"] and counts["keep"] and counts["choices"]
    assert counts["merchant"] and counts["contract"] and counts["cook"] + counts["convert"]
    assert counts["end round early"] and counts["no die chosen"] and counts["third plow"] and counts["fishing twice"]
    assert {"upkeep", "dice", "half-done", "market", "craftsmen", "kitchen", "recruit"} <= shots
    summary = app.screen("summary")
    score = state.scores()[state.players[0]]
    assert f"{score} points" in summary.ids.winner.text and summary.ids.chart.sources
    ui.screenshot("dicey-farm-game-over")
    ui.tap(ui.button("History"))                                  # back to the table: the final farm
    ui.tap(ui.button("Play"))
    assert app.root.current == "play"
    check_every_page(ui, panel, state)
    open_page(ui, panel, "farm")
    lines = [plain(label) for label in panel.farm_lines]
    assert f"Final score {score} VP" in lines
    for source, points in state.score_breakdown()[state.players[0]].items():
        assert f"{source[:1].upper()}{source[1:]}: {points}" in lines
    ui.screenshot("dicey-farm-final-score")
    print(f"Dicey Farm by touch: {dict(counts)}, {score} VP, {time.monotonic() - started:.0f} s")


def test_daily_mode_deals_the_days_dice_without_a_roll(ui):
    app = ui.launch(camera="sim")
    assert app.start_game("dicey-farm", ["Ann"], {"daily": "2026-11-25"})
    panel = app.screen("play").board
    state = app.state
    assert state.dice_to_roll() is None and state.stage == "act"
    check_screen(panel, state)
    assert [d.face for d in panel.die_buttons] == sorted(state.dice) and panel.camera_slot.width == 0
    for face in sorted(state.dice):          # round 1 by touch: fish, then a merchant's slot
        fishing = Move.make("fishing", die=face)
        tap_move(ui, panel, fishing if fishing in app.state.legal_moves() else
                 Move.make("merchant", die=face, merchant="merchant"), Counter())
        assert not app.notice, app.notice
        check_screen(panel, app.state)
    tap_move(ui, panel, Move.make("end_round"), Counter())
    assert app.state.round == 2 and app.state.stage == "act"       # the next day's dice came by themselves
    check_screen(panel, app.state)


def test_two_farmers_see_each_others_farm_and_only_the_acting_one_plays(ui):
    app = ui.launch(camera="sim", seed=GAME_SEED)
    assert app.start_game("dicey-farm", ["Ann", "Bob"], {})
    panel = app.screen("play").board
    enter_dice(ui, app, [2, 5])
    assert [plain(b) for b in panel.farmer_buttons] == ["Ann", "Bob"] and panel.seat == 0
    assert "Ann acts" in panel.status_text
    check_screen(panel, app.state)
    ui.tap(panel.farmer_buttons[1])                                 # Bob's farm, while Ann acts
    assert panel.seat == 1 and panel.farmer_buttons[1].state == "down"
    check_screen(panel, app.state)
    line = assert_refused(ui, app, lambda: ui.tap(panel.die_buttons[0]))
    assert "Bob's farm is shown" in line and "Ann" in line
    ui.screenshot("dicey-farm-table")
    ui.tap(panel.farmer_buttons[0])
    for move in (Move.make("fishing", die=2), Move.make("merchant", die=5, merchant="merchant"),
                 Move.make("end_round")):
        tap_move(ui, panel, move, Counter())
        assert not app.notice, app.notice
        check_screen(panel, app.state)
    assert app.state.current_player == "Bob" and panel.seat == 1 and "Bob acts" in panel.status_text
    assert [d.face for d in panel.die_buttons] == [2, 5]            # the same roll, Bob's own farm
    ui.tap(panel.farmer_buttons[0])
    assert panel.view["farms"][0]["finished"]
    check_screen(panel, app.state)
