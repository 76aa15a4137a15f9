"""Run orchestration: a plan in, a stored session and a stream of events out.

``RunController`` resolves the plan's target (the embedded demo or a PostgreSQL server through
its engine plugin), starts the agent through a transport, stores every event in the session
store the moment it arrives, and yields it to whoever drives the run: the CLI prints it, the
GUI's worker thread hands it to the Live page. Qt-free, so tests and automation use it as is.

A plan's ``[os]`` knobs are applied on the database host before the agent starts and rolled
back however the run ends (:class:`bench_gui.services.tuning.OsRun`); a run whose driver link
is lost keeps them (it may still be going on) and says how to restore them later.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

from bench_gui.core.plan import Plan
from bench_gui.engines.registry import UnknownEngine
from bench_gui.engines.registry import kit_for as engine_kit
from bench_gui.remote.errors import SSHError, UnknownHostKey
from bench_gui.remote.host_access import HostIO, SSHHost
from bench_gui.remote.link_retry import over_cuts
from bench_gui.remote.local_shell import LocalShell
from bench_gui.remote.local_transport import LocalTransport
from bench_gui.remote.secrets import DbPassword
from bench_gui.remote.ssh_transport import SSHTransport, desktop_identity
from bench_gui.remote.transport import AgentRun, Transport
from bench_gui.services.agent_config import ACTIONS, agent_config, plan_password, session_target
from bench_gui.services.host_links import ssh_transport
from bench_gui.services.multi_run import MultiRun
from bench_gui.services.run_dirs import session_run
from bench_gui.services.run_errors import HostKeyUnknown, RunError
from bench_gui.services.run_events import shown, stored_status, vetted
from bench_gui.services.run_inventory import RunInventory
from bench_gui.services.run_knobs import RunKnobs
from bench_gui.services.run_session import RunSession
from bench_gui.services.tuning import LogLine
from bench_gui.store import SessionStore
from bench_gui.store.paths import data_dir
from bench_gui.wire.protocol import Event


class RunController:
    """Drives one agent action for a plan and records it as a session.

    ``events()`` is a blocking generator meant for a worker thread; ``stop()`` may be called
    from any thread and ends the run cleanly, keeping what was measured. The agent runs on
    this machine, or on the plan's SSH driver host (``plan.driver.target``).
    """

    def __init__(
        self,
        plan: Plan,
        store: SessionStore,
        action: str = "run",
        transport: Transport | None = None,
        accept_fingerprint: str | None = None,
    ) -> None:
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}")
        # A run on several driver hosts goes to services.multi_run (one agent per host, one
        # session); a build, check or status of its plan runs on the first host, the primary.
        self._several = action == "run" and len(plan.driver.targets) > 1
        self._multi: MultiRun | None = None
        self._accept = accept_fingerprint
        if self._several and transport is not None:
            raise RunError("driver.targets: a run on several driver hosts takes no transport")
        self.plan = plan
        self.store = store
        self.action = action
        self.session = RunSession(store)
        # Called (from the run's thread) with a short state and a sentence whenever the link
        # to a remote driver host drops or comes back; the GUI shows it as it happens.
        self.on_notice: Callable[[str, str], None] | None = None
        if transport is None and plan.driver.target and not self._several:
            transport = ssh_transport(
                plan.driver.target,
                accept_fingerprint,
                on_link_state=self._link_state,
                on_command=self.session.command,
            )
        self.transport = transport or LocalTransport(data_dir() / "runs")
        self._knobs = RunKnobs(store, plan, self._driver_host())
        self.final: Event | None = None
        self.summary: Event | None = None
        self.errors: list[str] = []
        self._agent: AgentRun | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._reattached = False
        self._password: DbPassword | None = None
        self._inventory = RunInventory(store, plan)

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            if self._agent is not None:
                self._agent.stop()
            if self._multi is not None:
                self._multi.stop()

    @property
    def multi_run(self) -> MultiRun | None:
        """The run on several driver hosts, once it started (None on one host)."""
        return self._multi

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    # -- callbacks from the transport --------------------------------------------------------
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

    @property
    def random_read(self) -> bool:
        return self.plan.workload.kind == "random_read"

    def _record(self, event: Event) -> Event:
        if self.session_id is not None:
            self.store.add_event(self.session_id, event)
            if event.kind == "hello":
                self._inventory.hello(self.session_id, event)
        return event

    # -- running ---------------------------------------------------------------------------
    @property
    def password(self) -> DbPassword:
        """The database password the run sends (looked up once), and where it came from."""
        if self._password is None:
            if self.random_read:  # fio reads a file: no database, no password
                self._password = DbPassword(None, "none: a random_read workload has no database")
            else:
                self._password = plan_password(self.plan)
        return self._password

    def events(self) -> Iterator[Event]:
        if self._several:
            yield from self._multi_events()
            return
        config, env = agent_config(self.plan, self.action, self.password)
        self.session_id = self.store.create_run(
            name=self.plan.name,
            plan=self.plan.to_dict(),
            plan_toml=self.plan.to_toml(),
            target=session_target(self.plan, config),
            engine=config["engine"],
            kind=self.action,
        )
        config["session_id"] = self.session_id
        config["session_name"] = self.plan.name  # for the lock's "who holds it" message
        if self.random_read:
            self.store.add_log(self.session_id, "info", f"data file: {config['file']}")
        elif self.plan.target.kind != "demo":  # where the password came from, for the record
            self.store.add_log(
                self.session_id, "info", f"database password: {self.password.source}"
            )
        if self._stop.is_set():
            self.store.finish_run(self.session_id, "incomplete", "stopped before it started")
            return
        applied = self._apply_os(config, env)
        try:
            for line in applied:
                yield shown(*line)
            with self._lock:
                if self._stop.is_set():
                    self.session.finish("incomplete", "stopped before it started")
                    self._end_os(None)
                    return
                self._agent = self._start(config, env)
            yield from self._follow(self._agent)
        except BaseException as exc:
            self._end_os(exc)
            raise
        for line in self._end_os(None):
            yield shown(*line)

    def _multi_events(self, reattach: int | None = None) -> Iterator[Event]:
        """The run on the plan's several driver hosts (:mod:`bench_gui.services.multi_run`);
        ``reattach``: the session of such a run this desktop lost, followed again."""
        config, env = agent_config(self.plan, self.action, self.password)

        def notice(state: str, detail: str) -> None:
            if self.on_notice is not None:
                self.on_notice(state, detail)

        with self._lock:
            if self._stop.is_set():
                return
            self._multi = MultiRun(
                self.plan, self.session, config, env, self._accept, on_notice=notice
            )
        multi = self._multi
        if reattach is not None:
            self.session_id = reattach
            self._reattached = True
            stream = multi.reattach(reattach)
        else:
            stream = multi.events(session_target(self.plan, config), self.plan.name)
        try:
            yield from stream
        except UnknownHostKey as exc:
            raise HostKeyUnknown(exc) from exc
        finally:
            self.final, self.summary, self.errors = multi.final, multi.summary, multi.errors

    def reattach(self, session_id: int, run_dir: str | None = None) -> Iterator[Event]:
        """Follow a run that is still going on (or finished) on the plan's driver host (on
        every host of a run on several: :meth:`MultiRun.reattach`).

        After the app was closed or crashed mid-run: finds the run directory that belongs to
        the session (this desktop's newest run with that session id, or ``run_dir`` when the
        caller has found it already) and resumes after the last event the store has, so
        nothing is stored twice and nothing is lost.
        """
        if self._several:
            yield from self._multi_events(reattach=session_id)
            return
        if not isinstance(self.transport, SSHTransport):
            raise RunError("only runs on an SSH driver host can be re-attached")
        if not self.store.claims.claim(session_id):  # one writer per run
            raise RunError(f"session {session_id} is followed already, by another bench-gui")
        self.session_id = session_id
        if run_dir is None:
            try:
                listed = over_cuts(self.transport, self.transport.list_runs, cancel=self._stop)
            except SSHError as exc:
                raise RunError(str(exc)) from exc
            # As on several hosts: this desktop's newest run of the session, started after it.
            created = self.store.get_run(session_id).created_at
            found = session_run(listed, session_id, created, desktop_identity())
            if found is None:
                raise RunError(f"no run of session {session_id} on {self.plan.driver.target}")
            run_dir = found.run_dir
        with self._lock:
            try:
                # Exactly the seqs stored, not a high-water mark: a stored stream whose top a
                # forged seq poisoned still gets every real event the spool holds.
                transport, where = self.transport, run_dir
                self._agent = over_cuts(
                    transport,
                    lambda: transport.attach(
                        where,
                        from_seq=self.store.last_seq(session_id),
                        have=self.store.stored_seqs(session_id),
                    ),
                    cancel=self._stop,
                )
            except SSHError as exc:
                raise RunError(str(exc)) from exc
        self._reattached = True
        self.store.add_log(session_id, "info", f"re-attached to {run_dir}")
        self._knobs.resume(session_id)
        try:
            yield from self._follow(self._agent)
        except BaseException as exc:
            self._end_os(exc)
            raise
        for line in self._end_os(None):
            yield shown(*line)

    # -- OS knobs for the run ----------------------------------------------------------------
    def _driver_host(self) -> Callable[[], HostIO] | None:
        transport = self.transport
        if not isinstance(transport, SSHTransport):
            return None
        return lambda: SSHHost(transport.session())

    def _apply_os(self, config: dict[str, Any], env: dict[str, str]) -> list[LogLine]:
        """Apply the plan's ``[os]`` knobs before the agent starts; a failure fails the run
        (the host is left as it was)."""
        assert self.session_id is not None
        if self.action != "run":
            return []
        try:
            # The server's data directory, for the knobs of its devices, where its kit finds
            # it through the admin connection.
            return self._knobs.apply(
                self.session_id,
                conninfo=(
                    str(config.get("admin_conninfo") or "") or None
                    if _data_dir_by_admin(str(config.get("engine") or ""))
                    else None
                ),
                password=env.get("PGPASSWORD"),
            )
        except RunError as exc:
            self.session.finish("failed", str(exc))
            raise

    def _end_os(self, error: BaseException | None) -> list[LogLine]:
        """Roll the knobs back; never raises. A run that lost its driver link may still be
        going on there: its knobs stay, with the way to restore them in the log."""
        lost_link = (
            isinstance(error, RunError)
            and isinstance(error.__cause__, SSHError)
            and self._agent is not None
            and self._knobs.where not in ("", "local")
        )
        keep = "the run may still be going on the driver host" if lost_link else ""
        return self._knobs.end(self.session_id, keep=keep)

    def _start(self, config: dict[str, Any], env: dict[str, str]) -> AgentRun:
        """Start the agent; a failure to start closes the session as failed, with the reason."""
        assert self.session_id is not None
        try:
            agent = self.transport.start_agent(config, env)
        except UnknownHostKey as exc:
            self.session.finish("failed", str(exc))
            raise HostKeyUnknown(exc) from exc
        except (SSHError, OSError) as exc:
            self.session.finish("failed", str(exc))
            raise RunError(str(exc)) from exc
        # The host the agent runs on, whatever the driver: the SSH driver host or this machine.
        transport = self.transport
        self._inventory.take(
            self.session_id,
            lambda: (
                transport.session()
                if isinstance(transport, SSHTransport)
                else LocalShell(on_command=self.session.command)
            ),
            self._knobs.record(),
        )
        return agent

    def _follow(self, agent: AgentRun) -> Iterator[Event]:
        try:
            for raw in agent.events():
                # The one check of every event's payload before it is stored, printed, charted;
                # what it says is kept in the session log and shown, never fatal, not numbered.
                item, warnings = vetted(raw)
                for warning in warnings:
                    yield self.session.log("warning", warning)
                if item is None:
                    continue
                if item.kind == "error":
                    self.errors.append(str(item.get("message", "")))
                elif item.kind == "done":
                    self.final = item
                elif item.kind == "summary":
                    self.summary = item
                yield self._record(item)
        except GeneratorExit:
            # The consumer went away: do not leave the agent running unsupervised.
            agent.stop()
            agent.wait(30) if agent.wait(0) is None else None
            if self.session_id is not None and self.session.status() == "running":
                self.session.finish("incomplete", "the reader stopped following the run")
            raise
        except SSHError as exc:
            # The link could not be restored in time: the run goes on on the driver host and
            # can be re-attached later, so it is not killed.
            message = f"{exc}; the run may still be going on the driver host: re-attach later"
            self.session.finish("incomplete", message)
            raise RunError(message) from exc
        except BaseException:
            agent.kill()
            self.session.finish("incomplete", "the run was interrupted")
            raise
        code = agent.wait(30)
        if self.final is None and self._reattached and self.session.status() != "running":
            return  # re-attached to a run whose end the store already has: nothing was missing
        if self.final is None:
            detail = agent.diagnostics().strip().splitlines()
            reason = detail[-1] if detail else f"exit status {code}"
            message = f"the agent ended without finishing the run: {reason}"
            self.session.finish("incomplete", message)
            raise RunError(message)
        status = str(self.final.get("status", "failed"))
        message = str(self.final.get("message", ""))
        # A failed run keeps its measured steps visible as a partial result.
        has_steps = self.action == "run" and self.session.has_steps()
        self.session.finish(stored_status(status, has_steps), message)
        if status == "failed":
            raise RunError(self.errors[-1] if self.errors else message or "the run failed")


def _data_dir_by_admin(engine: str) -> bool:
    """Whether the engine's kit finds its data directory through the admin connection (an
    engine with no kit, a third party's, does not)."""
    try:
        return engine_kit(engine).data_dir_by_admin
    except UnknownEngine:
        return False
