"""The background work of the Storage page: scan, apply, tear down, move the database and
move it back, one at a time, in a :class:`~bench_gui.gui.tasks.TaskRunner`.

The work itself (the ``*_work`` functions) runs in the task's thread and reports through its
:class:`~bench_gui.gui.tasks.TaskState`: log lines as partial results, progress as progress.
:class:`StorageJobs` starts it, shows the outcome on the page's panels in the GUI thread, and
asks about an unknown host key (then runs the same work again with the accepted key).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

from PySide6.QtCore import QObject, SignalInstance
from PySide6.QtWidgets import QWidget

from bench_gui.core.storage import Layout, LayoutError
from bench_gui.gui.dialogs import HostKeyPrompt, not_accepted_text
from bench_gui.gui.pages.storage.devices import DevicesPanel
from bench_gui.gui.pages.storage.plan_view import PlanView, RunPanel
from bench_gui.gui.tasks import Task, TaskRunner, TaskState
from bench_gui.gui.widgets.page_parts import Banner
from bench_gui.services.errors import HostKeyError, SSHError, UnknownHostKey
from bench_gui.services.hosts import APP_KNOWN_HOSTS, TARGETS_FILE
from bench_gui.services.storage import (
    ApplyResult,
    Discovery,
    PlacementResult,
    Progress,
    Refusal,
    Runner,
    StepFailed,
    StorageError,
    StorageRefused,
    apply_layout,
    describe_line,
    discover,
    open_runner,
    place_database,
    restore_database,
    teardown_layout,
)

# What the user can act on (a refused device, a failed step, an unreachable target, a file
# that cannot be written...): shown on the page. Anything else is a bug, for the notifier.
EXPECTED_ERRORS: tuple[type[BaseException], ...] = (SSHError, StorageError, LayoutError, OSError)
LAYOUT_KINDS = ("apply", "teardown")
PLACEMENT_KINDS = ("db-move", "db-restore")
T = TypeVar("T")

# ---- the work (runs in the task's thread) ------------------------------------------------------


class _Connection:
    """Opens a runner on the target in the task's thread, hands it to the work, closes it."""

    def __init__(self, target: str, folder: Path, accept: str | None) -> None:
        self.target = target
        self.folder = folder
        self.accept = accept

    def use(self, work: Callable[[Runner], T]) -> T:
        runner = open_runner(
            self.target,
            targets_file=self.folder / TARGETS_FILE,
            known_hosts=self.folder / APP_KNOWN_HOSTS,
            accept_fingerprint=self.accept,
        )
        try:
            return work(runner)
        finally:
            runner.close()


def progress_text(p: Progress) -> str:
    """The step line of a run's progress ("" once the last step is done)."""
    if p.index >= p.count:
        return ""
    text = f"Step {p.index + 1} of {p.count}: {p.title}"
    return f"{text} — {p.detail}" if p.detail else text


def scan_work(target: str, folder: Path, accept: str | None) -> Callable[[], Discovery]:
    connection = _Connection(target, folder, accept)
    return lambda: connection.use(discover)


def layout_work(
    kind: str,
    layout: Layout,
    confirm: list[str],
    cancel: threading.Event,
    folder: Path,
    state_dir: Path,
    accept: str | None,
    *,
    accept_unreadable: bool = False,
    not_built: list[str] | None = None,
    wipe_signed: list[str] | None = None,
) -> Callable[[TaskState], ApplyResult]:
    """Build (``kind`` "apply") or tear down ``layout``; stops after a step once ``cancel``.

    ``accept_unreadable``, ``not_built`` and ``wipe_signed`` are the user's overrides (see
    :func:`~bench_gui.remote.storage.teardown_layout` and ``apply_layout``)."""
    connection = _Connection(layout.target, folder, accept)

    def run(runner: Runner, state: TaskState) -> ApplyResult:
        common: dict[str, Any] = {
            "on_log": state.set_partial_result,
            "on_progress": lambda p: state.set_progress(p.overall, progress_text(p)),
            "cancel": cancel,
            "state_dir": state_dir,
            "accept_unreadable": accept_unreadable,
        }
        if kind == "apply":
            return apply_layout(runner, layout, confirm, wipe_signed=wipe_signed, **common)
        return teardown_layout(runner, layout, confirm, not_built_confirm=not_built, **common)

    def work(state: TaskState) -> ApplyResult:
        return connection.use(lambda runner: run(runner, state))

    return work


