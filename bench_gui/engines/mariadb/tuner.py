"""Tune a real MariaDB or MySQL: read the InnoDB variables, diff, apply, verify, roll back.

Reached through pyodbc and the Connector/ODBC, as the agent reaches it
(:mod:`bench_gui.engines.mariadb.shared.odbc`); the password is added at connect time only.

How a change is made, per flavour:

- **MySQL** (8.0+): ``SET PERSIST`` for a dynamic variable (in effect at once and kept in
  ``mysqld-auto.cnf``), ``SET PERSIST_ONLY`` for a static one (in effect after a restart);
- **MariaDB** has no SET PERSIST: a dynamic variable is ``SET GLOBAL`` (in effect at once) and
  every changed variable is also written into an option file so that it survives a restart:
  one of our own (:data:`DEFAULT_CONFIG_FILE`, an include file) or the one the user chose,
  edited in place keeping all else (:mod:`bench_gui.engines.mariadb.option_file`); a static one
  (``information_schema.SYSTEM_VARIABLES.READ_ONLY``) is only written there and takes effect
  when the server restarts. Writing the file needs the server's machine (this one, or an SSH
  host as root).

Which variables need a restart is said in the diff (``restart``) and in the result
(``pending_restart``); a restart is done only through a server control when one is given
(``systemctl:UNIT``). :meth:`MariaDbTuner.rollback` restores a :class:`MariaDbSnapshot`
exactly: the global values, the configuration file byte for byte (removed if it did not
exist), MySQL's persisted values. Missing privileges are refused before anything changes, with
the privilege named.

The diff rows, results and errors are :mod:`bench_gui.remote.db_tuner`'s, shared by every
engine's tuner, so the CLI and the Database page show them the same way (``reload`` there
means "in effect at once").
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from bench_gui.core.plan_model import Target
from bench_gui.engines.mariadb.innodb import (
    ENUM_VARIABLES,
    MYSQL_STATIC,
    DbVersion,
    InnoDbValueError,
    display,
    flavour_of,
    normalize,
    same_value,
    sql_value,
)
from bench_gui.engines.mariadb.option_file import edit_cnf
from bench_gui.engines.mariadb.shared import odbc
from bench_gui.engines.tuning_terms import TunedSetting
from bench_gui.remote.connection import SSHConnection
from bench_gui.remote.db_tuner import (
    ApplyResult,
    DbTarget,
    DbTuner,
    DiffRow,
    HostFacts,
    NoServerControl,
    NotEnoughPrivileges,
    TuningError,
    diff_rows,
    engine_login,
    first_line,
    not_accepted,
    out_of_range,
    outside,
    set_each,
    taken_at,
)
from bench_gui.remote.host_access import HostIO, SSHHost
from bench_gui.wire import odbc as wire_odbc
from bench_gui.wire.engine_errors import EngineError

DEFAULT_CONFIG_FILE: Final = "/etc/mysql/mariadb.conf.d/99-bench-gui.cnf"
_NAME_RE: Final = re.compile(r"^[a-z_][a-z0-9_]*$")
# Privileges that allow SET GLOBAL / SET PERSIST (MySQL 8 split SUPER up).
MARIADB_PRIVILEGES: Final = ("SUPER",)
MYSQL_PRIVILEGES: Final = ("SYSTEM_VARIABLES_ADMIN", "SUPER")
ACCESS_DENIED: Final = ("(1227)", "42000")
# Never lowered below the server's current value by a rule (see _never_lowered).
NEVER_LOWERED: Final = frozenset({"max_connections"})
# Sized from max_connections when the server starts, and only then (see rollback).
DERIVED_AT_START: Final = ("back_log", "thread_cache_size", "host_cache_size")
_SETTLE_S: Final = 60.0  # a buffer pool resize runs in the background


@dataclass
class Variable:
    """One server variable as the server reports it."""

    name: str
    value: str
    read_only: bool
    vartype: str = ""
    minimum: str | None = None
    maximum: str | None = None
    choices: list[str] = field(default_factory=list)

    @property
    def display(self) -> str:
        return display(self.name, self.value)


@dataclass
class MariaDbSnapshot:
    """The state before an apply: enough to restore it exactly."""

    taken_at: str
    server: str
    flavour: str
    server_uuid: str | None  # MySQL's @@server_uuid; MariaDB: the hostname and port
    config_file: str | None
    config_text: str | None  # None: the file did not exist
    values: dict[str, str]  # name -> global value as SHOW GLOBAL VARIABLES printed it
    read_only: list[str]
    persisted: dict[str, str]  # MySQL: name -> persisted value before (absent: none)
    # DERIVED_AT_START's values before an apply that changed max_connections.
    derived: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["engine"] = self.flavour
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MariaDbSnapshot:
        return cls(
            taken_at=str(data.get("taken_at", "")),
            server=str(data.get("server", "")),
            flavour=str(data.get("flavour", "mariadb")),
            server_uuid=data.get("server_uuid"),
            config_file=data.get("config_file"),
            config_text=data.get("config_text"),
            values={str(k): str(v) for k, v in (data.get("values") or {}).items()},
            read_only=[str(n) for n in data.get("read_only") or []],
            persisted={str(k): str(v) for k, v in (data.get("persisted") or {}).items()},
            derived={str(k): str(v) for k, v in (data.get("derived") or {}).items()},
        )


# -- server control ---------------------------------------------------------------------------


class ServiceControl:
    """Restarts the server with a command on its host (``systemctl restart UNIT``)."""

    def __init__(self, host: HostIO, argv: list[str], label: str) -> None:
        self.host = host
        self.argv = argv
        self.label = label

    def restart(self, timeout: float = 300.0) -> tuple[bool, str]:
        result = self.host.run(self.argv, root=True, timeout=timeout)
        return result.ok, (result.stdout + result.stderr).strip()


def parse_service_control(spec: str, host: HostIO) -> ServiceControl:
    """``systemctl:UNIT`` -> a control; anything else is refused, naming what is known."""
    kind, _, unit = spec.partition(":")
    if kind != "systemctl" or not re.fullmatch(r"[\w@.\-]+", unit):
        raise TuningError(
            f"--control {spec!r}: a MariaDB/MySQL server restarts with systemctl:UNIT"
            " (e.g. systemctl:mariadb)"
        )
    return ServiceControl(host, ["systemctl", "restart", unit], f"systemctl restart {unit}")


# -- the tuner ----------------------------------------------------------------------------------


def _first_line(exc: BaseException) -> str:
    return first_line(wire_odbc.message(exc), exc)


@dataclass
class MyState:
    """What the steps read on the connection: the server's facts and the touched variables."""

    facts: dict[str, Any]
    current: dict[str, Variable]

    @property
    def flavour(self) -> str:
        return str(self.facts["flavour"])


