"""The engine kit contract: what the desktop asks a database engine for.

An engine (PostgreSQL, MariaDB/MySQL, SQL Server) is one folder under :mod:`bench_gui.engines`
holding an :class:`EngineKit`: its name, label, the plan's target kinds it serves
(:class:`TargetKind`: their defaults, ODBC fields, TPM source), its calculated tuning profile,
and its *faces*: the tuning service's steps (a connection to a plan's target, the server's
release, a stored snapshot, a proposal), the database check from a target, and its tab on the
Database page. The plan, services and pages look a target's kit up
(:func:`bench_gui.engines.registry.kit_for`) and ask it; they never branch on the engine's name.

Faces are named ``"module:attribute"`` and imported when first asked for: the registry
(:mod:`.registry`) is imported by the plan and the services, so it must not import a kit's
tuner or its Qt tab with it. A third-party kit registers itself through the
``bench_gui.engine_kits`` entry point group (the entry point loads its :class:`EngineKit`) and
passes ``tests/engines/test_conformance.py``. The engine's agent side is the kit's ``agent/``
folder (the deployment ships that folder alone: it imports only :mod:`bench_gui.agent` and
:mod:`bench_gui.wire`), and its connection string the kit's ``connection.py``, registered as a
``bench_gui.engines`` plugin (:mod:`bench_gui.core.engine`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

# Every face a kit provides, with the call each place makes of it.
FACES: Final[Mapping[str, str]] = {
    # services: a bench_gui.remote.db_tuner.DbTuner subclass giving the engine's steps
    "tuner": "its tuner: the shared flow with the engine's steps",
    # services: (target: Target, planned_users: int | None = None, options: Options) ->
    # services.tuning_parts.Connection; TuningError says why not (an option it cannot use)
    "connect": "a tuning connection to a plan's target",
    # services: (facts: dict) -> the release its rules take (from the tuner's facts())
    "version": "the server's release",
    # services: (data: dict) -> the tuner's snapshot, from the tuning history
    "snapshot": "a stored snapshot, to roll back",
    # services: (conn, spec: str, inputs: Inputs | None, facts: HostFacts | None) -> proposal
    "proposal": "a proposal of settings from a profile",
    # gui: a QWidget class (store, plan_provider); .handles(kind), .busy, .shutdown(timeout_s)
    "panel": "its tab on the Database page",
    # services: (values: Mapping[str, str], ram_bytes: int, *, fatal_only: bool = False) ->
    # dict[name, why]; proposed settings whose memory does not fit the server's RAM
    # (fatal_only: only those with which the server may not start)
    "memory_warnings": "settings too large for the server's RAM",
    # services: (session: SSHConnection, conninfo: str, password: str | None, python: str,
    # kind: str) -> (ok, detail); ok None: not checked from the target, and detail says why
    "database_check": "whether the driver host reaches the database",
    # cli: () -> engines.preset_book.PresetBook: its presets and calculated profiles as
    # `bench-gui tune presets` lists them (--json: under the kit's name), and one shown by name
    "presets": "its presets, listed and shown by name",
    # cli: (commands: `bench-gui tune`'s subparsers, machine: (parser, ram_required) adding
    # --ram, --cpus, --connections, --storage) -> {subcommand: handler(args) -> exit status};
    # its calculator's own commands (`tune postgresql`), or {} when it has none
    "tune_commands": "its calculator's commands under bench-gui tune",
    # cli: (parser: argparse.ArgumentParser) -> None; adds to `tune diff` and `tune apply` the
    # options its calculated profile reads beyond the machine (services.tuning_parts.Inputs)
    "tune_options": "its calculated profile's options on tune diff and apply",
}


@dataclass(frozen=True)
class TargetKind:
    """One value of a plan's ``target.kind`` that a kit serves, and what the plan, the Workload
    page and the report need to know of it (so none of them keeps a table by engine name)."""

    name: str  # the plan's word: "postgresql", "mariadb", "mysql", "mssql", "demo"
    label: str  # what a person reads: "MariaDB"
    # What the target's fields are when a plan does not say.
    port: int = 5432
    user: str = "postgres"
    admin_database: str = "postgres"
    # Reached through ODBC (pyodbc on the driver host): the plan's ODBC fields are its, with
    # these ``target.authentication`` choices ("" is the driver's default).
    odbc: bool = False
    authentication: tuple[str, ...] = ("",)
    # The Workload page's driver field: what it shows when empty, and what empty means.
    odbc_driver: str = ""
    odbc_driver_hint: str = ""
    # The environment variable its clients read a password from (the plan's password_env hint).
    password_env: str = "PGPASSWORD"
    tpm_source: str = ""  # what its TPM counts (the agent's monitor; HammerDB reads the same)
    hammerdb: bool = True  # whether its agent has HammerDB's transactions (profile hammerdb)
    listed: bool = True  # offered in the Workload page's engine list (the demo is not)
    # Said beside it wherever it is chosen when its engine was never run against a live server
    # here (when its plugin does not say, as ``verified_live`` / ``verified_how``).
    unverified: str = ""


@dataclass(frozen=True)
class EngineKit:
    """One engine's entry: what it is called and where each of its faces lives."""

    name: str  # its folder and tuning history's family: "postgresql", "mariadb", "mssql"
    label: str  # what a person reads: "PostgreSQL", "MariaDB / MySQL"
    targets: tuple[TargetKind, ...]  # the plan's ``target.kind`` values it serves
    profile: str  # its calculated tuning profile ("pgtune", "innodb", "mssql-seed-003")
    # What a diff's "reload" (in effect without a restart) is called for it.
    reload_word: str = "reload"
    restarts: bool = True  # whether its tuner may restart the server (else the user does)
    # How its ODBC driver asks for TLS: one "tls" choice (Connector/ODBC), or "encrypt", an
    # Encrypt choice and a trust-the-certificate box (SQL Server's driver).
    tls_style: Literal["tls", "encrypt"] = "tls"
    # Said wherever its tuning is shown when it could not be verified against a live server.
    unverified: str = ""
    # Whether a run's [os] knobs find the server's data directory (and so its devices) through
    # the admin connection string of the run (PostgreSQL's data_directory setting).
    data_dir_by_admin: bool = False
    faces: Mapping[str, str] = field(default_factory=dict)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The names of :attr:`targets`."""
        return tuple(t.name for t in self.targets)

    def face(self, name: str) -> Any:
        """The face ``name`` (see :data:`FACES`), imported on first use."""
        if name not in FACES:
            raise KeyError(f"no engine face {name!r}: the faces are {', '.join(FACES)}")
        try:
            where = self.faces[name]
        except KeyError:
            raise KeyError(f"the {self.label} engine kit has no {name!r} face") from None
        module, _, path = where.partition(":")
        found: Any = importlib.import_module(module)
        for attribute in path.split("."):  # "Class.from_dict" names a class's method
            found = getattr(found, attribute)
        return found
