#!/bin/sh
# Install the bench_gui desktop bundle for this user (no root, no Python needed).
#
#   sh install.sh            from the unpacked bench-gui-VERSION-linux-x86_64 folder
#
# Puts the app under ~/.local/opt/bench-gui ($BENCH_GUI_PREFIX), its desktop entry under
# ~/.local/share/applications and its icons under ~/.local/share/icons/hicolor ($XDG_DATA_HOME),
# with xdg-desktop-menu / xdg-icon-resource when they are installed, plain copies otherwise.
# Every file and folder it creates (the caches those tools write included) is listed in
# PREFIX/install-manifest.txt; PREFIX/uninstall.sh removes exactly those. Installing again
# first uninstalls the previous copy.
#
# What the system must provide (the bundle carries everything else): OpenGL and EGL (libGL.so.1,
# libEGL.so.1: the graphics driver's), libxcb.so.1 (the X connection) and at least one font.
# Missing any of them, install.sh names the Debian/Ubuntu and Fedora packages and installs
# nothing. BENCH_GUI_NO_DESKTOP_CHECK=1 installs anyway (a host used from the command line only).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

[ -n "${HOME:-}" ] && [ -d "$HOME" ] || die "HOME is not set or not a folder"
prefix=${BENCH_GUI_PREFIX:-$HOME/.local/opt/bench-gui}
data=${XDG_DATA_HOME:-$HOME/.local/share}
config=${XDG_CONFIG_HOME:-$HOME/.config}
case "$prefix$data$config" in
    *'
'* | *[\"\`\$\\%]*)
        die "$prefix (or $data, $config) holds a character a desktop entry cannot name" \
            "(\" \` \$ \\ % or a newline): set BENCH_GUI_PREFIX to another folder" ;;
esac
case "$prefix" in
    /*) ;;
    *) die "BENCH_GUI_PREFIX must be an absolute path, not $prefix" ;;
esac
[ -x "$here/app/bench-gui" ] || die "$here/app/bench-gui is missing: unpack the whole tarball"

# --- what the system must provide ---------------------------------------------------------------
# The Debian/Ubuntu and Fedora packages of a library the bundle does not carry.
packages_of() {
    case "$1" in
        libGL.so.1 | libGLX.so.0 | libGLdispatch.so.0) echo "libgl1|libglvnd-glx" ;;
        libEGL.so.1) echo "libegl1|libglvnd-egl" ;;
        libOpenGL.so.0) echo "libopengl0|libglvnd-opengl" ;;
        libxcb.so.1) echo "libxcb1|libxcb" ;;
        libdrm.so.2) echo "libdrm2|libdrm" ;;
        *) echo "" ;;
    esac
}
# Libraries the window's Qt parts need that neither the bundle nor the system has: ldd's
# "NAME => not found", or the one it could not load ("error while loading shared libraries").
missing_libraries() {
    internal="$here/app/_internal"
    qt="$internal/PySide6/Qt"
    command -v ldd >/dev/null 2>&1 || return 0
    for lib in "$qt/lib/libQt6Gui.so.6" "$qt/lib/libQt6Widgets.so.6" "$qt/lib/libQt6OpenGL.so.6" \
        "$qt/plugins/platforms/libqxcb.so"; do
        [ -f "$lib" ] || continue
        LD_LIBRARY_PATH="$internal:$qt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$lib" 2>&1 |
            sed -n -e 's/^[[:space:]]*\([^[:space:]]*\) => not found.*/\1/p' \
                -e 's/.*error while loading shared libraries: \([^:]*\):.*/\1/p'
    done | sed 's|.*/||' | sort -u
}
# A font Qt can draw with (without one, every character is a box).
has_font() {
    for dir in /usr/share/fonts /usr/local/share/fonts "$data/fonts" "$HOME/.fonts"; do
        [ -d "$dir" ] || continue
        found=$(find -L "$dir" -type f \( -name '*.ttf' -o -name '*.otf' -o -name '*.ttc' \
            -o -name '*.pfb' -o -name '*.pcf' -o -name '*.pcf.gz' \) 2>/dev/null | head -n 1)
        [ -n "$found" ] && return 0
    done
    return 1
}
if [ "${BENCH_GUI_NO_DESKTOP_CHECK:-}" != 1 ]; then
    lacks=""
    debian=""
    fedora=""
    for lib in $(missing_libraries); do
        pkgs=$(packages_of "$lib")
        if [ -z "$pkgs" ]; then
            lacks="$lacks  $lib
"
            continue
        fi
        deb=${pkgs%%|*}
        fed=${pkgs#*|}
        lacks="$lacks  $lib (Debian/Ubuntu: $deb; Fedora: $fed)
"
        case " $debian " in *" $deb "*) ;; *) debian="$debian $deb" ;; esac
        case " $fedora " in *" $fed "*) ;; *) fedora="$fedora $fed" ;; esac
    done
    if ! has_font; then
        lacks="$lacks  a font (none under /usr/share/fonts, /usr/local/share/fonts or ~/.fonts;
    Debian/Ubuntu: fonts-dejavu-core; Fedora: dejavu-sans-fonts)
