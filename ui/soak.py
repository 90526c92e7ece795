"""Soak benchmarks of the app: hours of play without growth, and the peak memory with a big camera.

``companion bench soak`` calls :func:`soak_app` and :func:`peak_memory_full_hd` (and the
command-line soak of :mod:`companion.bench_soak`).  Both run the real app in an offscreen
window (software GL when there is no display) with its reader process, and add up the
memory of the app and of that process, as the Pi's 2 GB would have to hold both.
Memory is the proportional set size (PSS), which counts pages the two processes share once.

- :func:`soak_app` plays Dairyman games on the simulated camera for ``minutes``: every
  roll is thrown, read by the reader process, corrected to the dice on the table (as a
  player taps a misread die), used, and answered with the best suggestion; a finished
  game is followed by a new one.  Memory and descriptors are sampled as it goes.
- :func:`peak_memory_full_hd` feeds the live view 1920x1080 frames (a replay of rendered
  trays, decoded from JPEG at every frame like a USB webcam's) while the reader reads
  them back to back, and reports the highest memory the two processes reached: their
  proportional share (PSS, libraries both map counted once; sampled after every roll) and,
  as an upper bound, their peak resident sizes added up (shared pages counted twice).
"""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import cv2

from companion.bench_soak import child_pids, open_descriptors, process_memory_kb, tree_memory_kb
from vision import reader as reader_module

SOAK_MINUTES = 60.0
"""Length of the app soak."""
SAMPLE_MINUTES = 5.0
"""Minutes between two samples of the app soak."""
FULL_HD = (1920, 1080)
PEAK_SECONDS = 120.0
"""Length of the full-HD peak-memory run."""
WARM_UP_SECONDS = 60.0
"""Longest wait for the reader process to load its networks."""


def _launch(tmp: str, camera: str):
    """The real app on ``camera`` with a session store and settings in ``tmp``, its reader warmed up."""
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    from ui.window import configure_window

    configure_window()
    from kivy.base import EventLoop

    from companion.session import SessionStore
    from ui.app import CompanionApp
    from ui.preferences import Preferences

    app = CompanionApp(camera=camera, store=SessionStore(Path(tmp) / "soak.sqlite3"),
                       preferences=Preferences(Path(tmp) / "ui.json"), seed=1)
    app.auto_read = False                 # the soak asks for each reading itself
    app._run_prepare()
    until = time.perf_counter() + WARM_UP_SECONDS
    while app.reader.busy and time.perf_counter() < until:
        EventLoop.idle()
    return app, EventLoop


def _sample(started: float, games: int, rolls: int) -> dict:
    memory = tree_memory_kb(os.getpid())
    return {"minutes": round((time.perf_counter() - started) / 60, 1), "games": games, "rolls": rolls,
            "pss_mb": round(memory["Pss"] / 1024, 1), "open_fds": open_descriptors(os.getpid())}


def _wait(loop, condition, timeout: float = 30.0) -> bool:
    until = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > until:
            return False
        loop.idle()
    return True


