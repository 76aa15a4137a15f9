"""``bench-gui compare`` report options (issue 14): paper, response times shown, the author's
notes printed before export and kept only on request, the cover line, repeat sets."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from bench_gui.cli.main import main
from bench_gui.store import SessionStore
from tests._fixtures.seed_sessions import build_seed000

pytestmark = pytest.mark.usefixtures("qapp")


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, int, int]:
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        hdd, ssd = build_seed000(store)
    return path, hdd, ssd


def run(db: Path, *args: str) -> int:
    return main(["--db", str(db), *args])


def pdf_text(path: Path) -> str:
    return subprocess.run(
        ["pdftotext", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout


def test_notes_for_the_author_are_printed_before_export_and_not_in_the_report(
    db: tuple[Path, int, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, hdd, ssd = db
    pdf = tmp_path / "brief.pdf"
    assert run(path, "compare", str(hdd), str(ssd), "--report", str(pdf), "--paper", "a4") == 0
    err = capsys.readouterr().err
    note = err.index(f"note: session {hdd} (HDD RAID 10 (16 x 15K SAS)): the hand-entered")
    assert note < err.index(f"report written: {pdf}")
    text = pdf_text(pdf)
    assert "the hand-entered array cost" not in text
    assert "Appendix: notes for the author" not in text
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True)
    assert "(A4)" in info.stdout
    kept = tmp_path / "kept.pdf"
    args = ["--report", str(kept), "--paper", "letter", "--author-notes", "appendix"]
    assert run(path, "compare", str(hdd), str(ssd), *args) == 0
    assert "Appendix: notes for the author" in pdf_text(kept)
    info = subprocess.run(["pdfinfo", str(kept)], check=True, capture_output=True, text=True)
    assert "(letter)" in info.stdout


def test_paper_follows_the_locale_by_default(
    db: tuple[Path, int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, hdd, ssd = db
    for lang, size in (("en_US.UTF-8", "(letter)"), ("de_DE.UTF-8", "(A4)")):
        monkeypatch.delenv("LC_ALL", raising=False)
        monkeypatch.delenv("LC_PAPER", raising=False)
        monkeypatch.setenv("LANG", lang)
        pdf = tmp_path / f"{lang}.pdf"
        assert run(path, "compare", str(hdd), str(ssd), "--report", str(pdf)) == 0
        info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True)
        assert size in info.stdout


def test_latency_cover_and_repeats(
    db: tuple[Path, int, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, hdd, ssd = db
    logo = QImage(90, 30, QImage.Format.Format_RGB32)
    logo.fill(0x13294B)
    logo_path = tmp_path / "acme.png"
    assert logo.save(str(logo_path))
    cover = ["--author", "Acme Storage Labs", "--logo", str(logo_path), "--date", "2024-05-01"]
    assert run(path, "compare", str(hdd), str(ssd), "--json", "--latency", "new-order", *cover) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["latency"] == "new_order"
    assert doc["tables"]["latency_avg"]["title"] == "Average New-Order response time by user count"
    assert run(path, "compare", str(hdd), str(ssd), "--logo", str(tmp_path / "none.png")) == 2
    assert "none.png is not a file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        run(path, "compare", str(hdd), str(ssd), "--latency", "p99")
    assert "invalid choice: 'p99'" in capsys.readouterr().err
    assert run(path, "compare", str(hdd), str(ssd), "--repeats", str(hdd) + "," + str(ssd)) == 1
    assert "the baseline (session 1) cannot be a repeat" in capsys.readouterr().err
    assert run(path, "compare", str(hdd), str(ssd), "--repeats", "1;2") == 2
    assert "a repeat set is session ids separated by commas" in capsys.readouterr().err


def test_one_session_alone(db: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]) -> None:
    path, hdd, _ = db
    assert run(path, "compare", str(hdd)) == 0
    out = capsys.readouterr().out
    assert out.startswith("HDD RAID 10 (16 x 15K SAS): OLTP performance and economics\n")
    assert "3,050  new orders per minute at most (56 users)" in out
    assert "Table 1: NOPM and TPM by user count" in out
    assert "ratio" not in out.split("Table 1:")[1].split("\n\n")[0]  # nothing to compare with