"
        debian="$debian fonts-dejavu-core"
        fedora="$fedora dejavu-sans-fonts"
    fi
    if [ -n "$lacks" ]; then
        {
            echo "install.sh: this system lacks what the bench_gui window needs; nothing was installed:"
            printf '%s' "$lacks"
            [ -n "$debian" ] && echo "Debian/Ubuntu:  sudo apt-get install$debian"
            [ -n "$fedora" ] && echo "Fedora:         sudo dnf install$fedora"
            echo "Then run install.sh again (BENCH_GUI_NO_DESKTOP_CHECK=1 installs anyway, for"
            echo "command-line use only)."
        } >&2
        exit 1
    fi
fi

manifest="$prefix/install-manifest.txt"
if [ -f "$manifest" ]; then
    echo "Removing the previous install in $prefix"
    sh "$prefix/uninstall.sh" >/dev/null
elif [ -e "$prefix" ]; then
    die "$prefix exists and was not made by this script: remove it, or set BENCH_GUI_PREFIX"
fi

apps="$data/applications"
icons="$data/icons/hicolor"

# xdg-desktop-menu also copies the entry into the legacy GNOME 2 and KDE menu folders.
legacy_kde=$(kde"${KDE_SESSION_VERSION:-}"-config --path apps 2>/dev/null | cut -d: -f1) || true
# Everything that may appear under the folders this script (and the xdg tools) write to, plus
# those folders' parents up to HOME (mkdir -p): compared before and after to make the manifest.
watched() {
    # ~/.icons: xdg-icon-resource links it to ~/.local/share/icons where gtk-update-icon-cache
    # is not installed (its test for an old GTK).
    for dir in "$prefix" "$apps" "$icons" "$data/desktop-directories" "$config/menus" \
        "$HOME/.gnome/apps" "$HOME/.icons" ${legacy_kde:+"$legacy_kde"}; do
        parent=$dir
        while [ "$parent" != "$HOME" ] && [ "$parent" != / ] && [ -n "$parent" ]; do
            [ -e "$parent" ] && printf '%s\n' "$parent"
            parent=$(dirname "$parent")
        done
        [ -d "$dir" ] && find "$dir" 2>/dev/null
    done
    return 0
}
before=$(mktemp)
after=$(mktemp)
trap 'rm -f "$before" "$after"' EXIT
watched | sort -u >"$before"

# --- the app ----------------------------------------------------------------------------------
mkdir -p "$prefix"
cp -a "$here/app/." "$prefix/"
cp "$here/uninstall.sh" "$prefix/uninstall.sh"
chmod 755 "$prefix/uninstall.sh"
exe="$prefix/bench-gui-desktop"

# --- the desktop entry ------------------------------------------------------------------------
work=$(mktemp -d)
trap 'rm -f "$before" "$after"; rm -rf "$work"' EXIT
case "$exe" in
    *[!A-Za-z0-9/._+-]*) exec_value="\"$exe\"" ;;  # quoted: spaces and the like
    *) exec_value=$exe ;;
esac
sed -e "s|^Exec=bench-gui\$|Exec=$exec_value|" -e "s|^TryExec=.*|TryExec=$exe|" \
    "$here/share/bench-gui.desktop" >"$work/bench-gui.desktop"
# xdg-desktop-menu does not quote its paths: with a space in them, a plain copy instead.
xdg_ok=0
case "$HOME$data$config$work" in
    *[[:space:]]*) ;;
    *) command -v xdg-desktop-menu >/dev/null 2>&1 && xdg_ok=1 ;;
esac
if [ "$xdg_ok" = 1 ] && XDG_DATA_HOME=$data XDG_CONFIG_HOME=$config \
    xdg-desktop-menu install --mode user --novendor "$work/bench-gui.desktop"; then
    :
else
    mkdir -p "$apps"
    cp "$work/bench-gui.desktop" "$apps/bench-gui.desktop"
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q "$apps" || true
    fi
fi
chmod 644 "$apps/bench-gui.desktop"

# --- the icons --------------------------------------------------------------------------------
case "$here" in
    *[[:space:]]*) xdg_ok=0 ;;
esac
if [ "$xdg_ok" = 1 ] && command -v xdg-icon-resource >/dev/null 2>&1 \
    && XDG_DATA_HOME=$data xdg-icon-resource install --mode user --novendor --context apps \
        --size 256 "$here/share/icons/bench-gui.png" bench-gui; then
    :
else
    mkdir -p "$icons/256x256/apps"
    cp "$here/share/icons/bench-gui.png" "$icons/256x256/apps/bench-gui.png"
fi
mkdir -p "$icons/scalable/apps"
cp "$here/share/icons/bench-gui.svg" "$icons/scalable/apps/bench-gui.svg"
if [ -f "$icons/icon-theme.cache" ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
    gtk-update-icon-cache -q -t -f "$icons" || true
fi

# --- the manifest: what is here now and was not before ----------------------------------------
: >"$manifest"
watched | sort -u >"$after"
comm -13 "$before" "$after" >"$manifest"
grep -qxF "$manifest" "$manifest" || printf '%s\n' "$manifest" >>"$manifest"

echo "bench_gui is installed in $prefix"
echo "  menu entry: $apps/bench-gui.desktop (\"bench_gui\")"
echo "  command line: $prefix/bench-gui (for example: $prefix/bench-gui demo --headless)"
echo "  uninstall: sh $prefix/uninstall.sh"
