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
3. **Merges**: the hosts' events become one stream of one session: samples paired by second
   (:mod:`bench_gui.services.multi_samples`: database counters from the primary, driver counts
   summed, each host's figures under ``hosts``), one step start, step summaries merged by
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
   given again. The agents wait at a step's barrier for at most ``--barrier-timeout``.

Qt-free; :class:`bench_gui.services.run.RunController` hands a plan with several driver hosts
here.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from functools import partial
from typing import Any, Final, TypeVar

import paramiko

from bench_gui.core.events import BadEvent, check_event, scrubbed
from bench_gui.core.multi_driver import MergeError, first_users, merge_step
from bench_gui.core.plan import Plan, PlanError, check_driver_hosts_saved
from bench_gui.remote.clock import ClockReading, ClockRefused, check_clocks, measure_clock
from bench_gui.remote.connection import CommandLogEntry, SSHConnection
from bench_gui.remote.deploy import Deployment
from bench_gui.remote.errors import SSHError, UnknownHostKey
from bench_gui.remote.host_access import SSHHost
from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
from bench_gui.remote.inventory import Shell, collect_inventory
from bench_gui.remote.ssh_transport import SSHAgentRun, SSHTransport, desktop_identity
from bench_gui.remote.targets import TARGETS_FILE, load_targets
from bench_gui.remote.transport import BadLine
from bench_gui.services.multi_samples import SampleMerger
from bench_gui.services.run_dirs import session_run
from bench_gui.services.tuning import (
    LogLine,
    OsRun,
    OsRunError,
    os_run_for_plan,
    resumed_os_run,
)
from bench_gui.store import SessionStore
from bench_gui.store.merged_stream import discard_stream
from bench_gui.store.paths import data_dir
from bench_gui.wire.go_file import go_text
from bench_gui.wire.protocol import Event, decode_line, encode_event

log = logging.getLogger(__name__)
_T = TypeVar("_T")

# The start instant of a step: this far ahead of the moment every host was ready (their users
# are connected by then: the lead covers writing the go files and the hosts reading them).
LEAD_S: Final = 1.5
# A step whose hosts began further apart than this (measured: each agent's actual start, in
# this machine's clock) is flagged: its hosts' windows did not cover one span.
START_SPREAD_LIMIT_S: Final = 0.2
# How long a host may wait at a step's barrier: its other hosts' step and ramp-up, at most.
BARRIER_TIMEOUT_S: Final = 600.0
# After a host was lost, how long the others get to stop and say so.
STOP_WAIT_S: Final = 60.0
_STATUS_RANK: Final = {"ok": 0, "stopped": 1, "failed": 2}
FINAL_STATUS: Final = {"ok": "complete", "stopped": "incomplete", "failed": "failed"}


class MultiRunError(RuntimeError):
    """A run on several hosts that could not start or failed; the message is for the user."""


@dataclass(frozen=True)
class _RoleDeployment(Deployment):
    """The deployed agent, started with this host's role and barrier options."""

    extra: tuple[str, ...] = ()

    def command(self, *args: str) -> list[str]:
        return super().command(*args, *self.extra)


class HostTransport(SSHTransport):
    """The SSH transport of one of several driver hosts: its agent gets ``agent_args`` (role,
    barrier) after the usual ones."""

    def __init__(self, *args: Any, agent_args: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.agent_args = tuple(agent_args)

    def deploy(self) -> Deployment:
        base = super().deploy()
        values = {f.name: getattr(base, f.name) for f in fields(base)}
        self.deployment = _RoleDeployment(**values, extra=self.agent_args)
        return self.deployment


def write_go(session: SSHConnection, go_file: str, step: int, start_at: float) -> None:
    """Write a step's go file on a host: a temporary name, renamed over it (never read half)."""
    temporary = f"{go_file}.tmp"
    session.put_bytes(go_text(step, start_at).encode(), temporary, 0o600)
    try:
        session.sftp().posix_rename(temporary, go_file)
    except (OSError, paramiko.SSHException, EOFError) as exc:
        raise SSHError(f"cannot write the go file {go_file} on {session.label}: {exc}") from None


def start_spread(step: int, starts: dict[str, tuple[float, float]]) -> dict[str, Any]:
    """How far apart the hosts really began ``step``: ``starts`` is each host's (measured start
    in this machine's clock, through its measured offset; how late past the barrier's instant),
    from its agent's ``go`` event. A ``flag`` when past :data:`START_SPREAD_LIMIT_S`."""
    times = [t for t, _ in starts.values()]
    spread = max(times) - min(times)
    record: dict[str, Any] = {
        "spread_s": round(spread, 4),
        "late_s": {name: round(late, 4) for name, (_, late) in starts.items()},
        "limit_s": START_SPREAD_LIMIT_S,
    }
    if spread > START_SPREAD_LIMIT_S:
        last = max(starts, key=lambda n: starts[n][0])
        record["flag"] = (
            f"step {step + 1}: the driver hosts began {spread:.3f} s apart (more than"
            f" {START_SPREAD_LIMIT_S:g} s; {last!r} last): their windows did not cover one span"
        )
    return record


def unreadable(inventory: dict[str, Any]) -> str:
    """Why an inventory tells nothing of its host ("" when it does): none of the CPU, the
    memory or the kernel could be read (each command failed; its notes say why)."""
    if any(inventory.get(part) for part in ("cpu", "memory", "kernel")):
        return ""
    notes = [str(n) for n in inventory.get("notes") or []]
    return "; ".join(notes[:3]) or "no CPU, memory or kernel could be read"


def host_inventory(shell: Shell, name: str, role: str) -> tuple[dict[str, Any] | None, str]:
    """A driver host's inventory over its own ``shell`` (the single-host collector), marked
    with the host's name and role: ``(inventory, "")``, or ``(None, a warning naming the
    host)`` when it cannot be read (an SSH failure, or nothing of the host readable)."""
    try:
        inventory = collect_inventory(shell)
    except (SSHError, OSError) as exc:
        return None, f"driver host {name!r}: no inventory: {exc}"
    why = unreadable(inventory)
    if why:
        return None, f"driver host {name!r}: no inventory: {why}"
    inventory["collected_on"] = name
    inventory["role"] = role
    return inventory, ""


@dataclass
class Host:
    """One driver host of the run, as the run follows it."""

    name: str
    index: int
    role: str
    transport: HostTransport
    config: dict[str, Any]
    clock: ClockReading | None = None
    agent: SSHAgentRun | None = None
    thread: threading.Thread | None = None
    ended: bool = False
    final: Event | None = None
    lost: str = ""  # why the host was lost ("" while it is not)
    go_file: str = ""
    ready: set[int] = field(default_factory=set)
    go: dict[int, float] = field(default_factory=dict)  # step -> start_at, the host's clock
    # step -> (when the host's users really began, this machine's clock; how late, s)
    started: dict[int, tuple[float, float]] = field(default_factory=dict)


class MultiRun:
    """One run of a plan over its ``[driver] targets`` (see the module docstring).

    ``events()`` is a blocking generator, as :meth:`RunController.events`; ``stop()`` may be
    called from any thread. ``transport_options``: more keyword arguments for every host's
    :class:`HostTransport` (``max_outage`` is the plan's ``driver.max_outage_s`` unless given).
    """

    def __init__(
        self,
        plan: Plan,
        store: SessionStore,
        config: dict[str, Any],
        env: dict[str, str],
        accept_fingerprint: str | None = None,
        on_notice: Callable[[str, str], None] | None = None,
        lead_s: float = LEAD_S,
        barrier_timeout_s: float = BARRIER_TIMEOUT_S,
        transport_options: dict[str, Any] | None = None,
    ) -> None:
        self.plan = plan
        self.store = store
        self.env = env
        self.lead_s = lead_s
        self.on_notice = on_notice
        self.session_id: int | None = None
        self.final: Event | None = None
        self.summary: Event | None = None
        self.errors: list[str] = []
        self.go_instants: dict[int, float] = {}  # step -> this machine's start instant
        self.steps: list[dict[str, Any]] = []
        self._seq = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._queue: queue.Queue[tuple[Host, Event | BadLine | None, str]] = queue.Queue()
        self._step_ends: dict[int, dict[str, dict[str, Any]]] = {}
        self._step_starts: dict[int, dict[str, Event]] = {}
        self._stopping_since = 0.0
        self.clock_warnings: list[str] = []
        self._reattached = False
        self._source_t: float | None = None  # the newest host event's time, this machine's clock
        names = list(plan.driver.targets)
        self._os: OsRun | None = None
        try:
            saved = load_targets(data_dir() / TARGETS_FILE)
            check_driver_hosts_saved(plan, list(saved))
        except (PlanError, SSHError) as exc:
            raise MultiRunError(str(exc)) from exc
        try:
            splits = plan.driver.step_splits(list(plan.workload.virtual_users))
        except ValueError as exc:
            raise MultiRunError(str(exc)) from exc
        self.splits = splits
        self.primary = names[0]
        self.hosts: list[Host] = []
        for index, name in enumerate(names):
            role = "primary" if index == 0 else "secondary"
            args: tuple[str, ...] = ("--role", role, "--barrier")
            args += ("--barrier-timeout", f"{barrier_timeout_s:g}")
            options: dict[str, Any] = dict(transport_options or {})
            # A host unreachable for longer fails the run naming it (never reconnects for ever).
            options.setdefault("max_outage", plan.driver.max_outage_s)
            transport = HostTransport(
                saved[name],
                agent_args=args,
                accept_fingerprint=accept_fingerprint,
                known_hosts=data_dir() / APP_KNOWN_HOSTS,
                on_link_state=self._link_state(name),
                on_command=self._command,
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

    @property
    def host_summaries(self) -> dict[int, dict[str, dict[str, Any]]]:
        """Each step's summaries as each host gave them (step -> host -> summary)."""
        return self._step_ends

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
            if self.session_id is not None:
                self.store.add_log(self.session_id, "link", f"{state}: {text}")
            if self.on_notice is not None:
                self.on_notice(state, text)

        return report

    def _command(self, entry: CommandLogEntry) -> None:
        if self.session_id is not None:
            self.store.add_log(self.session_id, "command", entry.format())

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
            return self._log("warning", f"unusable merged event, skipped: {exc}")
        if checked.dropped:
            self._log("warning", checked.warning())
        event = checked.event
        if self.session_id is not None:
            self.store.add_event(self.session_id, event)
        return event

    def _log(self, level: str, message: str) -> Event:
        """A line of the runner's own: kept in the session log, and shown (not numbered)."""
        if self.session_id is not None:
            self.store.add_log(self.session_id, level, message)
        return decode_line(encode_event("log", 0, level=level, message=message))

    def _finish(self, status: str, message: str) -> None:
        if self.session_id is not None:
            self.store.finish_run(self.session_id, status, message)

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
        for line in self._apply_os():
            yield self._shown(line)
        for host in self.hosts:
            self._named(host, host.transport.deploy)
        self._start(self.hosts[0])
        self._inventory()
        yield from self._loop()

    def reattach(self, session_id: int) -> Iterator[Event]:
        """Follow again a run this desktop lost (it crashed or was closed) while its agents went
        on: every host's run of the session is found, and their spools merged again from the
        start (the stored stream is replaced: which of each host's events it holds cannot be
        told, and the spools hold them all); the steps still to come are started as usual.

        A host without the session's run, or out of reach, is a :class:`MultiRunError` naming
        it, before anything stored changes.
        """
        run = self.store.get_run(session_id)
        if not self.store.claims.claim(session_id):  # one writer per run
            raise MultiRunError(f"session {session_id} is followed already, by another bench-gui")
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
        self._os = resumed_os_run(
            self.store,
            self.plan,
            session_id,
            lambda: SSHHost(self.hosts[0].transport.session()),
        )
        yield from self._guarded(self._follow_again(run_dirs))

    def _run_dirs(self, session_id: int, created_at: str) -> dict[str, str]:
        """Each host's run directory of the session (its newest, of this desktop)."""
        me = desktop_identity()
        found: dict[str, str] = {}
        for host in self.hosts:
            runs = self._named(host, host.transport.list_runs)
            match = session_run(runs, session_id, created_at, me, target=host.name)
            if match is None:
                raise MultiRunError(
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
        except (SSHError, OSError, MultiRunError) as exc:
            message = str(exc)
            self._abort("failed", message)
            if isinstance(exc, MultiRunError):
                raise
            raise MultiRunError(message) from exc
        except GeneratorExit:
            self._abort("incomplete", "the reader stopped following the run")
            raise
        except BaseException:
            self._abort("incomplete", "the run was interrupted")
            raise
        finally:
            self._close()
            if not ended:  # the lines are in the session log
                self._restore_os()
        for line in self._restore_os():
            yield self._shown(line)

    # -- OS knobs ----------------------------------------------------------------------------
    def _apply_os(self) -> list[LogLine]:
        """The plan's ``[os]`` knobs, on ``os.host`` (a plan with several driver hosts names
        it), before any agent starts; a refusal fails the run with the host as it was."""
        primary = self.hosts[0]
        self._os = os_run_for_plan(
            self.store,
            self.plan,
            self._sid,
            # os.host may be the primary: then over its own link (os_run_for_plan's choice).
            driver_host=lambda: SSHHost(primary.transport.session()),
        )
        if self._os is None:
            return []
        try:
            lines = self._os.apply()
        except OsRunError as exc:
            self._os.close()
            self._os = None
            raise MultiRunError(str(exc)) from exc
        for level, message in lines:
            self.store.add_log(self._sid, level, message)
        return lines

    def _restore_os(self) -> list[LogLine]:
        """Roll the knobs back however the run ended (every host is stopped by then, so none
        still runs under them); stored in the log; never raises."""
        run, self._os = self._os, None
        if run is None:
            return []
        lines = run.end()
        for level, message in lines:
            if self.session_id is not None:
                self.store.add_log(self.session_id, level, message)
        return lines

    @staticmethod
    def _shown(line: LogLine) -> Event:
        """A log line already stored, as the event the reader sees (not numbered)."""
        level, message = line
        return decode_line(encode_event("log", 0, level=level, message=message))

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
                raise MultiRunError(f"driver host {host.name!r}: {exc}") from exc
            readings.append(host.clock)
        try:
            self.clock_warnings = check_clocks(readings, self.plan.driver.max_clock_offset_ms)
        except ClockRefused as exc:
            raise MultiRunError(str(exc)) from exc
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
            self._sid, "info", f"driver host {host.name!r} ({host.role}): {host.agent.run_dir}"
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
            raise MultiRunError(f"driver host {host.name!r}: {exc}") from exc

    @property
    def _sid(self) -> int:
        assert self.session_id is not None
        return self.session_id

    def _inventory(self) -> None:
        """Every host's inventory, each over its own SSH connection, as on one host: the
        primary's is the session's inventory, and every host's is kept in it under
        ``driver_hosts`` (host name -> inventory). A host whose inventory cannot be read is
        named in a warning of the session log; the run goes on without it."""
        per_host: dict[str, dict[str, Any]] = {}
        for host in self.hosts:
            try:
                inventory, warning = host_inventory(host.transport.session(), host.name, host.role)
            except (SSHError, OSError) as exc:
                inventory, warning = None, f"driver host {host.name!r}: no inventory: {exc}"
            if inventory is None:
                self.store.add_log(self._sid, "warning", warning)
            else:
                per_host[host.name] = inventory
        primary = per_host.get(self.primary)
        if primary is not None:
            self.store.set_server_info(self._sid, "", {}, {**primary, "driver_hosts": per_host})
        elif per_host:
            self.store.update_inventory(self._sid, {"driver_hosts": per_host})
        if self._os is not None and self._os.result is not None:
            # The knobs the hosts' hellos reflect.
            self.store.update_inventory(self._sid, {"os_tuning": self._os.record()})

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
            if isinstance(item, BadLine):
                text = scrubbed(item.text[:200])
                yield self._log(
                    "warning",
                    f"driver host {host.name!r}: unreadable agent output ({item.error}): {text}",
                )
                continue
            try:
                checked = check_event(item)
            except BadEvent as exc:
                yield self._log(
                    "warning", f"driver host {host.name!r}: unusable agent event, skipped: {exc}"
                )
                continue
            if checked.dropped:
                yield self._log("warning", f"driver host {host.name!r}: {checked.warning()}")
            offset = host.clock.offset_ms / 1000.0 if host.clock is not None else 0.0
            self._source_t = checked.event.t - offset
            yield from self._handle(host, checked.event)
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
                yield from self._primary_hello(event)
            else:
                self.store.add_log(
                    self._sid,
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
            yield from self._step(host, event)
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

    def _primary_hello(self, hello: Event) -> Iterator[Event]:
        record = {
            "engine": hello.get("engine"),
            "version": hello.get("server"),
            "version_num": hello.get("server_version_num"),
            "data_directory": hello.get("data_directory"),
        }
        self.store.update_inventory(self._sid, {"database": record})
        # The primary is ready for its schema: the others may start now.
        return iter(())

    def _barrier(self, host: Host, event: Event) -> Iterator[Event]:
        step = event.get("step")
        if not isinstance(step, int):
            return
        stage = event.get("stage")
        if stage == "go":
            start_at = event.get("start_at")
            if isinstance(start_at, int | float):
                host.go[step] = float(start_at)
            started, late = event.get("started_at"), event.get("late_s")
            if isinstance(started, int | float) and isinstance(late, int | float):
                offset = host.clock.offset_ms / 1000.0 if host.clock is not None else 0.0
                host.started[step] = (float(started) - offset, float(late))
            yield self._emit("progress", event.t, **{**event.data, "driver_host": host.name})
            return
        if stage != "ready":
            return
        host.ready.add(step)
        host.go_file = str(event.get("go_file") or host.go_file)
        if step == 0 and host.role == "primary":
            # The schema is prepared: start the secondaries (each deployed already).
            for other in self.hosts[1:]:
                if other.agent is None and not self._stop.is_set():
                    self._start(other)
        if all(step in h.ready for h in self.hosts):
            yield self._go(step)

    def _go(self, step: int) -> Event:
        if self._reattached:
            given = self._given(step)
            if given is not None:
                return given
        instant = time.time() + self.lead_s
        self.go_instants[step] = instant
        for host in self.hosts:
            assert host.clock is not None
            self._write_go(host, step, host.clock.to_host(instant))
        return self._log(
            "info",
            f"step {step + 1}: every driver host ready, start at {instant:.3f}"
            f" ({', '.join(f'{h.name}: {h.clock.describe()}' for h in self.hosts if h.clock)})",
        )

    def _given(self, step: int) -> Event | None:
        """On a re-attached run, the start of ``step`` if the lost desktop gave it already (read
        back from the hosts' go files): it is not given again. A host it had not reached yet
        gets the same instant."""
        # Each host's go file: (the step it gives, its start instant in the host's clock).
        read = {h.name: self._read_go(h) or (-1, 0.0) for h in self.hosts}
        have = [h for h in self.hosts if read[h.name][0] >= step]
        if not have:
            return None
        exact = [h for h in have if read[h.name][0] == step]
        if exact:
            first = exact[0]
            assert first.clock is not None
            instant = read[first.name][1] - first.clock.offset_ms / 1000.0
            self.go_instants[step] = instant
        else:  # every host that has one is past it: the others cannot still wait for it
            instant = time.time() + self.lead_s
        late = [h for h in self.hosts if h not in have]
        for host in late:
            assert host.clock is not None
            self._write_go(host, step, host.clock.to_host(instant))
        sent = f"; sent now to {', '.join(repr(h.name) for h in late)}" if late else ""
        return self._log("info", f"step {step + 1}: started before the re-attach{sent}")

    def _read_go(self, host: Host) -> tuple[int, float] | None:
        """The step and start instant (the host's clock) in a host's go file; None if none."""
        if not host.go_file:
            return None
        try:
            raw = host.transport.session().read_bytes(host.go_file)
            data = json.loads(raw.decode("utf-8"))
        except FileNotFoundError:
            return None
        except (ValueError, UnicodeDecodeError):
            return None  # never half a file (it is renamed over), so not a go file at all
        if not isinstance(data, dict):
            return None
        step, start_at = data.get("step"), data.get("start_at")
        if isinstance(step, int) and isinstance(start_at, int | float):
            return step, float(start_at)
        return None

    def _write_go(self, host: Host, step: int, start_at: float) -> None:
        """The go file on one host; a link that was cut is reopened once (a host whose link
        cannot be had is lost: a :class:`MultiRunError` naming it, out of the loop)."""
        try:
            write_go(host.transport.session(), host.go_file, step, start_at)
        except SSHError:
            host.transport.close()  # a session the cut left for dead: a new one
            try:
                write_go(host.transport.session(), host.go_file, step, start_at)
            except SSHError as exc:
                raise MultiRunError(
                    f"driver host {host.name!r} was lost at the start of step {step + 1}: its"
                    f" start signal could not be written: {exc}"
                ) from exc

    def _step(self, host: Host, event: Event) -> Iterator[Event]:
        step = event.get("step")
        if not isinstance(step, int):
            return
        if event.get("phase") == "start":
            starts = self._step_starts.setdefault(step, {})
            starts[host.name] = event
            if len(starts) == len(self.hosts):
                data = dict(self._step_starts[step][self.primary].data)
                data["vus"] = sum(int(e.get("vus") or 0) for e in starts.values())
                # In the run's host order (primary first), not the order the starts came in.
                data["driver_hosts"] = {h.name: starts[h.name].get("vus") for h in self.hosts}
                yield self._emit("step", **data)
            return
        summary = event.get("summary")
        if not isinstance(summary, dict):
            return
        ends = self._step_ends.setdefault(step, {})
        ends[host.name] = summary
        if len(ends) < len(self.hosts):
            return
        for sample in self.merger.step_ended(step):
            yield self._emit("sample", **sample)
        try:
            merged = merge_step([(h.name, ends[h.name]) for h in self.hosts], self.primary)
        except MergeError as exc:
            self.errors.append(str(exc))
            yield self._emit("error", message=f"step {step + 1}: {exc}", fatal=False)
            return
        for warning in merged.warnings:
            yield self._emit("log", level="warning", message=warning)
        start = self.start_spread(step)
        if start is not None:
            merged.summary["start"] = start
            if start.get("flag"):
                merged.summary["start_flag"] = start["flag"]
                yield self._emit("log", level="warning", message=start["flag"])
        self.steps.append(merged.summary)
        yield self._emit(
            "step", phase="end", step=step, vus=merged.summary["vus"], summary=merged.summary
        )

    def start_spread(self, step: int) -> dict[str, Any] | None:
        """How the hosts really began ``step`` (:func:`start_spread`); None unless every host
        said."""
        starts = {h.name: h.started[step] for h in self.hosts if step in h.started}
        if len(starts) < len(self.hosts):
            return None
        return start_spread(step, starts)

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
        self.summary = self._emit("summary", steps=self.steps, status=status)
        yield self.summary
        self.final = self._emit("done", status=status, message=message)
        yield self.final
        stored = FINAL_STATUS.get(status, "failed")
        if stored == "failed" and self.steps:
            stored = "incomplete"  # the finished steps stay visible as a partial result
        self._finish(stored, message)
        if status == "failed":
            raise MultiRunError(
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
            if (
                self.session_id is not None
                and self.store.get_run(self.session_id).status == "running"
            ):
                if status == "failed" and self.steps:
                    status = "incomplete"  # the finished steps stay visible, as in _end
                self._finish(status, message)
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