class MariaDbTuner(DbTuner[Any, MyState, MariaDbSnapshot]):
    """Diff, apply and roll back InnoDB variables on one MariaDB or MySQL server."""

    control: ServiceControl | None

    def __init__(
        self,
        conninfo: str,
        flavour: str = "mariadb",
        *,
        password: str | None = None,
        host: HostIO | None = None,
        config_file: str = DEFAULT_CONFIG_FILE,
        control: ServiceControl | None = None,
        settle_timeout: float = _SETTLE_S,
    ) -> None:
        self.conninfo = conninfo
        self.flavour = flavour
        self.password = password
        self.host = host
        self.config_file = config_file
        self.control = control
        self.settle_timeout = settle_timeout

    # ---- connections and facts ----------------------------------------------------------------

    def _open(self) -> Any:
        extra = {"PWD": self.password} if self.password is not None else {}
        try:
            return odbc.connect(self.conninfo, self.flavour, what="server", **extra)
        except EngineError as exc:
            raise TuningError(str(exc)) from exc

    @staticmethod
    def _scalar(conn: Any, query: str) -> Any:
        row = conn.cursor().execute(query).fetchone()
        return row[0] if row else None

    def _facts(self, conn: Any) -> dict[str, Any]:
        """Version, flavour, user, its global privileges, data directory, identity."""
        version = str(self._scalar(conn, "SELECT VERSION()"))
        flavour = flavour_of(version)
        cur = conn.cursor()
        row = cur.execute(
            "SELECT CURRENT_USER(), @@datadir, @@hostname, @@port, @@version_comment"
        ).fetchone()
        uuid = None
        if flavour == "mysql":
            uuid = self._scalar(conn, "SELECT @@server_uuid")
        grants = [str(r[0]) for r in cur.execute("SHOW GRANTS").fetchall()]
        return {
            "server": f"{version} ({row[4]})",
            "version": str(DbVersion.parse(version)),
            "flavour": flavour,
            "user": str(row[0]),
            "data_directory": str(row[1]),
            "identity": str(uuid or f"{row[2]}:{row[3]}"),
            "privileges": global_privileges(grants),
        }

    def read_settings(self, names: list[str]) -> dict[str, Variable]:
        with self.connect() as conn:
            return self._read(conn, names, self._facts(conn)["flavour"])

    def _read(self, conn: Any, names: list[str], flavour: str) -> dict[str, Variable]:
        wanted = [n.lower() for n in names]
        for name in wanted:
            if not _NAME_RE.match(name):
                raise TuningError(f"{name!r} is not a server variable name")
        if not wanted:
            return {}
        listed = ", ".join(f"'{n}'" for n in wanted)
        cur = conn.cursor()
        out: dict[str, Variable] = {}
        if flavour == "mariadb":
            rows = cur.execute(
                "SELECT LOWER(VARIABLE_NAME), GLOBAL_VALUE, READ_ONLY, VARIABLE_TYPE,"
                " NUMERIC_MIN_VALUE, NUMERIC_MAX_VALUE, ENUM_VALUE_LIST"
                " FROM information_schema.SYSTEM_VARIABLES"
                f" WHERE LOWER(VARIABLE_NAME) IN ({listed})"
            ).fetchall()
            for r in rows:
                out[r[0]] = Variable(
                    r[0],
                    "" if r[1] is None else str(r[1]),
                    str(r[2]).upper() == "YES",
                    str(r[3] or ""),
                    None if r[4] is None else str(r[4]),
                    None if r[5] is None else str(r[5]),
                    [c for c in str(r[6] or "").split(",") if c],
                )
            return out
        rows = cur.execute(
            f"SHOW GLOBAL VARIABLES WHERE LOWER(Variable_name) IN ({listed})"
        ).fetchall()
        for r in rows:
            name = str(r[0]).lower()
            out[name] = Variable(name, str(r[1] or ""), name in MYSQL_STATIC)
        return out

    def _state(self, conn: Any, names: list[str]) -> MyState:
        facts = self._facts(conn)
        return MyState(facts, self._read(conn, names, facts["flavour"]))

    def _diff(self, items: list[TunedSetting], state: MyState) -> list[DiffRow]:
        return diff_variables(items, state.current)

    def host_facts(self) -> HostFacts:
        """Nothing of the machine is read through the server (that needs the FILE privilege
        and secure_file_priv): the service reads it on the host itself when it can."""
        return HostFacts(notes=["MariaDB/MySQL: the machine is read on its host, not via SQL"])

    # ---- privileges ---------------------------------------------------------------------------

    @staticmethod
    def _check_privileges(facts: Mapping[str, Any]) -> None:
        held = set(facts["privileges"])
        needed = MYSQL_PRIVILEGES if facts["flavour"] == "mysql" else MARIADB_PRIVILEGES
        if "ALL PRIVILEGES" in held or held & set(needed):
            return
        what = " or ".join(needed)
        raise NotEnoughPrivileges(
            f"database user {facts['user']} may not change server variables: SET GLOBAL"
            f"{' and SET PERSIST' if facts['flavour'] == 'mysql' else ''} need the {what}"
            f" privilege (GRANT {needed[0]} ON *.* TO {facts['user']}); or connect as root"
        )

    # ---- snapshots ----------------------------------------------------------------------------

    def _read_config(self) -> str | None:
        if self.host is None:
            return None
        try:
            return self.host.read_text(self.config_file, root=True)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise TuningError(f"cannot read {self.config_file}: {exc}") from exc

    def _persisted(self, conn: Any, names: list[str]) -> dict[str, str]:
        listed = ", ".join(f"'{n}'" for n in names)
        rows = (
            conn.cursor()
            .execute(
                "SELECT LOWER(VARIABLE_NAME), VARIABLE_VALUE"
                " FROM performance_schema.persisted_variables"
                f" WHERE LOWER(VARIABLE_NAME) IN ({listed})"
            )
            .fetchall()
        )
        return {str(r[0]): str(r[1]) for r in rows}

    def _take_snapshot(self, conn: Any, state: MyState, todo: list[DiffRow]) -> MariaDbSnapshot:
        facts = state.facts
        current = {r.name: state.current[r.name] for r in todo}
        mariadb = facts["flavour"] == "mariadb"
        return MariaDbSnapshot(
            taken_at=taken_at(),
            server=str(facts["server"]),
            flavour=str(facts["flavour"]),
            server_uuid=str(facts["identity"]),
            config_file=self.config_file if mariadb and self.host is not None else None,
            config_text=self._read_config() if mariadb else None,
            values={n: v.value for n, v in current.items()},
            read_only=[n for n, v in current.items() if v.read_only],
            persisted={} if mariadb else self._persisted(conn, list(current)),
            derived=(
                {
                    n: v.value
                    for n, v in self._read(conn, list(DERIVED_AT_START), facts["flavour"]).items()
                }
                if "max_connections" in current
                else {}
            ),
        )

    # ---- changing values ----------------------------------------------------------------------

    @staticmethod
    def _set(conn: Any, verb: str, name: str, value: str) -> str:
        """``SET <verb> name = value``; '' or the server's reason for refusing it."""
        try:
            literal = sql_value(name, value)
        except InnoDbValueError as exc:
            return str(exc)
        try:
            conn.cursor().execute(f"SET {verb} {name} = {literal}")
        except odbc.pyodbc_module().Error as exc:
            text = _first_line(exc)
            if any(code in str(exc) for code in ACCESS_DENIED) and "denied" in text.lower():
                raise NotEnoughPrivileges(f"the server refused to change {name}: {text}") from exc
            return text
        return ""

    def _set_row(self, conn: Any, flavour: str, row: DiffRow) -> str:
        """MariaDB: SET GLOBAL a dynamic variable (a static one only goes in the option file);
        MySQL: SET PERSIST, or PERSIST_ONLY for a static one. '' or the server's reason."""
        if flavour == "mariadb":
            return (
                "" if row.action == "restart" else self._set(conn, "GLOBAL", row.name, row.proposed)
            )
        verb = "PERSIST_ONLY" if row.action == "restart" else "PERSIST"
        return self._set(conn, verb, row.name, row.proposed)

    def _write_config(self, text: str | None) -> None:
        assert self.host is not None
        try:
            if text is None:
                result = self.host.run(["rm", "-f", "--", self.config_file], root=True)
                if not result.ok:
                    raise OSError(result.first_error_line())
            else:
                self.host.write_text(self.config_file, text, root=True)
        except OSError as exc:
            raise TuningError(
                f"cannot write {self.config_file} on {self.host.label}: {exc}"
            ) from exc

    # ---- apply ----------------------------------------------------------------------------------

    def _may_apply(self, conn: Any, state: MyState, todo: list[DiffRow], restart: bool) -> None:
        """The privilege to set variables; MariaDB's static ones need the option file."""
        self._check_privileges(state.facts)
        if state.flavour == "mariadb" and self.host is None:
            static = [r.name for r in todo if r.action == "restart"]
            if static:
                raise NoServerControl(
                    f"{', '.join(static)} can only change in the server's option file and"
                    f" this side cannot reach {self.config_file} (give --ssh)"
                )

    def _change(
        self,
        conn: Any,
        state: MyState,
        todo: list[DiffRow],
        snapshot: MariaDbSnapshot,
        result: ApplyResult,
    ) -> list[str]:
        """SET each variable (io capacity's ceiling in the order it allows), then MariaDB's
        option file; a refusal restores what was set."""
        done: list[str] = []
        try:
            set_each(
                _io_order(todo, state.current),
                lambda row: self._set_row(conn, state.flavour, row),
                done,
                lambda: self._restore(conn, snapshot, done),
            )
        except NotEnoughPrivileges:  # PERSIST_ONLY needs PERSIST_RO_VARIABLES_ADMIN
            self._restore(conn, snapshot, done)
            raise
        if state.flavour == "mariadb" and self.host is not None:
            values = {r.name: r.proposed for r in todo}
            rules = {r.name: r.rule for r in todo}
            self._write_config(edit_cnf(snapshot.config_text, values, rules))
        elif state.flavour == "mariadb":
            result.messages.append(
                "set with SET GLOBAL only: this side cannot reach the server's option file,"
                " so the values are lost when the server restarts"
            )
        return done

    def _settle(
        self, result: ApplyResult, todo: list[DiffRow], snapshot: MariaDbSnapshot, restart: bool
    ) -> None:
        """A restart through the control when asked (static variables), else what waits for
        one; every value read back."""
        if "max_connections" in result.changed:
            result.messages.append(
                f"{', '.join(DERIVED_AT_START)} are sized from max_connections when the server"
                " starts: they follow the new value after the next restart, and keep it until a"
                " restart after a rollback"
            )
        expected = {r.name: r.proposed for r in todo if r.action != "restart"}
        pending = [r.name for r in todo if r.action == "restart"]
        if pending and restart:
            if self.control is None:
                result.pending_restart = pending
                result.messages.append("no server control to restart it (give --control)")
            else:
                self._restart()
                result.restarted = True
                expected.update({r.name: r.proposed for r in todo})
                pending = []
        result.pending_restart = pending
        self._verify(result, expected, pending)

    def _restart(self) -> None:
        assert self.control is not None
        ok, detail = self.control.restart()
        if not ok:
            raise TuningError(f"{self.control.label} failed: {detail}")

    def _restore(self, conn: Any, snapshot: MariaDbSnapshot, names: list[str]) -> dict[str, str]:
        """Put ``names`` back to the snapshot's values; reasons for those that would not go."""
        failed: dict[str, str] = {}
        current = {n: Variable(n, v, n in snapshot.read_only) for n, v in snapshot.values.items()}
        rows = [DiffRow(n, snapshot.values[n], "", None, "reload") for n in names]
        for row in _io_order(rows, current):
            name = row.name
            if snapshot.flavour == "mysql":
                if name in snapshot.persisted:
                    verb = "PERSIST_ONLY" if name in snapshot.read_only else "PERSIST"
                    reason = self._set(conn, verb, name, snapshot.persisted[name])
                else:
                    try:
                        conn.cursor().execute(f"RESET PERSIST IF EXISTS {name}")
                        reason = ""
                    except odbc.pyodbc_module().Error as exc:
                        reason = _first_line(exc)
                    if not reason and name not in snapshot.read_only:
                        reason = self._set(conn, "GLOBAL", name, snapshot.values[name])
            elif name in snapshot.read_only:
                reason = ""  # only ever written in the option file
            else:
                reason = self._set(conn, "GLOBAL", name, snapshot.values[name])
            if reason:
                failed[name] = reason
        return failed

    def _verify(self, result: ApplyResult, expected: Mapping[str, str], skip: list[str]) -> None:
        """Read every value back (a buffer pool resize settles in the background)."""
        names = list(dict.fromkeys([*expected, *skip]))
        deadline = time.monotonic() + self.settle_timeout
        while True:
            now = self.read_settings(names)
            waiting = [
                n for n, v in expected.items() if n in now and not same_value(n, v, now[n].value)
            ]
            if not waiting or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        for name in names:
            row = now.get(name)
            if row is None:
                result.mismatches[name] = "no such variable"
                continue
            result.verified[name] = row.display
            if name in expected and not same_value(name, expected[name], row.value):
                result.mismatches[name] = row.display

    # ---- rollback -------------------------------------------------------------------------------

    def _snapshot_names(self, snapshot: MariaDbSnapshot) -> list[str]:
        return list(snapshot.values)

    def _identity(self, state: MyState, snapshot: MariaDbSnapshot) -> tuple[str | None, str | None]:
        return str(state.facts["identity"]), snapshot.server_uuid

    def _may_restore(
        self, conn: Any, state: MyState, snapshot: MariaDbSnapshot, restart: bool
    ) -> None:
        """The privilege; the snapshot's option file must be within reach."""
        self._check_privileges(state.facts)
        if snapshot.config_file is not None:
            if self.host is None:
                raise TuningError(
                    f"the snapshot's {snapshot.config_file} is on the server's machine,"
                    " which this side cannot reach (give --ssh); nothing was changed"
                )
            self.config_file = snapshot.config_file

    def _restore_all(
        self, conn: Any, state: MyState, snapshot: MariaDbSnapshot, result: ApplyResult
    ) -> None:
        """The global values (MySQL's persisted ones), the option file exactly."""
        names = list(snapshot.values)
        result.skipped = self._restore(conn, snapshot, names)
        if snapshot.config_file is not None:
            self._write_config(snapshot.config_text)
            result.auto_conf_restored = self._read_config() == snapshot.config_text
        result.changed = [n for n in names if n not in result.skipped]

    def _settle_rollback(
        self, result: ApplyResult, state: MyState, snapshot: MariaDbSnapshot, restart: bool
    ) -> None:
        """Static variables take their old value back after a restart (done through the
        control when asked); every value read back."""
        live = state.current
        pending = [
            n
            for n in snapshot.read_only
            if n in live and not same_value(n, snapshot.values[n], live[n].value)
        ]
        if pending and restart and self.control is not None:
            self._restart()
            result.restarted = True
            pending = []
        result.pending_restart = pending
        expected = {n: v for n, v in snapshot.values.items() if n not in pending}
        self._verify(result, expected, pending)
        if "max_connections" in snapshot.values and not result.restarted:
            result.messages += self._derived_notes(snapshot)

    def _derived_notes(self, snapshot: MariaDbSnapshot) -> list[str]:
        """What of DERIVED_AT_START still differs from before the apply (they change only when
        the server starts): said after a rollback, since SET GLOBAL max_connections does not
        bring them back."""
        if not snapshot.derived:
            return [
                f"{', '.join(DERIVED_AT_START)} are sized from max_connections when the server"
                " starts: if it restarted since the apply they keep those values until the next"
                " restart"
            ]
        now = self.read_settings(list(DERIVED_AT_START))
        differ = [
            f"{n} is {now[n].value} (was {old})"
            for n, old in snapshot.derived.items()
            if n in now and now[n].value != old
        ]
        if not differ:
            return []
        return [
            f"until the server restarts, values sized from max_connections at its start stay"
            f" as the applied max_connections made them: {', '.join(differ)}"
        ]


