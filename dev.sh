#!/usr/bin/env bash
# Set up (or update) everything Dice Companion needs, then start it or test it.
#   ./dev.sh start [companion run options]   desktop app with the simulated camera (the Pi camera on a Pi)
#   ./dev.sh test  [pytest options]          the whole test suite
# Works on Debian 12 and Raspberry Pi OS Bookworm; installs apt packages with sudo when not root.
set -euo pipefail
cd "$(dirname "$0")"

action=${1:-start}
[ $# -gt 0 ] && shift

# PI_EMULATION=1: an emulated arm64 Bookworm system (scripts/pi/emulate.sh) set up as a Pi would be
on_pi() { [ "${PI_EMULATION:-}" = 1 ] || grep -qi 'raspberry pi' /proc/device-tree/model 2>/dev/null; }

apt_packages=(python3 python3-venv python3-pip python3-dev
              libgl1 libegl1 libgles2 libmtdev1 libgl1-mesa-dri xclip xsel)
if on_pi; then
    apt_packages+=(python3-picamera2 python3-libcamera python3-lgpio python3-gpiozero)
fi

missing=()
for pkg in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    available=()
    for pkg in "${missing[@]}"; do
        if apt-cache show "$pkg" >/dev/null 2>&1; then
            available+=("$pkg")
        else   # some exist only in Raspberry Pi OS's own archive: go on with what there is
            case "$pkg" in
                *camera*) lost="the Pi camera (the USB, replay and simulated cameras work)" ;;
                *lgpio*) lost="lgpio (gpiozero uses another pin library)" ;;
                *) lost="what it brings" ;;
            esac
            echo "dev.sh: $pkg is not in this system's package archive; going on without $lost"
        fi
    done
    if [ ${#available[@]} -gt 0 ]; then
        echo "dev.sh: installing ${available[*]}"
        DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
            "${available[@]}" >/dev/null
    fi
fi

python=python3
if [ ! -x .venv/bin/python ]; then
    if on_pi; then
        # picamera2 and lgpio come from apt: the venv must see the system's site-packages.
        "$python" -m venv --system-site-packages .venv
    else
        "$python" -m venv .venv
    fi
fi

extras="ui,dev"
on_pi && extras="ui,dev,pi"
stamp=.venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)-$extras
if [ ! -f "$stamp" ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[${extras}]"
    rm -f .venv/.installed-*
    touch "$stamp"
fi

case "$action" in
    start) exec .venv/bin/companion run "$@" ;;
    test)  exec .venv/bin/python -m pytest "$@" ;;
    *)     echo "usage: ./dev.sh start|test [options]" >&2; exit 2 ;;
esac