def placement_work(
    kind: str, layout: Layout, folder: Path, state_dir: Path, accept: str | None
) -> Callable[[TaskState], PlacementResult]:
    """Move the database onto the volume (``kind`` "db-move") or back where it was."""
    connection = _Connection(layout.target, folder, accept)
    move = place_database if kind == "db-move" else restore_database

    def work(state: TaskState) -> PlacementResult:
        return connection.use(
            lambda runner: move(
                runner, layout, on_log=state.set_partial_result, state_dir=state_dir
            )
        )

    return work


# ---- starting it and showing the outcome (GUI thread) ------------------------------------------


class StorageView(Protocol):
    """What the jobs read and show on the Storage page (the page is one); written out so the
    jobs need not import the page that owns them."""

    folder: Path
    state_dir: Path
    status: SignalInstance
    layout_applied: SignalInstance
    current_layout: Layout | None
    refusals: list[Refusal]
    banner: Banner
    devices: DevicesPanel
    plan: PlanView
    run: RunPanel

    def target_name(self) -> str: ...
    def confirmed(self) -> bool: ...
    def update_buttons(self) -> None: ...
    def show_devices(self, disc: Discovery | None) -> None: ...


class StorageJobs(QObject):
    """Runs the page's work one task at a time and shows each outcome on the page.

    ``cancel_event`` is set while an apply or teardown runs: :meth:`cancel` stops it after the
    current step (the outcome is still shown); :meth:`shutdown` also drops the outcome.
    """

    def __init__(self, page: StorageView, parent: QWidget) -> None:
        """``parent``: the widget the jobs belong to and dialogs open over (the page)."""
        super().__init__(parent)
        self.page = page
        self.runner = TaskRunner(self, expected=EXPECTED_ERRORS, where="the Storage page")
        self.runner.busy_changed.connect(self._on_busy)
        self.runner.progress.connect(lambda _what, f, text: page.run.show_progress(f, text))
        self.runner.partial.connect(lambda _what, line: page.run.append_log(str(line)))
        self.host_keys = HostKeyPrompt(parent, page.folder / APP_KNOWN_HOSTS)
        self.cancel_event: threading.Event | None = None
        self.closing = False
        self._task: Task | None = None  # the task whose outcome comes next

    def _start(self, kind: str, work: Callable[..., Any], context: dict[str, Any]) -> bool:
        if not self.runner.start(kind, work, self._succeeded, self._failed, context):
            self.page.status.emit("Storage: another task is still running.")
            return False
        self._task = self.runner.task
        return True

    def scan(self, accept: str | None = None) -> bool:
        """Discover the target's devices."""
        page = self.page
        target = page.target_name()
        if not self._start("scan", scan_work(target, page.folder, accept), {"target": target}):
            return False
        page.devices.scan_busy.show()
        page.status.emit(f"Scanning the devices of {target}…")
        return True

    def run_layout(self, kind: str, accept: str | None = None) -> bool:
        """Apply (``kind`` "apply") or tear down the page's layout, once confirmed."""
        page = self.page
        layout = page.current_layout
        if layout is None or not page.confirmed():
            return False
        cancel = threading.Event()
        work = layout_work(
            kind,
            layout,
            page.run.typed(),
            cancel,
            page.folder,
            page.state_dir,
            accept,
            accept_unreadable=page.run.accept_unreadable(),
            not_built=page.run.not_built_typed() if kind == "teardown" else None,
            wipe_signed=page.run.signed_typed() if kind == "apply" else None,
        )
        self.cancel_event = cancel
        if not self._start(kind, work, {"target": layout.target, "layout": layout}):
            self.cancel_event = None
            return False
        page.banner.clear()
        what = "Building" if kind == "apply" else "Tearing down"
        page.run.begin(f"{what} {layout.name} on {layout.target}…", steps_known=True)
        page.status.emit(f"Storage: {what.lower()} {layout.name}…")
        page.update_buttons()
        return True

    def place_database(self, kind: str, accept: str | None = None) -> bool:
        """Move the database onto the volume (``kind`` "db-move") or restore it."""
        page = self.page
        layout = page.current_layout
        if layout is None:
            return False
        work = placement_work(kind, layout, page.folder, page.state_dir, accept)
        if not self._start(kind, work, {"target": layout.target, "layout": layout}):
            return False
        page.banner.clear()
        text = "Moving the database to" if kind == "db-move" else "Restoring the database from"
        page.run.begin(f"{text} {layout.mount.point}…", steps_known=False)
        return True

    def cancel(self) -> None:
        """Stop the running apply or teardown after its current step."""
        if self.cancel_event is not None:
            self.cancel_event.set()
            self.page.run.step_label.setText("Stopping after the current step…")

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop after the running step, drop the outcome, and join the task, if any."""
        self.closing = True
        self.host_keys.close()
        if self.cancel_event is not None:
            self.cancel_event.set()
        return self.runner.shutdown(timeout_s)

    # ---- outcomes ------------------------------------------------------------------------

    def _on_busy(self, busy: bool) -> None:
        if not busy:
            self.cancel_event = None
            self.page.devices.scan_busy.hide()
        self.page.update_buttons()

    def _ended(self, ok: bool) -> Task | None:
        """The common end of a task; the task, or None when its outcome is not wanted."""
        task = self._task
        self.cancel_event = None
        self.page.devices.scan_busy.hide()
        if task is not None:
            self.page.run.end(task.kind != "scan", ok)
        return None if self.closing else task

    def _succeeded(self, result: Any) -> None:
        task = self._ended(ok=True)
        if task is None:
            return
        page = self.page
        kind = task.kind
        if kind == "scan":
            page.show_devices(result)
            page.status.emit(f"Storage: {len(result.devices)} block devices on {result.host}.")
            return
        if kind == "apply":
            description = result.description or {}
            text = "Built: " + describe_line(description)
            if result.resync:
                text += f" — {result.resync['text']}."
            page.banner.show_text("ok", text)
            page.run.step_label.setText("Done.")
            page.layout_applied.emit(description)
            page.plan.show_mode(teardown=True)
            page.run.confirm_edit.clear()
        elif kind == "teardown":
            page.banner.show_text(
                "ok",
                f"Taken down: {task.context['layout'].name}; the devices"
                " hold no signature any more.",
            )
            page.run.step_label.setText("Done.")
            page.plan.show_mode(teardown=False)
            page.run.confirm_edit.clear()
        else:
            page.banner.show_text("ok", "; ".join(result.messages) or "done")
            page.run.step_label.setText(f"Data directory: {result.data_directory}")
        page.status.emit(f"Storage: {kind} done.")
        if kind in LAYOUT_KINDS:
            self.scan()

    def _failed(self, kind: str, message: str, details: str) -> None:
        task = self._ended(ok=False)
        if task is None:
            return
        error = task.error
        if isinstance(error, UnknownHostKey):
            self.host_keys.ask(
                error,
                self.page.target_name(),
                lambda fingerprint: self._host_key_answered(task, error, fingerprint),
            )
        elif isinstance(error, HostKeyError):
            self.page.banner.show_text("failed", f"Connection refused: {error}")
        else:
            self._show_failure(kind, error, message, details)

    def _show_failure(
        self, kind: str, error: BaseException | None, message: str, details: str
    ) -> None:
        page = self.page
        if isinstance(error, StorageRefused):
            page.refusals = error.refusals
            page.plan.show_check(error.refusals, error.host)
            page.banner.show_text(
                "failed",
                "Refused: nothing was changed. "
                + "; ".join(f"{r.device or r.field_name}: {r.reason}" for r in error.refusals),
            )
            page.run.append_log(str(error))
            page.run.step_label.setText("Refused before the first command.")
        elif isinstance(error, StepFailed):
            page.banner.show_text("failed", str(error))
            page.run.step_label.setText("Stopped at a failed step: see the log.")
        elif isinstance(error, (StorageError, SSHError)):
            page.banner.show_text("failed", str(error))
            page.run.step_label.setText("")
        else:
            # An OSError or a bad layout, or (already sent to the notifier) a bug.
            expected = isinstance(error, EXPECTED_ERRORS)
            page.banner.show_text(
                "failed", f"{type(error).__name__}: {error}" if expected else message
            )
            page.run.append_log(details)
        page.status.emit(f"Storage: {kind} failed.")
        if kind in LAYOUT_KINDS and not isinstance(error, StorageRefused):
            self.scan()

    def _host_key_answered(self, task: Task, error: UnknownHostKey, accepted: str | None) -> None:
        if accepted is None:
            if not self.closing:
                self.page.banner.show_text("stopped", not_accepted_text(error.host))
            return
        if task.kind == "scan":
            self.scan(accepted)
        elif task.kind in LAYOUT_KINDS:
            self.run_layout(task.kind, accepted)
        else:
            self.place_database(task.kind, accepted)
