"""A study system's storage layout: built before its runs, taken down after them.

A system may name a layout prepared on the Storage page (``[systems.KEY.storage] layout``,
with its devices typed in ``confirm``, as the Storage page asks). The study builds it with the
Storage page's own guarded steps (:func:`bench_gui.remote.storage.apply_layout`: a fresh
discovery refuses any device in use), puts the database on it when the layout places one (the
random-read data file goes on its mount by itself: a plan without ``workload.file`` puts it on
the storage recorded for the host), and after the runs, however they ended, puts the database
back and takes the layout down, so the next system finds its devices as they were.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from bench_gui.core.storage import Layout, load_layout
from bench_gui.core.study import layout_path
from bench_gui.core.study_model import System
from bench_gui.remote.errors import SSHError
from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
from bench_gui.remote.storage import (
    StorageError,
    apply_layout,
    open_runner,
    teardown_layout,
)
from bench_gui.remote.targets import TARGETS_FILE
from bench_gui.services.run_errors import RunError
from bench_gui.store.paths import data_dir
from bench_gui.workloads.base import uses_database


class Runner(Protocol):
    """What a layout scope asks of the study's runner (services.study_run.StudyRunner, which
    opens the scopes): where the study file is, its progress, and its storage log."""

    folder: Path
    storage_log: list[str]
    left_now: float | None  # the time left as last said (after the runs: without them)

    def _say(self, system: System, index: int, stage: str, **more: Any) -> None: ...


# Where built layouts are recorded: the run finds the session's layout there (as the CLI's
# and the Storage page's).
STATE_DIR = "storage"


def state_dir() -> Path:
    return data_dir() / STATE_DIR


class LayoutScope:
    """The system's layout built on entry and taken down on exit, however the runs end."""

    def __init__(self, runner: Runner, system: System, index: int, left: float) -> None:
        self.runner, self.system, self.index, self.left = runner, system, index, left
        self.layout: Layout | None = None
        self.shell: Any = None
        self.built = False
        self.placed = False

    def _say(self, stage: str, message: str) -> None:
        # Before the runs the system's windows are ahead; the teardown says what is left after.
        left = self.runner.left_now if stage == "teardown" else self.left
        self.runner._say(self.system, self.index, stage, remaining_s=left, message=message)

    def _log(self, line: str) -> None:
        self.runner.storage_log.append(f"{self.system.key}: {line}")

    def __enter__(self) -> LayoutScope:
        storage = self.system.storage
        if not storage.layout:
            return self
        key = self.system.key
        try:
            layout = load_layout(layout_path(self.runner.folder, storage.layout))
            self.layout = layout
            self._say("storage", f"building {layout.name} on {layout.target}")
            self.shell = open_runner(
                layout.target,
                targets_file=data_dir() / TARGETS_FILE,
                known_hosts=data_dir() / APP_KNOWN_HOSTS,
            )
            apply_layout(
                self.shell, layout, storage.confirm, on_log=self._log, state_dir=state_dir(),
                accept_unreadable=storage.accept_unreadable,
            )  # fmt: skip
            self.built = True
            if layout.database.placement != "none" and uses_database(
                self.system.plan.workload.kind
            ):
                from bench_gui.remote.db_placement import place_database

                self._say("storage", f"moving the database to {layout.mount.point}")
                place_database(self.shell, layout, on_log=self._log, state_dir=state_dir())
                self.placed = True
        except (StorageError, SSHError, OSError, ValueError) as exc:
            try:
                self._undo()
            except RunError as undo:
                raise RunError(f"system {key}: storage {storage.layout}: {exc}; {undo}") from exc
            raise RunError(f"system {key}: storage {storage.layout}: {exc}") from exc
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.layout is not None:
            self._undo()

    def _undo(self) -> None:
        """The database put back and the layout taken down (what was done of them)."""
        layout, storage = self.layout, self.system.storage
        problems: list[str] = []
        try:
            if layout is not None and self.placed:
                from bench_gui.remote.db_placement import restore_database

                self._say("teardown", f"moving the database back from {layout.mount.point}")
                try:
                    restore_database(self.shell, layout, on_log=self._log, state_dir=state_dir())
                    self.placed = False
                except (StorageError, SSHError, OSError) as exc:
                    problems.append(f"the database was not moved back: {exc}")
            if layout is not None and self.built and not self.placed:
                self._say("teardown", f"taking {layout.name} down")
                try:
                    teardown_layout(
                        self.shell, layout, storage.confirm, on_log=self._log,
                        state_dir=state_dir(), accept_unreadable=storage.accept_unreadable,
                    )  # fmt: skip
                    self.built = False
                except (StorageError, SSHError, OSError) as exc:
                    problems.append(f"the layout was not taken down: {exc}")
        finally:
            if self.shell is not None:
                self.shell.close()
                self.shell = None
            self.layout = None
        if problems:
            raise RunError(f"system {self.system.key}: " + "; ".join(problems))
