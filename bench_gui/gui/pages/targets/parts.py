"""Small pieces the Targets page's panels share: a compact table style, table cells, the
muted placeholder, the thin busy bar and a panel's explanation-plus-button row."""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QTableWidgetItem

OK_COLOR: Final = "#42be65"
BAD_COLOR: Final = "#ff6b74"
NEUTRAL_COLOR: Final = "#93a0b8"
# The tables here hold many columns in half a page: a notch smaller than the theme's.
COMPACT_TABLE: Final = (
    "QTableWidget { font-size: 14px; } QTableWidget::item { padding: 4px 6px; }"
    " QHeaderView::section { font-size: 13px; padding: 6px 7px; }"
)


def cell(text: str, tooltip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if tooltip:
        item.setToolTip(tooltip)
    return item


def placeholder(text: str) -> QLabel:
    """The muted line a panel shows while it has nothing to show."""
    label = QLabel(text)
    label.setObjectName("muted")
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setMinimumHeight(60)
    return label


def busy_bar() -> QProgressBar:
    """A thin indeterminate bar, hidden until the panel's work runs."""
    bar = QProgressBar()
    bar.setRange(0, 0)
    bar.setTextVisible(False)
    bar.setMaximumHeight(8)
    bar.setMinimumHeight(8)
    bar.setStyleSheet("QProgressBar { min-height: 6px; border-radius: 3px; }")
    bar.hide()
    return bar


def action_header(text: str, button: QPushButton) -> QHBoxLayout:
    """What a panel's action does, with its button on the right."""
    row = QHBoxLayout()
    row.setSpacing(12)
    label = QLabel(text)
    label.setObjectName("muted")
    label.setWordWrap(True)
    row.addWidget(label, 1)
    row.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
    return row
