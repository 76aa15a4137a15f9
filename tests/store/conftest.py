"""Fixtures for the session store tests: every test gets its own data directory (and, when it
asks, a team store: a database of its own on the private PostgreSQL)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from bench_gui.store import DATA_DIR_ENV, SessionStore
from bench_gui.store.team_store import TeamStoreConfig
from tests._fixtures.pg import PgServer


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point BENCH_GUI_DATA_DIR at a fresh folder so no test touches the user's sessions."""
    folder = tmp_path / "data"
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    return folder


@pytest.fixture
def store(data_dir: Path) -> Iterator[SessionStore]:
    with SessionStore() as opened:
        yield opened


@pytest.fixture
def team_config(pg_server: PgServer) -> Iterator[TeamStoreConfig]:
    """A team store of this test's own: a fresh database on the session's private PostgreSQL
    (its Unix socket), dropped after the test. No password: the server trusts its socket."""
    database = f"team_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server.uri(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    try:
        yield TeamStoreConfig(f"postgresql://postgres@/{database}?host={pg_server.socket_dir}")
    finally:
        pg_server.drop(database)
