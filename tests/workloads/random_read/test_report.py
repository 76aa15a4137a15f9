"""Random-read reports (seed 004) in every format: their own charts, tables and words, and never
a word of the transaction workload's."""

from __future__ import annotations

import json
import re
import subprocess
import unicodedata
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage

from bench_gui.core.compare import CompareError
from bench_gui.core.economics import DevicePrice
from bench_gui.report import build_report, write_charts, write_report
from bench_gui.report.charts import log_ticks
from bench_gui.report.workloads import build_any_report
from bench_gui.store import SessionStore
from bench_gui.workloads.random_read.report import RandomReadReport
from tests._fixtures.random_read_sessions import seed004, store_random_read
from tests._fixtures.seed_sessions import build_seed000

# Words of the transaction workload that must never reach a random-read report.
FOREIGN = re.compile(
    r"nopm|tpm|warehouse|virtual user|new[- ]order|tproc|tpc-c|\busers\b", re.IGNORECASE
)


@pytest.fixture
def report(store: SessionStore) -> RandomReadReport:
    hdd, ssd = seed004(store)
    store.add_device_price(DevicePrice("DDR3 8GB DIMM", 80.0, "USD", "2014-07-01", "web shop"))
    made = build_any_report(store, [hdd, ssd], hdd)
    assert isinstance(made, RandomReadReport)
    return made


def pdf_text(path: Path) -> str:
    """The PDF's text, ligatures (the "fi" of "fio") undone."""
    return unicodedata.normalize(
        "NFKC",
        subprocess.run(
            ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
        ).stdout,
    )


def test_no_format_speaks_of_the_transaction_workload(
    report: RandomReadReport, tmp_path: Path
) -> None:
    texts = {}
    for ext in ("html", "pdf", "csv", "json"):
        path = write_report(report, tmp_path / f"report.{ext}", page_size="a4")
        texts[ext] = pdf_text(path) if ext == "pdf" else path.read_text(encoding="utf-8")
    # Images are base64 in the HTML: letters at random, not words.
    texts["html"] = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", texts["html"])
    for chart in write_charts(report, tmp_path / "charts", "svg"):
        texts[chart.name] = chart.read_text(encoding="utf-8")  # chart text stays text in SVG
    assert len(texts) == 4 + 4
    for name, text in texts.items():
        if not name.endswith(".svg"):
            assert "ops/s" in text, name
        found = FOREIGN.findall(text)
        assert not found, f"{name}: {found}"


def test_the_brief_reads_like_the_seed(report: RandomReadReport, tmp_path: Path) -> None:
    pdf = write_report(report, tmp_path / "report.pdf", page_size="a4")
    text = " ".join(pdf_text(pdf).split())
    assert "SSD Crucial m4 128GB vs HDD 7.2k 3TB: random reads by dataset size" in text
    for caption in (
        "Figure 1: Random reads per second by dataset size (log scale)",
        "Figure 2: Random reads per second by dataset size (linear scale)",
        "Figure 3: Ops/s over raw device IOPS beyond RAM",
        "Figure 4: 99th percentile read latency by dataset size (log scale)",
        "Table 1: Random reads per second by dataset size",
        "Table 2: Ops/s over raw device IOPS by dataset size",
        "Table 3: Read latency by dataset size (ms)",
        "Table 4: RAM needed to reach the target",
        "SSDs replace RAM",
        "6.36X (at 1.5x RAM) to 3.15X (at 4x RAM) as many reads a second as its 33,000 raw IOPS",
        "SSD Crucial m4 128GB needs at least 75.6 GiB less RAM than HDD 7.2k 3TB ($756",
        "RAM priced from the price list: DDR3 8GB DIMM, $80.00 / 8 GiB = $10.00 per GiB",
        "Random reads measured with fio; results vary with platform and configuration.",
    ):
        assert caption in text, caption
    assert text.index("Figure 1") < text.index("Figure 2") < text.index("Table 1")


