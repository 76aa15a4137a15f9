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
from dataclasses import asdict
from typing import Any

from bench_gui.core.crosscheck import nopm_doubt
from bench_gui.core.engine import EngineNotFound, get_engine
from bench_gui.core.events import BadEvent, check_event, scrubbed
from bench_gui.core.plan import Plan
from bench_gui.core.power import MeterNotFound, agent_power_config
from bench_gui.remote.connection import CommandLogEntry
from bench_gui.remote.demo import DemoUnavailable, start_demo
from bench_gui.remote.errors import SecretStoreError, SSHError, UnknownHostKey
from bench_gui.remote.host_access import HostIO, SSHHost
from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
from bench_gui.remote.inventory import Shell, collect_inventory, data_directory_storage
from bench_gui.remote.link_retry import over_cuts
from bench_gui.remote.local_shell import LocalShell
from bench_gui.remote.local_transport import LocalTransport
from bench_gui.remote.secrets import DbPassword, database_password
from bench_gui.remote.ssh_transport import SSHTransport, desktop_identity
from bench_gui.remote.storage import session_layout
from bench_gui.remote.targets import TARGETS_FILE, get_target
from bench_gui.remote.transport import AgentRun, BadLine, Transport
from bench_gui.services.multi_run import MultiRun, MultiRunError
from bench_gui.services.tuning import (
    LogLine,
    OsRun,
    OsRunError,
    os_run_for_plan,
    resumed_os_run,
)
from bench_gui.store import SessionStore
from bench_gui.store.paths import data_dir
from bench_gui.wire.fio_sizes import RANDOM_READ_FIELDS
from bench_gui.wire.protocol import Event, decode_line, encode_event

ACTIONS = ("run", "build", "check", "status")
# How a run's final agent status maps onto a stored session's status.
FINAL_STATUS = {"ok": "complete", "stopped": "incomplete", "failed": "failed"}


class RunError(RuntimeError):
    """A run that could not start or ended in failure; the message is meant for the user."""


class HostKeyUnknown(RunError):
    """The driver host's key is not known yet: show its fingerprint, let the user accept it."""

    def __init__(self, error: UnknownHostKey) -> None:
        super().__init__(str(error))
        self.host = error.host
        self.key_type = error.key_type
        self.fingerprint = error.fingerprint_sha256


def ssh_transport(
    name: str,
    accept_fingerprint: str | None = None,
    on_link_state: Callable[[str, str], None] | None = None,
    on_command: Callable[[CommandLogEntry], None] | None = None,
) -> SSHTransport:
    """The transport to a saved SSH target, with the app's own known-hosts file."""
    try:
        target = get_target(name, data_dir() / TARGETS_FILE)
    except SSHError as exc:
        raise RunError(str(exc)) from exc
    return SSHTransport(
        target,
        accept_fingerprint=accept_fingerprint,
        known_hosts=data_dir() / APP_KNOWN_HOSTS,
        on_link_state=on_link_state,
        on_command=on_command,
    )


def plan_password(plan: Plan) -> DbPassword:
    """The database password a run of the plan sends to its agent, and where it came from."""
    try:
        return database_password(plan.target)
    except SecretStoreError as exc:
        raise RunError(str(exc)) from exc


