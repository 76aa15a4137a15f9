"""Tune a SQL Server: seed 003's settings (or a user's preset file) diffed, applied and rolled
back, through pyodbc as the agent reaches the server (:mod:`bench_gui.engines.mssql.agent`).

**Not verified against a live server here**: no SQL Server runs where this was written. Every
statement this module can send is checked by sqlglot's T-SQL parser in the tests, which also
drive it through a recording connection (a test seam); a test against a real server runs when
``BENCH_GUI_TEST_MSSQL`` names one.

What is read: ``sys.configurations`` (``value``, what sp_configure set, and ``value_in_use``,
what runs) and the benchmark database's recovery model and target recovery time, by
:func:`bench_gui.engines.mssql.shared.settings.read_settings`. How a change is made:

- a server option: ``EXEC sp_configure`` then ``RECONFIGURE``; an advanced one (MAXDOP, max
  server memory) needs 'show advanced options' = 1 first, which is put back as it was right
  after. A dynamic option (``is_dynamic``) is in effect at once; another one only when the
  SQL Server service restarts, which this side never does (it says which: ``restart`` in the
  diff, ``pending_restart`` in the result);
- a database option: ``ALTER DATABASE ... SET RECOVERY`` / ``SET TARGET_RECOVERY_TIME``, in
  effect at once; and the database's own MAXDOP (``ALTER DATABASE SCOPED CONFIGURATION SET
  MAXDOP``, SQL Server 2016 on), which overrides the server's max degree of parallelism for
  the database: read, diffed and rolled back with it (0, "follow the server", whenever the
  server's is set). ``SET RECOVERY SIMPLE`` on a database of an Availability Group (which
  needs FULL) is refused, naming the group.

Before anything changes the login's rights are read from the catalog (ALTER SETTINGS for
sp_configure and RECONFIGURE, ALTER on the database for ALTER DATABASE) and a missing one is
refused with its name; should the server refuse anyway, what was already done is undone and
the error names the permission. :meth:`MssqlTuner.rollback` puts back the snapshot's values
exactly (the configured ``value`` of each option, the database's options, 'show advanced
options'). RECONFIGURE also puts in effect any value someone set earlier without running it:
such values are named in the result's messages.

The diff rows, results and errors are :mod:`bench_gui.remote.db_tuner`'s, shared by every
engine's tuner, so the CLI and the Database page show them the same way (``reload`` is "at
once").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Final

from bench_gui.core.plan_model import Target
from bench_gui.engines.mssql.diff import (
    database_statements,
    diff_options,
    pending_values,
    server_statements,
    sp_configure,
)
from bench_gui.engines.mssql.option_names import (
    DATABASE_MAXDOP,
    DATABASE_OPTIONS,
    RECOVERY_MODEL,
    TARGET_RECOVERY,
)
from bench_gui.engines.mssql.shared import settings
from bench_gui.engines.mssql.shared.connect import connect as odbc_connect
from bench_gui.engines.mssql.shared.connect import pyodbc_module, resolve_conninfo
from bench_gui.engines.mssql.shared.names import quote_name
from bench_gui.engines.tuning_terms import TunedSetting
from bench_gui.remote.db_tuner import (
    ApplyResult,
    DbTarget,
    DbTuner,
    DiffRow,
    HostFacts,
    NotEnoughPrivileges,
    TuningError,
    engine_login,
    taken_at,
)
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.odbc import message as odbc_message

PROFILE: Final = "mssql-seed-003"  # seed 003's settings (bench_gui.engines.mssql.shared.settings)

# The login's identity and rights, from catalog views only (no function the parser cannot
# check): its server-level tokens (the login, its server roles), its database-level tokens
# (the user, its roles), and the permissions granted or denied to any of them.
IDENTITY_SQL: Final = (
    "SELECT CAST(SERVERPROPERTY('MachineName') AS nvarchar(128)),"
    " CAST(SERVERPROPERTY('ServerName') AS nvarchar(128)),"
    " CAST(SERVERPROPERTY('InstanceDefaultDataPath') AS nvarchar(4000))"
)
LOGIN_TOKEN_SQL: Final = "SELECT name, type FROM sys.login_token"
USER_TOKEN_SQL: Final = "SELECT name, type FROM sys.user_token"
SERVER_PERMISSIONS_SQL: Final = (
    "SELECT p.permission_name, p.state FROM sys.server_permissions AS p"
    " JOIN sys.login_token AS t ON p.grantee_principal_id = t.principal_id"
)
DATABASE_PERMISSIONS_SQL: Final = (
    "SELECT p.permission_name, p.state FROM sys.database_permissions AS p"
    " JOIN sys.user_token AS t ON p.grantee_principal_id = t.principal_id WHERE p.class = 0"
)
MACHINE_SQL: Final = "SELECT CAST(physical_memory_kb AS bigint), cpu_count FROM sys.dm_os_sys_info"
READ_STATEMENTS: Final = (
    settings.CONFIGURATIONS_SQL,
    settings.DATABASE_SQL,
    settings.VERSION_SQL,
    settings.DATABASE_MAXDOP_SQL,
    settings.AVAILABILITY_GROUP_SQL,
    IDENTITY_SQL,
    LOGIN_TOKEN_SQL,
    USER_TOKEN_SQL,
    SERVER_PERMISSIONS_SQL,
    DATABASE_PERMISSIONS_SQL,
    MACHINE_SQL,
)
# SQL Server's errors for a missing right: sp_configure (15247), RECONFIGURE (5812), ALTER
# DATABASE (5011), and the generic "permission denied" (229, 262, 297, 300).
PERMISSION_ERRORS: Final = ("(15247)", "(5812)", "(5011)", "(229)", "(262)", "(297)", "(300)")


# -- what the login may do ----------------------------------------------------------------------


@dataclass(frozen=True)
class Rights:
    """What the login may change, from its tokens and permissions."""

    login: str
    user: str
    alter_settings: bool
    alter_database: bool

    def describe(self) -> str:
        parts = [
            "may change server options" if self.alter_settings else "no ALTER SETTINGS",
            "may alter the database" if self.alter_database else "no ALTER on the database",
        ]
        return ", ".join(parts)


def _granted(rows: list[tuple[Any, ...]]) -> tuple[set[str], set[str]]:
    granted = {str(r[0]).upper() for r in rows if str(r[1]).upper() in ("G", "W")}
    denied = {str(r[0]).upper() for r in rows if str(r[1]).upper() == "D"}
    return granted, denied


def rights_of(
    login_tokens: list[tuple[Any, ...]],
    user_tokens: list[tuple[Any, ...]],
    server_permissions: list[tuple[Any, ...]],
    database_permissions: list[tuple[Any, ...]],
) -> Rights:
    """The login's rights (see SQL Server's permission hierarchy): sysadmin may do anything;
    ALTER SETTINGS comes with serveradmin or CONTROL SERVER; ALTER on the database with
    db_owner (or being dbo), CONTROL on it, ALTER ANY DATABASE or CONTROL SERVER. A DENY wins
    over a grant, except for sysadmin."""
    roles = {str(r[0]).lower() for r in login_tokens if "ROLE" in str(r[1]).upper()}
    logins = [str(r[0]) for r in login_tokens if "LOGIN" in str(r[1]).upper()]
    users = [str(r[0]) for r in user_tokens if "USER" in str(r[1]).upper()]
    db_roles = {str(r[0]).lower() for r in user_tokens if "ROLE" in str(r[1]).upper()}
    server, server_denied = _granted(server_permissions)
    database, database_denied = _granted(database_permissions)
    if "sysadmin" in roles:
        return Rights(logins[0] if logins else "", "dbo", True, True)
    control = "CONTROL SERVER" in server and "CONTROL SERVER" not in server_denied
    settings_ok = ("serveradmin" in roles or control or "ALTER SETTINGS" in server) and (
        "ALTER SETTINGS" not in server_denied
    )
    owner = "db_owner" in db_roles or "dbo" in [u.lower() for u in users]
    database_ok = (
        owner or control or "ALTER ANY DATABASE" in server or bool({"ALTER", "CONTROL"} & database)
    ) and not ({"ALTER", "CONTROL"} & database_denied)
    return Rights(logins[0] if logins else "", users[0] if users else "", settings_ok, database_ok)


# -- the snapshot ---------------------------------------------------------------------------------


@dataclass
class MssqlSnapshot:
    """The state before an apply: the options it changes (configured value and value in use),
    'show advanced options', the database's options; enough to restore it exactly."""

    taken_at: str
    server: str
    identity: str
    database: str
    options: dict[str, dict[str, int]]  # name -> {"value", "value_in_use"}
    show_advanced: int
    recovery_model: str | None  # None: not changed by the apply
    target_recovery_time_s: int | None
    database_maxdop: int | None = None  # None: not changed by the apply

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["engine"] = "mssql"
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MssqlSnapshot:
        if data.get("engine") != "mssql":
            raise TuningError("the stored snapshot is not a SQL Server one: cannot restore it")
        options = {
            str(name): {"value": int(v["value"]), "value_in_use": int(v["value_in_use"])}
            for name, v in (data.get("options") or {}).items()
        }
        target = data.get("target_recovery_time_s")
        maxdop = data.get("database_maxdop")
        return cls(
            taken_at=str(data.get("taken_at", "")),
            server=str(data.get("server", "")),
            identity=str(data.get("identity", "")),
            database=str(data.get("database", "")),
            options=options,
            show_advanced=int(data.get("show_advanced", 0)),
            recovery_model=data.get("recovery_model"),
            target_recovery_time_s=None if target is None else int(target),
            database_maxdop=None if maxdop is None else int(maxdop),
        )


