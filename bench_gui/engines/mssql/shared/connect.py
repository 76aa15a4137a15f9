"""ODBC connection strings for SQL Server, and connecting with the password kept out of them.

The rule mirrors PostgreSQL's (libpq takes PGPASSWORD from the environment, so a conninfo
never holds a password): the string this module builds, stores and logs never contains
``PWD``; the password comes from the agent's environment (:data:`PASSWORD_ENV`, the ODBC
engines' ``BENCH_GUI_DB_PASSWORD``, which ``--env-file`` fills and deletes) or from the
caller, and is appended only inside :func:`connect`, in the argument handed to the driver.
:func:`redact` removes any ``PWD`` a user typed into a string by hand before it is shown.

Microsoft's ODBC Driver 18 encrypts by default and validates the server's certificate, so a
lab server with a self-signed certificate needs ``TrustServerCertificate=yes`` said out loud;
the builder always writes both keys so a stored string shows what was chosen. FreeTDS spells
encryption ``Encryption=require|off`` and has no TrustServerCertificate key (it checks a
certificate only when freetds.conf names a CA file); asking it not to trust a certificate is
refused rather than silently ignored.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Final

from bench_gui.wire import odbc_drivers
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.names import DB_PASSWORD_ENV
from bench_gui.wire.odbc import InstallHint, driver_problem, message, parse
from bench_gui.wire.odbc import pyodbc_module as odbc_pyodbc_module
from bench_gui.wire.odbc_drivers import is_driver_missing

# unixODBC and a SQL Server ODBC driver (Debian and Ubuntu; RHEL and Fedora), named when
# pyodbc cannot load.
INSTALL_HINT: Final = InstallHint(
    "SQL Server", "unixodbc msodbcsql18 (Microsoft's repository) or tdsodbc", "unixODBC msodbcsql18"
)

# Driver names searched for, in order of preference (pyodbc.drivers()).
DRIVER_PREFERENCE: Final = (
    "ODBC Driver 18 for SQL Server",
    "ODBC Driver 17 for SQL Server",
    "sql server",  # any other Microsoft driver
    "freetds",
)
# plan.target.authentication -> the ODBC Authentication keyword of Microsoft's driver ("" for
# a SQL login or Windows/Kerberos, which connection.py spells itself).
ENTRA_AUTHENTICATION: Final = {
    "entra_password": "ActiveDirectoryPassword",
    "entra_integrated": "ActiveDirectoryIntegrated",
}

# The agent's environment variable holding the SQL login's password (all ODBC engines').
PASSWORD_ENV: Final = DB_PASSWORD_ENV
MS_DRIVER: Final = "ODBC Driver 18 for SQL Server"
FREETDS_DRIVER: Final = "FreeTDS"
ENCRYPT_VALUES: Final = ("yes", "no", "strict")
# Seconds an attempt to connect may take (the driver's own default is 15 to 30).
LOGIN_TIMEOUT_S: Final = 10

_PWD_RE: Final = re.compile(r"(?i)(\bpwd\s*=\s*)(\{(?:[^}]|\}\})*\}|[^;]*)")


class ConnectionSpecError(ValueError):
    """A connection setting that cannot work; the message names the field."""


@dataclass(frozen=True)
class MssqlTarget:
    """Where and how to connect; everything but the password.

    ``dsn`` replaces driver/server/port when set (the DSN in odbc.ini holds them).
    ``authentication``: ``sql`` (a SQL login: ``user``, password from the environment) or
    ``integrated`` (Kerberos on Linux, Windows authentication on Windows: no user, no
    password).
    """

    server: str = ""
    port: int = 1433
    database: str = ""
    user: str = ""
    authentication: str = "sql"
    driver: str = MS_DRIVER
    dsn: str = ""
    encrypt: str = "yes"
    trust_server_certificate: bool = False
    tds_version: str = "7.4"  # FreeTDS only
    application_name: str = "bench_gui"


def _value(key: str, value: str) -> str:
    """One ODBC attribute value, braced when it holds a character ODBC treats specially."""
    if "\x00" in value:
        raise ConnectionSpecError(f"{key} holds a NUL character")
    if re.search(r"[;{}=\s]", value) or value != value.strip():
        return "{" + value.replace("}", "}}") + "}"
    return value


def is_freetds(target: MssqlTarget) -> bool:
    return not target.dsn and "freetds" in target.driver.lower()


def build_connection_string(target: MssqlTarget) -> str:
    """The ODBC connection string of ``target``, without any password.

    Raises :class:`ConnectionSpecError` naming the field for settings that cannot work.
    """
    auth = target.authentication.lower()
    if auth not in ("sql", "integrated"):
        raise ConnectionSpecError(
            f"authentication {target.authentication!r}: expected 'sql' or 'integrated'"
        )
    encrypt = target.encrypt.lower()
    if encrypt not in ENCRYPT_VALUES:
        raise ConnectionSpecError(f"encrypt {target.encrypt!r}: expected one of {ENCRYPT_VALUES}")
    if not 0 < target.port < 65536:
        raise ConnectionSpecError(f"port {target.port}: expected 1..65535")
    parts: list[tuple[str, str]] = []
    if target.dsn:
        parts.append(("DSN", target.dsn))
    else:
        if not target.server:
            raise ConnectionSpecError("server is empty (give a host name, or a DSN)")
        if not target.driver:
            raise ConnectionSpecError("driver is empty (e.g. 'ODBC Driver 18 for SQL Server')")
        parts.append(("DRIVER", "{" + target.driver.replace("}", "}}") + "}"))
        if is_freetds(target):
            parts += [("SERVER", target.server), ("PORT", str(target.port))]
            parts.append(("TDS_Version", target.tds_version))
        else:
            parts.append(("SERVER", f"tcp:{target.server},{target.port}"))
    if target.database:
        parts.append(("DATABASE", target.database))
    if auth == "sql":
        if not target.user:
            raise ConnectionSpecError("user is empty: SQL authentication needs a login name")
        parts.append(("UID", target.user))
    elif target.user:
        raise ConnectionSpecError("user must be empty with integrated authentication")
    else:
        parts.append(("Trusted_Connection", "yes"))
    if is_freetds(target):
        if encrypt == "strict":
            raise ConnectionSpecError("encrypt 'strict' (TDS 8) is not available with FreeTDS")
        if encrypt == "yes" and not target.trust_server_certificate:
            raise ConnectionSpecError(
                "FreeTDS cannot be told to validate the certificate here: set"
                " trust_server_certificate, or name a CA file in freetds.conf and use a DSN"
            )
        parts.append(("Encryption", "require" if encrypt == "yes" else "off"))
    else:
        parts.append(("Encrypt", encrypt))
        parts.append(("TrustServerCertificate", "yes" if target.trust_server_certificate else "no"))
        parts.append(("APP", target.application_name))
        parts.append(("LoginTimeout", str(LOGIN_TIMEOUT_S)))
    text = ";".join(
        f"{key}={value if key == 'DRIVER' else _value(key, value)}" for key, value in parts
    )
    if _PWD_RE.search(text):
        raise ConnectionSpecError("a field holds 'PWD=': the password never goes in a setting")
    return text


def redact(connection_string: str) -> str:
    """The string with any PWD value replaced by ***, for logs and events."""
    return _PWD_RE.sub(r"\1***", connection_string)


def with_password(connection_string: str, password: str) -> str:
    """The string the driver gets: ``connection_string`` plus PWD. Never store or log it."""
    if _PWD_RE.search(connection_string):
        raise ConnectionSpecError(
            f"the connection string already holds PWD=; keep the password in {PASSWORD_ENV} instead"
        )
    return f"{connection_string};PWD={_value('PWD', password)}"


def pyodbc_module() -> Any:
    """pyodbc, or EngineError naming what this host lacks for SQL Server."""
    return odbc_pyodbc_module(INSTALL_HINT)


def connect(
    connection_string: str,
    *,
    password: str | None = None,
    autocommit: bool = True,
    env: dict[str, str] | None = None,
) -> Any:
    """Open a pyodbc connection; the password from ``password`` or :data:`PASSWORD_ENV`.

    Raises :class:`~bench_gui.agent.engines.EngineError` with the driver's message (the
    password, should a driver ever echo it, replaced by ***).

    A string using integrated authentication (Trusted_Connection=yes) or a DSN that holds
    its own credentials gets no password. pyodbc is imported here, so the package imports
    without it (and a host without pyodbc or unixODBC is told so in one line).
    """
    pyodbc = pyodbc_module()

    environ = os.environ if env is None else env
    secret = password if password is not None else environ.get(PASSWORD_ENV)
    full = connection_string
    if secret and "trusted_connection=yes" not in connection_string.lower():
        full = with_password(connection_string, secret)
    try:
        return pyodbc.connect(full, autocommit=autocommit, timeout=LOGIN_TIMEOUT_S)
    except pyodbc.Error as exc:
        # The driver's message never echoes the password, but say so in code: redact anyway.
        text = redact(str(exc))
        if secret:
            text = text.replace(secret, "***")
        args = tuple(getattr(exc, "args", ()))
        if is_driver_missing(str(args[0]) if args else "", str(exc)):
            # The driver manager's refusal, not the server's: say so, with the drivers here.
            said = redact(message(exc))
            said = said.replace(secret, "***") if secret else said
            raise EngineError(driver_problem(connection_string, said, pyodbc)) from exc
        raise EngineError(f"cannot connect to SQL Server: {text}") from exc


def installed_driver(names: list[str] | None = None) -> str:
    """The SQL Server ODBC driver this host has (:data:`DRIVER_PREFERENCE`) and, when the
    names are this host's own (``names`` None), whose library loads; EngineError naming the
    installed drivers when there is none."""
    listed = ""
    if names is None:
        found = odbc_drivers.drivers([str(n) for n in pyodbc_module().drivers()])
        names = [d.name for d in found if d.usable]
        listed = odbc_drivers.describe(found)
    for word in DRIVER_PREFERENCE:
        for name in names:
            if word.lower() in name.lower():
                return str(name)
    raise EngineError(
        f"no SQL Server ODBC driver is installed on this host (ODBC drivers:"
        f" {listed or ', '.join(names) or 'none'}); install Microsoft's msodbcsql18 or FreeTDS"
        f" (Debian: tdsodbc), or name the driver in target.odbc_driver"
    )


def _braced(value: str) -> str:
    if any(c in value for c in ";{}=") or value != value.strip() or " " in value:
        return "{" + value.replace("}", "}}") + "}"
    return value


def join_params(params: dict[str, str]) -> str:
    """An ODBC connection string of ``params`` (values braced when they need it)."""
    return ";".join(f"{key}={_braced(value)}" for key, value in params.items())


def _with_database(params: dict[str, str], database: str | None) -> dict[str, str]:
    out = {k: v for k, v in params.items() if k not in ("DATABASE", "INITIAL CATALOG")}
    if database:
        out["DATABASE"] = database
    return out


def neutral_target(params: dict[str, str], driver: str) -> tuple[MssqlTarget, str]:
    """The :class:`MssqlTarget` of a neutral string (see the module's docstring) and the
    ``Authentication`` keyword of an Entra login ('' for none)."""
    try:
        port = int(params.get("PORT", "1433"))
    except ValueError:
        raise EngineError(
            f"PORT {params['PORT']!r} in the connection string is no number"
        ) from None
    mode = params.get("AUTHENTICATION", "").lower()
    entra = ENTRA_AUTHENTICATION.get(mode, "")
    if mode not in ("", "sql", "windows", *ENTRA_AUTHENTICATION):
        raise EngineError(
            f"authentication {mode!r}: expected sql, windows, entra_password or entra_integrated"
        )
    integrated = mode in ("windows", "entra_integrated")
    target = MssqlTarget(
        server=params.get("SERVER", ""),
        port=port,
        database=params.get("DATABASE", ""),
        user="" if integrated else params.get("UID", ""),
        authentication="integrated" if integrated else "sql",
        driver=driver,
        encrypt=params.get("ENCRYPT", "yes"),
        trust_server_certificate=params.get("TRUSTSERVERCERTIFICATE", "no").lower() == "yes",
    )
    return target, entra


def resolve_conninfo(conninfo: str, database: str | None, driver: str | None = None) -> str:
    """The string the engine connects with: ``conninfo`` on ``database`` (None: as it says),
    built for this host's driver when it names neither DRIVER nor DSN. ``driver``: the one to
    use then (default: :func:`installed_driver`). EngineError naming what is wrong."""
    params = parse(conninfo)
    if "PWD" in params or "PASSWORD" in params:
        raise EngineError(
            "the connection string holds a password: keep it in BENCH_GUI_DB_PASSWORD"
        )
    if database is not None:
        params = _with_database(params, database)
    if "DRIVER" in params or "DSN" in params:
        return join_params(params)
    chosen = driver or installed_driver()
    target, entra = neutral_target(params, chosen)
    if entra and "freetds" in chosen.lower():
        raise EngineError(f"{entra} (Entra ID) needs Microsoft's ODBC driver, not {chosen}")
    unchecked = params.get("TRUSTSERVERCERTIFICATE", "no").lower() == "yes"
    if "freetds" in chosen.lower() and params.get("ENCRYPT", "yes") != "no" and not unchecked:
        raise EngineError(
            f"{chosen} cannot validate the server's certificate from a connection string:"
            " set target.tls to 'on' (encrypted, certificate not checked) or 'off', or use a"
            " DSN whose freetds.conf names a CA file"
        )
    try:
        text = build_connection_string(target)
    except ConnectionSpecError as exc:
        raise EngineError(f"cannot connect to SQL Server: {exc}") from exc
    if entra:  # Entra ID in place of Kerberos (integrated) or of a SQL login (password)
        text = text.replace(";Trusted_Connection=yes", "")
    return f"{text};Authentication={entra}" if entra else text
