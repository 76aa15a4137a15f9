"""The database password of a run: from the OS keyring (or a variable the plan may name),
sent to the agent only, never stored, and the session says where it came from."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.plan_model import Plan, Target
from bench_gui.remote.secrets import set_db_password
from bench_gui.services.run import RunController
from bench_gui.services.run_errors import RunError
from bench_gui.store import SessionStore

pytestmark = pytest.mark.integration

ROLE = "bench_kr"


@pytest.fixture
def password_role(pg_server: Any) -> Iterator[Target]:
    """A role that must log in with its password (scram) over the server's socket."""
    pg_server.psql(
        f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname='{ROLE}')"
        f" THEN CREATE ROLE {ROLE} LOGIN PASSWORD 'right'; END IF; END $$;"
    )
    hba = Path(pg_server.server.pgdata) / "pg_hba.conf"
    original = hba.read_text()
    hba.write_text(f"local all {ROLE} scram-sha-256\n" + original)
    pg_server.psql("SELECT pg_reload_conf();")
    try:
        yield Target(kind="postgresql", host=pg_server.socket_dir, user=ROLE)
    finally:
        hba.write_text(original)
        pg_server.psql("SELECT pg_reload_conf();")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    with SessionStore(tmp_path / "sessions.sqlite3") as opened:
        yield opened


def status(target: Target, store: SessionStore) -> tuple[RunController, list[str]]:
    """A status run; the session's log (where the password came from is said there)."""
    controller = RunController(Plan(name="password", target=target), store, action="status")
    try:
        list(controller.events())
    finally:
        said = [line.message for line in store.log(store.list_runs(None)[0].id)]
    return controller, said


def test_the_keyring_password_is_used_and_said(
    password_role: Target, store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PGPASSWORD", "right")  # the desktop's own: not sent unless named
    with pytest.raises(RunError, match="password"):
        status(password_role, store)
    server = f"postgresql:{ROLE}@{password_role.host}:{password_role.port}"
    said = [line.message for line in store.log(store.list_runs(None)[0].id)]
    assert f"database password: none (the OS keyring holds no password for {server})" in said

    set_db_password(password_role, "right")
    controller, said = status(password_role, store)
    assert controller.final is not None
    assert controller.final.get("status") == "ok"
    assert f"database password: the OS keyring ({server})" in said
    assert controller.session_id is not None
    assert "right" not in json.dumps(store.run_to_json(controller.session_id))


def test_a_variable_the_plan_names_wins_and_is_named(
    password_role: Target, store: SessionStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_db_password(password_role, "wrong")
    monkeypatch.setenv("BENCH_GUI_TEST_KR", "right")
    target = Target(**{**password_role.__dict__, "password_env": "BENCH_GUI_TEST_KR"})
    controller, said = status(target, store)
    assert controller.final is not None
    assert controller.final.get("status") == "ok"
    assert "database password: environment variable BENCH_GUI_TEST_KR" in said
