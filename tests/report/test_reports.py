"""Reports built from seed 000 and seed 003 sessions in a real store, written in every format.

The PDF is rendered to PNG pages with poppler's pdftoppm (set BENCH_GUI_REPORT_ARTIFACTS to a
folder to keep the files and look at them) and its text is checked with pdftotext.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bench_gui.core.compare import CompareError
from bench_gui.core.saturation import StopConditions
from bench_gui.report import ReportError, build_report, write_charts, write_report
from bench_gui.report.html import render_html
from bench_gui.report.model import Report
from bench_gui.report.options import ReportOptions
from bench_gui.report.tabular import render_csv, render_json
from bench_gui.store import SessionStore
from tests._fixtures.seed_sessions import (
    INVENTORY,
    POWER_PRICE,
    SSD_LAYOUT,
    SSD_SETTINGS,
    build_seed000,
    build_seed003,
    seed000_points,
    store_session,
    sweep,
)

ARTIFACTS = os.environ.get("BENCH_GUI_REPORT_ARTIFACTS", "")
FORBIDDEN = re.compile(r"tpm-?c", re.IGNORECASE)


def keep(path: Path) -> None:
    if ARTIFACTS:
        target = Path(ARTIFACTS)
        target.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            shutil.copytree(path, target / path.name, dirs_exist_ok=True)
        else:
            shutil.copy(path, target / path.name)


@pytest.fixture
def seed000(store: SessionStore) -> Report:
    hdd, ssd = build_seed000(store)
    return build_report(store, [hdd, ssd], baseline_id=hdd)


def cell_texts(report: Report, key: str) -> list[list[str]]:
    return [[c.text for c in row] for row in report.tables[key].rows]


def test_the_model_reads_like_seed000(seed000: Report) -> None:
    r = seed000
    assert r.title == "S650DC RAID 10 vs HDD RAID 10: OLTP performance and economics"
    facts = {f.text: f.value for f in r.facts}
    assert facts["more new orders per minute"] == "22X to 29X"
    assert facts["lower average response time"] == "95% to 97%"
    assert facts["lower 99.9th percentile response time"] == "49% to 70%"
    assert facts["lower array cost per new order"] == "15X to 19X"
    assert r.summary[0] == (
        "S650DC RAID 10: from 22X (with 8 users) to 29X (with 48 users) the new orders per"
        " minute of HDD RAID 10"
    )
    throughput = cell_texts(r, "throughput")
    assert [row[5] for row in throughput] == [
        "22X",
        "27X",
        "28X",
        "28X",
        "29X",
        "29X",
        "27X",
        "27X",
    ]
    assert throughput[0][:3] == ["8", "1,365", "30,267"]
    assert [row[3] for row in cell_texts(r, "latency_avg")][0] == "95%"
    assert [row[3] for row in cell_texts(r, "latency_p999")][-1] == "70%"
    worst = cell_texts(r, f"economics_worst_{r.comparison.others[0].id}")
    assert worst[0][2:5] == ["$5,048", "30,267", "$0.17"]
    assert worst[1][2:5] == ["$3,440", "1,365", "$2.52"]
    best = r.tables[f"economics_best_{r.comparison.others[0].id}"]
    assert best.title == "Best-case economics (48 users)"
    assert [row[4].text for row in best.rows] == ["$0.06", "$1.15"]
    array = cell_texts(r, "array_cost")
    assert array[0][4] == "$3,440 ⚑"  # hand-entered, disagrees with $199 x 16
    assert any("disagrees with unit price x count: $199 x 16 = $3,184" in n for n in r.notes)
    numbers = [t.number for t in r.tables.values() if t.number]
    assert numbers == list(range(1, len(numbers) + 1))
    assert r.tables["config_settings"].number == numbers[-2]  # How we tested: like Tables 7, 8
    assert [c.number for c in r.charts.values()] == [1, 2, 3]
    assert all(c.series[1].saturation == 48 for c in r.charts.values())
    how = {h.heading: h for h in r.how_we_tested}
    platform = {row[0].text: [c.text for c in row[1:]] for row in r.tables["config_platform"].rows}
    assert platform["CPU"][0] == "2 x Intel Xeon E5-2690 v3 (24 cores, 48 threads)"
    # The root shell's command log is the author's to print (issue 28): not by default.
    assert "Appendix: commands run on the targets" not in how
    assert any("keeps the commands it ran" in p for p in how["Sessions compared"].paragraphs)
    assert any("ramp-up of 15 min followed" in p for p in how["Test sequence"].paragraphs)
    assert any("HDD RAID 10: format only" in p for p in how["Test sequence"].paragraphs)
    assert r.reader_notes == [
        "⚑ The HDD RAID 10 array cost used below, $3,440, was given by the author and disagrees"
        " with its unit price x count ($199 x 16 = $3,184); the economics use $3,440."
    ]


def test_html_is_self_contained(seed000: Report, tmp_path: Path) -> None:
    path = write_report(seed000, tmp_path / "seed000.html")
    keep(path)
    html = path.read_text(encoding="utf-8")
    assert html.count('src="data:image/png;base64,') == 3
    assert not re.search(r'(src|href)="(https?:|//|file:)', html)
    assert "<link" not in html
    assert "Table 1: Relative performance: NOPM and TPM by user count" in html
    assert "derived from the TPC-C specification" in html
    assert "not TPC-C results" in html
    assert not FORBIDDEN.search(html)


def test_user_text_is_escaped(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    store.rename_run(ssd, "<script>alert(1)</script> SSD")
    html = render_html(build_report(store, [hdd, ssd], hdd))
    assert "<script>" not in html
    assert "&lt;script&gt;" in html


def test_pdf_renders_like_a_brief(seed000: Report, tmp_path: Path) -> None:
    path = write_report(seed000, tmp_path / "seed000.pdf")
    keep(path)
    assert path.read_bytes()[:5] == b"%PDF-"
    pages_dir = tmp_path / "seed000-pages"
    pages_dir.mkdir()
    subprocess.run(["pdftoppm", "-r", "60", "-png", str(path), str(pages_dir / "page")], check=True)
    pages = sorted(pages_dir.glob("page-*.png"))
    keep(pages_dir)
    assert 5 <= len(pages) <= 12
    assert all(p.stat().st_size > 10_000 for p in pages)
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout
    first_page = text.split("\f")[0]
    assert "S650DC RAID 10 vs HDD RAID 10" in first_page
    assert "Fast facts" in first_page
    assert "22X to 29X" in first_page
    for expected in (
        "Table 1: Relative performance",
        "Figure 1: New orders per minute by user count",
        "Worst-case economics (8 users)",
        "$5,048 / 30,267 NOPM = $0.17",
        "$3,440 / 1,365 NOPM = $2.52",
        "19X lower",
        "How we tested",
        "keeps the commands it ran",
        "not TPC-C results",
    ):
        assert expected in text, expected
    assert f"page {len(pages)} of {len(pages)}" in text
    assert not FORBIDDEN.search(text)


def test_csv_and_json_hold_every_table(seed000: Report, tmp_path: Path) -> None:
    csv_path = write_report(seed000, tmp_path / "seed000.csv")
    json_path = write_report(seed000, tmp_path / "seed000.json")
    keep(csv_path)
    keep(json_path)
    rows = list(csv.reader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
    titles = [row[0] for row in rows if row and row[0].startswith("Table ")]
    numbered = [t.label for t in seed000.tables.values() if t.number]
    assert titles == numbered
    start = next(i for i, row in enumerate(rows) if row and row[0].startswith("Table 1:"))
    assert rows[start + 1][0] == "Users"
    assert rows[start + 2][:3] == ["8", "1365", "30267"]
    assert rows[start + 2][5] == "22X"
    doc = json.loads(json_path.read_text())
    assert doc["format"] == "bench-gui-comparison"
    assert set(doc["tables"]) == set(seed000.tables)
    table1 = doc["tables"]["throughput"]
    assert table1["rows"][0][5] == pytest.approx(30_267 / 1365, rel=1e-6)
    assert table1["text"][0][5] == "22X"
    assert doc["saturation"][str(seed000.comparison.others[0].id)]["users"] == 48
    assert "not TPC-C results" in doc["disclaimer"]
    for text in (render_csv(seed000), render_json(seed000)):
        assert not FORBIDDEN.search(text)


def test_charts_as_png_and_svg(seed000: Report, tmp_path: Path) -> None:
    pngs = write_charts(seed000, tmp_path / "charts", "png")
    svgs = write_charts(seed000, tmp_path / "charts", "svg")
    keep(tmp_path / "charts")
    assert [p.name for p in pngs] == [
        "figure-1-nopm.png",
        "figure-2-latency-avg.png",
        "figure-3-latency-p999.png",
    ]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    svg = svgs[0].read_text()
    assert "<svg" in svg
    assert "saturation point" in svg
    with pytest.raises(ValueError, match="png or svg"):
        write_charts(seed000, tmp_path, "gif")


def test_seed003_power_and_saturation(store: SessionStore, tmp_path: Path) -> None:
    base, scaled = build_seed003(store)
    store.add_power_price(POWER_PRICE)
    r = build_report(store, [base, scaled], base, StopConditions(min_gain_pct=5))
    facts = {f.text: f.value for f in r.facts}
    assert facts["at saturation"] == "+35% NOPM"
    assert facts["power per NOPM at saturation"] == "18% less"
    assert "power" in r.charts
    sat = cell_texts(r, "saturation")
    assert [row[1] for row in sat] == ["192", "408"]
    energy = r.tables["energy"]
    assert energy.columns[2] == "2x 9300 PRO mirrored\nUSD per million\nnew orders"
    path = write_report(r, tmp_path / "seed003.pdf")
    keep(path)
    keep(write_report(r, tmp_path / "seed003.html"))
    text = subprocess.run(
        ["pdftotext", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout
    assert "Power per NOPM by user count" in text


def test_missing_prices_are_told_to_the_author_only(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store, prices=False)
    r = build_report(store, [hdd, ssd], hdd)
    assert any(
        "no price for device 'Micron S650DC 800GB': add it to the price list" in n for n in r.notes
    )
    assert any(n.startswith("no array could be priced") for n in r.notes)
    # The reader's brief has no economics section asking them to enter prices.
    assert "economics" not in [s.key for s in r.sections]
    assert "array_cost" not in r.tables
    assert "economics" not in r.title
    assert not any("price" in n for n in r.reader_notes)


def test_bad_input(store: SessionStore, tmp_path: Path, seed000: Report) -> None:
    hdd, _ssd = build_seed000(store)
    with pytest.raises(CompareError, match="at least one session"):
        build_report(store, [], hdd)
    with pytest.raises(ReportError, match=r"ends in \.html, \.pdf, \.csv, \.json"):
        write_report(seed000, tmp_path / "report.docx")
    with pytest.raises(ValueError, match="page size"):
        write_report(seed000, tmp_path / "r.pdf", page_size="tabloid")


def test_repeated_sessions_show_their_noise(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    again = [{**p, "nopm": p["nopm"] * 1.04} for p in seed000_points(0)]
    repeat = store_session(
        store,
        "S650DC RAID 10, second run",
        sweep("PostgreSQL 9.4.5 on x86_64-redhat-linux-gnu", SSD_SETTINGS, again),
        plan_extra={"storage": SSD_LAYOUT},
        inventory={**INVENTORY, "block_devices": SSD_LAYOUT["devices"]},
    )
    r = build_report(store, [hdd, ssd, repeat], hdd)
    rows = cell_texts(r, "repeatability")
    assert len(rows) == 8  # one row per user count of the two SSD runs
    assert rows[0][0].endswith("(same recorded system)")
    assert rows[0][1:4] == ["8", "2", f"{30_267 * 1.02:,.0f}"]
    assert rows[0][5] == "2.8%"  # CV of x and 1.04x
    throughput = r.tables["throughput"]
    noise = throughput.columns.index("S650DC RAID 10\nRepeat noise")
    assert throughput.rows[0][noise].text == "±2.8%"
    assert "Repeatability" in [s.heading for s in r.sections]


def test_a_note_or_storage_that_differs_makes_sessions_no_repeats(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    again = [{**p, "nopm": p["nopm"] * 1.04} for p in seed000_points(0)]
    repeat = store_session(
        store,
        "S650DC RAID 10, second run",
        sweep("PostgreSQL 9.4.5 on x86_64-redhat-linux-gnu", SSD_SETTINGS, again),
        plan_extra={"storage": SSD_LAYOUT},
        inventory={**INVENTORY, "block_devices": SSD_LAYOUT["devices"]},
    )
    store.set_note(repeat, "after moving the array to the other controller")
    r = build_report(store, [hdd, ssd, repeat], hdd)
    assert "repeatability" not in r.tables
    assert not any("Repeat noise" in col for col in r.tables["throughput"].columns)
    # Unless the author says they are repeats.
    r = build_report(
        store, [hdd, ssd, repeat], hdd, options=ReportOptions(repeats=((ssd, repeat),))
    )
    assert cell_texts(r, "repeatability")[0][0].endswith("(repeats by the author's word)")
