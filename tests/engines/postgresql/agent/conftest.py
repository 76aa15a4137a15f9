"""TPROC-C databases for the agent's PostgreSQL tests: the session's 2-warehouse build.

The build (``pg_server.tpcc_build``, made once per test session and shared with every other
test that needs 2 warehouses) stays pristine: tests read it through ``build_conn``; tests that
change data work on a copy made from its template.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from tests._fixtures.pg import PgServer, TpccBuild

WAREHOUSES = 2


@pytest.fixture(scope="session")
def tpcc_build(pg_server: PgServer) -> TpccBuild:
    """The session's 2-warehouse build (read-only for tests) and its template copy."""
    return pg_server.tpcc_build(WAREHOUSES)


@pytest.fixture(scope="module")
def work_uri(tpcc_build: TpccBuild, request: pytest.FixtureRequest) -> str:
    """A copy of the build that the tests of one module may change."""
    name = "tpcc_work_" + request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
    return tpcc_build.server.clone_tpcc(name, tpcc_build.warehouses)


@pytest.fixture
def work_conn(work_uri: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(work_uri, autocommit=True) as conn:
        yield conn


@pytest.fixture
def build_conn(tpcc_build: TpccBuild) -> Iterator[psycopg.Connection]:
    with psycopg.connect(tpcc_build.uri, autocommit=True) as conn:
        yield conn
