"""The tuning service on a SQL Server plan: the dispatch by the plan's kind, the profile
``mssql-seed-003`` (and a preset file), apply and rollback recorded under kind ``mssql``.

No SQL Server exists here: after the dispatch is checked on the real objects, the service runs
against the scripted server of tests/remote/mssql_scripted.py (a test seam: recorded
statements, each parsed as T-SQL), handed to it as the connection's tuner."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench_gui.core.plan import load_plan
from bench_gui.engines.mssql.tuner import PROFILE, MssqlTuner, MssqlTuningTarget
from bench_gui.engines.tuning_terms import PresetError
from bench_gui.remote.db_tuner import HostFacts, TuningError
from bench_gui.services import tuning
from bench_gui.services.tuning_parts import Connection, Inputs
from bench_gui.store import SessionStore
from bench_gui.store.tuning_history import TuningHistory
from tests.engines.mssql.scripted import PLAN, ScriptedServer


@pytest.fixture
def plan_file(tmp_path: Path) -> Path:
    path = tmp_path / "plan.toml"
    path.write_text(PLAN)
    return path


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    with SessionStore(tmp_path / "sessions.db") as opened:
        yield opened


def scripted(conn: Connection, server: ScriptedServer) -> Connection:
    """The service's connection, its tuner talking to the scripted server (the seam)."""
    assert isinstance(conn.target, MssqlTuningTarget)
    conn.tuner = MssqlTuner(conn.target.conninfo, conn.target.database, connect=server.connect)
    return conn


def test_the_service_dispatches_on_the_kind(plan_file: Path) -> None:
    conn = tuning.resolve_target(str(plan_file))
    assert isinstance(conn.tuner, MssqlTuner)
    assert conn.engine == "mssql"
    assert conn.planned_users == 32
    assert conn.target.key == "mssql://sa@sqlbox:1433/tpcc"
    assert conn.tuner.database == "tpcc"
    assert "PWD" not in conn.target.conninfo.upper()
    assert "ENCRYPT=yes" in conn.target.conninfo  # tls = "on" as the plugin spells it
    for option in ("control", "ssh", "config_file", "data_directory"):
        with pytest.raises(TuningError, match="not for a SQL Server target"):
            tuning.resolve_target(str(plan_file), **{option: "x"})
    same = tuning.connection_for_plan(load_plan(plan_file).target)
    assert isinstance(same.tuner, MssqlTuner)
    assert same.target.key == conn.target.key
    # No SQL Server driver on this machine: the real path says so when it connects.
    with pytest.raises(TuningError, match="no SQL Server ODBC driver"):
        tuning.server_version(conn)


def test_profiles_of_a_sql_server(plan_file: Path, tmp_path: Path) -> None:
    conn = scripted(tuning.resolve_target(str(plan_file)), ScriptedServer())
    proposal = tuning.proposal_for(conn, PROFILE)
    assert proposal.version == "14.0.3456.2"
    assert "max server memory (MB)" not in proposal.values()
    # The machine's RAM, read through the server; given as facts, max server memory derived.
    facts = conn.tuner.host_facts()
    assert facts.ram_bytes == 64 * 1024**3
    derived = tuning.proposal_for(conn, PROFILE, facts=HostFacts(ram_bytes=16 * 1024**3))
    assert derived.values()["max server memory (MB)"] == str(16384 - 4096)
    # A small machine: the rule is not used, and the notes say why; --ram too small is refused.
    small = tuning.proposal_for(conn, PROFILE, facts=HostFacts(ram_bytes=4 * 1024**3))
    assert "max server memory (MB)" not in small.values()
    assert any("less than the 8192 MB" in n for n in small.notes)
    with pytest.raises(PresetError, match="--ram: ram_mb 4096"):
        tuning.proposal_for(conn, PROFILE, Inputs(ram_bytes=4 * 1024**3))
    with pytest.raises(PresetError, match="use mssql-seed-003"):
        tuning.proposal_for(conn, "pgtune")
    path = tmp_path / "lab.toml"
    path.write_text('engine = "mssql"\n[server]\n"cost threshold for parallelism" = 50\n')
    from_file = tuning.proposal_for(conn, str(path))
    assert from_file.values() == {"cost threshold for parallelism": "50"}


def test_apply_and_rollback_are_recorded_as_mssql(plan_file: Path, store: SessionStore) -> None:
    server = ScriptedServer()
    before = server.state()
    conn = scripted(tuning.resolve_target(str(plan_file)), server)
    proposal = tuning.proposal_for(conn, PROFILE)
    result, entry = tuning.apply_profile(store, conn, proposal, profile=PROFILE)
    assert result.ok
    assert entry is not None
    assert (server.recovery, server.options["max degree of parallelism"].in_use) == ("SIMPLE", 1)
    history = TuningHistory(store)
    recorded = history.get(entry)
    assert recorded is not None
    assert (recorded.kind, recorded.profile, recorded.target_key) == (
        "mssql", PROFILE, "mssql://sa@sqlbox:1433/tpcc"
    )  # fmt: skip
    assert recorded.changes["recovery model"] == {"from": "FULL", "to": "SIMPLE", "rule": (
        proposal.settings[1].rule)}  # fmt: skip
    assert recorded.snapshot is not None
    assert recorded.snapshot["engine"] == "mssql"

    outcome, rid, undone = tuning.rollback_last(store, conn)
    assert outcome.ok
    assert undone.id == entry
    assert server.state() == before
    rolled = history.get(rid)
    assert rolled is not None
    assert (rolled.kind, rolled.action) == ("mssql", "rollback")
    assert [e.kind for e in history.entries(conn.target.key)] == ["mssql", "mssql"]
    with pytest.raises(TuningError, match="nothing to roll back"):
        tuning.rollback_last(store, conn)
    server.check_sent()


def test_a_refused_apply_is_recorded_with_its_reason(plan_file: Path, store: SessionStore) -> None:
    server = ScriptedServer(login_tokens=[("bench", "SQL LOGIN")], user_tokens=[])
    conn = scripted(tuning.resolve_target(str(plan_file)), server)
    proposal = tuning.proposal_for(conn, PROFILE)
    with pytest.raises(TuningError, match="ALTER SETTINGS"):
        tuning.apply_profile(store, conn, proposal, profile=PROFILE)
    [failed] = TuningHistory(store).entries(conn.target.key)
    assert (failed.kind, failed.result["ok"], failed.result["error_type"]) == (
        "mssql", False, "NotEnoughPrivileges"
    )  # fmt: skip
    assert failed.snapshot is None  # nothing to roll back
    assert server.changes() == []