# -- pure helpers ---------------------------------------------------------------------------------


def global_privileges(grants: list[str]) -> list[str]:
    """The privileges granted ``ON *.*`` in ``SHOW GRANTS`` lines, upper case."""
    held: list[str] = []
    for line in grants:
        match = re.match(r"GRANT (.+?) ON \*\.\* TO", line, re.IGNORECASE)
        if match:
            held += [p.strip().upper() for p in match.group(1).split(",")]
    return held


def check_variable(var: Variable, value: str) -> str:
    """Why the server would refuse ``value`` for ``var`` ('' if it would take it)."""
    normal = normalize(var.name, value)
    if var.name in ENUM_VARIABLES or var.choices:
        choices = [c.upper() for c in var.choices]
        if choices and str(normal) not in choices:
            return not_accepted(value, var.choices)
        return ""
    if not isinstance(normal, int):
        return f"{value!r} is not a number" if var.vartype and var.vartype != "VARCHAR" else ""
    limits = outside(normal, var.minimum, var.maximum, int)
    if limits is not None:
        low, high = limits
        return out_of_range(value, display(var.name, str(low)), display(var.name, str(high)))
    return ""


def diff_variables(items: list[TunedSetting], current: Mapping[str, Variable]) -> list[DiffRow]:
    """Each proposed variable against the server: ``reload`` is in effect at once (dynamic),
    ``restart`` only after a restart (static), ``same``, ``invalid`` or ``unknown``."""
    return diff_rows(items, current, "variable", _variable_row)