def agent_config(
    plan: Plan, action: str, password: DbPassword | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The agent's JSON configuration and the secret environment for a plan (``password``:
    the one :func:`plan_password` found, else looked up here)."""
    if plan.workload.kind == "random_read":
        return random_read_config(plan, action)
    target = plan.target
    env: dict[str, str] = {}
    if target.kind == "demo":
        try:
            demo = start_demo(data_dir() / "demo-postgres")
        except DemoUnavailable as exc:
            raise RunError(str(exc)) from exc
        conninfo = demo.conninfo(target.database)
        admin = demo.conninfo(target.admin_database)
        engine_name = "postgresql"
    else:
        engine_name = target.kind
        try:
            engine = get_engine(engine_name)
        except EngineNotFound as exc:
            raise RunError(str(exc)) from exc
        conninfo = engine.conninfo(target, target.database)
        admin = engine.conninfo(target, target.admin_database)
        found = password if password is not None else plan_password(plan)
        if found.value is not None:
            # Where the engine's agent side reads it: libpq's PGPASSWORD, or the ODBC
            # engines' BENCH_GUI_DB_PASSWORD (never in the conninfo, which is echoed).
            env[getattr(engine, "password_env", "PGPASSWORD")] = found.value
    wl = plan.workload
    config = {
        "action": action,
        "engine": engine_name,
        "conninfo": conninfo,
        "admin_conninfo": admin,
        "database": target.database,
        **{k: v for k, v in asdict(wl).items() if k not in RANDOM_READ_FIELDS},
    }
    if action == "run":
        # Host metrics and the power meter; a BMC password (keyring) goes into env only.
        power = plan.power
        try:
            config["power"], power_env = agent_power_config(
                power.meter, power.options, power.idle_s, power.interval_s
            )
        except (MeterNotFound, ValueError) as exc:
            raise RunError(str(exc)) from exc
        config["monitor"] = asdict(plan.monitor)
        env.update(power_env)
    return config, env


# Where a random-read plan without a file puts it: on the storage prepared for the host.
DEFAULT_DATA_FILE = "bench-gui-random-read.dat"


def random_read_file(plan: Plan) -> str:
    """The data file of a random-read plan: its own ``workload.file``, else a file on the
    mount point of the storage bench-gui prepared on the driver host (the Storage page)."""
    if plan.workload.file:
        return plan.workload.file
    host = plan.driver.target or "local"
    layout = session_layout(data_dir() / "storage", host)
    point = str(((layout or {}).get("mount") or {}).get("point") or "")
    if not point:
        where = f"SSH target {plan.driver.target!r}" if plan.driver.target else "this machine"
        raise RunError(
            f"workload.file: no data file named and no storage prepared on {where} (Storage"
            " page): set workload.file to a path on the filesystem to measure"
        )
    return f"{point.rstrip('/')}/{DEFAULT_DATA_FILE}"


def random_read_config(plan: Plan, action: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The agent's configuration for a random-read plan (fio on the driver host, no
    database): the workload's fields, the data file resolved, host metrics and power."""
    if action != "run":
        raise RunError(f"a random_read plan can only be run, not {action!r}")
    wl = plan.workload
    config: dict[str, Any] = {
        "action": action,
        "engine": "fio",
        "kind": "random_read",
        **{k: getattr(wl, k) for k in RANDOM_READ_FIELDS},
        "file": random_read_file(plan),
    }
    power = plan.power
    try:
        config["power"], env = agent_power_config(
            power.meter, power.options, power.idle_s, power.interval_s
        )
    except (MeterNotFound, ValueError) as exc:
        raise RunError(str(exc)) from exc
    config["monitor"] = asdict(plan.monitor)
    return config, env


