"""The engine kit contract: what the desktop asks a database engine for.

An engine (PostgreSQL, MariaDB/MySQL, SQL Server) is one folder under :mod:`bench_gui.engines`
holding an :class:`EngineKit`: its name, label, the plan's target kinds it serves, its
calculated tuning profile, and its *faces*: the tuning service's steps (a connection to a
plan's target, the server's release, a stored snapshot, a proposal) and its tab on the
Database page. The services and pages look a target's kit up
(:func:`bench_gui.engines.registry.kit_for`) and ask it; they never branch on the engine's name.

Faces are named ``"module:attribute"`` and imported when first asked for: this registry is
(:mod:`.registry`) is imported by the services, so it must not import a kit's tuner or its Qt
tab with it. A
third-party kit registers itself through the ``bench_gui.engine_kits`` entry point group (the
entry point loads its :class:`EngineKit`) and passes ``tests/engines/test_conformance.py``.
The engine's agent side is the kit's ``agent/`` folder (the deployment ships that folder
alone: it imports only :mod:`bench_gui.agent` and :mod:`bench_gui.wire`), and its connection
string the kit's ``connection.py``, registered as a ``bench_gui.engines`` plugin
(:mod:`bench_gui.core.engine`).
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
}


@dataclass(frozen=True)
class EngineKit:
    """One engine's entry: what it is called and where each of its faces lives."""

    name: str  # its folder and tuning history's family: "postgresql", "mariadb", "mssql"
    label: str  # what a person reads: "PostgreSQL", "MariaDB / MySQL"
    kinds: tuple[str, ...]  # the plan's ``target.kind`` values it serves
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
