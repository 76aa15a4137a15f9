"""The agent's engine interface: what the sweep needs of a database engine, and which engines
this agent can drive.

The agent dispatches on the run configuration's ``engine`` (the plan's ``target.kind``):
:func:`open_engine` looks the name up in :data:`AGENT_ENGINES` and builds that engine's class
from ``(conninfo, admin_conninfo, database)``. The entry point, the build/check/status actions
and the sweep (:mod:`bench_gui.agent.driver`) then only call the methods of
:class:`AgentEngine`; nothing outside an engine's own package knows its SQL or its driver.

Implementations:

- ``postgresql``: :class:`bench_gui.engines.postgresql.agent.engine.PgEngine` (psycopg; the users on
  non-blocking libpq, :mod:`bench_gui.engines.postgresql.agent.vu`);
- ``mariadb`` and ``mysql``: :class:`bench_gui.engines.mariadb.agent.engine.MyEngine` (pyodbc with
the
  MariaDB or MySQL Connector/ODBC; :mod:`bench_gui.engines.mariadb.agent`);
- ``mssql``: ``bench_gui.engines.mssql.agent.engine.MssqlEngine`` when that package is present.

An engine's agent side is the ``agent/`` folder of its kit, ``bench_gui/engines/<kit>/agent/``
(the deployment ships those folders, never the rest of a kit), with:

1. ``engine.py``: a class with the members of :class:`AgentEngine`, constructed as
   ``Engine(conninfo, admin_conninfo, database)``. ``conninfo`` is whatever the engine's
   desktop plugin (``bench_gui.engines`` entry point) made of the plan's target, with no
   password in it: secrets arrive in the environment (PostgreSQL's ``PGPASSWORD``, the ODBC
   engines' :data:`~bench_gui.wire.names.DB_PASSWORD_ENV`), and conninfo strings are echoed
   in events.
2. a module-level ``worker_main(spec, counters, flags, pipe)`` the engine names in
   :attr:`AgentEngine.worker_main`: the body of one virtual-user process, speaking the pipe
   protocol of :func:`bench_gui.engines.postgresql.agent.vu.worker_main` and counting into the
   shared slots
   of :mod:`bench_gui.agent.users` (committed per type, rollbacks, errors);
3. a counter reader (:meth:`AgentEngine.counter_reader`) whose ``read()`` gives a
   :class:`Snapshot` of the engine's NOPM and TPM sources as HammerDB reads them, never
   blocking the sampler (subclass :class:`bench_gui.agent.counters.CounterReader`);
4. the line ``"<name>": "bench_gui.engines.<kit>.agent.engine:<Class>"`` in
   :data:`AGENT_ENGINES`.

A third-party engine does the same in a package of its own and declares, instead of step 4, an
entry point ``<name> = "<module>:<Class>"`` in the group
:data:`~bench_gui.wire.names.AGENT_ENGINE_GROUP`; :func:`open_engine` finds it there, and the
deployment (:mod:`bench_gui.remote.deploy`) ships the plugin's distribution to the driver host
with the agent.

An engine that cannot keep a template (``supports_template`` False) runs every step on the
same data; the sweep says so in the run's log when the plan asks for a reset between steps.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Final, Protocol

from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.names import AGENT_ENGINE_GROUP

if TYPE_CHECKING:
    import threading

# Engine name -> "module:Class" of its agent side; imported only when a run asks for it.
AGENT_ENGINES: Final[dict[str, str]] = {
    "postgresql": "bench_gui.engines.postgresql.agent.engine:PgEngine",
    "mariadb": "bench_gui.engines.mariadb.agent.engine:MariaDbEngine",
    "mysql": "bench_gui.engines.mariadb.agent.engine:MySqlEngine",
    "mssql": "bench_gui.engines.mssql.agent.engine:MssqlEngine",
}


@dataclass
class Snapshot:
    """The database's measuring counters read at one instant."""

    t: float  # monotonic seconds, the midpoint of the database read
    new_orders: int  # sum(d_next_o_id)
    transactions: int  # the engine's TPM source (PostgreSQL: sum(xact_commit + xact_rollback))


@dataclass(frozen=True)
class CheckResult:
    """One consistency condition: whether it holds, and if not how often and one example."""

    name: str
    ok: bool
    detail: str
    violations: int = 0


@dataclass(frozen=True)
class ServerIdentity:
    """``keys``: what the run locks are named after; ``label``: the server, for people."""

    keys: tuple[str, ...]
    label: str


class SchemaState(Protocol):
    """What a database holds of the TPROC-C schema (missing, partial or complete)."""

    state: str
    warehouses: int
    problems: list[str]


