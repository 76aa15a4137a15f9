"""Page breaks that leave no page mostly empty (issue 14, polish): a section's opening that
stands on its own stays at the bottom of its page, and a figure shrinks (within limits) to
stay with its table rather than leave most of a page empty; tables and figures keep together.

Each page's fill is read from the written PDF's text positions (``pdftotext -bbox``,
tests/report/page_fill.py): how far down the body its lowest line reaches.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextCursor, QTextDocument, QTextImageFormat

from bench_gui.core.economics import DevicePrice
from bench_gui.report import build_report, write_report
from bench_gui.report import pdf as pdf_writer
from bench_gui.report.options import ReportOptions
from bench_gui.report.workloads import build_any_report
from bench_gui.store import SessionStore
from bench_gui.workloads.random_read.report import RandomReadReport
from tests._fixtures.random_read_sessions import seed004
from tests.report.fleet import fleet
from tests.report.page_fill import page_fills, sparse_pages
from tests.report.test_pages import content_size, figure_kept, runs_on, tables

# Every page but the last is at least half full.
HALF = 0.5


def random_read(store: SessionStore) -> RandomReadReport:
    hdd, ssd = seed004(store)
    store.add_device_price(DevicePrice("DDR3 8GB DIMM", 80.0, "USD", "2014-07-01", "web shop"))
    report = build_any_report(store, [hdd, ssd], hdd)
    assert isinstance(report, RandomReadReport)
    return report


def figure_widths(doc: QTextDocument) -> list[float]:
    """The printed width of every chart in the laid-out document."""
    widths = []
    block = doc.begin()
    while block.isValid():
        offset = block.text().find(pdf_writer.OBJECT_CHAR)
        if offset >= 0:
            cursor = QTextCursor(block)
            cursor.setPosition(block.position() + offset + 1)
            fmt = cursor.charFormat()
            if fmt.isImageFormat():
                image = QTextImageFormat(fmt.toImageFormat())
                if QUrl(image.name()).scheme() == "chart":
                    widths.append(image.width())
        block = block.next()
    return widths


def assert_kept_together(doc: QTextDocument, height: float) -> list[tuple[int, object]]:
    """No table of less than most of a page split (unless it runs on as the writer lets a tall
    one), no table a page after its figure; the tables that run on, with their first page."""
    pages = pdf_writer._Paginator(doc, height)
    layout = doc.documentLayout()
    run_on = []
    for before, table in tables(doc):
        rect = layout.frameBoundingRect(table)  # type: ignore[arg-type]
        top, bottom = int(rect.top() // height), int((rect.bottom() - 1) // height)
        if rect.height() <= 0.8 * height and top != bottom:
            assert runs_on(pages, table, top), f"table split over pages {top + 1} and {bottom + 1}"
            run_on.append((top, table))
        if before.isValid() and pdf_writer.OBJECT_CHAR in before.text():
            assert figure_kept(pages, before, top), "a table left its figure behind"
    return run_on


def page_text(pdf: Path, page: int) -> str:
    """One page's text (numbered from 1), as laid out."""
    done = subprocess.run(
        ["pdftotext", "-layout", "-f", str(page), "-l", str(page), str(pdf), "-"],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


@pytest.mark.parametrize(("paper", "most"), [("letter", 5), ("a4", 5)])
def test_the_random_read_brief_has_no_half_empty_page(
    store: SessionStore, tmp_path: Path, paper: str, most: int
) -> None:
    report = random_read(store)
    pdf = write_report(report, tmp_path / f"rr-{paper}.pdf", page_size=paper)
    fills = page_fills(pdf)
    shown = [round(f, 2) for f in fills]
    assert len(fills) <= most, f"{len(fills)} pages: {shown}"
    assert not sparse_pages(fills, HALF), f"pages less than half full: {shown}"
    content = content_size(paper)
    doc = pdf_writer.build_document(report, content)
    assert doc.pageCount() == len(fills)
    assert_kept_together(doc, content.height())
    # A figure shrinks to keep with its table, but never below 1 - ROOMY_SHRINK of its size.
    chart_width = int(content.width() * 0.8)
    widths = figure_widths(doc)
    assert len(widths) == len(report.charts)
    assert min(widths) >= chart_width * (1 - pdf_writer.ROOMY_SHRINK) - 1, widths


@pytest.mark.parametrize(("paper", "most", "least"), [("letter", 10, 0.45), ("a4", 9, 0.6)])
def test_four_tproc_c_sessions_fill_their_pages(
    store: SessionStore, tmp_path: Path, paper: str, most: int, least: float
) -> None:
    ids = fleet(store, 4)
    report = build_report(store, ids, ids[0])
    pdf = write_report(report, tmp_path / f"four-{paper}.pdf", page_size=paper)
    fills = page_fills(pdf)
    shown = [round(f, 2) for f in fills]
    assert len(fills) <= most, f"{len(fills)} pages: {shown}"
    assert not sparse_pages(fills, least), f"pages less than {least:.0%} full: {shown}"
    content = content_size(paper)
    assert_kept_together(pdf_writer.build_document(report, content), content.height())


def test_page_fill_reads_the_pdf_text(store: SessionStore, tmp_path: Path) -> None:
    """The measure itself: a report's first page is well filled, and every page has text."""
    ids = fleet(store, 2)
    pdf = write_report(build_report(store, ids, ids[0]), tmp_path / "two.pdf", page_size="a4")
    fills = page_fills(pdf)
    assert len(fills) >= 3
    assert all(0.05 < fill <= 1.05 for fill in fills), fills
    assert sparse_pages([0.9, 0.2, 0.7, 0.1], 0.5) == [2]  # the last page may be short


def test_six_sessions_on_letter_end_on_a_page_worth_printing(
    store: SessionStore, tmp_path: Path
) -> None:
    """Six sessions on Letter: a tall table of the system under test runs on under its
    repeated header rather than leave a third of a page empty, so the commands run on the
    targets no longer sit alone on a last page."""
    ids = fleet(store, 6)
    report = build_report(store, ids, ids[0], options=ReportOptions(commands="appendix"))
    pdf = write_report(report, tmp_path / "six-letter.pdf", page_size="letter")
    fills = page_fills(pdf)
    shown = [round(f, 2) for f in fills]
    # 12: the sixth session repeats the baseline, so its noise is a Repeatability table and a
    # noise column per configuration (issue 28); wide tables print in parts, words whole.
    assert len(fills) <= 12, f"{len(fills)} pages: {shown}"
    assert fills[-1] >= 0.3, f"a near-empty last page: {shown}"
    assert not sparse_pages(fills, 0.45), shown
    content = content_size("letter")
    doc = pdf_writer.build_document(report, content)
    run_on = assert_kept_together(doc, content.height())
    # (Printed in parts since issue 28, no table of six sessions need run on; one that does
    # repeats its header.)
    for top, table in run_on:
        header = table.cellAt(0, 0).firstCursorPosition().block().text()  # type: ignore[attr-defined]
        # The next page opens (under its running header) with the table's header row again.
        lines = [line for line in page_text(pdf, top + 2).splitlines() if line.strip()]
        opening = lines[1:5]
        assert any(line.split()[:1] == [header] for line in opening), (header, opening)
