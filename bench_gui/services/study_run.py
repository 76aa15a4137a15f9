"""Running a study: each system in turn through the run service, then the brief.

For every system the runner first looks for a stored session of the study that is still
valid: complete, tagged with the study and with the system's fingerprint (its plan, storage
and tuning as the study file says them: :func:`bench_gui.core.study_model.system_fingerprint`),
and run with the very plan the study makes now, against the server it measured (read now and
compared with what the session recorded: :mod:`bench_gui.services.study_identity`). Such a
system is skipped, so an interrupted study resumes where it stopped; one whose server changed
(new hardware, another release) is measured again and the notes say why. Otherwise its storage
layout, if it names one, is built (:mod:`bench_gui.services.study_storage`) and its tuning
preset applied, both undone however the run ends; the plan runs through
:class:`bench_gui.services.run.RunController` (which also applies and rolls back the plan's
``[os]`` knobs), and the session is tagged and given the storage description and array of the
study file. When every system is measured, the study's prices join the store's price list and
the brief is written through the report path ``bench-gui compare`` uses, with the study's
baseline, stop condition and options.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_gui.core.economics import ArrayInput
from bench_gui.core.plan_model import Plan
from bench_gui.core.study_model import Study, StudyError, System, system_fingerprint
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import HostKeyUnknown, RunError
from bench_gui.services.study_identity import (
    IdentityUnknown,
    changes,
    read_identity,
    record_identity,
    recorded_identity,
)
from bench_gui.services.study_storage import LayoutScope
from bench_gui.store import SessionStore
from bench_gui.store.annotations import raid_level
from bench_gui.wire.protocol import Event
from bench_gui.workloads.base import kit_for

# (study, store, system key -> session id, the study file's folder) -> the files written and
# the notes for the author.
BriefWriter = Callable[[Study, SessionStore, dict[str, int], Path], tuple[list[Path], list[str]]]


@dataclass
class StudyProgress:
    """Where a study is: which system (1-based of ``total``), what it is doing, time left."""

    system: str  # the system's key
    name: str
    index: int
    total: int
    # "skipped", "storage", "tuning", "running", "rollback", "teardown", "done", "brief"
    stage: str
    step: int | None = None  # the sweep step (1-based) of a running system
    steps: int | None = None
    remaining_s: float | None = None  # the measured windows still to run, all systems
    message: str = ""


@dataclass
class StudyResult:
    """The sessions of each system (key -> id), which were measured now, and the brief."""

    sessions: dict[str, int] = field(default_factory=dict)
    measured: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # for the author, not in the brief
    # Systems measured again because their server changed (key -> what changed).
    changed: dict[str, str] = field(default_factory=dict)


def duration_text(seconds: float | None) -> str:
    """``about 1 h 20 min`` / ``about 40 s``: how long is left, for a progress line."""
    if seconds is None:
        return ""
    total = max(int(round(seconds)), 0)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"about {hours} h {minutes} min left"
    if minutes:
        return f"about {minutes} min {secs} s left"
    return f"about {secs} s left"


def progress_text(progress: StudyProgress) -> str:
    """One line: which system, which step, how long is left (not escaped: the CLI escapes
    it for the terminal)."""
    head = f"[{progress.index}/{progress.total} {progress.system}] {progress.name}:"
    what = progress.stage
    if progress.stage == "running" and progress.step:
        what = f"step {progress.step}/{progress.steps}"
    elif progress.stage == "running":
        what = "starting"
    parts = [head, what]
    if progress.message:
        parts.append(f"({progress.message})")
    left = duration_text(progress.remaining_s)
    if left:
        parts.append(f"- {left} (measured windows)")
    return " ".join(parts)


def system_tag(system: System) -> str:
    """The tag naming a system's measurement in the study: ``system:KEY@FINGERPRINT``."""
    return f"system:{system.key}@{system_fingerprint(system)}"


