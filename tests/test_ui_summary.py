"""The end of a game on screen: places, points by source with penalties, length, rematch."""
# ruff: noqa: F811  (pytest fixtures imported from the harness and taken as arguments)
from __future__ import annotations

import re

from test_ui_harness import kivy_window, ui  # noqa: F401  (fixtures)

from companion.session import SessionStore

MARKUP = re.compile(r"\[/?[a-z]+(=[^\]]*)?\]")


def finished_dairyman(players, seed: int) -> int:
    """A Dairyman game played to its end by the advice, in the app's store; its id."""
    with SessionStore() as store:
        session = store.new_session("dairyman", players, {"freeze_tokens": 10}, seed=seed)
        while not session.finished:
            if session.state.dice_to_roll() is not None:
                session.random_roll()
            else:
                session.play(session.game.best_move(session.state))
        return session.id


def test_places_points_by_source_length_and_a_rematch(ui):
    from ui.summary_screen import places

    assert places(["Bob"], {"Ann": 5, "Bob": 9, "Cy": 5, "Di": 7}) == [(0, "Bob"), (1, "Di"), (2, "Ann"), (2, "Cy")]
    assert places(["Ann", "Cy"], {"Ann": 5, "Bob": 1, "Cy": 5}) == [(0, "Ann"), (0, "Cy"), (2, "Bob")]

    players = ["Maximilian Alexandersson", "Bo", "Cecilia Montgomery-Smyth", "Di"]
    finished_dairyman(players, seed=3)
    app = ui.launch(camera="sim")
    app.session = app.store.latest()
    app._changed()
    ui.pump(3)
    assert app.root.current == "summary"
    summary = app.screen("summary")
    state = app.state
    scores, winners = state.scores(), state.winners()
    rows = summary.ids.places.children[::-1]
    assert len(rows) == 4
    shown = [[MARKUP.sub("", w.text) for w in row.children[::-1] if hasattr(w, "text")] for row in rows]
    assert shown[0][0] == "1st" and any(winners[0] in text for text in shown[0])
    order = [next(p for p in players if any(text.startswith(p) for text in row)) for row in shown]
    assert set(order) == set(players)
    losers = [p for p in order if p not in winners]
    assert [scores[p] for p in losers] == sorted((scores[p] for p in losers), reverse=True)
    for row, player in zip(shown, order):
        assert str(scores[player]) in row
        for source, value in state.score_breakdown()[player].items():
            if value < 0:
                assert f"{source.replace('_', ' ')} \u2212{-value}" in " ".join(row)
    history = app.session.history()
    rolls = sum(e["kind"] == "roll" and not e.get("undone") for e in history)
    assert f"{rolls} rolls and " in summary.length_text
    ui.screenshot("summary-4-players")

    finished_id = app.session.id
    ui.tap(summary.ids.rematch)
    assert app.root.current == "play" and app.session.id != finished_id
    assert list(app.session.players) == players and app.session.game.name == "dairyman"
    assert app.session.options["freeze_tokens"] == 10 and not app.session.finished


def test_scoreboard_names_in_full_the_current_player_marked_and_scores_over_time(ui):
    players = ["Maximilian Alexandersson", "Bo", "Cecilia Montgomery-Smyth", "Di"]
    with SessionStore() as store:
        session = store.new_session("dairyman", players, seed=5)
        while session.actions < 40:
            if session.state.dice_to_roll() is not None:
                session.random_roll()
            else:
                session.play(session.game.best_move(session.state))
    app = ui.launch(camera="sim")
    ui.tap(app.screen("start").ids.resume)
    ui.tap(ui.button("Scores"))
    board = app.screen("scoreboard")
    cells = board.ids.table.children[::-1]
    texts = [c.text for c in cells]
    assert "*" not in " ".join(texts)
    for player in players:
        cell = next(c for c in cells if c.text == player)
        assert not cell.shorten and cell.texture_size[0] <= cell.width      # the whole name fits
        assert hasattr(cell, "_background") == (player == app.state.current_player)
    lines = board.ids.lines
    assert len(lines.history) == app.session.actions + 1
    assert lines.history[-1] == app.state.scores() and lines.history[0] == dict.fromkeys(players, 0)
    ui.screenshot("scoreboard-4-players")


def test_players_are_remembered_a_random_first_player_and_every_unfinished_game_offered(ui):
    players = ["Maximilian Alexandersson", "Bo", "Cy"]
    app = ui.launch(camera="sim")
    start = app.screen("start")
    ui.choose(start.ids.game_choice, "Dairyman")
    ui.tap(ui.button("+", root=start))
    for row, name in zip(start.ids.players.children[::-1], players):
        row.name_input.text = name
    ui.tap(start.ids.start_button)
    assert list(app.session.players) == players
    ui.close(app)

    app = ui.launch(camera="sim")                      # a restart: the table is still there
    start = app.screen("start")
    ui.choose(start.ids.game_choice, "Dairyman")
    assert [row.name_input.text for row in start.ids.players.children[::-1]] == players
    ui.screenshot("start-remembered-players")
    firsts = set()
    for _ in range(12):
        ui.tap(start.ids.random_first)
        seated = [row.name_input.text for row in start.ids.players.children[::-1]]
        first = players.index(seated[0])
        assert seated == players[first:] + players[:first]           # the table turns, the order stays
        assert seated[0] in app.notice
        firsts.add(seated[0])
    assert len(firsts) > 1
    ui.tap(start.ids.start_button)                      # a second unfinished game
    second = app.session.id
    app.show("start")
    ui.pump(2)
    assert "2 unfinished" in start.resume_text
    ui.tap(start.ids.resume)
    choices = [b for b in start.resume_popup.content.walk() if getattr(b, "text", "").startswith("Dairyman: ")]
    assert len(choices) == 2 and all("step" in b.text for b in choices)
    ui.tap(choices[-1])                                 # the older game: the one started before the restart
    assert app.root.current == "play" and app.session.id != second
    assert list(app.session.players) == players


def test_export_never_writes_over_a_file_and_stats_rank_the_players(ui):
    import json

    from companion.paths import data_dir

    finished_dairyman(["Ann", "Bob"], seed=3)
    finished_dairyman(["Ann", "Bob"], seed=4)
    app = ui.launch(camera="sim")
    app.session = app.store.latest()
    app._changed()
    ui.tap(ui.button("History"))
    history = app.screen("history")
    exports = data_dir() / "exports"
    exports.mkdir(parents=True)
    taken = exports / f"dairyman-game-{app.session.id}.json"
    taken.write_text("a file the player keeps")
    ui.tap(history.ids.export_button)
    assert taken.read_text() == "a file the player keeps"                 # never written over
    saved = history.exported
    assert saved != taken and saved.name in app.notice
    data = json.loads(saved.read_text())
    assert len(data["events"]) == len(app.session.history())
    assert saved.with_suffix(".csv").exists() or any(p.suffix == ".csv" for p in exports.iterdir())

    ui.tap(history.ids.stats_button)
    cells = [w.text for w in history.stats_popup.content.walk() if hasattr(w, "text")]
    stats = app.store.player_stats()
    for player, figures in stats.items():
        at = cells.index(player)
        assert cells[at + 1:at + 3] == [str(figures["games"]), str(figures["wins"])]
    assert stats["Ann"]["games"] == 2
