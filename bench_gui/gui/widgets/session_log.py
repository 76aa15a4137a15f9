"""A stored session's log: every line the agent and the desktop side recorded with the run.

Commands run on a target (``command`` lines, secrets already redacted by the runner), link
state changes (``link``) and the agent's info, warning and error lines sit in one table that
can be filtered by kind and searched, copied (select rows, Ctrl+C) and saved to a text file.

A long run over a flaky link logs thousands of lines, so the table is a model/view pair: a
:class:`LogTableModel` holding plain tuples and a :class:`LogFilter` proxy, no item per cell.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFontDatabase, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

COLUMNS: Final = ("Time", "Level", "Message")
WARNING_LEVELS: Final = frozenset({"warning", "warn", "error", "fatal", "critical"})
# Filter name -> the levels it shows (None: every line).
FILTERS: Final[dict[str, frozenset[str] | None]] = {
    "All": None,
    "Commands": frozenset({"command"}),
    "Link": frozenset({"link"}),
    "Warnings and errors": WARNING_LEVELS,
}
LEVEL_COLORS: Final = {
    "warning": "#f1c21b",
    "warn": "#f1c21b",
    "error": "#ff6b74",
    "fatal": "#ff6b74",
    "critical": "#ff6b74",
    "command": "#33b1ff",
    "link": "#be95ff",
}
Index = QModelIndex | QPersistentModelIndex
MONO_PX: Final = 14  # the theme's text is 15 px; a monospace face looks the same size at 14
ROW_PX: Final = 30


@dataclass(frozen=True)
class LogRow:
    """One line as the table shows it."""

    t: float
    level: str
    message: str

    @property
    def time_text(self) -> str:
        return dt.datetime.fromtimestamp(self.t).strftime("%H:%M:%S.%f")[:-3]

    @property
    def full_time(self) -> str:
        return dt.datetime.fromtimestamp(self.t).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]

    def as_text(self) -> str:
        """The line as it is copied and saved: full local time, level, message."""
        return f"{self.full_time}  {self.level:<8} {self.message}"


def log_rows(lines: Iterable[Any]) -> list[LogRow]:
    """Store log lines (``LogLine``: t, level, message) as table rows."""
    return [
        LogRow(float(getattr(line, "t", 0.0) or 0.0), str(line.level), str(line.message))
        for line in lines
    ]


class LogTableModel(QAbstractTableModel):
    """The whole log, read-only; commands in a monospace font, levels in colour."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[LogRow] = []
        self._mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self._mono.setPixelSize(MONO_PX)
        self._brushes = {level: QBrush(QColor(color)) for level, color in LEVEL_COLORS.items()}

    def set_rows(self, rows: Sequence[LogRow]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt API)
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(  # noqa: N802 (Qt API)
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (row.time_text, row.level, row.message)[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.full_time if column == 0 else row.message if column == 2 else None
        if role == Qt.ItemDataRole.FontRole and (column == 2 and row.level == "command"):
            return self._mono
        if role == Qt.ItemDataRole.ForegroundRole and column in (1, 2):
            return self._brushes.get(row.level) if column == 1 else None
        return None


class LogFilter(QSortFilterProxyModel):
    """Shows the lines of one kind (see :data:`FILTERS`) that contain the search text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.levels: frozenset[str] | None = None
        self.needle = ""

    def set_filter(self, levels: frozenset[str] | None, text: str) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt 6.9 on; invalidateFilter is deprecated
            self.beginFilterChange()
            self.levels = levels
            self.needle = text.strip().lower()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.levels = levels
            self.needle = text.strip().lower()
            self.invalidateFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:  # noqa: N802
        model = self.sourceModel()
        assert isinstance(model, LogTableModel)
        row = model.rows[source_row]
        if self.levels is not None and row.level.lower() not in self.levels:
            return False
        return not self.needle or self.needle in row.message.lower()


class SessionLogView(QWidget):
    """The Log tab of the Sessions page: filter, search, copy and save a session's log."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = LogTableModel(self)
        self.proxy = LogFilter(self)
        self.proxy.setSourceModel(self.model)
        self.run_name = ""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.setSpacing(8)
        tools = QHBoxLayout()
        tools.setSpacing(8)
        self.filter_box = QComboBox()
        self.filter_box.addItems(list(FILTERS))
        self.filter_box.setToolTip("Show every line, or only one kind")
        self.filter_box.currentIndexChanged.connect(self._apply_filter)
        tools.addWidget(self.filter_box)
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText("Search the log…")
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.textChanged.connect(self._apply_filter)
        tools.addWidget(self.search_edit, 1)
        self.count_label = QLabel("")
        self.count_label.setObjectName("muted")
        tools.addWidget(self.count_label)
        self.copy_button = QPushButton("Copy")
        self.copy_button.setToolTip("Copy the selected lines (Ctrl+C); all shown lines if none")
        self.copy_button.clicked.connect(self.copy_selection)
        tools.addWidget(self.copy_button)
        self.save_button = QPushButton("Save log…")
        self.save_button.setToolTip("Write the lines shown (the whole log without a filter)")
        self.save_button.clicked.connect(self.choose_save_file)
        tools.addWidget(self.save_button)
        layout.addLayout(tools)

        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        vertical = self.table.verticalHeader()
        vertical.setVisible(False)
        # Fixed row heights: the view never measures thousands of rows.
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vertical.setDefaultSectionSize(ROW_PX)
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        head.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        head.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.table.setColumnWidth(0, 150)
        self.table.setColumnWidth(1, 130)
        layout.addWidget(self.table, 1)
        self.empty_label = QLabel("")
        self.empty_label.setObjectName("muted")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.hide()
        layout.addWidget(self.empty_label)
        copy = QShortcut(QKeySequence(QKeySequence.StandardKey.Copy), self.table)
        copy.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        copy.activated.connect(self.copy_selection)
        self.set_lines([], "")

    # ---- data ----------------------------------------------------------------------------

    def set_lines(self, lines: Iterable[Any], run_name: str) -> None:
        """Show a session's log (``LogLine`` records, in arrival order)."""
        self.run_name = run_name
        self.model.set_rows(log_rows(lines))
        self._apply_filter()

    def clear(self) -> None:
        self.set_lines([], "")

    def set_filter(self, name: str, text: str = "") -> None:
        """Choose a filter (a key of :data:`FILTERS`) and a search text."""
        self.filter_box.setCurrentText(name)
        self.search_edit.setText(text)
        self._apply_filter()

    def _apply_filter(self, *_args: object) -> None:
        self.proxy.set_filter(FILTERS.get(self.filter_box.currentText()), self.search_edit.text())
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        self.count_label.setText(f"{shown:,} of {total:,} lines" if shown != total else "")
        if not total:
            self.empty_label.setText("Open a session to see its log." if not self.run_name else
                                     "Nothing was logged for this session.")  # fmt: skip
        elif not shown:
            self.empty_label.setText("No line matches the filter.")
        self.empty_label.setVisible(not shown)
        self.save_button.setEnabled(bool(shown))
        self.copy_button.setEnabled(bool(shown))

    def shown_rows(self) -> list[LogRow]:
        """The lines the filter lets through, in log order."""
        rows = self.model.rows
        return [
            rows[self.proxy.mapToSource(self.proxy.index(r, 0)).row()]
            for r in range(self.proxy.rowCount())
        ]

    def selected_rows(self) -> list[LogRow]:
        rows = self.model.rows
        chosen = sorted(
            self.proxy.mapToSource(index).row()
            for index in self.table.selectionModel().selectedRows()
        )
        return [rows[r] for r in chosen]

    # ---- copy and save -------------------------------------------------------------------

    def selection_text(self) -> str:
        """The selected lines (all shown lines when none is selected) as plain text."""
        rows = self.selected_rows() or self.shown_rows()
        return "\n".join(row.as_text() for row in rows)

    def copy_selection(self) -> None:
        text = self.selection_text()
        if text:
            QGuiApplication.clipboard().setText(text + "\n")

    def save(self, path: Path) -> int:
        """Write the shown lines to ``path``; the number of lines (OSError when it fails)."""
        rows = self.shown_rows()
        header = f"# bench-gui session log: {self.run_name}\n" if self.run_name else ""
        path.write_text(header + "".join(row.as_text() + "\n" for row in rows), encoding="utf-8")
        return len(rows)

    def choose_save_file(self) -> None:
        name = "".join(c if c.isalnum() or c in "-_" else "-" for c in self.run_name) or "session"
        default = Path.home() / f"{name}-log.txt"
        path, _ = QFileDialog.getSaveFileName(
            self, "Save log", str(default), "Text files (*.txt *.log);;All files (*)"
        )
        if not path:
            return
        try:
            count = self.save(Path(path))
        except OSError as exc:
            self.count_label.setText(f"Cannot save the log: {exc.strerror or exc}")
            return
        self.count_label.setText(f"{count:,} lines saved to {Path(path).name}")