def plan_seconds(plan: Plan, from_step: int = 0) -> float:
    """The windows of a plan's steps from ``from_step`` on (builds and loads not counted)."""
    seconds: float = kit_for(plan.workload.kind).face("plan_seconds")(plan.workload, from_step)
    return seconds


def check_storage(study: Study) -> None:
    """The storage descriptions' RAID levels, as the store will record them (StudyError)."""
    problems = []
    for system in study.systems:
        try:
            raid_level(system.storage.raid)
        except ValueError as exc:
            problems.append((f"systems.{system.key}.storage.raid", str(exc)))
    if problems:
        raise StudyError(problems)


def _same_plan(stored: dict[str, Any], plan: Plan) -> bool:
    def canon(data: Any) -> str:
        return json.dumps(data, sort_keys=True, default=str)

    return canon(stored) == canon(json.loads(canon(plan.to_dict())))


def valid_session(store: SessionStore, study: Study, system: System) -> int | None:
    """The newest complete session of this system in the study that is still valid, or None."""
    tag = system_tag(system)
    for info in store.find_runs("", tag=study.tag):
        if info.status != "complete":
            continue
        if tag.lower() not in (t.lower() for t in store.tags(info.id)):
            continue
        if _same_plan(store.get_run(info.id).plan, system.plan):
            return info.id
    return None


