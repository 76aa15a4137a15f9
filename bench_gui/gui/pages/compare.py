"""The Compare page: two or more sessions against a baseline, as a technical brief shows them.

On the left the user picks the sessions and the baseline, the stop condition that defines the
saturation point, and the prices (each array's devices and count, unit prices, a cost entered
by hand, the power price). On the right the comparison: fast facts, then tabs with the overlaid
charts (saturation marked) and the tables, exactly the ones the reports print - the page shows
a :class:`~bench_gui.report.model.Report`, built by the same code as ``bench-gui compare``.

Price edits apply to the comparison at once; "Save prices" keeps them in the session store
(the price list, the power price, each session's array).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.economics import ArrayInput, DevicePrice, PowerPrice, find_price
from bench_gui.core.saturation import DEFAULT_MIN_GAIN_PCT, StopConditions
from bench_gui.gui.store_adapter import format_time
from bench_gui.gui.widgets.compare_charts import OverlayChart, session_color
from bench_gui.gui.widgets.report_table import ReportTableView
from bench_gui.report.model import Report, Section

ID_ROLE = Qt.ItemDataRole.UserRole + 1
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 2
CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CHF")
ARRAY_COLUMNS = ("", "Device model", "Qty", "Unit price", "Cost by\nhand")
PAGE_NOTE = "entered on the Compare page"
# Report sections -> the tab that shows them.
TABS = (
    ("Throughput", ("throughput",)),
    ("Response time", ("latency_avg", "latency_p999")),
    ("Power", ("power",)),
    ("Saturation", ("saturation",)),
    ("Economics", ("economics",)),
    ("Repeatability", ("repeatability",)),
    ("Configuration", ("configuration",)),
)
SUBTITLE = (
    "Two or more sessions against a baseline: throughput, response time, saturation, economics"
)
STATUS_MARK = {"running": "● running", "incomplete": "◐ incomplete", "failed": "✘ failed"}


def _clear(layout: QLayout) -> None:
    while layout.count():
        item = layout.takeAt(0)
        if item is None:
            break
        widget = item.widget()
        child = item.layout()
        if widget is not None:
            widget.deleteLater()
        elif child is not None:
            _clear(child)


def _float(text: str) -> float | None:
    text = text.strip().replace(",", "").lstrip("$€£¥")
    if not text:
        return None
    return float(text)


class FactCard(QFrame):
    """One fast fact: the figure, what it is, and between which sessions - wrapped, so five
    of them share the page's width."""

    def __init__(self, value: str, text: str, detail: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("factCard")
        self.setStyleSheet(
            "QFrame#factCard { background-color: #1a1f29; border: 1px solid #2a3140;"
            " border-left: 5px solid #42be65; border-radius: 10px; }"
            "QFrame#factCard QLabel { background: transparent; border: none; }"
        )
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        column = QVBoxLayout(self)
        column.setContentsMargins(14, 8, 10, 8)
        column.setSpacing(0)
        self.value_label = QLabel(value)
        self.value_label.setStyleSheet("color: #ffffff; font-size: 27px; font-weight: 700;")
        column.addWidget(self.value_label)
        self.text_label = QLabel(text)
        self.text_label.setWordWrap(True)
        self.text_label.setStyleSheet("color: #c9d1e0; font-size: 15px; font-weight: 600;")
        column.addWidget(self.text_label)
        self.detail_label = QLabel(detail)
        self.detail_label.setWordWrap(True)
        self.detail_label.setStyleSheet("color: #7f8aa1; font-size: 13px;")
        column.addWidget(self.detail_label)
        column.addStretch(1)
        for label in (self.value_label, self.text_label, self.detail_label):
            label.setMinimumWidth(10)

    @property
    def value_text(self) -> str:
        return self.value_label.text()


class ComparePage(QWidget):
    """Choose sessions, baseline, thresholds and prices; see and export the comparison.

    Signals:
        status(str): a line for the status bar.
        compared(object): a new :class:`Report` is shown.
    """

    status = Signal(str)
    compared = Signal(object)

    def __init__(self, store: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.report: Report | None = None
        self.charts: dict[str, OverlayChart] = {}
        self.table_views: dict[str, ReportTableView] = {}
        self.tiles: list[FactCard] = []
        self._array_rows: list[int] = []
        self._filling = False
        self._build_ui()

    # ---- construction --------------------------------------------------------------------

    def _build_ui(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(20, 16, 20, 12)
        outer.setSpacing(10)

        header = QHBoxLayout()
        titles = QVBoxLayout()
        titles.setSpacing(0)
        title = QLabel("Compare")
        title.setObjectName("pageTitle")
        titles.addWidget(title)
        self.subtitle = QLabel(SUBTITLE)
        self.subtitle.setObjectName("pageSubtitle")
        titles.addWidget(self.subtitle)
        header.addLayout(titles, 1)
        self.export_button = QPushButton("Export  ▾")
        self.export_button.setEnabled(False)
        menu = QMenu(self.export_button)
        for text, suffix in (
            ("Report as PDF…", ".pdf"),
            ("Report as HTML…", ".html"),
            ("Tables as CSV…", ".csv"),
            ("Tables as JSON…", ".json"),
        ):
            action = QAction(text, menu)
            action.triggered.connect(lambda _=False, s=suffix: self.choose_report_file(s))
            menu.addAction(action)
        menu.addSeparator()
        for text, fmt in (("Charts as PNG…", "png"), ("Charts as SVG…", "svg")):
            action = QAction(text, menu)
            action.triggered.connect(lambda _=False, f=fmt: self.choose_chart_folder(f))
            menu.addAction(action)
        self.export_button.setMenu(menu)
        header.addWidget(self.export_button)
        self.compare_button = QPushButton("Compare")
        self.compare_button.setProperty("role", "primary")
        self.compare_button.clicked.connect(self.compare)
        header.addWidget(self.compare_button)
        outer.addLayout(header)

        self.error_label = QLabel("")
        self.error_label.setObjectName("fieldError")
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        outer.addWidget(self.error_label)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self._build_inputs())
        splitter.addWidget(self._build_results())
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([540, 1200])
        outer.addWidget(splitter, 1)

    def _build_inputs(self) -> QWidget:
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(540)
        scroll.setMaximumWidth(640)
        panel = QWidget()
        column = QVBoxLayout(panel)
        column.setContentsMargins(0, 0, 8, 0)
        column.setSpacing(4)

        sessions = QGroupBox("Sessions")
        box = QVBoxLayout(sessions)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by name, tag or note…")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.textChanged.connect(self.apply_filter)
        box.addWidget(self.filter_edit)
        self.session_list = QListWidget()
        self.session_list.setMinimumHeight(200)
        self.session_list.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.session_list.itemChanged.connect(self._on_checked)
        box.addWidget(self.session_list, 1)
        form = QFormLayout()
        self.baseline_combo = QComboBox()
        self.baseline_combo.setToolTip("Ratios and advantages are relative to this session")
        form.addRow("Baseline", self.baseline_combo)
        box.addLayout(form)
        column.addWidget(sessions, 3)

        stop = QGroupBox("Saturation point (stop condition)")
        form = QFormLayout(stop)
        self.min_gain_spin = QDoubleSpinBox()
        self.min_gain_spin.setRange(0.0, 100.0)
        self.min_gain_spin.setDecimals(1)
        self.min_gain_spin.setSuffix(" %")
        self.min_gain_spin.setValue(DEFAULT_MIN_GAIN_PCT)
        self.min_gain_spin.setToolTip("Stop when one more step adds less NOPM than this")
        form.addRow("Min. NOPM gain per step", self.min_gain_spin)
        self.max_avg_spin = self._limit_spin()
        form.addRow("Avg response time limit", self.max_avg_spin)
        self.max_p999_spin = self._limit_spin()
        form.addRow("p99.9 response time limit", self.max_p999_spin)
        column.addWidget(stop)

        prices = QGroupBox("Prices")
        box = QVBoxLayout(prices)
        self.array_table = QTableWidget(0, len(ARRAY_COLUMNS))
        self.array_table.setHorizontalHeaderLabels(list(ARRAY_COLUMNS))
        self.array_table.verticalHeader().setVisible(False)
        self.array_table.setMinimumHeight(130)
        head = self.array_table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        head.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for col, width in ((0, 58), (2, 54), (3, 96), (4, 96)):
            self.array_table.setColumnWidth(col, width)
        self.array_table.setToolTip(
            "Each session's array: device model and count (from its storage layout when it"
            " was stored), the device's unit price, and a cost entered by hand if you have one."
            " A hand cost that disagrees with unit price x count is flagged."
        )
        box.addWidget(self.array_table)
        form = QFormLayout()
        self.currency_combo = QComboBox()
        self.currency_combo.setEditable(True)
        self.currency_combo.addItems(CURRENCIES)
        form.addRow("Currency", self.currency_combo)
        self.power_spin = QDoubleSpinBox()
        self.power_spin.setRange(0.0, 100.0)
        self.power_spin.setDecimals(4)
        self.power_spin.setSingleStep(0.01)
        self.power_spin.setSpecialValueText("not set")
        self.power_spin.setSuffix(" per kWh")
        form.addRow("Power price", self.power_spin)
        box.addLayout(form)
        buttons = QHBoxLayout()
        self.price_hint = QLabel("Edits apply to the comparison; save to keep them.")
        self.price_hint.setObjectName("fieldHint")
        self.price_hint.setWordWrap(True)
        buttons.addWidget(self.price_hint, 1)
        self.save_prices_button = QPushButton("Save prices")
        self.save_prices_button.clicked.connect(self.save_prices)
        buttons.addWidget(self.save_prices_button)
        box.addLayout(buttons)
        column.addWidget(prices, 2)

        report = QGroupBox("Report")
        form = QFormLayout(report)
        self.title_edit = QLineEdit()
        self.title_edit.setPlaceholderText("From the session names")
        form.addRow("Title", self.title_edit)
        self.page_combo = QComboBox()
        self.page_combo.addItem("Letter", "letter")
        self.page_combo.addItem("A4", "a4")
        form.addRow("PDF page", self.page_combo)
        column.addWidget(report)

        scroll.setWidget(panel)
        return scroll

    @staticmethod
    def _limit_spin() -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setRange(0.0, 3_600_000.0)
        spin.setDecimals(1)
        spin.setSuffix(" ms")
        spin.setSpecialValueText("no limit")
        spin.setValue(0.0)
        return spin

    def _build_results(self) -> QWidget:
        panel = QWidget()
        column = QVBoxLayout(panel)
        column.setContentsMargins(8, 0, 0, 0)
        column.setSpacing(10)
        self.facts_row = QHBoxLayout()
        self.facts_row.setSpacing(12)
        column.addLayout(self.facts_row)
        self.notes_label = QLabel("")
        self.notes_label.setObjectName("compareNotes")
        self.notes_label.setWordWrap(True)
        self.notes_label.setStyleSheet(
            "QLabel#compareNotes { background-color: #33290a; border: 1px solid #f1c21b;"
            " border-radius: 8px; padding: 8px 12px; color: #f5e3a3; font-size: 14px; }"
        )
        self.notes_label.hide()
        column.addWidget(self.notes_label)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.setStyleSheet(
            "QTabBar::tab { padding: 10px 20px; font-size: 15px; font-weight: 600;"
            " color: #93a0b8; background: transparent; border: none;"
            " border-bottom: 3px solid transparent; }"
            "QTabBar::tab:hover { color: #ffffff; }"
            "QTabBar::tab:selected { color: #ffffff; border-bottom: 3px solid #33b1ff; }"
            "QTabWidget::pane { border: none; border-top: 1px solid #2a3140; }"
        )
        self.placeholder = self._placeholder()
        self.tabs.addTab(self.placeholder, "Comparison")
        column.addWidget(self.tabs, 1)
        return panel

    @staticmethod
    def _placeholder() -> QLabel:
        label = QLabel(
            "Tick two or more sessions, choose the baseline and press Compare.\n\nThe"
            " comparison shows NOPM and TPM ratios per user count, response-time advantages,"
            " each configuration at its saturation point, what differs in their configuration,"
            " how repeatable the figures are, and the array cost of a new order."
        )
        label.setObjectName("muted")
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        return label

    # ---- sessions ------------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the sessions (keeping what is ticked) and the stored prices."""
        checked = self.checked_ids()
        try:
            runs = self.store.list_runs()
            notes = self.store.annotations()
            power = self.store.power_price()
        except Exception as exc:  # the store names the file and the reason
            self.show_error(f"Cannot read the sessions: {exc}")
            return
        self._filling = True
        self.session_list.clear()
        for run in runs:
            tags, note = notes.get(run.id, ([], ""))
            mark = STATUS_MARK.get(run.status, "")
            details = [format_time(run.created_at), f"{run.steps} steps"]
            if mark:
                details.append(mark)
            if tags:
                details.append(", ".join(tags))
            item = QListWidgetItem(f"#{run.id}  {run.name}\n      {'  ·  '.join(details)}")
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(
                Qt.CheckState.Checked if run.id in checked else Qt.CheckState.Unchecked
            )
            item.setData(ID_ROLE, run.id)
            item.setData(
                SEARCH_ROLE, " ".join([f"#{run.id}", run.name, run.engine, note, *tags]).lower()
            )
            if note:
                item.setToolTip(note)
            self.session_list.addItem(item)
        self._filling = False
        if power is not None and self.power_spin.value() == 0:
            self.power_spin.setValue(power.per_kwh)
            self.currency_combo.setCurrentText(power.currency)
        self.apply_filter(self.filter_edit.text())
        self._sessions_changed()

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
        self._sessions_changed()

    def set_baseline(self, run_id: int) -> bool:
        index = self.baseline_combo.findData(run_id)
        if index >= 0:
            self.baseline_combo.setCurrentIndex(index)
        return index >= 0

    def baseline_id(self) -> int | None:
        data = self.baseline_combo.currentData()
        return None if data is None else int(data)

    def _on_checked(self, _item: QListWidgetItem) -> None:
        if not self._filling:
            self._sessions_changed()

    def _sessions_changed(self) -> None:
        ids = self.checked_ids()
        current = self.baseline_id()
        names = {}
        for i in range(self.session_list.count()):
            item = self.session_list.item(i)
            names[int(item.data(ID_ROLE))] = item.text().split("\n")[0]
        self.baseline_combo.blockSignals(True)
        self.baseline_combo.clear()
        for run_id in ids:
            self.baseline_combo.addItem(names.get(run_id, f"#{run_id}"), run_id)
        if current in ids:
            self.set_baseline(current)
        self.baseline_combo.blockSignals(False)
        self._fill_arrays(ids)
        self.compare_button.setEnabled(len(ids) >= 2)
        count = len(ids)
        self.status.emit(
            f"{count} session{'s' if count != 1 else ''} ticked" if count else "No session ticked"
        )

    # ---- prices --------------------------------------------------------------------------

    def _fill_arrays(self, ids: list[int]) -> None:
        from bench_gui.store.compare_input import array_input

        kept: dict[int, list[str]] = {}
        for r, run_id in enumerate(self._array_rows):
            kept[run_id] = [self._array_text(r, c) for c in range(1, len(ARRAY_COLUMNS))]
        try:
            prices = self.store.device_prices()
        except Exception:
            prices = []
        names = {}
        for i in range(self.session_list.count()):
            entry = self.session_list.item(i)
            names[int(entry.data(ID_ROLE))] = entry.text().split("\n")[0]
        self.array_table.setRowCount(len(ids))
        for r, run_id in enumerate(ids):
            if run_id in kept:
                values = kept[run_id]
            else:
                try:
                    detail = self.store.get_run(run_id)
                    spec = array_input(self.store, detail)
                except Exception:
                    spec = ArrayInput()
                price = find_price(spec.device, prices) if spec.device else None
                values = [
                    spec.device or "",
                    "" if spec.count is None else str(spec.count),
                    "" if price is None else f"{price.unit_price:g}",
                    "" if spec.hand_cost is None else f"{spec.hand_cost:g}",
                ]
                if spec.currency:
                    self.currency_combo.setCurrentText(spec.currency)
                elif price is not None:
                    self.currency_combo.setCurrentText(price.currency)
            session_item = QTableWidgetItem(f"#{run_id}")
            session_item.setToolTip(names.get(run_id, ""))
            session_item.setFlags(session_item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            session_item.setForeground(Qt.GlobalColor.white)
            self.array_table.setItem(r, 0, session_item)
            for c, text in enumerate(values, start=1):
                item = QTableWidgetItem(text)
                if c > 1:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.array_table.setItem(r, c, item)
        self._array_rows = list(ids)

    def _array_text(self, row: int, column: int) -> str:
        item = self.array_table.item(row, column)
        return item.text().strip() if item is not None else ""

    def set_array(
        self,
        run_id: int,
        device: str | None = None,
        count: int | None = None,
        unit_price: float | None = None,
        hand_cost: float | None = None,
    ) -> None:
        """Fill a session's row of the price table (as a user would type it)."""
        row = self._array_rows.index(run_id)
        for column, value in ((1, device), (2, count), (3, unit_price), (4, hand_cost)):
            if value is not None:
                self.array_table.setItem(row, column, QTableWidgetItem(f"{value}"))

    def price_inputs(
        self,
    ) -> tuple[dict[int, ArrayInput], list[DevicePrice], PowerPrice | None]:
        """Arrays, the price list with this page's unit prices on top, the power price; raise
        ValueError naming the cell that is not a number."""
        currency = self.currency_combo.currentText().strip().upper() or "USD"
        today = dt.date.today().isoformat()
        prices = list(self.store.device_prices())
        arrays: dict[int, ArrayInput] = {}
        for r, run_id in enumerate(self._array_rows):
            device = self._array_text(r, 1) or None
            try:
                count_text = self._array_text(r, 2)
                count = int(count_text) if count_text else None
                unit = _float(self._array_text(r, 3))
                cost = _float(self._array_text(r, 4))
            except ValueError:
                raise ValueError(
                    f"session #{run_id}: count, unit price and array cost must be numbers"
                ) from None
            if count is not None and count < 1:
                raise ValueError(f"session #{run_id}: the device count must be at least 1")
            if device and unit is not None:
                listed = find_price(device, prices)
                if listed is None or listed.unit_price != unit or listed.currency != currency:
                    prices.append(DevicePrice(device, unit, currency, today, PAGE_NOTE))
            arrays[run_id] = ArrayInput(
                device=device,
                count=count,
                hand_cost=cost,
                currency=currency if cost is not None else None,
                origin="hand",
            )
        power = None
        if self.power_spin.value() > 0:
            power = PowerPrice(self.power_spin.value(), currency, today, PAGE_NOTE)
        return arrays, prices, power

    def save_prices(self) -> bool:
        """Keep the page's prices: new unit prices in the price list, each session's array,
        the power price. Returns False (message shown) on bad input."""
        from bench_gui.store.compare_input import array_from_layout, storage_layout

        try:
            arrays, prices, power = self.price_inputs()
            stored = self.store.device_prices()
            for price in prices:
                if price.source == PAGE_NOTE and price not in stored:
                    self.store.add_device_price(price)
            for run_id, array in arrays.items():
                layout = array_from_layout(storage_layout(self.store.get_run(run_id)))
                same = (array.device, array.count) == (layout.device, layout.count)
                if same and array.hand_cost is None:
                    self.store.set_run_array(run_id, None)
                else:
                    self.store.set_run_array(run_id, array)
            current = self.store.power_price()
            if power is not None and (
                current is None
                or (current.per_kwh, current.currency) != (power.per_kwh, power.currency)
            ):
                self.store.add_power_price(power)
        except Exception as exc:
            self.show_error(f"Cannot save the prices: {exc}")
            return False
        self.error_label.hide()
        self.price_hint.setText(f"Prices saved {dt.datetime.now():%H:%M}.")
        self.status.emit("Prices saved")
        return True

    # ---- comparing -----------------------------------------------------------------------

    def conditions(self) -> StopConditions:
        return StopConditions(
            self.min_gain_spin.value(),
            self.max_avg_spin.value() or None,
            self.max_p999_spin.value() or None,
        )

    def compare(self) -> bool:
        """Compare the ticked sessions; False (and a clear message) when they cannot be."""
        from bench_gui.report.model import build_report

        ids = self.checked_ids()
        baseline = self.baseline_id()
        if len(ids) < 2 or baseline is None:
            self.clear_results()
            self.show_error(
                "Tick at least two sessions to compare, and choose which one is the baseline."
            )
            return False
        try:
            arrays, prices, power = self.price_inputs()
            report = build_report(
                self.store,
                ids,
                baseline,
                self.conditions(),
                title=self.title_edit.text().strip() or None,
                arrays=arrays,
                prices=prices,
                power_price=power,
            )
        except Exception as exc:  # CompareError, bad prices, a store error: all say why
            self.clear_results()
            self.show_error(f"Cannot compare: {exc}")
            return False
        self.error_label.hide()
        self.show_report(report)
        return True

    def clear_results(self) -> None:
        """Back to the empty state: a failed comparison never leaves an older one on show."""
        self.report = None
        self.charts = {}
        self.table_views = {}
        _clear(self.facts_row)
        self.tiles = []
        self.notes_label.hide()
        self.tabs.clear()
        self.placeholder = self._placeholder()
        self.tabs.addTab(self.placeholder, "Comparison")
        self.export_button.setEnabled(False)
        self.subtitle.setText(SUBTITLE)

    def show_report(self, report: Report) -> None:
        self.report = report
        self.subtitle.setText(report.title)
        self._show_facts(report)
        if report.notes:
            self.notes_label.setText("\n".join(f"⚑  {n}" for n in report.notes))
            self.notes_label.show()
        else:
            self.notes_label.hide()
        colors = {s.id: session_color(i) for i, s in enumerate(report.comparison.sessions)}
        self.charts = {}
        self.table_views = {}
        current = self.tabs.tabText(self.tabs.currentIndex())
        self.tabs.clear()
        sections = {s.key: s for s in report.sections}
        for name, keys in TABS:
            present = [sections[k] for k in keys if k in sections]
            if not present:
                continue
            self.tabs.addTab(self._tab(report, present, list(colors.values())), name)
        for i in range(self.tabs.count()):
            if self.tabs.tabText(i) == current:
                self.tabs.setCurrentIndex(i)
        self.export_button.setEnabled(True)
        self.status.emit(
            f"Compared {len(report.comparison.sessions)} sessions against"
            f" {report.names[report.comparison.baseline.id]}"
        )
        self.compared.emit(report)

    def _show_facts(self, report: Report) -> None:
        _clear(self.facts_row)
        self.tiles = []
        for fact in report.facts[:5]:
            card = FactCard(fact.value, fact.text, fact.detail)
            self.facts_row.addWidget(card, 1)
            self.tiles.append(card)

    def _tab(self, report: Report, sections: list[Section], colors: list[str]) -> QWidget:
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(4, 12, 12, 12)
        column.setSpacing(8)
        for section in sections:
            heading = QLabel(section.heading)
            heading.setObjectName("sectionTitle")
            heading.setStyleSheet("font-size: 19px;")
            column.addWidget(heading)
            for block in section.blocks:
                column.addWidget(self._block(report, block.kind, block.content, colors))
            if section.key == "configuration" and "config_all" in report.tables:
                column.addWidget(self._table(report, "config_all"))
        column.addStretch(1)
        scroll.setWidget(body)
        return scroll

    def _block(self, report: Report, kind: str, content: str, colors: list[str]) -> QWidget:
        if kind == "chart":
            chart = OverlayChart(
                report.charts[content].title,
                report.charts[content].y_label,
                count_axis=report.charts[content].unit == "",
            )
            chart.set_spec(report.charts[content], colors)
            chart.setMinimumHeight(360)
            self.charts[content] = chart
            return chart
        if kind == "table":
            return self._table(report, content)
        label = QLabel(content)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if kind == "headline":
            label.setStyleSheet("color: #7cc4ff; font-size: 16px; font-weight: 600;")
        elif kind == "formula":
            label.setStyleSheet(
                "font-family: 'DejaVu Sans Mono'; background: #1a2130; border-left: 3px solid"
                " #33b1ff; padding: 6px 10px;"
            )
        elif kind == "message":
            label.setText(f"⚑  {content}")
            label.setStyleSheet("color: #f1c21b;")
        else:
            label.setObjectName("muted")
        return label

    def _table(self, report: Report, key: str) -> QWidget:
        table = report.tables[key]
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 6, 0, 6)
        column.setSpacing(4)
        title = QLabel(table.label)
        title.setStyleSheet("font-weight: 600; color: #e8ecf3;")
        column.addWidget(title)
        view = ReportTableView()
        view.set_table(table)
        view.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.table_views[key] = view
        column.addWidget(view)
        for note in table.notes:
            label = QLabel(note)
            label.setObjectName("fieldHint")
            label.setWordWrap(True)
            column.addWidget(label)
        return box

    # ---- export --------------------------------------------------------------------------

    def export_report(self, path: Path) -> bool:
        """Write the shown comparison as .pdf/.html/.csv/.json; False (message shown) if not."""
        from bench_gui.report import ReportError, write_report

        if self.report is None:
            self.show_error("Compare sessions first, then export the comparison.")
            return False
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            write_report(self.report, path, page_size=str(self.page_combo.currentData()))
        except (ReportError, OSError, ValueError) as exc:
            self.show_error(f"Cannot export: {exc}")
            return False
        finally:
            QGuiApplication.restoreOverrideCursor()
        self.error_label.hide()
        self.status.emit(f"Exported {path}")
        return True

    def export_charts(self, directory: Path, fmt: str = "png") -> list[Path]:
        from bench_gui.report import write_charts

        if self.report is None:
            self.show_error("Compare sessions first, then export the charts.")
            return []
        try:
            written = write_charts(self.report, directory, fmt)
        except (OSError, ValueError) as exc:
            self.show_error(f"Cannot export the charts: {exc}")
            return []
        self.status.emit(f"{len(written)} charts written to {directory}")
        return written

    def _default_name(self) -> str:
        if self.report is None:
            return "comparison"
        ids = "-".join(str(s.id) for s in self.report.comparison.sessions)
        return f"comparison-{ids}"

    def choose_report_file(self, suffix: str) -> None:
        filters = {
            ".pdf": "PDF (*.pdf)",
            ".html": "HTML (*.html)",
            ".csv": "CSV (*.csv)",
            ".json": "JSON (*.json)",
        }
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Export the comparison",
            str(Path.home() / f"{self._default_name()}{suffix}"),
            filters[suffix],
        )
        if path:
            target = Path(path)
            if target.suffix.lower() != suffix:
                target = target.with_name(target.name + suffix)
            self.export_report(target)

    def choose_chart_folder(self, fmt: str) -> None:
        home = str(Path.home())
        directory = QFileDialog.getExistingDirectory(self, "Folder for the charts", home)
        if directory:
            self.export_charts(Path(directory), fmt)

    # ---- messages ------------------------------------------------------------------------

    def show_error(self, text: str) -> None:
        self.error_label.setText(text)
        self.error_label.show()
        self.status.emit(text)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.refresh()
