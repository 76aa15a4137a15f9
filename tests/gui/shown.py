"""A widget shown as the app shows it: with the theme's style sheet (which gives tiles and
fonts their sizes), at a given size, exposed before the test looks at it."""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from bench_gui.gui.app import apply_theme

W = TypeVar("W", bound=QWidget)


def shown_themed(qtbot: QtBot, widget: W, width: int, height: int) -> W:
    """``widget`` themed, resized to ``width`` x ``height``, shown and exposed."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app)
    qtbot.addWidget(widget)
    widget.resize(width, height)
    widget.show()
    qtbot.waitExposed(widget)
    return widget
