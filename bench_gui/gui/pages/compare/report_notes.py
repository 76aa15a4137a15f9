"""Who a comparison's notes are for, on the Compare page.

The reader's notes (a configuration that never saturated, a cost that disagrees with its own
arithmetic) are printed on the report's first page; the page shows them as such. The author's
notes (what is missing and how to add it) are for the person making the report: the page
shows them apart, and before a report file is written :class:`ExportGate` lists them in
:class:`AuthorNotesDialog` for the author to acknowledge, once per comparison. They reach the
file only as an appendix the author chose to keep.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bench_gui.gui.pages.compare.export_options import ExportOptionsBox
from bench_gui.gui.widgets.page_parts import scrolled
from bench_gui.gui.widgets.report_notes import (
    APPENDIX,
    AUTHOR_STYLE,
    OMITTED,
    NotedReport,
    author_notes_of,
)


class AuthorNotesDialog(QDialog):
    """The author's notes before a report file is written: read them, keep them as an
    appendix or not, then export or go back and fix what they say."""

    def __init__(
        self, notes: list[str], target: Path, appendix: bool, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Before you export")
        self.setMinimumWidth(640)
        self.resize(760, 480)
        column = QVBoxLayout(self)
        column.setSpacing(10)
        count = len(notes)
        heading = QLabel(
            f"{count} note{'s' if count != 1 else ''} for you before {target.name} is written"
        )
        heading.setObjectName("sectionTitle")
        heading.setWordWrap(True)
        column.addWidget(heading)
        self.notes_label = QLabel("\n\n".join(f"⚑  {n}" for n in notes))
        self.notes_label.setObjectName("authorNotes")
        self.notes_label.setStyleSheet(AUTHOR_STYLE)
        self.notes_label.setWordWrap(True)
        self.notes_label.setTextFormat(Qt.TextFormat.PlainText)
        self.notes_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notes_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        column.addWidget(scrolled(self.notes_label), 1)
        self.appendix_check = QCheckBox("Keep these notes as an appendix at the end of the report")
        self.appendix_check.setChecked(appendix)
        column.addWidget(self.appendix_check)
        self.where_label = QLabel("")
        self.where_label.setObjectName("muted")
        self.where_label.setWordWrap(True)
        column.addWidget(self.where_label)
        self.appendix_check.toggled.connect(self._say_where)
        self._say_where(appendix)
        buttons = QDialogButtonBox()
        self.export_button = QPushButton("Export")
        self.export_button.setProperty("role", "primary")
        self.export_button.setDefault(True)
        buttons.addButton(self.export_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.back_button = QPushButton("Back, to fix them")
        buttons.addButton(self.back_button, QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)

    @property
    def appendix(self) -> bool:
        return self.appendix_check.isChecked()

    @property
    def notes(self) -> str:
        return self.notes_label.text()

    def _say_where(self, appendix: bool) -> None:
        self.where_label.setText(APPENDIX if appendix else OMITTED)


class ExportGate(QObject):
    """Shows the author's notes once per comparison before a report file is written.

    ``current`` gives the report on show, ``write`` writes it to a path (the page's export).
    The dialog is opened with ``open()`` (not modal-blocking), so tests drive it as a user.
    """

    def __init__(
        self,
        parent: QWidget,
        options: ExportOptionsBox,
        current: Callable[[], NotedReport | None],
        write: Callable[[Path], bool],
    ) -> None:
        super().__init__(parent)
        self.options = options
        self.current = current
        self.write = write
        self.dialog: AuthorNotesDialog | None = None
        self._acknowledged: NotedReport | None = None

    def acknowledged(self, report: NotedReport | None) -> bool:
        return report is not None and report is self._acknowledged

    def request(self, path: Path) -> AuthorNotesDialog | None:
        """Write ``path``, after the author has seen the notes of the comparison shown; the
        dialog when it is asked for (the file is written when it is accepted)."""
        report = self.current()
        notes = author_notes_of(report) if report is not None else []
        if not notes or self.acknowledged(report):
            self.write(path)
            return None
        parent = self.parent()
        assert isinstance(parent, QWidget)
        dialog = AuthorNotesDialog(notes, path, self.options.author_notes() == "appendix", parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._accepted(dialog, report, path))
        dialog.rejected.connect(self._forget)
        self.dialog = dialog
        dialog.open()
        return dialog

    def _forget(self) -> None:
        self.dialog = None

    def _accepted(self, dialog: AuthorNotesDialog, report: NotedReport | None, path: Path) -> None:
        self.options.set_author_notes("appendix" if dialog.appendix else "omit")
        self._acknowledged = report
        self.dialog = None
        self.write(path)
