"""Agent entry point: ``python -m bench_gui.agent --config run.json [--spool events.jsonl]``.

Runs one action (build the schema, run a sweep, check consistency, report schema status) and
writes every event as a JSON line to stdout and to the spool file. A configuration of another
kind than TPROC-C runs that workload kit's agent side instead (:mod:`bench_gui.agent.workloads`;
random read: the fio sweep of :mod:`bench_gui.workloads.random_read.agent`, no database, its run
lock the host's: one random-read run at a time). SIGTERM or SIGINT end the
run cleanly: the step in progress is summarised with what it measured, then ``done``.

A run, a build and a check hold the run lock of their database server for the whole run
(:mod:`bench_gui.agent.runlock`: one benchmark per server, however the plan spells its host);
when another run holds it, the agent reports which run, who started it and since when, and exits
4; an agent of the same run (the configuration's ``run_token``: several driver hosts on one
machine) shares it and says so. ``--lock-dir DIR`` puts the lock files in DIR instead of the
host's shared lock folder; ``--lock PATH`` holds exactly the lock file PATH (whatever the
action).
``--env-file PATH`` loads environment variables (secrets such as PGPASSWORD, or the ODBC
engines' BENCH_GUI_DB_PASSWORD) from a JSON file and deletes it at once, so that no secret has
to appear on a command line; ``--env-stdin`` reads them as one JSON line on standard input (a
pipe: nothing on disk). The password then goes into the engine's connection strings in memory
and out of the environment (:mod:`bench_gui.agent.secrets`): the virtual users' processes
never carry it in theirs.

Several driver hosts for one run (:mod:`bench_gui.agent.barrier`): ``--role primary|secondary``
(only the primary reads the database's counters and prepares the schema), ``--barrier`` (each
step starts at the instant the go file beside the spool names), ``--barrier-timeout S`` and
``--desktop-timeout S`` (a desktop silent that long at a barrier ends the run).

The configuration's ``engine`` (postgresql, mariadb, mysql, ...) picks the engine through
:func:`bench_gui.agent.engines.open_engine`; everything below speaks to it through
:class:`~bench_gui.agent.engines.AgentEngine` only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from typing import Any, TextIO

from bench_gui.agent import secrets
from bench_gui.agent.barrier import (
    DEFAULT_TIMEOUT_S,
    ROLES,
    Coordination,
    coordination_from_args,
)
from bench_gui.agent.driver import RunCut, StepFailed, run_sweep, sweep_message
from bench_gui.agent.engines import AgentEngine, open_engine
from bench_gui.agent.profiles import ProfileError, check_profile
from bench_gui.agent.runlock import (
    HeldLock,
    LockError,
    default_lock_dir,
    holder_info,
    lock_path,
    take_lock,
)
from bench_gui.agent.signals import stop_on_signals
from bench_gui.agent.workloads import agent_workload
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.hostinfo import os_knobs
from bench_gui.wire.names import AGENT_VERSION
from bench_gui.wire.protocol import EventWriter
from bench_gui.wire.run_config import ConfigError, RunConfig


def _public_config(cfg: RunConfig) -> dict[str, Any]:
    data = dict(cfg.__dict__)
    for key in RunConfig.MULTI_HOST_FIELDS:
        if not data[key]:
            del data[key]  # one host: the configuration echoed as it always was
    for key in RunConfig.LOCK_FIELDS:
        del data[key]  # the lock's holder says them
    for key in RunConfig.UNSENT_WHEN_EMPTY:
        if not data[key]:
            del data[key]  # a workload without them: the configuration echoed as it was
    for key in ("conninfo", "admin_conninfo"):
        data[key] = _redact(data[key])
    return data


def _redact(conninfo: str) -> str:
    """Drop any password from a conninfo string (libpq's or ODBC's) before it is echoed."""
    import re

    conninfo = re.sub(r"password\s*=\s*('[^']*'|\S+)", "password=***", conninfo)
    conninfo = re.sub(r"(?i)\b(pwd|password)\s*=\s*(\{[^}]*\}|[^;]*)", r"\1=***", conninfo)
    return re.sub(r"(postgres(?:ql)?://[^:/@]*:)[^@]*@", r"\1***@", conninfo)


def _build(cfg: RunConfig, engine: AgentEngine, out: EventWriter, stop: threading.Event) -> None:
    if engine.database_exists():
        if hasattr(engine, "ends_sessions"):  # SQL Server: the plan confirms ending others
            engine.ends_sessions = cfg.drop_ends_sessions
        engine.drop_database(engine.database)
    engine.create_database()
    workers = cfg.build_workers or (os.cpu_count() or 1)
    out.emit(
        "log",
        level="info",
        message=f"building {cfg.warehouses} warehouses with {workers} build workers",
    )

    def progress(data: dict[str, Any]) -> None:
        data = dict(data)
        data.setdefault("task", "build")
        out.emit("progress", **data)

    stats = engine.build(cfg.warehouses, workers, progress, stop)
    if stop.is_set():
        raise EngineError("the build was stopped; the schema is incomplete")
    out.emit("log", level="info", message=f"schema built: {json.dumps(stats, default=str)}")
    if cfg.reset_between_steps and engine.supports_template:
        engine.make_template()


def _prepare_schema(
    cfg: RunConfig, engine: AgentEngine, out: EventWriter, stop: threading.Event
) -> None:
    """Build, reuse, or refuse the schema according to the plan's build mode."""
    if cfg.build == "always":
        _build(cfg, engine, out, stop)
        return
    if not engine.database_exists():
        if cfg.build == "never":
            raise EngineError(f"database {cfg.database!r} does not exist and build is 'never'")
        _build(cfg, engine, out, stop)
        return
    status = engine.schema_status()
    if status.state == "partial" and _only_routines_missing(status.problems, engine):
        # Built before the hammerdb profile's routines existed: add them, keep the data.
        out.emit(
            "log",
            level="info",
            message="the schema lacks some transaction routines ("
            + "; ".join(status.problems)
            + "): creating both profiles' routines",
        )
        engine.install_routines()  # type: ignore[attr-defined]
        status = engine.schema_status()
    if status.state == "missing":
        if cfg.build == "never":
            raise EngineError(f"no TPROC-C schema in {cfg.database!r} and build is 'never'")
        _build(cfg, engine, out, stop)
    elif status.state == "partial":
        problems = "; ".join(status.problems[:5])
        raise EngineError(
            f"the TPROC-C schema in {cfg.database!r} is half built ({problems});"
            ' rebuild it (build = "always")'
        )
    elif status.warehouses != cfg.warehouses:
        if cfg.build == "never":
            raise EngineError(
                f"the schema has {status.warehouses} warehouses, the plan asks for"
                f" {cfg.warehouses}, and build is 'never'"
            )
        out.emit(
            "log",
            level="warning",
            message=f"the schema has {status.warehouses} warehouses,"
            f" the plan asks for {cfg.warehouses}: rebuilding",
        )
        _build(cfg, engine, out, stop)


