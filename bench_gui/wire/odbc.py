"""Connections through pyodbc, and what goes into their connection strings, for any engine.

An engine's kit writes an ODBC connection string without a password
(``DRIVER={MariaDB Unicode};SERVER=...;PORT=...;UID=...;DATABASE=...``, or ``DSN=...``); the
password comes from :data:`~bench_gui.wire.names.DB_PASSWORD_ENV` and is added here, at
connect time, so no string that is echoed or stored ever holds it. A string with neither
DRIVER nor DSN gets the first installed driver whose name holds one of the engine's words.
The contract names no engine: each kit's ``shared/`` folder says which drivers it runs on and
what a host must install for them (:class:`DriverSearch`, :class:`InstallHint`).
"""

from __future__ import annotations

import os
import socket
import sys
from dataclasses import dataclass
from typing import Any, Final

from bench_gui.wire import odbc_drivers
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.names import DB_PASSWORD_ENV

# SQLSTATEs and server error numbers that mean the connection is gone.
LOST_STATES: Final = ("08S01", "08003", "08001", "08004", "08007")
# 2002/2003: no server to connect to (restarting); 1053: the server is shutting down.
LOST_ERRNOS: Final = ("(2006)", "(2013)", "(2055)", "(4031)", "(2002)", "(2003)", "(1053)")
# A server that does not answer a login in this time is given up on (ODBC login timeout).
LOGIN_TIMEOUT_S: Final = 15


def parse(conninfo: str) -> dict[str, str]:
    """An ODBC connection string as {KEY: value} (keys upper case, braces removed)."""
    out: dict[str, str] = {}
    rest = conninfo
    while rest:
        key, sep, rest = rest.partition("=")
        if not sep:
            break
        key = key.strip().strip(";").strip().upper()
        if rest.startswith("{"):
            end = rest.find("}", 1)
            while end != -1 and rest[end + 1 : end + 2] == "}":
                end = rest.find("}", end + 2)
            if end == -1:
                value, rest = rest[1:], ""
            else:
                value, rest = rest[1:end].replace("}}", "}"), rest[end + 1 :]
            rest = rest.lstrip().removeprefix(";")
        else:
            value, _, rest = rest.partition(";")
            value = value.strip()
        if key:
            out[key] = value
    return out


def quote(value: str) -> str:
    """A value as an ODBC connection string may hold it (braces when it needs them)."""
    if value and not any(c in value for c in ";{}=") and value == value.strip():
        return value
    return "{" + value.replace("}", "}}") + "}"


def build(params: dict[str, str]) -> str:
    return ";".join(f"{key}={quote(value)}" for key, value in params.items())


def with_database(conninfo: str, database: str | None) -> str:
    """The same string on another database (None: no database at all)."""
    params = parse(conninfo)
    params.pop("DATABASE", None)
    params.pop("DB", None)
    if database:
        params["DATABASE"] = database
    return build(params)


@dataclass(frozen=True)
class InstallHint:
    """What a host lacks when pyodbc cannot load for an engine, as the message names it: the
    engine's label and the system packages of unixODBC and its ODBC driver (Debian and
    Ubuntu; RHEL and Fedora). Each ODBC kit's shared/ folder holds its own."""

    label: str
    apt: str
    dnf: str


@dataclass(frozen=True)
class DriverSearch:
    """How a string naming no driver gets one (:func:`installed_driver`): the words searched
    for in the installed drivers' names, in order of preference, the drivers as a message names
    them when none is found and the package to install then, and the hint for pyodbc."""

    words: tuple[str, ...]
    sought: str
    package: str
    hint: InstallHint


def pyodbc_module(hint: InstallHint) -> Any:
    """pyodbc, or EngineError saying in one line what this host lacks for the engine of
    ``hint``: pyodbc itself (the deployment ships it unless the host's Python has its own), or
    unixODBC's libodbc.so.2, a system library pyodbc loads and no deployment can ship."""
    label, apt, dnf = hint.label, hint.apt, hint.dnf
    host = socket.gethostname()
    try:
        import pyodbc
    except ModuleNotFoundError as exc:
        if exc.name != "pyodbc":
            raise
        raise EngineError(
            f"pyodbc is not installed on {host} for {sys.executable} (the {label} engine"
            f" needs it): install it there ({sys.executable} -m pip install pyodbc, or the"
            f" package python3-pyodbc) with unixODBC and the ODBC driver: apt-get install"
            f" {apt} (Debian, Ubuntu) or dnf install {dnf} (RHEL, Fedora)"
        ) from exc
    except ImportError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise EngineError(
            f"pyodbc needs unixODBC on {host}, which is missing there ({first}): the {label}"
            f" engine needs unixODBC and its ODBC driver: apt-get install {apt} (Debian,"
            f" Ubuntu) or dnf install {dnf} (RHEL, Fedora)"
        ) from exc
    return pyodbc


