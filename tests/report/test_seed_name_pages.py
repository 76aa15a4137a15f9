"""Briefs with the seeds' long names at 1 to 12 sessions (issue 28): no page left half empty
by a section pushed on whole, and no heading ending a page without what it introduces.

At 2 sessions on A4 every section (a figure and its table) took a page of its own, the page
under Table 1 half empty; at 1 session on Letter the first page was half empty; at 12 sessions
"Sessions compared" and its one sentence ended page 14, its table on page 15, and Table 5
ran on with its header and caption alone on a page. Fills are read
from the written PDF (tests/report/page_fill.py), headings on the laid-out document.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from PySide6.QtGui import QTextCursor, QTextDocument

from bench_gui.report import build_report, write_report
from bench_gui.report import pdf as pdf_writer
from bench_gui.store import SessionStore
from tests.report.fleet import seed_like_fleet
from tests.report.page_fill import page_fills, sparse_pages
from tests.report.test_page_breaks import assert_kept_together
from tests.report.test_pages import content_size, tables

# Every page but the last is filled at least this far (to the footer: 1).
LEAST = 0.55


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("count", [1, 2, 4, 6])
def test_no_page_is_left_half_empty(
    store: SessionStore, tmp_path: Path, count: int, paper: str
) -> None:
    ids = seed_like_fleet(store, count)
    report = build_report(store, ids, ids[0])
    pdf = write_report(report, tmp_path / f"{count}-{paper}.pdf", page_size=paper)
    fills = page_fills(pdf)
    shown = [round(f, 2) for f in fills]
    assert not sparse_pages(fills, LEAST), f"pages less than {LEAST:.0%} full: {shown}"
    content = content_size(paper)
    doc = pdf_writer.build_document(report, content)
    assert_kept_together(doc, content.height())
    assert runs_on_short(doc, content.height()) == []


def headings_left_behind(doc: QTextDocument, height: float) -> list[str]:
    """Headings that end a page with their short opening (less than STANDALONE_TEXT of a page)
    while the table or figure they introduce starts the next one, or with the first line of
    their text only."""
    pages = pdf_writer._Paginator(doc, height)
    found = []
    block = doc.begin()
    while block.isValid():
        table = QTextCursor(block).currentTable()
        if table is not None:
            block = doc.findBlock(table.lastPosition() + 1)
            continue
        if block.blockFormat().headingLevel() > 0:
            heading, here, nxt = block, pages.page_of(block), block.next()
            lines = nxt.layout() if nxt.isValid() else None
            if (
                lines is not None
                and lines.lineCount() > 1
                and QTextCursor(nxt).currentTable() is None
            ):
                second = pages.layout.blockBoundingRect(nxt).top() + lines.lineAt(1).y()
                if pdf_writer._page(second, height) != here:  # a heading over one line
                    found.append(heading.text())
            while nxt.isValid():
                inner = QTextCursor(nxt).currentTable()
                if inner is not None or pdf_writer.OBJECT_CHAR in nxt.text():
                    top = (
                        pages.layout.frameBoundingRect(inner).top()
                        if inner is not None
                        else pages.top(nxt)
                    )
                    opening = pages.bottom_of(nxt.previous()) - pages.top(heading)
                    short = opening < height * pdf_writer.STANDALONE_TEXT
                    if short and pdf_writer._page(top, height) != here:
                        found.append(heading.text())
                    break
                if nxt.blockFormat().headingLevel() > 0:
                    break
                nxt = nxt.next()
        block = block.next()
    return found


def runs_on_short(doc: QTextDocument, height: float) -> list[str]:
    """The captions of tables that run on with fewer than RUN_ON_ROWS of their rows (besides
    the caption) on their last page: a repeated header over a caption alone."""
    pages = pdf_writer._Paginator(doc, height)
    short = []
    for _, table in tables(doc):
        rect = pages.layout.frameBoundingRect(table)  # type: ignore[arg-type]
        last = pdf_writer._page(rect.bottom() - 1, height)
        if pdf_writer._page(rect.top(), height) == last:
            continue
        rows = range(table.format().headerRowCount(), table.rows() - 1)  # type: ignore[attr-defined]
        cells = [table.cellAt(row, 0).firstCursorPosition().block() for row in rows]  # type: ignore[attr-defined]
        if sum(1 for cell in cells if pages.page_of(cell) == last) < pdf_writer.RUN_ON_ROWS:
            caption = table.cellAt(table.rows() - 1, 0).firstCursorPosition().block()  # type: ignore[attr-defined]
            short.append(caption.text())
    return short


def page_of(pdf: Path, text: str) -> int:
    """The page (from 1) whose text holds ``text`` first."""
    done = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True, text=True
    )
    for number, page in enumerate(done.stdout.split("\f"), start=1):
        if text in page:
            return number
    raise AssertionError(f"{text!r} is on no page")


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_no_heading_ends_a_page_at_twelve_sessions(
    store: SessionStore, tmp_path: Path, paper: str
) -> None:
    ids = seed_like_fleet(store, 12)
    report = build_report(store, ids, ids[0])
    content = content_size(paper)
    doc = pdf_writer.build_document(report, content)
    assert headings_left_behind(doc, content.height()) == []
    assert runs_on_short(doc, content.height()) == []
    pdf = write_report(report, tmp_path / f"12-{paper}.pdf", page_size=paper)
    fills = page_fills(pdf)
    assert not sparse_pages(fills, LEAST), [round(f, 2) for f in fills]
    assert page_of(pdf, "Sessions compared") == page_of(pdf, "#1 HDD RAID 10 (16 x Seagate")
