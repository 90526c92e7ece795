"""A whole two-player DYCE game played through the real app by touch, on the DYCE board panel.

The test is the table: it draws each die from a seeded bag (the engine's own draw, so the
colours are ones the bag holds) and enters it the way the app takes a die the camera did
not read, by touch ("+", the colour, the value, "Use dice").  It plays the player round by
tapping the panel: a mode (shop, whisky and its colour, pound) and a space of the city, or
a stop button.  After every step it checks that the panel shows what the state says, and
it steps through every baron's move and every drawn die the panel tells.  Illegal taps
(a shop on a baron or on a shop, a whisky at the other player's shop, ending a turn with no
action, a die of a colour the bag no longer holds) each give one line and change nothing.
"""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

import gc
import random
import re
import time
from collections import Counter

from test_ui_harness import UiDriver, assert_refused, enter_dice, kivy_window, ui  # noqa: F401  (fixtures)

from companion.engine import Die, Move
from companion.games import dairyman_advice, get_game
from companion.simulate import play_game
from ui.board_panels import PLAYER_RGBA
from ui.widgets import colour_rgba

GAME_SEED = 5          # the start cubes
TABLE_SEED = 11        # the dice drawn from the bag and the players' choices
MARKET_BATCH = 5       # set-up dice entered in one roll (the rules allow several at once)
MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")
MACHINE_WORDS = ("_", "None", "[]", "{", "#", "take_pound", "end_turn")


def visible_texts(root) -> list[str]:
    """The text of every label and button shown under ``root``, markup removed."""
    from kivy.uix.label import Label

    return [MARKUP.sub("", w.text) for w in root.walk(restrict=True)
            if isinstance(w, Label) and w.text and w.opacity > 0 and w.get_root_window()]


def check_screen(panel, state) -> None:
    """The panel shows what the state's views say: city, market, turn and hands, in player words."""
    city, market, turn = state.city_view(), state.market_view(), state.turn_view()
    walked = panel.walked_barons()
    for view in city["cells"]:
        cell = panel.ids.city.cells[view["space"]]
        shop = view["shop"]
        if view["castle"]:
            assert str(market["white_die"]) in cell.text
        elif shop:
            assert tuple(cell.background_color) == PLAYER_RGBA[state.players.index(shop["owner"])]
            assert cell.whisky == (shop["whisky"] or "")
            assert (f"£{shop['pounds']}" in cell.text) == bool(shop["pounds"]), (cell.text, shop)
        else:
            assert cell.text == view["space"] and not cell.whisky
        if walked is None:
            assert sorted(cell.barons) == sorted(view["barons"]), view["space"]
    for line, row in zip(market["lines"], panel.ids.market_lines.children[::-1]):
        label, chips = row.children[-1], row.children[-2::-1]
        assert label.text.lower() == line["baron"]
        shown = [(c.colour_name, c.text) for c in chips if c.text]
        assert shown == [(d["colour"], str(d["value"])) for d in line["dice"]]
        assert all(tuple(c.rgba) == colour_rgba(c.colour_name) for c in chips if c.text)
    if turn["stage"] == "actions":
        assert turn["player"] in panel.turn_text and str(turn["actions_left"]) in panel.turn_text
    hands = [w for row in panel.ids.hands.children for w in row.children if hasattr(w, "player")]
    for hand in turn["hands"]:
        text = next(MARKUP.sub("", w.text) for w in hands if w.player == hand["player"])
        assert f"£{hand['pounds']}" in text and f"{hand['vps']} VP" in text
        assert f"{state.scores()[hand['player']]} points" in text
    for text in visible_texts(panel):
        assert not any(word in text for word in MACHINE_WORDS), text


def choose_move(state, rng: random.Random) -> Move:
    """The test's own player: whiskies and shops mostly, stopping after two turns a round."""
    legal = state.legal_moves()
    stops = [m for m in legal if m.kind in ("pass", "take_pound", "end_turn")]
    if state.actions == 0 and state.turns[state.turn_seat] >= 2 and stops:
        return stops[0]
    whiskies = [m for m in legal if m.kind == "whisky"]
    shops = [m for m in legal if m.kind == "shop"]
    pounds = [m for m in legal if m.kind == "pound"]
    pool = whiskies or shops or pounds
    if pool and (rng.random() < 0.8 or not stops):
        return rng.choice(pool)
    return stops[0]


