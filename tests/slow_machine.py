"""How many times longer the tests wait for things on a slow machine.

``COMPANION_TEST_TIME_SCALE`` (default 1): ``scripts/pi/emulate.sh`` sets it for the emulated arm64
system, where every program runs through qemu 5-20 times slower than here.  Only limits on how long
to wait grow with it; nothing a test checks does.
"""
import os

TIME_SCALE = max(1.0, float(os.environ.get("COMPANION_TEST_TIME_SCALE") or 1))
