#!/usr/bin/env bash
# The Debian 12 packages bench_gui needs, in one place.
#
#   scripts/install-system-deps.sh --runtime   what running the app needs (venv, Qt's xcb libs)
#   scripts/install-system-deps.sh --test      --runtime plus everything the test suite uses
#
# Options (after the profile):
#   --check   print the missing packages, exit 1 if any are missing; install nothing
#   --list    print the profile's packages, one a line
#
# Installs only what dpkg-query reports missing (apt-get update only then), as root directly,
# otherwise through sudo (or su on a terminal). Never starts, stops or restarts a service: while
# it installs, a policy-rc.d that refuses service actions is put in place unless one exists.
# Output of apt goes to $BENCH_GUI_APT_LOG (default: a file under /tmp), shown on failure.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -euo pipefail

# Python: the venv module and ensurepip's wheels for Debian's python3.
PYTHON_PACKAGES=(python3-venv)

# Qt 6 (PySide6-Essentials wheel) on X11: what `ldd` reports for plugins/platforms/libqxcb.so,
# the xcbglintegrations plugins and libQt6{Core,Gui,Widgets,Svg,OpenGL,Network,DBus,XcbQpa}.
# (libxcb-xinerama0 is no longer used by Qt 6.) libwayland-* let the wheel's wayland plugin
# load on a Wayland desktop; fonts-dejavu-core gives Qt at least one font.
QT_PACKAGES=(
    libglib2.0-0 libegl1 libgl1 libfontconfig1 libfreetype6 libdbus-1-3 libgssapi-krb5-2
    libx11-6 libx11-xcb1 libxcb1 libxkbcommon0 libxkbcommon-x11-0
    libxcb-cursor0 libxcb-glx0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0
    libxcb-render0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-util1
    libxcb-xfixes0 libxcb-xkb1
    libwayland-client0 libwayland-cursor0 libwayland-egl1
    fonts-dejavu-core
)

# pyodbc (a dependency of the app) links libodbc.so.2.
APP_PACKAGES=(libodbc2)

# The test suite starts its own PostgreSQL, MariaDB and sshd instances (never the system
# services), prepares loop-device storage, renders PDFs to PNG and opens windows under Xvfb;
# iostat (sysstat) cross-checks the agent's disk sampler; fio drives the random-read workload;
# ip and ss (iproute2) put driver hosts in network namespaces and cut their links.
TEST_PACKAGES=(
    xvfb xauth fio
    openssh-server openssh-client sudo iproute2
    unixodbc unixodbc-dev odbc-mariadb
    mariadb-server mariadb-client postgresql
    btrfs-progs xfsprogs mdadm util-linux kmod
    lvm2 fdisk  # pvcreate and sfdisk: the signatures storage apply must refuse
    poppler-utils
    sysstat rsync
    desktop-file-utils xdg-utils binutils  # the bundle: validate, install, PyInstaller's objdump
)

usage() {
    sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
}

profile=""
action="install"
for arg in "$@"; do
    case "$arg" in
        --runtime) profile="runtime" ;;
        --test) profile="test" ;;
        --check) action=check ;;
        --list) action=list ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install-system-deps.sh: unknown argument: $arg" >&2; usage >&2; exit 2 ;;
    esac
done
if [ -z "$profile" ]; then
    echo "install-system-deps.sh: say --runtime or --test" >&2
    usage >&2
    exit 2
fi

packages=("${PYTHON_PACKAGES[@]}" "${QT_PACKAGES[@]}" "${APP_PACKAGES[@]}")
if [ "$profile" = test ]; then
    packages+=("${TEST_PACKAGES[@]}")
    # The bundle test builds with PyInstaller, which needs the shared libpython of the Python
    # the venv is made from (launch.sh's $PYTHON): Debian ships it apart (libpython3.11). A
    # Python of one's own (pyenv, /usr/local) carries its own, so no package then.
    interpreter=$(command -v "${PYTHON:-python3}" 2>/dev/null || true)
    case "$(readlink -f "${interpreter:-/nonexistent}")" in
        /usr/bin/python3.*)
            pyver=$("$interpreter" -c 'import sys; print("%d.%d" % sys.version_info[:2])') \
                && packages+=("libpython$pyver")
            ;;
    esac
