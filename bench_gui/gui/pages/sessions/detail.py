"""The opened session: its title and facts, tags and note, and three tabs (the overview's
charts and step table, the host metrics, the log)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from bench_gui.gui.pages.sessions.run_table import STATUS_LABELS
from bench_gui.gui.widgets.page_parts import scrolled
from bench_gui.gui.widgets.session_log import SessionLogView
from bench_gui.gui.widgets.session_metrics import SessionMetricsView
from bench_gui.services.session_view import RunHeader, short_server
from bench_gui.workloads.base import kit_for, kits

TAB_OVERVIEW, TAB_METRICS, TAB_LOG = 0, 1, 2
NO_SESSION_TITLE = "Open a session to see its charts."


def run_facts(header: RunHeader) -> str:
    """One line about a run: when, its status, engine and server, then what its workload's
    kit says of it (a sweep's warehouses, timing and driver hosts)."""
    info = [
        header.created,
        STATUS_LABELS.get(header.status, header.status),
        header.engine,
        short_server(header.server_version),
        *kit_for(header.workload).face("facts")(header),
    ]
    return "  ·  ".join(str(p) for p in info if p)


class SessionDetail(QWidget):
    """What the Sessions page shows of the session it opened (nothing until one is)."""

    def __init__(self) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 0, 0)
        layout.setSpacing(10)
        title_row = QHBoxLayout()
        title_row.setSpacing(8)
        self.title = QLabel(NO_SESSION_TITLE)
        self.title.setObjectName("sectionTitle")
        title_row.addWidget(self.title, 1)
        self.power_button = QPushButton("Import power log…")
        self.power_button.setToolTip(
            "Give this session's steps the power a meter logged during the run (CSV with a"
            " time and a watts column): average watts over each measured window, mW per NOPM,"
            " J per new order"
        )
        self.power_button.setEnabled(False)
        title_row.addWidget(self.power_button)
        layout.addLayout(title_row)
        self.info = QLabel("")
        self.info.setObjectName("muted")
        self.info.setWordWrap(True)
        layout.addWidget(self.info)
        layout.addLayout(self._notes_row())
        self.metrics_view = SessionMetricsView()
        self.log_view = SessionLogView()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        # Each workload's overview (its kit's), the one of the opened session's shown; the
        # charts and tables scroll when the window is short (a 720 px screen).
        self.overviews: dict[str, QWidget] = {
            kit.name: kit.face("sessions_overview")() for kit in kits()
        }
        self.overview_stack = QStackedWidget()
        for overview in self.overviews.values():
            self.overview_stack.addWidget(overview)
        self.tabs.addTab(scrolled(self.overview_stack), "Overview")
        self.tabs.addTab(self.metrics_view, "Metrics")
        self.tabs.addTab(self.log_view, "Log")
        layout.addWidget(self.tabs, 1)

    def _notes_row(self) -> QHBoxLayout:
        notes = QHBoxLayout()
        notes.setSpacing(8)
        tags_label = QLabel("Tags")
        tags_label.setObjectName("muted")
        notes.addWidget(tags_label)
        self.tags_edit = QLineEdit()
        self.tags_edit.setPlaceholderText("ssd, raid10, booth…")
        notes.addWidget(self.tags_edit, 1)
        note_label = QLabel("Note")
        note_label.setObjectName("muted")
        notes.addWidget(note_label)
        self.note_edit = QPlainTextEdit()
        self.note_edit.setPlaceholderText("What was special about this run…")
        self.note_edit.setFixedHeight(44)
        notes.addWidget(self.note_edit, 3)
        self.save_notes_button = QPushButton("Save")
        notes.addWidget(self.save_notes_button)
        self._enable_notes(False)
        return notes

    def _enable_notes(self, enabled: bool) -> None:
        for widget in (self.tags_edit, self.note_edit, self.save_notes_button):
            widget.setEnabled(enabled)

    def show_session(self, store: Any, header: RunHeader) -> None:
        """A run's title, facts, and its workload's overview (read from ``store``)."""
        overview = self.overviews[kit_for(header.workload).name]
        overview.show_session(store, header)  # type: ignore[attr-defined]
        self.title.setText(f"#{header.id}  {header.name}")
        self.info.setText(run_facts(header))
        self.overview_stack.setCurrentWidget(overview)

    def show_annotations(self, tags: Sequence[str], note: str) -> None:
        """The run's tags and note, ready to edit."""
        self.tags_edit.setText(", ".join(tags))
        self.note_edit.setPlainText(note)
        self._enable_notes(True)

    def tags(self) -> list[str]:
        return self.tags_edit.text().split(",")

    def note(self) -> str:
        return self.note_edit.toPlainText()

    def forget(self) -> None:
        """Back to showing no session (the one shown was deleted)."""
        self.title.setText(NO_SESSION_TITLE)
        self.info.setText("")
        for overview in self.overviews.values():
            overview.clear()  # type: ignore[attr-defined]
        self.overview_stack.setCurrentIndex(0)
        self._enable_notes(False)
        self.power_button.setEnabled(False)
        self.log_view.clear()
        self.metrics_view.show_session([], [])