def soak_app(minutes: float = SOAK_MINUTES, sample_minutes: float = SAMPLE_MINUTES) -> dict:
    """Whole Dairyman games played through the app for ``minutes``; memory and descriptors sampled."""
    from companion.games import get_game
    from vision.types import DieReading

    game = get_game("dairyman")
    with tempfile.TemporaryDirectory() as tmp:
        app, loop = _launch(tmp, "sim")
        try:
            started = time.perf_counter()
            samples, games, rolls, misread, next_sample = [], 0, 0, 0, started
            app.start_game(game.name, game.default_players(), {})
            while (now := time.perf_counter()) - started < minutes * 60:
                if now >= next_sample:
                    samples.append(_sample(started, games, rolls))
                    next_sample = now + sample_minutes * 60
                if app.state.is_terminal():
                    games += 1
                    app.start_game(game.name, game.default_players(), {})
                    continue
                if app.state.dice_to_roll() is None:
                    app.play(game.advise(app.state)[0].move)
                    continue
                source, throws = app.grabber.source, app.grabber.source.throws
                app.throw_dice()
                _wait(loop, lambda source=source, throws=throws: source.throws > throws and not source.rolling)
                shown = app.grabber.count
                _wait(loop, lambda shown=shown: app.grabber.count >= shown + 2)
                done = app.readings_done
                app.read_dice()
                _wait(loop, lambda done=done: app.readings_done > done, timeout=60)
                truth = sorted((d.value, d.colour) for d in source.truth)
                if sorted((d.value, d.colour) for d in app.reading) != truth:
                    misread += 1                 # the player corrects the dice by touch
                    app.reading = [DieReading(d.value, d.colour, d.center, d.bbox, 1.0) for d in source.truth]
                for index in app.doubted_dice():  # dice marked ? are confirmed with a tap each
                    app.confirm_die(index)
                if app.accept_reading():
                    rolls += 1
            samples.append(_sample(started, games, rolls))
        finally:
            app.stop()
    settled = samples[1:] or samples                 # growth is counted after the first sample
    hours = max((settled[-1]["minutes"] - settled[0]["minutes"]) / 60, 1e-9)
    return {"minutes": samples[-1]["minutes"], "games_finished": games, "rolls": rolls,
            "rolls_corrected": misread, "samples": samples,
            "pss_growth_mb_per_hour": round((settled[-1]["pss_mb"] - settled[0]["pss_mb"]) / hours, 1),
            "fd_change": settled[-1]["open_fds"] - settled[0]["open_fds"]}


def peak_memory_full_hd(seconds: float = PEAK_SECONDS, frames: int = 6) -> dict:
    """Peak memory of the app and its reader while 1920x1080 frames are shown and read back to back."""
    import random

    from companion.engine import Die
    from vision.synth import render_scene

    with tempfile.TemporaryDirectory() as tmp:
        photos = Path(tmp) / "frames"
        photos.mkdir()
        values = random.Random(0)
        for n in range(frames):
            image, _ = render_scene([values.randint(1, 6) for _ in range(8)], seed=n, size=FULL_HD,
                                    die_size=(90, 130))
            cv2.imwrite(str(photos / f"tray-{n}.jpg"), image)
        app, loop = _launch(tmp, f"replay:{photos}")
        readings, peak_pss = 0, 0
        try:
            app.start_game("dairyman", ["Ann", "Bob"], {})
            started = time.perf_counter()
            while time.perf_counter() - started < seconds:
                if app.state.is_terminal():
                    app.start_game("dairyman", ["Ann", "Bob"], {})
                request = app.state.dice_to_roll()
                if request is None:
                    app.play(app.session.game.advise(app.state)[0].move)
                    continue
                done = app.readings_done
                if app.read_dice():
                    _wait(loop, lambda done=done: app.readings_done > done, timeout=60)
                    readings += 1
                # the frames show other dice than the game asks for: the roll is typed by hand
                app.session.roll([Die(values.randint(1, 6), colour) for colour in request.colours])
                app._changed()
                peak_pss = max(peak_pss, tree_memory_kb(os.getpid())["Pss"])
            memory = tree_memory_kb(os.getpid())
            peaks = [process_memory_kb(pid).get("VmHWM", 0) for pid in child_pids(os.getpid())]
            app_peak = process_memory_kb(os.getpid()).get("VmHWM", 0)
            frame_shape = app.grabber.frame.shape if app.grabber.frame is not None else None
        finally:
            app.stop()
    return {"seconds": seconds, "frame": list(frame_shape[1::-1]) if frame_shape else None, "readings": readings,
            "peak_pss_mb_app_and_reader": round(peak_pss / 1024, 1),
            "peak_rss_mb_app_and_reader": round(memory["VmHWM"] / 1024, 1),
            "peak_rss_mb_app": round(app_peak / 1024, 1),
            "peak_rss_mb_reader": round(max(peaks, default=0) / 1024, 1),
            "networks_loaded_in_app": len(reader_module._nets),
            "pss_mb_at_end": round(memory["Pss"] / 1024, 1)}
