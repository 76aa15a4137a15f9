"""The main window: navigation on the left, the pages in a stack, a status bar.

The window owns the one task that may run at a time (a sweep, a schema build or a check, as
Orange3 allows one task per widget): it builds the controller through ``controller_factory``,
runs it in a :class:`~bench_gui.gui.worker.RunWorker` and routes the worker's events to the
page that shows them. A run re-attached on a driver host (:mod:`bench_gui.gui.reattach`) is
such a task too: it is followed on the Live page like a sweep started here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QStatusBar,
    QVBoxLayout,
    QWidget,
)

from bench_gui import __version__
from bench_gui.agent.protocol import Event
from bench_gui.core.plan import Plan, PlanError, plan_from_dict
from bench_gui.gui import tasks
from bench_gui.gui.errors import ErrorNotifier, notifier
from bench_gui.gui.pages.compare import ComparePage
from bench_gui.gui.pages.database import DatabasePage
from bench_gui.gui.pages.live import LivePage
from bench_gui.gui.pages.sessions import SessionsPage
from bench_gui.gui.pages.storage import StoragePage
from bench_gui.gui.pages.targets import TargetsPage
from bench_gui.gui.pages.workload import WorkloadPage
from bench_gui.gui.reattach import Reattacher
from bench_gui.gui.worker import Controller, RunWorker, describe_status
from bench_gui.services.reattach import Candidate, ReattachController, find_candidates

# (plan, store, action) -> a controller; the default is bench_gui.services.run.RunController.
ControllerFactory = Callable[[Plan, Any, str], Controller]

PAGES = ("Workload", "Live", "Sessions", "Compare", "Database", "Targets", "Storage")
ACTION_WORDS = {"run": "Sweep", "build": "Schema build", "check": "Consistency check"}
NAV_ACTION_STYLE = """
QPushButton#navAction {
    background-color: transparent; border: 1px solid #2a3140; border-radius: 8px;
    color: #b9c3d6; font-size: 14px; font-weight: 600; padding: 8px 10px; margin: 4px 12px 8px 12px;
}
QPushButton#navAction:hover { background-color: #1a2130; color: #ffffff; border-color: #3a4459; }
"""


def default_controller_factory(plan: Plan, store: Any, action: str) -> Controller:
    from bench_gui.services.run import RunController

    return RunController(plan, store, action)


class MainWindow(QMainWindow):
    """The application window; ``shutdown()`` stops and joins any task still running."""

    def __init__(
        self,
        store: Any,
        controller_factory: ControllerFactory | None = None,
        errors: ErrorNotifier | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.controller_factory = controller_factory or default_controller_factory
        self.errors = errors or notifier()
        self.worker: RunWorker | None = None
        self.last_session_id: int | None = None
        self.error_box: QMessageBox | None = None
        self.setWindowTitle("bench-gui — OLTP test bench")
        self.resize(1600, 1000)
        self._build_ui()
        self.errors.error.connect(self.show_error)
        self.reattacher = Reattacher(store, self)
        self.reattacher.status.connect(self.set_status)
        self.reattacher.live_ready.connect(self.follow_next_reattached)
        self.reattacher.session_changed.connect(lambda _id: self.sessions_page.refresh())

    # ---- construction --------------------------------------------------------------------

    def _build_ui(self) -> None:
        central = QWidget()
        row = QHBoxLayout(central)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)

        nav_panel = QWidget()
        nav_panel.setObjectName("navPanel")
        nav_panel.setFixedWidth(190)
        nav_layout = QVBoxLayout(nav_panel)
        nav_layout.setContentsMargins(0, 0, 0, 0)
        nav_layout.setSpacing(0)
        brand = QLabel("bench-gui")
        brand.setObjectName("brand")
        nav_layout.addWidget(brand)
        sub = QLabel("TPROC-C test bench")
        sub.setObjectName("brandSub")
        nav_layout.addWidget(sub)
        self.nav = QListWidget()
        self.nav.setObjectName("navigation")
        self.nav.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for name in PAGES:
            QListWidgetItem(name, self.nav)
        nav_layout.addWidget(self.nav, 1)
        self.reattach_button = QPushButton("Re-attach runs…")
        self.reattach_button.setObjectName("navAction")
        self.reattach_button.setStyleSheet(NAV_ACTION_STYLE)
        self.reattach_button.setToolTip(
            "Look for runs left on driver hosts (after bench-gui was closed or crashed)"
            " and fetch what they recorded"
        )
        self.reattach_button.clicked.connect(lambda: self.offer_reattach())
        nav_layout.addWidget(self.reattach_button)
        version = QLabel(f"v{__version__}")
        version.setObjectName("brandSub")
        nav_layout.addWidget(version)
        row.addWidget(nav_panel)

        self.stack = QStackedWidget()
        self.workload_page = WorkloadPage()
        self.live_page = LivePage()
        self.sessions_page = SessionsPage(self.store)
        self.compare_page = ComparePage(self.store)
        self.database_page = DatabasePage(self.store, plan_provider=self.workload_page.plan_data)
        self.targets_page = TargetsPage(plan_source=self.workload_page.current_plan)
        self.workload_page.set_driver_targets(self.targets_page.target_names())
        self.storage_page = StoragePage()
        for page in (
            self.workload_page,
            self.live_page,
            self.sessions_page,
            self.compare_page,
            self.database_page,
            self.targets_page,
            self.storage_page,
        ):
            self.stack.addWidget(page)
        row.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.nav.setCurrentRow(0)

        status = QStatusBar()
        self.status_label = QLabel("Ready")
        self.session_label = QLabel("")
        status.addWidget(self.status_label, 1)
        status.addPermanentWidget(self.session_label)
        self.setStatusBar(status)

        self.workload_page.start_requested.connect(self.start_run)
        self.workload_page.build_requested.connect(lambda plan: self.start_task("build", plan))
        self.workload_page.check_requested.connect(lambda plan: self.start_task("check", plan))
        self.workload_page.cancel_requested.connect(self.stop_task)
        self.live_page.stop_requested.connect(self.stop_task)
        self.live_page.open_session_requested.connect(self.open_last_session)
        self.database_page.status.connect(self.set_status)
        self.compare_page.status.connect(self.set_status)
        self.targets_page.status.connect(self.set_status)
        self.targets_page.targets_changed.connect(self.workload_page.set_driver_targets)
        self.storage_page.status.connect(self.set_status)
        self.targets_page.targets_changed.connect(lambda _names: self.storage_page.reload_targets())

    # ---- navigation ----------------------------------------------------------------------

    def show_page(self, name: str) -> None:
        self.nav.setCurrentRow(PAGES.index(name))

    def current_page_name(self) -> str:
        return PAGES[self.stack.currentIndex()]

    def open_last_session(self) -> None:
        self.show_page("Sessions")
        if self.last_session_id is not None:
            self.sessions_page.open_run(self.last_session_id)

    # ---- tasks ---------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.worker is not None

    def start_run(self, plan: Plan) -> bool:
        """Start a sweep and show the Live page; False if another task is running."""
        if not self.start_task("run", plan):
            return False
        self.live_page.begin_run(plan)
        self.show_page("Live")
        return True

    def start_task(self, action: str, plan: Plan) -> bool:
        if self.worker is not None:
            self.set_status(f"{ACTION_WORDS.get(self.worker.action, 'A task')} is still running.")
            return False
        store, factory = self.store, self.controller_factory
        self._run_worker(RunWorker(lambda: factory(plan, store, action), action=action))
        return True

    def _run_worker(self, worker: RunWorker) -> None:
        action = worker.action
        worker.event.connect(self._on_event)
        worker.finished.connect(self._on_finished)
        worker.failed.connect(self._on_failed)
        self.worker = worker
        self.workload_page.set_busy(action)
        self.set_status(f"{ACTION_WORDS.get(action, action)} starting…")
        self.session_label.setText("")
        worker.start()

    # ---- re-attaching --------------------------------------------------------------------

    def offer_reattach(self, candidates: list[Candidate] | None = None) -> bool:
        """Look for lost runs on their driver hosts in the background, then ask which to
        follow; None: the sessions :func:`find_candidates` offers on request. False if there
        is nothing to look for (or a scan is going on already)."""
        if self.reattacher.busy:
            self.set_status("Already looking for runs to re-attach.")
            return False
        if candidates is None:
            held = self.reattacher.followed_ids()
            if self.worker is not None and self.worker.session_id is not None:
                held.add(self.worker.session_id)
            candidates = find_candidates(self.store, at_start=False, exclude=held)
            if not candidates:
                self.set_status("No run left on a driver host to re-attach.")
        return self.reattacher.start_scan(candidates)

    def follow_next_reattached(self) -> bool:
        """Follow the next re-attached run that is still going on, if the Live page is free."""
        if self.worker is not None:
            return False
        candidate = self.reattacher.take_live()
        if candidate is None:
            return False
        try:
            plan = plan_from_dict(candidate.plan)
        except PlanError as exc:
            message = f"cannot re-attach: the stored plan is not valid ({exc})"
            self.store.close_unfinished(candidate.session_id, message)
            self.set_status(f"Session #{candidate.session_id}: {message}")
            return self.follow_next_reattached()
        store = self.store
        worker = RunWorker(lambda: ReattachController(candidate, store, replay=True), action="run")
        self._run_worker(worker)
        self.last_session_id = candidate.session_id
        self.session_label.setText(f"Session #{candidate.session_id}")
        self.set_status(f"Re-attaching to session #{candidate.session_id} on {candidate.target}…")
        self.live_page.begin_run(plan)
        self.show_page("Live")
        return True

    def stop_task(self) -> None:
        if self.worker is not None:
            self.worker.stop()
            self.set_status(f"Stopping the {ACTION_WORDS.get(self.worker.action, '').lower()}…")

    def _on_event(self, event: Event) -> None:
        worker = self.worker
        if worker is None:
            return
        if worker.session_id is not None and worker.action == "run":
            self.last_session_id = worker.session_id
            self.session_label.setText(f"Session #{worker.session_id}")
        if worker.action == "run":
            self.live_page.handle_event(event)
            if event.kind == "step" and event.get("phase") == "start":
                model = self.live_page.model
                self.set_status(
                    f"Sweep running: step {model.step_number} of {model.step_count or '?'}"
                    f" ({event.get('vus')} users)"
                )
            elif event.kind == "hello":
                self.set_status(f"Sweep running against {event.get('server') or 'the target'}")
        else:
            self.workload_page.task_event(event)

    def _task_ended(self) -> RunWorker | None:
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.wait(60)  # the thread is returning: its last signal was just delivered
            if worker.session_id is not None and worker.action == "run":
                self.last_session_id = worker.session_id
        self.workload_page.set_busy(None)
        return worker

    def _on_finished(self, status: str) -> None:
        worker = self._task_ended()
        action = worker.action if worker is not None else "run"
        if action == "run":
            self.live_page.run_finished(status)
            self.set_status(describe_status(status))
            self.sessions_page.refresh()
        else:
            self.workload_page.task_finished(action, status)
            self.set_status(f"{ACTION_WORDS.get(action, action)} finished ({status}).")
        self.follow_next_reattached()

    def _on_failed(self, message: str) -> None:
        worker = self._task_ended()
        action = worker.action if worker is not None else "run"
        if action == "run":
            self.live_page.run_failed(message)
            self.sessions_page.refresh()
        else:
            self.workload_page.task_failed(action, message)
        self.set_status(f"{ACTION_WORDS.get(action, action)} failed: {message}")
        if worker is not None and worker.unexpected:
            # Not a failure the user can act on (wrong password...): a bug; show the traceback.
            title = f"{ACTION_WORDS.get(action, action)} failed unexpectedly"
            self.errors.report(title, f"{message}\n\n{worker.error_details}")
        self.follow_next_reattached()

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop the running task, if any, and join its thread."""
        self.database_page.shutdown(timeout_s)
        self.targets_page.shutdown(timeout_s)
        self.storage_page.shutdown(timeout_s)
        ok = True
        worker = self.worker
        if worker is not None:
            ok = worker.shutdown(timeout_s)
        ok = self.reattacher.shutdown(timeout_s) and ok
        # Whatever else runs in the background (a power-log import...) ends before the store
        # it writes to is closed.
        return tasks.shutdown_all(timeout_s) and ok

    # ---- messages ------------------------------------------------------------------------

    def set_status(self, text: str) -> None:
        self.status_label.setText(text)

    def show_error(self, title: str, details: str) -> None:
        """The error dialog of the one notification path (non-blocking)."""
        summary, _, more = details.partition("\n\n")
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Critical)
        box.setWindowTitle("bench-gui")
        box.setText(title)
        box.setInformativeText(summary)
        if more:
            box.setDetailedText(more)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.error_box = box
        box.open()
        self.set_status(f"{title}: {summary}")

    # ---- Qt overrides --------------------------------------------------------------------

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        if self.worker is not None:
            answer = QMessageBox.question(
                self,
                "Quit bench-gui?",
                f"{ACTION_WORDS.get(self.worker.action, 'A task')} is running. Stop it and quit?"
                " What was measured so far is kept.",
            )
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
            self.shutdown()
        super().closeEvent(event)
