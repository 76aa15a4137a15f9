"""The whole chain from the command line: plan -> agent -> events -> stored session.

Real components only: the embedded PostgreSQL, the real agent as a subprocess, the real
session store. Sweeps are short (seconds per step) but real.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests._fixtures.cli import bench, last_json

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def swept(pg_server: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One real three-step sweep, shared by the assertions below."""
    folder = tmp_path_factory.mktemp("cli")
    pg_server.clone_tpcc("cli_tpcc", warehouses=2)
    plan = folder / "plan.toml"
    plan.write_text(pg_server.plan_text("cli_tpcc", vus="1,2,3", rampup=2, duration=8))
    db = folder / "sessions.sqlite3"
    proc = bench("run", str(plan), "--json", db=db)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {"result": last_json(proc.stdout), "db": db, "stderr": proc.stderr, "plan": plan}


def test_run_prints_the_step_table_as_json(swept: dict[str, Any]) -> None:
    result = swept["result"]
    assert isinstance(result["session"], int)
    steps = result["steps"]
    assert [s["vus"] for s in steps] == [1, 2, 3]
    for step in steps:
        assert step["nopm"] > 0
        assert step["tpm"] > step["nopm"]
        # The database's count and the driver's own count of committed New-Orders agree.
        assert step["nopm_driver"] == pytest.approx(step["nopm"], rel=0.02)
        for key in ("new_order", "all"):
            lat = step["latency_ms"][key]
            assert set(lat) == {"avg", "p50", "p95", "p99", "p999", "max"}
            assert 0 < lat["p50"] <= lat["p95"] <= lat["p99"] <= lat["p999"] <= lat["max"]
        assert step["errors"] == {}


def test_every_second_is_stored(swept: dict[str, Any]) -> None:
    proc = bench("sessions", "show", str(swept["result"]["session"]), "--json", db=swept["db"])
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["run"]["status"] == "complete"
    samples = data["samples"]
    for step in (0, 1, 2):
        seconds = [s for s in samples if s["step"] == step]
        # 2 s of ramp-up + 8 s measured: one sample a second, the last one closing the window.
        assert len(seconds) in (10, 11)
        assert sum(s["elapsed"] >= 9.9 for s in seconds) == 1
        assert {s["phase"] for s in seconds} == {"rampup", "measure"}
    seqs = [s["seq"] for s in samples]
    assert seqs == sorted(set(seqs))
    assert len(data["steps"]) == 3
    assert all(step["histograms"] for step in data["steps"])
    assert data["run"]["server_version"].startswith("PostgreSQL")


def test_sessions_list(swept: dict[str, Any]) -> None:
    proc = bench("sessions", "list", "--json", db=swept["db"])
    runs = json.loads(proc.stdout)
    assert swept["result"]["session"] in [r["id"] for r in runs]


