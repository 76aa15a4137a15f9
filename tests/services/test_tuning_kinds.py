"""The tuning history records each engine under its own kind: a MariaDB apply and its
rollback, against the private MariaDB of the tests, are ``mariadb`` entries (they were
``postgresql`` before schema migration 5), and ``bench-gui tune history`` shows the kind."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench_gui.cli.main import main
from bench_gui.engines.tuning_terms import TunedSetting
from bench_gui.services import tuning
from bench_gui.store import SessionStore
from bench_gui.store.tuning_history import TuningHistory
from tests._fixtures.mariadb import MariaDbServer


@pytest.fixture
def store() -> Iterator[SessionStore]:
    with SessionStore() as opened:  # the test's own data directory: the one the CLI opens
        yield opened


def test_a_mariadb_apply_is_recorded_as_mariadb(
    mariadb_server: MariaDbServer,
    tmp_path: Path,
    store: SessionStore,
    capsys: pytest.CaptureFixture[str],
) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(mariadb_server.plan_text("tpcc_kinds"))
    conn = tuning.resolve_target(str(plan), config_file=str(tmp_path / "x.cnf"))
    item = [TunedSetting("innodb_io_capacity", "1357", "test")]
    _result, entry = tuning.apply_profile(store, conn, item, profile="by hand")
    history = TuningHistory(store)
    applied = history.get(entry or 0)
    assert applied is not None
    assert applied.kind == "mariadb"
    assert history.last_open_apply(conn.target.key) is None  # not a PostgreSQL apply
    _back, rid, undone = tuning.rollback_last(store, conn)
    assert undone.id == entry
    rolled = history.get(rid)
    assert rolled is not None
    assert rolled.kind == "mariadb"
    assert main(["tune", "history", str(plan)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[2] for line in lines] == ["mariadb", "mariadb"]
