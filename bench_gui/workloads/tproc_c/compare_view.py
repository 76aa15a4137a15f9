"""TPROC-C's comparison on show (the kit's ``compare_view``): fast facts, the report's notes,
and a tab a group of the report's sections (overlaid charts with the saturation point marked,
the tables the reports print), built with :func:`bench_gui.report.model.build_report`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QTabWidget, QVBoxLayout, QWidget

from bench_gui.gui.widgets.compare_charts import OverlayChart, session_color
from bench_gui.gui.widgets.compare_parts import (
    BLOCK_STYLES,
    COMPACT_FACT_PX,
    DETAIL_FACT_PX,
    FACT_CHROME_PX,
    PLACEHOLDER,
    SCREEN_ORDER,
    TAB_STYLE,
    TABS,
    FactCard,
    TabPage,
    clear_layout,
    fit_tabs,
)
from bench_gui.gui.widgets.report_notes import ReportNotes
from bench_gui.gui.widgets.report_table import ReportTableView, titled_table
from bench_gui.report.model import Report, Section, build_report

if TYPE_CHECKING:
    from bench_gui.workloads.compare_view import CompareInputs


class ComparisonView(QWidget):
    """Shows one :class:`Report`, or what to do to get one. ``charts`` and ``table_views``
    hold the shown report's charts and tables by key, ``tiles`` its fact cards.

    The TPROC-C kit's ``compare_view`` (:class:`~bench_gui.workloads.compare_view.CompareView`):
    every input is the page's, so ``changed`` and ``problem`` are never emitted.
    """

    changed = Signal()
    problem = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.charts: dict[str, OverlayChart] = {}
        self.table_views: dict[str, ReportTableView] = {}
        self.tiles: list[FactCard] = []
        column = self.column = QVBoxLayout(self)
        column.setContentsMargins(8, 0, 0, 0)
        column.setSpacing(10)
        self.facts_row = QHBoxLayout()
        self.facts_row.setSpacing(12)
        column.addLayout(self.facts_row)
        # The reader's notes (printed on page 1) beside the author's (shown before export);
        # each scrolls within a few lines' height (report_notes.NOTES_MAX_HEIGHT).
        self.report_notes = ReportNotes()
        self.reader_label = self.report_notes.reader_label
        self.notes_label, self.notes_scroll = (
            self.report_notes.author_label,
            self.report_notes.author_scroll,
        )
        column.addWidget(self.report_notes)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.setStyleSheet(TAB_STYLE)
        self.tabs.addTab(self._placeholder(), "Comparison")
        column.addWidget(self.tabs, 1)

    @staticmethod
    def _placeholder() -> QLabel:
        label = QLabel(PLACEHOLDER)
        label.setObjectName("muted")
        label.setWordWrap(True)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        return label

    def compare(
        self, store: Any, session_ids: Sequence[int], baseline_id: int, inputs: CompareInputs
    ) -> Report:
        """The sweeps' report with the page's stop conditions and prices (its edits, unsaved
        too); CompareError, EconomicsError (ValueErrors) or the store's errors say why not."""
        return build_report(
            store,
            session_ids,
            baseline_id,
            inputs.conditions,
            title=inputs.title,
            arrays=inputs.arrays,
            prices=inputs.prices,
            power_price=inputs.power_price,
            options=inputs.options,
        )

    def status_text(self, report: Report) -> str:
        baseline = report.names[report.comparison.baseline.id]
        count = len(report.comparison.sessions)
        if count > 1:
            return f"Compared {count} sessions against {baseline}"
        return f"Report of {baseline} alone"

    def clear(self) -> None:
        """Back to the empty state."""
        self.charts.clear()
        self.table_views.clear()
        clear_layout(self.facts_row)
        self.tiles.clear()
        self.report_notes.clear()
        self.tabs.clear()
        self.tabs.addTab(self._placeholder(), "Comparison")

    def show_report(self, report: Report) -> None:
        """The report's facts, notes and sections; the tab that was open stays open."""
        clear_layout(self.facts_row)
        self.tiles.clear()
        for fact in report.facts[:5]:
            card = FactCard(fact.value, fact.text, fact.detail)
            self.facts_row.addWidget(card, 1)
            self.tiles.append(card)
        self._fit_facts()
        self.report_notes.show_report(report)
        colors = [session_color(i) for i in range(len(report.comparison.sessions))]
        self.charts.clear()
        self.table_views.clear()
        current = self.tabs.tabText(self.tabs.currentIndex())
        self.tabs.clear()
        sections = {s.key: s for s in report.sections}
        for name, keys in TABS:
            present = [sections[k] for k in keys if k in sections]
            if present:
                self.tabs.addTab(self._tab(report, present, colors), name)
        for i in range(self.tabs.count()):
            if self.tabs.tabText(i) == current:
                self.tabs.setCurrentIndex(i)
        fit_tabs(self.tabs, self._room())

    def _room(self) -> int:
        """The width inside the margins."""
        margins = self.column.contentsMargins()
        return self.width() - margins.left() - margins.right()

    def _fit_facts(self) -> None:
        """Type and detail of the fact cards for the width each one has."""
        if not self.tiles:
            return
        count = len(self.tiles)
        card = (self._room() - self.facts_row.spacing() * (count - 1)) // count
        for tile in self.tiles:
            tile.set_compact(
                card < COMPACT_FACT_PX, detail=card >= DETAIL_FACT_PX, room=card - FACT_CHROME_PX
            )

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self._fit_facts()
            fit_tabs(self.tabs, self._room())

    def _tab(self, report: Report, sections: list[Section], colors: list[str]) -> QWidget:
        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(4, 12, 12, 12)
        column.setSpacing(8)
        for section in sections:
            heading = QLabel(section.heading)
            heading.setObjectName("sectionTitle")
            heading.setStyleSheet("font-size: 19px;")
            # Wrapped: unwrapped, a long heading made the tab wider than the screen at 1280,
            # and the finding under it ran off the right edge.
            heading.setWordWrap(True)
            column.addWidget(heading)
            # The finding, the figures and tables, then how to read them: on a short screen
            # the chart is in sight without scrolling.
            for block in sorted(section.blocks, key=lambda b: SCREEN_ORDER.get(b.kind, 3)):
                column.addWidget(self._block(report, block.kind, block.content, colors))
        column.addStretch(1)
        return TabPage(body)  # wide tables scroll sideways

    def _block(self, report: Report, kind: str, content: str, colors: list[str]) -> QWidget:
        if kind == "chart":
            spec = report.charts[content]
            chart = OverlayChart(spec.title, spec.y_label, count_axis=spec.unit == "")
            chart.set_spec(spec, colors)
            chart.setMinimumHeight(360)
            self.charts[content] = chart
            return chart
        if kind == "table":
            return self._table(report, content)
        label = QLabel(f"⚑  {content}" if kind == "message" else content)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if kind in BLOCK_STYLES:
            label.setStyleSheet(BLOCK_STYLES[kind])
        else:
            label.setObjectName("muted")
        return label

    def _table(self, report: Report, key: str) -> QWidget:
        box, self.table_views[key] = titled_table(report.tables[key])
        return box
