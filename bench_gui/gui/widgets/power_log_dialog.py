"""Choose a power log's time and watts columns, with its first rows shown.

Meters and loggers name their columns every which way ("Zeit", "P [W]", "Active Power"):
the columns found by name are preselected, the user can pick others, and the first rows
show at once whether the choice reads as times and watts.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.power import PowerLogPreview
from bench_gui.wire.power_math import parse_timestamp


class PowerLogDialog(QDialog):
    """Shows a :class:`PowerLogPreview`; ``time_column``/``watts_column`` hold the choice."""

    def __init__(self, path: Path, preview: PowerLogPreview, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import a power log")
        self.preview = preview
        layout = QVBoxLayout(self)
        layout.setSpacing(10)
        intro = QLabel(
            f"<b>{path.name}</b><br>Each measured step gets the average watts over exactly its"
            " window, mW per NOPM and joules per new order; the figures a meter recorded during"
            " the run are kept alongside."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.time_combo = self._combo(preview.time_column)
        self.watts_combo = self._combo(preview.watts_column)
        form.addRow("Time column", self.time_combo)
        form.addRow("Watts column", self.watts_combo)
        layout.addLayout(form)
        self.table = QTableWidget(len(preview.rows), len(preview.header))
        self.table.setHorizontalHeaderLabels(preview.header)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, row in enumerate(preview.rows):
            for c, text in enumerate(row[: len(preview.header)]):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        self.table.setMinimumHeight(60 + 30 * max(1, len(preview.rows)))
        layout.addWidget(self.table)
        self.problem = QLabel("")
        self.problem.setObjectName("fieldError")
        self.problem.setWordWrap(True)
        layout.addWidget(self.problem)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Import")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.time_combo.currentIndexChanged.connect(self._check)
        self.watts_combo.currentIndexChanged.connect(self._check)
        self.resize(720, 420)
        self._check()

    def _combo(self, chosen: str) -> QComboBox:
        combo = QComboBox()
        combo.addItem("(choose a column)", "")
        for name in self.preview.header:
            combo.addItem(name, name)
        index = combo.findData(chosen)
        combo.setCurrentIndex(max(0, index))
        return combo

    @property
    def time_column(self) -> str:
        return str(self.time_combo.currentData() or "")

    @property
    def watts_column(self) -> str:
        return str(self.watts_combo.currentData() or "")

    def problems(self) -> list[str]:
        """Why the choice cannot be imported (empty: it can)."""
        out = []
        t, w = self.time_column, self.watts_column
        if not t:
            out.append("choose the column that holds the time of each reading")
        if not w:
            out.append("choose the column that holds the watts")
        if t and t == w:
            out.append("the time and the watts must be two different columns")
        if out:
            return out
        header = self.preview.header
        ti, wi = header.index(t), header.index(w)
        rows = [r for r in self.preview.rows if len(r) > max(ti, wi)]
        if rows and not any(_is_time(r[ti]) for r in rows):
            out.append(f"“{t}” does not read as times in the first rows (e.g. {rows[0][ti]!r})")
        if rows and not any(_is_number(r[wi]) for r in rows):
            out.append(f"“{w}” does not read as watts in the first rows (e.g. {rows[0][wi]!r})")
        return out

    def _check(self) -> None:
        problems = self.problems()
        self.problem.setText("; ".join(problems).capitalize() + ("." if problems else ""))
        self.problem.setVisible(bool(problems))
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(not problems)
        for c in range(self.table.columnCount()):
            chosen = self.preview.header[c] in (self.time_column, self.watts_column)
            item = self.table.horizontalHeaderItem(c)
            if item is not None:
                font = item.font()
                font.setBold(chosen)
                item.setFont(font)
                item.setForeground(Qt.GlobalColor.white if chosen else Qt.GlobalColor.gray)


def _is_time(text: str) -> bool:
    try:
        parse_timestamp(text)
    except ValueError:
        return False
    return True


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
