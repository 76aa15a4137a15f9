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

from bench_gui.services.session_view import StepRow
from bench_gui.wire.protocol import LATENCY_FIELDS

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
    # Shown only when some step has power figures.
    "Power\n(W)",
    "mW /\nNOPM",
    "J per\norder",
)
POWER_COLUMNS = COLUMNS[-3:]


MIN_COLUMN_PX = 112
MIN_COLUMN_PX_POWER = 88  # three more columns: still no horizontal scrolling on a wide window


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
        # The power columns come last in the model (``cell_text`` indices stay put) but are
        # shown after the measured window, next to the throughput they are divided by.
        after = header.visualIndex(COLUMNS.index("Window\n(s)"))
        for offset, name in enumerate(POWER_COLUMNS, start=1):
            header.moveSection(header.visualIndex(COLUMNS.index(name)), after + offset)
            self.setColumnHidden(COLUMNS.index(name), True)

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
                "" if step.power_w is None else f"{step.power_w:,.1f}",
                "" if step.mw_per_nopm is None else f"{step.mw_per_nopm:,.3f}",
                "" if step.j_per_new_order is None else f"{step.j_per_new_order:,.3f}",
            ]
            for col, text in enumerate(values):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if COLUMNS[col] in POWER_COLUMNS and step.power_label:
                    item.setToolTip(step.power_label)
                self.setItem(row, col, item)
        has_power = any(step.power_w is not None for step in steps)
        for name in POWER_COLUMNS:
            self.setColumnHidden(COLUMNS.index(name), not has_power)
        self.horizontalHeader().setMinimumSectionSize(
            MIN_COLUMN_PX_POWER if has_power else MIN_COLUMN_PX
        )
        self.resizeRowsToContents()

    def cell_text(self, row: int, column: str) -> str:
        item = self.item(row, COLUMNS.index(column))
        return item.text() if item is not None else ""