def _only_routines_missing(problems: list[str], engine: AgentEngine) -> bool:
    """True when all a schema lacks is the hammerdb profile's routines (``hdb_*``: a database
    built before they existed) and the engine can create them."""
    import re

    if not problems or not hasattr(engine, "install_routines"):
        return False
    for problem in problems:
        kind, _, names = problem.partition(": ")
        if kind not in ("missing routines", "missing procedures"):
            return False
        bare = re.sub(r"\([^)]*\)", "", names)
        if not all(n.strip().lower().startswith("hdb_") for n in bare.split(",")):
            return False
    return True


def _check(engine: AgentEngine, out: EventWriter) -> bool:
    results = engine.consistency_checks()
    for r in results:
        out.emit(
            "log",
            level="info" if r.ok else "error",
            message=f"{'PASS' if r.ok else 'FAIL'} {r.name}: {r.detail}",
        )
    checks = [{"name": r.name, "ok": r.ok, "detail": r.detail} for r in results]
    out.emit("summary", checks=checks, status="ok" if all(r.ok for r in results) else "failed")
    return all(r.ok for r in results)


def run(
    cfg: RunConfig,
    out: EventWriter,
    stop: threading.Event,
    hello_extra: dict[str, Any] | None = None,
    coord: Coordination | None = None,
) -> int:
    """Run one action; always ends with a ``done`` event. Returns the process exit code.
    ``hello_extra``: more fields for the ``hello`` (the lock the run holds); ``coord``: the
    role and start barrier among several driver hosts (none: one host)."""
    coord = coord or Coordination()
    try:
        check_profile(cfg.profile)
        engine = _engine(cfg)
    except (EngineError, ProfileError) as exc:
        out.emit("error", message=str(exc), fatal=True)
        out.emit("done", status="failed", message=str(exc))
        return 2
    try:
        info = engine.server_info()
        out.emit(
            "hello",
            agent_version=AGENT_VERSION,
            engine=engine.name,
            pid=os.getpid(),
            config=_public_config(cfg),
            # Kernel knobs of the host the agent runs on (the database host for local runs).
            os_knobs=os_knobs(),
            **info,
            **(hello_extra or {}),
        )
        shared = (hello_extra or {}).get("lock", {}).get("shared_with")
        if shared:
            out.emit(
                "log",
                level="info",
                message=f"the run lock is held by another agent of this run on this host,"
                f" which this agent shares: {shared}",
            )
        if cfg.action == "build":
            _build(cfg, engine, out, stop)
            out.emit("done", status="ok", message="schema built")
        elif cfg.action == "status":
            if not engine.database_exists():
                out.emit(
                    "summary",
                    schema={
                        "state": "missing",
                        "warehouses": 0,
                        "problems": [f"database {cfg.database} missing"],
                    },
                )
            else:
                st = engine.schema_status()
                out.emit(
                    "summary",
                    schema={
                        "state": st.state,
                        "warehouses": st.warehouses,
                        "problems": list(st.problems),
                    },
                )
            out.emit("done", status="ok", message="")
        elif cfg.action == "check":
            ok = _check(engine, out)
            out.emit(
                "done",
                status="ok" if ok else "failed",
                message="all consistency checks passed" if ok else "consistency check failed",
            )
            return 0 if ok else 1
        elif cfg.action == "run":
            if coord.reads_counters:  # a secondary host leaves the schema to the primary
                _prepare_schema(cfg, engine, out, stop)
            status, steps = run_sweep(cfg, engine, out, stop, coord)
            if stop.is_set():
                out.emit("log", level="warning", message="stop requested: run ended early")
            out.emit("summary", steps=steps, status=status)
            out.emit("done", status=status, message=sweep_message(status, steps))
        else:
            raise EngineError(f"unknown action {cfg.action!r}")
        return 0
    except RunCut as exc:
        # A hung server, a start signal that never came: the steps measured so far are the
        # run's result, said as usual.
        out.emit("error", message=str(exc), fatal=True, **({"code": exc.code} if exc.code else {}))
        out.emit("summary", steps=exc.steps, status="failed")
        out.emit("done", status="failed", message=str(exc))
        return 2
    except (EngineError, StepFailed) as exc:
        out.emit("error", message=str(exc), fatal=True)
        out.emit("done", status="stopped" if stop.is_set() else "failed", message=str(exc))
        return 2
    except Exception as exc:  # noqa: BLE001 - the top level: a fatal error event + traceback
        return out.crash(exc)
    finally:
        engine.close_monitor()


