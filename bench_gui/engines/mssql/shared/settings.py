"""SQL Server settings: a snapshot for provenance, seed 003's tuning as a preset, and its undo.

The snapshot is ``sys.configurations`` (``value`` is what sp_configure set, ``value_in_use``
what runs; they differ until RECONFIGURE or a restart) plus the database's recovery model and
target recovery time. sql_variant columns are cast to bigint in the query: ODBC has no type
for sql_variant and pyodbc refuses it.

Seed 003 (Micron 9300, SQL Server 2017 Enterprise on CentOS 7.6, 2 x 24 cores, 384 GB) gives
these SQL Server settings: Maximum Degree of Parallelism 1, Recovery Model Simple, Target
Recovery Time 60 seconds, Lock Pages in Memory enabled, 48 database files, 8 tempdb files.
The preset applies the first three. The rest are not sp_configure settings (Lock Pages in
Memory is a privilege of the service account; the file counts are fixed when the database and
tempdb are laid out) and are returned as notes. The seed states no max server memory, no cost
threshold for parallelism and no trace flags; see :func:`seed_003_preset` for what is done
about each.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from bench_gui.engines.mssql.shared.connect import pyodbc_module
from bench_gui.engines.mssql.shared.names import quote_name

CONFIGURATIONS_SQL: Final = (
    "SELECT name, CAST(value AS bigint) AS value, CAST(value_in_use AS bigint) AS value_in_use,"
    " CAST(minimum AS bigint) AS minimum, CAST(maximum AS bigint) AS maximum,"
    " CAST(is_dynamic AS int) AS is_dynamic, CAST(is_advanced AS int) AS is_advanced"
    " FROM sys.configurations ORDER BY name"
)
DATABASE_SQL: Final = (
    "SELECT recovery_model_desc, target_recovery_time_in_seconds FROM sys.databases"
    " WHERE database_id = DB_ID()"
)
# The benchmark database's own MAXDOP (SQL Server 2016 on; 0: the server's applies), which
# overrides the server's max degree of parallelism for this database.
DATABASE_MAXDOP_SQL: Final = (
    "SELECT CAST(value AS int) FROM sys.database_scoped_configurations WHERE name = N'MAXDOP'"
)
# The Availability Group the benchmark database belongs to (no row: none).
AVAILABILITY_GROUP_SQL: Final = (
    "SELECT ag.name FROM sys.databases AS d"
    " JOIN sys.availability_databases_cluster AS c ON c.group_database_id = d.group_database_id"
    " JOIN sys.availability_groups AS ag ON ag.group_id = c.group_id"
    " WHERE d.database_id = DB_ID()"
)
VERSION_SQL: Final = (
    "SELECT CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)),"
    " CAST(SERVERPROPERTY('Edition') AS nvarchar(128)), @@VERSION"
)
SHOW_ADVANCED: Final = "show advanced options"
RECOVERY_MODELS: Final = ("SIMPLE", "FULL", "BULK_LOGGED")


class SettingsError(ValueError):
    """A setting that cannot be applied or undone; the message names it."""


@dataclass(frozen=True)
class ConfigValue:
    """One row of sys.configurations."""

    value: int
    value_in_use: int
    minimum: int
    maximum: int
    is_dynamic: bool
    is_advanced: bool


@dataclass
class SettingsSnapshot:
    """The server's configuration and one database's options, read before tuning."""

    configurations: dict[str, ConfigValue]
    recovery_model: str
    target_recovery_time_s: int
    version: str = ""
    edition: str = ""
    database_maxdop: int | None = None  # None: no database-scoped configuration (before 2016)
    availability_group: str | None = None  # the database's Availability Group, if any


@dataclass(frozen=True)
class Preset:
    """Server options (sp_configure name -> value), database options, and why."""

    name: str
    server: dict[str, int]
    recovery_model: str | None = None
    target_recovery_time_s: int | None = None
    reasons: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    # The database's own MAXDOP (ALTER DATABASE SCOPED CONFIGURATION); None: 0 (follow the
    # server) whenever the server's max degree of parallelism is set.
    database_maxdop: int | None = None


def read_settings(connection: Any) -> SettingsSnapshot:
    """Read the snapshot on ``connection`` (connected to the benchmark database)."""
    cursor = connection.cursor()
    try:
        cursor.execute(CONFIGURATIONS_SQL)
        configs = {
            str(r[0]): ConfigValue(
                int(r[1]), int(r[2]), int(r[3]), int(r[4]), bool(r[5]), bool(r[6])
            )
            for r in cursor.fetchall()
        }
        cursor.execute(DATABASE_SQL)
        db = cursor.fetchone()
        cursor.execute(VERSION_SQL)
        version = cursor.fetchone()
        maxdop = _optional(cursor, DATABASE_MAXDOP_SQL)
        group = _optional(cursor, AVAILABILITY_GROUP_SQL)
    finally:
        cursor.close()
    if db is None:
        raise SettingsError("sys.databases has no row for the current database")
    return SettingsSnapshot(
        configurations=configs,
        recovery_model=str(db[0]),
        target_recovery_time_s=int(db[1] or 0),
        version=str(version[0]) if version else "",
        edition=str(version[1]) if version else "",
        database_maxdop=None if maxdop is None else int(maxdop),
        availability_group=None if group is None else str(group),
    )


def _optional(cursor: Any, query: str) -> Any:
    """The first value of ``query``; None when there is no row or the server lacks the view
    (a release before it: the error is the server's, the connection stays usable)."""
    error = pyodbc_module().Error  # loaded already: ``cursor`` is one of its cursors
    try:
        cursor.execute(query)
        row = cursor.fetchone()
    except error:
        return None
    return None if row is None else row[0]


def seed_003_preset(ram_mb: int | None = None) -> Preset:
    """Seed 003's SQL Server settings as a preset.

    ``ram_mb``: the server's memory. The seed gives none for max server memory; with
    ``ram_mb`` the preset caps it at RAM minus max(4 GiB, 10%), a common headroom for the OS
    (on the seed's 384 GB host: 353,895 MB), and says the value is derived. Without it the
    setting is left alone. Cost threshold for parallelism is left alone: with MAXDOP 1 no
    plan goes parallel, so its value changes nothing. No trace flags: the seed names none,
    and the ones tuning guides once gave for this load (1117, 1118) are the default behaviour
    since SQL Server 2016.
    """
    server = {"max degree of parallelism": 1}
    reasons = {
        "max degree of parallelism": "seed 003: Maximum Degree of Parallelism 1 (short OLTP"
        " transactions gain nothing from parallel plans)",
        "recovery model": "seed 003: Recovery Model Simple (no log backups during the runs;"
        " the log is truncated at checkpoints)",
        "target recovery time": "seed 003: Target Recovery Time 60 seconds (indirect"
        " checkpoints, a steady write rate)",
    }
    if ram_mb is not None:
        if ram_mb < 8192:
            raise SettingsError(f"ram_mb {ram_mb}: expected the server's memory, at least 8192 MB")
        server["max server memory (MB)"] = ram_mb - max(4096, ram_mb // 10)
        reasons["max server memory (MB)"] = (
            "derived, not in seed 003: RAM minus max(4 GiB, 10%) left to the OS"
        )
    notes = (
        "Lock Pages in Memory: enabled in seed 003; a privilege of the SQL Server service"
        " account, not an sp_configure option: not applied here.",
        "48 database files and 8 tempdb files (seed 003): set when the database and tempdb are"
        " created, not applied here.",
        "Recovery model SIMPLE breaks the log backup chain; undoing it to FULL needs a full"
        " backup before log backups work again.",
    )
    return Preset(
        "seed 003 (SQL Server 2017 on Linux, Micron 9300)", server, "SIMPLE", 60, reasons, notes
    )


def _sp_configure(name: str, value: int) -> str:
    literal = name.replace("'", "''")
    return f"EXEC sp_configure N'{literal}', {int(value)}"


def _database_options(database: str, recovery: str | None, target_s: int | None) -> list[str]:
    db = quote_name(database)
    out: list[str] = []
    if recovery is not None:
        model = recovery.upper()
        if model not in RECOVERY_MODELS:
            raise SettingsError(f"recovery model {recovery!r}: expected one of {RECOVERY_MODELS}")
        out.append(f"ALTER DATABASE {db} SET RECOVERY {model}")
    if target_s is not None:
        if not 0 <= target_s <= 86_400:
            raise SettingsError(f"target recovery time {target_s} s: expected 0..86400")
        out.append(f"ALTER DATABASE {db} SET TARGET_RECOVERY_TIME = {int(target_s)} SECONDS")
    return out


def apply_statements(preset: Preset, snapshot: SettingsSnapshot, database: str) -> list[str]:
    """The statements that apply ``preset``, in order, checked against the snapshot's limits.

    Advanced options need 'show advanced options' = 1 first; RECONFIGURE makes the values
    run (every option of the preset is dynamic: no restart).
    """
    configs = snapshot.configurations
    out: list[str] = []
    for name, value in preset.server.items():
        row = configs.get(name)
        if row is None:
            raise SettingsError(f"{name!r} is not an option of this server (sys.configurations)")
        if not row.minimum <= value <= row.maximum:
            raise SettingsError(f"{name!r} = {value}: outside {row.minimum}..{row.maximum}")
    advanced = any(configs[name].is_advanced for name in preset.server)
    if advanced and configs.get(SHOW_ADVANCED, ConfigValue(0, 0, 0, 1, True, False)).value != 1:
        out += [_sp_configure(SHOW_ADVANCED, 1), "RECONFIGURE"]
    out += [_sp_configure(name, value) for name, value in preset.server.items()]
    if preset.server:
        out.append("RECONFIGURE")
    out += _database_options(database, preset.recovery_model, preset.target_recovery_time_s)
    return out


def rollback_statements(preset: Preset, snapshot: SettingsSnapshot, database: str) -> list[str]:
    """The statements that put back what :func:`apply_statements` changed (previous values
    from the snapshot), 'show advanced options' last."""
    configs = snapshot.configurations
    out: list[str] = []
    for name in preset.server:
        row = configs.get(name)
        if row is None:
            raise SettingsError(f"{name!r} is missing from the snapshot: cannot undo it")
        out.append(_sp_configure(name, row.value))
    if out:
        out.append("RECONFIGURE")
    show = configs.get(SHOW_ADVANCED)
    if show is not None and show.value != 1 and any(configs[n].is_advanced for n in preset.server):
        out += [_sp_configure(SHOW_ADVANCED, show.value), "RECONFIGURE"]
    out += _database_options(
        database,
        snapshot.recovery_model if preset.recovery_model is not None else None,
        snapshot.target_recovery_time_s if preset.target_recovery_time_s is not None else None,
    )
    return out


def run_statements(connection: Any, statements: list[str]) -> None:
    """Run each statement on an autocommit connection (sp_configure refuses a transaction)."""
    cursor = connection.cursor()
    try:
        for statement in statements:
            cursor.execute(statement)
            while cursor.nextset():
                pass
    finally:
        cursor.close()
