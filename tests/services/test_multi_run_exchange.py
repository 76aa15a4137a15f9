"""A session run on two driver hosts leaves this machine whole: exported and imported, pushed
to a team store and pulled back, with its hosts, their clocks and its plan of several hosts."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from bench_gui.services.run import RunController
from bench_gui.store import SessionStore, export_session, import_session
from bench_gui.store.team_store import TeamStoreConfig
from bench_gui.store.team_sync import pull, push
from tests.services.plans import two_host_plan

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("multi_database")]


def test_a_two_host_session_round_trips(
    pg_server: Any, two_hosts: list[str], store: SessionStore, tmp_path: Path
) -> None:
    controller = RunController(two_host_plan(pg_server, two_hosts, virtual_users=[2]), store)
    for _event in controller.events():
        pass
    assert controller.session_id is not None, controller.errors
    recorded = store.run_to_json(controller.session_id)
    assert [h["host"] for h in recorded["run"]["target"]["driver_hosts"]] == two_hosts
    assert recorded["run"]["plan"]["driver"]["targets"] == two_hosts

    for name in ("two.bgsession.json", "two.bgsession.json.gz"):
        path = export_session(store, controller.session_id, tmp_path / name)
        with SessionStore(tmp_path / f"{name}.sqlite3") as other:
            back = other.run_to_json(import_session(other, path))
        assert back["run"]["target"] == recorded["run"]["target"]
        assert back["run"]["plan"] == recorded["run"]["plan"]
        assert back["run"]["uuid"] == recorded["run"]["uuid"]
        assert back["steps"] == recorded["steps"]

    database = f"team_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server.uri(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    try:
        config = TeamStoreConfig(f"postgresql://postgres@/{database}?host={pg_server.socket_dir}")
        with SessionStore(team=config) as team, SessionStore(tmp_path / "ada.sqlite3") as ada:
            assert list(push(store, team).copied) == [controller.session_id]
            result = pull(team, ada)
            assert result.refused == {}
            (local,) = result.copied.values()
            pulled = ada.run_to_json(local)
        assert pulled["run"]["target"] == recorded["run"]["target"]
        assert pulled["steps"] == recorded["steps"]
        assert len(pulled["samples"]) == len(recorded["samples"])
    finally:
        pg_server.drop(database)
