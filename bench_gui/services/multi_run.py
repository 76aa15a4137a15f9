"""A run on several driver hosts at once (issue 18): one agent per host, one session.

The plan's ``[driver] targets`` names saved SSH targets; each step's users are split across
them (:meth:`bench_gui.core.plan.Driver.step_splits`). :class:`MultiRun`:

1. **Starts**: resolves every named target (unknown names: one error naming them all),
   measures each host's clock over its own SSH link and refuses a host past the plan's
   ``driver.max_clock_offset_ms`` (:mod:`bench_gui.remote.clock`), applies the plan's ``[os]``
   knobs on the host ``os.host`` names (rolled back however the run ends, as on one host),
   deploys the agent on every host, then starts the primary (the first host: it prepares
   the schema and reads the database's counters) with ``--role primary --barrier``. The
   secondaries (``--role secondary``) are started once the primary is ready for the first
   step, i.e. after its schema build, so no barrier timeout has to allow for a build. Each
   agent has its own run directory (spool, go file) and its own transport; every agent holds
   the database server's run lock in its host's shared folder (agents of the run on one
   machine share it by the config's ``run_token``), so a run against that server from any of
   the hosts is refused.
2. **Barrier**: when every host has said it is ready for step N (a ``progress`` event of task
   ``barrier``, stage ``ready``), one start instant a lead time ahead of this machine's clock
   is written, in each host's own clock (:meth:`ClockReading.to_host`), to each host's go file
   (a temporary name renamed over it, over SFTP): every host starts the step together. Ready
   means the host's users are connected; each agent says when it really began (``go``), and
   the step's summary keeps the hosts' measured start spread (``start``), flagged past
   :data:`START_SPREAD_LIMIT_S`.
3. **Merges**: the hosts' events become one stream of one session: samples paired by time,
   each at its second from the step's instant, so a skipped or doubled sample shifts no later
   pair (:mod:`bench_gui.services.multi_samples`: database counters from the primary, driver
   counts summed, each host's figures under ``hosts``), one step start, step summaries merged by
   :func:`bench_gui.core.multi_driver.merge_step` (the 2% check against the summed driver
   New-Orders), the primary's ``hello``; the secondaries' logs and errors named by host. The
   session's target records the hosts, their clock offsets and each step's start instant;
   its inventory is the primary's, with every host's (each taken over its own connection)
   under ``driver_hosts``; a host whose inventory cannot be read is a warning naming it.
4. **Fails cleanly**: a host whose agent ends without finishing (killed, crashed) or whose link
   cannot be restored fails the run naming that host; the other hosts are stopped and what
   they measured before is kept. A link cut on one host is resumed by that host's transport
   alone (the others go on).
5. **Re-attaches** (:meth:`MultiRun.reattach`) after the desktop lost the run (a crash, a
   close) while its agents went on: every host's run of the session is found, their spools
   are merged again from the start (the stored stream is replaced, :mod:`bench_gui.store.
   merged_stream`), and a step whose start the lost desktop had given (its go files) is not
   given again. The agents wait at a step's barrier for at most ``--barrier-timeout``, and
   end the run sooner once no desktop has probed them for the plan's ``driver.max_outage_s``
   and :data:`~bench_gui.services.step_barrier.DESKTOP_SLACK_S` (their ``--desktop-timeout``):
   a desktop gone for good leaves no agent holding its users and the run lock.

Qt-free; :class:`bench_gui.services.run.RunController` hands a plan with several driver hosts
here.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, Final, TypeVar

from bench_gui.core.events import BadEvent, check_event
from bench_gui.core.multi_driver import first_users
from bench_gui.core.plan import Plan, PlanError, check_driver_hosts_saved
from bench_gui.remote.clock import ClockReading, ClockRefused, check_clocks, measure_clock
from bench_gui.remote.errors import SSHError, UnknownHostKey
from bench_gui.remote.host_access import SSHHost
from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
from bench_gui.remote.ssh_transport import SSHAgentRun, desktop_identity
from bench_gui.remote.targets import TARGETS_FILE, load_targets
from bench_gui.remote.transport import BadLine
from bench_gui.services.host_links import Host, HostTransport
from bench_gui.services.multi_samples import SampleMerger
from bench_gui.services.run_dirs import session_run
from bench_gui.services.run_errors import RunError
from bench_gui.services.run_events import shown, stored_status, vetted
from bench_gui.services.run_inventory import RunInventory, database_record
from bench_gui.services.run_knobs import RunKnobs
from bench_gui.services.run_session import RunSession
from bench_gui.services.step_barrier import (
    BARRIER_TIMEOUT_S,
    LEAD_S,
    StepBarrier,
    desktop_timeout_s,
)
from bench_gui.services.step_merge import StepMerge
from bench_gui.store.merged_stream import discard_stream
from bench_gui.store.paths import data_dir
from bench_gui.wire.protocol import Event, decode_line, encode_event

log = logging.getLogger(__name__)
_T = TypeVar("_T")

# After a host was lost, how long the others get to stop and say so.
STOP_WAIT_S: Final = 60.0
_STATUS_RANK: Final = {"ok": 0, "stopped": 1, "failed": 2}


class MultiRun:
    """One run of a plan over its ``[driver] targets`` (see the module docstring).

    ``events()`` is a blocking generator, as :meth:`RunController.events`; ``stop()`` may be
    called from any thread. ``transport_options``: more keyword arguments for every host's
    :class:`HostTransport` (``max_outage`` is the plan's ``driver.max_outage_s`` unless given).
    """

    def __init__(
        self,
        plan: Plan,
        session: RunSession,
        config: dict[str, Any],
        env: dict[str, str],
        accept_fingerprint: str | None = None,
        on_notice: Callable[[str, str], None] | None = None,
        lead_s: float = LEAD_S,
        barrier_timeout_s: float = BARRIER_TIMEOUT_S,
        transport_options: dict[str, Any] | None = None,
    ) -> None:
        self.plan = plan
        self.session = session  # the controller's: one session, however many hosts
        self.store = session.store
        self.env = env
        self.on_notice = on_notice
        self.final: Event | None = None
        self.summary: Event | None = None
        self.errors: list[str] = []
        self._seq = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._queue: queue.Queue[tuple[Host, Event | BadLine | None, str]] = queue.Queue()
        self._stopping_since = 0.0
        self.clock_warnings: list[str] = []
        self._reattached = False
        self._source_t: float | None = None  # the newest host event's time, this machine's clock
        names = list(plan.driver.targets)
        try:
            saved = load_targets(data_dir() / TARGETS_FILE)
            check_driver_hosts_saved(plan, list(saved))
        except (PlanError, SSHError) as exc:
            raise RunError(str(exc)) from exc
        try:
            splits = plan.driver.step_splits(list(plan.workload.virtual_users))
        except ValueError as exc:
            raise RunError(str(exc)) from exc
        self.splits = splits
        self.primary = names[0]
        self.hosts: list[Host] = []
        for index, name in enumerate(names):
            role = "primary" if index == 0 else "secondary"
            options: dict[str, Any] = dict(transport_options or {})
            # A host unreachable for longer fails the run naming it (never reconnects for ever).
            options.setdefault("max_outage", plan.driver.max_outage_s)
            args: tuple[str, ...] = ("--role", role, "--barrier")
            args += ("--barrier-timeout", f"{barrier_timeout_s:g}")
            # ... and an agent whose desktop is gone that long ends the run at its barrier.
            args += ("--desktop-timeout", f"{desktop_timeout_s(options['max_outage']):g}")
            transport = HostTransport(
                saved[name],
                agent_args=args,
                accept_fingerprint=accept_fingerprint,
                known_hosts=data_dir() / APP_KNOWN_HOSTS,
                on_link_state=self._link_state(name),
                on_command=self.session.command,
                **options,
            )
            if index == 0:
                # Every host's agent holds the database server's run lock in its host's shared
                # folder; the agents of this run on one machine share it by this token.
                config = {**config, "run_token": config.get("run_token") or uuid.uuid4().hex}
            host_config = dict(config)
            host_config["virtual_users"] = [row[index] for row in splits]
            host_config["first_user"] = [first_users(row)[index] for row in splits]
            host_config["total_users"] = list(plan.workload.virtual_users)
            self.hosts.append(Host(name, index, role, transport, host_config))
        self.merger = SampleMerger(names, self.primary)
        self.barrier = StepBarrier(self.hosts, lead_s)
        self._inventory = RunInventory(self.store, plan)
        self.step_merge = StepMerge(self.hosts, self.merger, self.barrier, self.errors)
        # os.host may be the primary: then over its own link (os_run_for_plan's choice).
        primary = self.hosts[0]
        self._knobs = RunKnobs(self.store, plan, lambda: SSHHost(primary.transport.session()))

    # -- control ---------------------------------------------------------------------------
    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            for host in self.hosts:
                if host.agent is not None and not host.ended:
                    host.agent.stop()

    def _link_state(self, name: str) -> Callable[[str, str], None]:
        def report(state: str, detail: str) -> None:
            text = f"driver host {name!r}: {detail}"
            self.session.link(state, text)
            if self.on_notice is not None:
                self.on_notice(state, text)

        return report

    # -- the stream --------------------------------------------------------------------------
    def _emit(self, kind: str, t: float | None = None, **data: Any) -> Event:
        """One event of the run's merged stream, checked and stored. Merged again after a
        re-attach, an event takes the time of the host event that made it (on this machine's
        clock), not the time of its merging."""
        if t is None and self._reattached:
            t = self._source_t
        self._seq += 1
        event = decode_line(encode_event(kind, self._seq, t, **data))
        try:
            checked = check_event(event)
        except BadEvent as exc:
            return self.session.log("warning", f"unusable merged event, skipped: {exc}")
        if checked.dropped:
            self.session.log("warning", checked.warning())
        event = checked.event
        if self.session_id is not None:
            self.store.add_event(self.session_id, event)
        return event

    @property
    def session_id(self) -> int | None:
        return self.session.id

    @session_id.setter
    def session_id(self, value: int | None) -> None:
        self.session.id = value

    # -- starting ----------------------------------------------------------------------------
    def events(self, target_record: dict[str, Any], name: str) -> Iterator[Event]:
        """Run the plan on every host; ``target_record``: the session's target (the database),
        to which the hosts and their clocks are added."""
        readings = self._clocks()
        record = dict(target_record)
        record["driver_hosts"] = [
            {"host": h.name, "role": h.role, "clock": h.clock.to_dict() if h.clock else None}
            for h in self.hosts
        ]
        self.session_id = self.store.create_run(
            name=name,
            plan=self.plan.to_dict(),
            plan_toml=self.plan.to_toml(),
            target=record,
            engine=str(self.hosts[0].config["engine"]),
            kind="run",
        )
        for reading in readings:
            self.store.add_log(
                self.session_id, "info", f"driver host {reading.host!r}: clock {reading.describe()}"
            )
        for host in self.hosts:
            host.config["session_id"] = self.session_id
            host.config["session_name"] = name
        yield from self._guarded(self._first_start())

    def _first_start(self) -> Iterator[Event]:
        for line in self._knobs.apply(self.session.sid):
            yield shown(*line)
        for host in self.hosts:
            self._named(host, host.transport.deploy)
        self._start(self.hosts[0])
        self._inventory.take_hosts(self.session.sid, self.hosts, self._knobs.record())
        yield from self._loop()

    def reattach(self, session_id: int) -> Iterator[Event]:
        """Follow again a run this desktop lost (it crashed or was closed) while its agents went
        on: every host's run of the session is found, and their spools merged again from the
        start (the stored stream is replaced: which of each host's events it holds cannot be
        told, and the spools hold them all); the steps still to come are started as usual.

        A host without the session's run, or out of reach, is a :class:`RunError` naming
        it, before anything stored changes.
        """
        run = self.store.get_run(session_id)
        if not self.store.claims.claim(session_id):  # one writer per run
            raise RunError(f"session {session_id} is followed already, by another bench-gui")
        self.session_id = session_id
        self._reattached = True
        try:
            readings = self._clocks()  # today's offsets: the go files still to write need them
            run_dirs = self._run_dirs(session_id, run.created_at)
        except BaseException:
            self.store.claims.release(session_id)
            raise
        for reading in readings:
            self.store.add_log(
                session_id, "info", f"driver host {reading.host!r}: clock {reading.describe()}"
            )
        replaced = discard_stream(self.store, session_id)
        self.store.add_log(
            session_id,
            "info",
            f"re-attached to the run on {len(self.hosts)} driver hosts; their spools are merged"
            f" again from the start ({replaced:,} stored rows replaced)",
        )
        self.barrier.reattached = True
        self._knobs.resume(session_id)
        yield from self._guarded(self._follow_again(run_dirs))

    def _run_dirs(self, session_id: int, created_at: str) -> dict[str, str]:
        """Each host's run directory of the session (its newest, of this desktop)."""
        me = desktop_identity()
        found: dict[str, str] = {}
        for host in self.hosts:
            runs = self._named(host, host.transport.list_runs)
            match = session_run(runs, session_id, created_at, me, target=host.name)
            if match is None:
                raise RunError(
                    f"driver host {host.name!r}: no run of session {session_id} there (its run"
                    " directory is gone): the run cannot be followed again"
                )
            found[host.name] = match.run_dir
        return found

    def _follow_again(self, run_dirs: dict[str, str]) -> Iterator[Event]:
        for host in self.hosts:
            self._start(host, partial(host.transport.attach, run_dirs[host.name], from_seq=0))
        yield from self._loop()

    def _guarded(self, body: Iterator[Event]) -> Iterator[Event]:
        """``body``'s events; however it ends, the hosts are stopped or let go and the plan's
        OS knobs restored, and a failure closes the session with what went wrong."""
        ended = False
        try:
            yield from body
            ended = True
        except UnknownHostKey:
            self._abort("failed", "a driver host's key is not known")
            raise
        except (SSHError, OSError, RunError) as exc:
            message = str(exc)
            self._abort("failed", message)
            if isinstance(exc, RunError):
                raise
            raise RunError(message) from exc
        except GeneratorExit:
            self._abort("incomplete", "the reader stopped following the run")
            raise
        except BaseException:
            self._abort("incomplete", "the run was interrupted")
            raise
        finally:
            self._close()
            if not ended:  # the lines are in the session log
                self._knobs.end(self.session_id)
        for line in self._knobs.end(self.session_id):
            yield shown(*line)

    def _clocks(self) -> list[ClockReading]:
        """Every host's clock against this machine's; refused past the plan's limit."""
        readings = []
        for host in self.hosts:
            try:
                host.clock = measure_clock(
                    host.transport.session(), python=host.transport.target.python
                )
            except UnknownHostKey:
                raise
            except SSHError as exc:
                raise RunError(f"driver host {host.name!r}: {exc}") from exc
            readings.append(host.clock)
        try:
            self.clock_warnings = check_clocks(readings, self.plan.driver.max_clock_offset_ms)
        except ClockRefused as exc:
            raise RunError(str(exc)) from exc
        return readings

    def _start(self, host: Host, attach: Callable[[], SSHAgentRun] | None = None) -> None:
        """Start the host's agent (or ``attach`` to the one already running) and follow it."""
        with self._lock:
            if self._stop.is_set():
                return
            host.agent = self._named(
                host, attach or (lambda: host.transport.start_agent(host.config, self.env))
            )
        self.store.add_log(
            self.session.sid,
            "info",
            f"driver host {host.name!r} ({host.role}): {host.agent.run_dir}",
        )
        thread = threading.Thread(
            target=self._follow, args=(host,), name=f"multi-run-{host.name}", daemon=True
        )
        host.thread = thread
        thread.start()

    @staticmethod
    def _named(host: Host, action: Callable[[], _T]) -> _T:
        """``action()``; an SSH failure is said with the host's name."""
        try:
            return action()
        except UnknownHostKey:
            raise
        except SSHError as exc:
            raise RunError(f"driver host {host.name!r}: {exc}") from exc

    def _follow(self, host: Host) -> None:
        """A host's events into the run's queue (its own thread); None at the end."""
        assert host.agent is not None
        why = ""
        try:
            for item in host.agent.events():
                self._queue.put((host, item, ""))
        except SSHError as exc:
            why = f"its link could not be restored: {exc}"
        except Exception as exc:  # said as the host's loss, never silent
            log.exception("following driver host %s", host.name)
            why = f"following it failed: {exc}"
        self._queue.put((host, None, why))

    # -- the loop ------------------------------------------------------------------------------
    def _loop(self) -> Iterator[Event]:
        failure = ""
        # Until every started host has ended (the secondaries start from within the loop, on
        # the primary's first ready, so none is missed).
        while any(h.agent is not None and not h.ended for h in self.hosts):
            if failure and self._stopping_too_long():
                break
            try:
                host, item, why = self._queue.get(timeout=1.0)
            except queue.Empty:
                continue
            if item is None:
                yield from self._host_ended(host, why)
                ended_badly = host.final is not None and host.final.get("status") != "ok"
                if ended_badly and not failure and not self._stop.is_set():
                    # One host gave up (its own error): the others would wait at the next
                    # barrier for it; they are stopped now.
                    self._stop_others(host)
                    self._stopping_since = time.monotonic()
                if host.lost and not failure:
                    failure = host.lost
                    self._stop_others(host)
                    self._stopping_since = time.monotonic()
                continue
            event, warnings = vetted(item, prefix=f"driver host {host.name!r}: ")
            for warning in warnings:
                yield self.session.log("warning", warning)
            if event is None:
                continue
            offset = host.clock.offset_ms / 1000.0 if host.clock is not None else 0.0
            self._source_t = event.t - offset
            yield from self._handle(host, event)
        yield from self._end(failure)

    def _stopping_too_long(self) -> bool:
        return time.monotonic() - self._stopping_since > STOP_WAIT_S

    def _stop_others(self, lost: Host) -> None:
        self._stop.set()
        with self._lock:
            for host in self.hosts:
                if host is not lost and host.agent is not None and not host.ended:
                    host.agent.stop()

    def _host_ended(self, host: Host, why: str) -> Iterator[Event]:
        host.ended = True
        if host.final is None and not why:
            assert host.agent is not None
            code = host.agent.wait(30)
            detail = host.agent.diagnostics().strip().splitlines()
            why = detail[-1] if detail else f"its agent ended (exit status {code})"
            why = f"its agent ended without finishing the run: {why}"
        if host.final is None:
            step = max((s for h in self.hosts for s in h.go), default=None)
            where = f" in step {step + 1}" if step is not None else ""
            host.lost = f"driver host {host.name!r} was lost{where}: {why}"
            self.errors.append(host.lost)
            yield self._emit("error", message=host.lost, fatal=True, code="driver_host_lost")
        for sample in self.merger.host_gone(host.name):
            yield self._emit("sample", **sample)

    def _handle(self, host: Host, event: Event) -> Iterator[Event]:
        kind, data = event.kind, event.data
        primary = host.name == self.primary
        if kind == "hello":
            if primary:
                yield self._emit("hello", event.t, **data)
                self.store.update_inventory(self.session.sid, {"database": database_record(event)})
            else:
                self.store.add_log(
                    self.session.sid,
                    "info",
                    f"driver host {host.name!r}: agent {data.get('agent_version')} started",
                )
        elif kind == "progress" and data.get("task") == "barrier":
            yield from self._barrier(host, event)
        elif kind == "progress":
            if primary:
                yield self._emit("progress", event.t, **data)
        elif kind == "sample":
            for sample in self.merger.add(host.name, data):
                yield self._emit("sample", **sample)
        elif kind == "step":
            for merged_kind, merged in self.step_merge.add(host, event):
                yield self._emit(merged_kind, **merged)
        elif kind in ("log", "error"):
            text = str(data.get("message", ""))
            named = f"driver host {host.name!r}: {text}"
            if kind == "error":
                self.errors.append(named)
            yield self._emit(kind, event.t, **{**data, "message": named})
        elif kind == "summary":
            pass  # the run's summary is the merged steps' (at the end)
        elif kind == "done":
            host.final = event
        else:
            yield self._emit(kind, event.t, **data)

    def _barrier(self, host: Host, event: Event) -> Iterator[Event]:
        step = event.get("step")
        if not isinstance(step, int):
            return
        stage = event.get("stage")
        if stage == "go":
            self.barrier.went(host, event)
            late = event.get("late_s")
            if isinstance(late, int | float) and not isinstance(late, bool):
                self.merger.went(host.name, step, float(late))  # its samples placed by time
            yield self._emit("progress", event.t, **{**event.data, "driver_host": host.name})
            return
        if stage != "ready":
            return
        every = self.barrier.ready(host, step, str(event.get("go_file") or ""))
        if step == 0 and host.role == "primary":
            # The schema is prepared: start the secondaries (each deployed already).
            for other in self.hosts[1:]:
                if other.agent is None and not self._stop.is_set():
                    self._start(other)
        if every:
            yield self.session.log("info", self.barrier.go(step))

    def _end(self, failure: str) -> Iterator[Event]:
        statuses = [str(h.final.get("status", "failed")) for h in self.hosts if h.final is not None]
        status = max(statuses or ["failed"], key=lambda s: _STATUS_RANK.get(s, 2))
        if failure:
            status = "failed"
        elif self._stop.is_set() and status == "ok":
            status = "stopped"
        primary = self.hosts[0].final
        message = failure or (str(primary.get("message", "")) if primary is not None else "")
        if status != "ok" and not failure:
            failed = [
                h for h in self.hosts if h.final is not None and h.final.get("status") != "ok"
            ]
            if failed:
                message = "; ".join(
                    f"driver host {h.name!r}: {h.final.get('message', '')}"
                    for h in failed
                    if h.final
                )
        self.summary = self._emit("summary", steps=self.step_merge.steps, status=status)
        yield self.summary
        self.final = self._emit("done", status=status, message=message)
        yield self.final
        # The finished steps stay visible as a partial result.
        self.session.finish(stored_status(status, bool(self.step_merge.steps)), message)
        if status == "failed":
            raise RunError(
                failure or (self.errors[-1] if self.errors else message or "the run failed")
            )

    def _abort(self, status: str, message: str) -> None:
        """Stop every host's agent and close the session (never raises)."""
        try:
            self._stop.set()
            with self._lock:
                for host in self.hosts:
                    if host.agent is not None and not host.ended:
                        host.agent.stop()
            if self.session_id is not None and self.session.status() == "running":
                if status == "failed" and self.step_merge.steps:
                    status = "incomplete"  # the finished steps stay visible, as in _end
                self.session.finish(status, message)
        except Exception:  # on the way out of another error
            log.exception("stopping the driver hosts")

    def _close(self) -> None:
        for host in self.hosts:
            if host.agent is not None:
                if not host.ended and host.agent.wait(0) is None:
                    host.agent.stop()
                host.agent.close()
            if host.thread is not None:
                host.thread.join(timeout=60)
            host.transport.close()
