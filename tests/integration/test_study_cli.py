"""``bench-gui study`` from the command line: a seed's template, edited to point at local
servers, runs to a finished brief with one command; a second run measures nothing again; a
seed-004 study does the same for random reads (real fio through the real agent)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from tests._fixtures.cli import bench
from tests._fixtures.ssh import free_port
from tests.workloads.random_read.agent.helpers import memory_cgroups_usable, need_fio, need_root

pytestmark = pytest.mark.integration


def new_study(seed: str, path: Path, db: Path) -> dict[str, Any]:
    proc = bench("study", "new", "--from", seed, str(path), db=db)
    assert proc.returncode == 0, proc.stderr
    assert "# A study made from " + seed.replace("-", " ") in path.read_text()
    again = bench("study", "new", "--from", seed, str(path), db=db)
    assert again.returncode == 2
    assert "exists" in again.stderr
    return tomllib.loads(path.read_text())


def test_seed_000_pointed_at_two_local_databases_runs_to_a_brief(
    pg_server: Any, tmp_path: Path
) -> None:
    db = tmp_path / "sessions.sqlite3"
    path = tmp_path / "study.toml"
    data = new_study("seed-000", path, db)
    # The user's edits: their two servers (here two databases of one), a short sweep, and no
    # Table 7 preset (its 30GB shared_buffers is not for a test server).
    data["workload"] = {"warehouses": 1, "virtual_users": [1], "rampup_s": 1, "duration_s": 3}
    data["report"]["formats"] = ["html", "pdf"]
    for key in ("hdd", "ssd"):
        database = f"study_cli_{key}"
        pg_server.clone_tpcc(database, warehouses=1)
        system = data["systems"][key]
        system["target"] = {
            "kind": "postgresql",
            "host": pg_server.socket_dir,
            "database": database,
        }
        del system["tuning"]
    path.write_text(tomli_w.dumps(data))

    proc = bench("study", "run", str(path), "--json", db=db)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["measured"] == ["hdd", "ssd"]
    assert "[1/2 hdd] SAS 15K RPM HDD RAID 10 (16 x 300GB): step 1/1" in proc.stderr
    assert "[2/2 ssd]" in proc.stderr
    assert "left" in proc.stderr
    html = (tmp_path / "seed-000-brief.html").read_text()
    # The seed's prices priced the arrays: 16 x $199 and 4 x $1,262.
    assert "3,184" in html
    assert "5,048" in html
    assert (tmp_path / "seed-000-brief.pdf").read_bytes().startswith(b"%PDF")

    check = bench("study", "check", str(path), "--json", db=db)
    rows = json.loads(check.stdout)["systems"]
    assert [r["session"] for r in rows] == [result["sessions"]["hdd"], result["sessions"]["ssd"]]
    again = bench("study", "run", str(path), "--json", "--no-brief", db=db)
    assert json.loads(again.stdout.strip().splitlines()[-1])["skipped"] == ["hdd", "ssd"]


def test_a_bad_study_names_each_field(tmp_path: Path) -> None:
    path = tmp_path / "study.toml"
    path.write_text('name = "x"\nbaseline = "nope"\n[workload]\nvirtual_users = "0"\n')
    proc = bench("study", "run", str(path), db=tmp_path / "s.sqlite3")
    assert proc.returncode == 2
    for field in ("baseline", "systems", "workload.virtual_users"):
        assert f"  {field}: " in proc.stderr


def test_seed_004_runs_random_reads_to_a_brief(tmp_path: Path) -> None:
    need_fio()
    need_root()
    memory_cgroups_usable()
    db = tmp_path / "sessions.sqlite3"
    path = tmp_path / "study.toml"
    data = new_study("seed-004", path, db)
    data["workload"].update(
        dataset_sizes=["32MiB", "48MiB"], memory_limit="128MiB", warmup_s=1, measure_s=2,
        raw_iops_s=1,
    )  # fmt: skip
    data["report"]["formats"] = ["html"]
    for key in ("disk", "ssd"):
        data["systems"][key]["workload"]["file"] = str(tmp_path / f"{key}.dat")
    path.write_text(tomli_w.dumps(data))
    proc = bench("study", "run", str(path), "--json", db=db, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["measured"] == ["disk", "ssd"]
    html = (tmp_path / "seed-004-brief.html").read_text()
    assert "Crucial m4 128GB SSD" in html


def test_study_check_reaches_the_servers_before_anything_runs(tmp_path: Path) -> None:
    """A study whose server is off passed ``study check`` (the file alone was judged) and
    failed at its run: the check now says so, with exit status 1."""
    db = tmp_path / "sessions.sqlite3"
    path = tmp_path / "study.toml"
    data = new_study("seed-000", path, db)
    nobody = free_port()
    for key in ("hdd", "ssd"):
        data["systems"][key]["target"] = {"kind": "postgresql", "host": "127.0.0.1",
                                          "port": nobody, "password_env": ""}  # fmt: skip
    path.write_text(tomli_w.dumps(data))
    proc = bench("study", "check", str(path), db=db)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "problem: systems.hdd.target: the database does not answer" in proc.stdout
    assert str(nobody) in proc.stdout
    assert "not ready: 2 problems would stop the run" in proc.stdout
    checked = bench("study", "check", str(path), "--json", db=db)
    result = json.loads(checked.stdout)
    assert result["ready"] is False
    assert {c["path"] for c in result["checks"] if c["level"] == "problem"} == {
        "systems.hdd.target",
        "systems.ssd.target",
    }
    file_only = bench("study", "check", str(path), "--file-only", db=db)
    assert file_only.returncode == 0, file_only.stderr
    assert "problem" not in file_only.stdout

    # `study run` checks first: nothing is measured when a problem would stop the run.
    run = bench("study", "run", str(path), "--json", db=db)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "systems.hdd.target: the database does not answer" in run.stderr
    assert "not started: 2 problems would stop the run" in run.stderr
    assert "[1/2 hdd]" not in run.stderr  # no system was started
    # --no-check starts anyway: the first system's run fails, naming it.
    forced = bench("study", "run", str(path), "--no-check", db=db)
    assert forced.returncode == 1
    assert "[1/2 hdd]" in forced.stderr
    assert "system hdd: tuning micron-15k-hdd: " in forced.stderr
    assert "Connection refused" in forced.stderr
