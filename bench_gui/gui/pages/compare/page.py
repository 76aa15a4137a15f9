"""The Compare page: two or more sessions against a baseline, as a technical brief shows them.

On the left the user picks the sessions and the baseline, the stop condition that defines the
saturation point, and the prices (each array's devices and count, unit prices, a cost entered
by hand, the power price). On the right the comparison: fast facts, then tabs with the overlaid
charts (saturation marked) and the tables, exactly the ones the reports print - the page shows
a :class:`~bench_gui.report.model.Report`, built by the same code as ``bench-gui compare``.

Price edits apply to the comparison at once; "Save prices" keeps them in the session store
(the price list, the power price, each session's array).

Random-read studies (seed 004) have a view of their own
(:mod:`bench_gui.workloads.random_read.compare_results`): when
the ticked sessions are of that workload the page shows it, with the "SSDs replace RAM"
question and the RAM price, and hides what only the transaction workload uses. Both reports
come from :func:`bench_gui.report.build_any_report`'s choice of workload; a mix of the two
workloads is refused, naming a session of each.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.saturation import DEFAULT_MIN_GAIN_PCT, StopConditions
from bench_gui.gui.pages.compare.export_menu import ExportButton
from bench_gui.gui.pages.compare.export_options import ExportOptionsBox
from bench_gui.gui.pages.compare.prices import PAGE_NOTE, PriceBox, PriceInputs
from bench_gui.gui.pages.compare.report_notes import ExportGate
from bench_gui.gui.pages.compare.results import ComparisonView
from bench_gui.gui.pages.compare.session_picker import SessionPicker
from bench_gui.gui.widgets.page_parts import ErrorLine, PageHeader, page_layout
from bench_gui.report import ReportError
from bench_gui.report.model import Report
from bench_gui.services.errors import SessionNotFound, StoreError
from bench_gui.workloads.base import DEFAULT_WORKLOAD, kit_for, kits
from bench_gui.workloads.random_read.report import RandomReadReport

if TYPE_CHECKING:
    from bench_gui.workloads.random_read.compare_results import RandomReadView

RANDOM_READ = "random_read"
SUBTITLE = (
    "Two or more sessions against a baseline: throughput, response time, saturation, economics"
)


def _limit_spin() -> QDoubleSpinBox:
    spin = QDoubleSpinBox()
    spin.setRange(0.0, 3_600_000.0)
    spin.setDecimals(1)
    spin.setSuffix(" ms")
    spin.setSpecialValueText("no limit")
    spin.setValue(0.0)
    return spin


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
        self.report: Report | RandomReadReport | None = None
        self._kinds: dict[int, str] = {}  # session id -> its workload, as read once
        self._created: dict[int, str] = {}  # session id -> when it was made (a reused id)
        self._mode = DEFAULT_WORKLOAD
        self._mix_shown = False
        # The random-read question asked of these sessions and baseline (None: defaults).
        self._rr_key: tuple[tuple[int, ...], int] | None = None
        self._rr_question: tuple[float | None, int | None] = (None, None)
        self._build_ui()

    def _build_ui(self) -> None:
        outer = page_layout(self)
        self.header = PageHeader("Compare", SUBTITLE)
        self.subtitle = self.header.subtitle
        self.export_button = ExportButton(self._default_name)
        self.export_button.setEnabled(False)
        # The author's notes are shown (once per comparison) before a report file is written.
        self.export_button.report_file_chosen.connect(lambda path: self.export_gate.request(path))
        self.export_button.chart_folder_chosen.connect(self.export_charts)
        self.header.add_widget(self.export_button)
        self.compare_button = self.header.add_action("Compare", primary=True)
        self.compare_button.clicked.connect(self.compare)
        outer.addWidget(self.header)
        self.error_label = ErrorLine()
        outer.addWidget(self.error_label)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self._build_inputs())
        # Each workload's results view (its kit's), the one of the ticked sessions shown.
        self.compare_views: dict[str, QWidget] = {
            kit.name: kit.face("compare_view")() for kit in kits()
        }
        self.results = cast(ComparisonView, self.compare_views[DEFAULT_WORKLOAD])
        self.rr_view = cast("RandomReadView", self.compare_views[RANDOM_READ])
        self.rr_view.ram_question.changed.connect(self._ram_question_changed)
        self.rr_view.ram_question.defaults_requested.connect(self._ram_defaults)
        self.views = QStackedWidget()
        for view in self.compare_views.values():
            self.views.addWidget(view)
        splitter.addWidget(self.views)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([540, 1200])
        outer.addWidget(splitter, 1)
        # The results' parts by the names the tests know (the dicts are kept, never replaced).
        r = self.results
        self.tabs, self.notes_label, self.tiles = r.tabs, r.notes_label, r.tiles
        self.charts, self.table_views = r.charts, r.table_views

    def _build_inputs(self) -> QWidget:
        panel = QWidget()
        column = QVBoxLayout(panel)
        column.setContentsMargins(0, 0, 8, 0)
        column.setSpacing(4)
        self.picker = SessionPicker()
        self.picker.changed.connect(self._sessions_changed)
        self.session_list, self.filter_edit = self.picker.session_list, self.picker.filter_edit
        column.addWidget(self.picker, 3)

        stop = self.stop_box = QGroupBox("Saturation point (stop condition)")
        form = QFormLayout(stop)
        self.min_gain_spin = QDoubleSpinBox()
        self.min_gain_spin.setRange(0.0, 100.0)
        self.min_gain_spin.setDecimals(1)
        self.min_gain_spin.setSuffix(" %")
        self.min_gain_spin.setValue(DEFAULT_MIN_GAIN_PCT)
        self.min_gain_spin.setToolTip("Stop when one more step adds less NOPM than this")
        form.addRow("Min. NOPM gain per step", self.min_gain_spin)
        self.max_avg_spin = _limit_spin()
        form.addRow("Avg response time limit", self.max_avg_spin)
        self.max_p999_spin = _limit_spin()
        form.addRow("p99.9 response time limit", self.max_p999_spin)
        column.addWidget(stop)

        self.prices = PriceBox()
        self.prices.save_prices_button.clicked.connect(self.save_prices)
        self.array_table, self.power_spin = self.prices.array_table, self.prices.power_spin
        self.ram_spin = self.prices.ram_spin
        self.ram_spin.valueChanged.connect(self._ram_price_changed)
        self.set_array = self.prices.set_array  # fill a session's price row, as a user would
        column.addWidget(self.prices, 2)

        self.report_box = ExportOptionsBox()
        self.title_edit, self.page_combo = self.report_box.title_edit, self.report_box.paper_combo
        # Response times of another scope make another comparison: compare again at once.
        self.report_box.latency_changed.connect(
            lambda _s: self.report is not None and self.compare()
        )
        self.report_box.content_changed.connect(lambda: self.report is not None and self.compare())
        self.export_gate = ExportGate(
            self, self.report_box, lambda: self.report, self.export_report
        )
        column.addWidget(self.report_box)

        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setMinimumWidth(540)
        scroll.setMaximumWidth(640)
        scroll.setWidget(panel)
        return scroll

    # ---- sessions ------------------------------------------------------------------------

    def refresh(self) -> None:
        """Reload the sessions (keeping what is ticked) and the stored prices."""
        try:
            runs = self.store.list_runs()
            notes = self.store.annotations()
            power = self.store.power_price()
        except StoreError as exc:  # the store names the file and the reason
            self.show_error(f"Cannot read the sessions: {exc}")
            return
        for run in runs:  # an id given to a new session since: read its workload again
            if self._created.get(run.id) != run.created_at:
                self._kinds.pop(run.id, None)
                self._created[run.id] = run.created_at
        self.picker.fill(runs, notes, {run.id: self._kind_of(run.id) for run in runs})
        self.prices.show_power_price(power)
        self._show_ram_price()
        self._sessions_changed()

    def apply_filter(self, text: str) -> None:
        self.picker.apply_filter(text)

    def checked_ids(self) -> list[int]:
        return self.picker.checked_ids()

    def set_checked(self, ids: list[int]) -> None:
        """Tick exactly these sessions (in list order)."""
        self.picker.set_checked(ids)

    def set_baseline(self, run_id: int) -> bool:
        return self.picker.set_baseline(run_id)

    def baseline_id(self) -> int | None:
        return self.picker.baseline_id()

    def _sessions_changed(self) -> None:
        ids = self.picker.checked_ids()
        self.picker.offer_baselines(ids)
        self.prices.fill_arrays(self.store, ids, self.picker.names())
        self.compare_button.setEnabled(len(ids) >= 1)  # one session: a report of its own
        self._set_mode(ids)
        count = len(ids)
        self.status.emit(
            f"{count} session{'s' if count != 1 else ''} ticked" if count else "No session ticked"
        )

    # ---- the workload ---------------------------------------------------------------------

    def workload(self, ids: list[int] | None = None) -> str:
        """``random_read`` or ``tproc_c`` when the sessions are of one workload, ``mixed``
        when not, ``""`` for none."""
        kinds = {self._kind_of(run_id) for run_id in (self.checked_ids() if ids is None else ids)}
        kinds.discard("")  # a session that cannot be read: compare() names it
        if len(kinds) > 1:
            return "mixed"
        return kinds.pop() if kinds else ""

    def _kind_of(self, run_id: int) -> str:
        """The workload of one session, read once (a session's workload never changes);
        ``""`` when it cannot be read."""
        from dataclasses import asdict

        from bench_gui.workloads.base import workload_of_record

        if run_id not in self._kinds:
            try:
                self._kinds[run_id] = workload_of_record(asdict(self.store.get_run(run_id)))
            except (StoreError, SessionNotFound):
                return ""
        return self._kinds[run_id]

    def _set_mode(self, ids: list[int]) -> None:
        """The random-read view and inputs, or the transaction workload's; a mix is said at
        once (and refused by Compare)."""
        kind = self.workload(ids)
        if kind == "mixed":
            self._mix_shown = True
            self.show_error(self._mix_message(ids))
        elif self._mix_shown:
            self._mix_shown = False
            self.error_label.clear_error()
        known = {kit.name for kit in kits()}
        mode = kind if kind in known else DEFAULT_WORKLOAD  # none ticked, or a mix
        if mode == self._mode:
            return
        self._mode = mode
        if self.report is not None:
            self.clear_results()
        kit = kit_for(mode)
        self.views.setCurrentWidget(self.compare_views[mode])
        self.stop_box.setVisible("stop_conditions" in kit.compare_inputs)
        self.report_box.set_workload(kit)
        self.prices.set_workload(kit)

    def _mix_message(self, ids: list[int]) -> str:
        from bench_gui.workloads.mix import workload_of

        try:
            workload_of(self.store, ids)
        except (ValueError, StoreError, SessionNotFound) as exc:
            return f"Cannot compare: {exc}"
        return ""

    # ---- prices --------------------------------------------------------------------------

    def price_inputs(self) -> PriceInputs:
        """Arrays, the price list with this page's unit prices on top, the power price; raise
        ValueError naming the cell that is not a number."""
        return self.prices.price_inputs(self.store.device_prices())

    def save_prices(self) -> bool:
        """Keep the page's prices: new unit prices in the price list, each session's array,
        the power price. Returns False (message shown) on bad input."""
        from bench_gui.services.sessions import array_from_layout, storage_layout

        try:
            arrays, prices, power = self.price_inputs()
            stored = self.store.device_prices()
            for price in prices:
                if price.source == PAGE_NOTE and price not in stored:
                    self.store.add_device_price(price)
            for run_id, array in arrays.items():
                layout = array_from_layout(storage_layout(self.store.get_run(run_id)))
                same = (array.device, array.count) == (layout.device, layout.count)
                # The layout says it all: no row of its own (it follows later layout edits).
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
        except (ValueError, StoreError, SessionNotFound) as exc:  # ValueError: a bad cell
            self.show_error(f"Cannot save the prices: {exc}")
            return False
        self.error_label.clear_error()
        self.prices.saved()
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
        from bench_gui.workloads.mix import workload_of

        ids = self.checked_ids()
        baseline = self.baseline_id()
        if not ids or baseline is None:
            self.clear_results()
            self.show_error(
                "Tick at least one session (two or more to compare them), and choose which one"
                " is the baseline."
            )
            return False
        try:
            if workload_of(self.store, ids) == RANDOM_READ:  # a mix: CompareError names two
                return self._compare_random_read(ids, baseline)
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
                options=self.report_box.compare_options(),
            )
        # CompareError, EconomicsError and a bad price are ValueErrors; the store's say why.
        except (ValueError, StoreError, SessionNotFound) as exc:
            self.clear_results()
            self.show_error(f"Cannot compare: {exc}")
            return False
        self.error_label.clear_error()
        self.show_report(report)
        return True

    def _compare_random_read(self, ids: list[int], baseline: int) -> bool:
        """The random-read study of these sessions, with the RAM question asked of them
        (its defaults for sessions or a baseline not compared before)."""
        from bench_gui.report import build_any_report

        ids = [baseline, *[i for i in ids if i != baseline]]  # the baseline first, in blue
        key = (tuple(ids), baseline)
        if key != self._rr_key:
            self._rr_key, self._rr_question = key, (None, None)
        target, dataset = self._rr_question
        try:
            _arrays, prices, _power = self.price_inputs()
            report = build_any_report(
                self.store,
                ids,
                baseline,
                None,
                self.title_edit.text().strip() or None,
                self.report_box.compare_options(),
                target,
                dataset,
                prices,
            )
        except (ValueError, StoreError, SessionNotFound) as exc:
            self.clear_results()
            self.show_error(f"Cannot compare: {exc}")
            return False
        assert isinstance(report, RandomReadReport)
        self.error_label.clear_error()
        self.show_random_read(report)
        return True

    def show_random_read(self, report: RandomReadReport) -> None:
        self.report = report
        self.header.set_subtitle(report.title)
        self.views.setCurrentWidget(self.rr_view)
        self.rr_view.show_report(report)
        self.export_button.setEnabled(True)
        baseline = report.names[report.baseline_id]
        count = len(report.sessions)
        self.status.emit(
            f"Compared {count} random-read studies against {baseline}"
            if count > 1
            else f"Random-read study of {baseline} alone"
        )
        self.compared.emit(report)

    def _ram_question_changed(self) -> None:
        """A new target or dataset: the RAM each storage needs, again."""
        if not isinstance(self.report, RandomReadReport):
            return
        question = self.rr_view.ram_question
        try:
            self._rr_question = (question.target(), question.dataset_bytes())
        except ValueError as exc:  # names the input and what is wrong with it
            self.show_error(str(exc))
            return
        self.compare()

    def _ram_defaults(self) -> None:
        self._rr_question = (None, None)
        if isinstance(self.report, RandomReadReport):
            self.compare()

    def _ram_price_changed(self, _value: float) -> None:
        if isinstance(self.report, RandomReadReport):
            self.compare()

    def _show_ram_price(self) -> None:
        from bench_gui.core.economics import ram_price

        try:
            self.prices.show_ram_price(ram_price(self.store.device_prices()))
        except StoreError:
            pass  # the price list is read again when comparing, which names the problem

    def clear_results(self) -> None:
        """Back to the empty state: a failed comparison never leaves an older one on show."""
        self.report = None
        self.results.clear()
        self.rr_view.clear()
        self.export_button.setEnabled(False)
        self.header.set_subtitle(SUBTITLE)

    def show_report(self, report: Report) -> None:
        self.report = report
        self.header.set_subtitle(report.title)
        self.views.setCurrentWidget(self.results)
        self.results.show_report(report)
        self.export_button.setEnabled(True)
        baseline = report.names[report.comparison.baseline.id]
        count = len(report.comparison.sessions)
        self.status.emit(
            f"Compared {count} sessions against {baseline}"
            if count > 1
            else f"Report of {baseline} alone"
        )
        self.compared.emit(report)

    # ---- export --------------------------------------------------------------------------

    def export_report(self, path: Path) -> bool:
        """Write the shown comparison as .pdf/.html/.csv/.json; False (message shown) if not."""
        from bench_gui.report import write_report

        if self.report is None:
            self.show_error("Compare sessions first, then export the comparison.")
            return False
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            # The author's notes and cover as chosen now (ValueError: a bad logo or date).
            report = self.report_box.for_export(self.report)
            write_report(report, path, page_size=self.report_box.paper())
        except (ReportError, OSError, ValueError) as exc:
            self.show_error(f"Cannot export: {exc}")
            return False
        finally:
            QGuiApplication.restoreOverrideCursor()
        self.error_label.clear_error()
        self.status.emit(f"Exported {path}")
        return True

    def export_charts(self, directory: Path, fmt: str = "png") -> list[Path]:
        """Write the shown comparison's charts as images; [] (message shown) if not."""
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

    def show_error(self, text: str) -> None:
        """In the page's error line, and in the status bar."""
        self.error_label.show_error(text)
        self.status.emit(text)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        self.refresh()
