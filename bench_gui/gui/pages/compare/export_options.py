"""The Compare page's report choices: title, paper, response times shown, the author's notes,
and the optional cover line (company, logo, date).

The same choices as ``bench-gui compare`` (:mod:`bench_gui.report.options`), checked by the
same code, so a bad logo or date gets the same message here as on the command line. The
response times shown change the comparison itself (the page compares again); the rest only
changes the exported file (:meth:`ExportOptionsBox.for_export`).
"""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path
from typing import TypeVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from bench_gui.gui.widgets.page_parts import muted_label
from bench_gui.report.names import parse_short_names
from bench_gui.report.options import LOGO_SUFFIXES, ReportOptions, check_cover, default_paper
from bench_gui.report.workloads import AnyReport
from bench_gui.workloads.contract import WorkloadKit

ShownReport = TypeVar("ShownReport", bound=AnyReport)

PAPER_ITEMS = (("A4", "a4"), ("Letter", "letter"))
LATENCY_ITEMS = (("All transactions", "all"), ("New-Order only", "new-order"))
NOTES_ITEMS = (("Leave them out of the report", "omit"), ("Keep them as an appendix", "appendix"))
COMMANDS_ITEMS = (("Leave it out", "omit"), ("Print it as an appendix", "appendix"))
SESSION_NOTES_ITEMS = (("Leave them out", "omit"), ("Print them", "include"))
LOGO_FILTER = "Images (" + " ".join(f"*{s}" for s in LOGO_SUFFIXES) + ");;All files (*)"
COVER_HINT = (
    "Company, logo and date make a cover line under the title; each is optional. Response"
    " times apply at once; the paper and the rest apply when you export."
)

COVER_HINT_NO_SCOPE = (
    "Company, logo and date make a cover line under the title; each is optional. They and"
    " the paper apply when you export."
)


def _combo(items: tuple[tuple[str, str], ...], current: str) -> QComboBox:
    combo = QComboBox()
    for text, value in items:
        combo.addItem(text, value)
    combo.setCurrentIndex(max(combo.findData(current), 0))
    return combo


def _select(combo: QComboBox, value: str) -> None:
    index = combo.findData(value)
    if index < 0:
        known = [combo.itemData(i) for i in range(combo.count())]
        raise ValueError(f"no choice {value!r}: the choices are {known}")
    combo.setCurrentIndex(index)


