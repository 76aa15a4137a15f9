"""The Study page: open a study file (or write one from a seed's template), see each system
and whether it is measured already, run the study and follow which system and step is running
and how long is left; the brief's files are named when it is written.

The work is :class:`bench_gui.services.study_run.StudyRunner`'s, run through the page's one
:class:`~bench_gui.gui.tasks.TaskRunner`; the page only shows it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.study import load_study
from bench_gui.core.study_model import Study, StudyError
from bench_gui.gui.tasks import TaskRunner, TaskState
from bench_gui.gui.widgets.page_parts import Banner, ErrorLine, FitTable, PageHeader
from bench_gui.services.errors import StoreError
from bench_gui.services.run_errors import RunError
from bench_gui.services.sessions import SessionStore
from bench_gui.services.study_run import (
    StudyProgress,
    StudyResult,
    StudyRunner,
    check_storage,
    plan_seconds,
    progress_text,
    sessions_of,
)
from bench_gui.services.study_templates import SEEDS, TemplateError, write_template

COLUMNS = ("System", "Name", "Baseline", "Measured windows", "Session")


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:,.1f} min" if seconds >= 60 else f"{seconds:,.0f} s"


class StudyPage(QWidget):
    """A study's systems and its run (see the module docstring)."""

    status = Signal(str)

    def __init__(self, store: SessionStore) -> None:
        super().__init__()
        self.store = store
        self.study: Study | None = None
        self.path: Path | None = None
        self.result: StudyResult | None = None
        self._runner_obj: StudyRunner | None = None
        self.runner = TaskRunner(
            self, expected=(StudyError, RunError, StoreError, OSError), where="the Study page"
        )
        self.runner.busy_changed.connect(self._on_busy)
        self.runner.progress.connect(self._progress)

        layout = QVBoxLayout(self)
        self.header = PageHeader(
            "Study", "Systems measured in turn with one sweep, then the brief", elide=True
        )
        self.open_button = self.header.add_action("Open…")
        self.run_button = self.header.add_action("Run study", primary=True)
        self.stop_button = self.header.add_action("Stop")
        layout.addWidget(self.header)

        templates = QHBoxLayout()
        templates.addWidget(QLabel("Template:"))
        self.template_combo = QComboBox()
        self.template_combo.addItems(SEEDS)
        templates.addWidget(self.template_combo)
        self.new_button = QPushButton("New from template…")
        templates.addWidget(self.new_button)
        templates.addStretch(1)
        layout.addLayout(templates)

        self.file_label = QLabel("No study open.")
        self.file_label.setWordWrap(True)
        layout.addWidget(self.file_label)
        self.errors = ErrorLine()
        layout.addWidget(self.errors)
        self.table = FitTable(COLUMNS, stretch=1)
        layout.addWidget(self.table, 1)
        self.progress_line = QLabel("")
        self.progress_line.setWordWrap(True)
        layout.addWidget(self.progress_line)
        self.banner = Banner()
        layout.addWidget(self.banner)

        self.open_button.clicked.connect(self._ask_open)
        self.new_button.clicked.connect(self._ask_new)
        self.run_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        self._on_busy(False)

    # -- files ----------------------------------------------------------------------------------

    def _ask_open(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Open a study", "", "Study files (*.toml)")
        if name:
            self.open(Path(name))

    def _ask_new(self) -> None:
        seed = self.template_combo.currentText()
        name, _ = QFileDialog.getSaveFileName(
            self, f"A study from {seed}", f"{seed}-study.toml", "Study files (*.toml)"
        )
        if name:
            self.new_from_template(seed, Path(name))

    def new_from_template(self, seed: str, path: Path) -> bool:
        """Write a seed's study file to ``path`` and open it; False (and why) if not written."""
        try:
            write_template(seed, path, overwrite=path.exists())
        except (TemplateError, OSError) as exc:
            self.errors.show_error(str(exc))
            return False
        return self.open(path)

    def open(self, path: Path) -> bool:
        """Load and check a study file; its problems (each by its path) under the file name."""
        self.file_label.setText(str(path))
        self.banner.clear()
        self.progress_line.setText("")
        try:
            study = load_study(path)
            check_storage(study)
        except StudyError as exc:
            self.study, self.path = None, path
            self.errors.show_error(
                "The study is not valid:\n"
                + "\n".join(f"{name}: {reason}" for name, reason in exc.problems)
            )
            self.table.setRowCount(0)
            self._on_busy(False)
            return False
        self.errors.clear_error()
        self.study, self.path = study, path
        self.header.set_subtitle(f"{study.name} (sessions tagged {study.tag})")
        self.refresh()
        self._on_busy(False)
        return True

    def refresh(self) -> None:
        """Each system's row: whether a valid session measures it already."""
        study = self.study
        if study is None:
            return
        rows = list(sessions_of(self.store, study))
        self.table.setRowCount(len(rows))
        for row, (system, session) in enumerate(rows):
            cells = (
                system.key,
                system.name,
                "baseline" if system.key == study.baseline else "",
                _minutes(plan_seconds(system.plan)),
                f"#{session}" if session is not None else "to measure",
            )
            for column, text in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(text))
        self.table.fit_columns()

    # -- the run --------------------------------------------------------------------------------

    def start(self) -> bool:
        """Run the study in the background; False if none is open or a run is going on."""
        study, path = self.study, self.path
        if study is None or path is None:
            return False
        from bench_gui.report.study_brief import write_brief

        self.banner.clear()

        def work(state: TaskState) -> StudyResult:
            def progress(p: StudyProgress) -> None:
                fraction = (p.index - 1) / p.total if p.total else -1.0
                state.set_progress(fraction, progress_text(p))

            def event(_system: Any, _event: Any) -> None:
                if state.cancelled and self._runner_obj is not None:
                    self._runner_obj.stop()

            runner = StudyRunner(
                study,
                self.store,
                path.parent,
                on_progress=progress,
                on_event=event,
                write_brief=write_brief,
            )
            self._runner_obj = runner
            try:
                return runner.run()
            finally:
                self._runner_obj = None

        return self.runner.start("study", work, self._done, self._failed)

    def _progress(self, _what: str, _fraction: float, text: str) -> None:
        self.progress_line.setText(text)

    def stop(self) -> None:
        """Stop the running system (what it measured is kept; a new run goes on from there)."""
        runner = self._runner_obj
        if runner is not None:
            runner.stop()

    def _done(self, result: StudyResult) -> None:
        self.result = result
        files = ", ".join(p.name for p in result.written) or "none"
        skipped = f"; already measured: {', '.join(result.skipped)}" if result.skipped else ""
        self.banner.show_text("ok", f"Brief written: {files}{skipped}")
        self.progress_line.setText("\n".join(f"note: {n}" for n in result.notes))
        self.status.emit("Study finished")
        self.refresh()

    def _failed(self, _what: str, message: str, _details: str) -> None:
        self.banner.show_text("failed", message)
        self.status.emit("Study stopped")
        self.refresh()

    def _on_busy(self, busy: bool) -> None:
        ready = self.study is not None
        self.run_button.setEnabled(ready and not busy)
        self.stop_button.setEnabled(busy)
        self.open_button.setEnabled(not busy)
        self.new_button.setEnabled(not busy)

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop a running study and join its thread (the window is closing)."""
        self.stop()
        return self.runner.shutdown(timeout_s)
