"""Benchmark of the live view: frames per second while the reader reads without pause.

``companion bench ui`` calls :func:`bench_ui`.  It runs the real app (an offscreen
window with software GL when there is no display) on the simulated camera, starts a
Dairyman game, throws the dice about once a second and keeps the reader busy, and
counts what the play screen shows.
"""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

THROW_EVERY = 1.0
"""Seconds between two simulated throws during the benchmark."""
WARM_UP_SECONDS = 30.0
"""Longest wait for the reader process to start before measuring."""


def bench_ui(seconds: float = 5.0, game: str = "dairyman") -> dict:
    """Live-view and window frames per second while readings happen, and reading times."""
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    from ui.window import configure_window

    configure_window()
    from kivy.base import EventLoop

    from companion.games import get_game
    from companion.session import SessionStore
    from ui.app import CompanionApp
    from ui.preferences import Preferences

    with tempfile.TemporaryDirectory() as tmp:
        app = CompanionApp(camera="sim", store=SessionStore(Path(tmp) / "bench.sqlite3"),
                           preferences=Preferences(Path(tmp) / "ui.json"))
        app.auto_read = False              # the benchmark reads back to back itself
        app._run_prepare()
        try:
            chosen = get_game(game)
            app.start_game(chosen.name, chosen.default_players(), {})
            view = app.screen("play").ids.view
            warm_until = time.perf_counter() + WARM_UP_SECONDS
            while app.reader.busy and time.perf_counter() < warm_until:   # the reader loads its networks
                EventLoop.idle()
            readings_before, shown_before, frames = app.readings_done, view.frames_shown, 0
            grabbed_before = app.grabber.count
            reading_ms: list[float] = []
            started = last_throw = time.perf_counter()
            app.throw_dice()
            read_started = None
            while (now := time.perf_counter()) - started < seconds:
                if now - last_throw >= THROW_EVERY:
                    app.throw_dice()
                    last_throw = now
                if not app.reading_busy:
                    if read_started is not None:
                        reading_ms.append((now - read_started) * 1000)
                    read_started = now if app.read_dice() else None
                EventLoop.idle()
                frames += 1
            elapsed = time.perf_counter() - started
            return {
                "seconds": round(elapsed, 2),
                "live_view_fps": round((view.frames_shown - shown_before) / elapsed, 1),
                "window_fps": round(frames / elapsed, 1),
                "camera_fps": round((app.grabber.count - grabbed_before) / elapsed, 1),
                "readings": app.readings_done - readings_before,
                "reading_ms_mean": round(sum(reading_ms) / len(reading_ms), 1) if reading_ms else None,
                "gl_renderer": _gl_renderer(),
                "load_average_1min": round(os.getloadavg()[0], 2),
                "frame_size": list(view.frame_size),
            }
        finally:
            app.stop()


def _gl_renderer() -> str:
    from kivy.graphics.opengl import GL_RENDERER, glGetString

    return glGetString(GL_RENDERER).decode(errors="replace")
