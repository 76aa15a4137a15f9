"""A cursor on the session's 1-warehouse MariaDB database, for the procedure tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bench_gui.engines.mariadb.shared import odbc
from tests._fixtures.mariadb import MariaDbServer


@pytest.fixture(scope="module")
def cursor(mariadb_server: MariaDbServer) -> Iterator[Any]:
    engine = mariadb_server.engine(mariadb_server.tpcc(1))
    conn = odbc.connect(engine.conninfo, "mariadb")
    yield conn.cursor()
    conn.close()
