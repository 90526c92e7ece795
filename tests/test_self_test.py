"""``companion run --self-test``: the install check the Pi emulation and a new player run."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("kivy", reason="the self-test opens the app: pip install kivy==2.3.1")


def companion(*args, home: Path, timeout: float = 300):
    env = {**os.environ, "SDL_VIDEODRIVER": "offscreen", "KIVY_HOME": str(home / "kivy"),
           "KIVY_NO_CONSOLELOG": "1", "COMPANION_DATA_DIR": str(home / "data"),
           "COMPANION_CONFIG_DIR": str(home / "config")}
    return subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, check=False,
                          env=env, timeout=timeout)


def test_the_self_test_plays_a_roll_and_leaves_the_players_games_alone(tmp_path):
    shot = tmp_path / "shots" / "self-test.png"
    done = companion("run", "--self-test", str(shot), home=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    verdict = done.stdout.strip().splitlines()[-1]
    assert verdict.startswith("self-test passed:") and "read right" in verdict and "advice on screen" in verdict
    header = shot.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and header[16:24] == (800).to_bytes(4, "big") + (480).to_bytes(4, "big")
    assert not list(tmp_path.glob("data/**/*.sqlite3*")), "the self-test must play in a database of its own"
    assert not list(tmp_path.glob("config/**/*")), "the self-test must not change the settings"
    assert not list(shot.parent.glob(".*")), "no half-written screenshot left behind"


@pytest.mark.parametrize("args, words", [
    (["--self-test", "shot.jpg"], "must be a .png"),
    (["--self-test", "shot.png", "--db", "games.sqlite3"], "leave out --db"),
    (["--self-test", "shot.png", "--camera", "usb"], "simulated camera"),
])
def test_a_self_test_that_cannot_run_says_why_in_one_line(tmp_path, args, words):
    done = companion("run", *args, home=tmp_path, timeout=60)
    assert done.returncode != 0
    assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr
    assert not (tmp_path / "games.sqlite3").exists()
