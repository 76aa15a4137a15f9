"""Keep the main window within its screen: its first size, the pages' frames, the charts'
focus.

The window opens at 1600 x 1000 when the screen's free area (``availableGeometry``: without
the task bar) has the room, else at that area's size, maximized. Every page sits in a scroll
area of its own, so a page wider or taller than the room scrolls instead of pushing the
window past the screen's edge, and the window never grows by itself when a page is shown or
a run's events change what a page holds.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QGraphicsView, QScrollArea, QWidget

PREFERRED = QSize(1600, 1000)


def fitted_size(available: QRect, preferred: QSize = PREFERRED) -> tuple[QSize, bool]:
    """The window's size in ``available`` (a screen's free area) and whether to maximize it:
    ``preferred`` when it fits, else the whole free area, maximized."""
    if available.width() >= preferred.width() and available.height() >= preferred.height():
        return QSize(preferred), False
    return QSize(
        min(preferred.width(), available.width()), min(preferred.height(), available.height())
    ), True


def fit_to_screen(window: QWidget) -> QSize:
    """Size and place ``window`` for the screen it is on (the primary one before it is
    shown); returns the size chosen."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:  # no screen at all: leave the size as it is
        return window.size()
    available = screen.availableGeometry()
    size, maximize = fitted_size(available)
    window.resize(size)
    left = available.x() + (available.width() - size.width()) // 2
    top = available.y() + (available.height() - size.height()) // 2
    window.move(left, top)
    state = window.windowState() & ~Qt.WindowState.WindowMaximized
    window.setWindowState(state | Qt.WindowState.WindowMaximized if maximize else state)
    return size


def page_frame(page: QWidget) -> QScrollArea:
    """The scroll area a page sits in: it takes the room the window gives, and scrolls (in
    whichever direction needs it) when the page's minimum is larger than that room."""
    frame = QScrollArea()
    frame.setObjectName("pageFrame")
    frame.setWidgetResizable(True)
    frame.setFrameShape(QScrollArea.Shape.NoFrame)
    frame.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # not a tab stop: the page's fields are
    frame.setWidget(page)
    return frame


def no_focus_on_charts(widget: QWidget) -> int:
    """Take the charts (pyqtgraph's views) under ``widget`` out of the Tab order: they have
    nothing to type into. Returns how many were changed."""
    changed = 0
    for view in widget.findChildren(QGraphicsView):
        if view.focusPolicy() != Qt.FocusPolicy.NoFocus:
            view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            changed += 1
    return changed
