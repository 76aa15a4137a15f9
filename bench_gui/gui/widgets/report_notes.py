"""A comparison's notes, by whom they are for: the reader's (printed on the report's first
page) and the author's (what is missing and how to add it: shown apart, listed before export
by :class:`bench_gui.gui.pages.compare.report_notes.ExportGate`). Every workload's
comparison view shows them with :class:`ReportNotes`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QWidget,
)

from bench_gui.gui.widgets.page_parts import ScrollColumn


class NotedReport(Protocol):
    """What the notes ask of any workload's report (its kit's report type)."""

    @property
    def reader_notes(self) -> Sequence[str]: ...

    @property
    def author_notes(self) -> Sequence[str]: ...


def author_notes_of(report: NotedReport) -> list[str]:
    """What the author reads before export, of any workload's report."""
    return list(report.author_notes)


# Each box scrolls past this height (about six lines): a long list never pushes the charts
# and tables below the bottom of a 720 px screen.
NOTES_MAX_HEIGHT = 140
READER_HEADING = "For the reader: printed on the report's first page"
AUTHOR_HEADING = "For you: not printed in the report unless kept as an appendix"
AUTHOR_STYLE = (
    "QLabel#authorNotes { background-color: #33290a; border: 1px solid #f1c21b;"
    " border-radius: 8px; padding: 8px 12px; color: #f5e3a3; font-size: 14px; }"
)
READER_STYLE = (
    "QLabel#readerNotes { background-color: #10253a; border: 1px solid #33b1ff;"
    " border-radius: 8px; padding: 8px 12px; color: #cfe6ff; font-size: 14px; }"
)
OMITTED = "They are not printed in the report: the reader never sees them."
APPENDIX = "They are printed in an appendix at the end of the report, as listed here."


class NotesArea(ScrollColumn):
    """A box of notes as tall as its text at its width, up to NOTES_MAX_HEIGHT (then it
    scrolls): two short notes do not take a tall empty box."""

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        hint = super().sizeHint()
        widget = self.widget()
        if widget is None:
            return hint
        width = max(self.viewport().width(), 200)
        height = (
            widget.heightForWidth(width)
            if widget.hasHeightForWidth()
            else widget.sizeHint().height()
        )
        return QSize(hint.width(), min(NOTES_MAX_HEIGHT, height + 2 * self.frameWidth() + 2))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self.updateGeometry()  # another width, another height of wrapped text


def _box(name: str, style: str) -> tuple[QLabel, QScrollArea]:
    label = QLabel("")
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setStyleSheet(style)
    label.setMinimumWidth(10)
    area = NotesArea(label)
    area.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Maximum)
    area.setMaximumHeight(NOTES_MAX_HEIGHT)
    area.hide()
    return label, area


class ReportNotes(QWidget):
    """The reader's notes and the author's notes of the comparison shown, side by side."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(12)
        self.reader_label, self.reader_scroll = _box("readerNotes", READER_STYLE)
        self.author_label, self.author_scroll = _box("authorNotes", AUTHOR_STYLE)
        row.addWidget(self.reader_scroll, 1)
        row.addWidget(self.author_scroll, 1)
        self.hide()

    def show_report(self, report: NotedReport) -> None:
        readers, authors = report.reader_notes, author_notes_of(report)
        self.reader_label.setText(
            READER_HEADING + "\n" + "\n".join(f"•  {n}" for n in readers) if readers else ""
        )
        self.author_label.setText(
            AUTHOR_HEADING + "\n" + "\n".join(f"⚑  {n}" for n in authors) if authors else ""
        )
        self.reader_scroll.setVisible(bool(readers))
        self.author_scroll.setVisible(bool(authors))
        self.reader_scroll.updateGeometry()
        self.author_scroll.updateGeometry()
        self.setVisible(bool(readers or authors))

    def clear(self) -> None:
        self.reader_label.clear()
        self.author_label.clear()
        self.reader_scroll.hide()
        self.author_scroll.hide()
        self.hide()
