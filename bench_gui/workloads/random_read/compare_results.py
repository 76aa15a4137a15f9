"""A random-read comparison on show (seed 004, "it's RAM, not disk"): the study's own view.

It shows a :class:`~bench_gui.workloads.random_read.report.RandomReadReport`, the one the
exported report prints: fast facts, the notes, then a tab a part of the study - ops/s by
dataset size for each storage (one chart switched between log and linear scale) with the
ratio per dataset size, the multiplier over raw device IOPS, read latency, "SSDs replace
RAM" with the question it answers (target ops/s, dataset size) and the study as recorded.
Words of this workload only: the transaction workload's view is
:mod:`bench_gui.workloads.tproc_c.compare_view`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QButtonGroup,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from bench_gui.gui.widgets.compare_charts import session_color
from bench_gui.gui.widgets.compare_parts import (
    BLOCK_STYLES,
    SCREEN_ORDER,
    TAB_STYLE,
    FactCard,
    TabPage,
    clear_layout,
    fit_tabs,
)
from bench_gui.gui.widgets.dataset_chart import DatasetChart
from bench_gui.gui.widgets.report_notes import ReportNotes
from bench_gui.gui.widgets.report_table import ReportTableView, titled_table
from bench_gui.report.parts import ChartSpec, Section
from bench_gui.workloads.random_read.ram_question import RamQuestion
from bench_gui.workloads.random_read.report import RandomReadReport, build_random_read_report

if TYPE_CHECKING:
    from bench_gui.workloads.compare_view import CompareInputs

# Report sections -> the tab that shows them; "how" is the study as recorded.
TABS = (
    ("Ops/s by size", "throughput"),
    ("× raw IOPS", "multiplier"),
    ("Latency", "latency"),
    ("SSDs replace RAM", "economics"),
    ("The study", "how"),
)
PLACEHOLDER = (
    "Random-read studies are ticked: choose the baseline and press Compare (one session alone"
    " makes a report of its own figures).\n\nThe comparison shows ops/s by dataset size for"
    " each storage (log or linear scale), their ratio at each dataset size, how many times"
    " its raw device IOPS each storage serves beyond RAM, and the RAM each needs to reach a"
    " target rate: what an SSD replaces."
)
# The log and linear charts of ops/s are one chart on the page, with a switch.
OPS_CHARTS = ("ops_log", "ops_linear")
SCALE_STYLE = (
    "QPushButton { padding: 5px 14px; }"
    "QPushButton:checked { background-color: #33b1ff; color: #0b0f16; border-color: #33b1ff; }"
)
# Fast facts per row: as many as fit at this width each (a narrow window wraps them).
FACT_PX = 200
# Below this width a card takes smaller type, so three fit the width a 1366 px screen leaves.
ROOMY_FACT_PX = 260


def _body() -> tuple[QScrollArea, QVBoxLayout]:
    body = QWidget()
    column = QVBoxLayout(body)
    column.setContentsMargins(4, 12, 12, 12)
    column.setSpacing(8)
    return TabPage(body), column  # wide tables scroll sideways


def _show_all(layout: QLayout) -> None:
    """Show what was just added to ``layout`` now: a widget added to a shown parent's layout
    is otherwise shown only when the event loop next runs."""
    for i in range(layout.count()):
        item = layout.itemAt(i)
        if item is None:
            continue
        widget, child = item.widget(), item.layout()
        if widget is not None:
            widget.show()
        elif child is not None:
            _show_all(child)


def _label(text: str, kind: str = "") -> QLabel:
    label = QLabel(f"⚑  {text}" if kind == "message" else text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if kind in BLOCK_STYLES:
        label.setStyleSheet(BLOCK_STYLES[kind])
    else:
        label.setObjectName("muted")
    return label


class RandomReadView(QWidget):
    """Shows one :class:`RandomReadReport`, or what to do to get one. ``charts`` and
    ``table_views`` hold the shown report's charts and tables by key, ``tiles`` its fact
    cards; ``ram_question`` is the economics' question (kept across comparisons).

    The random-read kit's ``compare_view``
    (:class:`~bench_gui.workloads.compare_view.CompareView`): the question is its own input,
    asked of the sessions and baseline it was typed for (its defaults for others); a new one
    emits ``changed``, a wrong one ``problem`` with what is wrong.
    """

    changed = Signal()
    problem = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.report: RandomReadReport | None = None
        # The question asked of these sessions and baseline (None: the comparison's defaults).
        self._asked_of: tuple[tuple[int, ...], int] | None = None
        self._question: tuple[float | None, int | None] = (None, None)
        self.charts: dict[str, DatasetChart] = {}
        self.table_views: dict[str, ReportTableView] = {}
        self.tiles: list[FactCard] = []
        self.log_scale = True  # the seed's own choice: the disk stays visible
        column = self.column = QVBoxLayout(self)
        column.setContentsMargins(8, 0, 0, 0)
        column.setSpacing(10)
        self.facts_row = QGridLayout()
        self.facts_row.setSpacing(12)
        self._per_row = 0
        column.addLayout(self.facts_row)
        self.report_notes = ReportNotes()
        self.reader_label = self.report_notes.reader_label
        self.notes_label = self.report_notes.author_label
        column.addWidget(self.report_notes)
        self.ram_question = RamQuestion()
        self.ram_question.changed.connect(self._question_changed)
        self.ram_question.defaults_requested.connect(self._question_defaults)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.setStyleSheet(TAB_STYLE)  # narrower when the tabs need it (fit_tabs)
        self.placeholder = QLabel(PLACEHOLDER)
        self.placeholder.setObjectName("muted")
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.tabs.addTab(self.placeholder, "Comparison")
        # One body a tab, built once and refilled: the question keeps its focus while the
        # answer under it changes.
        self.bodies: dict[str, QVBoxLayout] = {}
        self.pages: dict[str, QScrollArea] = {}
        for _name, key in TABS:
            scroll, layout = _body()
            self.pages[key] = scroll
            self.bodies[key] = layout
        self.econ_layout = QVBoxLayout()
        self.econ_layout.setSpacing(8)
        self.bodies["economics"].addWidget(self.ram_question)
        self.bodies["economics"].addLayout(self.econ_layout)
        self.bodies["economics"].addStretch(1)
        column.addWidget(self.tabs, 1)

    # ---- the comparison -----------------------------------------------------------------

    def compare(
        self, store: Any, session_ids: Sequence[int], baseline_id: int, inputs: CompareInputs
    ) -> RandomReadReport:
        """The studies' report, the baseline first (in blue), with the RAM question asked of
        them and the page's price list (its RAM price on top); a sweep's stop conditions and
        arrays are not a study's. The store's errors and CompareError say why not."""
        ids = [baseline_id, *[i for i in session_ids if i != baseline_id]]
        key = (tuple(ids), baseline_id)
        if key != self._asked_of:
            self._asked_of, self._question = key, (None, None)
        target, dataset = self._question
        return build_random_read_report(
            store,
            ids,
            baseline_id,
            inputs.title,
            inputs.options,
            target,
            dataset,
            inputs.prices,
        )

    def status_text(self, report: RandomReadReport) -> str:
        baseline = report.names[report.baseline_id]
        count = len(report.sessions)
        if count > 1:
            return f"Compared {count} random-read studies against {baseline}"
        return f"Random-read study of {baseline} alone"

    def _question_changed(self) -> None:
        """A new target or dataset: the RAM each storage needs, again."""
        if self.report is None:
            return
        try:
            self._question = (self.ram_question.target(), self.ram_question.dataset_bytes())
        except ValueError as exc:  # names the input and what is wrong with it
            self.problem.emit(str(exc))
            return
        self.changed.emit()

    def _question_defaults(self) -> None:
        self._question = (None, None)
        if self.report is not None:
            self.changed.emit()

    # ---- the states ---------------------------------------------------------------------

    def clear(self) -> None:
        """Back to the empty state."""
        self.report = None
        self.charts.clear()
        self.table_views.clear()
        clear_layout(self.facts_row)
        self.tiles.clear()
        self.report_notes.clear()
        for key, layout in self.bodies.items():
            clear_layout(self.econ_layout if key == "economics" else layout)
        self._set_tabs(False)

    def _set_tabs(self, shown: bool) -> None:
        """The study's tabs, or the placeholder; the tab that was open stays open."""
        current = self.tabs.tabText(self.tabs.currentIndex())
        self.tabs.blockSignals(True)
        while self.tabs.count():
            self.tabs.removeTab(0)
        if shown:
            for name, key in TABS:
                self.tabs.addTab(self.pages[key], name)
        else:
            self.tabs.addTab(self.placeholder, "Comparison")
        for i in range(self.tabs.count()):
            if self.tabs.tabText(i) == current:
                self.tabs.setCurrentIndex(i)
        self.tabs.blockSignals(False)
        self._fit_tabs()

    def show_report(self, report: RandomReadReport) -> None:
        """The report's facts, notes and sections."""
        self.report = report
        clear_layout(self.facts_row)
        self.tiles.clear()
        for fact in report.facts[:6]:
            self.tiles.append(FactCard(fact.value, fact.text, fact.detail))
        self._place_facts(force=True)
        self.report_notes.show_report(report)
        self.charts.clear()
        self.table_views.clear()
        sections = {s.key: s for s in report.sections}
        for _name, key in TABS:
            if key == "how":
                self._fill_how(report)
            elif key == "economics":
                clear_layout(self.econ_layout)
                if key in sections:
                    self._fill(report, sections[key], self.econ_layout)
                else:
                    self.econ_layout.addWidget(_label("No economics for this comparison."))
            else:
                layout = self.bodies[key]
                clear_layout(layout)
                if key in sections:
                    self._fill(report, sections[key], layout)
                layout.addStretch(1)
        for shown in (self.facts_row, *self.bodies.values()):
            _show_all(shown)
        if report.economics is not None:
            self.ram_question.show_values(
                report.economics.target_ops_s, report.economics.dataset_bytes
            )
        self._set_tabs(True)

    def _place_facts(self, force: bool = False) -> None:
        """The fact cards in rows of as many as fit the width (at most four)."""
        count = len(self.tiles)
        width = max(self.width(), 600)
        per_row = max(1, min(count, 4, width // FACT_PX))
        if per_row == self._per_row and not force:
            return
        self._per_row = per_row
        compact = width // per_row < ROOMY_FACT_PX
        for card in self.tiles:
            self.facts_row.removeWidget(card)
            card.set_compact(compact)
        for c in range(8):
            self.facts_row.setColumnStretch(c, 1 if c < per_row else 0)
        for i, card in enumerate(self.tiles):
            self.facts_row.addWidget(card, i // per_row, i % per_row)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if self.tiles:
            self._place_facts()
        if event.oldSize().width() != event.size().width():
            self._fit_tabs()

    def _fit_tabs(self) -> None:
        margins = self.column.contentsMargins()
        fit_tabs(self.tabs, self.width() - margins.left() - margins.right())

    # ---- the sections -------------------------------------------------------------------

    def _colors(self, report: RandomReadReport) -> list[str]:
        return [session_color(i) for i in range(len(report.comparison.sessions))]

    def _fill(self, report: RandomReadReport, section: Section, layout: QVBoxLayout) -> None:
        heading = QLabel(section.heading)
        heading.setObjectName("sectionTitle")
        heading.setStyleSheet("font-size: 19px;")
        heading.setWordWrap(True)
        layout.addWidget(heading)
        # The findings, the figures and tables, then how to read them: the chart is in
        # sight without scrolling.
        for block in sorted(section.blocks, key=lambda b: SCREEN_ORDER.get(b.kind, 3)):
            if block.kind == "chart" and block.content in OPS_CHARTS:
                if "ops" not in self.charts:
                    layout.addWidget(self._ops_chart(report))
            elif block.kind == "chart":
                chart = DatasetChart()
                chart.set_spec(report.charts[block.content], self._colors(report))
                self._title(chart, report.charts[block.content])
                chart.setMinimumHeight(360)
                self.charts[block.content] = chart
                layout.addWidget(chart)
            elif block.kind == "table":
                layout.addWidget(self._table(report, block.content))
            else:
                layout.addWidget(_label(block.content, block.kind))

    def _ops_chart(self, report: RandomReadReport) -> QWidget:
        """Ops/s by dataset size with its scale switch (log: the slow device stays visible)."""
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(6)
        row = QHBoxLayout()
        row.setSpacing(0)
        row.addWidget(QLabel("Scale  "))
        group = QButtonGroup(box)
        box.setStyleSheet(SCALE_STYLE)
        self.log_button = QPushButton("Logarithmic")
        self.linear_button = QPushButton("Linear")
        for button, log in ((self.log_button, True), (self.linear_button, False)):
            button.setCheckable(True)
            button.setChecked(log == self.log_scale)
            button.toggled.connect(lambda on, log=log: self._scale_toggled(on, log))
            group.addButton(button)
            row.addWidget(button)
        row.addStretch(1)
        column.addLayout(row)
        chart = DatasetChart()
        chart.setMinimumHeight(400)
        self.charts["ops"] = chart
        column.addWidget(chart)
        self._draw_ops(report)
        return box

    def _draw_ops(self, report: RandomReadReport) -> None:
        key = OPS_CHARTS[0] if self.log_scale else OPS_CHARTS[1]
        chart = self.charts.get("ops")
        if chart is None or key not in report.charts:
            return
        chart.set_spec(report.charts[key], self._colors(report))
        self._title(chart, report.charts[key])

    @staticmethod
    def _title(chart: DatasetChart, spec: ChartSpec) -> None:
        """The chart's own title on screen (a narrow chart keeps it whole); its figure number
        and caption, which the text refers to, in the tooltip."""
        chart.set_title(spec.title)
        chart.setToolTip(spec.caption)

    def _scale_toggled(self, on: bool, log: bool) -> None:
        if on:
            self.set_log_scale(log)

    def set_log_scale(self, log: bool) -> None:
        """Ops/s on a logarithmic (True) or linear scale; kept for the next comparison."""
        self.log_scale = log
        if "ops" in self.charts:
            for button, on in ((self.log_button, log), (self.linear_button, not log)):
                button.blockSignals(True)
                button.setChecked(on)
                button.blockSignals(False)
        if self.report is not None:
            self._draw_ops(self.report)

    def _table(self, report: RandomReadReport, key: str) -> QWidget:
        box, self.table_views[key] = titled_table(report.tables[key])
        return box

    def _fill_how(self, report: RandomReadReport) -> None:
        layout = self.bodies["how"]
        clear_layout(layout)
        for how in report.how_we_tested:
            heading = QLabel(how.heading)
            heading.setObjectName("sectionTitle")
            heading.setStyleSheet("font-size: 17px;")
            layout.addWidget(heading)
            for paragraph in how.paragraphs:
                layout.addWidget(_label(paragraph))
            if how.rows:
                form = QFormLayout()
                form.setHorizontalSpacing(18)
                for name, value in how.rows:
                    text = _label(value)
                    text.setObjectName("")
                    form.addRow(_label(name), text)
                layout.addLayout(form)
        layout.addStretch(1)

    # ---- what the tests and the page read -----------------------------------------------

    def ops_values(self, session_index: int) -> list[float | None]:
        """The ops/s drawn for one session (as plotted, whatever the scale)."""
        chart = self.charts["ops"]
        return chart.plotted(session_index)


__all__ = ["OPS_CHARTS", "PLACEHOLDER", "TABS", "RamQuestion", "RandomReadView"]
