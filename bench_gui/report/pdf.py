"""The PDF report, laid out like the seeds' technical briefs, through Qt's offscreen renderer.

The body is rich text (a Jinja2 template rendered for QTextDocument's HTML subset) laid out
in 96-dpi units on pages of the chosen size; each page is then painted onto a QPdfWriter with
a running header and a footer (title, page number, the not-a-TPC-C-result notice). Charts are
embedded as high-resolution images (about 270 dpi at their printed size); text stays text.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMarginsF, QRectF, QSizeF, Qt, QUrl
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QPen,
    QTextBlock,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)

from bench_gui import __version__
from bench_gui.report.charts import FONT_FAMILY, chart_image, ensure_app, font
from bench_gui.report.html import environment
from bench_gui.report.model import Report

LAYOUT_DPI = 96.0  # the document is laid out in CSS pixels
PDF_DPI = 300
PAGE_SIZES = {"letter": QPageSize.PageSizeId.Letter, "a4": QPageSize.PageSizeId.A4}
MARGIN_X = 0.7 * LAYOUT_DPI
MARGIN_TOP = 0.75 * LAYOUT_DPI
MARGIN_BOTTOM = 0.75 * LAYOUT_DPI
TONES = {
    "": "",
    "good": "color: #2f7d1f; font-weight: 600;",
    "bad": "color: #b3261e; font-weight: 600;",
    "muted": "color: #98a1b2;",
    "flag": "color: #7a5600; font-weight: 600;",
    "head": "font-weight: 600;",
}
FOOTER_NOTICE = "TPROC-C workload derived from TPC-C; these are not TPC-C results."


def render_brief_html(report: Report, chart_width: int) -> str:
    """The rich text of the brief (QTextDocument's HTML subset)."""
    template = environment().get_template("brief_qt.html.j2")
    return template.render(
        r=report, tones=TONES, font=FONT_FAMILY, chart_width=chart_width, app_version=__version__
    )


def build_document(report: Report, content: QSizeF) -> QTextDocument:
    """The brief as a paginated QTextDocument (pages of ``content`` size, 96-dpi units)."""
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    doc.setDefaultFont(font(11.5))
    doc.setUseDesignMetrics(True)
    chart_width = int(content.width() * 0.85)
    for key, spec in report.charts.items():
        image = chart_image(spec, scale=3.0)
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"chart://{key}"), image)
    doc.setPageSize(content)
    doc.setHtml(render_brief_html(report, chart_width))
    paginate(doc, content.height())
    return doc


ALWAYS_BEFORE = QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore
OBJECT_CHAR = "\ufffc"  # an image's place in the text


def _page(y: float, page_height: float) -> int:
    return int(y // page_height)


class _Paginator:
    """Moves page breaks so that tables, headings and what they introduce stay together.

    QTextDocument breaks anywhere, even inside a table row, and leaves a heading alone at the
    bottom of a page. Two rules, applied top-down one fix at a time until the layout is
    stable (each fix moves everything below it):

    - a table (its caption and notes are its last rows) that would straddle a page break and
      fits on one page starts on the next page, taking along the heading and the short text
      just before it (not a figure: a figure carries its own caption);
    - a heading whose next line is on the next page moves there, with the headings just
      above it.

    Only breaks set here are ever cleared again; the template's own breaks stay.
    """

    def __init__(self, doc: QTextDocument, page_height: float) -> None:
        self.doc = doc
        self.layout = doc.documentLayout()
        self.page_height = page_height
        self.ours: set[int] = set()

    def top(self, block: QTextBlock) -> float:
        """Where the block's first line is: a line pushed to the next page moves inside its
        block, which itself still starts on the previous page."""
        top = self.layout.blockBoundingRect(block).top()
        lines = block.layout()
        if lines is not None and lines.lineCount():
            top += lines.lineAt(0).y()
        return top

    def page_of(self, block: QTextBlock) -> int:
        return _page(self.top(block), self.page_height)

    def page_of_last_line(self, block: QTextBlock) -> int:
        lines = block.layout()
        top = self.layout.blockBoundingRect(block).top()
        if lines is None or not lines.lineCount():
            return _page(top, self.page_height)
        last = lines.lineAt(lines.lineCount() - 1)
        return _page(top + last.y() + last.height() - 1, self.page_height)

    def set_break(self, block: QTextBlock) -> None:
        fmt = block.blockFormat()
        fmt.setPageBreakPolicy(ALWAYS_BEFORE)
        QTextCursor(block).setBlockFormat(fmt)
        self.ours.add(block.blockNumber())
        # A break set earlier on a heading of this group is now redundant: it would leave
        # a page almost empty between the two.
        nxt = block.next()
        for _ in range(4):
            if not nxt.isValid() or QTextCursor(nxt).currentTable() is not None:
                break
            if nxt.blockNumber() in self.ours:
                fmt = nxt.blockFormat()
                fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_Auto)
                QTextCursor(nxt).setBlockFormat(fmt)
                self.ours.discard(nxt.blockNumber())
            nxt = nxt.next()

    def group_start(self, before: QTextBlock, page: int) -> QTextBlock | None:
        """The heading that opens the group ending at ``before`` (walking back over short
        text on ``page``, never over a figure or another table), or None."""
        block = before
        found: QTextBlock | None = None
        for _ in range(4):
            if not block.isValid() or QTextCursor(block).currentTable() is not None:
                break
            if OBJECT_CHAR in block.text() or self.page_of(block) != page:
                break
            fmt = block.blockFormat()
            if fmt.pageBreakPolicy() == ALWAYS_BEFORE:
                break
            if fmt.headingLevel() > 0:
                found = block  # keep walking: a section heading may open the subhead
            block = block.previous()
        return found

    def fix_one(self) -> bool:
        block = self.doc.begin()
        previous = QTextBlock()  # the last block outside a table
        while block.isValid():
            table = QTextCursor(block).currentTable()
            if table is not None:
                rect = self.layout.frameBoundingRect(table)
                first = _page(rect.top(), self.page_height)
                last = _page(rect.bottom() - 1, self.page_height)
                tfmt = table.format()
                if (
                    first != last
                    and rect.height() <= self.page_height * 0.8
                    and tfmt.pageBreakPolicy() != ALWAYS_BEFORE
                ):
                    start = self.group_start(previous, first)
                    if start is not None:
                        self.set_break(start)
                    else:
                        tfmt.setPageBreakPolicy(ALWAYS_BEFORE)
                        table.setFormat(tfmt)
                    return True
                block = self.doc.findBlock(table.lastPosition() + 1)
                previous = QTextBlock()
                continue
            fmt = block.blockFormat()
            if OBJECT_CHAR in block.text() and fmt.pageBreakPolicy() != ALWAYS_BEFORE:
                here = self.page_of(block)
                before = self.page_of(previous) if previous.isValid() else here
                if here != before:
                    # A figure pushed to the next page takes its heading and text along.
                    start = self.group_start(previous, before)
                    if start is not None:
                        self.set_break(start)
                        return True
                elif self.page_of_last_line(block) != here:
                    # The caption (the figure's last line) would be left on the next page.
                    start = self.group_start(previous, here) if previous.isValid() else None
                    self.set_break(start if start is not None else block)
                    return True
            nxt = block.next()
            if fmt.headingLevel() > 0 and nxt.isValid() and fmt.pageBreakPolicy() != ALWAYS_BEFORE:
                here = self.page_of(block)
                nxt_table = QTextCursor(nxt).currentTable()
                top = (
                    self.layout.frameBoundingRect(nxt_table).top()
                    if nxt_table is not None
                    else self.top(nxt)
                )
                if _page(top, self.page_height) != here:
                    start = self.group_start(previous, here)
                    self.set_break(start if start is not None else block)
                    return True
            previous = block
            block = block.next()
        return False


