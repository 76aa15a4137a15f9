"""The history of what was applied to a server or a host, and rolled back; the Apply and
Roll back buttons (both tabs have them)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QPushButton, QVBoxLayout

from bench_gui.gui.pages.database.common import RED, cell
from bench_gui.gui.widgets.page_parts import FitTable
from bench_gui.services.tuning_view import TuningEntry

HISTORY_COLUMNS = ("#", "When", "What", "Result")


class HistoryTable(FitTable):
    """Tuning history entries, newest as the store lists them; a failed one in red, every
    row's tooltip the changes it made."""

    def __init__(self, least_height: int, most_height: int) -> None:
        super().__init__(HISTORY_COLUMNS)
        self.entries: list[TuningEntry] = []
        self.setMinimumHeight(least_height)
        self.setMaximumHeight(most_height)

    def show_entries(self, entries: list[TuningEntry]) -> None:
        self.entries = list(entries)
        self.setRowCount(len(entries))
        for i, entry in enumerate(entries):
            ok = entry.result.get("ok", True)
            result = entry.result.get("summary") or entry.result.get("error") or ""
            cells = (
                f"#{entry.id}",
                entry.created_at[:19].replace("T", " "),
                entry.describe(),
                result if ok else f"FAILED: {result}",
            )
            changes = "\n".join(
                f"{name}: {c.get('from')} → {c.get('to')}" for name, c in entry.changes.items()
            )
            for col, text in enumerate(cells):
                item = cell(str(text))
                item.setToolTip(changes or str(text))
                if not ok:
                    item.setForeground(QColor(RED))
                self.setItem(i, col, item)
        self.fit_columns()

    def open_apply(self) -> bool:
        """Whether an apply shown here can still be rolled back."""
        return any(
            e.action == "apply" and e.undone_by is None and e.snapshot is not None
            for e in self.entries
        )


def history_group(
    title: str, least_height: int, most_height: int
) -> tuple[QGroupBox, HistoryTable]:
    """A titled box holding a history table."""
    group = QGroupBox(title)
    table = HistoryTable(least_height, most_height)
    QVBoxLayout(group).addWidget(table)
    return group, table


def apply_buttons(
    apply: Callable[[], object], rollback: Callable[[], object], row: QHBoxLayout | None = None
) -> tuple[QPushButton, QPushButton]:
    """(Roll back last, Apply): the danger and the primary action of a tab, added at the end
    of ``row`` if given."""
    rollback_button = QPushButton("Roll back last")
    rollback_button.setProperty("role", "danger")
    rollback_button.clicked.connect(lambda: rollback())
    apply_button = QPushButton("Apply")
    apply_button.setProperty("role", "primary")
    apply_button.clicked.connect(lambda: apply())
    if row is not None:
        row.addWidget(rollback_button)
        row.addWidget(apply_button)
    return rollback_button, apply_button