EXIT_LOCKED = 4


def _engine(cfg: RunConfig) -> AgentEngine:
    """The engine the configuration names (:mod:`bench_gui.agent.engines`), its password in
    its connection strings in memory, out of the environment (:mod:`bench_gui.agent.secrets`)."""
    password = secrets.take_password(cfg.engine)
    conninfo = secrets.conninfo_with_password(cfg.engine, cfg.conninfo, password)
    admin = secrets.conninfo_with_password(cfg.engine, cfg.admin_conninfo or cfg.conninfo, password)
    return open_engine(cfg.engine, conninfo, admin, cfg.database)


# Actions that load the server: one at a time per server. ``status`` only reads the catalog.
LOCKED_ACTIONS = ("run", "build", "check")


def _hold_lock(
    args: argparse.Namespace, cfg: RunConfig, config: dict[str, Any]
) -> tuple[list[HeldLock], dict[str, Any]]:
    """Take the run locks of the server the plan targets: (locks, hello fields).

    Raises :class:`~bench_gui.agent.runlock.LockError` (cannot lock at all), ``_Refused``
    (another run holds one) or EngineError (the server cannot be reached to tell who it is).
    """
    server = "this target"
    paths = [args.lock] if args.lock else []
    if not paths:
        if cfg.action not in LOCKED_ACTIONS:
            return [], {}
        workload = agent_workload(cfg.kind)
        if workload is not None:
            server, keys = workload.lock_key()
        else:
            engine = _engine(cfg)
            try:
                identity = engine.identity()
            finally:
                engine.close_monitor()
            server, keys = identity.label, list(identity.keys)
        folder = args.lock_dir or default_lock_dir()
        paths = [lock_path(folder, key) for key in keys]
    info = holder_info(args.spool, config, server, os.environ.get("BENCH_GUI_LOCK_HOLDER", ""))
    locks: list[HeldLock] = []
    for path in paths:
        lock, holder = take_lock(path, info)
        if lock is None:
            for held in locks:
                held.release()
            raise _Refused(f"another benchmark is running against {server}: {holder}")
        locks.append(lock)
    fields: dict[str, Any] = {"server": server, "paths": paths}
    # An agent of a run on several driver hosts, on a host where another agent of the same
    # run (config "run_token") already holds the lock: it shares that agent's lock.
    shared = next((lock.shared_with for lock in locks if lock.shared_with), "")
    if shared:
        fields["shared_with"] = shared
    return locks, {"lock": fields}


