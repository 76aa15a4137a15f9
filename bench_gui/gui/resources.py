"""Find and load the GUI's resources (icon, theme).

The resources live in ``resources/`` at the top of the source tree. An installed package may
carry them as ``bench_gui/gui/_resources`` instead (package data); both are looked up here, so
no other module needs to know where they are.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import bench_gui

if TYPE_CHECKING:
    from PySide6.QtGui import QIcon

ICON_SVG = "icon.svg"
ICON_PNG = "icon-256.png"
THEME_QSS = "theme.qss"


class ResourceError(FileNotFoundError):
    """A resource the GUI needs is missing from every place it is looked for."""


def _candidates() -> list[Path]:
    package_dir = Path(bench_gui.__file__).resolve().parent
    return [package_dir.parent / "resources", package_dir / "gui" / "_resources"]


@cache
def resource_dir() -> Path:
    """The directory holding the resources (source tree first, then the installed copy)."""
    for candidate in _candidates():
        if (candidate / THEME_QSS).is_file():
            return candidate
    places = ", ".join(str(c) for c in _candidates())
    raise ResourceError(f"bench_gui resources not found (looked in {places})")


def resource_path(name: str) -> Path:
    """The path of one resource file; raise :class:`ResourceError` if it does not exist."""
    path = resource_dir() / name
    if not path.is_file():
        raise ResourceError(f"resource {name!r} not found in {resource_dir()}")
    return path


def load_theme() -> str:
    """The application style sheet (Qt QSS)."""
    return resource_path(THEME_QSS).read_text(encoding="utf-8")


def app_icon() -> QIcon:
    """The application icon: the SVG when Qt can render it, plus the 256 px PNG."""
    from PySide6.QtGui import QIcon

    icon = QIcon()
    for name in (ICON_SVG, ICON_PNG):
        try:
            icon.addFile(str(resource_path(name)))
        except ResourceError:
            continue
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
    directory = resource_dir()
    render_icon_png(directory / ICON_SVG, directory / ICON_PNG)
    del app
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv))
