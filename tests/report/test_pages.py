"""Pages a vendor can publish (issue 14): A4 or Letter, no table split from its figure or its
header, no near-empty page, no header broken in the middle of a word, at 1, 2, 4 and 6 sessions.

The PDF's layout is checked on the paginated QTextDocument the writer paints, and the pages as
rendered (poppler's pdftoppm; set BENCH_GUI_REPORT_ARTIFACTS to a folder to keep them).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PySide6.QtCore import QSizeF
from PySide6.QtGui import QImage, QPageSize, QTextBlock, QTextCursor, QTextDocument, QTextOption

from bench_gui.report import build_report, write_report
from bench_gui.report import pdf as pdf_writer
from bench_gui.report.options import ReportOptions, check_cover, default_paper
from bench_gui.store import SessionStore
from tests.report.fleet import fleet

ARTIFACTS = os.environ.get("BENCH_GUI_REPORT_ARTIFACTS", "")
MIN_FILL = 0.35  # of the text area, on every page but the last
WORD_ENDS = (" ", "\u2028", "\u200b", "-", "/", ",", "\u00a0")


def content_size(paper: str) -> QSizeF:
    inch = QPageSize(pdf_writer.PAGE_SIZES[paper]).size(QPageSize.Unit.Inch)
    dpi = pdf_writer.LAYOUT_DPI
    return QSizeF(
        inch.width() * dpi - 2 * pdf_writer.MARGIN_X,
        inch.height() * dpi - pdf_writer.MARGIN_TOP - pdf_writer.MARGIN_BOTTOM,
    )


def tables(doc: QTextDocument) -> list[tuple[QTextBlock, object]]:
    """Every top-level table with the block just before it."""
    found = []
    block, previous = doc.begin(), QTextBlock()
    while block.isValid():
        table = QTextCursor(block).currentTable()
        if table is not None:
            found.append((previous, table))
            block = doc.findBlock(table.lastPosition() + 1)
            previous = QTextBlock()
            continue
        previous = block
        block = block.next()
    return found


def runs_on(pages: pdf_writer._Paginator, table: object, top: int) -> bool:
    """The table runs on to the next page as the writer lets one: taller than RUN_ON_TALL
    of a page, with a header row, RUN_ON_ROWS rows (besides its caption) on each page."""
    fmt = table.format()  # type: ignore[attr-defined]
    rows = [
        pages.page_of(table.cellAt(row, 0).firstCursorPosition().block())  # type: ignore[attr-defined]
        for row in range(fmt.headerRowCount(), table.rows() - 1)  # type: ignore[attr-defined]
    ]
    tall = pages.layout.frameBoundingRect(table).height() > (  # type: ignore[arg-type]
        pages.page_height * pdf_writer.RUN_ON_TALL
    )
    before = rows.count(top)
    return (
        fmt.headerRowCount() >= 1
        and tall
        and before >= pdf_writer.RUN_ON_ROWS
        and len(rows) - before >= pdf_writer.RUN_ON_ROWS
    )


def figure_kept(pages: pdf_writer._Paginator, figure: QTextBlock, top: int) -> bool:
    """A table starts on its figure's page, or the figure ends the page before it because
    taking the figure (and its heading) along would have left more than LEAVE_EMPTY of that
    page empty (the figure carries its own caption)."""
    if pages.page_of_last_line(figure) == top:
        return True
    start = pages.figure_group(figure) or figure
    empty = pages.left_empty(start) > pages.page_height * pdf_writer.LEAVE_EMPTY
    return pages.page_of_last_line(figure) == top - 1 and empty


def header_lines(doc: QTextDocument) -> list[str]:
    """The lines of every table header cell as laid out (the text each line ends with)."""
    out = []
    for _, table in tables(doc):
        if table.format().headerRowCount() < 1:  # type: ignore[attr-defined]
            continue
        for col in range(table.columns()):  # type: ignore[attr-defined]
            cell = table.cellAt(0, col)  # type: ignore[attr-defined]
            block = cell.firstCursorPosition().block()
            while block.isValid() and block.position() <= cell.lastCursorPosition().position():
                layout = block.layout()
                text = block.text()
                for i in range(layout.lineCount() - 1):
                    line = layout.lineAt(i)
                    out.append(text[line.textStart() : line.textStart() + line.textLength()])
                block = block.next()
    return out


def page_fill(pdf: Path, folder: Path) -> list[float]:
    """How far down each page's text area the ink reaches (0 to 1)."""
    folder.mkdir()
    subprocess.run(
        ["pdftoppm", "-r", "24", "-gray", "-png", str(pdf), str(folder / "p")], check=True
    )
    fills = []
    for path in sorted(folder.glob("p-*.png")):
        image = QImage(str(path))
        top, bottom = int(image.height() * 0.09), int(image.height() * 0.91)
        last = top
        for y in range(top, bottom):
            if any(
                image.pixelColor(x, y).lightness() < 235
                for x in range(int(image.width() * 0.1), int(image.width() * 0.9), 2)
            ):
                last = y
        fills.append((last - top) / (bottom - top))
    return fills


