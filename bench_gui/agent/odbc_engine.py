"""What the ODBC engines' agent sides (MariaDB/MySQL, SQL Server) share, once.

Neither keeps a template (there is no cheap copy of a database to check), so
``reset_between_steps`` runs every step on the same data and the sweep says so; both open a
short connection per question (the admin one on the server, or one on the benchmark
database), measure the schema's facts the same way around (a log line says what and how
long, a problem goes into ``schema_facts_error``), and report the data directory only for a
server on this host. Each engine's SQL, connections and error texts stay its own: the
subclass gives :meth:`OdbcEngine._admin`, :meth:`OdbcEngine._db`,
:meth:`OdbcEngine._measure_facts` and :meth:`OdbcEngine._server_is_local`.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from bench_gui.wire.engine_errors import EngineError

T = TypeVar("T")


def facts_message(when: str, out: dict[str, Any], seconds: float) -> str:
    """The log line of one schema measurement: size, tables counted, time, any problem."""
    size = out.get("database_size_bytes")
    text = f"schema {when}:"
    if size is not None:
        text += f" database {size / 1024**2:,.1f} MiB;"
    if out.get("table_rows"):
        text += f" {len(out['table_rows'])} tables counted;"
    text += f" measured in {seconds:.1f} s"
    if "schema_facts_error" in out:
        text += f" ({out['schema_facts_error']})"
    return text


def _using(conn: Any, use: Callable[[Any], T]) -> T:
    try:
        return use(conn)
    finally:
        conn.close()


class OdbcEngine:
    """The parts of :class:`bench_gui.agent.engines.AgentEngine` the ODBC engines share."""

    supports_template = False
    users_per_process = 1  # a thread per user: more processes spread the GIL's load
    template = ""
    # Said when a template is asked for ("<engine> keeps no template...").
    no_template = "this engine keeps no template: steps run on the same data"
    _info: dict[str, Any] | None

    # -- what the engine gives -----------------------------------------------------------------
    def _admin(self) -> Any:
        """A connection to the server (no database of ours)."""
        raise NotImplementedError

    def _db(self) -> Any:
        """A connection to the benchmark database."""
        raise NotImplementedError

    def _measure_facts(self, *, rows: bool) -> dict[str, Any]:
        """``database_size_bytes`` and (``rows``) ``table_rows`` with ``table_rows_method``;
        never raises: a problem goes into ``schema_facts_error``."""
        raise NotImplementedError

    def _server_is_local(self) -> bool:
        """Whether the connection string names this host."""
        raise NotImplementedError

    def server_info(self) -> dict[str, Any]:
        raise NotImplementedError

    # -- shared --------------------------------------------------------------------------------
    def on_admin(self, use: Callable[[Any], T]) -> T:
        """``use`` on a new server connection, closed afterwards."""
        return _using(self._admin(), use)

    def on_db(self, use: Callable[[Any], T]) -> T:
        """``use`` on a new connection to the benchmark database, closed afterwards."""
        return _using(self._db(), use)

    def data_paths(self) -> list[str]:
        """The server's data directory when the server runs on this host (for the metrics of
        its disk), else nothing."""
        data_dir = (self._info or self.server_info()).get("data_directory")
        if data_dir and self._server_is_local() and os.path.isdir(str(data_dir)):
            return [str(data_dir)]
        return []

    def make_template(self) -> None:
        raise EngineError(self.no_template)

    def reset_from_template(self) -> None:
        self.make_template()

    def close_monitor(self) -> None:
        pass

    def schema_facts(
        self, emit: Callable[..., Any], stop: threading.Event, when: str
    ) -> dict[str, Any]:
        """The database's size and each table's rows (see the engine's ``_measure_facts``).
        Never raises: a problem goes into ``schema_facts_error``."""
        return self._facts(emit, when, rows=True)

    def after_run_facts(self, emit: Callable[..., Any], stop: threading.Event) -> dict[str, Any]:
        return self._facts(emit, "after the run", rows=not stop.is_set())

    def _facts(self, emit: Callable[..., Any], when: str, *, rows: bool) -> dict[str, Any]:
        started = time.monotonic()
        out = self._measure_facts(rows=rows)
        text = facts_message(when, out, time.monotonic() - started)
        emit("log", level="warning" if "schema_facts_error" in out else "info", message=text)
        return out
