"""A read-only table showing one table of a comparison report, tones in colour.

The Compare page shows the same :class:`bench_gui.report.model.Table` objects the reports
print, so a figure on screen and in the PDF can never differ.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bench_gui.report.model import Table

TONE_COLORS = {
    "good": "#42be65",
    "bad": "#ff6b74",
    "muted": "#6f7b93",
    "flag": "#f1c21b",
    "diff": "#f1c21b",  # a configuration value that differs between sessions
    "section": "#ffffff",
    "label": "#93a0b8",
}
FLAG_BACKGROUND = "#3a2f0c"
SECTION_BACKGROUND = "#243049"  # a row naming the part of the configuration that follows
ROW_PX = 34
MAX_TEXT_PX = 420
SHARED_TEXT_PX = 840  # what the text columns of one table share, at most
MIN_TEXT_PX = 150


class ReportTableView(QTableWidget):
    """One report table: numbers right-aligned, ratios coloured, flagged cells highlighted."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, 0, parent)
        self.table: Table | None = None
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(ROW_PX)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def set_table(self, table: Table) -> None:
        self.table = table
        self.clear()
        self.clearSpans()
        self.setColumnCount(len(table.columns))
        self.setRowCount(len(table.rows))
        self.setHorizontalHeaderLabels(table.columns)
        for c in range(len(table.columns)):
            header = self.horizontalHeaderItem(c)
            if header is not None:
                left = c in table.text_columns
                header.setTextAlignment(
                    (Qt.AlignmentFlag.AlignLeft if left else Qt.AlignmentFlag.AlignRight)
                    | Qt.AlignmentFlag.AlignVCenter
                )
        for r, row in enumerate(table.rows):
            for c, cell in enumerate(row):
                item = QTableWidgetItem(cell.text)
                left = c in table.text_columns
                item.setTextAlignment(
                    (Qt.AlignmentFlag.AlignLeft if left else Qt.AlignmentFlag.AlignRight)
                    | Qt.AlignmentFlag.AlignVCenter
                )
                if cell.tone in TONE_COLORS:
                    item.setForeground(QBrush(QColor(TONE_COLORS[cell.tone])))
                if cell.tone in ("flag", "diff"):
                    item.setBackground(QBrush(QColor(FLAG_BACKGROUND)))
                if cell.tone == "section":
                    item.setBackground(QBrush(QColor(SECTION_BACKGROUND)))
                if cell.tone in ("good", "bad", "flag", "diff", "section"):
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                if len(cell.text) > 30:
                    item.setToolTip(cell.text)
                self.setItem(r, c, item)
                if cell.span > 1 and not cell.covered:
                    # A heading or a value shared by every session: once, across its columns.
                    self.setSpan(r, c, 1, cell.span)
        head = self.horizontalHeader()
        if len(table.text_columns) <= 1:
            # Figures: columns share the width evenly, as in a printed table.
            head.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
            head.setMinimumSectionSize(90)
        else:
            # Text: as wide as the content, but no column wider than MAX_TEXT_PX (the full
            # text is in the cell's tooltip), so every session's column stays in view.
            head.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
            self.resizeColumnsToContents()
            # Several sessions share a laptop's width (1366 px): narrower, each.
            cap = max(MIN_TEXT_PX, min(MAX_TEXT_PX, SHARED_TEXT_PX // len(table.columns)))
            for c in range(len(table.columns)):
                self.setColumnWidth(c, min(self.columnWidth(c), cap))
            head.setStretchLastSection(True)
        self.setToolTip("\n".join(table.notes))
        self.fit_height()

    def fit_height(self, max_rows: int = 14) -> None:
        """Tall enough for every row (up to ``max_rows``), so a tab shows tables whole."""
        header = self.horizontalHeader().sizeHint().height()
        rows = min(self.rowCount(), max_rows)
        scroll = self.horizontalScrollBar().sizeHint().height()
        self.setFixedHeight(header + rows * ROW_PX + scroll + 6)

    def cell_text(self, row: int, column: int) -> str:
        item = self.item(row, column)
        return item.text() if item is not None else ""

    def texts(self) -> list[list[str]]:
        columns = range(self.columnCount())
        return [[self.cell_text(r, c) for c in columns] for r in range(self.rowCount())]


def titled_table(table: Table) -> tuple[QWidget, ReportTableView]:
    """A report table as both comparison views show it: its title, the table, its notes."""
    box = QWidget()
    column = QVBoxLayout(box)
    column.setContentsMargins(0, 6, 0, 6)
    column.setSpacing(4)
    title = QLabel(table.label)
    title.setStyleSheet("font-weight: 600; color: #e8ecf3;")
    title.setWordWrap(True)  # a long title never widens its tab past the screen
    column.addWidget(title)
    view = ReportTableView()
    view.set_table(table)
    view.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    column.addWidget(view)
    for note in table.notes:
        label = QLabel(note)
        label.setObjectName("fieldHint")
        label.setWordWrap(True)
        column.addWidget(label)
    return box, view
