#!/usr/bin/env bash
# Install bench_gui into .venv when needed and start it.
#
#   sh scripts/launch.sh              the GUI, on the embedded demo target
#   sh scripts/launch.sh ARGS...      bench-gui ARGS... (e.g. demo --headless)
#
# Steps: the Debian packages a venv and Qt need (scripts/install-system-deps.sh --runtime, which
# asks sudo only if something is missing); .venv in the repo (created if missing, re-created if
# its Python no longer runs); `pip install -e .` when not installed yet or pyproject.toml changed
# (a stamp in .venv records what was installed); the desktop entry and icon under
# ~/.local/share; then exec .venv/bin/bench-gui.
#
# Environment:
#   PYTHON=python3            the interpreter the venv is made from (3.11 or newer)
#   BENCH_GUI_NO_EXEC=1       prepare everything, do not start the app
#   BENCH_GUI_NO_DESKTOP=1    do not install the desktop entry and icon
#   BENCH_GUI_NO_SYSTEM_DEPS=1  do not check Debian packages
#   BENCH_GUI_EXTRAS=test     install .[test] instead of . (used by scripts/test.sh)
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$repo/.venv"
python=${PYTHON:-python3}
extras=${BENCH_GUI_EXTRAS:-}

say() { printf '%s\n' "$*"; }
die() { printf 'launch.sh: %s\n' "$*" >&2; exit 1; }

# --- Debian packages ---------------------------------------------------------------------------
if [ "${BENCH_GUI_NO_SYSTEM_DEPS:-}" != 1 ]; then
    bash "$repo/scripts/install-system-deps.sh" --runtime \
        || die "the Debian packages above are needed first"
fi

# --- the venv -----------------------------------------------------------------------------------
command -v "$python" >/dev/null 2>&1 || die "$python not found (Python 3.11 or newer is needed)"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "$python is $("$python" -V 2>&1); bench_gui needs Python 3.11 or newer (set PYTHON=...)"

