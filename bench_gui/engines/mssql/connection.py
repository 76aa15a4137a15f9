"""SQL Server engine plugin (first party): the plan's target as an ODBC connection string for
the agent (pyodbc with Microsoft's ODBC Driver 18 or FreeTDS on the driver host).

With ``target.odbc_driver`` named, the string is finished here for that driver (its
spelling of server, port and encryption: :func:`bench_gui.engines.mssql.shared.connect.
build_connection_string`); with it empty, the string is neutral (``SERVER``, ``PORT``,
``UID``, ``DATABASE``, ``ENCRYPT``, ``TRUSTSERVERCERTIFICATE``, ``AUTHENTICATION``) and the
agent finishes it for the driver host's own SQL Server driver
(:func:`bench_gui.engines.mssql.agent.engine.resolve_conninfo`). With ``target.dsn`` the DSN in the
driver host's odbc.ini holds driver, server and port. Never a password: it reaches the agent
in :data:`~bench_gui.wire.names.DB_PASSWORD_ENV`.
"""

from __future__ import annotations

from bench_gui.core.plan_model import Target
from bench_gui.engines.mssql.shared.connect import DRIVER_PREFERENCE, resolve_conninfo
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.names import DB_PASSWORD_ENV
from bench_gui.wire.odbc import build

# target.tls -> (Encrypt, TrustServerCertificate); "" keeps the driver's default (Driver 18:
# encrypted, certificate validated).
TLS_OPTIONS: dict[str, dict[str, str]] = {
    "off": {"ENCRYPT": "no", "TRUSTSERVERCERTIFICATE": "no"},
    "on": {"ENCRYPT": "yes", "TRUSTSERVERCERTIFICATE": "yes"},
    "verify": {"ENCRYPT": "yes", "TRUSTSERVERCERTIFICATE": "no"},
}


class ConnectionSettingError(ValueError):
    """A target that no SQL Server connection string can express; the message names it."""


class MssqlEngine:
    """SQL Server 2017 and later (seed 003: SQL Server 2017 on Linux)."""

    name = "mssql"
    label = "SQL Server"
    default_port = 1433
    # The agent reads the password from this variable (never from the connection string).
    password_env = DB_PASSWORD_ENV
    # ODBC drivers this engine runs on, in order of preference (words of pyodbc.drivers()).
    odbc_drivers = DRIVER_PREFERENCE
    # Verified against a live server by this project's tests? (bench-gui engines says it.)
    verified_live = False
    verified_how = (
        "no SQL Server here; statements parsed by sqlglot's T-SQL dialect; its driver's CPU"
        " per transaction against its ODBC round-trip floor not measured"
    )

    def conninfo(self, target: Target, database: str) -> str:
        """The connection string of ``target`` on ``database`` (see the module's docstring);
        :class:`ConnectionSettingError` naming the field when it cannot be built."""
        params: dict[str, str] = {}
        if target.dsn:
            params["DSN"] = target.dsn
        else:
            params["SERVER"] = target.host
            params["PORT"] = str(target.port)
        if target.authentication not in ("windows", "entra_integrated"):
            params["UID"] = target.user
        if database:
            params["DATABASE"] = database
        params.update(TLS_OPTIONS.get(target.tls, {}))
        if target.authentication:
            params["AUTHENTICATION"] = target.authentication
        if target.dsn:
            if target.authentication == "windows":
                params.pop("AUTHENTICATION")
                params["Trusted_Connection"] = "yes"
            elif target.authentication.startswith("entra_"):
                params["AUTHENTICATION"] = {
                    "entra_password": "ActiveDirectoryPassword",
                    "entra_integrated": "ActiveDirectoryIntegrated",
                }[target.authentication]
            else:
                params.pop("AUTHENTICATION", None)
            return build(params)
        if not target.odbc_driver:
            return build(params)
        try:
            return resolve_conninfo(build(params), None, target.odbc_driver)
        except EngineError as exc:
            raise ConnectionSettingError(f"target: {exc}") from exc
