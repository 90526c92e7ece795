#!/usr/bin/env bash
# Check the kiosk install as it lands on a Pi (scripts/pi/emulate.sh runs this inside its arm64 system):
# install.sh twice must leave exactly the same system (idempotent), the unit must pass
# `systemd-analyze verify`, the Kivy config must hold exactly one touch input provider, and
# install.sh --uninstall must take the service, the udev rule and the Kivy config away again.
set -euo pipefail
cd "$(dirname "$0")/../.."
app_dir=$(pwd)
unit=/etc/systemd/system/dice-companion.service
wants=/etc/systemd/system/multi-user.target.wants/dice-companion.service

snapshot() {   # what an install leaves behind, as text to compare
    echo "unit: $( { sha256sum < "$unit"; } 2>/dev/null || echo none)"
    echo "enabled: $(readlink "$wants" 2>/dev/null || echo no)"
    echo "default target: $(systemctl get-default 2>/dev/null)"
    echo "kivy config: $( { sha256sum < .kivy/config.ini; } 2>/dev/null || echo none)"
    echo "udev rule: $(cat /etc/udev/rules.d/99-dice-companion-touchscreen.rules 2>/dev/null || echo none)"
    echo "groups: $(id -nG "$(id -un)")"
    echo "python packages: $(.venv/bin/python -m pip freeze 2>/dev/null | sha256sum)"
}

fail() { echo "check_install: FAILED: $*" >&2; exit 1; }

before=$(snapshot)
echo "== first install"
PI_EMULATION=${PI_EMULATION:-} scripts/pi/install.sh
first=$(snapshot)
echo "== second install"
PI_EMULATION=${PI_EMULATION:-} scripts/pi/install.sh >/dev/null
second=$(snapshot)
[ "$first" = "$second" ] || fail "a second install changed the system: $(diff <(echo "$first") <(echo "$second"))"
echo "idempotent: the second install left the system exactly as the first"
echo "$first" | sed 's/^/  /'

sudo systemd-analyze verify "$unit" || fail "systemd-analyze verify refuses the unit"
echo "systemd-analyze verify: the unit is valid"
[ "$(readlink "$wants")" = "$unit" ] || fail "the service is not enabled for multi-user.target"

.venv/bin/python - "$app_dir/.kivy" <<'PY' || fail "the Kivy config does not hold exactly one touch provider"
import json, os, subprocess, sys
env = {**os.environ, "KIVY_HOME": sys.argv[1], "KIVY_NO_ARGS": "1", "KIVY_NO_CONSOLELOG": "1"}
probe = "import json; from kivy.config import Config; print(json.dumps(dict(Config.items('input'))))"
seen = json.loads(subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                                 check=True).stdout.strip().splitlines()[-1])
print(f"Kivy reads these input providers: {seen}")
sys.exit(0 if len(seen) == 1 and "hidinput" in next(iter(seen.values())) else 1)
PY

echo "== uninstall"
PI_EMULATION=${PI_EMULATION:-} scripts/pi/install.sh --uninstall
after=$(snapshot)
[ ! -e "$unit" ] && [ ! -e "$wants" ] || fail "the service is still installed"
[ ! -e .kivy/config.ini ] || fail "the Kivy config is still there"
[ ! -e /etc/udev/rules.d/99-dice-companion-touchscreen.rules ] || fail "the udev rule is still there"
[ "$(echo "$before" | grep '^default target')" = "$(echo "$after" | grep '^default target')" ] \
    || fail "the boot target was not restored"
[ -x .venv/bin/companion ] || fail "the uninstall removed the venv (it keeps it)"
echo "uninstalled: no service, no udev rule, no Kivy config, the boot target restored; the venv kept"
echo "check_install: all checks passed"