class CounterSource(Protocol):
    """What the sampler asks of an engine's counter reader: a fresh :class:`Snapshot` when
    the server gives one in time (an engine subclasses
    :class:`bench_gui.agent.counters.CounterReader`, which does the waiting)."""

    def read(self, wait: float = ...) -> Snapshot | None: ...

    def not_answering_s(self, now: float | None = None) -> float: ...

    @property
    def error(self) -> str: ...

    def close(self) -> None: ...


class AgentEngine(Protocol):
    """A database engine as the agent drives it. Every method may raise :class:`EngineError`
    with a message for the user."""

    name: str
    database: str
    template: str  # the template database's name ('' when not supported)
    supports_template: bool
    # How many of a step's users share one worker process at least (while there are more
    # users than CPUs): users multiplexed on one process share its wake-ups, so each
    # transaction costs the driver less CPU (issue 30); 1 where each user needs a thread.
    users_per_process: int
    # What the users connect with (passed to worker_main in the WorkerSpec).
    conninfo: str

    @property
    def worker_main(self) -> Callable[[Any, Any, Any, Any], None]:
        """The body of one virtual-user process (module level: the spawn context pickles it)."""
        ...

    def server_info(self) -> dict[str, Any]:
        """Hello fields: ``server`` (version text), ``server_version_num``,
        ``data_directory`` (or None) and ``settings`` {name: record}."""
        ...

    def identity(self) -> ServerIdentity:
        """Which server this is, however the plan spells its host (the run lock's keys)."""
        ...

    def database_exists(self, name: str | None = None) -> bool: ...

    def create_database(self) -> None: ...

    def drop_database(self, name: str) -> None: ...

    def schema_status(self) -> SchemaState: ...

    def build(
        self,
        warehouses: int,
        workers: int,
        progress: Callable[[dict[str, Any]], None],
        stop: threading.Event | None,
    ) -> dict[str, Any]:
        """Tables, the engine's bulk load, indexes and routines; returns the build's stats
        (``status`` "ok" or "stopped")."""
        ...

    def consistency_checks(self) -> list[CheckResult]: ...

    def counter_reader(self) -> CounterSource:
        """A reader of the NOPM and TPM sources in a thread of its own (closed by the caller)."""
        ...

    def schema_facts(
        self, emit: Callable[..., Any], stop: threading.Event, when: str
    ) -> dict[str, Any]:
        """The database's size and each table's rows as step-summary fields, said in the log
        through ``emit``; never raises (a problem goes into ``schema_facts_error``)."""
        ...

    def after_run_facts(self, emit: Callable[..., Any], stop: threading.Event) -> dict[str, Any]:
        """:meth:`schema_facts` after the last step (the size only when stopped on request)."""
        ...

    def data_paths(self) -> list[str]:
        """Paths whose block devices host metrics report by default ([] when the server is
        not on this host or does not say where its files are)."""
        ...

    def make_template(self) -> None: ...

    def reset_from_template(self) -> None: ...

    def close_monitor(self) -> None: ...


def engine_target(name: str) -> str | None:
    """Where engine ``name``'s agent side is, "module:Class": this agent's own engines first,
    then the ``bench_gui.agent_engines`` entry points of installed (or shipped) plugins."""
    where = AGENT_ENGINES.get(name)
    if where is not None:
        return where
    for ep in entry_points(group=AGENT_ENGINE_GROUP):
        if ep.name == name:
            return str(ep.value)
    return None


def known_engines() -> list[str]:
    """Every engine name this agent can look up (its own and the plugins')."""
    names = set(AGENT_ENGINES)
    names.update(ep.name for ep in entry_points(group=AGENT_ENGINE_GROUP))
    return sorted(names)


def open_engine(name: str, conninfo: str, admin_conninfo: str, database: str) -> AgentEngine:
    """The agent side of engine ``name``; EngineError when this agent cannot drive it."""
    where = engine_target(name)
    if where is None:
        known = ", ".join(known_engines())
        raise EngineError(
            f"this agent does not know engine {name!r} (it knows {known}); a third-party"
            f" engine needs its plugin's {AGENT_ENGINE_GROUP!r} entry point on this host"
        )
    module_name, _, class_name = where.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise EngineError(
            f"engine {name!r} is not available on this driver host: {exc}"
            f" ({module_name} could not be imported)"
        ) from exc
    factory = getattr(module, class_name, None)
    if factory is None:
        raise EngineError(f"engine {name!r}: {module_name} has no {class_name} (from {where})")
    engine: AgentEngine = factory(conninfo, admin_conninfo, database)
    return engine


__all__ = [
    "AGENT_ENGINES",
    "AgentEngine",
    "CheckResult",
    "CounterSource",
    "EngineError",
    "SchemaState",
    "ServerIdentity",
    "Snapshot",
    "engine_target",
    "known_engines",
    "open_engine",
]
