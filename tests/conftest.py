"""Test-wide settings: no per-example deadline (the CI machine is small and shared),
every test gets its own data and config directories, and no test leaves a thread running."""
import threading
import time

import pytest
from hypothesis import HealthCheck, settings
from slow_machine import TIME_SCALE

settings.register_profile("companion", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("companion")

THREAD_END_SECONDS = 10.0 * TIME_SCALE
"""How long a test's threads (camera readers, frame grabbers, gpiozero's) get to end after it."""


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    monkeypatch.setenv("COMPANION_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))


@pytest.fixture(autouse=True)
def _no_thread_left_running():
    """Every thread a test starts ends with it.  One left running inside OpenCV when the
    interpreter exits aborts the whole run ("terminate called without an active exception")."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + THREAD_END_SECONDS
    started = [thread for thread in threading.enumerate() if thread not in before]
    for thread in started:
        thread.join(max(0.0, deadline - time.monotonic()))
    left = sorted(thread.name for thread in started if thread.is_alive())
    assert not left, f"threads still running {THREAD_END_SECONDS:.0f} s after the test: {', '.join(left)}"
