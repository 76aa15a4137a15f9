"""Small widgets the pages share: an outcome banner, a read-only fitting table, a scroll
column. One copy each, so every page looks and behaves the same."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTableWidget,
    QWidget,
)


def set_prop(widget: QWidget, name: str, value: Any) -> None:
    """Set a dynamic property the style sheet selects on, and re-polish only on a change."""
    if widget.property(name) != value:
        widget.setProperty(name, value)
        widget.style().unpolish(widget)
        widget.style().polish(widget)


class Banner(QFrame):
    """A one-line outcome in the theme's banner colours (tone: ok, stopped, failed)."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("banner")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(14, 8, 14, 8)
        self.label = QLabel("")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label, 1)
        self.hide()

    def show_text(self, tone: str, text: str) -> None:
        set_prop(self, "tone", tone)
        self.label.setText(text)
        self.show()

    def clear(self) -> None:
        self.label.clear()
        self.hide()

    def text(self) -> str:
        return self.label.text() if not self.isHidden() else ""

    def tone(self) -> str:
        return str(self.property("tone") or "")


class FitTable(QTableWidget):
    """A read-only table whose columns fit their contents; one column takes the spare room.

    When the contents are wider than the view, every column keeps its natural width and the
    table scrolls sideways, instead of squeezing the stretching column to nothing.
    """

    def __init__(self, columns: tuple[str, ...], stretch: int = -1) -> None:
        super().__init__(0, len(columns))
        self.stretch_column = stretch if stretch >= 0 else len(columns) - 1
        self.setHorizontalHeaderLabels(list(columns))
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setAlternatingRowColors(True)
        self.setShowGrid(False)
        self.setWordWrap(False)
        head = self.horizontalHeader()
        head.setHighlightSections(False)
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)

    def fit_columns(self) -> None:
        head = self.horizontalHeader()
        natural = sum(
            max(self.sizeHintForColumn(c), head.sectionSizeHint(c))
            for c in range(self.columnCount())
        )
        mode = (
            QHeaderView.ResizeMode.Stretch
            if natural <= self.viewport().width()
            else QHeaderView.ResizeMode.ResizeToContents
        )
        if head.sectionResizeMode(self.stretch_column) != mode:
            head.setSectionResizeMode(self.stretch_column, mode)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self.fit_columns()


def fit_rows(table: QTableWidget, least: int, most: int) -> None:
    """Make a table as tall as its rows (between ``least`` and ``most`` of them)."""
    rows = min(max(table.rowCount(), least), most)
    row_height = table.rowHeight(0) if table.rowCount() else 0
    row_height = max(row_height, table.verticalHeader().defaultSectionSize())
    height = table.horizontalHeader().sizeHint().height() + rows * row_height
    table.setFixedHeight(height + 2 * table.frameWidth() + 4)


def scrolled(widget: QWidget) -> QScrollArea:
    """A page column that scrolls vertically when the window is short, never sideways."""
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    scroll.setWidget(widget)
    return scroll
