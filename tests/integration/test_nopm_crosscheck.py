"""A run with another load on its database: the NOPM the database counts is flagged everywhere.

Real components only: the embedded PostgreSQL, the real agent started by ``bench-gui run``, and
a second client committing real New-Orders (the schema's own ``neword``) on the same database
in a plain psycopg loop while the run measures. The database's NOPM (``sum(d_next_o_id)``)
counts both; the driver counts only its own. The flag must show in the stored step, the CLI's
progress and step table, the Live page's model and the comparison report; a run without the
extra load is not flagged.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from bench_gui.core.crosscheck import ANOTHER_LOAD
from bench_gui.gui.pages.live.outcome import banner_text
from bench_gui.report.model import DOUBT_MARK, DOUBT_NOTE, build_report
from bench_gui.services.live_model import LiveModel
from bench_gui.store import SessionStore
from bench_gui.store.paths import data_dir
from bench_gui.wire.protocol import decode_line
from tests._fixtures.cli import bench
from tests._fixtures.pg import PgServer

pytestmark = pytest.mark.integration

DATABASE = "crosscheck_tpcc"

# Commits New-Orders on warehouse 1 as fast as it can until killed; says "running" after the
# first one has committed.
LOAD = r"""
import random, sys
import psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    first = True
    while True:
        conn.execute(
            "SELECT neword(1, 1, %s, %s, %s, 0)",
            (random.randint(1, 10), random.randint(1, 3000), random.randint(5, 15)),
        )
        if first:
            print("running", flush=True)
            first = False
"""


@pytest.fixture(scope="module")
def runs(pg_server: PgServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A clean run, then the same plan with another load on the database."""
    pg_server.clone_tpcc(DATABASE)
    folder = tmp_path_factory.mktemp("crosscheck")
    plan = folder / "plan.toml"
    plan.write_text(pg_server.plan_text(DATABASE, vus="1", warehouses=1, rampup=1, duration=5))
    db = folder / "sessions.sqlite3"
    clean = bench("run", str(plan), "--json", db=db)
    assert clean.returncode == 0, clean.stderr[-3000:]
    load = subprocess.Popen(
        [sys.executable, "-c", LOAD, pg_server.uri(DATABASE)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert load.stdout is not None
        assert load.stdout.readline().strip() == "running", "the other load did not start"
        loaded = bench("run", str(plan), "--json", db=db)
    finally:
        load.kill()
        load.wait()
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    return {
        "db": db,
        "clean": json.loads(clean.stdout.strip().splitlines()[-1]),
        "loaded": json.loads(loaded.stdout.strip().splitlines()[-1]),
        "progress": loaded.stderr,
    }


def test_the_stored_step_is_flagged_and_the_clean_one_is_not(runs: dict[str, Any]) -> None:
    with SessionStore(runs["db"]) as store:
        clean = store.steps(runs["clean"]["session"])[0]
        loaded = store.steps(runs["loaded"]["session"])[0]
    assert clean.nopm_flag is None, (clean.nopm, clean.nopm_driver)
    assert loaded.nopm_flag is not None
    assert loaded.nopm_flag.endswith(ANOTHER_LOAD)
    assert loaded.nopm is not None
    assert loaded.nopm_driver is not None
    assert loaded.nopm > 1.02 * loaded.nopm_driver
    assert f"the database counted {loaded.nopm:,.0f}" in loaded.nopm_flag
    # ``run --json`` carries the same judgement.
    assert runs["loaded"]["steps"][0]["nopm_flag"] == loaded.nopm_flag
    assert runs["clean"]["steps"][0]["nopm_flag"] is None


def test_the_cli_marks_the_step(runs: dict[str, Any]) -> None:
    progress = [line for line in runs["progress"].splitlines() if "NOPM doubtful" in line]
    assert len(progress) == 1
    assert progress[0].startswith("  (!) NOPM doubtful: the database counted ")
    assert progress[0].endswith(ANOTHER_LOAD)

    shown = bench("sessions", "show", str(runs["loaded"]["session"]), db=runs["db"])
    assert shown.returncode == 0, shown.stderr
    table = shown.stdout.split("VUs", 1)[1].strip().splitlines()
    assert "(!)" in table[1]  # the step's line carries the mark...
    assert table[2].startswith("(!) 1 VU: NOPM doubtful")  # ...and the reason follows
    clean = bench("sessions", "show", str(runs["clean"]["session"]), db=runs["db"])
    assert "(!)" not in clean.stdout


def test_the_live_model_flags_the_running_and_the_finished_step(runs: dict[str, Any]) -> None:
    """The loaded run's own event stream (its spool, as the agent wrote it) into the model the
    Live page draws."""
    session = runs["loaded"]["session"]
    spools = []
    for folder in sorted((data_dir() / "runs").iterdir(), key=lambda f: f.stat().st_mtime):
        config = json.loads((folder / "config.json").read_text())
        if config.get("session_id") == session and config.get("database") == DATABASE:
            spools.append(folder / "events.jsonl")
    assert spools, "the run's spool file"
    events = [decode_line(line) for line in spools[-1].read_text().splitlines() if line.strip()]
    model = LiveModel()
    flagged_while_measuring = False
    for event in events:
        model.feed(event)
        if event.kind == "sample" and model.phase == "measure" and model.tiles().nopm_flag:
            flagged_while_measuring = True
    assert flagged_while_measuring
    assert model.points[0].nopm_flag is not None
    assert model.points[0].nopm_flag.endswith(ANOTHER_LOAD)
    assert model.tiles().nopm_flag == model.points[0].nopm_flag
    assert f"⚑ Step 1 (1 VU): {model.points[0].nopm_flag}" in banner_text(model, "ok")


def test_the_report_says_the_figure_is_doubtful(runs: dict[str, Any]) -> None:
    clean, loaded = runs["clean"]["session"], runs["loaded"]["session"]
    with SessionStore(runs["db"]) as store:
        report = build_report(store, [clean, loaded], clean)
    table = report.table("throughput")
    row = table.rows[0]
    nopm_loaded = row[2]
    assert nopm_loaded.text.endswith(f" {DOUBT_MARK}")
    assert nopm_loaded.tone == "flag"
    assert not row[1].text.endswith(DOUBT_MARK)  # the clean baseline's NOPM
    ratio = row[5]
    assert ratio.text.endswith(f" {DOUBT_MARK}")
    assert DOUBT_NOTE in table.notes
    assert any("step 1 (1 users): NOPM doubtful" in n for n in report.notes)
    section = next(s for s in report.sections if s.key == "throughput")
    assert any("is doubtful" in m for m in section.messages)

    compared = bench("compare", str(clean), str(loaded), "--baseline", str(clean), db=runs["db"])
    assert compared.returncode == 0, compared.stderr
    assert DOUBT_MARK in compared.stdout
    assert "NOPM doubtful" in compared.stderr  # the comparison's notes
