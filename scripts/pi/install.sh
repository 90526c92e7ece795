#!/usr/bin/env bash
# Install Dice Companion on Raspberry Pi OS Bookworm (Pi 4 or 5, official 7" touchscreen).
#
#   scripts/pi/install.sh [--rotation 0|90|180|270] [--no-service] [--no-console-boot]
#   scripts/pi/install.sh --kivy-config-only DIR [--rotation R]   (just write DIR/config.ini)
#   scripts/pi/install.sh --uninstall   (remove the service, the udev rule and the Kivy config; the
#                                        venv, the games and the settings stay)
#
# What it does:
#  1. apt: picamera2 and libcamera, lgpio and gpiozero, the SDL/GL/DRM libraries Kivy's wheel needs.
#  2. .venv with --system-site-packages, so the apt picamera2/libcamera/lgpio are importable, and
#     numpy<2 + opencv-python-headless<4.12 (Bookworm's picamera2 is built against numpy 1.x), kivy 2.3.1.
#  3. A udev rule naming the touchscreen /dev/input/touchscreen, and the Kivy config (one touch provider).
#  4. A systemd unit that starts `companion run --fullscreen` at boot and restarts it if it dies;
#     the Pi is set to boot to the console so the app owns the screen (--uninstall restores the old
#     boot target). Running it again gives the same result.
# PI_EMULATION=1 treats an emulated arm64 Bookworm system (scripts/pi/emulate.sh) as a Pi.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
app_dir=$(cd "$here/../.." && pwd)
rotation=0
service=1
console_boot=1
config_only=""
uninstall=0
unit_path=/etc/systemd/system/dice-companion.service
udev_rule=/etc/udev/rules.d/99-dice-companion-touchscreen.rules
state_dir=/var/lib/dice-companion

while [ $# -gt 0 ]; do
    case "$1" in
        --rotation) rotation=${2:-}; shift 2 ;;
        --no-service) service=0; shift ;;
        --no-console-boot) console_boot=0; shift ;;
        --kivy-config-only) config_only=${2:-}; shift 2 ;;
        --uninstall) uninstall=1; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$rotation" in 0|90|180|270) ;; *) echo "install.sh: --rotation must be 0, 90, 180 or 270" >&2; exit 2 ;; esac

write_kivy_config() {   # write_kivy_config DIR: the Kivy config with the chosen rotation
    mkdir -p "$1"
    sed -e "s/^rotation = 0$/rotation = $rotation/" "$here/kivy_config.ini" > "$1/config.ini"
}

if [ -n "$config_only" ]; then
    write_kivy_config "$config_only"
    exit 0
fi

if [ "${PI_EMULATION:-}" != 1 ] && ! grep -qi 'raspberry pi' /proc/device-tree/model 2>/dev/null; then
    echo "install.sh: this is not a Raspberry Pi; on a desktop use ./dev.sh start" >&2
    exit 2
fi
. /etc/os-release
if [ "${VERSION_CODENAME:-}" != "bookworm" ]; then
    echo "install.sh: warning: written for Raspberry Pi OS Bookworm, this is ${VERSION_CODENAME:-unknown}" >&2
fi

sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
run_user=${SUDO_USER:-$(id -un)}
systemd_running() { [ -d /run/systemd/system ]; }

if [ "$uninstall" -eq 1 ]; then
    echo "== removing the Dice Companion service"
    if [ -f "$unit_path" ]; then
        "${sudo_cmd[@]}" systemctl disable dice-companion.service 2>/dev/null || true
        systemd_running && "${sudo_cmd[@]}" systemctl stop dice-companion.service 2>/dev/null || true
        "${sudo_cmd[@]}" rm -f "$unit_path"
        systemd_running && "${sudo_cmd[@]}" systemctl daemon-reload
    fi
    if [ -f "$state_dir/previous-default-target" ]; then
        "${sudo_cmd[@]}" systemctl set-default "$(cat "$state_dir/previous-default-target")" >/dev/null 2>&1 || true
    fi
    "${sudo_cmd[@]}" rm -rf "$state_dir"
    "${sudo_cmd[@]}" rm -f "$udev_rule"
    rm -f "$app_dir/.kivy/config.ini"
    echo "Removed the service, the touchscreen rule and the Kivy config. Kept: $app_dir/.venv, the games and"
    echo "the settings (remove the folder $app_dir to remove everything)."
    exit 0
