"""The Database page's OS knobs tab: the database host's sysctls, its data devices' read-ahead
and I/O scheduler, transparent huge pages; a preset or values typed for the run, the diff,
apply, roll back, persist only when asked; the history of what was applied there.

Host work runs in the tab's :class:`~bench_gui.gui.tasks.TaskRunner`, one task at a time; the
work is :mod:`bench_gui.services.tuning`'s, as ``bench-gui tune os`` does it. An SSH host whose
key is not known yet is asked about through the one host-key flow (:class:`HostKeyPrompt`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.plan_model import Plan
from bench_gui.gui.dialogs import HostKeyPrompt, not_accepted_text
from bench_gui.gui.pages.database.common import OS_ERRORS
from bench_gui.gui.pages.database.history import apply_buttons, history_group
from bench_gui.gui.pages.database.os_host import HostJob, OsHostBox
from bench_gui.gui.pages.database.os_table import OsKnobTable, OsPresetPicker
from bench_gui.gui.tasks import TaskRunner
from bench_gui.gui.widgets.page_parts import muted_label
from bench_gui.services.errors import HostKeyError, UnknownHostKey
from bench_gui.services.hosts import APP_KNOWN_HOSTS, HostIO, data_dir
from bench_gui.services.tuning import apply_os, rollback_os
from bench_gui.services.tuning_view import (
    SYSCTL_FILE,
    Knob,
    OsResult,
    TuningHistory,
    block_devices,
    data_devices,
    default_keys,
    expand_changes,
    persist_sysctls,
    read_knobs,
)

OS_TASK_WORDS = {
    "os-read": ("Reading the knobs…", "Cannot read the knobs"),
    "os-reread": ("Reading the knobs again…", "Cannot read the knobs"),
    "os-apply": ("Applying…", "Not applied"),
    "os-rollback": ("Rolling back…", "Not rolled back"),
    "os-persist": ("Persisting…", "Not persisted"),
}
NO_KNOBS = "Read the knobs of the host to compare them."


def ask_yes_no(parent: QWidget, title: str, question: str) -> bool:
    answer = QMessageBox.question(parent, title, question)
    return answer == QMessageBox.StandardButton.Yes


class OsKnobsPanel(QWidget):
    """The OS knobs of the database host: shown, applied (after the diff), rolled back,
    persisted only when asked and confirmed; the history of what was applied there.

    Signals:
        message(str, str): a sentence and its tone (ok, stopped, failed) for the page's banner.
        busy_changed(bool): a task started or ended.
    """

    message = Signal(str, str)
    busy_changed = Signal(bool)

    def __init__(
        self,
        store: Any,
        plan_provider: Callable[[], Plan | None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.devices: list[str] = []
        self.shown_host = ""  # the host the table shows ("local" or a target name)
        self.host_label = ""
        self.last_result: Any = None
        self.last_error = ""
        self.persist_path = SYSCTL_FILE
        # Asked before persisting: (title, question) -> yes? Tests answer it themselves.
        self.confirm: Callable[[str, str], bool] = lambda title, question: ask_yes_no(
            self, title, question
        )
        self.runner = TaskRunner(self, OS_ERRORS, "the Database page (OS knobs)")
        self.runner.busy_changed.connect(lambda _busy: self._update_actions())
        self.runner.busy_changed.connect(self.busy_changed)
        self.prompt = HostKeyPrompt(self, data_dir() / APP_KNOWN_HOSTS)
        self._build_ui(plan_provider)
        self._update_actions()

    def _build_ui(self, plan_provider: Callable[[], Plan | None] | None) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 8, 0, 0)
        outer.setSpacing(10)
        self.hosts = OsHostBox(plan_provider)
        self.hosts.read_button.clicked.connect(lambda: self.read_knobs())
        outer.addWidget(self.hosts)
        # The parts' widgets under the names the tab has always had (tests use them).
        self.devices_edit = self.hosts.devices_edit
        self.read_button = self.hosts.read_button
        self.host_note = self.hosts.host_note

        knobs_group = QGroupBox("Knobs: the host's values and those for the run")
        layout = QVBoxLayout(knobs_group)
        self.presets = OsPresetPicker()
        self.presets.changed.connect(self._preset_changed)
        self.preset_note = self.presets.note
        layout.addWidget(self.presets)
        self.table = OsKnobTable()
        self.table.edited.connect(self._show_diff)
        layout.addWidget(self.table, 1)
        self.diff_label = muted_label(NO_KNOBS)
        self.diff_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.diff_label)
        self.result_label = QLabel("")
        self.result_label.setWordWrap(True)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result_label.hide()
        layout.addWidget(self.result_label)

        actions = QHBoxLayout()
        actions.addStretch(1)
        self.persist_button = QPushButton("Persist sysctls…")
        self.persist_button.setToolTip(
            "Write the sysctls of the “For the run” column to a sysctl.d file, so they survive"
            " a reboot (asks first)"
        )
        self.persist_button.clicked.connect(lambda: self.persist_sysctls())
        actions.addWidget(self.persist_button)
        self.rollback_button, self.apply_button = apply_buttons(self.apply, self.rollback, actions)
        layout.addLayout(actions)
        outer.addWidget(knobs_group, 3)
        history, self.history_table = history_group("History of OS knobs on this host", 90, 130)
        outer.addWidget(history, 0)

    # ---- the knobs -----------------------------------------------------------------------

    @property
    def knobs(self) -> dict[str, Knob]:
        """The knobs shown, by key, in the table's order."""
        return self.table.knobs

    def host_name(self) -> str:
        return self.hosts.host_name()

    def read_knobs(self, again: bool = False) -> bool:
        """Read every knob of the host (and the data devices) in the background; ``again``
        after an apply or a rollback (whose outcome stays shown)."""
        name = self.hosts.host_name()
        data_directory, named = self.hosts.data_directory(), self.hosts.device_list()
        preset = self.presets.knobs()

        def work(host: HostIO) -> dict[str, Any]:
            notes: list[str] = []
            devices = named
            if not devices and data_directory:
                devices, notes = data_devices(host, data_directory)
            if not devices:
                devices = block_devices(host)
                notes.append(f"every disk: {', '.join(devices) or 'none'}")
            keys = default_keys(devices)
            keys += list(expand_changes(preset, devices))  # a preset's own knobs too
            return {
                "host": name,
                "label": host.label,
                "devices": devices,
                "notes": notes,
                "knobs": read_knobs(host, keys),
            }

        kind = "os-reread" if again else "os-read"
        return self._start(HostJob(kind, name, work, self._shown))

    def _shown(self, found: dict[str, Any]) -> None:
        previous = self.table.wanted() if found["host"] == self.shown_host else {}
        self.shown_host, self.host_label = found["host"], found["label"]
        self.devices = list(found["devices"])
        devices = ", ".join(self.devices) or "none"
        notes = "; ".join(found["notes"])
        self.host_note.setText(
            f"{self.host_label}: data devices {devices}" + (f" ({notes})" if notes else "")
        )
        self._fill_table(dict(found["knobs"]), previous)
        self.refresh_history()

    def _fill_table(self, knobs: dict[str, Knob], wanted: dict[str, str]) -> None:
        """The knobs, with the preset's values (and then the given ones) for the run."""
        values = self.presets.expanded(self.devices)
        values.update(wanted)
        self.table.show_knobs(knobs, values)
        self._show_diff()

    def set_wanted(self, key: str, value: str) -> None:
        """Type a value in the "For the run" column (as a user would)."""
        self.table.set_wanted(key, value)

    def changes(self) -> dict[str, str]:
        """The diff: knobs the host has whose value for the run differs from the current."""
        return self.table.changes()

    def _show_diff(self) -> None:
        changes = self.table.changes()
        if not self.knobs:
            self.diff_label.setText(NO_KNOBS)
        elif changes:
            parts = [f"{k}: {self.knobs[k].value} → {v}" for k, v in changes.items()]
            text = f"{len(changes)} knob(s) to change: " + ", ".join(parts)
            if lacking := self.table.lacking():
                text += f". Not on this kernel, left out: {', '.join(lacking)}"
            self.diff_label.setText(text)
        else:
            self.diff_label.setText(
                "Nothing to change: type values in “For the run” or choose a preset."
            )
        self._update_actions()

    def select_preset(self, name: str) -> None:
        self.presets.select(name)

    def _preset_changed(self) -> None:
        if not self.knobs:
            return
        if any(k not in self.knobs for k in self.presets.expanded(self.devices)):
            self.read_knobs()  # knobs the table lacks: read them too
        else:
            self._fill_table(self.knobs, {})

    # ---- apply, roll back, persist ----------------------------------------------------------

    def apply(self) -> bool:
        """Apply the diff shown (knobs the kernel lacks are reported, not errors)."""
        changes = self.table.changes()
        if not changes:
            self.message.emit("Nothing to apply: no knob differs from the host's value.", "stopped")
            return False
        store, wanted = self.store, self.table.wanted()
        profile = self.presets.name() or ", ".join(f"{k}={v}" for k, v in changes.items())
        values = {**changes, **{k: wanted[k] for k in self.table.lacking()}}
        return self._start(
            HostJob(
                "os-apply",
                self.shown_host,
                lambda host: apply_os(store, host, values, [], profile)[0],
                self._applied,
            )
        )

    def _applied(self, result: OsResult) -> None:
        self.last_result = result
        lines = [f"{k}: {a} → {b}" for k, (a, b) in result.changed.items()]
        text = f"Changed: {', '.join(lines) or 'nothing'}."
        if result.unchanged:
            text += f" Unchanged: {', '.join(result.unchanged)}."
        if result.missing:
            text += f" Not on this kernel: {', '.join(result.missing)}."
        self.result_label.setText(text)
        self.result_label.show()
        self.message.emit(f"Applied on {self.host_label}: {result.summary()}.", "ok")
        self.read_knobs(again=True)

    def rollback(self) -> bool:
        """Restore the last apply on this host not rolled back yet (a run's too)."""
        store = self.store
        return self._start(
            HostJob(
                "os-rollback",
                self.shown_host or self.hosts.host_name(),
                lambda host: rollback_os(store, host),
                self._rolled_back,
            )
        )

    def _rolled_back(self, outcome: tuple[OsResult, int, Any]) -> None:
        result, _rid, undone = outcome
        self.last_result = result
        back = ", ".join(f"{k} = {v}" for k, (_a, v) in result.changed.items())
        self.result_label.setText(f"Restored: {back}.")
        self.result_label.show()
        self.message.emit(f"Rolled back #{undone.id} ({undone.profile}).", "ok")
        self.read_knobs(again=True)

    def persist_sysctls(self) -> bool:
        """Write the sysctls for the run to a sysctl.d file, after a confirmation of its own."""
        values = {
            k: v
            for k, v in self.table.wanted().items()
            if k.startswith(("vm.", "kernel.")) and self.knobs[k].available
        }
        if not values:
            self.message.emit("No sysctl to persist: type values in “For the run”.", "stopped")
            return False
        listing = "\n".join(f"  {k} = {v}" for k, v in values.items())
        question = (
            f"Write these sysctls to {self.persist_path} on {self.host_label}, so they survive"
            f" a reboot?\n\n{listing}\n\nA rollback does not undo this: delete the file to."
        )
        if not self.confirm("Persist sysctls", question):
            return False
        path, label = self.persist_path, self.host_label
        return self._start(
            HostJob(
                "os-persist",
                self.shown_host,
                lambda host: persist_sysctls(host, values, path),
                lambda _text: self.message.emit(
                    f"Persisted {len(values)} sysctl(s) to {path} on {label}.", "ok"
                ),
            )
        )

    def refresh_history(self) -> None:
        entries = []
        if self.host_label:
            entries = TuningHistory(self.store).entries(f"os://{self.host_label}", kind="os")
        self.history_table.show_entries(entries)
        self._update_actions()

    # ---- tasks ---------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.runner.busy is not None

    def _start(self, job: HostJob) -> bool:
        job.host_key_error = None
        return self.runner.start(
            job.kind,
            job,
            lambda result: self._done(job, result),
            lambda _what, message, _details: self._failed(job, message),
        )

    def _done(self, job: HostJob, result: Any) -> None:
        if job.kind != "os-reread":
            self.last_error = ""  # a failed apply's reason stays shown after the read again
        job.then(result)
        self._update_actions()

    def _failed(self, job: HostJob, message: str) -> None:
        self.last_error = message
        error = job.host_key_error
        if isinstance(error, UnknownHostKey):
            self._show_diff()
            self.prompt.ask(
                error, job.host, lambda accepted: self._key_answered(job, error, accepted)
            )
            return
        word = OS_TASK_WORDS.get(job.kind, ("", "Failed"))[1]
        self.message.emit(f"{word}: {message}", "failed")
        if isinstance(error, HostKeyError):
            self.prompt.refuse(error, job.host)
        elif job.kind in ("os-apply", "os-rollback"):
            self.refresh_history()
            if self.knobs:
                self.read_knobs(again=True)  # what the host has now (a failed apply undid itself)
        self._show_diff()

    def _key_answered(self, job: HostJob, error: UnknownHostKey, fingerprint: str | None) -> None:
        """Run the job again with the key the user accepted; or say that nothing was done."""
        if fingerprint is None:
            self.last_error = not_accepted_text(error.host)
            self.message.emit(self.last_error, "stopped")
            self._show_diff()
            return
        job.fingerprint = fingerprint
        self._start(job)

    def shutdown(self, timeout_s: float = 60.0) -> bool:
        self.prompt.close()
        return self.runner.shutdown(timeout_s)

    def _update_actions(self) -> None:
        idle = not self.busy
        shown = bool(self.knobs)
        self.hosts.set_idle(idle)
        self.apply_button.setEnabled(idle and shown and bool(self.table.changes()))
        self.rollback_button.setEnabled(idle and self.history_table.open_apply())
        self.persist_button.setEnabled(idle and shown)
        if self.runner.busy is not None:
            self.diff_label.setText(OS_TASK_WORDS.get(self.runner.busy, ("Working…", ""))[0])
