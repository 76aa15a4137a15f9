"""The two transaction profiles through the whole chain (``bench-gui run`` -> agent -> stored
session -> report) on the private PostgreSQL and MariaDB: both run and cross-check, the
session records its profile, and a report names each session's profile and flags ratios
across profiles (and TPM across engines). A HammerDB import is the hammerdb profile."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench_gui.core.crosscheck import nopm_doubt
from tests._fixtures import cli
from tests._fixtures.cli import last_json
from tests._fixtures.hammerdb import HAMMER_DB as HAMMERDB_JOBS
from tests._fixtures.mariadb import PASSWORD, PASSWORD_ENV, MariaDbServer

pytestmark = pytest.mark.integration


def bench(*args: str, db: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return cli.bench(*args, db=db, timeout=timeout, env={PASSWORD_ENV: PASSWORD})


@pytest.fixture(scope="module")
def runs(
    pg_server: Any, mariadb_server: MariaDbServer, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """One one-step run per engine and profile, in one store: {"pg_spec": session, ...}."""
    folder = tmp_path_factory.mktemp("profiles")
    db = folder / "sessions.sqlite3"
    pg_db = "profiles_pg"
    pg_server.clone_tpcc(pg_db, warehouses=1)
    # Built before the hammerdb profile existed: its routines are added, the data kept.
    with psycopg.connect(pg_server.uri(pg_db), autocommit=True) as conn:
        conn.execute("DROP FUNCTION hdb_neword")
    maria_db = mariadb_server.tpcc(1)
    out: dict[str, Any] = {"db": db, "folder": folder}
    for key, text in (
        ("pg_spec", pg_server.plan_text(pg_db, vus="2", warehouses=1, rampup=1, duration=5)),
        (
            "pg_hammerdb",
            pg_server.plan_text(
                pg_db, vus="2", warehouses=1, rampup=1, duration=5, profile="hammerdb"
            ),
        ),
        ("maria_spec", mariadb_server.plan_text(maria_db, vus="2", rampup=1, duration=5)),
        (
            "maria_hammerdb",
            mariadb_server.plan_text(maria_db, vus="2", rampup=1, duration=5, profile="hammerdb"),
        ),
    ):
        plan = folder / f"{key}.toml"
        plan.write_text(text)
        proc = bench("run", str(plan), "--json", db=db)
        assert proc.returncode == 0, proc.stderr[-3000:]
        result = last_json(proc.stdout)
        shown = bench("sessions", "show", str(result["session"]), "--json", db=db)
        assert shown.returncode == 0, shown.stderr
        out[key] = {"result": result, "session": json.loads(shown.stdout)}
    pg_server.drop(pg_db)
    imported = bench(
        "sessions", "import-hammerdb", str(HAMMERDB_JOBS), "--utc-offset", "0", "--json", db=db
    )
    assert imported.returncode == 0, imported.stderr[-3000:]
    sweeps = [s for s in json.loads(imported.stdout)["sessions"] if len(s["vus"]) > 1]
    out["hammerdb_import"] = sweeps[0]["session"]
    return out


KEYS = ("pg_spec", "pg_hammerdb", "maria_spec", "maria_hammerdb")


@pytest.mark.parametrize("key", KEYS)
def test_both_profiles_run_and_cross_check_on_both_engines(runs: Any, key: str) -> None:
    (step,) = runs[key]["result"]["steps"]
    assert step["complete"] is True
    assert step["nopm"] > 0
    assert nopm_doubt(step["nopm"], step["nopm_driver"], step["window_s"], step["vus"]) is None
    assert step["nopm_driver"] == pytest.approx(step["nopm"], rel=0.02)


@pytest.mark.parametrize("key", KEYS)
def test_the_session_records_its_profile(runs: Any, key: str) -> None:
    run = runs[key]["session"]["run"]
    expected = key.split("_", 1)[1]
    assert run["plan"]["workload"]["profile"] == expected
    assert run["status"] == "complete"


def test_a_database_without_the_hammerdb_routines_gets_them(runs: Any) -> None:
    # The first run on it (the spec one) added them; the hammerdb run then found them.
    messages = [e["message"] for e in runs["pg_spec"]["session"]["log"]]
    assert any("creating both profiles' routines" in m for m in messages), messages


def report(runs: Any, *sessions: Any) -> str:
    path = runs["folder"] / ("report-" + "-".join(map(str, sessions)) + ".html")
    proc = bench("compare", *map(str, sessions), "--report", str(path), db=runs["db"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    return path.read_text(encoding="utf-8")


def test_a_hammerdb_import_and_a_hammerdb_run_compare_with_the_profile_named(runs: Any) -> None:
    html = report(runs, runs["hammerdb_import"], runs["pg_hammerdb"]["result"]["session"])
    assert "Transaction profile" in html
    # The brief keeps a number with the word before it (a no-break space): read it as one.
    assert "hammerdb (HammerDB 6.0&#39;s transactions), recorded by HammerDB" in html.replace(
        "\xa0", " "
    )
    assert "different transaction profiles" not in html


def test_a_ratio_across_profiles_is_flagged(runs: Any) -> None:
    html = report(
        runs, runs["pg_spec"]["result"]["session"], runs["pg_hammerdb"]["result"]["session"]
    )
    assert "spec (TPC-C as written)" in html
    assert "different transaction profiles" in html


def test_a_tpm_ratio_across_engines_carries_the_counters_caveat(runs: Any) -> None:
    html = report(
        runs, runs["pg_spec"]["result"]["session"], runs["maria_spec"]["result"]["session"]
    )
    assert "TPM is read from a different counter on each engine" in html
    assert "Com_commit + Com_rollback" in html
    assert "different transaction profiles" not in html


def test_the_terminal_comparison_says_so_too(runs: Any) -> None:
    spec, hammer = (runs[k]["result"]["session"] for k in ("pg_spec", "pg_hammerdb"))
    proc = bench("compare", str(spec), str(hammer), db=runs["db"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "different transaction profiles" in proc.stdout
