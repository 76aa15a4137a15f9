"""A brief a vendor signs (issue 28): a repeat of the baseline is noise, never a headline;
wide comparisons print in parts with the baseline repeated, no word or number broken; the
command log and the sessions' notes are printed only when the author chooses."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from PySide6.QtGui import QTextCursor, QTextOption

from bench_gui.report import build_report, write_report
from bench_gui.report import pdf as pdf_writer
from bench_gui.report.options import ReportOptions
from bench_gui.report.wide import MAX_COLUMNS, printed_parts
from bench_gui.store import SessionStore
from tests._fixtures.seed_sessions import build_seed000
from tests.report.fleet import fleet, hdd_repeat
from tests.report.page_fill import page_fills, sparse_pages
from tests.report.test_pages import content_size


def _hdd_again(store: SessionStore, scale: float) -> int:
    return hdd_repeat(store, scale)


def test_a_repeat_of_the_baseline_is_noise_not_a_finding(store: SessionStore) -> None:
    hdd, _ssd = build_seed000(store)
    again = _hdd_again(store, 1.27)
    report = build_report(store, [hdd, again], hdd)
    assert report.comparison.baseline_repeats == (again,)
    name = report.short[again]
    assert not any("more NOPM" in line for line in report.bottom_line), report.bottom_line
    (said,) = [line for line in report.bottom_line if "repeats" in line]
    assert said.startswith(f"{name} repeats {report.short[hdd]}: NOPM within")
    assert "run-to-run noise" in said
    section = next(s for s in report.sections if s.key == "repeatability")
    texts = [b.content for b in section.blocks if b.kind == "text"]
    assert not any("No step was repeated" in t for t in texts)
    table = report.tables["repeatability"]
    assert "NOPM\nrange" in table.columns
    assert all("(the baseline and its repeats)" in row[0].text for row in table.rows)
    assert not [h for s in report.sections for h in s.blocks if h.kind == "headline"
                and h.content.startswith(f"{name}:")]  # fmt: skip


def test_a_far_apart_session_recorded_alike_is_no_repeat(store: SessionStore) -> None:
    hdd, _ssd = build_seed000(store)
    far = _hdd_again(store, 3.0)
    report = build_report(store, [hdd, far], hdd)
    assert report.comparison.baseline_repeats == ()
    assert any("cannot tell them apart" in n for n in report.comparison.notes)


def test_wide_comparisons_print_in_parts_with_the_baseline(store: SessionStore) -> None:
    ids = fleet(store, 12)
    report = build_report(store, ids, ids[0])
    whole = report.tables["config_platform"]
    assert len(whole.columns) > MAX_COLUMNS  # CSV and JSON keep every column
    parts = printed_parts(whole, report.short, ids[0])
    assert len(parts) >= 2
    base_header = report.short[ids[0]]
    for n, part in enumerate(parts, 1):
        assert len(part.columns) <= MAX_COLUMNS
        assert part.columns[0] == "Item"
        assert base_header in part.columns
        assert part.title.endswith(f"(part {n} of {len(parts)})")
        assert all(sum(c.span for c in row if not c.covered) == len(part.columns)
                   for row in part.rows)  # fmt: skip
    shown = {c for p in parts for c in p.columns}
    assert shown == set(whole.columns)


def test_wide_tables_by_user_count_print_sessions_as_rows(store: SessionStore) -> None:
    """At 12 sessions Table 1 (37 columns) printed in four parts over three pages on Letter,
    each comparing three sessions with the baseline: it prints whole, a row per session and
    figure, a column per user count."""
    ids = fleet(store, 12)
    report = build_report(store, ids, ids[0])
    whole = report.tables["throughput"]
    assert len(whole.columns) > 30
    (turned,) = printed_parts(whole, report.short, ids[0])
    assert turned.title == whole.title
    assert turned.columns[:2] == ["Configuration", ""]
    assert turned.columns[2:] == [f"{row[0].text}\nusers" for row in whole.rows]
    assert len(turned.columns) <= MAX_COLUMNS
    # The baseline first; every session's figures on rows of their own, every cell kept.
    names = [row[0].value for row in turned.rows]
    assert names[0] == report.short[ids[0]]
    assert list(dict.fromkeys(names)) == [report.short[sid] for sid in ids]
    figures = {(row[0].value, row[1].value) for row in turned.rows}
    assert (report.short[ids[1]], "NOPM ratio") in figures
    assert (report.short[ids[1]], "Repeat noise") in figures
    cells = sorted(str(c.value) for row in whole.rows for c in row[1:])
    assert sorted(str(c.value) for row in turned.rows for c in row[2:]) == cells


def test_twelve_sessions_break_no_word_nor_number(store: SessionStore, tmp_path: Path) -> None:
    ids = fleet(store, 12)
    report = build_report(store, ids, ids[0])
    for paper in ("a4", "letter"):
        content = content_size(paper)
        doc = pdf_writer.build_document(report, content)
        # No fallback to breaking words anywhere: every table fits whole words.
        assert doc.defaultTextOption().wrapMode() == QTextOption.WrapMode.WordWrap, paper
        assert doc.size().width() <= content.width() + pdf_writer.OVERFLOW_PX
    html = write_report(report, tmp_path / "twelve.html").read_text()
    for table in re.findall(r"<table.*?</table>", html, re.S):
        assert len(re.findall(r"<th[ >]", table)) <= MAX_COLUMNS


def test_command_log_and_notes_are_the_authors_choice(store: SessionStore, tmp_path: Path) -> None:
    ids = fleet(store, 3)
    store.set_note(ids[1], "report tester slow")

    def text(options: ReportOptions) -> str:
        pdf = write_report(build_report(store, ids, ids[0], options=options), tmp_path / "x.pdf")
        done = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True)
        return " ".join(done.stdout.split())

    plain = text(ReportOptions())
    assert "mkfs.xfs /dev/md0" not in plain
    assert "report tester slow" not in plain
    assert "Tuned for NVMe" not in plain
    assert "keeps the commands it ran on its targets" in plain
    full = text(ReportOptions(commands="appendix", session_notes="include"))
    assert "Appendix: commands run on the targets" in full
    assert "mkfs.xfs /dev/md0" in full
    assert "report tester slow" in full


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_twelve_sessions_leave_no_heading_alone(
    store: SessionStore, tmp_path: Path, paper: str
) -> None:
    """A4 used to print four pages holding a single headline each (a chain of eleven
    headline headings, one a configuration, kept with what followed)."""
    ids = fleet(store, 12)
    report = build_report(store, ids, ids[0])
    pdf = write_report(report, tmp_path / f"twelve-{paper}.pdf", page_size=paper)
    fills = page_fills(pdf)
    assert not sparse_pages(fills, 0.45), [round(f, 2) for f in fills]
    content = content_size(paper)
    doc = pdf_writer.build_document(report, content)
    pages = pdf_writer._Paginator(doc, content.height())
    block = doc.begin()
    while block.isValid():
        if block.blockFormat().headingLevel() > 0 and block.next().isValid():
            nxt = block.next()
            table = QTextCursor(nxt).currentTable()
            top = (
                doc.documentLayout().frameBoundingRect(table).top()
                if table is not None
                else pages.top(nxt)
            )
            assert int(top // content.height()) == pages.page_of(block), block.text()
        block = block.next()