def _never_lowered(item: TunedSetting, var: Variable) -> TunedSetting:
    """A max_connections below the server's current value keeps the current one: the server
    serves others besides the benchmark (a rule's value; one typed by hand is taken as is)."""
    if item.name.lower() not in NEVER_LOWERED or item.source == "user":
        return item
    try:
        proposed, current = int(item.value), int(var.value)
    except ValueError:
        return item
    if proposed >= current:
        return item
    if "never lowered" in item.rule:  # the rule raised it to the default already
        rule = f"{item.rule}; the server's {current} is kept"
    else:
        rule = f"{item.rule} = {proposed}; the server's {current} is kept: never lowered"
    return TunedSetting(item.name, str(current), rule, item.source)


def _variable_row(name: str, item: TunedSetting, var: Variable) -> DiffRow:
    item = _never_lowered(item, var)
    problem = check_variable(var, item.value)
    if problem:
        action = "invalid"
    elif same_value(name, item.value, var.value):
        action = "same"
    else:
        action = "restart" if var.read_only else "reload"
    context = "static" if var.read_only else "dynamic"
    return DiffRow(name, item.value, item.rule, var.display, action, problem, context, "server")


def _io_order(rows: list[DiffRow], current: Mapping[str, Variable]) -> list[DiffRow]:
    """innodb_io_capacity may not exceed innodb_io_capacity_max: raise the ceiling first and
    lower it last."""
    names = [r.name for r in rows]
    if not {"innodb_io_capacity", "innodb_io_capacity_max"} <= set(names):
        return rows
    new_max = next(r.proposed for r in rows if r.name == "innodb_io_capacity_max")
    old_cap = current.get("innodb_io_capacity")
    try:
        raise_first = old_cap is None or int(new_max) >= int(old_cap.value)
    except ValueError:  # refused by the diff already; any order
        raise_first = True
    others = [r for r in rows if r.name != "innodb_io_capacity_max"]
    top = next(r for r in rows if r.name == "innodb_io_capacity_max")
    return [top, *others] if raise_first else [*others, top]


