"""The Sessions page's list of stored runs: sortable by number and date, searchable by name,
engine, system, tags, note or ``#id``, narrowed to one author's sessions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QTableWidgetItem

from bench_gui.gui.widgets.page_parts import FitTable
from bench_gui.services.session_view import RunRow

RUN_COLUMNS = (
    "Name", "Date", "Status", "Engine", "Steps", "Best result", "Swept", "Tags", "Author"
)  # fmt: skip
STATUS_LABELS = {
    "running": "● running",
    "complete": "✔ complete",
    "incomplete": "◐ incomplete",
    "failed": "✘ failed",
}
STATUS_COLORS = {
    "running": "#33b1ff",
    "complete": "#42be65",
    "incomplete": "#f1c21b",
    "failed": "#ff6b74",
}
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ID_ROLE = Qt.ItemDataRole.UserRole + 2
Annotations = Mapping[int, tuple[list[str], str]]  # run id -> (tags, note)


class _Item(QTableWidgetItem):
    """A cell that sorts by its SORT_ROLE value (numbers, dates) rather than its text."""

    def __lt__(self, other: QTableWidgetItem) -> bool:
        mine, theirs = self.data(SORT_ROLE), other.data(SORT_ROLE)
        if mine is not None and theirs is not None:
            try:
                return bool(mine < theirs)
            except TypeError:
                pass
        return super().__lt__(other)


class RunTable(FitTable):
    """One row a stored run, newest first; every cell knows its run's id (``ID_ROLE``)."""

    def __init__(self) -> None:
        super().__init__(RUN_COLUMNS, stretch=0)
        self.annotations: Annotations = {}
        self.authors: dict[int, str] = {}  # run id -> who recorded it
        self.systems: dict[int, str] = {}  # run id -> the tested system (the target's label)
        self.author: str | None = None  # show only this author's runs (None: everyone's)
        # Shown after the name (the column is the last one for code that reads cells by
        # index: ``row_texts`` and the columns' numbers keep their order).
        self.horizontalHeader().moveSection(RUN_COLUMNS.index("Author"), 1)
        self.setSortingEnabled(True)
        self.sortByColumn(1, Qt.SortOrder.DescendingOrder)
        self.setMinimumHeight(120)  # three rows: the detail below keeps its room at 720 px

    def fill(self, rows: Sequence[RunRow], annotations: Annotations) -> None:
        """Show these runs (the sort order and the caller's selection are kept)."""
        self.annotations = annotations
        self.authors = {run.id: run.author for run in rows}
        self.systems = {run.id: run.system for run in rows}
        self.setSortingEnabled(False)
        self.setRowCount(len(rows))
        for r, run in enumerate(rows):
            tags = ", ".join(annotations.get(run.id, ([], ""))[0])
            cells: list[tuple[str, Any]] = [
                (run.name, run.name.lower()),
                (run.created, run.sort_key),
                (STATUS_LABELS.get(run.status, run.status), run.status),
                (run.engine, run.engine),
                (str(run.n_steps), run.n_steps),
                run.best_cell,
                (run.swept_cell, run.swept_cell),
                (tags, tags.lower()),
                (run.author, run.author.lower()),
            ]
            for c, (text, key) in enumerate(cells):
                item = _Item(text)
                item.setData(SORT_ROLE, key)
                item.setData(ID_ROLE, run.id)
                if c in (4, 5):
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if c == 2 and run.status in STATUS_COLORS:
                    item.setForeground(QColor(STATUS_COLORS[run.status]))
                self.setItem(r, c, item)
        self.setSortingEnabled(True)
        self.fit_columns()

    def apply_search(self, text: str) -> int:
        """Show only the runs matching ``text`` (name, engine, system, tags, note; ``#12`` for
        an id)
        and recorded by :attr:`author` when set; return how many are shown."""
        needle = text.strip().lower()
        shown = 0
        for r in range(self.rowCount()):
            item = self.item(r, 0)
            if item is None:
                continue
            run_id = int(item.data(ID_ROLE))
            tags, note = self.annotations.get(run_id, ([], ""))
            if needle.startswith("#") and needle[1:].isdigit():
                match = int(needle[1:]) == run_id
            else:
                engine = self.item(r, 3)
                system = self.systems.get(run_id, "")
                words = [item.text(), engine.text() if engine else "", system, note, *tags]
                match = not needle or needle in " ".join(words).lower()
            if self.author is not None:
                match = match and self.authors.get(run_id, "").lower() == self.author.lower()
            self.setRowHidden(r, not match)
            shown += int(match)
        return shown

    def visible_names(self) -> list[str]:
        """Names of the rows the search leaves visible, in display order."""
        out = []
        for r in range(self.rowCount()):
            item = self.item(r, 0)
            if item is not None and not self.isRowHidden(r):
                out.append(item.text())
        return out

    def row_texts(self) -> list[list[str]]:
        """The table's text, in display order."""
        out = []
        for r in range(self.rowCount()):
            row = []
            for c in range(self.columnCount()):
                item = self.item(r, c)
                row.append(item.text() if item is not None else "")
            out.append(row)
        return out

    def row_id(self, row: int) -> int | None:
        item = self.item(row, 0)
        return None if item is None else int(item.data(ID_ROLE))

    def selected_id(self) -> int | None:
        items = self.selectedItems()
        return int(items[0].data(ID_ROLE)) if items else None

    def select_id(self, run_id: int) -> bool:
        for r in range(self.rowCount()):
            if self.row_id(r) == run_id:
                self.selectRow(r)
                return True
        return False
