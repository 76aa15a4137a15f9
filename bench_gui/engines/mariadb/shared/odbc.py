"""MariaDB's and MySQL's ODBC connections: the drivers each flavour runs on and the packages a
host needs for them, given to the engine-neutral helpers of :mod:`bench_gui.wire.odbc`.

The agent's engine, users and loader and the desktop's tuner all connect through here, so a
flavour's drivers and its install hint are written once, in the kit that knows them.
"""

from __future__ import annotations

from typing import Any, Final

from bench_gui.wire import odbc

# unixODBC and MariaDB's Connector/ODBC (it serves MySQL too), named when pyodbc cannot load.
_APT: Final = "unixodbc odbc-mariadb"
_DNF: Final = "unixODBC mariadb-connector-odbc"

# Words the installed drivers' names are searched for, per flavour, in order of preference.
DRIVER_WORDS: Final[dict[str, tuple[str, ...]]] = {
    "mariadb": ("mariadb", "mysql"),
    "mysql": ("mysql", "mariadb"),
}
INSTALL_HINTS: Final[dict[str, odbc.InstallHint]] = {
    "mariadb": odbc.InstallHint("MariaDB", _APT, _DNF),
    "mysql": odbc.InstallHint("MySQL", _APT, _DNF),
}


def driver_search(flavour: str) -> odbc.DriverSearch:
    """How a string naming no driver gets one for ``flavour`` (an unknown one as MariaDB)."""
    known = flavour if flavour in DRIVER_WORDS else "mariadb"
    return odbc.DriverSearch(
        words=DRIVER_WORDS[known],
        sought="MariaDB or MySQL",
        package="odbc-mariadb (Debian)",
        hint=INSTALL_HINTS[known],
    )


def pyodbc_module(flavour: str = "mariadb") -> Any:
    """pyodbc, or EngineError naming what this host lacks for ``flavour``."""
    return odbc.pyodbc_module(driver_search(flavour).hint)


def installed_driver(flavour: str) -> str:
    """The Connector/ODBC installed here for ``flavour`` whose library loads (EngineError)."""
    return odbc.installed_driver(driver_search(flavour))


def full_conninfo(conninfo: str, flavour: str, **extra: str) -> str:
    """The string a ``flavour`` connection really opens (password added): never echo it."""
    return odbc.full_conninfo(conninfo, driver_search(flavour), **extra)


def connect(conninfo: str, flavour: str, *, what: str = "database", **extra: str) -> Any:
    """An autocommit pyodbc connection to ``flavour``; EngineError with the driver's message."""
    return odbc.connect(conninfo, driver_search(flavour), what=what, **extra)
