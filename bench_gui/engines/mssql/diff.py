"""SQL Server's changes as statements (sp_configure and RECONFIGURE, ALTER DATABASE) and the
diff of a proposal against the server's snapshot, with the values pending a RECONFIGURE."""

from __future__ import annotations

from collections.abc import Mapping

from bench_gui.engines.mssql.option_names import (
    DATABASE_MAXDOP,
    RECOVERY_MODEL,
    TARGET_RECOVERY,
)
from bench_gui.engines.mssql.shared import settings
from bench_gui.engines.mssql.shared.names import quote_name
from bench_gui.engines.tuning_terms import TunedSetting
from bench_gui.remote.db_tuner import (
    DiffRow,
    RejectedSettings,
    out_of_range,
    unknown_row,
)


def sp_configure(name: str, value: int) -> str:
    literal = name.replace("'", "''")
    return f"EXEC sp_configure N'{literal}', {int(value)}"


def server_statements(
    values: Mapping[str, int], configs: Mapping[str, settings.ConfigValue]
) -> list[tuple[str, str]]:
    """(statement, the option it sets or '') to set ``values``: 'show advanced options' = 1
    first when an advanced option is among them and it is off, and back as it was after."""
    if not values:
        return []
    show = configs.get(settings.SHOW_ADVANCED)
    shown = show.value if show is not None else 0
    advanced = any(configs[n].is_advanced for n in values if n in configs)
    out: list[tuple[str, str]] = []
    if advanced and shown != 1:
        out += [(sp_configure(settings.SHOW_ADVANCED, 1), ""), ("RECONFIGURE", "")]
    out += [(sp_configure(name, value), name) for name, value in values.items()]
    out.append(("RECONFIGURE", ""))
    if advanced and shown != 1:
        out += [(sp_configure(settings.SHOW_ADVANCED, shown), ""), ("RECONFIGURE", "")]
    return out


def database_statements(
    database: str, recovery: str | None, target_s: int | None, maxdop: int | None = None
) -> list[tuple[str, str]]:
    """(statement, the option it sets) for the database's options given (MAXDOP on the
    connection's database: the tuner's is the benchmark database)."""
    db = quote_name(database)
    out: list[tuple[str, str]] = []
    if recovery is not None:
        model = recovery.upper()
        if model not in settings.RECOVERY_MODELS:
            raise RejectedSettings({RECOVERY_MODEL: f"{recovery!r} is not a recovery model"})
        out.append((f"ALTER DATABASE {db} SET RECOVERY {model}", RECOVERY_MODEL))
    if target_s is not None:
        out.append(
            (f"ALTER DATABASE {db} SET TARGET_RECOVERY_TIME = {int(target_s)} SECONDS",
             TARGET_RECOVERY)
        )  # fmt: skip
    if maxdop is not None:
        out.append(
            (f"ALTER DATABASE SCOPED CONFIGURATION SET MAXDOP = {int(maxdop)}", DATABASE_MAXDOP)
        )
    return out


# -- the diff -------------------------------------------------------------------------------------


def _whole(value: str) -> int | None:
    try:
        return int(value.strip())
    except ValueError:
        return None


def diff_options(items: list[TunedSetting], snapshot: settings.SettingsSnapshot) -> list[DiffRow]:
    """Each proposed option against the server: ``reload`` is in effect at once (a dynamic
    option, a database option), ``restart`` when the service restarts, ``same``, ``invalid``
    or ``unknown``. A server option's current value is the one in use; ``pending_restart``
    marks one whose configured value is not running yet."""
    rows: list[DiffRow] = []
    spelled = {n.lower(): n for n in snapshot.configurations}  # sp_configure ignores case
    for item in items:
        name = item.name.strip().lower()
        if name in spelled:
            name = spelled[name]
        if name == RECOVERY_MODEL:
            model = item.value.strip().upper()
            current = snapshot.recovery_model.upper()
            if model not in settings.RECOVERY_MODELS:
                problem = f"{item.value!r}: expected {', '.join(settings.RECOVERY_MODELS)}"
                rows.append(DiffRow(name, item.value, item.rule, current, "invalid", problem))
                continue
            group = snapshot.availability_group
            if model == "SIMPLE" and model != current and group:
                problem = (
                    f"the database is in Availability Group {group!r}, which needs the FULL"
                    " recovery model: SET RECOVERY SIMPLE is refused (leave it out, or remove"
                    " the database from the group first)"
                )
                rows.append(DiffRow(name, model, item.rule, current, "invalid", problem))
                continue
            action = "same" if model == current else "reload"
            rows.append(DiffRow(name, model, item.rule, current, action, "", "at once", "database"))
            continue
        if name == DATABASE_MAXDOP:
            rows.append(_maxdop_row(item, snapshot.database_maxdop))
            continue
        if name == TARGET_RECOVERY:
            seconds = _whole(item.value)
            current = str(snapshot.target_recovery_time_s)
            if seconds is None or not 0 <= seconds <= 86_400:
                problem = f"{item.value!r}: expected 0..86400 seconds"
                rows.append(DiffRow(name, item.value, item.rule, current, "invalid", problem))
                continue
            action = "same" if seconds == snapshot.target_recovery_time_s else "reload"
            rows.append(
                DiffRow(name, str(seconds), item.rule, current, action, "", "at once", "database")
            )
            continue
        row = snapshot.configurations.get(name)
        if row is None:
            rows.append(unknown_row(name, item, "sp_configure option"))
            continue
        value = _whole(item.value)
        current = str(row.value_in_use)
        context = "dynamic" if row.is_dynamic else "static"
        if value is None or not row.minimum <= value <= row.maximum:
            problem = (
                f"{item.value!r} is not a whole number"
                if value is None
                else out_of_range(value, row.minimum, row.maximum)
            )
            rows.append(DiffRow(name, item.value, item.rule, current, "invalid", problem, context))
            continue
        if value == row.value and value == row.value_in_use:
            action = "same"
        else:
            action = "reload" if row.is_dynamic else "restart"
        rows.append(
            DiffRow(name, str(value), item.rule, current, action, "", context, "server",
                    pending_restart=row.value != row.value_in_use)
        )  # fmt: skip
    return rows


def _maxdop_row(item: TunedSetting, current: int | None) -> DiffRow:
    """The database-scoped MAXDOP: nothing to do on a server without it (before 2016)."""
    if current is None:
        rule = f"{item.rule} (this server has no database-scoped configuration: nothing to do)"
        return DiffRow(DATABASE_MAXDOP, item.value, rule, None, "same", "", "at once", "database")
    value = _whole(item.value)
    if value is None or not 0 <= value <= 32767:
        problem = f"{item.value!r}: expected 0..32767 (0: follow the server)"
        return DiffRow(DATABASE_MAXDOP, item.value, item.rule, str(current), "invalid", problem)
    action = "same" if value == current else "reload"
    return DiffRow(
        DATABASE_MAXDOP, str(value), item.rule, str(current), action, "", "at once", "database"
    )


def pending_values(snapshot: settings.SettingsSnapshot, leave: set[str]) -> list[str]:
    """Dynamic options whose configured value is not running (RECONFIGURE would run it),
    but those in ``leave``."""
    return sorted(
        f"{name} ({row.value_in_use} → {row.value})"
        for name, row in snapshot.configurations.items()
        if row.is_dynamic and row.value != row.value_in_use and name not in leave
    )