fi

if [ "$action" = list ]; then
    printf '%s\n' "${packages[@]}"
    exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-system-deps.sh: dpkg-query not found: this script knows Debian/Ubuntu only." >&2
    echo "Install the equivalents of: ${packages[*]}" >&2
    [ "$action" = check ] && exit 1
    exit 0
fi

missing=()
for pkg in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)
    case "$status" in
        ii*) ;;
        *) missing+=("$pkg") ;;
    esac
done

if [ "$action" = check ]; then
    if [ "${#missing[@]}" -gt 0 ]; then
        printf '%s\n' "${missing[@]}"
        exit 1
    fi
    exit 0
fi

if [ "${#missing[@]}" -eq 0 ]; then
    exit 0
fi

if [ "$(id -u)" = 0 ]; then
    how=root
elif command -v sudo >/dev/null 2>&1; then
    how=sudo
elif command -v su >/dev/null 2>&1 && [ -t 0 ]; then
    how=su
else
    echo "install-system-deps.sh: these Debian packages are missing and this user cannot install them:" >&2
    echo "  ${missing[*]}" >&2
    echo "Run as root:  apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
fi

log=${BENCH_GUI_APT_LOG:-$(mktemp "${TMPDIR:-/tmp}/bench-gui-apt.XXXXXX.log")}
echo "Installing Debian packages (${#missing[@]} missing): ${missing[*]}"
echo "  (apt output: $log)"

# The part that needs root. It is run as its own shell so that sudo/su can run it whole.
# $1: log file; the rest: packages.
# shellcheck disable=SC2016  # expanded by the inner shell
root_script='
set -eu
log=$1; shift
policy=/usr/sbin/policy-rc.d
made_policy=0
cleanup() { if [ "$made_policy" = 1 ]; then rm -f "$policy"; fi; }
trap cleanup EXIT INT TERM
if [ ! -e "$policy" ]; then
    printf "#!/bin/sh\n# bench_gui install-system-deps.sh: no service actions while installing\nexit 101\n" >"$policy"
    chmod 755 "$policy"
    made_policy=1
fi
export DEBIAN_FRONTEND=noninteractive
apt_opts="-y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"
apt-get update -q >>"$log" 2>&1 || echo "apt-get update failed; trying the install with the lists there are" >>"$log"
# shellcheck disable=SC2086
apt-get install $apt_opts --no-install-recommends "$@" >>"$log" 2>&1
'

status=0
case "$how" in
    root)
        sh -c "$root_script" sh "$log" "${missing[@]}" </dev/null || status=$?
        ;;
    sudo)
        echo "  (needs root: asking sudo)"
        sudo sh -c "$root_script" sh "$log" "${missing[@]}" || status=$?
        ;;
    su)
        echo "  (needs root and sudo is not installed: asking su for root's password)"
        # Run by bash (-s) so that printf %q's quoting is understood whatever root's shell is.
        su root -s /bin/bash -c \
            "sh -c $(printf '%q' "$root_script") sh $(printf '%q ' "$log" "${missing[@]}")" \
            || status=$?
        ;;
esac

if [ "$status" -ne 0 ]; then
    echo "install-system-deps.sh: apt-get failed (exit $status). Last lines of $log:" >&2
    tail -n 60 "$log" >&2 || true
    exit "$status"
fi

# Re-check: a package apt-get skipped silently would otherwise surface as an odd error later.
still=()
for pkg in "${missing[@]}"; do
    case "$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)" in
        ii*) ;;
        *) still+=("$pkg") ;;
    esac
done
if [ "${#still[@]}" -gt 0 ]; then
    echo "install-system-deps.sh: still not installed after apt-get: ${still[*]} (see $log)" >&2
    exit 1
fi
echo "Debian packages installed."