fi

apt_install() {   # apt_install PACKAGE...: those in the archive; one line for each that is not
    local available=() pkg
    for pkg in "$@"; do
        if apt-cache show "$pkg" >/dev/null 2>&1; then
            available+=("$pkg")
        else
            echo "install.sh: $pkg is not in this system's package archive (Raspberry Pi OS has it); going on without it"
        fi
    done
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
        "${available[@]}" >/dev/null
}

echo "== apt packages"
"${sudo_cmd[@]}" apt-get update -qq
apt_install python3 python3-venv python3-pip python3-dev \
    python3-picamera2 python3-libcamera \
    python3-lgpio python3-gpiozero \
    libsdl2-2.0-0 libgl1 libgles2 libegl1 libgbm1 libdrm2 libmtdev1 libinput10 libjpeg62-turbo

echo "== Python environment"
cd "$app_dir"
if [ ! -x .venv/bin/python ]; then
    python3 -m venv --system-site-packages .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "numpy<2" "opencv-python-headless<4.12" "kivy[base]==2.3.1"
.venv/bin/python -m pip install -q -e ".[ui]"
.venv/bin/python - <<'PY'
import numpy, cv2, gpiozero, kivy  # noqa: F401  every piece the Pi needs imports together
assert numpy.__version__.startswith("1."), numpy.__version__
try:
    import picamera2  # noqa: F401
    camera = "picamera2 OK"
except ImportError:
    camera = "no picamera2 (the Pi camera is off; the USB, replay and simulated cameras work)"
print(f"numpy {numpy.__version__}, OpenCV {cv2.__version__}, Kivy {kivy.__version__}, {camera}")
PY

echo "== touchscreen"
touch_name=$(awk -F'"' '/^N: Name=/{name=$2} /^H: Handlers=.*event/{ if (name ~ /[Tt]ouch|-ts|FT5406|ft5x06|Goodix|raspberrypi-ts/) { print name; exit } }' /proc/bus/input/devices || true)
if [ -n "$touch_name" ]; then
    echo "SUBSYSTEM==\"input\", KERNEL==\"event*\", ATTRS{name}==\"$touch_name\", SYMLINK+=\"input/touchscreen\"" \
        | "${sudo_cmd[@]}" tee "$udev_rule" >/dev/null
    if [ -S /run/udev/control ]; then
        "${sudo_cmd[@]}" udevadm control --reload-rules
        "${sudo_cmd[@]}" udevadm trigger --subsystem-match=input
    fi
    echo "touchscreen: $touch_name -> /dev/input/touchscreen"
else
    echo "install.sh: warning: no touchscreen found in /proc/bus/input/devices; is the display connected?" >&2
fi
write_kivy_config "$app_dir/.kivy"
groups=$(for g in video render input gpio; do getent group "$g" >/dev/null && printf '%s,' "$g"; done)
[ -n "$groups" ] && "${sudo_cmd[@]}" usermod -aG "${groups%,}" "$run_user"

if [ "$service" -eq 1 ]; then
    echo "== systemd service"
    sed -e "s|@USER@|$run_user|g" -e "s|@APP_DIR@|$app_dir|g" "$here/dice-companion.service" \
        | "${sudo_cmd[@]}" tee "$unit_path" >/dev/null
    "${sudo_cmd[@]}" systemd-analyze verify "$unit_path"      # a unit systemd would refuse stops here
    systemd_running && "${sudo_cmd[@]}" systemctl daemon-reload
    "${sudo_cmd[@]}" systemctl enable --quiet dice-companion.service
    if [ "$console_boot" -eq 1 ]; then
        "${sudo_cmd[@]}" mkdir -p "$state_dir"
        if [ ! -f "$state_dir/previous-default-target" ]; then     # the first install's, kept for --uninstall
            systemctl get-default | "${sudo_cmd[@]}" tee "$state_dir/previous-default-target" >/dev/null
        fi
        if command -v raspi-config >/dev/null; then
            "${sudo_cmd[@]}" raspi-config nonint do_boot_behaviour B1   # console: the app owns the screen
        else
            "${sudo_cmd[@]}" systemctl set-default --quiet multi-user.target
        fi
    fi
    echo "Dice Companion starts at the next boot (now: sudo systemctl start dice-companion)."
fi
echo "Done. Logs: journalctl -u dice-companion -f"