# -- the tuner ----------------------------------------------------------------------------------


def _is_permission_error(text: str) -> bool:
    return any(code in text for code in PERMISSION_ERRORS) or "permission" in text.lower()


@dataclass
class MssqlState:
    """What the steps read on the connection: the server's settings and its facts."""

    live: settings.SettingsSnapshot
    facts: dict[str, Any]

    @property
    def rights(self) -> Rights:
        f = self.facts
        return Rights(f["user"], f["database_user"], f["alter_settings"], f["alter_database"])


@dataclass(frozen=True)
class Changes:
    """An apply's rows by where they go: server options, and each database option."""

    server: dict[str, int]
    recovery: str | None
    target: int | None
    maxdop: int | None

    @classmethod
    def of(cls, todo: list[DiffRow]) -> Changes:
        by_name = {r.name: r for r in todo}

        def whole(name: str) -> int | None:
            return int(by_name[name].proposed) if name in by_name else None

        return cls(
            server={r.name: int(r.proposed) for r in todo if r.name not in DATABASE_OPTIONS},
            recovery=by_name[RECOVERY_MODEL].proposed if RECOVERY_MODEL in by_name else None,
            target=whole(TARGET_RECOVERY),
            maxdop=whole(DATABASE_MAXDOP),
        )

    @property
    def database(self) -> bool:
        return self.recovery is not None or self.target is not None or self.maxdop is not None


