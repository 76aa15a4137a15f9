"""A scripted SQL Server for the tuner's tests: a TEST SEAM, not a server.

No SQL Server runs here and none can be installed, so the tuner's tests connect it to
:class:`tests.engines.mssql.agent.recording.RecordingConnection`, which writes down every statement
(each one then goes through the T-SQL parser of :mod:`tests.engines.mssql.agent.tsql_check`) and
answers from :class:`ScriptedServer`: the state a server holds (sys.configurations, the
database's options, the login's tokens and permissions) and the documented effect of the few
statements the tuner sends:

- ``sp_configure`` sets an option's configured ``value``; an advanced option is refused with
  error 15123 while 'show advanced options' is not in use; a login without ALTER SETTINGS gets
  error 15247; a value outside minimum..maximum error 15129;
- ``RECONFIGURE`` puts every dynamic option's configured value in use (a static one runs it
  only after a restart: :meth:`ScriptedServer.restart`);
- ``ALTER DATABASE ... SET`` changes the recovery model / target recovery time; without ALTER
  on the database, error 5011.

What the tests prove with it is what the tuner sends and how it reads well-formed answers,
never how a real server answers: that is the live test's job (``BENCH_GUI_TEST_MSSQL``).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyodbc

from bench_gui.engines.mssql import tuner as mssql_tuner
from bench_gui.engines.mssql.shared import settings
from bench_gui.engines.mssql.tuner import MssqlTuner
from tests.engines.mssql.agent.recording import Log, RecordingConnection, ResultSets
from tests.engines.mssql.agent.tsql_check import check_statement

# A plan whose target is a SQL Server (the scripted one stands in for it).
PLAN = """name = "SQL Server sweep"
[target]
kind = "mssql"
host = "sqlbox"
port = 1433
user = "sa"
database = "tpcc"
admin_database = "master"
tls = "on"
[workload]
virtual_users = [8, 32]
"""

_SP = re.compile(r"EXEC sp_configure N'((?:[^']|'')+)', (-?\d+)")
_RECOVERY = re.compile(r"ALTER DATABASE \[(.+)\] SET RECOVERY (\w+)")
_TARGET = re.compile(r"ALTER DATABASE \[(.+)\] SET TARGET_RECOVERY_TIME = (\d+) SECONDS")
_MAXDOP = re.compile(r"ALTER DATABASE SCOPED CONFIGURATION SET MAXDOP = (\d+)")


def odbc_error(number: int, text: str) -> pyodbc.Error:
    """An error as Microsoft's ODBC driver raises it for a SQL Server error ``number``."""
    return pyodbc.Error(
        "42000",
        f"[42000] [Microsoft][ODBC Driver 18 for SQL Server][SQL Server]{text} ({number})"
        " (SQLExecDirectW)",
    )


@dataclass
class Option:
    value: int
    in_use: int
    minimum: int
    maximum: int
    dynamic: bool = True
    advanced: bool = True


def default_options() -> dict[str, Option]:
    """The options of a fresh SQL Server 2017 the tests need (defaults as documented)."""
    return {
        "show advanced options": Option(0, 0, 0, 1, True, False),
        "max degree of parallelism": Option(0, 0, 0, 32767),
        "max server memory (MB)": Option(2_147_483_647, 2_147_483_647, 128, 2_147_483_647),
        "cost threshold for parallelism": Option(5, 5, 0, 32767),
        "lightweight pooling": Option(0, 0, 0, 1, dynamic=False),
        "remote access": Option(1, 1, 0, 1, dynamic=False, advanced=False),
    }