def installed_driver(search: DriverSearch) -> str:
    """The name of a driver installed here that ``search`` looks for and whose library loads;
    EngineError naming the installed drivers (and why a named one cannot load) if none."""
    pyodbc = pyodbc_module(search.hint)
    found = odbc_drivers.drivers([str(n) for n in pyodbc.drivers()])
    broken: list[odbc_drivers.OdbcDriver] = []
    for word in search.words:
        for driver in found:
            if word in driver.name.lower():
                if driver.usable:
                    return driver.name
                broken.append(driver)
    what = "can be loaded" if broken else "is installed"
    raise EngineError(
        f"no {search.sought} ODBC driver {what} on {socket.gethostname()} (ODBC drivers:"
        f" {odbc_drivers.describe(found)}); install the package {search.package} or"
        " name the driver in target.odbc_driver"
    )


def full_conninfo(conninfo: str, search: DriverSearch, **extra: str) -> str:
    """The string a connection really opens: the driver chosen (``search``), the password and
    ``extra`` options added. Never echo it."""
    params = parse(conninfo)
    if "DRIVER" not in params and "DSN" not in params:
        params = {"DRIVER": installed_driver(search), **params}
    password = os.environ.get(DB_PASSWORD_ENV)
    if password is not None and "PWD" not in params and "PASSWORD" not in params:
        params["PWD"] = password
    params.update(extra)
    return build(params)


def is_lost(exc: BaseException) -> bool:
    """Whether a pyodbc error means the connection is gone (not just the statement failed)."""
    args: tuple[Any, ...] = tuple(getattr(exc, "args", ()))
    state = str(args[0]) if args else ""
    text = str(args[1]) if len(args) > 1 else str(exc)
    return state in LOST_STATES or any(n in text for n in LOST_ERRNOS)


def message(exc: BaseException) -> str:
    """A pyodbc error's text without the driver's bracketed prefixes."""
    args: tuple[Any, ...] = tuple(getattr(exc, "args", ()))
    text = (str(args[1]) if len(args) > 1 else str(exc)).strip()
    while text.startswith("[") and "]" in text:
        text = text[text.find("]") + 1 :].strip()
    return text or type(exc).__name__


def connect(conninfo: str, search: DriverSearch, *, what: str = "database", **extra: str) -> Any:
    """An autocommit pyodbc connection; EngineError with the driver's message when it fails."""
    pyodbc = pyodbc_module(search.hint)
    full = full_conninfo(conninfo, search, **extra)
    try:
        return pyodbc.connect(full, autocommit=True, timeout=LOGIN_TIMEOUT_S)
    except pyodbc.Error as exc:
        args = tuple(getattr(exc, "args", ()))
        if odbc_drivers.is_driver_missing(str(args[0]) if args else "", str(exc)):
            raise EngineError(driver_problem(full, message(exc), pyodbc)) from exc
        raise EngineError(f"cannot connect to the {what}: {message(exc)}") from exc


def driver_problem(conninfo: str, text: str, pyodbc: Any) -> str:
    """A connection refused by the driver manager (not the server), said as such with the
    installed drivers listed."""
    params = parse(conninfo)
    found = odbc_drivers.drivers([str(n) for n in pyodbc.drivers()])
    if "DRIVER" in params:
        name = params["DRIVER"]
        known = any(d.name == name for d in found)
        named = f"ODBC driver {name!r} {'cannot be used' if known else 'is not installed'}"
    else:
        named = f"ODBC data source {params.get('DSN', '')!r} cannot be used"
    return (
        f"the {named} on {socket.gethostname()} (the driver manager says: {text}); nothing"
        f" reached the server. ODBC drivers on this host: {odbc_drivers.describe(found)}"
    )
