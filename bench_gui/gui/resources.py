"""Find and load the GUI's resources (icon, theme).

The resources ship inside the package, in ``bench_gui/resources`` (package data, the one
source of the theme, icons and report templates), and are found through
:mod:`importlib.resources`, so an editable checkout, an installed wheel and the PyInstaller
bundle all find them the same way. No other GUI module needs to know where they are.

Every resource is optional at run time: a missing theme or icon is logged as a warning and the
app starts without it (plain Qt look, no icon). Only :func:`resource_path`, for tools that need
the file itself, raises :class:`ResourceError`.
"""

from __future__ import annotations

import logging
import sys
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Final

from bench_gui.resources import folder

if TYPE_CHECKING:
    from PySide6.QtGui import QIcon

ICON_SVG: Final = "icon.svg"
ICON_PNG: Final = "icon-256.png"
THEME_QSS: Final = "theme.qss"
# Which folder of bench_gui/resources holds each file.
FOLDER_OF: Final = {ICON_SVG: "icons", ICON_PNG: "icons", THEME_QSS: "theme"}

log = logging.getLogger(__name__)


class ResourceError(FileNotFoundError):
    """A resource the caller asked for is missing from the package."""


def _item(name: str) -> Traversable:
    """Where one of the GUI's resources is (it may be missing in a broken install)."""
    return folder(FOLDER_OF[name]).joinpath(name)


def resource_path(name: str) -> Path:
    """The path of one resource file; raise :class:`ResourceError` if it is not there."""
    item = _item(name)
    if not item.is_file():
        raise ResourceError(f"resource {name!r} is missing from the bench_gui package")
    # Package data of a wheel, a checkout or the bundle is a plain file; a zipped install
    # (which pip never makes) would need importlib.resources.as_file.
    return Path(str(item))


def _read_text(name: str) -> str | None:
    try:
        return _item(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("resource %s is missing or unreadable (%s): going on without it", name, exc)
        return None


def load_theme() -> str:
    """The application style sheet (Qt QSS); empty, with a warning, when it is missing."""
    return _read_text(THEME_QSS) or ""


def app_icon() -> QIcon:
    """The application icon: the SVG when Qt can render it, plus the 256 px PNG. A missing
    file is left out with a warning (an empty icon if both are missing)."""
    from PySide6.QtGui import QIcon

    icon = QIcon()
    for name in (ICON_SVG, ICON_PNG):
        try:
            icon.addFile(str(resource_path(name)))
        except ResourceError as exc:
            log.warning("%s: the icon is shown without it", exc)
    return icon


def render_icon_png(svg: Path, png: Path, size: int = 256) -> None:
    """Render the SVG icon to a PNG of ``size`` pixels (needs a QGuiApplication)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ResourceError(f"{svg} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    if not image.save(str(png)):
        raise OSError(f"cannot write {png}")


def _main(argv: list[str]) -> int:
    """``python -m bench_gui.gui.resources render-icon``: regenerate the PNG from the SVG."""
    if argv[1:] != ["render-icon"]:
        sys.stderr.write("usage: python -m bench_gui.gui.resources render-icon\n")
        return 2
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(argv[:1])
    svg = resource_path(ICON_SVG)
    render_icon_png(svg, svg.with_name(ICON_PNG))
    del app
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv))
