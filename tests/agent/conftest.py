"""TPROC-C databases for the agent's PostgreSQL tests, on the session's embedded server.

One 2-warehouse build per test session (a few seconds), kept pristine as a template; tests
that change data work on a copy made from that template.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest

from bench_gui.agent.pg import loader, template

BUILD_DB = "tpcc_agent_build"
TEMPLATE_DB = "tpcc_agent_template"
WAREHOUSES = 2


@dataclass
class TpccBuild:
    """The session's build: where it is, what build() returned and the progress it reported."""

    uri: str
    admin_uri: str
    stats: dict[str, Any]
    events: list[dict[str, Any]]
    server: Any
    warehouses: int = WAREHOUSES

    def uri_for(self, database: str) -> str:
        return str(self.server.uri(database))


@pytest.fixture(scope="session")
def tpcc_build(pg_server: Any) -> TpccBuild:
    """A freshly built 2-warehouse database (read-only for tests) and its template copy."""
    pg_server.psql(f"DROP DATABASE IF EXISTS {BUILD_DB}; CREATE DATABASE {BUILD_DB};")
    events: list[dict[str, Any]] = []
    uri = pg_server.uri(BUILD_DB)
    stats = loader.build(uri, WAREHOUSES, 2, events.append)
    template.make_template(pg_server.uri("postgres"), BUILD_DB, TEMPLATE_DB)
    return TpccBuild(uri, pg_server.uri("postgres"), stats, events, pg_server)


def fresh_copy(build: TpccBuild, name: str) -> str:
    """A new database copied from the template; returns its URI."""
    template.reset_from_template(build.admin_uri, name, TEMPLATE_DB)
    return build.uri_for(name)


@pytest.fixture(scope="module")
def work_uri(tpcc_build: TpccBuild, request: pytest.FixtureRequest) -> str:
    """A copy of the build that the tests of one module may change."""
    name = "tpcc_work_" + request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
    return fresh_copy(tpcc_build, name)


@pytest.fixture
def work_conn(work_uri: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(work_uri, autocommit=True) as conn:
        yield conn


@pytest.fixture
def build_conn(tpcc_build: TpccBuild) -> Iterator[psycopg.Connection]:
    with psycopg.connect(tpcc_build.uri, autocommit=True) as conn:
        yield conn
