"""The main window: navigation on the left, the pages in a stack, a status bar.

The window owns the one task that may run at a time (a sweep, a schema build or a check, as
Orange3 allows one task per widget): it builds the controller through ``controller_factory``,
runs it in a :class:`~bench_gui.gui.worker.RunWorker` and routes the worker's events to the
page that shows them. A run re-attached on a driver host (:mod:`bench_gui.gui.reattach`) is
such a task too: it is followed on the Live page like a sweep started here.

A page is built the first time it is shown (or asked for), and its module is imported only
then: the window opens with the Workload page alone, before the charts, SSH, database and
report code load (:mod:`bench_gui.gui.window_pages` builds them). Each page sits in a scroll
area of its own (:func:`bench_gui.gui.window_fit.page_frame`), so no page can make the window
larger than the screen. Each page has its own status message; the status bar shows the one of
the page on screen. The shortcuts are in :mod:`bench_gui.gui.window_keys`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QStackedWidget,
    QStatusBar,
    QWidget,
)

from bench_gui.core.plan import Plan, PlanError, plan_from_dict
from bench_gui.gui import tasks, window_fit, window_keys, window_pages
from bench_gui.gui.errors import ErrorNotifier, notifier
from bench_gui.gui.focus import focus_now, restore_focus
from bench_gui.gui.nav_panel import NavPanel
from bench_gui.gui.worker import Controller, RunWorker, describe_status
from bench_gui.wire.protocol import Event
from bench_gui.workloads.base import kit_for

if TYPE_CHECKING:
    from bench_gui.gui.demo_ready import DemoReady
    from bench_gui.gui.pages.compare import ComparePage
    from bench_gui.gui.pages.database import DatabasePage
    from bench_gui.gui.pages.live import LivePage
    from bench_gui.gui.pages.sessions import SessionsPage
    from bench_gui.gui.pages.storage import StoragePage
    from bench_gui.gui.pages.targets import TargetsPage
    from bench_gui.gui.pages.workload import WorkloadPage
    from bench_gui.gui.reattach import Reattacher
    from bench_gui.services.reattach import Candidate

# (plan, store, action) -> a controller; the default is bench_gui.services.run.RunController.
ControllerFactory = Callable[[Plan, Any, str], Controller]
# The Present view: window -> the widget shown full screen (F11, the Live page's Present).
PresentFactory = Callable[["MainWindow"], QWidget]


def present_live_run(window: MainWindow) -> QWidget:
    """The Present view over the Live page's model (imported when first presented: it pulls
    in the chart library, which the window does not need to open)."""
    from bench_gui.gui.present.window import follow_main_window

    return follow_main_window(window)


APP_TITLE = "bench-gui"
PAGES = ("Workload", "Live", "Sessions", "Compare", "Database", "Targets", "Storage", "Study")
ACTION_WORDS = {"run": "Sweep", "build": "Schema build", "check": "Consistency check"}
READY = "Ready"

log = logging.getLogger(__name__)


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
        self.present_factory: PresentFactory | None = present_live_run
        self.present_view: QWidget | None = None
        self.presenting = False
        self._focus_before_present: QWidget | None = None
        self.demo: DemoReady | None = None
        self._pages: dict[str, QWidget] = {}
        self._frames: dict[str, QScrollArea] = {}
        self._status: dict[str, str] = {}
        self._reattacher: Reattacher | None = None
        self._pending: tuple[str, Plan] | None = None
        self._targets_task: tasks.TaskRunner | None = None
        self._build_ui()
        self.errors.error.connect(self.show_error)
        self.shortcuts = window_keys.install(self)
        self.resize(window_fit.PREFERRED)  # the app fits it to its screen (window_fit)

    # ---- construction --------------------------------------------------------------------

    def _build_ui(self) -> None:
        central = QWidget()
        row = QHBoxLayout(central)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        self.nav_panel = NavPanel(PAGES)
        self.nav = self.nav_panel.nav
        self.reattach_button = self.nav_panel.reattach_button
        self.nav_panel.reattach_requested.connect(lambda: self.offer_reattach())
        row.addWidget(self.nav_panel)
        self.stack = QStackedWidget()
        row.addWidget(self.stack, 1)
        self.setCentralWidget(central)

        status = QStatusBar()
        self.status_label = QLabel(READY)
        self.status_label.setMinimumWidth(1)  # a long message never widens the window
        self.session_label = QLabel("")
        status.addWidget(self.status_label, 1)
        status.addPermanentWidget(self.session_label)
        self.setStatusBar(status)

        self.nav.currentRowChanged.connect(self._on_row_changed)
        self.nav.setCurrentRow(0)

    def _on_row_changed(self, row: int) -> None:
        if not 0 <= row < len(PAGES):
            return
        name = PAGES[row]
        page = self.page(name)
        window_fit.no_focus_on_charts(page)  # charts a page made since it was last shown
        self.stack.setCurrentWidget(self._frames[name])
        self.status_label.setText(self._status.get(name, READY))
        self.setWindowTitle(f"{name} — {APP_TITLE}")

    # ---- pages, built on first use -------------------------------------------------------

    def page(self, name: str) -> QWidget:
        """The page called ``name``, built (and its module imported) on the first call."""
        built = self._pages.get(name)
        if built is not None:
            return built
        if name not in PAGES:
            raise KeyError(f"no page named {name!r} (the pages: {', '.join(PAGES)})")
        page = window_pages.make(self, name)
        self._pages[name] = page
        frame = window_fit.page_frame(page)
        self._frames[name] = frame
        # In the stack at the page's place in the navigation, whatever order they are built in.
        index = sum(1 for other in PAGES[: PAGES.index(name)] if other in self._frames)
        self.stack.insertWidget(index, frame)
        return page

    def built(self, name: str) -> QWidget | None:
        """The page if it has been built (None otherwise: nothing to refresh or stop)."""
        return self._pages.get(name)

    def built_pages(self) -> list[str]:
        """The pages built so far, in the navigation's order."""
        return [name for name in PAGES if name in self._pages]

    def page_status(self, name: str) -> Callable[[str], None]:
        """A slot for the status messages of the page ``name``."""
        return lambda text: self.set_status(text, name)

    def load_driver_targets(self) -> None:
        """The saved SSH targets for the Workload page's driver list, read in the background
        (reading them loads the SSH library): the app calls it once the window is up."""
        if self._targets_task is None:
            from bench_gui.remote.errors import TargetError

            self._targets_task = tasks.TaskRunner(
                self, expected=(TargetError, OSError), where="saved targets"
            )
        self._targets_task.start(
            "targets", window_pages.saved_target_names, self._got_driver_targets, _quiet
        )

    def _got_driver_targets(self, names: list[str]) -> None:
        if self.built("Targets") is None:  # once built, the Targets page says what is saved
            self.workload_page.set_driver_targets(names)

    @property
    def workload_page(self) -> WorkloadPage:
        return self.page("Workload")  # type: ignore[return-value]

    @property
    def live_page(self) -> LivePage:
        return self.page("Live")  # type: ignore[return-value]

    @property
    def sessions_page(self) -> SessionsPage:
        return self.page("Sessions")  # type: ignore[return-value]

    @property
    def compare_page(self) -> ComparePage:
        return self.page("Compare")  # type: ignore[return-value]

    @property
    def database_page(self) -> DatabasePage:
        return self.page("Database")  # type: ignore[return-value]

    @property
    def targets_page(self) -> TargetsPage:
        return self.page("Targets")  # type: ignore[return-value]

    @property
    def storage_page(self) -> StoragePage:
        return self.page("Storage")  # type: ignore[return-value]

    # ---- navigation ----------------------------------------------------------------------

    def show_page(self, name: str) -> None:
        if name not in PAGES:
            raise KeyError(f"no page named {name!r} (the pages: {', '.join(PAGES)})")
        self.nav.setCurrentRow(PAGES.index(name))

    def current_page_name(self) -> str:
        return PAGES[self.nav.currentRow()]

    def open_last_session(self) -> None:
        self.show_page("Sessions")
        if self.last_session_id is not None:
            self.sessions_page.open_run(self.last_session_id)

    def _refresh_sessions(self) -> None:
        sessions = self.built("Sessions")
        if sessions is not None:
            sessions.refresh()  # type: ignore[attr-defined]

    # ---- tasks ---------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.worker is not None

    def start_run(self, plan: Plan) -> bool:
        """Start a sweep and show the Live page; False if another task is running."""
        if not self.start_task("run", plan):
            return False
        if self._pending is None:
            self.live_page.begin_run(plan)
            self.show_page("Live")
        return True

    # ---- the demo target, made ready as the window opens ---------------------------------

    def prepare_demo(self) -> bool:
        """Start the demo server and build the Workload plan's schema in the background
        (:mod:`bench_gui.gui.demo_ready`); False if the plan is not on the demo target."""
        from bench_gui.gui.demo_ready import DemoReady

        plan = self.workload_page.current_plan()
        if plan is None:
            return False
        if self.demo is None:
            self.demo = DemoReady(self)
            self.demo.status.connect(self.page_status("Workload"))
            self.demo.settled.connect(self.demo_settled)
        return self.demo.start(plan)

    def _waits_for_demo(self, action: str, plan: Plan) -> bool:
        """While the demo target is being made ready, a task on it waits, then starts (a
        random-read study reads a file with fio and never uses the demo database)."""
        on_demo = plan.target.kind == "demo" and kit_for(plan.workload.kind).uses_database
        if not on_demo or self.demo is None or not self.demo.busy:
            return False
        self._pending = (action, plan)
        self.workload_page.set_busy(action)
        words = ACTION_WORDS.get(action, action).lower()
        self.set_status(
            f"The demo target is being prepared: the {words} starts when it is ready.",
            "Workload",
        )
        return True

    def demo_settled(self) -> None:
        """The demo target's preparation ended (ready or not): start the task that waited."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        action, plan = pending
        self.workload_page.set_busy(None)
        if action == "run":
            self.start_run(plan)
        else:
            self.start_task(action, plan)

    def start_task(self, action: str, plan: Plan) -> bool:
        """Run ``action`` on ``plan`` in the window's one task; False if a task is running.
        (A task on the demo target while it is made ready waits for it: True.)"""
        running = self.worker.action if self.worker is not None else None
        if running is None and self._pending is not None:
            running = self._pending[0]
        if running is not None:
            self.set_status(f"{ACTION_WORDS.get(running, 'A task')} is still running.")
            return False
        if self._waits_for_demo(action, plan):
            return True
        store, factory = self.store, self.controller_factory
        self._run_worker(RunWorker(lambda: factory(plan, store, action), action=action))
        return True

    def _task_page(self, action: str) -> str:
        return "Live" if action == "run" else "Workload"

    def _run_worker(self, worker: RunWorker) -> None:
        action = worker.action
        worker.event.connect(self._on_event)
        worker.notice.connect(self._on_notice)
        worker.finished.connect(self._on_finished)
        worker.failed.connect(self._on_failed)
        self.worker = worker
        self.workload_page.set_busy(action)
        self.set_status(f"{ACTION_WORDS.get(action, action)} starting…", self._task_page(action))
        self.session_label.setText("")
        self.shortcuts.task_changed(True)
        worker.start()

    def _on_notice(self, state: str, detail: str) -> None:
        """A driver host's link dropped or came back: said in the status line, and on the
        Live page's card of that host when the run has several."""
        if self.worker is None or self.worker.action != "run":
            return
        self.live_page.show_notice(state, detail)
        self.set_status(f"Driver host link {state}: {detail}", "Live")

    # ---- re-attaching --------------------------------------------------------------------

    @property
    def reattacher(self) -> Reattacher:
        """The re-attach workflow, made (and its SSH code loaded) when first needed."""
        if self._reattacher is None:
            from bench_gui.gui.reattach import Reattacher

            self._reattacher = Reattacher(self.store, self)
            self._reattacher.status.connect(self.set_status)
            self._reattacher.live_ready.connect(self.follow_next_reattached)
            self._reattacher.session_changed.connect(lambda _id: self._refresh_sessions())
        return self._reattacher

    def offer_reattach(self, candidates: list[Candidate] | None = None) -> bool:
        """Look for lost runs on their driver hosts in the background, then ask which to
        follow; None: the sessions :func:`find_candidates` offers on request. False if there
        is nothing to look for (or a scan is going on already)."""
        from bench_gui.services.reattach import find_candidates

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
        if self.worker is not None or self._reattacher is None:
            return False
        from bench_gui.services.reattach import ReattachController

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
        self.set_status(
            f"Re-attaching to session #{candidate.session_id} on {candidate.target}…", "Live"
        )
        self.live_page.begin_run(plan)
        self.show_page("Live")
        return True

    def stop_task(self) -> None:
        """Stop the running task, or drop the one waiting for the demo target."""
        if self._pending is not None and self.worker is None:
            action, _plan = self._pending
            self._pending = None
            self.workload_page.set_busy(None)
            words = ACTION_WORDS.get(action, action)
            self.set_status(f"{words} not started.", "Workload")
            return
        if self.worker is not None:
            action = self.worker.action
            self.worker.stop()
            self.set_status(
                f"Stopping the {ACTION_WORDS.get(action, '').lower()}…", self._task_page(action)
            )

    def _on_event(self, event: Event) -> None:
        worker = self.worker
        if worker is None:
            return
        if worker.session_id is not None and worker.action == "run":
            self.last_session_id = worker.session_id
            self.session_label.setText(f"Session #{worker.session_id}")
        if worker.action == "run":
            self.live_page.handle_event(event)
            status = self.live_page.status_for(event)
            if status:
                self.set_status(status, "Live")
            if event.kind == "step" and event.get("phase") == "start":
                window_fit.no_focus_on_charts(self.live_page)
        else:
            self.workload_page.task_event(event)

    def _task_ended(self) -> RunWorker | None:
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.wait(60)  # the thread is returning: its last signal was just delivered
            if worker.session_id is not None and worker.action == "run":
                self.last_session_id = worker.session_id
        self.workload_page.set_busy(None)
        self.shortcuts.task_changed(False)
        return worker

    def _on_finished(self, status: str) -> None:
        worker = self._task_ended()
        action = worker.action if worker is not None else "run"
        if action == "run":
            self.live_page.run_finished(status)
            self.set_status(describe_status(status), "Live")
            self._refresh_sessions()
        else:
            self.workload_page.task_finished(action, status)
            self.set_status(f"{ACTION_WORDS.get(action, action)} finished ({status}).", "Workload")
        self.follow_next_reattached()

    def _on_failed(self, message: str) -> None:
        worker = self._task_ended()
        action = worker.action if worker is not None else "run"
        if action == "run":
            self.live_page.run_failed(message)
            self._refresh_sessions()
        else:
            self.workload_page.task_failed(action, message)
        words = ACTION_WORDS.get(action, action)
        self.set_status(f"{words} failed: {message}", self._task_page(action))
        if worker is not None and worker.unexpected:
            # Not a failure the user can act on (wrong password...): a bug; show the traceback.
            details = f"{message}\n\n{worker.error_details}"
            self.errors.report(f"{words} failed unexpectedly", details)
        self.follow_next_reattached()

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop the running task, if any, and join its thread."""
        for name in ("Database", "Targets", "Storage", "Study"):
            page = self.built(name)
            if page is not None:
                page.shutdown(timeout_s)  # type: ignore[attr-defined]
        ok = True
        if self.demo is not None:
            ok = self.demo.shutdown(timeout_s)
        worker = self.worker
        if worker is not None:
            ok = worker.shutdown(timeout_s) and ok
        if self._reattacher is not None:
            ok = self._reattacher.shutdown(timeout_s) and ok
        # Whatever else runs in the background (a power-log import...) ends before the store
        # it writes to is closed.
        return tasks.shutdown_all(timeout_s) and ok

    # ---- presenting ----------------------------------------------------------------------

    def toggle_present(self) -> None:
        """Full screen without the side panel and the status bar (F11), and back.

        With ``present_factory`` set, the widget it makes (once) is what the screen shows; the
        page that was on screen comes back when presenting ends. A random-read study has no
        booth view (that one speaks of new orders): its own Live view fills the screen."""
        self.presenting = not self.presenting
        if self.presenting:
            self._focus_before_present = focus_now()
        self.nav_panel.setVisible(not self.presenting)
        self.statusBar().setVisible(not self.presenting)
        live = self.built("Live")
        study = bool(getattr(live, "random_read", False))
        if self.presenting:
            if study:
                self.stack.setCurrentWidget(self._frames["Live"])
            elif self.present_factory is not None:
                if self.present_view is None:
                    self.present_view = self.present_factory(self)
                    self.stack.addWidget(self.present_view)
                self.stack.setCurrentWidget(self.present_view)
            self.showFullScreen()
        else:
            self.stack.setCurrentWidget(self._frames[self.current_page_name()])
            self.showNormal()
            window_fit.fit_to_screen(self)
            # The key that was last used still works: Down, Tab, Space act where they did.
            before, self._focus_before_present = self._focus_before_present, None
            restore_focus(before, self.nav)
        self.shortcuts.update()

    # ---- messages ------------------------------------------------------------------------

    def set_status(self, text: str, page: str | None = None) -> None:
        """A status message of ``page`` (default: the page on screen). It shows while that
        page is on screen, and again when the page comes back."""
        name = page or self.current_page_name()
        self._status[name] = text
        if name == self.current_page_name():
            self.status_label.setText(text)

    def show_error(self, title: str, details: str) -> None:
        """The error dialog of the one notification path (non-blocking)."""
        summary, _, more = details.partition("\n\n")
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Critical)
        box.setWindowTitle(APP_TITLE)
        box.setText(title)
        box.setInformativeText(summary)
        if more:
            box.setDetailedText(more)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.error_box = box
        box.open()
        self.set_status(f"{title}: {summary}")

    # ---- Qt overrides --------------------------------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self.nav_panel.fit_width(event.size().width())

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


def _quiet(_what: str, _message: str, _details: str) -> None:
    """A targets file that cannot be read: the Targets page says why when it is opened."""
