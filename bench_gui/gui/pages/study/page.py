"""The Study page: open a study file (or write one from a seed's template), see each system
and whether it is measured already, run the study and follow which system and step is running
and how long is left; the brief's files are named when it is written.

The work is :class:`bench_gui.services.study_run.StudyRunner`'s, run through the page's one
:class:`~bench_gui.gui.tasks.TaskRunner`; the page only shows it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidgetItem,
    QWidget,
)

from bench_gui.core.study import load_study
from bench_gui.core.study_model import Study, StudyError
from bench_gui.gui.tasks import TaskRunner, TaskState
from bench_gui.gui.widgets.page_parts import Banner, ErrorLine, FitTable, PageHeader, page_layout
from bench_gui.services.errors import StoreError
from bench_gui.services.run_errors import RunError
from bench_gui.services.sessions import SessionStore
from bench_gui.services.study_preflight import Finding, check_unmeasured, problems_text
from bench_gui.services.study_run import (
    StudyProgress,
    StudyResult,
    StudyRunner,
    check_storage,
    plan_seconds,
    progress_text,
    sessions_of,
)
from bench_gui.services.study_templates import (
    SEEDS,
    TemplateError,
    template_summary,
    write_template,
)

COLUMNS = ("System", "Name", "Baseline", "Measured windows", "Session")
SESSION_COLUMN = 4
TIP = Qt.ItemDataRole.ToolTipRole
# What a system's Session cell says while the study is at it, by the progress's stage.
STAGE_WORDS = {
    "storage": "building its storage",
    "tuning": "applying its tuning",
    "running": "measuring",
    "rollback": "rolling its tuning back",
    "teardown": "taking its storage down",
}


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:,.1f} min" if seconds >= 60 else f"{seconds:,.0f} s"


def _fraction(p: StudyProgress) -> float:
    """How far the study is, by systems and the running system's steps (0..1)."""
    if not p.total:
        return -1.0
    done = float(p.index - 1)
    if p.stage == "running" and p.step and p.steps:
        done += (p.step - 1) / p.steps
    elif p.stage in ("done", "skipped", "brief"):
        done += 1
    return min(done / p.total, 1.0)


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
        # What the running study is doing to each system (key -> words), shown in its row.
        self._doing: dict[str, str] = {}
        self._stop_asked = False  # Stop was pressed: the run's end is the user's, not a failure
        self.runner = TaskRunner(
            self, expected=(StudyError, RunError, StoreError, OSError), where="the Study page"
        )
        self.runner.busy_changed.connect(self._on_busy)
        self.runner.progress.connect(self._progress)

        layout = page_layout(self)
        self.header = PageHeader(
            "Study", "Systems measured in turn with one sweep, then the brief", elide=True
        )
        self.open_button = self.header.add_action("Open…")
        self.check_button = self.header.add_action("Check")
        self.check_button.setToolTip(
            "Reach what the study points at (servers, presets, driver hosts, devices, prices)"
            " for each system still to measure, as bench-gui study check does"
        )
        self.run_button = self.header.add_action("Run study", primary=True)
        self.stop_button = self.header.add_action("Stop")
        layout.addWidget(self.header)

        # The templates' gallery: each seed's study by its name, and what it reproduces.
        templates = QHBoxLayout()
        templates.addWidget(QLabel("Template:"))
        self.template_combo = QComboBox()
        for seed in SEEDS:
            name, about = template_summary(seed)
            self.template_combo.addItem(f"{seed}: {name}", seed)
            self.template_combo.setItemData(self.template_combo.count() - 1, about, TIP)
        templates.addWidget(self.template_combo, 1)
        self.new_button = QPushButton("New from template…")
        templates.addWidget(self.new_button)
        layout.addLayout(templates)
        self.template_about = QLabel("")
        self.template_about.setWordWrap(True)
        self.template_about.setObjectName("muted")
        layout.addWidget(self.template_about)

        self.file_label = QLabel("No study open.")
        self.file_label.setWordWrap(True)
        layout.addWidget(self.file_label)
        self.errors = ErrorLine()
        layout.addWidget(self.errors)
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.notes.setObjectName("muted")
        self.notes.hide()
        layout.addWidget(self.notes)
        self.table = FitTable(COLUMNS, stretch=1)
        layout.addWidget(self.table, 1)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.hide()
        layout.addWidget(self.progress_bar)
        self.progress_line = QLabel("")
        self.progress_line.setWordWrap(True)
        layout.addWidget(self.progress_line)
        self.banner = Banner()
        self.brief_button = QPushButton("Open the brief")
        self.banner.add_widget(self.brief_button)
        self.brief_button.hide()
        layout.addWidget(self.banner)

        self.template_combo.currentIndexChanged.connect(self._show_template)
        self.check_button.clicked.connect(self.check)
        self.brief_button.clicked.connect(self.open_brief)
        self.runner.partial.connect(self._partial)
        self._show_template()
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

    def _show_template(self) -> None:
        self.template_about.setText(self.template_combo.currentData(TIP) or "")

    def _ask_new(self) -> None:
        seed = str(self.template_combo.currentData())
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
        self.file_label.setText(f"Study file: {path}")
        self.banner.clear()
        self.brief_button.hide()
        self.progress_line.setText("")
        self._show_notes([])
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
                self._doing.get(system.key)
                or (f"#{session}" if session is not None else "to measure"),
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
        self.brief_button.hide()
        self._doing.clear()
        self._stop_asked = False

        def work(state: TaskState) -> StudyResult:
            def progress(p: StudyProgress) -> None:
                state.set_partial_result(p)  # the system's row and the bar
                state.set_progress(_fraction(p), progress_text(p))

            def event(_system: Any, _event: Any) -> None:
                if state.cancelled and self._runner_obj is not None:
                    self._runner_obj.stop()

            # What would stop the run at its last system is said before the first is measured.
            state.set_progress(0.0, "Checking what each system points at…")
            problems = problems_text(check_unmeasured(study, path.parent, self.store))
            if problems:
                raise RunError(f"Not started: the check found what would stop the run:\n{problems}")
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

    def _progress(self, _what: str, fraction: float, text: str) -> None:
        self.progress_line.setText(text)
        if fraction >= 0:
            self.progress_bar.setValue(round(fraction * 1000))

    def _partial(self, what: str, progress: object) -> None:
        """A system's stage into its row: "measuring: step 2/8", "#12" when done."""
        if what != "study" or not isinstance(progress, StudyProgress):
            return
        words = STAGE_WORDS.get(progress.stage)
        if progress.stage == "running" and progress.step:
            words = f"measuring: step {progress.step}/{progress.steps}"
        if words:
            self._doing[progress.system] = words
        else:  # skipped, done, brief: the stored session says it
            self._doing.pop(progress.system, None)
        self.refresh()

    def stop(self) -> None:
        """Stop the running system (what it measured is kept; a new run goes on from there)."""
        runner = self._runner_obj
        if runner is not None:
            self._stop_asked = True
            runner.stop()

    def _done(self, result: StudyResult) -> None:
        self.result = result
        self._doing.clear()
        files = ", ".join(p.name for p in result.written) or "none"
        skipped = f"; already measured: {', '.join(result.skipped)}" if result.skipped else ""
        self.banner.show_text("ok", f"Brief written: {files}{skipped}")
        self.brief_button.setVisible(bool(result.written))
        self.progress_line.setText("\n".join(f"note: {n}" for n in result.notes))
        self.progress_bar.setValue(1000)
        self.status.emit("Study finished")
        self.refresh()

    def _failed(self, _what: str, message: str, _details: str) -> None:
        if _what == "check":
            self.errors.show_error(f"The check could not finish: {message}")
            return
        self._doing.clear()
        self.progress_line.setText("")
        if self._stop_asked:
            # The user's Stop, not a failure: what was measured is kept, a run goes on from it.
            self.banner.show_text(
                "stopped",
                "Study stopped: the running system's session keeps what it measured and is"
                " measured again; Run study goes on from there.",
            )
        else:
            self.banner.show_text("failed", message)
        self.status.emit("Study stopped")
        self.refresh()

    def open_brief(self) -> bool:
        """Open the brief just written (its PDF when there is one) in the desktop's viewer."""
        written = self.result.written if self.result is not None else []
        if not written:
            return False
        best = next((p for p in written if p.suffix == ".pdf"), written[0])
        return QDesktopServices.openUrl(QUrl.fromLocalFile(str(best)))

    # -- the check ------------------------------------------------------------------------------

    def check(self) -> bool:
        """Reach what the study points at for each system still to measure, in the background
        (a server that does not answer takes its time out); the findings under the file."""
        study, path = self.study, self.path
        if study is None or path is None:
            return False
        store = self.store

        def work() -> list[Finding]:
            return check_unmeasured(study, path.parent, store)

        self.progress_line.setText("Checking the servers, presets, hosts, devices and prices…")
        return self.runner.start("check", work, self._checked, self._failed)

    def _checked(self, found: list[Finding]) -> None:
        problems = [f for f in found if f.problem]
        if problems:
            self.errors.show_error(
                f"Not ready: {len(problems)} problem{'s' if len(problems) != 1 else ''} would"
                " stop the run:\n" + "\n".join(f"{f.path}: {f.text}" for f in problems)
            )
        else:
            self.errors.clear_error()
        self._show_notes([f for f in found if not f.problem])
        self.progress_line.setText("Ready to run." if not problems else "")

    def _show_notes(self, notes: list[Finding]) -> None:
        self.notes.setText("\n".join(f"note: {f.path}: {f.text}" for f in notes))
        self.notes.setVisible(bool(notes))

    def _on_busy(self, busy: bool) -> None:
        ready = self.study is not None
        self.run_button.setEnabled(ready and not busy)
        self.check_button.setEnabled(ready and not busy)
        self.stop_button.setEnabled(busy and self.runner.busy == "study")
        self.open_button.setEnabled(not busy)
        self.new_button.setEnabled(not busy)
        self.progress_bar.setVisible(busy and self.runner.busy == "study")
        if busy and self.runner.busy == "study":
            self.progress_bar.setValue(0)

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop a running study and join its thread (the window is closing)."""
        self.stop()
        return self.runner.shutdown(timeout_s)