def tap_move(ui: UiDriver, panel, move: Move) -> None:
    """Make ``move`` by touch on the panel."""
    if move.kind == "take_cube":
        ui.tap(ui.button(f"Take {move['colour']}", root=panel))
    elif move.kind in panel.stop_buttons:
        ui.tap(panel.stop_buttons[move.kind])
    else:
        ui.tap(panel.mode_buttons[move.kind])
        if move.kind == "whisky":
            ui.tap(panel.whisky_buttons[move["colour"]])
        ui.tap(panel.ids.city.cells[move["space"]])



def step_through_story(ui: UiDriver, app, panel, shots: dict) -> int:
    """Tap "Next" through every baron move and drawn die not yet seen; the texts are the engine's."""
    reports = [r["text"] for r in app.state.turn_view()["baron_round"]]
    steps = 0
    while True:
        entry = panel.story[panel.step]
        assert panel.news_text == entry["text"]
        if entry["report"] is not None:
            assert entry["report"]["text"] in reports
            assert panel.step_text.startswith("Barons ")
            report = entry["report"]
            if report["to"] is not None:
                assert panel.ids.city.cells[report["to"]].highlight
            if report["from"] != report["to"] and panel.can_step_next and "baron-step" not in shots:
                ui.wait(lambda: panel.ids.city.progress >= 1.0, what="the baron's walk")
                shots["baron-step"] = ui.screenshot("dyce-baron-step")
        else:
            assert entry["die"]["text"].lower() == entry["text"].lower()
            assert "goes to the" in entry["text"] and (" turned to " in entry["text"] or " showing " in entry["text"])
        check_screen(panel, app.state)
        if not panel.can_step_next:
            return steps
        ui.tap(panel.ids.step_next)
        steps += 1


def test_a_whole_dyce_game_by_touch(ui):
    started = time.monotonic()
    app = ui.launch(camera="sim", seed=GAME_SEED)
    table = random.Random(TABLE_SEED)
    start = app.screen("start")
    ui.choose(start.ids.game_choice, "DYCE")
    while start.player_count < 2:
        ui.tap(ui.button("+"))
    for row, name in zip(start.ids.players.children[::-1], ("Ann", "Bob")):
        row.name_input.text = name
    ui.tap(start.ids.start_button)
    assert app.root.current == "play" and app.session.players == ("Ann", "Bob")
    play = app.screen("play")
    panel = play.board
    assert panel is not None and play.ids.view.parent in panel.camera_slot.walk()

    counts: Counter = Counter()
    shots: dict = {}
    while app.root.current != "summary":
        state = app.state
        check_screen(panel, state)
        counts["story steps"] += step_through_story(ui, app, panel, shots) if panel.story else 0
        request = state.dice_to_roll()
        if request is not None:
            assert panel.camera_slot.opacity == 1 and panel.camera_slot.height > 100 and play.ids.view.get_root_window() is not None
            dice = state.random_roll(table)[:MARKET_BATCH]
            if state.stage == "draw" and not counts["bad colour"]:
                empty = next((c for c in state.rules.whiskies if not state.bag()[c]), "white")
                assert_refused(ui, app, lambda c=empty: enter_dice(ui, app, [Die(3, c)]))
                assert "bag" in app.notice
                ui.tap(play.ids.chips.children[-2])                      # the refused die: remove it
                ui.tap(ui.button("Not a die: remove", root=play.die_popup))
                counts["bad colour"] += 1
            enter_dice(ui, app, dice)
            assert app.session.history()[-1]["kind"] in ("roll", "finished"), app.notice
            counts["rolls"] += 1
            if state.stage == "draw" and app.state.stage != "over" and "drawn-die" not in shots \
                    and panel.story[panel.step]["die"] is not None:
                shots["drawn-die"] = ui.screenshot("dyce-drawn-die")
            continue
        if state.stage == "actions":
            assert panel.camera_slot.opacity == 0
            assert panel.ids.controls.y >= panel.ids.hands.top - 1, "the buttons do not fit the column"
            assert panel.ids.controls.top <= panel.ids.hint_button.y + 1, "the buttons overlap the advice"
            try_illegal_taps(ui, app, panel, counts)
            if state.round == 2 and not counts["advice"]:
                ui.tap(panel.ids.hint_button)                           # the advice's best move, by touch
                best = state.game.advise(state)[0]
                assert sentence_of(best.text) in panel.hint_popup.content.children[-1].text
                ui.tap(panel.hint_popup.content.children[-1])
                assert app.session.history()[-1]["move"]["kind"] == best.move.kind
                counts["advice"] += 1
                continue
            if "city" not in shots and len(state.shops) >= 3 and any(s[2] for s in state.shops):
                shots["city"] = ui.screenshot("dyce-city-market")
        move = choose_move(state, table) if state.stage == "actions" else state.legal_moves()[0]
        tap_move(ui, panel, move)
        assert app.session.history()[-1]["kind"] in ("move", "finished"), app.notice
        assert not app.notice, app.notice
        counts["moves"] += 1

    state = app.state
    assert state.is_terminal() and state.ended_by == "round_die"
    assert counts["bad colour"] and counts["advice"] and counts["story steps"]
    assert counts["shop on a baron"] and counts["shop on a shop"] and counts["whisky at another's shop"]
    assert counts["end turn with no action"]
    assert set(shots) == {"city", "baron-step", "drawn-die"}
    summary = app.screen("summary")
    assert all(w in summary.ids.winner.text for w in state.winners())
    print(f"DYCE by touch: {dict(counts)}, round {state.round}, {time.monotonic() - started:.0f} s")


