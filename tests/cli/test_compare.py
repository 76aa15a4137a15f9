"""The command line: compare, reports, prices and session housekeeping, in-process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bench_gui.cli.main import main
from bench_gui.store import SessionStore
from tests._fixtures.seed_sessions import build_seed000

# Reports draw through Qt: pytest-qt's QApplication is made first, so the report code never
# starts a bare QGuiApplication that the widget tests after this one could not use.
pytestmark = pytest.mark.usefixtures("qapp")


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, int, int]:
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        hdd, ssd = build_seed000(store)
    return path, hdd, ssd


def run(db: Path, *args: str) -> int:
    return main(["--db", str(db), *args])


def test_compare_prints_the_tables_and_writes_reports(
    db: tuple[Path, int, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, hdd, ssd = db
    pdf, html, csv_file = tmp_path / "r.pdf", tmp_path / "r.html", tmp_path / "r.csv"
    code = run(
        path, "compare", str(ssd), str(hdd), "--baseline", str(hdd),
        "--report", str(pdf), "--report", str(html), "--report", str(csv_file),
        "--charts", str(tmp_path / "charts"), "--chart-format", "svg",
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0
    assert out.startswith("S650DC RAID 10 vs HDD RAID 10: OLTP performance and economics\n")
    assert "22X to 29X  more new orders per minute" in out
    assert "Table 1: Relative performance" in out
    assert "$5,048 / 30,267 NOPM = $0.17" in out
    assert "not TPC-C results" in out
    assert "note: session 1 (HDD RAID 10 (16 x 15K SAS)): the hand-entered array cost" in err
    assert f"report written: {pdf}" in err
    assert pdf.read_bytes()[:5] == b"%PDF-"
    assert "data:image/png;base64," in html.read_text()
    assert "Table 6: Array cost per new order" in csv_file.read_text()
    assert len(list((tmp_path / "charts").glob("*.svg"))) == 3
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    assert "S650DC RAID 10 vs HDD RAID 10" in info.stdout


def test_compare_json(db: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]) -> None:
    path, hdd, ssd = db
    assert run(path, "compare", str(hdd), str(ssd), "--json", "--min-gain", "10") == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["baseline"] == hdd
    assert doc["stop_condition"]["min_gain_pct"] == 10
    assert doc["tables"]["throughput"]["text"][0][5] == "22X"


def test_compare_bad_input(
    db: tuple[Path, int, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, hdd, ssd = db
    assert run(path, "compare", str(hdd), "--date", "2024-13-01") == 2
    assert "the date is YYYY-MM-DD, got '2024-13-01'" in capsys.readouterr().err
    assert run(path, "compare", str(hdd), "99") == 1
    assert "no session with id 99" in capsys.readouterr().err
    assert run(path, "compare", str(hdd), str(ssd), "--baseline", "7") == 1
    assert "baseline (session 7) must be one of" in capsys.readouterr().err
    assert run(path, "compare", str(hdd), str(ssd), "--report", str(tmp_path / "r.txt")) == 2
    assert "a report file ends in .html, .pdf, .csv, .json" in capsys.readouterr().err


def test_prices(db: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]) -> None:
    path, hdd, _ssd = db
    assert run(path, "prices", "power", "add", "0.12", "--date", "2019-09-01") == 0
    assert run(path, "prices", "device", "add", "NVMe X", "-1") == 1
    assert "cannot be negative" in capsys.readouterr().err
    assert run(path, "prices", "array", str(hdd), "--clear") == 0
    assert run(path, "prices", "list", "--json") == 0
    doc = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert [d["device"] for d in doc["devices"]] == ["Micron S650DC 800GB", "SAS 15K RPM HDD 300GB"]
    assert doc["power"][0]["per_kwh"] == 0.12
    with SessionStore(path) as store:
        assert store.run_array(hdd) is None


def test_session_housekeeping(
    db: tuple[Path, int, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, hdd, ssd = db
    assert run(path, "sessions", "tag", str(hdd), "legacy", "raid10") == 0
    assert run(path, "sessions", "note", str(hdd), "sixteen", "drives") == 0
    assert run(path, "sessions", "rename", str(ssd), "SSD", "array") == 0
    assert run(path, "sessions", "search", "--tag", "legacy", "--json") == 0
    found = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert [(f["id"], f["tags"], f["note"]) for f in found] == [
        (hdd, ["legacy", "raid10"], "sixteen drives")
    ]
    out_file = tmp_path / "hdd.bgsession.json"
    assert run(path, "sessions", "export", str(hdd), str(out_file)) == 0
    assert run(path, "sessions", "import", str(out_file), "--json") == 0
    new_id = json.loads(capsys.readouterr().out.splitlines()[-1])["session"]
    damaged = tmp_path / "damaged.json"
    damaged.write_text(out_file.read_text().replace("1365", "1366", 1))
    assert run(path, "sessions", "import", str(damaged)) == 1
    assert "checksum does not match" in capsys.readouterr().err
    assert run(path, "sessions", "delete", str(new_id)) == 2  # not a terminal: needs --yes
    assert "add --yes to confirm" in capsys.readouterr().err
    assert run(path, "sessions", "delete", str(new_id), "--yes") == 0
    with SessionStore(path) as store:
        assert [r.name for r in store.list_runs()] == ["SSD array", "HDD RAID 10 (16 x 15K SAS)"]
