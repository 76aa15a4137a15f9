"""Run orchestration: a plan in, a stored session and a stream of events out, on one driver
host or several (one host is N = 1 of the same path).

``RunController`` resolves the plan's target (the embedded demo or a database server through
its engine kit), starts the agent of every driver host through its transport (this machine,
the plan's SSH driver target, or each of its ``[driver] targets``), follows each on its own
thread (:mod:`bench_gui.services.host_follow`), stores every event in the session store the
moment it arrives (:mod:`bench_gui.services.run_stream`: the agent's own, or the hosts' merged),
and yields it to whoever drives the run: the CLI prints it, the GUI's worker thread hands it to
the Live page. Qt-free, so tests and automation use it as is. What differs between one host and
several is data (:mod:`bench_gui.services.run_policy`).

A run on several hosts measures each host's clock over its own SSH link first and refuses a
host past the plan's ``driver.max_clock_offset_ms`` (:mod:`bench_gui.remote.clock`), deploys
the agent on every host, starts the primary (the first host: it prepares the schema) and the
secondaries once the primary is ready for the first step. A host whose agent ends without
finishing, or whose link cannot be restored within ``driver.max_outage_s``, fails the run
naming that host; the others are stopped and what they measured is kept.

A plan's ``[os]`` knobs are applied on the database host before the agent starts and rolled
back however the run ends (:class:`bench_gui.services.tuning.OsRun`); a run on one host whose
driver link is lost keeps them (it may still be going on) and says how to restore them later.

:meth:`RunController.reattach` follows again a run this desktop lost (it crashed or was closed)
while its agents went on: on one host after the last event stored; on several, every host's
spool merged again from the start (the stored stream is replaced, :mod:`bench_gui.store.
merged_stream`), a step whose start the lost desktop had given not given again.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, Final

from bench_gui.core.plan_model import Plan
from bench_gui.engines.registry import UnknownEngine
from bench_gui.engines.registry import kit_for as engine_kit
from bench_gui.remote.clock import ClockReading
from bench_gui.remote.errors import SSHError, UnknownHostKey
from bench_gui.remote.host_access import SSHHost
from bench_gui.remote.link_retry import over_cuts
from bench_gui.remote.local_shell import LocalShell
from bench_gui.remote.local_transport import LocalTransport
from bench_gui.remote.secrets import DbPassword
from bench_gui.remote.ssh_transport import SSHTransport
from bench_gui.remote.transport import AgentRun, Transport
from bench_gui.services.agent_config import ACTIONS, agent_config, plan_password, session_target
from bench_gui.services.host_follow import (
    Inbox,
    follow,
    host_run_dirs,
    measure_clocks,
    named,
    one_host,
    several_hosts,
)
from bench_gui.services.host_links import Host, ssh_transport
from bench_gui.services.run_errors import HostKeyUnknown, RunError
from bench_gui.services.run_events import shown, vetted
from bench_gui.services.run_inventory import RunInventory
from bench_gui.services.run_knobs import RunKnobs
from bench_gui.services.run_policy import RunPolicy, run_policy
from bench_gui.services.run_session import RunSession
from bench_gui.services.run_stream import AgentStream, MergedStream
from bench_gui.services.step_barrier import BARRIER_TIMEOUT_S, LEAD_S
from bench_gui.services.tuning import LogLine
from bench_gui.store import SessionStore
from bench_gui.store.merged_stream import discard_stream
from bench_gui.store.paths import data_dir
from bench_gui.wire.protocol import Event
from bench_gui.workloads.base import kit_for
from bench_gui.workloads.contract import WorkloadKit

log = logging.getLogger(__name__)

# After a host was lost, how long the others get to stop and say so.
STOP_WAIT_S: Final = 60.0
# Seconds an agent that said done is given to be gone before its link closes.
CLOSE_WAIT_S: Final = 10.0


class RunController:
    """Drives one agent action for a plan, on its one driver host or several, and records it as
    one session.

    ``events()`` is a blocking generator meant for a worker thread; ``stop()`` may be called
    from any thread and ends the run cleanly, keeping what was measured. The agent runs on
    this machine, on the plan's SSH driver host (``plan.driver.target``), or on each of its
    ``[driver] targets`` (a run only; a build, check or status runs on the first).
    ``lead_s``, ``barrier_timeout_s``, ``transport_options``: a run on several hosts' step
    barrier and every host's :class:`~bench_gui.services.host_links.HostTransport` options.
    """

    def __init__(
        self,
        plan: Plan,
        store: SessionStore,
        action: str = "run",
        transport: Transport | None = None,
        accept_fingerprint: str | None = None,
        lead_s: float = LEAD_S,
        barrier_timeout_s: float = BARRIER_TIMEOUT_S,
        transport_options: dict[str, Any] | None = None,
    ) -> None:
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}")
        self.policy: RunPolicy = run_policy(plan, action)
        if self.policy.merged and transport is not None:
            raise RunError("driver.targets: a run on several driver hosts takes no transport")
        self.plan = plan
        self.store = store
        self.action = action
        self.session = RunSession(store)
        # Called (from the run's thread) with a short state and a sentence whenever the link
        # to a remote driver host drops or comes back; the GUI shows it as it happens.
        self.on_notice: Callable[[str, str], None] | None = None
        self._accept = accept_fingerprint
        self._lead_s = lead_s
        self._barrier_timeout_s = barrier_timeout_s
        self._transport_options = transport_options
        if transport is None and plan.driver.target and not self.policy.merged:
            transport = ssh_transport(
                plan.driver.target,
                accept_fingerprint,
                on_link_state=self._link_state,
                on_command=self.session.command,
            )
        # The one host's transport (None on several: each host has its own).
        self.transport: Transport | None = None
        if not self.policy.merged:
            self.transport = transport or LocalTransport(data_dir() / "runs")
        self.hosts: list[Host] = []
        self.splits: list[list[int]] = []  # each step's users per host (on several)
        self.stream: AgentStream | MergedStream | None = None
        self.errors: list[str] = []
        self.clock_warnings: list[str] = []
        self._env: dict[str, str] = {}
        self._inbox: Inbox = queue.Queue()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._stopping_since = 0.0
        self._link_lost = False  # a lost link kept the run going on its host
        self._password: DbPassword | None = None
        self._inventory = RunInventory(store, plan)
        self._knobs = RunKnobs(store, plan, None)

    # -- control -------------------------------------------------------------------------------
    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            for host in self.hosts:
                if host.agent is not None and not host.ended:
                    host.agent.stop()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    @property
    def agent(self) -> AgentRun | None:
        """The (first) host's agent, once started."""
        return self.hosts[0].agent if self.hosts else None

    @property
    def final(self) -> Event | None:
        """The run's ``done``, once it came."""
        return self.stream.final if self.stream is not None else None

    @property
    def summary(self) -> Event | None:
        return self.stream.summary if self.stream is not None else None

    @property
    def session_id(self) -> int | None:
        """The run's stored session, once created (or re-attached)."""
        return self.session.id

    @session_id.setter
    def session_id(self, value: int | None) -> None:
        self.session.id = value

    def _link_state(self, state: str, detail: str) -> None:
        self.session.link(state, detail)
        if self.on_notice is not None:
            self.on_notice(state, detail)

    def _host_link_state(self, name: str) -> Callable[[str, str], None]:
        return lambda state, detail: self._link_state(state, f"driver host {name!r}: {detail}")

    @property
    def kit(self) -> WorkloadKit:
        """The plan's workload kit."""
        return kit_for(self.plan.workload.kind)

    @property
    def password(self) -> DbPassword:
        """The database password the run sends (looked up once), and where it came from."""
        if self._password is None:
            if not self.kit.uses_database:  # fio reads a file: no database, no password
                self._password = DbPassword(
                    None, f"none: a {self.kit.name} workload has no database"
                )
            else:
                self._password = plan_password(self.plan)
        return self._password

    # -- the hosts -------------------------------------------------------------------------------
    def _setup(self, config: dict[str, Any], env: dict[str, str]) -> None:
        """The run's hosts, its stream and its knobs' host, for ``config`` and ``env``."""
        self._env = env
        if self.policy.merged:
            self.hosts, self.splits = several_hosts(
                self.plan,
                config,
                self._accept,
                self._host_link_state,
                self.session.command,
                self._barrier_timeout_s,
                self._transport_options,
            )
            self.stream = MergedStream(
                self.session,
                self.hosts,
                self.errors,
                self._lead_s,
                start=self._start,
                stopped=self._stop.is_set,
            )
        else:
            assert self.transport is not None
            self.hosts = [one_host(self.plan, self.transport, config)]
            self.stream = AgentStream(
                self.session, self._inventory, self.hosts[0], self.errors, self.action
            )
        # os.host may be the (primary) driver host: then over its own link.
        primary = self.hosts[0].transport
        if isinstance(primary, SSHTransport):
            self._knobs = RunKnobs(self.store, self.plan, lambda: SSHHost(primary.session()))

    def _clocks(self) -> list[ClockReading]:
        """Every host's clock against this machine's; refused past the plan's limit."""
        readings, self.clock_warnings = measure_clocks(
            self.hosts, self.plan.driver.max_clock_offset_ms
        )
        return readings

    def _log_clocks(self, readings: list[ClockReading]) -> None:
        for reading in readings:
            self.store.add_log(
                self.session.sid,
                "info",
                f"driver host {reading.host!r}: clock {reading.describe()}",
            )

    # -- running ---------------------------------------------------------------------------------
    def events(self) -> Iterator[Event]:
        config, env = agent_config(self.plan, self.action, self.password)
        self._setup(config, env)
        readings = self._clocks() if self.policy.clocks_first else []
        target = session_target(self.plan, config)
        if self.policy.merged:
            target["driver_hosts"] = [
                {"host": h.name, "role": h.role, "clock": h.clock.to_dict() if h.clock else None}
                for h in self.hosts
            ]
        self.session_id = self.store.create_run(
            name=self.plan.name,
            plan=self.plan.to_dict(),
            plan_toml=self.plan.to_toml(),
            target=target,
            engine=config["engine"],
            kind=self.action,
        )
        self._log_clocks(readings)
        for host in self.hosts:
            host.config["session_id"] = self.session_id
            host.config["session_name"] = self.plan.name  # for the lock's "who holds it"
        if not self.kit.uses_database:
            self.store.add_log(self.session_id, "info", f"data file: {config['file']}")
        elif self.plan.target.kind != "demo":  # where the password came from, for the record
            self.store.add_log(
                self.session_id, "info", f"database password: {self.password.source}"
            )
        if self._stop.is_set():
            self.store.finish_run(self.session_id, "incomplete", "stopped before it started")
            return
        yield from self._guarded(self._first_start(config, env))

    def _first_start(self, config: dict[str, Any], env: dict[str, str]) -> Iterator[Event]:
        for line in self._apply_os(config, env):
            yield shown(*line)
        if self.policy.merged:
            for host in self.hosts:
                named(host, host.ssh.deploy)
        if not self._start(self.hosts[0]):
            self.session.finish("incomplete", "stopped before it started")
            return
        if self.policy.merged:
            self._inventory.take_hosts(self.session.sid, self.hosts, self._knobs.record())
        else:
            self._inventory.take(self.session.sid, self._shell(), self._knobs.record())
        yield from self._loop()

    def _shell(self) -> Callable[[], Any]:
        """Opens the one host the agent runs on: the SSH driver host or this machine."""
        transport = self.hosts[0].transport
        if isinstance(transport, SSHTransport):
            return transport.session
        return lambda: LocalShell(on_command=self.session.command)

    def _apply_os(self, config: dict[str, Any], env: dict[str, str]) -> list[LogLine]:
        """Apply the plan's ``[os]`` knobs before any agent starts; a refusal fails the run
        (the host is left as it was)."""
        if self.action != "run":
            return []
        # The PostgreSQL server's data directory, for the knobs of its devices.
        conninfo = str(config.get("admin_conninfo") or "") or None
        return self._knobs.apply(
            self.session.sid,
            conninfo=conninfo if _data_dir_by_admin(str(config.get("engine") or "")) else None,
            password=env.get("PGPASSWORD"),
        )

    def _start(self, host: Host, attach: Callable[[], AgentRun] | None = None) -> bool:
        """Start the host's agent (or ``attach`` to the one already running) and follow it;
        False when the run was stopped before its agent started."""
        with self._lock:
            if self._stop.is_set() and attach is None:
                return False
            host.agent = named(host, attach or partial(self._launch, host))
            if self._stop.is_set():
                host.agent.stop()  # re-attached after a stop: that run is to end
        if self.policy.merged:
            where = getattr(host.agent, "run_dir", "")
            self.store.add_log(
                self.session.sid, "info", f"driver host {host.name!r} ({host.role}): {where}"
            )
        follow(host, self._inbox)
        return True

    def _launch(self, host: Host) -> AgentRun:
        return host.transport.start_agent(host.config, self._env)

    # -- re-attaching ------------------------------------------------------------------------------
    def reattach(self, session_id: int, run_dir: str | None = None) -> Iterator[Event]:
        """Follow a run that is still going on (or finished) on the plan's driver host, or on
        every host of a run on several (see the module docstring).

        After the app was closed or crashed mid-run: finds the run directory that belongs to
        the session on each host (this desktop's newest run with that session id, or
        ``run_dir`` on one host when the caller has found it already). A host without the
        session's run, or out of reach, is a :class:`RunError` naming it, before anything
        stored changes.
        """
        if self.policy.merged:  # the steps still to come are started as usual
            self._setup(*agent_config(self.plan, self.action, self.password))
        else:
            if not isinstance(self.transport, SSHTransport):
                raise RunError("only runs on an SSH driver host can be re-attached")
            self._setup({}, {})
        run = self.store.get_run(session_id)
        if not self.store.claims.claim(session_id):  # one writer per run
            raise RunError(f"session {session_id} is followed already, by another bench-gui")
        self.session_id = session_id
        assert self.stream is not None
        self.stream.reattached = True
        try:
            readings = self._clocks() if self.policy.clocks_first else []
            if run_dir is not None and not self.policy.merged:  # found by the caller already
                run_dirs = {self.hosts[0].name: run_dir}
            else:
                merged, stop = self.policy.merged, self._stop
                run_dirs = host_run_dirs(self.hosts, session_id, run.created_at, merged, stop)
        except BaseException:
            self.store.claims.release(session_id)
            raise
        self._log_clocks(readings)
        if isinstance(self.stream, MergedStream):
            # Which of each host's events the stored stream holds cannot be told, and the
            # spools hold them all: the stream is replaced.
            replaced = discard_stream(self.store, session_id)
            self.store.add_log(
                session_id,
                "info",
                f"re-attached to the run on {len(self.hosts)} driver hosts; their spools are"
                f" merged again from the start ({replaced:,} stored rows replaced)",
            )
            self.stream.barrier.reattached = True
        self._knobs.resume(session_id)
        yield from self._guarded(self._follow_again(run_dirs))

    def _follow_again(self, run_dirs: dict[str, str]) -> Iterator[Event]:
        for host in self.hosts:
            self._start(host, self._attach(host, run_dirs[host.name]))
            if not self.policy.merged:
                self.store.add_log(
                    self.session.sid, "info", f"re-attached to {run_dirs[host.name]}"
                )
        yield from self._loop()

    def _attach(self, host: Host, run_dir: str) -> Callable[[], AgentRun]:
        """Attaches to the host's run: merged again from its first event, or after exactly
        the seqs stored (not a high-water mark: a stored stream whose top a forged seq poisoned
        still gets every real event the spool holds)."""
        ssh = host.ssh
        if self.policy.merged:
            return partial(ssh.attach, run_dir, from_seq=0)
        sid = self.session.sid

        def attach() -> AgentRun:
            return over_cuts(
                ssh,
                lambda: ssh.attach(
                    run_dir, from_seq=self.store.last_seq(sid), have=self.store.stored_seqs(sid)
                ),
                cancel=self._stop,
            )

        return attach

    # -- following -----------------------------------------------------------------------------
    def _loop(self) -> Iterator[Event]:
        assert self.stream is not None
        failure = ""
        # Until every started host has ended (the secondaries start from within the loop, on
        # the primary's first ready, so none is missed).
        while any(h.agent is not None and not h.ended for h in self.hosts):
            if failure and time.monotonic() - self._stopping_since > STOP_WAIT_S:
                break
            try:
                host, item = self._inbox.get(timeout=1.0)
            except queue.Empty:
                continue
            if item is None:
                yield from self._host_ended(host)
                ended_badly = host.final is not None and host.final.get("status") != "ok"
                others = len(self.hosts) > 1
                if ended_badly and others and not failure and not self._stop.is_set():
                    # One host gave up (its own error): the others would wait at the next
                    # barrier for it; they are stopped now.
                    self._stop_others(host)
                if host.lost and not failure:
                    failure = host.lost
                    self._stop_others(host)
                continue
            event, warnings = vetted(item, prefix=host.said)
            for warning in warnings:
                yield self.session.log("warning", warning)
            if event is not None:
                yield from self.stream.handle(host, event)
        yield from self.stream.end(failure)

    def _host_ended(self, host: Host) -> Iterator[Event]:
        """Following ``host`` ended: its agent did, or its link or its follower failed."""
        assert self.stream is not None
        host.ended = True
        if host.error is not None and self.policy.lost_host == "keep":
            if isinstance(host.error, SSHError):
                # The link could not be restored in time: the run goes on on the driver host
                # and can be re-attached later, so it is not killed.
                message = (
                    f"{host.error}; the run may still be going on the driver host: re-attach later"
                )
                self._link_lost = True
                self.session.finish("incomplete", message)
                raise RunError(message) from host.error
            if host.agent is not None:
                host.agent.kill()
            raise host.error
        yield from self.stream.host_ended(host)

    def _stop_others(self, lost: Host) -> None:
        self._stop.set()
        self._stopping_since = time.monotonic()
        with self._lock:
            for host in self.hosts:
                if host is not lost and host.agent is not None and not host.ended:
                    host.agent.stop()

    def _guarded(self, body: Iterator[Event]) -> Iterator[Event]:
        """``body``'s events; however it ends, the hosts are stopped or let go and the plan's
        OS knobs restored (kept when a lost link left the run going on its host), and a
        failure closes the session with what went wrong."""
        ended = False
        try:
            yield from body
            ended = True
        except UnknownHostKey as exc:
            self._abort("failed", str(exc))
            raise HostKeyUnknown(exc) from exc
        except (SSHError, OSError, RunError) as exc:
            message = str(exc)
            self._abort("failed", message)
            if isinstance(exc, RunError):
                raise
            raise RunError(message) from exc
        except GeneratorExit:
            # The consumer went away: do not leave the agents running unsupervised.
            self._abort("incomplete", "the reader stopped following the run")
            raise
        except BaseException:
            # Interrupted here (Ctrl-C...): the agents are ended now, not left to finish.
            self._abort("incomplete", "the run was interrupted", kill=True)
            raise
        finally:
            self._close()
            if not ended:  # the lines are in the session log
                self._end_os()
        for line in self._end_os():
            yield shown(*line)

    def _end_os(self) -> list[LogLine]:
        """Roll the knobs back; never raises. A run that lost its driver link may still be
        going on there: its knobs stay, with the way to restore them in the log."""
        kept = self._link_lost and self._knobs.where not in ("", "local")
        keep = "the run may still be going on the driver host" if kept else ""
        return self._knobs.end(self.session_id, keep=keep)

    def _abort(self, status: str, message: str, kill: bool = False) -> None:
        """Stop (or ``kill``) every host's agent and close the session (never raises)."""
        try:
            self._stop.set()
            with self._lock:
                for host in self.hosts:
                    if host.agent is not None and not host.ended:
                        host.agent.kill() if kill else host.agent.stop()
            if self.session_id is not None and self.session.status() == "running":
                steps = self.stream.steps if self.stream is not None else []
                if status == "failed" and steps:
                    status = "incomplete"  # the finished steps stay visible, as at the end
                self.session.finish(status, message)
        except Exception:  # on the way out of another error
            log.exception("stopping the driver hosts")

    def _close(self) -> None:
        """Let every host go: an agent still running is stopped (one whose link was lost goes
        on there), its follower joined, its link closed."""
        for host in self.hosts:
            agent = host.agent
            if agent is not None:
                if not host.ended and agent.wait(0) is None:
                    agent.stop()
                elif host.final is not None:
                    # It said done: its process is ending (its spool written, its group with
                    # it); seen gone before its link closes, so none of it runs on unwatched.
                    agent.wait(CLOSE_WAIT_S)
                close = getattr(agent, "close", None)
                if close is not None:
                    close()
            if host.thread is not None:
                host.thread.join(timeout=60)
            if isinstance(host.transport, SSHTransport):
                host.transport.close()


def _data_dir_by_admin(engine: str) -> bool:
    """Whether the engine's kit finds its data directory through the admin connection (an
    engine with no kit, a third party's, does not)."""
    try:
        return engine_kit(engine).data_dir_by_admin
    except UnknownEngine:
        return False