class MssqlTuner(DbTuner[Any, MssqlState, "MssqlSnapshot"]):
    """Diff, apply and roll back seed 003's settings (or a preset file's) on one SQL Server.

    ``connect``: a function returning a pyodbc connection on the benchmark database
    (autocommit); by default the agent's :func:`~bench_gui.engines.mssql.shared.connect.connect`
    on ``conninfo`` finished for this machine's SQL Server ODBC driver. Tests hand a
    recording connection here (no server exists where they run)."""

    control = None  # SQL Server is never restarted from here

    def __init__(
        self,
        conninfo: str,
        database: str,
        *,
        password: str | None = None,
        connect: Callable[[], Any] | None = None,
    ) -> None:
        try:
            quote_name(database)
        except ValueError as exc:
            raise TuningError(f"database: {exc}") from exc
        self.conninfo = conninfo
        self.database = database
        self.password = password
        self._connect = connect

    # ---- connections and facts ----------------------------------------------------------------

    def _open(self) -> Any:
        try:
            if self._connect is not None:
                return self._connect()
            text = resolve_conninfo(self.conninfo, self.database)
            return odbc_connect(text, password=self.password)
        except EngineError as exc:
            raise TuningError(str(exc)) from exc

    def _error(self, exc: BaseException, doing: str) -> TuningError:
        text = odbc_message(exc)
        return TuningError(
            f"SQL Server refused to {doing}: {text.splitlines()[0] if text else exc}"
        )

    def _all(self, conn: Any, sql: str) -> list[tuple[Any, ...]]:
        cursor = conn.cursor()
        try:
            cursor.execute(sql)
            rows = [tuple(r) for r in cursor.fetchall()]
            while cursor.nextset():
                pass
            return rows
        finally:
            cursor.close()

    def _read(self, conn: Any) -> settings.SettingsSnapshot:
        try:
            return settings.read_settings(conn)
        except pyodbc_module().Error as exc:
            raise self._error(exc, "show its configuration") from exc
        except settings.SettingsError as exc:
            raise TuningError(str(exc)) from exc

    def _rights(self, conn: Any) -> Rights:
        try:
            return rights_of(
                self._all(conn, LOGIN_TOKEN_SQL),
                self._all(conn, USER_TOKEN_SQL),
                self._all(conn, SERVER_PERMISSIONS_SQL),
                self._all(conn, DATABASE_PERMISSIONS_SQL),
            )
        except pyodbc_module().Error as exc:
            raise self._error(exc, "list the login's permissions") from exc

    def _facts(self, conn: Any) -> dict[str, Any]:
        """Version, edition, login and its rights, identity, default data path."""
        return self._facts_of(conn, self._read(conn))

    def _facts_of(self, conn: Any, snap: settings.SettingsSnapshot) -> dict[str, Any]:
        try:
            identity = self._all(conn, IDENTITY_SQL)
        except pyodbc_module().Error as exc:
            raise self._error(exc, "name itself") from exc
        machine, server_name, data_path = identity[0] if identity else ("", "", None)
        rights = self._rights(conn)
        return {
            "server": f"SQL Server {snap.version} ({snap.edition})".strip(),
            "version": snap.version,
            "edition": snap.edition,
            "user": rights.login,
            "database_user": rights.user,
            "database": self.database,
            "identity": f"{machine}|{server_name}",
            "data_directory": str(data_path) if data_path else None,
            "alter_settings": rights.alter_settings,
            "alter_database": rights.alter_database,
            "rights": rights.describe(),
        }

    def host_facts(self) -> HostFacts:
        """RAM and CPUs from sys.dm_os_sys_info (needs VIEW SERVER STATE)."""
        with self.connect() as conn:
            try:
                rows = self._all(conn, MACHINE_SQL)
            except pyodbc_module().Error as exc:
                return HostFacts(notes=[f"sys.dm_os_sys_info: {odbc_message(exc)}"])
        if not rows:
            return HostFacts(notes=["sys.dm_os_sys_info returned nothing"])
        kb, cpus = rows[0]
        return HostFacts(
            ram_bytes=int(kb) * 1024 if kb else None,
            cpus=int(cpus) if cpus else None,
            notes=["read through SQL Server (sys.dm_os_sys_info)"],
        )

    def read_settings(self) -> settings.SettingsSnapshot:
        with self.connect() as conn:
            return self._read(conn)

    def _state(self, conn: Any, names: list[str]) -> MssqlState:
        live = self._read(conn)
        return MssqlState(live, self._facts_of(conn, live))

    def _diff(self, items: list[TunedSetting], state: MssqlState) -> list[DiffRow]:
        return diff_options(items, state.live)

    def _fold(self, name: str) -> str:
        return name.strip().lower()

    # ---- privileges ---------------------------------------------------------------------------

    def _check_rights(self, rights: Rights, server: bool, database: bool) -> None:
        missing = []
        if server and not rights.alter_settings:
            missing.append(
                "the ALTER SETTINGS server permission (sp_configure and RECONFIGURE need it:"
                f" GRANT ALTER SETTINGS TO [{rights.login}], or the serveradmin role)"
            )
        if database and not rights.alter_database:
            missing.append(
                f"the ALTER permission on database {self.database} (ALTER DATABASE needs it:"
                f" GRANT ALTER ON DATABASE::[{self.database}] TO [{rights.user or rights.login}],"
                " or the db_owner role)"
            )
        if missing:
            raise NotEnoughPrivileges(
                f"login {rights.login or '?'} lacks {' and '.join(missing)}; nothing was changed"
            )

    # ---- running statements -------------------------------------------------------------------

    def _run(self, conn: Any, statements: list[tuple[str, str]], done: list[str]) -> None:
        """Run each statement; ``done`` gets the option each one set. A refusal raises
        NotEnoughPrivileges (naming the permission) or TuningError."""
        error = pyodbc_module().Error
        for statement, option in statements:
            try:
                settings.run_statements(conn, [statement])
            except error as exc:
                text = odbc_message(exc).splitlines()[0] if odbc_message(exc) else str(exc)
                if _is_permission_error(str(exc)):
                    what = (
                        f"the ALTER permission on database {self.database}"
                        if statement.startswith("ALTER DATABASE")
                        else "the ALTER SETTINGS server permission"
                    )
                    raise NotEnoughPrivileges(
                        f"SQL Server refused {statement!r}: {text} (it needs {what})"
                    ) from exc
                raise TuningError(f"SQL Server refused {statement!r}: {text}") from exc
            if option:
                done.append(option)

    def _restore(self, conn: Any, snapshot: MssqlSnapshot, names: list[str]) -> dict[str, str]:
        """Put ``names`` back to the snapshot's values; reasons for those that would not go."""
        live = self._read(conn)
        values = {n: snapshot.options[n]["value"] for n in names if n in snapshot.options}
        recovery = snapshot.recovery_model if RECOVERY_MODEL in names else None
        target = snapshot.target_recovery_time_s if TARGET_RECOVERY in names else None
        maxdop = snapshot.database_maxdop if DATABASE_MAXDOP in names else None
        failed: dict[str, str] = {}
        steps = server_statements(values, live.configurations)
        # 'show advanced options' as the snapshot had it.
        # server_statements leaves it as it is now; an apply that failed half way may have
        # left it on.
        show = live.configurations.get(settings.SHOW_ADVANCED)
        if snapshot.options and show is not None and show.value != snapshot.show_advanced:
            steps += [
                (sp_configure(settings.SHOW_ADVANCED, snapshot.show_advanced), ""),
                ("RECONFIGURE", ""),
            ]
        steps += database_statements(snapshot.database or self.database, recovery, target, maxdop)
        for statement, option in steps:
            done: list[str] = []
            try:
                self._run(conn, [(statement, option)], done)
            except TuningError as exc:
                failed[option or statement] = str(exc)
        return failed

    # ---- apply ----------------------------------------------------------------------------------

    def _may_apply(self, conn: Any, state: MssqlState, todo: list[DiffRow], restart: bool) -> None:
        """The login's rights for what changes (it is never restarted from here)."""
        changes = Changes.of(todo)
        self._check_rights(state.rights, bool(changes.server), changes.database)

    def _take_snapshot(self, conn: Any, state: MssqlState, todo: list[DiffRow]) -> MssqlSnapshot:
        c = Changes.of(todo)
        return self._snapshot(state.live, state.facts, c.server, c.recovery, c.target, c.maxdop)

    def _change(
        self,
        conn: Any,
        state: MssqlState,
        todo: list[DiffRow],
        snapshot: MssqlSnapshot,
        result: ApplyResult,
    ) -> list[str]:
        """The database's options, then sp_configure and RECONFIGURE; a refusal undoes what
        was done and says whether it could."""
        c = Changes.of(todo)
        pending = pending_values(state.live, set(c.server))
        if pending and c.server:
            result.messages.append(
                "RECONFIGURE also put in effect values set earlier but not running: "
                + ", ".join(pending)
            )
        steps = database_statements(self.database, c.recovery, c.target, c.maxdop)
        steps += server_statements(c.server, state.live.configurations)
        done: list[str] = []
        try:
            self._run(conn, steps, done)
        except TuningError as exc:
            failed = self._restore(conn, snapshot, done)
            undone = (
                "what was done is undone"
                if not failed
                else ("NOT undone: " + "; ".join(f"{n}: {why}" for n, why in failed.items()))
            )
            raise type(exc)(f"{exc}; {undone}") from exc  # fmt: skip
        return [r.name for r in todo]

    def _settle(
        self, result: ApplyResult, todo: list[DiffRow], snapshot: MssqlSnapshot, restart: bool
    ) -> None:
        """Static options wait for the service's restart (never done here); read back."""
        static = [r.name for r in todo if r.action == "restart"]
        if static:
            result.messages.append(
                "restart the SQL Server service (on Linux: systemctl restart mssql-server) to"
                f" put {', '.join(static)} in effect; bench-gui does not restart it"
            )
        result.pending_restart = static
        if restart and static:
            result.messages.append("--restart: SQL Server has no server control here")
        expected = {r.name: r.proposed for r in todo}
        self._verify(result, expected, static)
        if Changes.of(todo).recovery == "SIMPLE":
            result.messages.append(
                "recovery model SIMPLE breaks the log backup chain: after a rollback to FULL,"
                " take a full backup before log backups work again"
            )

    def _snapshot(
        self,
        live: settings.SettingsSnapshot,
        facts: Mapping[str, Any],
        server: Mapping[str, int],
        recovery: str | None,
        target: int | None,
        maxdop: int | None = None,
    ) -> MssqlSnapshot:
        show = live.configurations.get(settings.SHOW_ADVANCED)
        return MssqlSnapshot(
            taken_at=taken_at(),
            server=str(facts["server"]),
            identity=str(facts["identity"]),
            database=self.database,
            options={
                n: {
                    "value": live.configurations[n].value,
                    "value_in_use": live.configurations[n].value_in_use,
                }
                for n in server
            },
            show_advanced=show.value if show is not None else 0,
            recovery_model=live.recovery_model.upper() if recovery is not None else None,
            target_recovery_time_s=live.target_recovery_time_s if target is not None else None,
            database_maxdop=live.database_maxdop if maxdop is not None else None,
        )

    def _verify(self, result: ApplyResult, expected: Mapping[str, str], static: list[str]) -> None:
        """Read every option back: a dynamic one must run the value, a static one must at
        least be configured with it (it runs after a restart)."""
        now = self.read_settings()
        for name, want in expected.items():
            if name == RECOVERY_MODEL:
                shown = now.recovery_model.upper()
            elif name == TARGET_RECOVERY:
                shown = str(now.target_recovery_time_s)
            elif name == DATABASE_MAXDOP:
                shown = str(now.database_maxdop)
            else:
                row = now.configurations.get(name)
                if row is None:
                    result.mismatches[name] = "no such option"
                    continue
                shown = str(row.value if name in static else row.value_in_use)
            result.verified[name] = shown
            if shown != str(want).upper() and shown != str(want):
                result.mismatches[name] = shown

    # ---- rollback -------------------------------------------------------------------------------

    def _snapshot_names(self, snapshot: MssqlSnapshot) -> list[str]:
        names = [*snapshot.options]
        if snapshot.recovery_model is not None:
            names.append(RECOVERY_MODEL)
        if snapshot.target_recovery_time_s is not None:
            names.append(TARGET_RECOVERY)
        if snapshot.database_maxdop is not None:
            names.append(DATABASE_MAXDOP)
        return names

    def _identity(
        self, state: MssqlState, snapshot: MssqlSnapshot
    ) -> tuple[str | None, str | None]:
        return str(state.facts["identity"]), snapshot.identity

    def _may_restore(
        self, conn: Any, state: MssqlState, snapshot: MssqlSnapshot, restart: bool
    ) -> None:
        """The snapshot's database is this target's; the login's rights for what it restores."""
        if snapshot.database and snapshot.database != self.database:
            raise TuningError(
                f"the snapshot is of database {snapshot.database}, this target's is"
                f" {self.database}; nothing was changed"
            )
        database = (
            snapshot.recovery_model is not None
            or snapshot.target_recovery_time_s is not None
            or snapshot.database_maxdop is not None
        )
        self._check_rights(state.rights, bool(snapshot.options), database)

    def _restore_all(
        self, conn: Any, state: MssqlState, snapshot: MssqlSnapshot, result: ApplyResult
    ) -> None:
        """Each option's configured value, the database's options, 'show advanced options'."""
        names = self._snapshot_names(snapshot)
        result.skipped = self._restore(conn, snapshot, names)
        result.changed = [n for n in names if n not in result.skipped]

    def _settle_rollback(
        self, result: ApplyResult, state: MssqlState, snapshot: MssqlSnapshot, restart: bool
    ) -> None:
        """Read back; static options run their old value after the service restarts."""
        live = state.live
        static = [
            n for n in snapshot.options
            if n in live.configurations and not live.configurations[n].is_dynamic
        ]  # fmt: skip
        expected: dict[str, str] = {n: str(v["value"]) for n, v in snapshot.options.items()}
        if snapshot.recovery_model is not None:
            expected[RECOVERY_MODEL] = snapshot.recovery_model
        if snapshot.target_recovery_time_s is not None:
            expected[TARGET_RECOVERY] = str(snapshot.target_recovery_time_s)
        if snapshot.database_maxdop is not None:
            expected[DATABASE_MAXDOP] = str(snapshot.database_maxdop)
        self._verify(result, expected, static)
        now = self.read_settings()
        result.pending_restart = [
            n for n in static
            if n in now.configurations
            and now.configurations[n].value_in_use != snapshot.options[n]["value_in_use"]
        ]  # fmt: skip
        if result.pending_restart:
            result.messages.append(
                "restart the SQL Server service to put back "
                f"{', '.join(result.pending_restart)}; bench-gui does not restart it"
            )
        if snapshot.recovery_model == "FULL":
            result.messages.append(
                "recovery model FULL again: take a full backup before log backups work again"
            )


# -- targets ------------------------------------------------------------------------------------


@dataclass
class MssqlTuningTarget(DbTarget):
    """A SQL Server database to tune: its ODBC string, password, and a key for its history."""

    database: str
    password: str | None = None
    local: bool = False
    flavour: str = "mssql"

    def tuner(self) -> MssqlTuner:
        return MssqlTuner(self.conninfo, self.database, password=self.password)


def plan_mssql_target(target: Target) -> MssqlTuningTarget:
    """The tuning target of a plan's ``[target]`` of kind mssql (its benchmark database: the
    one ALTER DATABASE changes)."""
    engine, password = engine_login(target)
    try:
        conninfo = engine.conninfo(target, target.database)
    except ValueError as exc:
        raise TuningError(str(exc)) from exc
    where = target.dsn or f"{target.host}:{target.port}"
    user = f"{target.user}@" if target.user else ""
    label = f"{user}{where}/{target.database}"
    return MssqlTuningTarget(
        key=f"mssql://{label}",
        label=label,
        conninfo=conninfo,
        database=target.database,
        password=password,
        local=target.host in ("localhost", "127.0.0.1", "::1") and not target.dsn,
    )