venv_ok() {
    [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import pip' >/dev/null 2>&1
}
if ! venv_ok; then
    if [ -e "$venv" ]; then
        say "Re-creating $venv (its Python or pip no longer runs)"
        rm -rf "$venv"
    else
        say "Creating $venv"
    fi
    "$python" -m venv "$venv" \
        || die "could not create $venv (on Debian: apt-get install python3-venv)"
    venv_ok || die "$venv has no working pip (on Debian: apt-get install python3-venv)"
fi

# --- the package --------------------------------------------------------------------------------
if [ -n "$extras" ]; then
    spec=".[$extras]"
    stamp="$venv/.bench-gui-installed-$extras"
else
    spec="."
    stamp="$venv/.bench-gui-installed"
fi
want=$("$venv/bin/python" - "$repo/pyproject.toml" "$spec" <<'PY'
import hashlib, sys
digest = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
print(f"{digest} {sys.argv[2]} {sys.version.split()[0]}")
PY
)
have=$(cat "$stamp" 2>/dev/null || true)
if [ "$want" != "$have" ] || [ ! -x "$venv/bin/bench-gui" ]; then
    log="$venv/install.log"
    say "Installing bench_gui ($spec) into .venv; the first time takes a few minutes (log: $log)"
    rm -f "$stamp"
    if ! (cd "$repo" && "$venv/bin/python" -m pip install --disable-pip-version-check \
        -e "$spec") >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        die "pip install -e '$spec' failed; the whole log is $log"
    fi
    printf '%s\n' "$want" >"$stamp"
fi

# --- desktop entry and icon ---------------------------------------------------------------------
first_file() {
    local f
    for f in "$@"; do
        if [ -f "$f" ]; then printf '%s\n' "$f"; return 0; fi
    done
    return 0
}
install_desktop_entry() {
    local data apps icons exe try_exec tmp size
    [ -n "${HOME:-}" ] && [ -d "$HOME" ] && [ -w "$HOME" ] || return 0
    [ -f "$repo/packaging/bench-gui.desktop" ] || return 0
    data=${XDG_DATA_HOME:-$HOME/.local/share}
    apps="$data/applications"
    icons="$data/icons/hicolor"
    exe="$venv/bin/bench-gui"
    case "$exe" in
        *[\"\`\$\\]*) return 0 ;;  # a path a desktop file cannot quote simply: skip
    esac
    mkdir -p "$apps" || return 0
    tmp=$(mktemp "$apps/.bench-gui.desktop.XXXXXX") || return 0
    # Exec and TryExec name the venv's program (.venv/bin is not on PATH). Exec quotes a path
    # with spaces or other reserved characters; TryExec is a plain path.
    try_exec=$(printf '%s' "$exe" | sed 's/[&|]/\\&/g')
    case "$exe" in
        *[!A-Za-z0-9/._+-]*) exe="\"$try_exec\"" ;;
        *) exe=$try_exec ;;
    esac
    sed -e "s|^Exec=bench-gui\\b|Exec=$exe|" -e "s|^TryExec=.*|TryExec=$try_exec|" \
        "$repo/packaging/bench-gui.desktop" >"$tmp"
    if cmp -s "$tmp" "$apps/bench-gui.desktop"; then
        rm -f "$tmp"
    else
        chmod 644 "$tmp" && mv -f "$tmp" "$apps/bench-gui.desktop"
        if command -v update-desktop-database >/dev/null 2>&1; then
            update-desktop-database -q "$apps" >/dev/null 2>&1 || true
        fi
    fi
    local changed=0
    local svg png
    # The icons are package data of the app (bench_gui/resources/icons).
    svg=$(first_file "$repo/bench_gui/resources/icons/icon.svg")
    png=$(first_file "$repo/bench_gui/resources/icons/icon-256.png")
    if [ -n "$svg" ]; then
        mkdir -p "$icons/scalable/apps"
        if ! cmp -s "$svg" "$icons/scalable/apps/bench-gui.svg"; then
            cp -f "$svg" "$icons/scalable/apps/bench-gui.svg"
            changed=1
        fi
    fi
    if [ -n "$png" ]; then
        # The hicolor folder is named after the PNG's size (read from its IHDR chunk).
        size=$("$venv/bin/python" - "$png" <<'PY'
import struct, sys
head = open(sys.argv[1], "rb").read(24)
ok = head[:8] == b"\x89PNG\r\n\x1a\n"
w, h = struct.unpack(">II", head[16:24]) if ok else (0, 0)
print(w if w == h and w in (16, 22, 24, 32, 48, 64, 96, 128, 192, 256, 512) else "")
PY
        ) || size=""
        if [ -n "$size" ]; then
            mkdir -p "$icons/${size}x${size}/apps"
            if ! cmp -s "$png" "$icons/${size}x${size}/apps/bench-gui.png"; then
                cp -f "$png" "$icons/${size}x${size}/apps/bench-gui.png"
                changed=1
            fi
        fi
    fi
    if [ "$changed" = 1 ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
        gtk-update-icon-cache -q -t -f "$icons" >/dev/null 2>&1 || true
    fi
    return 0
}
if [ "${BENCH_GUI_NO_DESKTOP:-}" != 1 ]; then
    install_desktop_entry 2>/dev/null || true
fi

# --- start --------------------------------------------------------------------------------------
if [ "${BENCH_GUI_NO_EXEC:-}" = 1 ]; then
    say "bench_gui is installed in .venv ($venv/bin/bench-gui)"
    exit 0
fi
if [ $# -eq 0 ] && [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] \
    && [ -z "${QT_QPA_PLATFORM:-}" ]; then
    say "launch.sh: no DISPLAY or WAYLAND_DISPLAY: the GUI needs a desktop session." >&2
    say "  Without one: sh scripts/launch.sh demo --headless" >&2
    exit 1
fi
exec "$venv/bin/bench-gui" "$@"