class StudyRunner:
    """Runs a study's systems in turn and writes its brief (see the module docstring)."""

    def __init__(
        self,
        study: Study,
        store: SessionStore,
        folder: Path,
        on_progress: Callable[[StudyProgress], None] | None = None,
        on_event: Callable[[System, Event], None] | None = None,
        write_brief: BriefWriter | None = None,
    ) -> None:
        self.study = study
        self.store = store
        self.folder = folder  # where the study file is: the brief is written beside it
        self.on_progress = on_progress or (lambda _p: None)
        self.on_event = on_event or (lambda _s, _e: None)
        # The brief's writer (bench_gui.report.study_brief.write_brief: the report layer sits
        # beside this one, so it is handed in by the CLI or the app).
        self.write_brief = write_brief
        self.controller: RunController | None = None
        # The storage layouts' step logs (built and taken down around a system's runs).
        self.storage_log: list[str] = []
        self._stopped = False
        # The time left as last said: what a rollback or a teardown after the runs says (the
        # system's own windows are behind it then, not ahead).
        self.left_now: float | None = None

    def stop(self) -> None:
        """Stop the running system's run (its session keeps what was measured) and start no
        other: also while a preset is applied or between systems, when no run is going."""
        self._stopped = True
        if self.controller is not None:
            self.controller.stop()

    def _check_stopped(self) -> None:
        if self._stopped:
            raise RunError("the study was stopped: run it again to go on where it stopped")

    def run(self, brief: bool = True) -> StudyResult:
        """Measure what is not measured yet, then write the brief (unless ``brief`` is off)."""
        check_storage(self.study)
        result = StudyResult()
        systems = self.study.systems
        todo = {s.key: self._still_valid(s, result) for s in systems}
        left = sum(plan_seconds(s.plan) for s in systems if todo[s.key] is None)
        for index, system in enumerate(systems, 1):
            found = todo[system.key]
            if found is not None:
                result.sessions[system.key] = found
                result.skipped.append(system.key)
                self._say(system, index, "skipped", remaining_s=left,
                          message=f"already measured: session {found}")  # fmt: skip
                continue
            session = self._measure(system, index, left, result)
            left -= plan_seconds(system.plan)
            result.sessions[system.key] = session
            result.measured.append(system.key)
        if brief and self.write_brief is not None:
            self._say(systems[-1], len(systems), "brief", remaining_s=0.0)
            self._add_prices()
            written, notes = self.write_brief(self.study, self.store, result.sessions, self.folder)
            result.written = written
            result.notes.extend(notes)
        return result

    def _still_valid(self, system: System, result: StudyResult) -> int | None:
        """The system's stored session when its plan is unchanged and its server is the one
        measured (read now); a changed server is measured again, and the notes say why."""
        found = valid_session(self.store, self.study, system)
        if found is None:
            return None
        try:
            now = read_identity(system)
        except IdentityUnknown as exc:
            result.notes.append(
                f"system {system.key}: session {found} kept without checking its server ({exc})"
            )
            return found
        changed = changes(recorded_identity(self.store, found), now)
        if not changed:
            return found
        reason = "; ".join(changed)
        result.changed[system.key] = reason
        result.notes.append(
            f"system {system.key}: measured again, the server is not the one session {found}"
            f" measured ({reason})"
        )
        return None

    def _say(self, system: System, index: int, stage: str, **more: Any) -> None:
        if more.get("remaining_s") is not None:
            self.left_now = more["remaining_s"]
        self.on_progress(
            StudyProgress(system.key, system.name, index, len(self.study.systems), stage, **more)
        )

    def _measure(self, system: System, index: int, left: float, result: StudyResult) -> int:
        """Prepare, run and tag one system; its session id. RunError when it did not finish."""
        self._check_stopped()
        try:
            identity: dict[str, Any] | None = read_identity(system)
        except IdentityUnknown as exc:
            identity = None
            result.notes.append(f"system {system.key}: its server's identity is unknown ({exc})")

        with LayoutScope(self, system, index, left), self._tuned(system, index, left, result):
            self._check_stopped()  # Stop pressed while the preset was applied
            try:
                controller = RunController(system.plan, self.store, action="run")
            except HostKeyUnknown:
                raise
            except RunError as exc:
                raise RunError(f"{_named(system)}: {exc}") from exc
            self.controller = controller
            if self._stopped:
                controller.stop()  # Stop pressed just now: the run ends at once, as stopped
            workload = system.plan.workload
            steps = kit_for(workload.kind).face("step_count")(workload)
            own = plan_seconds(system.plan)
            again = result.changed.get(system.key)
            self._say(system, index, "running", step=0, steps=steps, remaining_s=left,
                      message=f"measured again: {again}" if again else "")  # fmt: skip
            events = controller.events()
            try:
                try:
                    for event in events:
                        self.on_event(system, event)
                        if event.kind == "step" and event.get("phase") == "start":
                            step = int(event.get("step", 0))
                            done = own - plan_seconds(system.plan, step)
                            self._say(system, index, "running", step=step + 1, steps=steps,
                                      remaining_s=left - done)  # fmt: skip
                except KeyboardInterrupt:
                    # Ctrl+C: the run ends as a stopped one (its session finished with what
                    # it measured, the OS knobs rolled back), then the study stops.
                    controller.stop()
                    for event in events:
                        self.on_event(system, event)
                    raise
                except HostKeyUnknown:
                    raise  # the app shows the key to accept; its message names the host
                except RunError as exc:
                    # The run's own words ("the data file needs 72 MiB...") with the system
                    # they are about: a study runs several, and the author must know which.
                    session = controller.session_id
                    where = f"session {session}: " if session is not None else ""
                    raise RunError(
                        f"{_named(system)} failed ({where}{exc}): run the study again to measure it"
                    ) from exc
            finally:
                self.controller = None
                if controller.session_id is not None:
                    self._record(system, controller.session_id)
                    if identity is not None:
                        record_identity(self.store, controller.session_id, identity)
            status = controller.final.get("status") if controller.final is not None else None
            if controller.session_id is None or status != "ok":
                raise RunError(
                    f"{_named(system)} did not finish"
                    f" (session {controller.session_id}, status {status}): run the study"
                    " again to measure it"
                )
            self.left_now = left - own  # what the rollback and teardown say after the runs
        self._say(system, index, "done", remaining_s=left - own,
                  message=f"session {controller.session_id}")  # fmt: skip
        return controller.session_id

    def _record(self, system: System, session: int) -> None:
        """The study's tags, the storage description and the array on the session."""
        self.store.add_tags(session, [self.study.tag, system_tag(system)])
        storage = system.storage
        if storage:
            self.store.set_storage_description(
                session,
                devices=storage.devices,
                count=storage.count,
                raid=storage.raid,
                filesystem=storage.filesystem,
                note=storage.note,
            )
        if storage.devices and storage.count:
            self.store.set_run_array(
                session,
                ArrayInput(
                    device=storage.devices,
                    count=storage.count,
                    origin="hand",
                    note=f"from the study {self.study.key}",
                ),
            )

    def _tuned(self, system: System, index: int, left: float, result: StudyResult) -> _TuningScope:
        return _TuningScope(self, system, index, left, result)

    # -- the brief ------------------------------------------------------------------------------

    def _add_prices(self) -> None:
        """The study's prices into the store's list, unless an identical entry is there."""
        listed = set(self.store.device_prices())
        for price in self.study.prices.devices:
            if price not in listed:
                self.store.add_device_price(price)
        power = self.study.prices.power
        if power is not None and power not in [e.price for e in self.store.power_price_entries()]:
            self.store.add_power_price(power)


