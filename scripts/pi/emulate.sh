#!/usr/bin/env bash
# Run the README's two commands inside an emulated arm64 Debian 12 (Bookworm) system, the base
# of Raspberry Pi OS Bookworm, as a new Pi user would: no Pi needed, only this x86 machine.
#
#   scripts/pi/emulate.sh [test|start|install|all] [pytest options for test]
#
#   test     ./dev.sh test -q: the whole suite inside the arm64 system
#   start    ./dev.sh start --self-test: the app opens with the simulated camera under SDL's
#            offscreen driver, plays one roll, saves a screenshot and exits by itself
#   install  scripts/pi/install.sh inside the arm64 system (as if on a Pi), run twice, checked, then
#            --uninstall, checked
#   all      (default) start, install, then test
#
# The arm64 base system is built once with mmdebstrap and qemu-user-static and cached as a tarball
# in $PI_EMULATION_CACHE (default ~/.cache/dice-companion); every run unpacks a fresh copy, clones
# the repository's committed HEAD into /home/pi/dice-companion and runs there. Output goes to
# $PI_EMULATION_OUT (default ./pi-emulation): the logs and the screenshot. Needs root (or sudo)
# and takes a while: everything in the arm64 system runs through qemu, 5-20 times slower than here.
# Emulated timings are not Pi timings.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
action=${1:-all}
[ $# -gt 0 ] && shift
case "$action" in
    test|start|install|all) ;;
    *) echo "usage: scripts/pi/emulate.sh [test|start|install|all] [pytest options]" >&2; exit 2 ;;
esac
cache=${PI_EMULATION_CACHE:-$HOME/.cache/dice-companion}
out=$(mkdir -p "${PI_EMULATION_OUT:-$repo/pi-emulation}" && cd "${PI_EMULATION_OUT:-$repo/pi-emulation}" && pwd)
base_tar=$cache/bookworm-arm64-base.tar
sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)

need_host_tools() {
    local missing=()
    for pkg in mmdebstrap qemu-user-static binfmt-support; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "emulate.sh: installing ${missing[*]}"
        "${sudo_cmd[@]}" apt-get update -qq
        DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
        "${sudo_cmd[@]}" mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    fi
    if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
        "${sudo_cmd[@]}" update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
    fi
    local entry=/proc/sys/fs/binfmt_misc/qemu-aarch64
    if [ ! -e "$entry" ]; then
        echo "emulate.sh: this kernel cannot run arm64 programs through qemu (binfmt_misc has no qemu-aarch64)" >&2
        exit 1
    fi
    # sudo inside the arm64 system is set-uid: the kernel only honours that for an emulated program
    # when the registration has the C (credentials) flag, which Debian's qemu-user-static leaves out.
    if ! grep -q '^flags:.*C' "$entry"; then
        local interpreter magic mask
        interpreter=$(sed -n 's/^interpreter //p' "$entry")
        magic=$(sed -n 's/^magic //p' "$entry" | sed 's/../\\x&/g')
        mask=$(sed -n 's/^mask //p' "$entry" | sed 's/../\\x&/g')
        echo "emulate.sh: registering qemu-aarch64 again with set-uid support (binfmt flags POCF)"
        echo -1 | "${sudo_cmd[@]}" tee "$entry" >/dev/null
        printf ':qemu-aarch64:M::%s:%s:%s:POCF\n' "$magic" "$mask" "$interpreter" \
            | "${sudo_cmd[@]}" tee /proc/sys/fs/binfmt_misc/register >/dev/null
    fi
}

build_base() {
    [ -f "$base_tar" ] && return
    mkdir -p "$cache"
    echo "emulate.sh: building the arm64 Bookworm base system once (about 10 minutes) -> $base_tar"
    # The user "pi" with password-less sudo, as Raspberry Pi OS sets up its first user.
    "${sudo_cmd[@]}" mmdebstrap --quiet --arch=arm64 --variant=apt \
        --include=ca-certificates,sudo,git,procps,systemd,python3 \
        --customize-hook='for g in input render gpio; do chroot "$1" groupadd --force --system "$g"; done' \
        --customize-hook='chroot "$1" useradd --create-home --shell /bin/bash --groups sudo,video,input,render,gpio pi' \
        --customize-hook='echo "pi ALL=(ALL) NOPASSWD: ALL" > "$1/etc/sudoers.d/010_pi-nopasswd"' \
        bookworm "$cache/partial.tar" http://deb.debian.org/debian
    "${sudo_cmd[@]}" mv "$cache/partial.tar" "$base_tar"
}

