"""A table of sweep steps: throughput and the latency percentiles of all transactions."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from bench_gui.agent.protocol import LATENCY_FIELDS
from bench_gui.gui.store_adapter import StepRow

LATENCY_HEADERS = {
    "avg": "Avg ms",
    "p50": "p50 ms",
    "p95": "p95 ms",
    "p99": "p99 ms",
    "p999": "p99.9 ms",
    "max": "Max ms",
}
COLUMNS = (
    "Step",
    "Users",
    "NOPM",
    "TPM",
    "NOPM\n(driver)",
    "Window\n(s)",
    *(LATENCY_HEADERS[f] for f in LATENCY_FIELDS),
    "Errors",
    "Complete",
)


MIN_COLUMN_PX = 112


def _fmt_int(value: float | None) -> str:
    return "" if value is None else f"{value:,.0f}"


def _fmt_ms(value: float | None) -> str:
    if value is None:
        return ""
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


class StepTable(QTableWidget):
    """Read-only step results, one row per step, numbers right-aligned."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels(list(COLUMNS))
        self.verticalHeader().setVisible(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.setShowGrid(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(MIN_COLUMN_PX)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)

    def set_steps(self, steps: Sequence[StepRow]) -> None:
        self.setRowCount(len(steps))
        for row, step in enumerate(steps):
            values = [
                str(step.step + 1),
                str(step.vus),
                _fmt_int(step.nopm),
                _fmt_int(step.tpm),
                _fmt_int(step.nopm_driver),
                "" if step.window_s is None else f"{step.window_s:.1f}",
                *(_fmt_ms(step.latency.get(f)) for f in LATENCY_FIELDS),
                str(step.errors),
                "yes" if step.complete else "stopped",
            ]
            for col, text in enumerate(values):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.setItem(row, col, item)
        self.resizeRowsToContents()

    def cell_text(self, row: int, column: str) -> str:
        item = self.item(row, COLUMNS.index(column))
        return item.text() if item is not None else ""