class ExportOptionsBox(QGroupBox):
    """What the author chooses for the report.

    Signals:
        latency_changed(str): the response times to show ("all" or "new-order").
        content_changed(): the author edited the short names, or chose to print the command
            log or the sessions' notes (the report is built again).
    """

    latency_changed = Signal(str)
    content_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Report", parent)
        form = QFormLayout(self)
        self.title_edit = QLineEdit()
        self.title_edit.setPlaceholderText("From the session names")
        form.addRow("Title", self.title_edit)
        self.short_edit = QLineEdit()
        self.short_edit.setPlaceholderText("From what differs between the names")
        self.short_edit.setToolTip(
            "Short names for headers, legends and the bottom line, as ID=NAME separated by"
            " semicolons: 14=HDD RAID 10; 15=S650DC RAID 10. Applies at once."
        )
        self.short_edit.editingFinished.connect(self.content_changed.emit)
        form.addRow("Short names", self.short_edit)
        self.paper_combo = _combo(PAPER_ITEMS, default_paper())
        self.paper_combo.setToolTip("The PDF's paper; the default follows this computer's locale")
        form.addRow("PDF paper", self.paper_combo)
        self.latency_combo = _combo(LATENCY_ITEMS, "all")
        self.latency_combo.setToolTip(
            "The response times the report compares: of every transaction type, or of"
            " New-Order only (the report says which)"
        )
        self.latency_combo.currentIndexChanged.connect(
            lambda _i: self.latency_changed.emit(self.latency())
        )
        form.addRow("Response times", self.latency_combo)
        self.form = form
        self.notes_combo = _combo(NOTES_ITEMS, "omit")
        self.notes_combo.setToolTip(
            "The notes for you (what is missing and how to add it) are shown before every"
            " export; the reader sees them only if you keep them as an appendix"
        )
        form.addRow("Notes for you", self.notes_combo)
        self.commands_combo = _combo(COMMANDS_ITEMS, "omit")
        self.commands_combo.setToolTip(
            "The commands bench-gui ran on the targets (as root): kept with every session,"
            " printed only if you choose"
        )
        self.commands_combo.currentIndexChanged.connect(lambda _i: self.content_changed.emit())
        form.addRow("Command log", self.commands_combo)
        self.session_notes_combo = _combo(SESSION_NOTES_ITEMS, "omit")
        self.session_notes_combo.setToolTip(
            "The notes recorded with the plans and the sessions: printed only if you choose"
        )
        self.session_notes_combo.currentIndexChanged.connect(lambda _i: self.content_changed.emit())
        form.addRow("Session notes", self.session_notes_combo)
        self.author_edit = QLineEdit()
        self.author_edit.setPlaceholderText("Your company or name (optional)")
        form.addRow("Cover: company", self.author_edit)
        self.logo_edit = QLineEdit()
        self.logo_edit.setPlaceholderText("PNG, JPEG or SVG file (optional)")
        self.logo_edit.setClearButtonEnabled(True)
        self.logo_button = QPushButton("Choose…")
        self.logo_button.clicked.connect(self.choose_logo)
        form.addRow("Cover: logo", self._row(self.logo_edit, self.logo_button))
        self.date_edit = QLineEdit()
        self.date_edit.setPlaceholderText("YYYY-MM-DD (optional)")
        self.date_edit.setClearButtonEnabled(True)
        self.today_button = QPushButton("Today")
        self.today_button.clicked.connect(lambda: self.date_edit.setText(date.today().isoformat()))
        form.addRow("Cover: date", self._row(self.date_edit, self.today_button))
        hint = self.hint = muted_label(COVER_HINT)
        hint.setObjectName("fieldHint")
        form.addRow(hint)

    @staticmethod
    def _row(edit: QLineEdit, button: QPushButton) -> QWidget:
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(6)
        line.addWidget(edit, 1)
        line.addWidget(button)
        return row

    def set_workload(self, kit: WorkloadKit) -> None:
        """The response-time scope is a transaction workload's choice: hidden for a workload
        whose report has none (a random-read study)."""
        scope = "response_scope" in kit.compare_inputs
        self.form.setRowVisible(self.latency_combo, scope)
        self.hint.setText(COVER_HINT if scope else COVER_HINT_NO_SCOPE)

    # ---- the choices ---------------------------------------------------------------------

    def paper(self) -> str:
        return str(self.paper_combo.currentData())

    def latency(self) -> str:
        return str(self.latency_combo.currentData())

    def author_notes(self) -> str:
        return str(self.notes_combo.currentData())

    def set_paper(self, paper: str) -> None:
        _select(self.paper_combo, paper)

    def set_latency(self, latency: str) -> None:
        _select(self.latency_combo, latency)

    def set_author_notes(self, choice: str) -> None:
        _select(self.notes_combo, choice)

    def set_cover(self, author: str = "", logo: str | Path = "", day: str = "") -> None:
        self.author_edit.setText(author)
        self.logo_edit.setText(str(logo))
        self.date_edit.setText(day)

    def choose_logo(self) -> None:
        start = self.logo_edit.text().strip() or str(Path.home())
        path, _ = QFileDialog.getOpenFileName(
            self, "The logo for the cover line", start, LOGO_FILTER
        )
        if path:
            self.logo_edit.setText(path)

    def short_names(self) -> tuple[tuple[int, str], ...]:
        """The author's short names (a ValueError names a bad item)."""
        items = [part for part in self.short_edit.text().split(";") if part.strip()]
        return tuple(parse_short_names(items).items())

    def compare_options(self, repeats: tuple[tuple[int, ...], ...] = ()) -> ReportOptions:
        """What the comparison itself depends on: the response times shown, short names."""
        return ReportOptions(
            latency=self.latency(),
            repeats=repeats,
            short_names=self.short_names(),
            commands=str(self.commands_combo.currentData()),
            session_notes=str(self.session_notes_combo.currentData()),
        )

    def options(self, repeats: tuple[tuple[int, ...], ...] = ()) -> ReportOptions:
        """Every choice; a ValueError names a logo that is not an image file or a bad date."""
        cover = check_cover(
            self.author_edit.text(), self.logo_edit.text().strip() or None, self.date_edit.text()
        )
        return ReportOptions(
            latency=self.latency(),
            author_notes=self.author_notes(),
            cover=cover,
            repeats=repeats,
            short_names=self.short_names(),
            commands=str(self.commands_combo.currentData()),
            session_notes=str(self.session_notes_combo.currentData()),
        )

    def for_export(self, report: ShownReport) -> ShownReport:
        """``report`` with the author's notes and cover chosen here (the figures stay those of
        the comparison shown; a ValueError names a bad logo or date)."""
        chosen = self.options(report.options.repeats)
        kept = dataclasses.replace(chosen, latency=report.options.latency)
        return dataclasses.replace(report, options=kept)