def session_target(plan: Plan, config: dict[str, Any]) -> dict[str, Any]:
    """What a session records as its target: the database, or for a random-read run the
    host and the data file."""
    if plan.workload.kind == "random_read":
        return {
            "kind": "random_read",
            "host": plan.driver.target or "local",
            "file": config.get("file"),
            "driver": plan.driver.target,
        }
    return {
        "kind": plan.target.kind,
        "host": plan.target.host,
        "port": plan.target.port,
        "database": plan.target.database,
        "driver": plan.driver.target,
    }


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
        # Called (from the run's thread) with a short state and a sentence whenever the link
        # to a remote driver host drops or comes back; the GUI shows it as it happens.
        self.on_notice: Callable[[str, str], None] | None = None
        if transport is None and plan.driver.target and not self._several:
            transport = ssh_transport(
                plan.driver.target,
                accept_fingerprint,
                on_link_state=self._link_state,
                on_command=self._command,
            )
        self.transport = transport or LocalTransport(data_dir() / "runs")
        self.session_id: int | None = None
        self.final: Event | None = None
        self.summary: Event | None = None
        self.errors: list[str] = []
        self._agent: AgentRun | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._reattached = False
        self._os: OsRun | None = None
        self._password: DbPassword | None = None
        # Where the inventory was taken (this machine or the SSH driver host), and its host
        # name: the database's placement is looked up there once the agent names its folder.
        self._inventory_shell: Shell | None = None
        self._inventory_host: str | None = None

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
    def _link_state(self, state: str, detail: str) -> None:
        if self.session_id is not None:
            self.store.add_log(self.session_id, "link", f"{state}: {detail}")
        if self.on_notice is not None:
            self.on_notice(state, detail)

    def _command(self, entry: CommandLogEntry) -> None:
        """Every command run on a target is kept with the session (secrets redacted)."""
        if self.session_id is not None:
            self.store.add_log(self.session_id, "command", entry.format())

    @property
    def random_read(self) -> bool:
        return self.plan.workload.kind == "random_read"

    def _record(self, event: Event) -> Event:
        if self.session_id is not None:
            self.store.add_event(self.session_id, event)
            if event.kind == "hello":
                if self.random_read:
                    self._record_data_file(event)
                else:
                    self._record_database(event)
        return event

    def _record_data_file(self, hello: Event) -> None:
        """Add the random-read data file's storage to the inventory (its mount, filesystem,
        device and disks, as for a database's data directory). Never fails the run."""
        assert self.session_id is not None
        record = hello.get("random_read")
        path = str(record.get("file") or "") if isinstance(record, dict) else ""
        if not path or self._inventory_shell is None:
            return
        folder = path.rsplit("/", 1)[0] or "/"
        try:
            storage = data_directory_storage(self._inventory_shell, folder)
            storage["directory"] = storage.pop("data_directory", folder)
            storage["file"] = path
            self.store.update_inventory(self.session_id, {"data_file": storage})
        except (SSHError, OSError) as exc:
            self.store.add_log(self.session_id, "warning", f"no data file placement: {exc}")

    def _database_here(self) -> bool:
        """Whether the database runs on the inventoried host (its host as the driver sees it:
        a socket folder, localhost, or the host's own name)."""
        if self.plan.target.kind == "demo":
            return True
        host = (self.plan.target.host or "").split(",")[0].strip()
        names = {"localhost", "127.0.0.1", "::1", self._inventory_host or ""}
        return not host or host.startswith(("/", "@")) or host in names - {""}

    def _record_database(self, hello: Event) -> None:
        """Add the database to the session's inventory: engine, version, data directory, and
        the mount, filesystem, device and disks under it when it is on the inventoried host.
        Never fails the run: a problem is a warning in the session's log."""
        assert self.session_id is not None
        data_dir = hello.get("data_directory")
        record: dict[str, Any] = {
            "engine": hello.get("engine"),
            "version": hello.get("server"),
            "version_num": hello.get("server_version_num"),
            "data_directory": data_dir,
        }
        try:
            if not isinstance(data_dir, str) or not data_dir:
                record["notes"] = ["the server did not say where its data directory is"]
            elif self._inventory_shell is None or not self._database_here():
                record["notes"] = [
                    "the database server is not on the inventoried host: the storage under its"
                    " data directory is not known"
                ]
            else:
                record.update(data_directory_storage(self._inventory_shell, data_dir))
            self.store.update_inventory(self.session_id, {"database": record})
        except (SSHError, OSError) as exc:
            self.store.add_log(self.session_id, "warning", f"no database placement: {exc}")

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
                yield self._log_event(line)
            with self._lock:
                if self._stop.is_set():
                    self._finish("incomplete", "stopped before it started")
                    self._end_os(None)
                    return
                self._agent = self._start(config, env)
            yield from self._follow(self._agent)
        except BaseException as exc:
            self._end_os(exc)
            raise
        for line in self._end_os(None):
            yield self._log_event(line)

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
            try:
                self._multi = MultiRun(
                    self.plan, self.store, config, env, self._accept, on_notice=notice
                )
            except MultiRunError as exc:
                raise RunError(str(exc)) from exc
        multi = self._multi
        if reattach is not None:
            self.session_id = reattach
            self._reattached = True
            stream = multi.reattach(reattach)
        else:
            stream = multi.events(session_target(self.plan, config), self.plan.name)
        try:
            for event in stream:
                self.session_id = multi.session_id
                yield event
        except UnknownHostKey as exc:
            raise HostKeyUnknown(exc) from exc
        except MultiRunError as exc:
            raise RunError(str(exc)) from exc
        finally:
            self.session_id = multi.session_id
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
                # Another desktop sharing the host has its own session ids: never take its run.
                me = desktop_identity()
                listed = over_cuts(self.transport, self.transport.list_runs, cancel=self._stop)
                runs = [
                    r
                    for r in listed
                    if r.meta.get("session_id") == session_id and r.meta.get("desktop", me) == me
                ]
            except SSHError as exc:
                raise RunError(str(exc)) from exc
            if not runs:
                raise RunError(f"no run of session {session_id} on {self.plan.driver.target}")
            run_dir = runs[-1].run_dir
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
        self._os = self._resume_os(session_id)
        try:
            yield from self._follow(self._agent)
        except BaseException as exc:
            self._end_os(exc)
            raise
        for line in self._end_os(None):
            yield self._log_event(line)

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
        self._os = os_run_for_plan(
            self.store,
            self.plan,
            self.session_id,
            driver_host=self._driver_host(),
            # The PostgreSQL server's data directory, for the knobs of its devices.
            conninfo=(
                str(config.get("admin_conninfo") or "") or None
                if config.get("engine") == "postgresql"
                else None
            ),
            password=env.get("PGPASSWORD"),
        )
        if self._os is None:
            return []
        try:
            lines = self._os.apply()
        except OsRunError as exc:
            self._os.close()
            self._os = None
            self._finish("failed", str(exc))
            raise RunError(str(exc)) from exc
        for level, message in lines:
            self.store.add_log(self.session_id, level, message)
        return lines

    def _resume_os(self, session_id: int) -> OsRun | None:
        """A re-attached run's knobs, if they are still applied (restored at its end)."""
        return resumed_os_run(self.store, self.plan, session_id, self._driver_host())

    def _end_os(self, error: BaseException | None) -> list[LogLine]:
        """Roll the knobs back; never raises. A run that lost its driver link may still be
        going on there: its knobs stay, with the way to restore them in the log."""
        run, self._os = self._os, None
        if run is None:
            return []
        lost_link = (
            isinstance(error, RunError)
            and isinstance(error.__cause__, SSHError)
            and self._agent is not None
            and run.where != "local"
        )
        lines = run.end(keep="the run may still be going on the driver host" if lost_link else "")
        for level, message in lines:
            if self.session_id is not None:
                self.store.add_log(self.session_id, level, message)
        return lines

    def _warn(self, message: str) -> Event:
        """A warning about the agent's output: kept in the session log, and shown."""
        if self.session_id is not None:
            self.store.add_log(self.session_id, "warning", message)
        return decode_line(encode_event("log", 0, level="warning", message=message))

    def _log_event(self, line: LogLine) -> Event:
        """A log line of the runner's own, as the event the consumer sees (already stored)."""
        level, message = line
        return decode_line(encode_event("log", 0, level=level, message=message))

    def _start(self, config: dict[str, Any], env: dict[str, str]) -> AgentRun:
        """Start the agent; a failure to start closes the session as failed, with the reason."""
        assert self.session_id is not None
        try:
            agent = self.transport.start_agent(config, env)
        except UnknownHostKey as exc:
            self._finish("failed", str(exc))
            raise HostKeyUnknown(exc) from exc
        except (SSHError, OSError) as exc:
            self._finish("failed", str(exc))
            raise RunError(str(exc)) from exc
        inventory: dict[str, Any] = {}
        # The host the agent runs on, whatever the driver: the SSH driver host or this machine.
        try:
            shell: Shell = (
                self.transport.session()
                if isinstance(self.transport, SSHTransport)
                else LocalShell(on_command=self._command)
            )
            inventory = collect_inventory(shell)
            inventory["collected_on"] = self.plan.driver.target or "local"
            self._inventory_shell = shell
            self._inventory_host = inventory.get("hostname")
        except (SSHError, OSError) as exc:
            self.store.add_log(self.session_id, "warning", f"no inventory: {exc}")
        # The storage layout bench-gui prepared on the database host (the driver host, or this
        # machine), so comparisons and reports can say what the run measured.
        layout = session_layout(data_dir() / "storage", self.plan.driver.target or "local")
        if layout:
            inventory["storage_layout"] = layout
        if self._os is not None and self._os.result is not None:
            inventory["os_tuning"] = self._os.record()  # the knobs the hello's values reflect
        if inventory:
            self.store.set_server_info(self.session_id, "", {}, inventory)
        return agent

    def _follow(self, agent: AgentRun) -> Iterator[Event]:
        try:
            for item in agent.events():
                if isinstance(item, BadLine):
                    # Reported, never fatal: kept in the session log, shown, not numbered.
                    text = scrubbed(item.text[:200])
                    yield self._warn(f"unreadable agent output ({item.error}): {text}")
                    continue
                # The one check of every event's payload before it is stored, printed, charted.
                try:
                    checked = check_event(item)
                except BadEvent as exc:
                    yield self._warn(f"unusable agent event, skipped: {exc}")
                    continue
                if checked.dropped:
                    yield self._warn(checked.warning())
                item = checked.event
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
            if self.session_id is not None and self._stored_status() == "running":
                self._finish("incomplete", "the reader stopped following the run")
            raise
        except SSHError as exc:
            # The link could not be restored in time: the run goes on on the driver host and
            # can be re-attached later, so it is not killed.
            message = f"{exc}; the run may still be going on the driver host: re-attach later"
            self._finish("incomplete", message)
            raise RunError(message) from exc
        except BaseException:
            agent.kill()
            self._finish("incomplete", "the run was interrupted")
            raise
        code = agent.wait(30)
        if self.final is None and self._reattached and self._stored_status() != "running":
            return  # re-attached to a run whose end the store already has: nothing was missing
        if self.final is None:
            detail = agent.diagnostics().strip().splitlines()
            reason = detail[-1] if detail else f"exit status {code}"
            message = f"the agent ended without finishing the run: {reason}"
            self._finish("incomplete", message)
            raise RunError(message)
        status = str(self.final.get("status", "failed"))
        message = str(self.final.get("message", ""))
        stored = FINAL_STATUS.get(status, "failed")
        if stored == "failed" and self.action == "run" and self._has_steps():
            stored = "incomplete"  # keep the measured steps visible as a partial result
        self._finish(stored, message)
        if status == "failed":
            raise RunError(self.errors[-1] if self.errors else message or "the run failed")

    def _stored_status(self) -> str:
        assert self.session_id is not None
        return self.store.get_run(self.session_id).status

    def _has_steps(self) -> bool:
        assert self.session_id is not None
        return bool(self.store.steps(self.session_id))

    def _finish(self, status: str, message: str) -> None:
        if self.session_id is not None:
            self.store.finish_run(self.session_id, status, message)