class _TuningScope:
    """The system's tuning preset applied on entry and rolled back on exit, however it ends."""

    def __init__(
        self, runner: StudyRunner, system: System, index: int, left: float, result: StudyResult
    ) -> None:
        self.runner, self.system, self.index, self.left = runner, system, index, left
        self.result = result
        self.conn: Any = None
        self.entry: int | None = None

    def __enter__(self) -> _TuningScope:
        tuning = self.system.tuning
        if not tuning.profile:
            return self
        from bench_gui.engines.tuning_terms import PresetError
        from bench_gui.remote.db_tuner import TuningError
        from bench_gui.services.tuning import apply_profile, connection_for_plan

        plan = self.system.plan
        self.runner._say(self.system, self.index, "tuning", remaining_s=self.left,
                         message=f"applying {tuning.profile}")  # fmt: skip
        users = max(plan.workload.virtual_users, default=0) or None
        try:
            self.conn = connection_for_plan(plan.target, users)
            proposal = tuning_proposal(self.conn, profile_path(self.runner.folder, tuning.profile))
            applied, self.entry = apply_profile(
                self.runner.store, self.conn, proposal, profile=tuning.profile,
                restart=tuning.restart,
            )  # fmt: skip
        except (TuningError, PresetError, OSError) as exc:
            self._close()
            raise RunError(f"system {self.system.key}: tuning {tuning.profile}: {exc}") from exc
        if applied.pending_restart:
            self.result.notes.append(
                f"system {self.system.key}: {', '.join(applied.pending_restart)} take effect"
                " after a restart (tuning.restart = false)"
            )
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.conn is None:
            return
        try:
            if self.entry is not None:
                from bench_gui.services.tuning import rollback_last

                self.runner._say(self.system, self.index, "rollback",
                                 remaining_s=self.runner.left_now,
                                 message=f"rolling back {self.system.tuning.profile}")  # fmt: skip
                rollback_last(self.runner.store, self.conn, restart=self.system.tuning.restart)
        finally:
            self._close()

    def _close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def profile_path(folder: Path, profile: str) -> str:
    """A tuning profile as the study names it: a preset file relative to the study file's
    folder, any other name (a preset, pgtune) as it is."""
    if profile.endswith(".toml") and not Path(profile).is_absolute():
        return str(folder / profile)
    return profile


def tuning_proposal(conn: Any, profile: str) -> Any:
    """The profile as the connection's engine takes it (as ``bench-gui tune apply`` does)."""
    from bench_gui.services.tuning import calculated, proposal_for, server_facts
    from bench_gui.services.tuning_parts import Inputs

    facts = server_facts(conn) if calculated(conn, profile) else None
    return proposal_for(conn, profile, Inputs(), facts)


def _named(system: System) -> str:
    """How an error names the system it is about: ``system ssd (SSD server)``."""
    return f"system {system.key} ({system.name})"


def sessions_of(store: SessionStore, study: Study) -> Iterator[tuple[System, int | None]]:
    """Each system with its valid stored session (None: still to measure)."""
    for system in study.systems:
        yield system, valid_session(store, study, system)