@pytest.mark.parametrize(
    ("count", "paper"),
    [(1, "a4"), (2, "letter"), (2, "a4"), (4, "letter"), (6, "a4"), (6, "letter")],
)
def test_pages_at_1_2_4_and_6_sessions(
    store: SessionStore, tmp_path: Path, count: int, paper: str
) -> None:
    ids = fleet(store, count)
    options = ReportOptions(cover=check_cover("Acme Storage Labs", None, "2024-05-01"))
    report = build_report(store, ids, ids[0], options=options)
    content = content_size(paper)
    doc = pdf_writer.build_document(report, content)
    height = content.height()
    # Words wrap at their boundaries only (the writer did not fall back to breaking words)...
    assert doc.defaultTextOption().wrapMode() == QTextOption.WrapMode.WordWrap
    assert doc.size().width() <= content.width() + pdf_writer.OVERFLOW_PX
    # ...so no header line ends in the middle of a word ("saturati/on").
    for line in header_lines(doc):
        assert line.endswith(WORD_ENDS), line
    layout = doc.documentLayout()
    pages = pdf_writer._Paginator(doc, height)
    for before, table in tables(doc):
        rect = layout.frameBoundingRect(table)  # type: ignore[arg-type]
        top, bottom = int(rect.top() // height), int((rect.bottom() - 1) // height)
        if rect.height() <= 0.8 * height and top != bottom:
            # Only a tall table with a header row runs on (its header repeated), never with
            # fewer than RUN_ON_ROWS rows on either page.
            assert runs_on(pages, table, top), f"table split over pages {top + 1} and {bottom + 1}"
        if before.isValid() and "\ufffc" in before.text():
            assert figure_kept(pages, before, top), "a table left its figure behind"
    path = write_report(report, tmp_path / f"{count}-{paper}.pdf", page_size=paper)
    size = subprocess.run(["pdfinfo", str(path)], check=True, capture_output=True, text=True)
    assert ("A4" if paper == "a4" else "letter") in size.stdout
    fills = page_fill(path, tmp_path / "pages")
    assert len(fills) == doc.pageCount()
    thin = [i + 1 for i, f in enumerate(fills[:-1]) if f < MIN_FILL]
    assert not thin, f"pages {thin} are near empty: {[round(f, 2) for f in fills]}"
    assert fills[-1] > 0.08  # not a scrap either
    if ARTIFACTS:
        shutil.copytree(tmp_path / "pages", Path(ARTIFACTS) / f"pages-{count}-{paper}")
        shutil.copy(path, Path(ARTIFACTS))


def test_paper_size_by_locale() -> None:
    assert default_paper({"LANG": "en_US.UTF-8"}) == "letter"
    assert default_paper({"LANG": "fr_CA.UTF-8"}) == "letter"
    assert default_paper({"LANG": "de_DE.UTF-8"}) == "a4"
    assert default_paper({"LANG": "en_GB.UTF-8"}) == "a4"
    assert default_paper({"LANG": "C.UTF-8"}) == "a4"
    assert default_paper({}) == "a4"
    assert default_paper({"LANG": "en_US.UTF-8", "LC_PAPER": "de_DE.UTF-8"}) == "a4"
    assert default_paper({"LC_ALL": "en_US.UTF-8", "LC_PAPER": "de_DE.UTF-8"}) == "letter"


def test_cover_line_with_logo_and_date(store: SessionStore, tmp_path: Path) -> None:
    hdd, ssd = fleet(store, 2)
    logo = QImage(120, 40, QImage.Format.Format_RGB32)
    logo.fill(0x1F5FA8)
    logo_path = tmp_path / "logo.png"
    assert logo.save(str(logo_path))
    options = ReportOptions(cover=check_cover("Acme Storage Labs", logo_path, "2024-05-01"))
    report = build_report(store, [hdd, ssd], hdd, options=options)
    pdf = write_report(report, tmp_path / "cover.pdf", page_size="letter")
    first = subprocess.run(
        ["pdftotext", "-l", "1", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    assert "Acme Storage Labs · 2024-05-01" in first
    images = subprocess.run(["pdfimages", "-list", "-f", "1", "-l", "1", str(pdf)],
                            check=True, capture_output=True, text=True).stdout  # fmt: skip
    assert re.search(r"^\s+1\s+\d+\s+image\s+120\s+40\s", images, re.MULTILINE)  # the logo
    html = (write_report(report, tmp_path / "cover.html")).read_text()
    assert re.search(r'<div class="cover"><img src="data:image/png;base64,', html)
    with pytest.raises(ValueError, match="is not a file"):
        check_cover("x", tmp_path / "missing.png")
    (tmp_path / "logo.gif").write_bytes(b"GIF89a")
    with pytest.raises(ValueError, match="must be a PNG, JPEG or SVG image"):
        check_cover("x", tmp_path / "logo.gif")
    (tmp_path / "broken.png").write_bytes(b"not a png")
    broken = ReportOptions(cover=check_cover("x", tmp_path / "broken.png"))
    with pytest.raises(ValueError, match="broken.png is not an image Qt can read"):
        write_report(build_report(store, [hdd, ssd], hdd, options=broken), tmp_path / "b.pdf")


def test_long_names_are_given_once_then_abbreviated(store: SessionStore) -> None:
    ids = fleet(store, 6)
    report = build_report(store, ids, ids[0])
    nvme = ids[2]
    assert report.names[nvme] == "PostgreSQL 16 on 4 x Micron 7450 NVMe RAID 10 with tuned settings"
    assert report.short[nvme] == "4 x Micron 7450 NVMe RAID 10"
    assert report.short[ids[5]] == "HDD RAID 10, second run"
    assert report.naming.introduce(nvme) == (
        "PostgreSQL 16 on 4 x Micron 7450 NVMe RAID 10 with tuned settings (below: 4 x Micron"
        " 7450 NVMe RAID 10)"
    )
    columns = " ".join(report.tables["throughput"].columns)
    assert "4 x Micron 7450 NVMe RAID 10" in columns
    assert "tuned settings" not in columns
    assert len(set(report.short.values())) == 6