# A random-read step in the CLI's JSON shape: these fields of its summary.
RANDOM_READ_RESULT_FIELDS = (
    "step",
    "dataset_label",
    "dataset_bytes",
    "ram_multiple",
    "ram_ratio",
    "memory_bytes",
    "ops_s",
    "mbs",
    "window_s",
    "latency_ms",
    "raw_iops",
    "multiplier",
    "complete",
    "caches_dropped",
    "memory_peak_bytes",
    "problems",
)


def random_read_results(controller: RunController) -> list[dict[str, Any]]:
    """The steps of a random-read run (one per dataset size), as :func:`step_results`."""
    if controller.summary is not None:
        summaries = [s for s in controller.summary.get("steps", []) or [] if isinstance(s, dict)]
    elif controller.session_id is not None:
        summaries = [s.summary for s in controller.store.steps(controller.session_id)]
    else:
        summaries = []
    return [{k: s.get(k) for k in RANDOM_READ_RESULT_FIELDS} for s in summaries]


def _why_not_counted(summary: dict[str, Any]) -> dict[str, Any]:
    """A step's ``problems`` (why it does not count) and ``connections_lost``, for the CLI's
    JSON: what the Live page says about a step, the JSON says too."""
    problems = summary.get("problems")
    out: dict[str, Any] = {"problems": list(problems) if isinstance(problems, list) else []}
    if isinstance(summary.get("connections_lost"), dict):
        out["connections_lost"] = summary["connections_lost"]
    return out


