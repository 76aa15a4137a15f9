"""``bench-gui compare`` on random-read studies: the tables, the RAM question, every export
format, and the refusal of a mix with the transaction workload. The last test compares a real
fio run stored by ``bench-gui run``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench_gui.cli.main import main
from bench_gui.core.economics import DevicePrice
from bench_gui.store import SessionStore
from bench_gui.workloads.random_read.compare import multiple_text
from tests._fixtures.random_read_sessions import seed004, store_random_read
from tests._fixtures.seed_sessions import build_seed000
from tests.workloads.random_read.agent.helpers import memory_cgroups_usable, need_fio, need_root

pytestmark = pytest.mark.usefixtures("qapp")
FOREIGN = re.compile(r"nopm|tpm|warehouse|virtual user|new[- ]order|tproc|tpc-c", re.IGNORECASE)


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, int, int]:
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        hdd, ssd = seed004(store)
        store.add_device_price(DevicePrice("RAM per GB", 4.0, "USD", "2026-11-01", "list"))
    return path, hdd, ssd


def run(db: Path, *args: str) -> int:
    return main(["--db", str(db), *args])


def test_compare_prints_the_study_and_writes_every_format(
    db: tuple[Path, int, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, hdd, ssd = db
    reports = [tmp_path / f"r.{ext}" for ext in ("pdf", "html", "csv", "json")]
    args = [arg for r in reports for arg in ("--report", str(r))]
    code = run(path, "compare", str(hdd), str(ssd), "--target-ops", "150000",
               "--dataset", "1TiB", "--charts", str(tmp_path / "charts"), *args)  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith(
        "SSD Crucial m4 128GB vs HDD 7.2k 3TB: random reads by dataset size and the RAM they"
        " replace\n"
    )
    assert "259X to 277X  the ops/s of HDD 7.2k 3TB beyond RAM (SSD Crucial m4 128GB)" in out
    assert "Table 1: Random reads per second by dataset size" in out
    assert "Table 4: RAM needed to reach the target" in out
    assert "(Target: 150,000 ops/s from a 1 TiB dataset.)" in out
    assert "$4.00 per GiB" in out
    assert not FOREIGN.findall(out)
    for report in reports:
        assert f"report written: {report}" in err
    assert reports[0].read_bytes()[:5] == b"%PDF-"
    assert json.loads(reports[3].read_text())["ram_economics"]["dataset_bytes"] == 2**40
    assert len(list((tmp_path / "charts").glob("*.png"))) == 4


def test_compare_json_on_stdout(
    db: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]
) -> None:
    path, hdd, ssd = db
    assert run(path, "compare", str(ssd), str(hdd), "--baseline", str(hdd), "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "bench-gui-random-read-comparison"
    assert data["baseline"] == hdd
    assert data["ram_economics"]["target_ops_s"] == 103_950  # the default question


def test_bad_options_and_a_mix_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        tpcc, _ = build_seed000(store)
        rr = store_random_read(store, "SSD m4", 33_000.0, (3e6, 146_850.0), (0.5, 2.0))
    assert run(path, "compare", str(rr), "--dataset", "lots") == 2
    assert "--dataset: 'lots' is not a size like 512MiB" in capsys.readouterr().err
    assert run(path, "compare", str(rr), "--target-ops", "-3") == 2
    assert "--target-ops must be a positive number" in capsys.readouterr().err
    assert run(path, "compare", str(rr), str(tpcc)) == 1
    err = capsys.readouterr().err
    assert f"cannot compare: session {rr} (SSD m4) is a random-read study and session {tpcc}" in err
    assert "is a TPROC-C sweep" in err


PLAN = """
name = "random reads, small file"
[workload]
kind = "random_read"
dataset_sizes = [0.5, 2]
memory_limit = "64MiB"
file = "{file}"
warmup_s = 1
measure_s = 2
raw_iops_s = 1
"""


@pytest.mark.integration
def test_a_real_fio_session_compares_and_reports(tmp_path: Path) -> None:
    need_fio()
    need_root()
    memory_cgroups_usable()
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN.format(file=tmp_path / "data.dat"))
    db = tmp_path / "sessions.sqlite3"

    def bench(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "bench_gui", "--db", str(db), *args],
            capture_output=True, text=True, timeout=300, env=dict(os.environ), check=False,
        )  # fmt: skip

    ran = bench("run", str(plan), "--json")
    assert ran.returncode == 0, ran.stderr[-2000:]
    session = str(json.loads(ran.stdout.strip().splitlines()[-1])["session"])
    html = tmp_path / "real.html"
    proc = bench("compare", session, "--report", str(html), "--report", str(tmp_path / "r.json"))
    assert proc.returncode == 0, proc.stderr
    assert "Table 1: Random reads per second by dataset size" in proc.stdout
    data = json.loads((tmp_path / "r.json").read_text())
    points = data["sessions"][0]["points"]
    # fio's own memory shares the limit: the points stand on the data cache measured past it,
    # so the 0.5x of the plan is more of the data's RAM than that, and every view says so.
    assert "page cache measured for the data" in html.read_text()
    shown = [p["ram_multiple"] for p in points]
    assert shown[0] > 0.5
    assert shown[1] > 2.0
    for ratio in shown:
        assert multiple_text(ratio).removesuffix(" RAM") in proc.stdout
    assert all(p["ops_s"] > 0 and p["multiplier"] > 0 for p in points)
    assert data["sessions"][0]["raw_iops"] > 0
    # Beyond RAM the reads wait for the device: fewer ops/s than in RAM, by a wide margin.
    assert points[1]["ops_s"] < points[0]["ops_s"] / 2
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", html.read_text())
    assert not FOREIGN.findall(text)


def test_sessions_list_and_show_speak_of_the_study_with_compare_s_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``sessions list`` gives a random-read session its best multiplier (no NOPM column),
    and ``sessions show`` prints the multiplier compare prints: 4.6875 is 4.68X in both (it
    was 4.69 in one, 4.68X in the other)."""
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        sid = store_random_read(store, "SSD", 32_000.0, (1e6, 150_000.0), (0.5, 2.0))
    assert run(path, "sessions", "list") == 0
    out = capsys.readouterr().out
    assert "NOPM" not in out
    assert "4.68X raw IOPS at 2x RAM" in out
    assert run(path, "sessions", "show", str(sid)) == 0
    shown = capsys.readouterr().out
    assert re.search(r"\b4\.68X\b", shown), shown
    assert "4.69" not in shown
    assert run(path, "compare", str(sid)) == 0
    assert "4.68X" in capsys.readouterr().out