def test_every_pdf_page_holds_something(report: RandomReadReport, tmp_path: Path) -> None:
    pdf = write_report(report, tmp_path / "report.pdf", page_size="letter")
    subprocess.run(["pdftoppm", "-r", "30", "-png", str(pdf), str(tmp_path / "p")], check=True)
    pages = sorted(tmp_path.glob("p-*.png"))
    assert 3 <= len(pages) <= 7
    for page in pages:
        image = QImage(str(page))
        # The body (between running header and footer): some rows hold ink.
        inked = 0
        for y in range(image.height() // 8, image.height() * 7 // 8, 4):
            row = [QColor(image.pixel(x, y)).lightness() for x in range(0, image.width(), 3)]
            inked += min(row) < 200
        assert inked > 3, page.name


def test_json_and_csv_carry_the_figures(report: RandomReadReport, tmp_path: Path) -> None:
    data = json.loads(write_report(report, tmp_path / "r.json").read_text())
    assert data["format"] == "bench-gui-random-read-comparison"
    ssd = data["sessions"][1]
    assert ssd["raw_iops"] == 33_000
    assert [p["ram_multiple"] for p in ssd["points"]] == [0.5, 1.0, 1.5, 2.0, 4.0]
    assert data["rows"][3]["ratios"][str(ssd["id"])] == pytest.approx(146_850 / 530)
    econ = data["ram_economics"]
    assert econ["target_ops_s"] == 103_950
    assert [n["bound"] for n in econ["needs"]] == ["measured", "at_most"]
    assert econ["price_per_gib"] == 10.0
    assert data["tables"]["ops"]["rows"][3][3] == 146_850
    csv_text = write_report(report, tmp_path / "r.csv").read_text()
    assert "Table 1: Random reads per second by dataset size" in csv_text
    assert f"2,{32 * 2**30},530,146850,277X" in csv_text  # raw values, ratios as printed
    assert "Table 4: RAM needed to reach the target" in csv_text


def test_the_charts_of_this_workload(report: RandomReadReport) -> None:
    log, linear = report.charts["ops_log"], report.charts["ops_linear"]
    assert log.log_y
    assert not linear.log_y
    assert log.category_labels == ["0.5x", "1x", "1.5x", "2x", "4x"]
    assert log.x_label == "Dataset size, as a multiple of RAM"
    multiplier = report.charts["multiplier"]
    assert multiplier.category_labels == ["1.5x", "2x", "4x"]  # beyond RAM only
    assert multiplier.reference == 1.0
    assert log_ticks([375.0, 3_100_000.0]) == ([100.0, 1e3, 1e4, 1e5, 1e6, 1e7], 100.0, 1e7)


def test_one_session_makes_a_report_too(store: SessionStore, tmp_path: Path) -> None:
    sid = store_random_read(store, "NVMe alone", 500_000.0, (3e6, 2e6, 1.1e6), (0.5, 2.0, 4.0))
    made = build_any_report(store, [sid], sid, target_ops_s=1.5e6, dataset_bytes=2**40)
    assert isinstance(made, RandomReadReport)
    assert made.title == "NVMe alone: random reads by dataset size"
    assert "ops" in made.tables
    assert made.author_notes[0].startswith("no RAM price, so no RAM cost")
    html = write_report(made, tmp_path / "one.html").read_text()
    assert "This brief reports one random-read study recorded with bench-gui" in html
    assert "1,500,000 ops/s from a 1 TiB dataset" in html


def test_workloads_are_never_mixed(store: SessionStore) -> None:
    tpcc, _ = build_seed000(store)
    rr = store_random_read(store, "SSD m4", 33_000.0, (3e6, 146_850.0), (0.5, 2.0))
    with pytest.raises(CompareError) as caught:
        build_any_report(store, [rr, tpcc], rr)
    assert f"session {rr} (SSD m4) is a random-read study" in str(caught.value)
    assert f"session {tpcc} (HDD RAID 10 (16 x 15K SAS)) is a TPROC-C sweep" in str(caught.value)
    # The transaction report refuses random-read studies rather than printing empty tables.
    with pytest.raises(CompareError, match=f"sessions {rr} are random-read studies"):
        build_report(store, [rr], rr)


def test_the_ram_needed_table_says_what_its_text_says(store: SessionStore) -> None:
    """0.25 GiB of RAM needed reads "0.25" in the table as in the sentence beside it (it was
    rounded to "0.2")."""
    sid = store_random_read(store, "NVMe alone", 500_000.0, (3e6, 2e6, 1.1e6), (0.5, 2.0, 4.0))
    made = build_any_report(store, [sid], sid, target_ops_s=2e6, dataset_bytes=2**29)
    assert isinstance(made, RandomReadReport)
    table = made.tables["ram_needed"]
    ram, text = table.rows[0][1], table.rows[0][-1]
    assert text.text.startswith("0.25 GiB")
    assert ram.text == "0.25"


def test_the_report_says_how_each_figure_was_measured(store: SessionStore) -> None:
    """Both depths (the sweep's 8 faults in flight, the raw pass's queue depth 32), the
    device as the author describes it (a throttled loop device is not a disk), and the data
    cache the RAM figure stands on."""
    mib = 1 << 20
    sid = store_random_read(
        store, "loop", 250.0, (2e6, 500.0), (0.25, 4.0), memory=256 * mib,
        data_cache=(64 * mib, 199 * mib),
    )  # fmt: skip
    other = store_random_read(store, "other", 33_000.0, (3e6, 1e5), (0.25, 4.0))
    store.set_storage_description(sid, devices="loop device held to 250 IOPS by blkio")
    made = build_any_report(store, [sid, other], sid)
    assert isinstance(made, RandomReadReport)
    rows = {h.heading: dict(h.rows) for h in made.how_we_tested}
    loop = next(r for h, r in rows.items() if h.startswith("loop"))
    assert (
        loop["Device"] == "sdb; as the author describes it: loop device held to 250 IOPS by blkio"
    )
    assert loop["Reads in flight"].startswith(
        "the sweep: at most 8 (one page fault per fio job, mmap); the raw-IOPS pass: 4 KiB"
        " random reads, direct I/O, libaio queue depth 32."
    )
    assert loop["RAM for the study"].startswith("page cache measured for the data: 199 MiB")
    plain = next(r for h, r in rows.items() if h.startswith("other"))
    assert plain["Device"] == "sdb (not described by the author)"
    assert "fincore" in made.how_we_tested[0].paragraphs[0]