@dataclass
class ScriptedServer:
    """The state of one SQL Server instance and one database (see the module docstring)."""

    database: str = "tpcc"
    options: dict[str, Option] = field(default_factory=default_options)
    recovery: str = "FULL"
    target_s: int = 0
    # The database's own MAXDOP (None: a server before 2016, without the view) and its
    # Availability Group (None: not in one).
    db_maxdop: int | None = 0
    availability_group: str | None = None
    machine: str = "sqlbox"
    login_tokens: list[tuple[str, str]] = field(
        default_factory=lambda: [("sa", "SQL LOGIN"), ("sysadmin", "SERVER ROLE")]
    )
    user_tokens: list[tuple[str, str]] = field(
        default_factory=lambda: [("dbo", "SQL USER"), ("public", "ROLE")]
    )
    server_permissions: list[tuple[str, str]] = field(default_factory=list)
    database_permissions: list[tuple[str, str]] = field(default_factory=list)
    ram_kb: int = 64 * 1024 * 1024
    # statement prefix -> the error the server answers it with (a refusal the catalog did not
    # predict).
    refuse: dict[str, pyodbc.Error] = field(default_factory=dict)
    log: Log = field(default_factory=Log)

    # ---- the tuner's side --------------------------------------------------------------

    def connect(self) -> RecordingConnection:
        return RecordingConnection(self.answer, self.log)

    def tuner(self) -> MssqlTuner:
        return MssqlTuner("SERVER=sqlbox;PORT=1433;UID=sa", self.database, connect=self.connect)

    def state(self) -> dict[str, Any]:
        """What a rollback must give back exactly."""
        return copy.deepcopy(
            {
                "options": self.options,
                "recovery": self.recovery,
                "target": self.target_s,
                "maxdop": self.db_maxdop,
            }
        )

    def changes(self) -> list[str]:
        """Every statement sent that changes something (reads left out)."""
        return [s.sql for s in self.log.sent if not s.sql.startswith("SELECT")]

    def check_sent(self) -> int:
        """Every distinct statement sent passes the T-SQL check; how many there were."""
        texts = self.log.texts()
        for text in texts:
            check_statement(text)
        return len(texts)

    def restart(self) -> None:
        for option in self.options.values():
            option.in_use = option.value

    # ---- the server's side -------------------------------------------------------------

    def _may(self, permission: str) -> bool:
        names = {n.lower() for n, _t in self.login_tokens}
        return (
            "sysadmin" in names
            or "serveradmin" in names
            or permission in {p for p, s in self.server_permissions if s in ("G", "W")}
        )

    def answer(self, sql: str, params: Sequence[Any]) -> ResultSets:
        for prefix, error in self.refuse.items():
            if sql.startswith(prefix):
                raise error
        reads: dict[str, Callable[[], ResultSets]] = {
            settings.CONFIGURATIONS_SQL: lambda: [
                [
                    (n, o.value, o.in_use, o.minimum, o.maximum, int(o.dynamic), int(o.advanced))
                    for n, o in sorted(self.options.items())
                ]
            ],
            settings.DATABASE_SQL: lambda: [[(f"{self.recovery}", self.target_s)]],
            settings.DATABASE_MAXDOP_SQL: self._maxdop,
            settings.AVAILABILITY_GROUP_SQL: lambda: [
                [(self.availability_group,)] if self.availability_group else []
            ],
            settings.VERSION_SQL: lambda: [
                [("14.0.3456.2", "Developer Edition (64-bit)", "Microsoft SQL Server 2017")]
            ],
            mssql_tuner.IDENTITY_SQL: lambda: [[(self.machine, self.machine, "/var/opt/mssql/")]],
            mssql_tuner.LOGIN_TOKEN_SQL: lambda: [list(self.login_tokens)],
            mssql_tuner.USER_TOKEN_SQL: lambda: [list(self.user_tokens)],
            mssql_tuner.SERVER_PERMISSIONS_SQL: lambda: [list(self.server_permissions)],
            mssql_tuner.DATABASE_PERMISSIONS_SQL: lambda: [list(self.database_permissions)],
            mssql_tuner.MACHINE_SQL: lambda: [[(self.ram_kb, 16)]],
        }
        if sql in reads:
            return reads[sql]()
        if sql == "RECONFIGURE":
            for option in self.options.values():
                if option.dynamic:
                    option.in_use = option.value
            return []
        match = _MAXDOP.fullmatch(sql)
        if match:
            if self.db_maxdop is None:
                raise odbc_error(102, "Incorrect syntax near 'SCOPED'.")
            self.db_maxdop = int(match.group(1))
            return []
        match = _SP.fullmatch(sql)
        if match:
            return self._sp_configure(match.group(1).replace("''", "'"), int(match.group(2)))
        for pattern, what in ((_RECOVERY, "recovery"), (_TARGET, "target")):
            match = pattern.fullmatch(sql)
            if match:
                if not self._may("ALTER ANY DATABASE") and ("dbo", "SQL USER") not in (
                    self.user_tokens
                ):
                    raise odbc_error(
                        5011, f"User does not have permission to alter database '{self.database}'"
                    )
                if what == "recovery":
                    self.recovery = match.group(2)
                else:
                    self.target_s = int(match.group(2))
                return []
        raise AssertionError(f"the scripted server does not know this statement: {sql}")

    def _maxdop(self) -> ResultSets:
        if self.db_maxdop is None:
            raise odbc_error(208, "Invalid object name 'sys.database_scoped_configurations'.")
        return [[(self.db_maxdop,)]]

    def _sp_configure(self, name: str, value: int) -> ResultSets:
        if not self._may("ALTER SETTINGS"):
            raise odbc_error(15247, "User does not have permission to perform this action.")
        option = self.options.get(name)
        shown = self.options["show advanced options"].in_use == 1
        if option is None or (option.advanced and not shown):
            raise odbc_error(
                15123,
                f"The configuration option '{name}' does not exist, or it may be an advanced"
                " option.",
            )
        if not option.minimum <= value <= option.maximum:
            raise odbc_error(15129, f"'{value}' is not a valid value for configuration option")
        option.value = value
        return []
