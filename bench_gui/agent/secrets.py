"""The database password inside the agent: taken out of the environment at once, kept in
memory and handed to connections as a connection parameter, so the processes the agent starts
(the virtual users, the loaders: ``multiprocessing`` copies the environment into each) never
carry it in theirs.

It arrives as ``PGPASSWORD`` (libpq) or ``BENCH_GUI_DB_PASSWORD`` (the ODBC engines), from
``--env-file`` (a file the agent deletes on reading it), ``--env-stdin`` (a JSON line on its
standard input: the local transport's pipe) or the environment. For the first-party engines
that this module knows how to pass it to (PostgreSQL: a libpq ``password``; MariaDB/MySQL: the
ODBC ``PWD``), it is moved into their connection strings in memory (the ``hello`` echoes the
plan's strings, never these). Other engines (SQL Server, third-party ones) read it from the
environment as before.
"""

from __future__ import annotations

import json
import os
from typing import IO, Any, Final

from bench_gui.wire.names import DB_PASSWORD_ENV

PG_PASSWORD_ENV: Final = "PGPASSWORD"
# The engines whose password goes into the connection string here, and the variable it is in.
IN_CONNINFO: Final = {
    "postgresql": PG_PASSWORD_ENV,
    "mariadb": DB_PASSWORD_ENV,
    "mysql": DB_PASSWORD_ENV,
}


def load_env_file(path: str) -> None:
    """Put the variables of a JSON file into the environment, deleting the file first thing
    (a missing or unreadable file leaves the environment as it is: the connection then says
    what is wrong)."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(1 << 20)
    except OSError:
        text = ""
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    _load(text)


def load_env_stdin(stream: IO[str]) -> None:
    """The same, from one JSON line on ``stream`` (a pipe: nothing is written to disk)."""
    _load(stream.readline(1 << 20))


def _load(text: str) -> None:
    try:
        data: Any = json.loads(text) if text.strip() else {}
    except ValueError:
        data = {}
    if isinstance(data, dict):
        for key, value in data.items():
            os.environ[str(key)] = str(value)


def conninfo_with_password(engine: str, conninfo: str, password: str | None) -> str:
    """``conninfo`` with the password in it as the engine's connection parameter (unless the
    string sets one itself); unchanged for an engine this module does not know."""
    if not password or engine not in IN_CONNINFO:
        return conninfo
    if engine == "postgresql":
        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        if "password" in conninfo_to_dict(conninfo):
            return conninfo
        return make_conninfo(conninfo, password=password)
    from bench_gui.wire import odbc

    params = odbc.parse(conninfo)
    if "PWD" in params or "PASSWORD" in params:
        return conninfo
    return odbc.build({**params, "PWD": password})


_taken: dict[str, str] = {}  # what take_password moved out of the environment, by variable


def take_password(engine: str) -> str | None:
    """The engine's password, moved out of the environment into memory on the first call
    (None: none set, or an engine that reads it from the environment itself)."""
    name = IN_CONNINFO.get(engine)
    if name is None:
        return None
    value = os.environ.pop(name, None)
    if value is not None:
        _taken[name] = value
    return _taken.get(name)


__all__ = [
    "IN_CONNINFO",
    "PG_PASSWORD_ENV",
    "conninfo_with_password",
    "load_env_file",
    "load_env_stdin",
    "take_password",
]
