"""What the main window says: its title, the status bar's chips (the page's message, the
session followed) and the error dialog of the one notification path.

Each page has its own status message; the status bar shows the one of the page on screen, and
shows it again when the page comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox, QStatusBar

APP_TITLE: Final = "bench-gui"
READY: Final = "Ready"


class WindowFace(QObject):
    """The title, status bar and error dialog of ``window``; ``current()``: the name of the
    page on screen. A child of the window: the error channel's connection to
    :meth:`show_error` ends with it."""

    def __init__(self, window: QMainWindow, current: Callable[[], str]) -> None:
        super().__init__(window)
        self.window = window
        self.current = current
        self.error_box: QMessageBox | None = None
        self._status: dict[str, str] = {}
        bar = QStatusBar()
        self.status_label = QLabel(READY)
        self.status_label.setMinimumWidth(1)  # a long message never widens the window
        self.session_label = QLabel("")
        bar.addWidget(self.status_label, 1)
        bar.addPermanentWidget(self.session_label)
        window.setStatusBar(bar)

    def page_shown(self, name: str) -> None:
        """The page ``name`` came on screen: its title and its status message."""
        self.status_label.setText(self._status.get(name, READY))
        self.window.setWindowTitle(f"{name} — {APP_TITLE}")

    def set_status(self, text: str, page: str | None = None) -> None:
        """A status message of ``page`` (default: the page on screen). It shows while that
        page is on screen, and again when the page comes back."""
        name = page or self.current()
        self._status[name] = text
        if name == self.current():
            self.status_label.setText(text)

    def page_status(self, name: str) -> Callable[[str], None]:
        """A slot for the status messages of the page ``name``."""
        return lambda text: self.set_status(text, name)

    def show_error(self, title: str, details: str) -> None:
        """The error dialog of the one notification path (non-blocking)."""
        summary, _, more = details.partition("\n\n")
        box = QMessageBox(self.window)
        box.setIcon(QMessageBox.Icon.Critical)
        box.setWindowTitle(APP_TITLE)
        box.setText(title)
        box.setInformativeText(summary)
        if more:
            box.setDetailedText(more)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.error_box = box
        box.open()
        self.set_status(f"{title}: {summary}")