def test_consistency_holds_after_the_run(swept: dict[str, Any]) -> None:
    proc = bench("check", str(swept["plan"]), "--json", db=swept["db"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    checks = last_json(proc.stdout)["checks"]
    assert len(checks) >= 4
    assert all(c["ok"] for c in checks), checks


def test_bad_plan_names_the_field(tmp_path: Path) -> None:
    plan = tmp_path / "bad.toml"
    plan.write_text('[workload]\nwarehouses = 0\nvirtual_users = "8,x"\nduration_s = -1\n')
    proc = bench("run", str(plan), db=tmp_path / "s.sqlite3")
    assert proc.returncode == 2
    assert "workload.warehouses" in proc.stderr
    assert "workload.virtual_users: 'x' is not a whole number" in proc.stderr
    assert "workload.duration_s" in proc.stderr


def test_unreachable_server_is_a_clear_error(tmp_path: Path) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(
        '[target]\nkind = "postgresql"\nhost = "127.0.0.1"\nport = 1\n'
        '[workload]\nwarehouses = 1\nvirtual_users = "1"\n'
    )
    db = tmp_path / "s.sqlite3"
    proc = bench("run", str(plan), "--json", db=db)
    assert proc.returncode == 1
    result = last_json(proc.stdout)
    assert "cannot connect" in result["error"]
    assert "127.0.0.1" in result["error"] or "port 1" in result["error"]


def test_wrong_password_is_a_clear_error(pg_server: Any, tmp_path: Path) -> None:
    pg_server.psql(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname='bench_pw')"
        " THEN CREATE ROLE bench_pw LOGIN PASSWORD 'right'; END IF; END $$;"
    )
    hba = Path(pg_server.server.pgdata) / "pg_hba.conf"
    original = hba.read_text()
    hba.write_text("local all bench_pw scram-sha-256\n" + original)
    pg_server.psql("SELECT pg_reload_conf();")
    try:
        plan = tmp_path / "plan.toml"
        plan.write_text(
            f'[target]\nkind = "postgresql"\nhost = "{pg_server.socket_dir}"\n'
            'user = "bench_pw"\npassword_env = "BENCH_GUI_TEST_PW"\n'
            '[workload]\nwarehouses = 1\nvirtual_users = "1"\n'
        )
        db = tmp_path / "s.sqlite3"
        os.environ["BENCH_GUI_TEST_PW"] = "wrong"
        proc = bench("run", str(plan), "--json", db=db)
        assert proc.returncode == 1
        assert (
            'password authentication failed for user "bench_pw"' in last_json(proc.stdout)["error"]
        )
        assert "database password: environment variable BENCH_GUI_TEST_PW" in proc.stderr
        # An unset variable is named, not sent as an empty password.
        del os.environ["BENCH_GUI_TEST_PW"]
        proc = bench("run", str(plan), db=db)
        assert proc.returncode == 1
        assert "BENCH_GUI_TEST_PW" in proc.stderr
    finally:
        os.environ.pop("BENCH_GUI_TEST_PW", None)
        hba.write_text(original)
        pg_server.psql("SELECT pg_reload_conf();")


def test_demo_headless_needs_nothing_configured(tmp_path: Path) -> None:
    """The embedded demo: a short three-step sweep (about a minute) with nothing set up."""
    env_dir = tmp_path / "data"
    old = os.environ.get("BENCH_GUI_DATA_DIR")
    os.environ["BENCH_GUI_DATA_DIR"] = str(env_dir)
    try:
        proc = bench("demo", "--headless", "--json", db=tmp_path / "s.sqlite3", timeout=600)
    finally:
        if old is not None:
            os.environ["BENCH_GUI_DATA_DIR"] = old
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = last_json(proc.stdout)
    assert [s["vus"] for s in result["steps"]] == [1, 2, 4]
    assert all(s["nopm"] > 0 and s["complete"] for s in result["steps"])
    assert "building 2 warehouses" in proc.stderr
    # Where the session is, said at the end (the JSON says it too).
    session = result["session"]
    where = tmp_path / "s.sqlite3"
    assert result["store"] == str(where)
    assert f"session {session} stored in {where} (bench-gui sessions show {session})" in (
        proc.stderr
    )
    assert (env_dir / "demo-postgres" / "PG_VERSION").exists()


def test_sessions_show_prints_the_session_in_words(swept: dict[str, Any]) -> None:
    session = swept["result"]["session"]
    proc = bench("sessions", "show", str(session), db=swept["db"])
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.startswith(f"session {session}: ")
    assert "(complete)" in first
    assert "None" not in proc.stdout.split("VUs")[0]
    assert "server: PostgreSQL" in proc.stdout
    # The step table: a header and one line per step.
    table = proc.stdout.split("VUs", 1)[1].strip().splitlines()
    assert [line.split()[0] for line in table[1:]] == ["1", "2", "3"]


def test_check_quiet_still_prints_the_result(swept: dict[str, Any]) -> None:
    proc = bench("check", str(swept["plan"]), "--quiet", db=swept["db"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr == ""
    lines = proc.stdout.strip().splitlines()
    assert lines[-1].startswith("all ")
    assert lines[-1].endswith("consistency checks passed")
    assert all(line.startswith("ok ") for line in lines[:-1])