def step_results(controller: RunController) -> list[dict[str, Any]]:
    """Step summaries in the CLI's JSON shape: from the run's summary event, or, when the run
    ended without one (the database restarted, the agent died), from the steps the store
    kept, so a finished step is never reported missing."""
    if controller.random_read:
        return random_read_results(controller)
    if controller.summary is None:
        if controller.session_id is None:
            return []
        stored = controller.store.steps(controller.session_id)
        return [
            {
                "vus": s.vus,
                "nopm": s.nopm,
                "tpm": s.tpm,
                "nopm_driver": s.nopm_driver,
                "window_s": s.window_s,
                "complete": s.complete,
                "latency_ms": s.latency_ms,
                "errors": s.errors,
                "rollbacks": s.summary.get("rollbacks", 0),
                "nopm_flag": s.nopm_flag,
                **_why_not_counted(s.summary),
            }
            for s in stored
        ]
    out = []
    for step in controller.summary.get("steps", []) or []:
        out.append(
            {
                "vus": step.get("vus"),
                "nopm": step.get("nopm"),
                "tpm": step.get("tpm"),
                "nopm_driver": step.get("nopm_driver"),
                "window_s": step.get("window_s"),
                "complete": step.get("complete"),
                "latency_ms": step.get("latency_ms", {}),
                "errors": step.get("errors", {}),
                "rollbacks": step.get("rollbacks", 0),
                "nopm_flag": nopm_doubt(
                    step.get("nopm"), step.get("nopm_driver"), step.get("window_s"), step.get("vus")
                ),
                **_why_not_counted(step),
            }
        )
    return out