# -- targets ------------------------------------------------------------------------------------


@dataclass
class MariaDbTarget(DbTarget):
    """A MariaDB/MySQL server to tune: its ODBC string, password, and a key for its history."""

    flavour: str
    password: str | None = None
    local: bool = False

    def tuner(self, host: HostIO | None, config_file: str | None = None) -> MariaDbTuner:
        return MariaDbTuner(
            self.conninfo,
            self.flavour,
            password=self.password,
            host=host,
            config_file=config_file or DEFAULT_CONFIG_FILE,
        )


def plan_mariadb_target(target: Target) -> MariaDbTarget:
    """The tuning target of a plan's ``[target]`` of kind mariadb or mysql."""
    engine, password = engine_login(target)
    conninfo = engine.conninfo(target, target.admin_database or "mysql")
    where = target.dsn or f"{target.host}:{target.port}"
    label = f"{target.user}@{where}"
    local = not target.dsn and (
        target.host.startswith("/") or target.host in ("localhost", "127.0.0.1", "::1")
    )
    return MariaDbTarget(
        key=f"{target.kind}://{label}",
        label=label,
        conninfo=conninfo,
        flavour=target.kind,
        password=password,
        local=local,
    )


# -- a connection check from a driver host ------------------------------------------------------

# Run by the driver host's Python (the request on stdin): can it reach the server through
# ODBC, which release is it, may the user change variables? One JSON line out.
MARIADB_PROBE: Final = r"""
import json, re, sys
req = json.loads(sys.stdin.read())
def done(ok, method, detail):
    print(json.dumps({"ok": ok, "method": method, "detail": detail}))
    sys.exit(0)
try:
    import pyodbc
except ImportError:
    done(False, "pyodbc", "pyodbc is not installed for this Python (install python3-pyodbc"
         " and the MariaDB Connector/ODBC, odbc-mariadb)")
text = req["conninfo"]
upper = text.upper()
if "DRIVER=" not in upper and "DSN=" not in upper:
    words = ("mysql", "mariadb") if req.get("flavour") == "mysql" else ("mariadb", "mysql")
    names = [n for w in words for n in pyodbc.drivers() if w in n.lower()]
    if not names:
        done(False, "odbc", "no MariaDB or MySQL ODBC driver is installed (ODBC drivers: "
             + (", ".join(pyodbc.drivers()) or "none") + ")")
    text = "DRIVER={" + names[0] + "};" + text
if req.get("password") is not None:
    text += ";PWD={" + req["password"].replace("}", "}}") + "}"
try:
    conn = pyodbc.connect(text, autocommit=True, timeout=10)
    cur = conn.cursor()
    version = cur.execute("SELECT VERSION()").fetchone()[0]
    user = cur.execute("SELECT CURRENT_USER()").fetchone()[0]
    grants = [r[0] for r in cur.execute("SHOW GRANTS").fetchall()]
    conn.close()
except pyodbc.Error as exc:
    message = str(exc.args[1] if len(exc.args) > 1 else exc)
    while message.startswith("[") and "]" in message:
        message = message[message.index("]") + 1:].strip()
    done(False, "pyodbc", message)
held = set()
for line in grants:
    m = re.match(r"GRANT (.+?) ON \*\.\* TO", line, re.I)
    if m:
        held.update(p.strip().upper() for p in m.group(1).split(","))
name = "MariaDB" if "mariadb" in version.lower() else "MySQL"
may = held & {"ALL PRIVILEGES", "SUPER", "SYSTEM_VARIABLES_ADMIN"}
rights = ("may change server variables" if may else
          "may not change server variables (no SUPER privilege): InnoDB tuning is read-only")
done(True, "pyodbc", "%s %s, user %s %s" % (name, version, user, rights))
"""


def check_mariadb(
    host: HostIO,
    conninfo: str,
    password: str | None = None,
    python: str = "python3",
    flavour: str = "mariadb",
) -> tuple[bool, str]:
    """Can ``host`` reach this MariaDB/MySQL server through ODBC? (ok, the server's release,
    the user and whether it may change variables, or why not). The password goes on stdin."""
    request = json.dumps({"conninfo": conninfo, "password": password, "flavour": flavour})
    result = host.run([python, "-c", MARIADB_PROBE], input=request, timeout=40)
    try:
        answer = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return False, f"the check did not run: {result.first_error_line()}"
    detail = str(answer.get("detail", ""))
    if password:
        detail = detail.replace(password, "***")
    return bool(answer.get("ok")), f"{detail} (checked with {answer.get('method')})"


def database_check(
    session: SSHConnection, conninfo: str, password: str | None, python: str, kind: str
) -> tuple[bool | None, str]:
    """The kit's database check from a target: :func:`check_mariadb` over ``session``, the
    password redacted from what it says."""
    if password:
        session.redact.add(password)
    ok, detail = check_mariadb(SSHHost(session), conninfo, password, python, kind)
    return ok, session.redact(detail)