def sentence_of(text: str) -> str:
    return text[:1].upper() + text[1:]


def try_illegal_taps(ui: UiDriver, app, panel, counts: Counter) -> None:
    """Each kind of illegal tap once, when the city allows it; each one refused in one line."""
    state = app.state
    seat = state.turn_seat
    barons = [b["space"] for b in state.city_view()["barons"] if b["space"]]
    if barons and state.shops_in_hand[seat] and state.pounds[seat] and not counts["shop on a baron"]:
        assert_refused(ui, app, lambda: tap_move(ui, panel, Move.make("shop", space=barons[0])))
        counts["shop on a baron"] += 1
    shops = [s["space"] for s in state.to_json()["shops"] if s["space"] not in barons]
    if shops and not counts["shop on a shop"] and state.shops_in_hand[seat] and state.pounds[seat]:
        assert_refused(ui, app, lambda: tap_move(ui, panel, Move.make("shop", space=shops[0])))
        counts["shop on a shop"] += 1
    others = [s["space"] for s in state.to_json()["shops"] if s["owner"] != state.current_player]
    if others and not counts["whisky at another's shop"]:
        assert_refused(ui, app, lambda: tap_move(ui, panel, Move.make("whisky", space=others[0], colour="blue")))
        counts["whisky at another's shop"] += 1
    if state.actions == 0 and not counts["end turn with no action"]:
        assert_refused(ui, app, lambda: ui.tap(panel.stop_buttons["end_turn"]))
        counts["end turn with no action"] += 1


def test_the_reader_names_only_the_colours_of_dyces_box_in_a_dyce_game(ui):
    app = ui.launch(camera="sim")
    assert app.palette is None                       # no game yet: the reader's whole default palette
    assert app.start_game("dyce", ["Ann", "Bob"], {})
    assert {c.name for c in app.palette.colours} == {"white", "blue", "red", "yellow", "green", "orange",
                                                      "purple", "black"}
    play_game(get_game("dairyman"), ("Ann", "Bob"), seed=4)     # the advice remembers a game's positions
    gc.collect()                                     # the play screen's own widgets must outlive the DYCE panel
    assert app.start_game("dairyman", ["Ann", "Bob"], {})
    assert app.palette is None                       # Dairyman's box does not fix the colours
    assert all(c.cache_info().currsize == 0 for c in dairyman_advice.POSITION_CACHES)  # forgotten at the start


def test_the_simulated_camera_throws_dice_drawn_from_the_bag(ui):
    app = ui.launch(camera="sim", seed=GAME_SEED)
    assert app.start_game("dyce", ["Ann", "Bob"], {})
    while app.state.dice_to_roll() is None:          # the start cubes
        assert app.play(app.state.legal_moves()[0])
    state, source = app.state, app.grabber.source
    throws = source.throws
    assert app.throw_dice()
    ui.wait(lambda: source.throws > throws and not source.rolling, what="the dice to come to rest")
    thrown = Counter(d.colour for d in source.truth)
    assert sum(thrown.values()) == state.dice_to_roll().count
    assert not thrown - state.bag()                  # only colours the bag holds, never the white round die
    shown, done = app.grabber.count, app.readings_done
    ui.wait(lambda: app.grabber.count >= shown + 2, what="a picture of the resting dice")
    assert app.read_dice()
    ui.wait(lambda: app.readings_done > done, timeout=60, what="the reading")
    assert app.reading and {d.colour for d in app.reading} <= set(app.state.game.dice_colours)