root=""
pip_cert=""
cleanup() {
    [ -n "$root" ] || return 0
    local proc    # whatever still runs inside the arm64 system (a stopped test run) ends first
    for proc in /proc/[0-9]*; do
        [ "$(readlink "$proc/root" 2>/dev/null)" = "$root" ] && "${sudo_cmd[@]}" kill "${proc#/proc/}" 2>/dev/null
    done
    sleep 1
    for m in home/pi/.cache/pip run dev/pts dev sys proc; do
        mountpoint -q "$root/$m" && "${sudo_cmd[@]}" umount -l "$root/$m"
    done
    "${sudo_cmd[@]}" rm -rf --one-file-system "$root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fresh_root() {
    root=$(mktemp -d "${TMPDIR:-/tmp}/pi-root.XXXXXX")
    "${sudo_cmd[@]}" tar -C "$root" -xf "$base_tar"
    for m in proc sys dev dev/pts run; do "${sudo_cmd[@]}" mount --bind "/$m" "$root/$m"; done
    "${sudo_cmd[@]}" cp /etc/resolv.conf "$root/etc/resolv.conf"
    echo "127.0.1.1 $(hostname)" | "${sudo_cmd[@]}" tee -a "$root/etc/hosts" >/dev/null   # sudo looks its host up
    # certificate authorities this machine added itself (a proxy that inspects TLS) are trusted inside too
    if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
        "${sudo_cmd[@]}" cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
        "${sudo_cmd[@]}" chroot "$root" update-ca-certificates >/dev/null 2>&1
        pip_cert="PIP_CERT=/etc/ssl/certs/ca-certificates.crt"    # pip otherwise trusts only its own list
    fi
    # pip's downloads are kept between runs (the wheels are the same; the install is not)
    mkdir -p "$cache/pip" && "${sudo_cmd[@]}" mkdir -p "$root/home/pi/.cache/pip"
    "${sudo_cmd[@]}" mount --bind "$cache/pip" "$root/home/pi/.cache/pip"
    "${sudo_cmd[@]}" git clone --quiet --no-hardlinks "$repo" "$root/home/pi/dice-companion"
    "${sudo_cmd[@]}" chroot "$root" chown -R pi:pi /home/pi
    echo "emulate.sh: arm64 system ready: $("${sudo_cmd[@]}" chroot "$root" uname -m), Debian $(cat "$root/etc/debian_version")"
}

as_pi() {   # as_pi COMMAND: run COMMAND in the clone as the user pi, with a login environment
    "${sudo_cmd[@]}" chroot "$root" /usr/bin/env -i HOME=/home/pi USER=pi LOGNAME=pi LANG=C.UTF-8 \
        PATH=/usr/local/bin:/usr/bin:/bin TERM=dumb PI_EMULATION=1 COMPANION_TEST_TIME_SCALE=10 $pip_cert \
        /usr/bin/setpriv --reuid=pi --regid=pi --init-groups \
        /bin/bash -c "cd /home/pi/dice-companion && $1"
}

run_start() {
    echo "== ./dev.sh start --self-test (arm64)"
    as_pi "SDL_VIDEODRIVER=offscreen ./dev.sh start --self-test /tmp/self-test.png" 2>&1 | tee "$out/start.log"
    "${sudo_cmd[@]}" cp "$root/tmp/self-test.png" "$out/self-test-arm64.png"
    echo "screenshot: $out/self-test-arm64.png"
}

run_install() {
    echo "== scripts/pi/install.sh (arm64, twice), then --uninstall"
    as_pi "scripts/pi/check_install.sh" 2>&1 | tee "$out/install.log"
}

run_test() {
    echo "== ./dev.sh test (arm64)"
    as_pi "./dev.sh test -q -p no:cacheprovider $*" 2>&1 | tee "$out/test.log"
}

need_host_tools
build_base
fresh_root
case "$action" in
    start) run_start ;;
    install) run_install ;;
    test) run_test "$@" ;;
    all) run_start; run_install; run_test "$@" ;;
esac
