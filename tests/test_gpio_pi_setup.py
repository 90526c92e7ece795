"""The Raspberry Pi set-up files: Kivy config with one touch provider, the systemd unit, the installer."""
import configparser
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PI = Path(__file__).resolve().parents[1] / "scripts" / "pi"


def _kivy_config(tmp_path, *args):
    return subprocess.run(["bash", str(PI / "install.sh"), "--kivy-config-only", str(tmp_path), *args],
                          capture_output=True, text=True, timeout=30, check=False)


def test_kivy_reads_exactly_one_touch_provider_and_the_rotation(tmp_path):
    pytest.importorskip("kivy")
    assert _kivy_config(tmp_path, "--rotation", "180").returncode == 0
    written = (tmp_path / "config.ini").read_text()
    probe = ("import json; from kivy.config import Config; "
             "print(json.dumps({'input': dict(Config.items('input')), "
             "'rotation': Config.get('graphics', 'rotation'), 'fullscreen': Config.get('graphics', 'fullscreen')}))")
    env = {**os.environ, "KIVY_HOME": str(tmp_path), "KIVY_NO_ARGS": "1", "KIVY_NO_CONSOLELOG": "1"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                         timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["input"] == {"touchscreen": "hidinput,/dev/input/touchscreen"}   # no mouse, no probesysfs
    assert seen["rotation"] == "180" and seen["fullscreen"] == "auto"
    assert (tmp_path / "config.ini").read_text() == written    # Kivy did not "upgrade" (rewrite) it


def test_installer_refuses_a_bad_rotation(tmp_path):
    result = _kivy_config(tmp_path, "--rotation", "45")
    assert result.returncode == 2 and "rotation" in result.stderr
    assert not (tmp_path / "config.ini").exists()


def test_installer_pins_what_picamera2_needs():
    script = (PI / "install.sh").read_text()
    assert subprocess.run(["bash", "-n", str(PI / "install.sh")], check=False).returncode == 0
    assert "--system-site-packages" in script
    assert '"numpy<2"' in script and '"opencv-python-headless<4.12"' in script and "kivy[base]==2.3.1" in script
    for package in ("python3-picamera2", "python3-lgpio", "libsdl2-2.0-0", "libgles2"):
        assert package in script


def test_systemd_unit_starts_full_screen_at_boot_and_restarts():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(PI / "dice-companion.service")
    assert unit["Service"]["ExecStart"].endswith("/.venv/bin/companion run --fullscreen")
    assert unit["Service"]["Restart"] == "always"
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    lines = (PI / "dice-companion.service").read_text().splitlines()
    assert "Environment=KIVY_HOME=@APP_DIR@/.kivy" in lines     # where install.sh writes the Kivy config


@pytest.mark.parametrize("rotation", ["0", "90", "270"])
def test_every_rotation_is_written(tmp_path, rotation):
    assert _kivy_config(tmp_path, "--rotation", rotation).returncode == 0
    cfg = configparser.ConfigParser()
    cfg.read(tmp_path / "config.ini")
    assert cfg["graphics"]["rotation"] == rotation
    assert list(cfg["input"]) == ["touchscreen"]


def test_the_installer_refuses_a_machine_that_is_not_a_pi_and_changes_nothing(tmp_path):
    if Path("/proc/device-tree/model").exists() or os.environ.get("PI_EMULATION"):
        pytest.skip("on a Raspberry Pi (or its emulation) this would really install")
    for args in ([], ["--uninstall"]):
        result = subprocess.run(["bash", str(PI / "install.sh"), *args], capture_output=True, text=True,
                                timeout=30, check=False)
        assert result.returncode == 2 and "not a Raspberry Pi" in result.stderr
    assert not Path("/etc/systemd/system/dice-companion.service").exists()


def test_the_pi_scripts_parse_and_the_emulation_names_its_actions():
    for script in ("install.sh", "check_install.sh", "emulate.sh"):
        assert subprocess.run(["bash", "-n", str(PI / script)], check=False).returncode == 0, script
    result = subprocess.run(["bash", str(PI / "emulate.sh"), "nonsense"], capture_output=True, text=True,
                            timeout=30, check=False)
    assert result.returncode == 2 and "test|start|install|all" in result.stderr
