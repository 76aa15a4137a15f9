"""The side panel: the app's name, the page list, the re-attach action and the version.

It has two widths. Full (190 px, with the app's name) on a wide window; compact (a narrow
list, no name or version) when the window is narrower than :data:`COMPACT_BELOW`, so a
1280 or 1366 px laptop screen keeps its width for the pages. The page list takes the keyboard
focus (Tab reaches it; Up and Down switch pages) and shows that it has it.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bench_gui import __version__

FULL_WIDTH = 190
COMPACT_WIDTH = 124
# A window narrower than this gets the compact panel (1366 and 1280 px screens do).
COMPACT_BELOW = 1480
# What the tool is for, under its name: both workloads (TPROC-C sweeps, random-read studies).
TAGLINE = "OLTP & storage test bench"

PANEL_STYLE = """
QPushButton#navAction {
    background-color: transparent; border: 1px solid #2a3140; border-radius: 8px;
    color: #b9c3d6; font-size: 14px; font-weight: 600; padding: 8px 10px;
    margin: 4px 12px 8px 12px;
}
QPushButton#navAction:hover { background-color: #1a2130; color: #ffffff; border-color: #3a4459; }
QPushButton#navAction:focus { border-color: #33b1ff; }
QListWidget#navigation:focus { border-right: 2px solid #33b1ff; }
QLabel#brandSub[tagline="true"] { font-size: 12px; padding: 0px 8px 12px 16px; }
QWidget#navPanel[compact="true"] QListWidget#navigation { font-size: 15px; }
QWidget#navPanel[compact="true"] QListWidget#navigation::item {
    padding: 10px 8px; margin: 2px 4px;
}
QWidget#navPanel[compact="true"] QPushButton#navAction {
    margin: 4px 4px 8px 4px; padding: 6px 4px;
}
"""


class NavPanel(QWidget):
    """The page list and what sits around it.

    Signals:
        reattach_requested(): the "Re-attach runs…" button was clicked.
    """

    reattach_requested = Signal()

    def __init__(self, pages: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("navPanel")
        self.setStyleSheet(PANEL_STYLE)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.brand = QLabel("bench-gui")
        self.brand.setObjectName("brand")
        column.addWidget(self.brand)
        self.brand_sub = QLabel(TAGLINE)
        self.brand_sub.setProperty("tagline", True)  # a size of its own: one line in the panel
        self.brand_sub.setWordWrap(True)  # on a screen whose font is wider, two
        self.brand_sub.setToolTip(
            "TPROC-C database sweeps and random-read storage studies, measured and compared"
        )
        self.brand_sub.setObjectName("brandSub")
        column.addWidget(self.brand_sub)
        self.nav = QListWidget()
        self.nav.setObjectName("navigation")
        self.nav.setAccessibleName("Pages")
        self.nav.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.nav.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        for number, name in enumerate(pages, start=1):
            item = QListWidgetItem(name, self.nav)
            item.setToolTip(f"{name} (Ctrl+{number})")
        column.addWidget(self.nav, 1)
        self.reattach_button = QPushButton("Re-attach runs…")
        self.reattach_button.setObjectName("navAction")
        self.reattach_button.setToolTip(
            "Look for runs left on driver hosts (after bench-gui was closed or crashed)"
            " and fetch what they recorded"
        )
        self.reattach_button.clicked.connect(self.reattach_requested)
        column.addWidget(self.reattach_button)
        self.version = QLabel(f"v{__version__}")
        self.version.setObjectName("brandSub")
        column.addWidget(self.version)
        self.compact = False
        self.setFixedWidth(FULL_WIDTH)

    def set_compact(self, compact: bool) -> None:
        """The narrow panel (no name, no version, a shorter button) or the full one."""
        if compact == self.compact:
            return
        self.compact = compact
        self.setProperty("compact", compact)
        self.style().unpolish(self)
        self.style().polish(self)
        for widget in (self.brand, self.brand_sub, self.version):
            widget.setVisible(not compact)
        self.reattach_button.setText("Re-attach…" if compact else "Re-attach runs…")
        self.setFixedWidth(COMPACT_WIDTH if compact else FULL_WIDTH)
        # The children's rules select on the panel's property: polish them again too.
        for child in self.findChildren(QWidget):
            child.style().unpolish(child)
            child.style().polish(child)

    def fit_width(self, window_width: int) -> None:
        """Compact below :data:`COMPACT_BELOW` px of window width, full above."""
        self.set_compact(window_width < COMPACT_BELOW)
