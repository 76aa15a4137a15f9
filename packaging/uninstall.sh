#!/bin/sh
# Remove the bench_gui desktop bundle that install.sh put in place for this user: exactly the
# files and folders listed in PREFIX/install-manifest.txt (PREFIX: ~/.local/opt/bench-gui, or
# $BENCH_GUI_PREFIX), nothing else. The app's data (sessions, settings, the demo database) is
# kept: it lives elsewhere (~/.local/share/bench-gui, ~/.config/bench-gui); the end of the
# output says how big it is and how to remove it.
#
#   sh ~/.local/opt/bench-gui/uninstall.sh
set -eu

die() { printf 'uninstall.sh: %s\n' "$*" >&2; exit 1; }

[ -n "${HOME:-}" ] || die "HOME is not set"
if [ -n "${BENCH_GUI_PREFIX:-}" ]; then
    prefix=$BENCH_GUI_PREFIX
elif [ -f "$(dirname "$0")/install-manifest.txt" ]; then
    prefix=$(cd "$(dirname "$0")" && pwd)
else
    prefix=$HOME/.local/opt/bench-gui
fi
data=${XDG_DATA_HOME:-$HOME/.local/share}
config=${XDG_CONFIG_HOME:-$HOME/.config}
manifest="$prefix/install-manifest.txt"
[ -f "$manifest" ] || die "$manifest not found: bench_gui is not installed there"

# Only paths under the folders install.sh writes to (a damaged manifest removes nothing else).
allowed() {
    case "$1" in
        "$prefix" | "$prefix"/*) return 0 ;;
        "$data" | "$data"/* | "$config" | "$config"/*) return 0 ;;
        "$HOME"/.local | "$HOME"/.local/*) return 0 ;;
        "$HOME"/.gnome | "$HOME"/.gnome/* | "$HOME"/.kde*/*) return 0 ;;  # xdg-desktop-menu's
        "$HOME"/.icons | "$HOME"/.icons/*) return 0 ;;  # xdg-icon-resource's link (old GTK)
    esac
    # A folder above the install folder, inside HOME (made by install.sh's mkdir -p).
    case "$prefix" in
        "$1"/*) case "$1" in "$HOME"/*) return 0 ;; esac ;;
    esac
    return 1
}

entries=$(cat "$manifest")
# Files and links first, then folders deepest first (each only once it is empty). Python may
# have left bytecode caches in the app's own folder: those go with it.
printf '%s\n' "$entries" | while IFS= read -r path; do
    [ -n "$path" ] && allowed "$path" || continue
    if [ -L "$path" ] || [ -f "$path" ]; then
        rm -f "$path"
    fi
done
if printf '%s\n' "$entries" | grep -qxF "$prefix"; then
    find "$prefix" -depth -type d -name __pycache__ -exec rm -rf {} + 2>/dev/null || true
fi
printf '%s\n' "$entries" | awk '{ print length($0) "\t" $0 }' | sort -rn | cut -f2- |
    while IFS= read -r path; do
        [ -n "$path" ] && allowed "$path" || continue
        if [ -d "$path" ] && [ ! -L "$path" ]; then
            rmdir "$path" 2>/dev/null || echo "uninstall.sh: kept $path (not empty)" >&2
        fi
    done

# The menu and icon caches that were there before the install: refreshed without our files.
apps="$data/applications"
icons="$data/icons/hicolor"
if [ -f "$apps/mimeinfo.cache" ] && command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$apps" || true
fi
if [ -f "$icons/icon-theme.cache" ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
    gtk-update-icon-cache -q -t -f "$icons" || true
fi
echo "bench_gui is uninstalled from $prefix"

# The data kept: say where, how big, and how to remove it.
kept=""
seen="
"
for dir in ${BENCH_GUI_DATA_DIR:+"$BENCH_GUI_DATA_DIR"} "$data/bench-gui" "$config/bench-gui"; do
    [ -d "$dir" ] || continue
    case "$seen" in *"
$dir
"*) continue ;; esac
    seen="$seen$dir
"
    size=$(du -sh "$dir" 2>/dev/null | cut -f1) || size=""
    [ -z "$kept" ] && echo "Your data is kept (sessions, settings, the demo database):"
    echo "  $dir (${size:-size unknown})"
    kept="$kept \"$dir\""
done
if [ -n "$kept" ]; then
    echo "To remove it too:  rm -rf$kept"
fi
