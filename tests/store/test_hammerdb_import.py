"""HammerDB's results imported as sessions, from the real job store HammerDB 6.0 wrote
(``tests/_fixtures/hammerdb``): sweeps by user count with NOPM, TPM, the engine, warehouses
and dates; failed jobs kept with their reason; no duplicates; a bad file stores nothing; the
imported sessions compare like bench-gui's own."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bench_gui.cli.main import main
from bench_gui.store import SessionStore
from bench_gui.store.compare_input import step_points
from bench_gui.store.hammerdb import import_hammerdb
from bench_gui.store.hammerdb_jobs import (
    HammerDBError,
    parse_jobdict,
    read_hammerdb,
    read_job_store,
)
from tests._fixtures.hammerdb import HAMMER_DB as FIXTURE

# The README's table: job id -> (VUs, NOPM, TPM) of the jobs with a result.
RESULTS = {
    "6B045F62660F03E273238333": (4, 28937, 66353),
    "6B04614A660F03E233835323": (4, 45279, 104184),
    "6B046332660F03E243932363": (8, 56761, 130759),
    "6B04651A660F03E263939383": (4, 46763, 107343),
    "6B046702660F03E263338373": (8, 36302, 83306),
    "6B0468F0660F03E253433393": (16, 35272, 81357),
    "6B046B41660F03E223938393": (4, 37272, 85826),
}


def imported(store: SessionStore, path: Path = FIXTURE, **options: Any) -> dict[str, Any]:
    """{job id: (session detail, its steps)} after importing ``path``."""
    import_hammerdb(store, path, utc_offset_h=0, **options)
    out = {}
    for info in store.list_runs(kind=None):
        detail = store.get_run(info.id)
        for job in detail.agent["hammerdb"]["jobs"]:
            out[job] = (detail, store.steps(info.id))
    return out


def test_jobs_become_sweeps_with_their_figures(store: SessionStore) -> None:
    jobs = imported(store)
    assert len(jobs) == 10
    for job, (vus, nopm, tpm) in RESULTS.items():
        detail, steps = jobs[job]
        step = next(s for s in steps if s.summary["hammerdb_job"] == job)
        assert (step.vus, step.nopm, step.tpm) == (vus, nopm, tpm)
        assert step.complete
        assert step.window_s == detail.plan["workload"]["duration_s"]
        assert detail.status == "complete"
        assert detail.engine == "postgresql"
        assert detail.server_version == "PostgreSQL 15.20 (Debian 15.20-0+deb12u1)"
        assert detail.plan["workload"]["warehouses"] == 8
        assert detail.plan["workload"]["rampup_s"] == 60.0
        assert detail.plan["workload"]["keying_thinking"] is False
        assert detail.target == {
            "kind": "postgresql",
            "host": "127.0.0.1",
            "port": 5432,
            "database": "tpcc",
        }
        assert detail.agent["source"] == "hammerdb"
        assert detail.agent["hammerdb"]["file"] == str(FIXTURE)
    # Sweeps: one configuration and a rising user count.
    sweep = jobs["6B04651A660F03E263939383"]
    assert [s.vus for s in sweep[1]] == [4, 8, 16]
    assert sweep[0].agent["hammerdb"]["jobs"] == [
        "6B04651A660F03E263939383",
        "6B046702660F03E263338373",
        "6B0468F0660F03E253433393",
    ]
    assert sweep[0].created_at == "2026-11-23T16:08:58.000+00:00"
    assert sweep[0].plan["workload"]["virtual_users"] == [4, 8, 16]
    assert [s.vus for s in jobs["6B04614A660F03E233835323"][1]] == [4, 8]
    assert jobs["6B045F62660F03E273238333"][0].plan["workload"]["duration_s"] == 60.0
    # The 4-user job after the 8-user one starts a new sweep, as does the time-profiled one.
    assert len({d.id for d, _s in jobs.values()}) == 7


def test_failed_jobs_are_kept_with_their_reason(store: SessionStore) -> None:
    jobs = imported(store)
    start_failed, _ = jobs["6B045BF3660F03E243233353"]
    assert (start_failed.kind, start_failed.status) == ("build", "failed")
    assert 'Error in Virtual User 1: invalid command name "pg_notice_handler"' in (
        start_failed.message
    )
    build, _ = jobs["6B045CF4660F03E203037343"]
    assert (build.kind, build.status, build.steps) == ("build", "complete", 0)
    nothing, steps = jobs["6B045E97660F03E213132363"]
    assert (nothing.kind, nothing.status, steps) == ("run", "failed", [])
    assert "every transaction failed" in nothing.message
    profiled, steps = jobs["6B046B41660F03E223938393"]
    assert profiled.status == "complete"
    assert "time profile on, but its timings were not stored" in profiled.message
    assert steps[0].latency_ms == {}
    log = [line.message for line in store.log(profiled.id)]
    assert any("TEST RESULT : System achieved 37272 NOPM" in m for m in log)
    # Builds are not runs: the session list shows the runs.
    assert {r.kind for r in store.list_runs()} == {"run"}


def test_importing_twice_adds_nothing(store: SessionStore) -> None:
    import_hammerdb(store, FIXTURE)
    before = [(r.id, r.steps) for r in store.list_runs(kind=None)]
    again = import_hammerdb(store, FIXTURE)
    assert again.sessions == ()
    assert {job for job, _session in again.already} == {
        job
        for r in store.list_runs(kind=None)
        for job in store.get_run(r.id).agent["hammerdb"]["jobs"]
    }
    assert len(again.already) == 10
    assert [(r.id, r.steps) for r in store.list_runs(kind=None)] == before


def test_passwords_are_left_out(store: SessionStore) -> None:
    jobs = imported(store)
    config = jobs["6B04614A660F03E233835323"][0].agent["hammerdb"]["config"]
    assert config["tpcc"]["pg_user"] == "tpcc"
    assert config["tpcc"]["pg_count_ware"] == "8"
    text = json.dumps([store.run_to_json(r.id) for r in store.list_runs(kind=None)])
    assert "pg_pass" not in text
    assert "superuserpass" not in text
    with sqlite3.connect(FIXTURE) as conn:
        raw = conn.execute("SELECT jobdict FROM JOBMAIN LIMIT 1").fetchone()[0]
    assert "pg_superuserpass" in raw  # there in HammerDB's file...
    assert "pg_superuserpass" not in json.dumps(parse_jobdict(raw))  # ...not in what is kept


def test_one_session_per_job(store: SessionStore) -> None:
    result = import_hammerdb(store, FIXTURE, each=True)
    assert len(result.sessions) == 10
    assert all(len(s.jobs) == 1 for s in result.sessions)


def test_timings_give_response_times_per_transaction_type(
    store: SessionStore, tmp_path: Path
) -> None:
    """JOBTIMING rows as HammerDB writes them with the time profile on: one row per user and
    procedure (summary 0) and one per procedure over all users (summary 1)."""
    copy = tmp_path / "hammer.DB"
    shutil.copy(FIXTURE, copy)
    copy.chmod(0o600)
    job = "6B04614A660F03E233835323"
    columns = (
        "jobid, vu, procname, calls, min_ms, avg_ms, max_ms, total_ms, p99_ms, p95_ms, p75_ms,"
        " p50_ms, p25_ms, sd, ratio_pct, summary, elapsed_ms"
    )
    rows = [
        (job, 2, "NEWORD", 1000, 0.5, 2.0, 40.0, 2000.0, 9.0, 5.0, 3.0, 1.8, 1.0, 1.1, 40.0, 0, 1),
        (
            job,
            3,
            "NEWORD",
            3000,
            0.4,
            4.0,
            80.0,
            12000.0,
            19.0,
            9.0,
            5.0,
            3.5,
            2.0,
            2.2,
            41.0,
            0,
            1,
        ),
        (
            job,
            4,
            "NEWORD",
            4000,
            0.4,
            3.5,
            70.0,
            14000.0,
            18.0,
            8.0,
            4.0,
            3.0,
            2.0,
            2.0,
            40.5,
            1,
            1,
        ),
        (job, 4, "PAYMENT", 4000, 0.2, 1.5, 30.0, 6000.0, 8.0, 4.0, 2.0, 1.2, 1.0, 1.0, 20.0, 1, 1),
        (job, 4, "SLEV", 400, 0.1, 6.0, 50.0, 2400.0, 20.0, 12.0, 8.0, 5.0, 3.0, 3.0, 5.0, 1, 1),
    ]
    with sqlite3.connect(copy) as conn:
        conn.executemany(f"INSERT INTO JOBTIMING ({columns}) VALUES ({','.join('?' * 17)})", rows)
    jobs = imported(store, copy)
    detail, steps = jobs[job]
    latency = steps[0].latency_ms
    # The summary rows win over the users' own.
    assert latency["new_order"] == {"avg": 3.5, "max": 70.0, "p50": 3.0, "p95": 8.0, "p99": 18.0}
    assert latency["payment"]["avg"] == 1.5
    assert latency["stock_level"]["p99"] == 20.0
    assert latency["all"] == {
        "avg": round((3.5 * 4000 + 1.5 * 4000 + 6.0 * 400) / 8400, 3),
        "max": 70.0,
    }
    assert steps[0].summary["hammerdb_calls"] == {
        "new_order": 4000,
        "payment": 4000,
        "stock_level": 400,
    }
    assert detail.agent["hammerdb"]["timings"] is True
    points = step_points(store, detail.id, latency="new_order")
    assert points[0].avg_ms == 3.5
    assert steps[1].latency_ms == {}  # the 8-user job had no timings


def log_of(jobs: list[str]) -> str:
    """The fixture's output of ``jobs`` as HammerDB's log file has it."""
    out: list[str] = []
    with sqlite3.connect(FIXTURE) as conn:
        for job in jobs:
            when = conn.execute("SELECT timestamp FROM JOBMAIN WHERE jobid = ?", (job,)).fetchone()
            stamp = (
                sqlite3.connect(":memory:")
                .execute("SELECT strftime('%w %m %d %H:%M:%S %Y', ?)", (when[0],))
                .fetchone()[0]
                .split()
            )
            day = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")[int(stamp[0])]
            month = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                     "Nov", "Dec")[int(stamp[1]) - 1]  # fmt: skip
            out.append(f"Hammerdb Log @ {day} {month} {stamp[2]} {stamp[3]} UTC {stamp[4]}")
            out.append("+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-")
            for vu, text in conn.execute(
                "SELECT vu, output FROM JOBOUTPUT WHERE jobid = ? AND vu > 0 ORDER BY rowid", (job,)
            ):
                out.append(f"Vuser {vu}:{text}")
    return "\n".join(out) + "\n"


def test_a_log_file_imports_like_the_job_store(store: SessionStore, tmp_path: Path) -> None:
    log = tmp_path / "hammerdb.log"
    log.write_text(log_of(["6B04651A660F03E263939383", "6B046702660F03E263338373"]))
    result = import_hammerdb(store, log)
    assert len(result.sessions) == 1
    session = result.sessions[0]
    assert session.vus == (4, 8)
    steps = store.steps(session.run_id)
    assert [(s.nopm, s.tpm) for s in steps] == [(46763, 107343), (36302, 83306)]
    detail = store.get_run(session.run_id)
    assert detail.created_at == "2026-11-23T16:08:58.000+00:00"
    assert detail.engine == "postgresql"
    assert detail.plan["workload"]["duration_s"] == 120.0
    assert all(job.startswith("log-") for job in detail.agent["hammerdb"]["jobs"])
    assert import_hammerdb(store, log).sessions == ()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"just some text\n", "neither a HammerDB job store nor a log"),
        (b"\x00\x01binary", "neither a HammerDB job store (SQLite) nor a text log"),
        (FIXTURE.read_bytes()[:4096], "cannot be read as a job store"),
        (b"Hammerdb Log @ yesterday\nVuser 1:x\n", "is not like 'Mon Nov 23 15:44:34 UTC 2026'"),
    ],
)
def test_a_bad_file_is_named_and_nothing_is_stored(
    store: SessionStore, tmp_path: Path, content: bytes, reason: str
) -> None:
    bad = tmp_path / "bad.DB"
    bad.write_bytes(content)
    with pytest.raises(HammerDBError, match=re.escape(reason)) as caught:
        import_hammerdb(store, bad)
    assert str(bad) in str(caught.value)
    assert store.list_runs(kind=None) == []


def test_other_bad_paths(store: SessionStore, tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite3"
    SessionStore(other).close()
    with pytest.raises(HammerDBError, match=r"not HammerDB's job store \(no JOBMAIN, JOBOUTPUT\)"):
        read_hammerdb(other)
    with pytest.raises(HammerDBError, match="No such file"):
        read_hammerdb(tmp_path / "missing.DB")
    with pytest.raises(HammerDBError, match="a folder"):
        read_hammerdb(tmp_path)
    with pytest.raises(ValueError, match="between -14 and 14 hours"):
        read_hammerdb(FIXTURE, utc_offset_h=20)
    assert store.list_runs(kind=None) == []


@pytest.mark.usefixtures("qapp")
def test_the_command_line_imports_shows_and_compares(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "s.sqlite3"

    def cli(*args: str) -> int:
        return main(["--db", str(db), *args])

    assert cli("sessions", "import-hammerdb", str(FIXTURE), "--utc-offset", "0", "--json") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["jobs"] == 10
    sweeps = [s for s in doc["sessions"] if len(s["vus"]) > 1]
    assert [s["vus"] for s in sweeps] == [[4, 8], [4, 8, 16]]
    assert cli("sessions", "import-hammerdb", str(FIXTURE)) == 0
    assert "10 jobs imported before" in capsys.readouterr().out
    assert cli("sessions", "import-hammerdb", str(tmp_path / "none.DB")) == 1
    assert f"{tmp_path / 'none.DB'}: cannot import from HammerDB" in capsys.readouterr().err

    first, second = (str(s["session"]) for s in sweeps)
    assert cli("sessions", "show", second) == 0
    shown = capsys.readouterr().out
    assert shown.splitlines()[0] == (
        f"session {second}: HammerDB TPROC-C PostgreSQL 4/8/16 VU, 2026-11-23 16:08 (complete)"
    )
    assert "None" not in shown
    assert "server: PostgreSQL 15.20" in shown
    assert cli("compare", first, second, "--json") == 0
    report = json.loads(capsys.readouterr().out)
    text = json.dumps(report)
    for figure in ("45279", "56761", "46763", "36302", "35272"):
        assert figure in text.replace(",", "")


def test_the_fixture_is_in_the_repository_and_its_readme_names_each_job() -> None:
    """A fresh clone has the job store (nothing beside the clone), and its README's table calls
    a job a schema build exactly when the importer reads one (issues 28 and 33)."""
    assert FIXTURE.is_file()
    assert FIXTURE.resolve().is_relative_to(Path(__file__).resolve().parents[2])
    rows = re.findall(r"^\| ([0-9A-F]{24}) \|.*\| ([^|]+) \|$", (FIXTURE.parent / "README.md")
                      .read_text(), re.MULTILINE)  # fmt: skip
    described = {job: "schema build" in text for job, text in rows}
    assert described == {job.job_id: job.kind == "build" for job in read_job_store(FIXTURE)}
    assert sum(described.values()) == 2
