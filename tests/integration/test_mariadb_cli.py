"""MariaDB through the whole chain: plan -> agent (pyodbc) -> events -> stored session, on the
session's private MariaDB; and a PostgreSQL and a MariaDB session in one comparison.

Real components only: the private MariaDB of ``mariadb_server``, the real agent as a
subprocess of the real ``bench-gui run``, the real session store.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.crosscheck import nopm_doubt
from tests._fixtures import cli
from tests._fixtures.cli import last_json
from tests._fixtures.mariadb import PASSWORD, PASSWORD_ENV, MariaDbServer

pytestmark = pytest.mark.integration


def bench(*args: str, db: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return cli.bench(*args, db=db, timeout=timeout, env={PASSWORD_ENV: PASSWORD})


@pytest.fixture(scope="module")
def swept(mariadb_server: MariaDbServer, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One real two-step MariaDB sweep through ``bench-gui run``, shared by the tests below."""
    folder = tmp_path_factory.mktemp("mariadb-cli")
    database = mariadb_server.tpcc(1)
    plan = folder / "plan.toml"
    text = mariadb_server.plan_text(database, vus="1,2", rampup=2, duration=6)
    plan.write_text(text + "reset_between_steps = true\n")
    db = folder / "sessions.sqlite3"
    proc = bench("run", str(plan), "--json", db=db)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = last_json(proc.stdout)
    shown = bench("sessions", "show", str(result["session"]), "--json", db=db)
    assert shown.returncode == 0, shown.stderr
    return {"result": result, "db": db, "plan": plan, "session": json.loads(shown.stdout)}


def test_the_sweep_measures_every_step_with_the_database_counters(swept: Any) -> None:
    steps = swept["result"]["steps"]
    assert [s["vus"] for s in steps] == [1, 2]
    for step in steps:
        assert step["complete"] is True
        assert step["nopm"] > 0
        # TPM counts every commit and rollback (Com_commit + Com_rollback), NOPM New-Orders.
        assert step["tpm"] > 1.5 * step["nopm"]
        # The database's count and the driver's own count agree: the one 2% rule.
        assert nopm_doubt(step["nopm"], step["nopm_driver"], step["window_s"], step["vus"]) is None
        assert step["nopm_driver"] == pytest.approx(step["nopm"], rel=0.02)
        lat = step["latency_ms"]["new_order"]
        assert 0 < lat["p50"] <= lat["p99"] <= lat["max"]
        # Two users on one warehouse may deadlock now and then: counted, and rare.
        transactions = step["tpm"] * step["window_s"] / 60
        assert set(step["errors"]) <= {"deadlock_detected", "lock_wait_timeout"}
        assert sum(step["errors"].values()) <= 0.01 * transactions


def test_the_session_is_stored_as_a_mariadb_run_with_its_settings(swept: Any) -> None:
    run = swept["session"]["run"]
    assert (run["status"], run["engine"]) == ("complete", "mariadb")
    assert "MariaDB" in run["server_version"]
    pool = run["settings"]["innodb_buffer_pool_size"]
    assert (pool["value"], pool["value_unit"]) == (256 * 1024**2, "B")
    assert run["plan"]["target"]["kind"] == "mariadb"
    # No password anywhere in what was stored.
    stored = json.dumps(swept["session"])
    assert PASSWORD not in stored
    samples = swept["session"]["samples"]
    assert {s["step"] for s in samples} == {0, 1}
    assert all(s["nopm_db"] is not None for s in samples if s["phase"] == "measure")


def test_reset_between_steps_is_said_to_be_unsupported_in_the_session(swept: Any) -> None:
    messages = [entry["message"] for entry in swept["session"]["log"]]
    assert any("reset_between_steps is not supported on mariadb" in m for m in messages), messages


def test_the_consistency_checks_pass_after_the_run(swept: Any) -> None:
    proc = bench("check", str(swept["plan"]), "--json", db=swept["db"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = last_json(proc.stdout)
    assert result["status"] == "ok"
    assert [c["ok"] for c in result["checks"]] == [True] * 4


def test_a_postgresql_and_a_mariadb_session_compare_in_one_report(
    swept: Any, pg_server: Any, tmp_path: Path
) -> None:
    pg_server.clone_tpcc("cli_mixed", warehouses=1)
    plan = tmp_path / "pg.toml"
    plan.write_text(pg_server.plan_text("cli_mixed", vus="1,2", warehouses=1, rampup=2, duration=6))
    proc = bench("run", str(plan), "--json", db=swept["db"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    pg_session = last_json(proc.stdout)["session"]
    report = tmp_path / "report.html"
    compared = bench(
        "compare",
        str(pg_session),
        str(swept["result"]["session"]),
        "--report",
        str(report),
        "--json",
        db=swept["db"],
    )
    assert compared.returncode == 0, compared.stderr[-3000:]
    html = report.read_text(encoding="utf-8")
    assert "PostgreSQL" in html or "postgresql" in html
    assert "MariaDB" in html
    pg_server.drop("cli_mixed")