def paginate(doc: QTextDocument, page_height: float, rounds: int = 80) -> int:
    """Keep tables and headings together across page breaks; return the number of fixes."""
    paginator = _Paginator(doc, page_height)
    for count in range(rounds):
        if not paginator.fix_one():
            return count
    return rounds


def write_pdf(report: Report, path: Path, page_size: str = "letter") -> Path:
    """Write the brief as a PDF; ``page_size`` is ``letter`` or ``a4``."""
    ensure_app()
    if page_size not in PAGE_SIZES:
        raise ValueError(f"page size must be one of {', '.join(PAGE_SIZES)}, got {page_size!r}")
    writer = QPdfWriter(str(path))
    writer.setPageSize(QPageSize(PAGE_SIZES[page_size]))
    writer.setPageMargins(QMarginsF(0, 0, 0, 0), QPageLayout.Unit.Point)
    writer.setResolution(PDF_DPI)
    writer.setTitle(report.title)
    writer.setCreator(f"bench-gui {__version__}")
    page_pt = QPageSize(PAGE_SIZES[page_size]).size(QPageSize.Unit.Inch)
    page_w, page_h = page_pt.width() * LAYOUT_DPI, page_pt.height() * LAYOUT_DPI
    content = QSizeF(page_w - 2 * MARGIN_X, page_h - MARGIN_TOP - MARGIN_BOTTOM)
    doc = build_document(report, content)
    pages = doc.pageCount()
    painter = QPainter()
    if not painter.begin(writer):
        raise OSError(f"cannot write {path}")
    try:
        scale = PDF_DPI / LAYOUT_DPI
        painter.scale(scale, scale)
        layout = doc.documentLayout()
        for page in range(pages):
            if page:
                writer.newPage()
            _decorate(painter, report, page, pages, page_w, page_h)
            painter.save()
            painter.translate(MARGIN_X, MARGIN_TOP - page * content.height())
            clip = QRectF(0, page * content.height(), content.width(), content.height())
            painter.setClipRect(clip)
            ctx = QAbstractTextDocumentLayout.PaintContext()
            ctx.clip = clip
            layout.draw(painter, ctx)
            painter.restore()
    finally:
        painter.end()
    return path


def _decorate(
    painter: QPainter, report: Report, page: int, pages: int, page_w: float, page_h: float
) -> None:
    """Running header (from page 2), footer on every page."""
    painter.save()
    muted = QColor("#6b7588")
    line = QPen(QColor("#c9d1de"), 0.8)
    small = font(8.5)
    painter.setFont(small)
    if page:
        y = MARGIN_TOP - 18
        painter.setPen(muted)
        painter.drawText(
            QRectF(MARGIN_X, y - 14, page_w - 2 * MARGIN_X, 14),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            report.title,
        )
        painter.setPen(line)
        painter.drawLine(int(MARGIN_X), int(y + 2), int(page_w - MARGIN_X), int(y + 2))
    y = page_h - MARGIN_BOTTOM + 22
    painter.setPen(line)
    painter.drawLine(int(MARGIN_X), int(y - 6), int(page_w - MARGIN_X), int(y - 6))
    painter.setPen(muted)
    box = QRectF(MARGIN_X, y, page_w - 2 * MARGIN_X, 14)
    painter.drawText(
        box, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), FOOTER_NOTICE
    )
    painter.drawText(
        box,
        int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
        f"bench-gui  ·  page {page + 1} of {pages}",
    )
    painter.restore()
