"""MariaDB and MySQL engine plugins (first party): the plan's target as an ODBC connection
string for the agent (pyodbc with the MariaDB or MySQL Connector/ODBC on the driver host)."""

from __future__ import annotations

from bench_gui.core.plan_model import Target
from bench_gui.engines.mariadb.shared.odbc import DRIVER_WORDS
from bench_gui.wire.names import DB_PASSWORD_ENV
from bench_gui.wire.odbc import build


class MariaDbEngine:
    """MariaDB through the MariaDB Connector/ODBC (Debian: odbc-mariadb)."""

    name = "mariadb"
    label = "MariaDB"
    default_port = 3306
    # The agent reads the password from this variable (never from the connection string).
    password_env = DB_PASSWORD_ENV
    # ODBC drivers this engine runs on, in order of preference (words of pyodbc.drivers()).
    odbc_drivers = DRIVER_WORDS["mariadb"]
    # Verified against a live server by this project's tests? (bench-gui engines says it.)
    verified_live = True
    verified_how = "by this project's tests, on a private MariaDB they start"

    def tls_options(self, tls: str) -> dict[str, str]:
        """The Connector/ODBC options of ``target.tls`` ("" keeps the driver's default)."""
        return {"on": {"FORCETLS": "1"}, "verify": {"FORCETLS": "1", "SSLVERIFY": "1"}}.get(tls, {})

    def conninfo(self, target: Target, database: str) -> str:
        """``DRIVER=...;SERVER=...;PORT=...;UID=...;DATABASE=...`` (or ``DSN=...``), no
        password: it reaches the agent in :data:`DB_PASSWORD_ENV`. An empty
        ``target.odbc_driver`` lets the agent pick the driver host's Connector/ODBC."""
        params: dict[str, str] = {}
        if target.dsn:
            params["DSN"] = target.dsn
        else:
            if target.odbc_driver:
                params["DRIVER"] = target.odbc_driver
            if target.host.startswith("/"):
                params["SOCKET"] = target.host
            else:
                params["SERVER"] = target.host
                params["PORT"] = str(target.port)
        params["UID"] = target.user
        if database:
            params["DATABASE"] = database
        params.update(self.tls_options(target.tls))
        return build(params)


class MySqlEngine(MariaDbEngine):
    """MySQL through its Connector/ODBC (or MariaDB's, when only that one is installed)."""

    name = "mysql"
    label = "MySQL"
    odbc_drivers = DRIVER_WORDS["mysql"]
    verified_live = False
    verified_how = (
        "no MySQL server in the tests; its SQL is the MariaDB engine's, tested on MariaDB"
    )

    def tls_options(self, tls: str) -> dict[str, str]:
        return {
            "off": {"SSLMODE": "DISABLED"},
            "on": {"SSLMODE": "REQUIRED"},
            "verify": {"SSLMODE": "VERIFY_IDENTITY"},
        }.get(tls, {})
