"""The Present view in a window of its own (``bench-gui present``), and in the main window.

:class:`PresentWindow` shows a :class:`~bench_gui.gui.present.view.PresentView` full screen
(or windowed, at a given size, for tests and screenshots). :func:`follow_main_window` is the
main window's ``present_factory``: a view that follows the Live page's model and leaves
presentation mode on Esc.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QLayout, QVBoxLayout, QWidget

from bench_gui.gui.present.view import PresentView

WINDOW_TITLE = "bench-gui — present"


class PresentWindow(QWidget):
    """A top-level window holding only the Present view.

    Signals:
        leave_requested(): Esc was pressed in the view, or the window was asked to close.
    """

    leave_requested = Signal()

    def __init__(self, view: PresentView | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(WINDOW_TITLE)
        self.view = view or PresentView()
        layout = QVBoxLayout(self)
        layout.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.view.leave_requested.connect(self.leave_requested)
        self.may_close = False  # set by the owner once the run has ended

    def present(self, windowed: bool = False, size: QSize | None = None) -> None:
        """Show full screen, or as a window of ``size`` (default 1280x720) when ``windowed``."""
        if windowed:
            self.resize(size or QSize(1280, 720))
            self.show()
        else:
            self.showFullScreen()
        self.view.setFocus()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        if self.may_close:
            super().closeEvent(event)
            return
        # Closing during a run asks the owner to stop it first (the window closes after).
        event.ignore()
        self.leave_requested.emit()


def follow_main_window(window: Any) -> PresentView:
    """The main window's ``present_factory``: a view over the Live page's model (the window
    feeds it as it feeds the page) that leaves presentation mode on Esc."""
    view = PresentView(model=window.live_page.model)
    view.leave_requested.connect(window.toggle_present)
    return view
