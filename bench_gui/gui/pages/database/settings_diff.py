"""The diff table of the database tabs: each proposed setting against the server's value, how it
takes effect and the rule behind it; the rows to apply are ticked, a proposed value can be
edited in place."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem

from bench_gui.gui.pages.database.common import GREEN, MUTED, RED, TEXT, YELLOW, cell
from bench_gui.services.tuning_view import DiffRow

COLUMNS = ("", "Setting", "Current", "Proposed", "Takes effect", "Rule")
COL_CHECK, COL_NAME, COL_CURRENT, COL_PROPOSED, COL_EFFECT, COL_RULE = range(6)
EFFECT_WORDS = {
    "same": "unchanged",
    "reload": "reload",
    "restart": "restart",
    "invalid": "refused",
    "unknown": "unknown",
}
EFFECT_COLOURS = {
    "same": MUTED,
    "reload": GREEN,
    "restart": YELLOW,
    "invalid": RED,
    "unknown": RED,
}


class SettingsDiffTable(QTableWidget):
    """Diff rows (:class:`~bench_gui.remote.db_tuner.DiffRow`), in order, with a tick each.

    Signals:
        edited(str, str): the user typed a proposed value: setting name, new value.
        ticks_changed(): a tick was set or cleared.
    """

    edited = Signal(str, str)
    ticks_changed = Signal()

    def __init__(
        self, effect_words: dict[str, str] | None = None, reload_word: str = "on reload"
    ) -> None:
        super().__init__(0, len(COLUMNS))
        # An engine's own words: MariaDB's "reload" rows are in effect at once.
        self.effect_words = {**EFFECT_WORDS, **(effect_words or {})}
        self.reload_word = reload_word
        self.rows: list[DiffRow] = []
        self._filling = False
        self.setHorizontalHeaderLabels(list(COLUMNS))
        self.verticalHeader().setVisible(False)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.setWordWrap(False)
        head = self.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        head.setSectionResizeMode(COL_RULE, QHeaderView.ResizeMode.Stretch)
        self.itemChanged.connect(self._item_changed)

    def show_rows(
        self,
        rows: list[DiffRow],
        connected: bool,
        warnings: dict[str, str],
        keep_ticks: bool = False,
    ) -> None:
        """Show ``rows``; ``keep_ticks``: the same proposal read again keeps the user's ticks
        (a new one starts with every change ticked). ``warnings``: by setting name."""
        picked = set(self.checked_names())
        previous = {r.name: r.name in picked for r in self.rows if keep_ticks and r.changes}
        self.rows = list(rows)
        self._filling = True
        self.setRowCount(len(rows))
        for i, row in enumerate(rows):
            check = QTableWidgetItem()
            selectable = row.changes and connected
            flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            if selectable:
                flags |= Qt.ItemFlag.ItemIsUserCheckable
            check.setFlags(flags)
            ticked = selectable and previous.get(row.name, True)
            check.setCheckState(Qt.CheckState.Checked if ticked else Qt.CheckState.Unchecked)
            self.setItem(i, COL_CHECK, check)
            self.setItem(i, COL_NAME, cell(row.name))
            self.setItem(i, COL_CURRENT, cell((row.current or "—") if connected else ""))
            proposed = cell(row.proposed)
            proposed.setFlags(proposed.flags() | Qt.ItemFlag.ItemIsEditable)
            self.setItem(i, COL_PROPOSED, proposed)
            effect = cell(self.effect_words.get(row.action, row.action) if connected else "")
            effect.setForeground(QColor(EFFECT_COLOURS.get(row.action, TEXT)))
            self.setItem(i, COL_EFFECT, effect)
            rule = row.problem or row.rule
            if row.name in warnings:
                rule = f"⚠ {warnings[row.name]} — {rule}"
            rule_item = cell(rule)
            rule_item.setToolTip(rule)
            if row.problem or row.name in warnings:
                rule_item.setForeground(QColor(RED))
            self.setItem(i, COL_RULE, rule_item)
            if row.action == "same":
                for col in (COL_NAME, COL_CURRENT, COL_PROPOSED):
                    self._item(i, col).setForeground(QColor(MUTED))
        self._filling = False

    def checked_names(self) -> list[str]:
        return [
            self.rows[i].name
            for i in range(min(self.rowCount(), len(self.rows)))
            if self._item(i, COL_CHECK).checkState() == Qt.CheckState.Checked
        ]

    def set_checked(self, name: str, checked: bool) -> None:
        for i, row in enumerate(self.rows):
            if row.name == name:
                state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
                self._item(i, COL_CHECK).setCheckState(state)
                return
        raise KeyError(name)

    def summary(self, connected: bool) -> str:
        """What applying the ticked rows would do, in a line."""
        if not connected:
            return f"{len(self.rows)} settings proposed. Connect to compare them with the server."
        picked = set(self.checked_names())
        reload = sum(1 for r in self.rows if r.name in picked and r.action == "reload")
        restart = sum(1 for r in self.rows if r.name in picked and r.action == "restart")
        same = sum(1 for r in self.rows if r.action == "same")
        refused = sum(1 for r in self.rows if r.action in ("invalid", "unknown"))
        parts = [
            f"{reload + restart} to change ({reload} {self.reload_word}, {restart} need a restart)"
        ]
        if same:
            parts.append(f"{same} unchanged")
        if refused:
            parts.append(f"{refused} refused by this server")
        return ", ".join(parts)

    def ticked_changes(self) -> bool:
        """Whether a ticked row changes the server."""
        picked = set(self.checked_names())
        return any(r.changes for r in self.rows if r.name in picked)

    def _item(self, row: int, col: int) -> QTableWidgetItem:
        item = self.item(row, col)
        assert item is not None
        return item

    def _item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling:
            return
        if item.column() == COL_PROPOSED:
            self.edited.emit(self.rows[item.row()].name, item.text().strip())
        else:
            self.ticks_changed.emit()
