"""The Compare page: two or more sessions against a baseline, as a technical brief shows them.

On the left the user picks the sessions and the baseline, the stop condition that defines the
saturation point, and the prices (each array's devices and count, unit prices, a cost entered
by hand, the power price). On the right the comparison: fast facts, then tabs with the overlaid
charts (saturation marked) and the tables, exactly the ones the reports print - the page shows
the report of the sessions' workload, built by the same code as ``bench-gui compare``.

Price edits apply to the comparison at once; "Save prices" keeps them in the session store
(the price list, the power price, each session's array).

Each workload kit has a view of its own (its ``compare_view`` face, keeping
:class:`~bench_gui.workloads.compare_view.CompareView`): the page shows the one of the ticked
sessions' workload, with the inputs its kit's ``compare_inputs`` names (the others hidden), and
asks it for the report of what is ticked, handing it the inputs every comparison shares. A
view's own inputs (a question its report answers) are its to show; it says when they change.
The page never names a workload; a mix of workloads is refused, naming a session of each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

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
from bench_gui.gui.pages.compare.session_picker import SessionPicker
from bench_gui.gui.widgets.page_parts import ErrorLine, PageHeader, page_layout
from bench_gui.report import ReportError
from bench_gui.report.workloads import AnyReport
from bench_gui.services.errors import SessionNotFound, StoreError
from bench_gui.workloads.base import DEFAULT_WORKLOAD, UnknownWorkload, kit_for, kits
from bench_gui.workloads.compare_view import CompareInputs, CompareView

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
        compared(object): a new report is shown (the one its workload's view built).
    """

    status = Signal(str)
    compared = Signal(object)

    def __init__(self, store: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.report: AnyReport | None = None
        self._kinds: dict[int, str] = {}  # session id -> its workload, as read once
        self._created: dict[int, str] = {}  # session id -> when it was made (a reused id)
        self._mode = DEFAULT_WORKLOAD
        self._mix_shown = False
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
        self.views = QStackedWidget()
        for name, widget in self.compare_views.items():
            self.views.addWidget(widget)
            view = self.view_of(name)
            # A view's own input changed: the comparison on show follows it at once.
            view.changed.connect(lambda: self.report is not None and self.compare())
            view.problem.connect(self.show_error)
        splitter.addWidget(self.views)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([540, 1200])
        outer.addWidget(splitter, 1)
        # The default workload's view and its parts by the names the tests know (the dicts
        # are kept, never replaced).
        # The default workload's view and its parts, by the names the tests know.
        self.results = r = cast(Any, self.compare_views[DEFAULT_WORKLOAD])
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
        self.prices.applied.connect(self._input_changed)
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
        self._show_listed_prices()
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
        """The sessions' workload (its kit's name) when they are of one, ``mixed`` when not,
        ``""`` for none."""
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
        """The view and inputs of the ticked sessions' workload (the default workload's for
        none or a mix); a mix is said at once (and refused by Compare)."""
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

    def compare_inputs(self) -> CompareInputs:
        """What every comparison is handed: the stop conditions, the title, the report's
        options and the prices as edited here; a ValueError names a cell or a short name
        that is wrong."""
        arrays, prices, power = self.price_inputs()
        return CompareInputs(
            conditions=self.conditions(),
            title=self.title_edit.text().strip() or None,
            options=self.report_box.compare_options(),
            arrays=arrays,
            prices=prices,
            power_price=power,
        )

    def view_of(self, workload: str) -> CompareView[Any]:
        """The view of ``workload``'s sessions (its kit's ``compare_view``, built once)."""
        return cast(CompareView[Any], self.compare_views[workload])

    def compare(self) -> bool:
        """Compare the ticked sessions; False (and a clear message) when they cannot be."""
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
            kit = kit_for(workload_of(self.store, ids))  # a mix: CompareError names two
            view = self.view_of(kit.name)
            report = view.compare(self.store, ids, baseline, self.compare_inputs())
        # CompareError, EconomicsError and a bad price are ValueErrors; the store's say why.
        except (ValueError, StoreError, SessionNotFound, UnknownWorkload) as exc:
            self.clear_results()
            self.show_error(f"Cannot compare: {exc}")
            return False
        self.error_label.clear_error()
        self._show_report(view, report)
        return True

    def _show_report(self, view: CompareView[Any], report: AnyReport) -> None:
        self.report = report
        self.header.set_subtitle(report.title)
        self.views.setCurrentWidget(cast(QWidget, view))
        view.show_report(report)
        self.export_button.setEnabled(True)
        self.status.emit(view.status_text(report))
        self.compared.emit(report)

    def _input_changed(self, name: str) -> None:
        """A page input that applies at once (of ``COMPARE_INPUTS``) changed: the comparison
        on show follows it when its workload uses it."""
        if self.report is not None and name in kit_for(self._mode).compare_inputs:
            self.compare()

    def _show_listed_prices(self) -> None:
        try:
            self.prices.show_listed(self.store.device_prices())
        except StoreError:
            pass  # the price list is read again when comparing, which names the problem

    def clear_results(self) -> None:
        """Back to the empty state: a failed comparison never leaves an older one on show."""
        self.report = None
        for name in self.compare_views:
            self.view_of(name).clear()
        self.export_button.setEnabled(False)
        self.header.set_subtitle(SUBTITLE)

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