class _Refused(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_gui.agent", description=__doc__)
    parser.add_argument("--config", help="JSON run configuration (default: stdin)")
    parser.add_argument("--spool", help="append every event to this file as well")
    parser.add_argument("--lock", help="hold an exclusive lock on this file for the whole run")
    parser.add_argument("--lock-dir", help="the folder of the run locks (default: the host's)")
    parser.add_argument("--env-file", help="JSON file of environment variables, deleted on read")
    parser.add_argument(
        "--env-stdin",
        action="store_true",
        help="read the environment variables as one JSON line on standard input",
    )
    parser.add_argument(
        "--role",
        choices=ROLES,
        help="one of several driver hosts: only the primary reads the database's counters",
    )
    parser.add_argument(
        "--barrier",
        action="store_true",
        help="start each step at the instant the go file (the spool's, + .go) names",
    )
    parser.add_argument(
        "--barrier-timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        metavar="S",
        help=f"seconds to wait for a step's go file (default {DEFAULT_TIMEOUT_S:g})",
    )
    parser.add_argument(
        "--desktop-timeout",
        type=float,
        default=0.0,
        metavar="S",
        help="with --barrier: end the run when the desktop has not probed it (its heartbeat"
        " file, the spool's + .beat) for S seconds of a wait at a step's barrier (0: never)",
    )
    args = parser.parse_args(argv)
    # The secrets first: an env file must not outlive an agent that stops at a bad argument.
    if args.env_file:
        secrets.load_env_file(args.env_file)
    if args.env_stdin:
        secrets.load_env_stdin(sys.stdin)
    try:
        coord = coordination_from_args(
            args.role, args.barrier, args.barrier_timeout, args.spool, args.desktop_timeout
        )
    except ValueError as exc:
        parser.error(str(exc))
    if args.config:
        with open(args.config, encoding="utf-8") as handle:
            raw = handle.read()
    else:
        raw = sys.stdin.read()
    config = json.loads(raw)

    sinks: list[TextIO] = [sys.stdout]
    if args.spool:
        sinks.append(open(args.spool, "a", encoding="utf-8"))  # noqa: SIM115 - lives with the run
    out = EventWriter(*sinks)
    try:
        cfg = RunConfig.from_dict(config)
    except ConfigError as exc:
        out.emit("error", message=str(exc), fatal=True)
        out.emit("done", status="failed", message=str(exc))
        return 2
    try:
        locks, hello_extra = _hold_lock(args, cfg, config)
        hello_extra.update(coord.hello_fields())
    except _Refused as exc:
        out.emit("error", message=str(exc), fatal=True, code="locked")
        out.emit("done", status="failed", message=str(exc))
        return EXIT_LOCKED
    except (LockError, EngineError) as exc:
        out.emit("error", message=str(exc), fatal=True)
        out.emit("done", status="failed", message=str(exc))
        return 2
    stop = threading.Event()
    # Only the flag: emitting from a signal handler could interleave two events.
    stop_on_signals(stop)
    try:
        workload = agent_workload(cfg.kind)
        if workload is not None:
            if workload.single_host and coord != Coordination():
                text = f"--role and --barrier are for TPROC-C runs: {cfg.kind} runs on one host"
                out.emit("error", message=text, fatal=True)
                out.emit("done", status="failed", message=text)
                return 2
            return workload.run(cfg, out, stop, hello_extra)
        return run(cfg, out, stop, hello_extra, coord)
    finally:
        for lock in locks:
            lock.release()


if __name__ == "__main__":
    sys.exit(main())
