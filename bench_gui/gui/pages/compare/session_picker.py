"""The sessions a comparison takes: a searchable list to tick them, and the baseline.

Each line says the session's workload and how much it measured ("TPROC-C · 8 steps",
"Random read · 5 dataset sizes"): sessions of one workload compare, a mix does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
)

from bench_gui.services.session_view import format_time
from bench_gui.services.sessions import RunInfo
from bench_gui.workloads.base import UnknownWorkload, kit_for
from bench_gui.workloads.contract import WorkloadKit

ID_ROLE = Qt.ItemDataRole.UserRole + 1
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 2
STATUS_MARK = {"running": "● running", "incomplete": "◐ incomplete", "failed": "✘ failed"}


def _kit(kind: str) -> WorkloadKit | None:
    """The workload's kit; None when ``kind`` is empty (the session could not be read) or no
    kit provides it."""
    try:
        return kit_for(kind) if kind else None
    except UnknownWorkload:
        return None


def _search_words(kind: str) -> tuple[str, ...]:
    kit = _kit(kind)
    return kit.search_words if kit is not None else ()


def workload_line(kind: str, steps: int) -> str:
    """``TPROC-C · 8 steps``, ``Random read · 1 dataset size``; only the count when the
    workload is not known (``kind`` empty: the session could not be read)."""
    kit = _kit(kind)
    name, unit = (kit.label, kit.step_noun) if kit is not None else ("", "step")
    size = f"{steps} {unit}{'' if steps == 1 else 's'}"
    return f"{name}  ·  {size}" if name else size


class SessionPicker(QGroupBox):
    """Stored sessions with a tick box each, a filter, and the baseline among the ticked.

    Signals:
        changed(): the ticked sessions changed (not while the list is being filled).
    """

    changed = Signal()

    def __init__(self) -> None:
        super().__init__("Sessions")
        self._filling = False
        box = QVBoxLayout(self)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by name, workload, tag or note…")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self.apply_filter)
        box.addWidget(self.filter_edit)
        self.session_list = QListWidget()
        # Room for six sessions or so (two lines each), not three, on a laptop's screen.
        self.session_list.setMinimumHeight(300)
        self.session_list.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        # A long line (workload, size, date, status, tags) wraps rather than scroll sideways.
        self.session_list.setWordWrap(True)
        self.session_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.session_list.itemChanged.connect(self._on_checked)
        box.addWidget(self.session_list, 1)
        form = QFormLayout()
        self.baseline_combo = QComboBox()
        self.baseline_combo.setToolTip("Ratios and advantages are relative to this session")
        form.addRow("Baseline", self.baseline_combo)
        box.addLayout(form)

    def fill(
        self,
        runs: Sequence[RunInfo],
        notes: Mapping[int, tuple[list[str], str]],
        kinds: Mapping[int, str] | None = None,
    ) -> None:
        """List these sessions (with their workload by id in ``kinds``, their tags and note);
        what was ticked stays ticked."""
        checked = self.checked_ids()
        self._filling = True
        self.session_list.clear()
        for run in runs:
            tags, note = notes.get(run.id, ([], ""))
            mark = STATUS_MARK.get(run.status, "")
            kind = (kinds or {}).get(run.id, "")
            details = [workload_line(kind, run.steps), format_time(run.created_at)]
            if mark:
                details.append(mark)
            text = f"#{run.id}  {run.name}\n      {'  ·  '.join(details)}"
            if tags:  # a line of their own: the workload line keeps its place and length
                text += f"\n      tags: {', '.join(tags)}"
            item = QListWidgetItem(text)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(
                Qt.CheckState.Checked if run.id in checked else Qt.CheckState.Unchecked
            )
            item.setData(ID_ROLE, run.id)
            item.setData(
                SEARCH_ROLE,
                " ".join(
                    [
                        f"#{run.id}",
                        run.name,
                        run.engine,
                        *(k.search_words if (k := _kit(kind)) else ()),
                        note,
                        *tags,
                    ]
                ).lower(),
            )
            if note:
                item.setToolTip(note)
            self.session_list.addItem(item)
        self._filling = False
        self.apply_filter(self.filter_edit.text())

    def apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for i in range(self.session_list.count()):
            item = self.session_list.item(i)
            hidden = bool(needle) and needle not in str(item.data(SEARCH_ROLE))
            # A ticked session stays visible: what is compared is always in sight.
            item.setHidden(hidden and item.checkState() != Qt.CheckState.Checked)

    def checked_ids(self) -> list[int]:
        out = []
        for i in range(self.session_list.count()):
            item = self.session_list.item(i)
            if item.checkState() == Qt.CheckState.Checked:
                out.append(int(item.data(ID_ROLE)))
        return out

    def set_checked(self, ids: list[int]) -> None:
        """Tick exactly these sessions (in list order)."""
        self._filling = True
        for i in range(self.session_list.count()):
            item = self.session_list.item(i)
            state = Qt.CheckState.Checked if item.data(ID_ROLE) in ids else Qt.CheckState.Unchecked
            item.setCheckState(state)
        self._filling = False
        self.changed.emit()

    def names(self) -> dict[int, str]:
        """Each listed session's first line (``#id  name``), by id."""
        out = {}
        for i in range(self.session_list.count()):
            item = self.session_list.item(i)
            out[int(item.data(ID_ROLE))] = item.text().split("\n")[0]
        return out

    def set_baseline(self, run_id: int) -> bool:
        index = self.baseline_combo.findData(run_id)
        if index >= 0:
            self.baseline_combo.setCurrentIndex(index)
        return index >= 0

    def baseline_id(self) -> int | None:
        data = self.baseline_combo.currentData()
        return None if data is None else int(data)

    def offer_baselines(self, ids: list[int]) -> None:
        """The ticked sessions as baseline choices; the current baseline stays if ticked."""
        current = self.baseline_id()
        names = self.names()
        self.baseline_combo.blockSignals(True)
        self.baseline_combo.clear()
        for run_id in ids:
            self.baseline_combo.addItem(names.get(run_id, f"#{run_id}"), run_id)
        if current in ids:
            self.set_baseline(current)
        self.baseline_combo.blockSignals(False)

    def _on_checked(self, _item: QListWidgetItem) -> None:
        if not self._filling:
            self.changed.emit()
