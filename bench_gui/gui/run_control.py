"""The window's one task: starting and stopping it, and where its events go.

One task may run at a time (a sweep, a schema build or a check, as Orange3 allows one task per
widget): :class:`RunControl` builds the controller through ``controller_factory`` (by default
:class:`bench_gui.services.run.RunController`, one driver host or several), runs it in a
:class:`~bench_gui.gui.worker.RunWorker` and routes the worker's events to the page that shows
them: the Live page for a sweep, the Workload page for a build or a check. A task on the demo
target while the demo is made ready (:mod:`bench_gui.gui.demo_ready`) waits for it. A run
re-attached on a driver host (:mod:`bench_gui.gui.reattach`) is such a task too: it is followed
on the Live page like a sweep started here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Protocol

from PySide6.QtCore import QObject, Signal

from bench_gui.core.plan import plan_from_dict
from bench_gui.core.plan_model import Plan, PlanError
from bench_gui.gui import window_fit
from bench_gui.gui.worker import Controller, RunWorker, describe_status
from bench_gui.wire.protocol import Event
from bench_gui.workloads.base import kit_for

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from bench_gui.gui.demo_ready import DemoReady
    from bench_gui.gui.errors import ErrorNotifier
    from bench_gui.gui.pages.live.page import LivePage
    from bench_gui.gui.pages.workload.page import WorkloadPage
    from bench_gui.gui.reattach import Reattacher
    from bench_gui.gui.window_face import WindowFace
    from bench_gui.services.reattach import Candidate

# (plan, store, action) -> a controller; the default is bench_gui.services.run.RunController.
ControllerFactory = Callable[[Plan, Any, str], Controller]
ACTION_WORDS: Final = {"run": "Sweep", "build": "Schema build", "check": "Consistency check"}


class RunWindow(Protocol):
    """What a run asks of the window it runs in: the pages it drives, the page on screen, the
    status bar and the error channel (the main window is one; nothing here imports it back)."""

    face: WindowFace
    errors: ErrorNotifier

    @property
    def workload_page(self) -> WorkloadPage: ...

    @property
    def live_page(self) -> LivePage: ...

    def show_page(self, name: str) -> None: ...

    def window(self) -> QWidget: ...


def default_controller_factory(plan: Plan, store: Any, action: str) -> Controller:
    from bench_gui.services.run import RunController

    return RunController(plan, store, action)


def task_page(action: str) -> str:
    """The page that shows a task of ``action``."""
    return "Live" if action == "run" else "Workload"


class RunControl(QObject):
    """The task of one main window. ``task_changed(bool)``: a task started or ended;
    ``sessions_changed``: a run ended (or a re-attach changed a session): the stored sessions
    are to be read again."""

    task_changed = Signal(bool)
    sessions_changed = Signal()

    def __init__(
        self, window: RunWindow, store: Any, controller_factory: ControllerFactory | None
    ) -> None:
        super().__init__(window.window())
        self.window = window
        self.store = store
        self.controller_factory = controller_factory or default_controller_factory
        self.worker: RunWorker | None = None
        self.last_session_id: int | None = None
        self.demo: DemoReady | None = None
        self._pending: tuple[str, Plan] | None = None
        self._reattacher: Reattacher | None = None

    @property
    def busy(self) -> bool:
        return self.worker is not None

    def _say(self, text: str, page: str | None = None) -> None:
        self.window.face.set_status(text, page)

    def start_run(self, plan: Plan) -> bool:
        """Start a sweep and show the Live page; False if another task is running."""
        if not self.start_task("run", plan):
            return False
        if self._pending is None:
            self.window.live_page.begin_run(plan)
            self.window.show_page("Live")
        return True

    def start_task(self, action: str, plan: Plan) -> bool:
        """Run ``action`` on ``plan`` as the window's one task; False if a task is running.
        (A task on the demo target while it is made ready waits for it: True.)"""
        running = self.worker.action if self.worker is not None else None
        if running is None and self._pending is not None:
            running = self._pending[0]
        if running is not None:
            self._say(f"{ACTION_WORDS.get(running, 'A task')} is still running.")
            return False
        if self.waits_for_demo(action, plan):
            return True
        store, factory = self.store, self.controller_factory
        self._run_worker(RunWorker(lambda: factory(plan, store, action), action=action))
        return True

    def stop_task(self) -> None:
        """Stop the running task, or drop the one waiting for the demo target."""
        if self._pending is not None and self.worker is None:
            action, _plan = self._pending
            self._pending = None
            self.window.workload_page.set_busy(None)
            self._say(f"{ACTION_WORDS.get(action, action)} not started.", "Workload")
            return
        if self.worker is not None:
            action = self.worker.action
            self.worker.stop()
            words = ACTION_WORDS.get(action, "").lower()
            self._say(f"Stopping the {words}…", task_page(action))

    # ---- the demo target, made ready as the window opens ---------------------------------

    def prepare_demo(self) -> bool:
        """Start the demo server and build the Workload plan's schema in the background
        (:mod:`bench_gui.gui.demo_ready`); False if the plan is not on the demo target."""
        from bench_gui.gui.demo_ready import DemoReady

        plan = self.window.workload_page.current_plan()
        if plan is None:
            return False
        if self.demo is None:
            self.demo = DemoReady(self.window.window())
            self.demo.status.connect(self.window.face.page_status("Workload"))
            self.demo.settled.connect(self.demo_settled)
        return self.demo.start(plan)

    def waits_for_demo(self, action: str, plan: Plan) -> bool:
        """While the demo target is being made ready, a task on it waits, then starts (a
        random-read study reads a file with fio and never uses the demo database)."""
        on_demo = plan.target.kind == "demo" and kit_for(plan.workload.kind).uses_database
        if not on_demo or self.demo is None or not self.demo.busy:
            return False
        self._pending = (action, plan)
        self.window.workload_page.set_busy(action)
        words = ACTION_WORDS.get(action, action).lower()
        self._say(
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
        self.window.workload_page.set_busy(None)
        if action == "run":
            self.start_run(plan)
        else:
            self.start_task(action, plan)

    # ---- re-attaching --------------------------------------------------------------------

    @property
    def reattacher(self) -> Reattacher:
        """The re-attach workflow, made (and its SSH code loaded) when first needed."""
        if self._reattacher is None:
            from bench_gui.gui.reattach import Reattacher

            self._reattacher = Reattacher(self.store, self.window.window())
            self._reattacher.status.connect(self._say)
            self._reattacher.live_ready.connect(self.follow_next_reattached)
            self._reattacher.session_changed.connect(lambda _id: self.sessions_changed.emit())
        return self._reattacher

    def offer_reattach(self, candidates: list[Candidate] | None = None) -> bool:
        """Look for lost runs on their driver hosts in the background, then ask which to
        follow; None: the sessions :func:`find_candidates` offers on request. False if there
        is nothing to look for (or a scan is going on already)."""
        from bench_gui.services.reattach import find_candidates

        if self.reattacher.busy:
            self._say("Already looking for runs to re-attach.")
            return False
        if candidates is None:
            held = self.reattacher.followed_ids()
            if self.worker is not None and self.worker.session_id is not None:
                held.add(self.worker.session_id)
            candidates = find_candidates(self.store, at_start=False, exclude=held)
            if not candidates:
                self._say("No run left on a driver host to re-attach.")
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
            self._say(f"Session #{candidate.session_id}: {message}")
            return self.follow_next_reattached()
        store = self.store
        worker = RunWorker(lambda: ReattachController(candidate, store, replay=True), action="run")
        self._run_worker(worker)
        self._session(candidate.session_id)
        self._say(f"Re-attaching to session #{candidate.session_id} on {candidate.target}…", "Live")
        self.window.live_page.begin_run(plan)
        self.window.show_page("Live")
        return True

    # ---- the worker's signals ------------------------------------------------------------

    def _session(self, session_id: int) -> None:
        self.last_session_id = session_id
        self.window.face.session_label.setText(f"Session #{session_id}")

    def _run_worker(self, worker: RunWorker) -> None:
        action = worker.action
        worker.event.connect(self._on_event)
        worker.notice.connect(self._on_notice)
        worker.finished.connect(self._on_finished)
        worker.failed.connect(self._on_failed)
        self.worker = worker
        self.window.workload_page.set_busy(action)
        self._say(f"{ACTION_WORDS.get(action, action)} starting…", task_page(action))
        self.window.face.session_label.setText("")
        self.task_changed.emit(True)
        worker.start()

    def _on_notice(self, state: str, detail: str) -> None:
        """A driver host's link dropped or came back: said in the status line, and on the
        Live page's card of that host when the run has several."""
        if self.worker is None or self.worker.action != "run":
            return
        self.window.live_page.show_notice(state, detail)
        self._say(f"Driver host link {state}: {detail}", "Live")

    def _on_event(self, event: Event) -> None:
        worker = self.worker
        if worker is None:
            return
        if worker.action != "run":
            self.window.workload_page.task_event(event)
            return
        if worker.session_id is not None:
            self._session(worker.session_id)
        live = self.window.live_page
        live.handle_event(event)
        status = live.status_for(event)
        if status:
            self._say(status, "Live")
        if event.kind == "step" and event.get("phase") == "start":
            window_fit.no_focus_on_charts(live)

    def _task_ended(self) -> str:
        """The task's worker let go; its action."""
        worker, self.worker = self.worker, None
        action = "run"
        if worker is not None:
            worker.wait(60)  # the thread is returning: its last signal was just delivered
            action = worker.action
            if worker.session_id is not None and action == "run":
                self.last_session_id = worker.session_id
        self.window.workload_page.set_busy(None)
        self.task_changed.emit(False)
        return action

    def _on_finished(self, status: str) -> None:
        action = self._task_ended()
        if action == "run":
            self.window.live_page.run_finished(status)
            self._say(describe_status(status), "Live")
            self.sessions_changed.emit()
        else:
            self.window.workload_page.task_finished(action, status)
            self._say(f"{ACTION_WORDS.get(action, action)} finished ({status}).", "Workload")
        self.follow_next_reattached()

    def _on_failed(self, message: str) -> None:
        worker = self.worker
        unexpected = worker is not None and worker.unexpected
        details = worker.error_details if worker is not None else ""
        action = self._task_ended()
        if action == "run":
            self.window.live_page.run_failed(message)
            self.sessions_changed.emit()
        else:
            self.window.workload_page.task_failed(action, message)
        words = ACTION_WORDS.get(action, action)
        self._say(f"{words} failed: {message}", task_page(action))
        if unexpected:
            # Not a failure the user can act on (wrong password...): a bug; show the traceback.
            self.window.errors.report(f"{words} failed unexpectedly", f"{message}\n\n{details}")
        self.follow_next_reattached()

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop the task, the demo's preparation and the re-attach scans; join their threads."""
        ok = True
        if self.demo is not None:
            ok = self.demo.shutdown(timeout_s)
        if self.worker is not None:
            ok = self.worker.shutdown(timeout_s) and ok
        if self._reattacher is not None:
            ok = self._reattacher.shutdown(timeout_s) and ok
        return ok

    def quit_question(self) -> str:
        """What closing the window asks while a task runs ("" when none does)."""
        if self.worker is None:
            return ""
        return (
            f"{ACTION_WORDS.get(self.worker.action, 'A task')} is running. Stop it and quit?"
            " What was measured so far is kept."
        )
