"""The PDF report, laid out like the seeds' technical briefs, through Qt's offscreen renderer.

The body is rich text (a Jinja2 template rendered for QTextDocument's HTML subset) laid out
in 96-dpi units on pages of the chosen size (A4 or US Letter; by default the one of the
locale's territory); each page is then painted onto a QPdfWriter with a running header and a
footer (title, page number, the notice the report gives for its workload). Charts are embedded
as high-resolution images (about 270 dpi at their printed size); text stays text.

Words wrap at their boundaries only, so no table header breaks in the middle of a word; a
document that would then be wider than the page (a table with too many columns) falls back to
breaking long words rather than running off the page.
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import QMarginsF, QRectF, QSizeF, Qt, QUrl
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QPen,
    QTextBlock,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextOption,
    QTextTable,
)

from bench_gui import __version__
from bench_gui.report.charts import FONT_FAMILY, chart_image, ensure_app, font
from bench_gui.report.html import environment
from bench_gui.report.options import check_paper, default_paper
from bench_gui.report.wide import MAX_COLUMNS
from bench_gui.report.written import WrittenReport

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
    "section": "font-weight: 700; color: #13294b;",
    "label": "color: #4a5568;",
    "diff": "font-weight: 600; color: #5c4100;",
}
LOGO_HEIGHT = 28  # CSS pixels
# A table may reach this far into the margin (cell borders round up) before words break.
OVERFLOW_PX = 8.0
ROUNDING_PX = 3.0  # (see build_document)
MIN_COLUMNS = 6  # of a printed part, before words break: the shared columns and a session


def render_brief_html(report: WrittenReport, chart_width: int, columns: int = MAX_COLUMNS) -> str:
    """The rich text of the brief (QTextDocument's HTML subset, through its workload's
    template); a wide table is printed in parts of ``columns`` columns at most."""
    template = environment().get_template(report.brief_template)
    return template.render(
        r=report,
        tones=TONES,
        font=FONT_FAMILY,
        chart_width=chart_width,
        app_version=__version__,
        logo_height=LOGO_HEIGHT,
        columns=columns,
    )


def logo_image(report: WrittenReport) -> QImage | None:
    """The author's logo, or None; an unreadable image raises ValueError naming the file."""
    path = report.cover.logo
    if path is None:
        return None
    image = QImage(str(path))
    if image.isNull():
        raise ValueError(f"the logo {path} is not an image Qt can read (PNG, JPEG or SVG)")
    return image


def build_document(report: WrittenReport, content: QSizeF) -> QTextDocument:
    """The brief as a paginated QTextDocument (pages of ``content`` size, 96-dpi units)."""
    doc = QTextDocument()
    doc.setDocumentMargin(0)
    doc.setDefaultFont(font(11.5))
    doc.setUseDesignMetrics(True)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)  # never in the middle of a word
    doc.setDefaultTextOption(option)
    chart_width = int(content.width() * 0.8)
    for key, spec in report.charts.items():
        image = chart_image(spec, scale=3.0)
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"chart://{key}"), image)
    logo = logo_image(report)
    if logo is not None:
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl("logo://cover"), logo)
    # Laid out a little narrower than the text: a table of many columns as wide as the page
    # comes out up to ROUNDING_PX wider (each column's width rounds up), past the margin.
    doc.setPageSize(QSizeF(content.width() - ROUNDING_PX, content.height()))
    html = fit_columns(doc, report, chart_width, content.width())
    if doc.size().width() > content.width() + OVERFLOW_PX:
        # Something is wider than the page even with every word whole: break words instead.
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        doc.setDefaultTextOption(option)
        doc.setHtml(html)
    paginate(doc, content.height())
    return doc


def fit_columns(doc: QTextDocument, report: WrittenReport, chart_width: int, width: float) -> str:
    """Lay the brief out in ``doc`` so that every table fits ``width`` with its words whole;
    the rich text laid out. Long session names make an 11-column part wider than A4 or
    Letter: wide tables print in narrower parts, while that narrows the document."""
    html, was = "", math.inf
    for columns in range(MAX_COLUMNS, MIN_COLUMNS - 1, -1):
        narrower = render_brief_html(report, chart_width, columns)
        if narrower == html:
            continue  # no table that wide: try fewer columns
        doc.setHtml(narrower)
        now = doc.size().width()
        if now <= width:
            return narrower
        if now >= was:
            doc.setHtml(html)  # something else is that wide: parts no narrower than needed
            return html
        html, was = narrower, now
    return html


ALWAYS_BEFORE = QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore
AFTER = QTextFormat.PageBreakFlag.PageBreak_AlwaysAfter
OBJECT_CHAR = "\ufffc"  # an image's place in the text
MAX_SHRINK = 0.3  # a figure may lose this much of its height to stay with its table
# ...and this much when the other way, a break before it, would leave more than LEAVE_EMPTY
# of a page empty.
ROOMY_SHRINK = 0.4
# A table taller than this (of a page) with a header row, and no figure just above it, may run
# on over two pages (its header repeated) rather than leave more than LEAVE_EMPTY of a page
# empty, with RUN_ON_ROWS rows at least on each page; a shorter one always stays whole.
RUN_ON_TALL = 0.35
RUN_ON_ROWS = 2
LISTING_LINES = 6  # lines of a command listing kept together at a page break
LISTING_COLOR = QColor("#eef2f7")  # the listing's light background, for print (brief_qt.html.j2)
STANDALONE_TEXT = 0.12  # a heading and its text shorter than this go along with their figure
# A section's opening (heading and text) at least STANDALONE_TEXT tall stays where it is rather
# than move to the next page when moving it would leave more than this share of a page empty.
LEAVE_EMPTY = 0.3


# Qt lays text out in 1/64 px: a line it moved to the next page may start this much above it.
LAYOUT_SLACK = 1 / 32
CLIP_INSET = 1.0  # px (see write_pdf)


def _page(y: float, page_height: float) -> int:
    return int((y + LAYOUT_SLACK) // page_height)


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

    A break that would leave more than LEAVE_EMPTY of a page empty is avoided where it can
    be: a figure shrinks (up to ROOMY_SHRINK) to stay on that page with its table, a section's
    opening that stands on its own (STANDALONE_TEXT) stays at the bottom of the page while its
    figure starts the next, and a tall table with a header row runs on under its repeated
    header (RUN_ON_TALL, RUN_ON_ROWS).

    Only breaks set here are ever cleared again; the template's own breaks stay.
    """

    def __init__(self, doc: QTextDocument, page_height: float) -> None:
        self.doc = doc
        self.layout = doc.documentLayout()
        self.page_height = page_height
        self.ours: set[int] = set()
        self.our_tables: set[int] = set()  # tables this moved to a page of their own
        self.run_under: set[int] = set()  # tables this let run on under their figure
        self.figure_sizes: dict[int, tuple[float, float]] = {}  # as first laid out

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

    def figure_group(self, before: QTextBlock) -> QTextBlock | None:
        """Where a table's group starts when the figure just before it comes along: the
        figure, or the heading that opens it when the text between them is too short to
        stand alone at the bottom of a page; None without such a figure."""
        block = before
        if not block.isValid() or OBJECT_CHAR not in block.text():
            return None
        if QTextCursor(block).currentTable() is not None:
            return None
        if block.blockFormat().pageBreakPolicy() == ALWAYS_BEFORE:
            return None
        heading = self.group_start(block.previous(), self.page_of(block))
        if heading is None:
            return block
        if self.top(block) - self.top(heading) < self.page_height * STANDALONE_TEXT:
            return heading
        return block

    def shrink_figure(
        self,
        figure: QTextBlock,
        table: QTextTable | None,
        page: int | None = None,
        most: float = MAX_SHRINK,
    ) -> bool:
        """Make a figure smaller (by at most ``most`` of its height), as little as will do,
        so that it and the table just under it (if any) end on ``page`` (default: the
        figure's page); True when it worked."""
        offset = figure.text().find(OBJECT_CHAR)
        if offset < 0:
            return False
        cursor = QTextCursor(figure)
        cursor.setPosition(figure.position() + offset)
        cursor.setPosition(figure.position() + offset + 1, QTextCursor.MoveMode.KeepAnchor)
        fmt = cursor.charFormat().toImageFormat()
        width, height = fmt.width(), fmt.height()
        if not fmt.isValid() or width <= 0:
            return False
        if height <= 0:
            image = self.doc.resource(QTextDocument.ResourceType.ImageResource, QUrl(fmt.name()))
            if not isinstance(image, QImage) or image.isNull():
                return False
            height = width * image.height() / image.width()
        here = self.page_of_last_line(figure) if page is None else page

        def fits(scale: float) -> bool:
            fmt.setWidth(width * scale)
            fmt.setHeight(height * scale)
            cursor.setCharFormat(fmt)
            if self.page_of_last_line(figure) != here:
                return False
            if table is None:
                return True
            rect = self.layout.frameBoundingRect(table)
            top, bottom = (
                _page(rect.top(), self.page_height),
                _page(rect.bottom() - 1, self.page_height),
            )
            return top == bottom == here

        low, high = 1.0 - most, 1.0
        if not fits(low):
            fits(1.0)
            return False
        for _ in range(5):  # the largest scale that still fits, to within about 2%
            middle = (low + high) / 2
            if fits(middle):
                low = middle
            else:
                high = middle
        fits(low)
        return True

    def keep_with_figure(self, figure: QTextBlock, table: QTextTable, page: int) -> bool:
        """Bring a table and the figure above it onto one page: a smaller figure when that
        is enough for the table to end on ``page``, else both (with their heading) on the
        next page; True when either worked."""
        on_page = self.page_of_last_line(figure) == page
        if on_page and self.shrink_figure(figure, table):
            return True
        start = self.figure_group(figure)
        if start is None:
            return False
        # A break before the group would leave most of the page empty: smaller still.
        roomy = self.left_empty(start) > self.page_height * LEAVE_EMPTY
        if on_page and roomy and self.shrink_figure(figure, table, most=ROOMY_SHRINK):
            return True
        if on_page and roomy and self.run_on_under(figure, table):
            return True
        if on_page and roomy:
            # The figure (it carries its own caption) ends this page and its table starts
            # the next: moving both would leave more than LEAVE_EMPTY of this page empty.
            return False
        return self.try_break(start, table, figure)

    def run_on_under(self, figure: QTextBlock, table: QTextTable) -> bool:
        """Let a tall table run on under its figure (made smaller, up to MAX_SHRINK, if that
        makes room for it: a twelve-series legend is unreadable smaller) rather than take the
        figure to the next page and leave more than LEAVE_EMPTY of this one empty; True when
        it does."""
        if table.format().headerRowCount() < 1:
            return False
        for step in range(4):
            scale = 1.0 - MAX_SHRINK * step / 3
            if not self.scale_figure(figure, scale):
                return False
            rect = self.layout.frameBoundingRect(table)
            first = _page(rect.top(), self.page_height)
            if self.page_of_last_line(figure) == first and self.may_run_on(table, rect, first):
                self.run_under.add(table.firstPosition())
                return True
        self.scale_figure(figure, 1.0)
        return False

    def scale_figure(self, figure: QTextBlock, scale: float) -> bool:
        """Print a figure at ``scale`` of its width and height as laid out first."""
        offset = figure.text().find(OBJECT_CHAR)
        if offset < 0:
            return False
        cursor = QTextCursor(figure)
        cursor.setPosition(figure.position() + offset)
        cursor.setPosition(figure.position() + offset + 1, QTextCursor.MoveMode.KeepAnchor)
        fmt = cursor.charFormat().toImageFormat()
        key = figure.position() + offset
        if key not in self.figure_sizes:
            width, height = fmt.width(), fmt.height()
            if height <= 0 and width > 0:
                image = self.doc.resource(
                    QTextDocument.ResourceType.ImageResource, QUrl(fmt.name())
                )
                if isinstance(image, QImage) and not image.isNull():
                    height = width * image.height() / image.width()
            self.figure_sizes[key] = (width, height)
        width, height = self.figure_sizes[key]
        if not fmt.isValid() or width <= 0 or height <= 0:
            return False
        fmt.setWidth(width * scale)
        fmt.setHeight(height * scale)
        cursor.setCharFormat(fmt)
        return True

    def bottom_of(self, block: QTextBlock) -> float:
        return self.layout.blockBoundingRect(block).bottom()

    def try_break(
        self, start: QTextBlock, table: QTextTable, figure: QTextBlock | None = None
    ) -> bool:
        """Break before ``start`` if the table then sits on one page (with ``figure``, when
        given); else leave all as was. (A figure and a table too tall for one page together
        were moved on, page after page, each time leaving a heading alone on a page.)"""
        saved = []
        block = start
        for _ in range(6):
            if not block.isValid():
                break
            saved.append((block, block.blockFormat()))
            block = block.next()
        ours = set(self.ours)
        self.set_break(start)
        rect = self.layout.frameBoundingRect(table)
        page = _page(rect.top(), self.page_height)
        together = figure is None or self.page_of_last_line(figure) == page
        if page == _page(rect.bottom() - 1, self.page_height) and together:
            return True
        for item, fmt in saved:
            QTextCursor(item).setBlockFormat(fmt)
        self.ours = ours
        return False

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
                if self.heading_left_behind(previous, first):
                    return True
                with_figure = self.figure_group(previous)
                if with_figure is not None and first == last:
                    # A table pushed whole to the next page leaves its figure behind.
                    figure_page = self.page_of_last_line(previous)
                    if figure_page < first and self.keep_with_figure(previous, table, figure_page):
                        return True
                # A table taller than most of a page may run on over pages, but never from a
                # scrap at the bottom of one (its header and a row or two).
                scrap = (first + 1) * self.page_height - rect.top() < self.page_height * 0.25
                # A figure and a table too tall to share a page: the table may run on under
                # the figure rather than leave half of the figure's page empty.
                apart = (
                    with_figure is None
                    or table.firstPosition() in self.run_under
                    or not self.fit_together(previous, rect)
                )
                # Rather than leave its caption alone on the next page, or move on whole
                # and leave more than LEAVE_EMPTY of this one empty, a tall table sends rows on.
                room = (first + 1) * self.page_height - rect.top()
                if (
                    first != last
                    and apart
                    and (room > self.page_height * LEAVE_EMPTY or rect.height() > self.page_height)
                    and rect.height() > self.page_height * RUN_ON_TALL
                    and self.rows_run_on(table, first)
                ):
                    return True
                if (
                    first != last
                    and not (apart and self.may_run_on(table, rect, first))
                    and (rect.height() <= self.page_height * 0.8 or scrap)
                    and tfmt.pageBreakPolicy() != ALWAYS_BEFORE
                ):
                    if with_figure is not None and self.keep_with_figure(previous, table, first):
                        return True
                    start = self.group_start(previous, first)
                    if start is not None:
                        self.set_break(start)
                    else:
                        tfmt.setPageBreakPolicy(ALWAYS_BEFORE)
                        table.setFormat(tfmt)
                        self.our_tables.add(table.firstPosition())
                    return True
                block = self.doc.findBlock(table.lastPosition() + 1)
                previous = QTextBlock()
                continue
            fmt = block.blockFormat()
            if OBJECT_CHAR in block.text() and fmt.pageBreakPolicy() != ALWAYS_BEFORE:
                here = self.page_of(block)
                before = self.page_of(previous) if previous.isValid() else here
                if here != before:
                    # A figure pushed to the next page from a page it leaves mostly empty:
                    # smaller, it may fit there (with the table it introduces).
                    roomy = self.room_left(previous) > self.page_height * LEAVE_EMPTY
                    if roomy and self.shrink_figure(block, self.table_after(block), before):
                        return True
                    # Or alone, its table starting the next page.
                    if roomy and self.shrink_figure(block, None, before):
                        return True
                    # Else it takes its heading and text along, unless they stand on their own.
                    start = self.group_start(previous, before)
                    opening = self.bottom_of(previous) - self.top(start) if start else 0.0
                    if start is not None and not self.opening_stays(start, opening):
                        self.set_break(start)
                        return True
                elif self.page_of_last_line(block) != here:
                    # The caption (the figure's last line) would be left on the next page.
                    start = self.group_start(previous, here) if previous.isValid() else None
                    self.set_break(start if start is not None else block)
                    return True
            if self.is_listing(block) and not self.is_listing(block.previous()):
                moved = self.keep_listing_lines(block)
                if moved:
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
                if _page(top, self.page_height) != here or self.one_line_under(nxt, here):
                    start = self.group_start(previous, here)
                    self.set_break(start if start is not None else block)
                    return True
                first = self.section_start_alone(block) if fmt.headingLevel() == 2 else None
                if isinstance(first, QTextTable) and self.unmove(first, here):
                    return True
                if first is not None:
                    self.set_break(block)
                    if isinstance(first, QTextTable) and first.firstPosition() in self.our_tables:
                        # The table moved on its own before: it now goes with its heading.
                        tfmt = first.format()
                        tfmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_Auto)
                        first.setFormat(tfmt)
                        self.our_tables.discard(first.firstPosition())
                    return True
            previous = block
            block = block.next()
        return False

    def rows_run_on(self, table: QTextTable, first: int) -> bool:
        """A table that runs on from page ``first`` takes at least RUN_ON_ROWS of its rows
        along under its repeated header, never its caption alone (Table 5 at 12 sessions:
        its header and caption stood on a page, its rows all on the page before); True when
        rows were sent on."""
        header = table.format().headerRowCount()
        rows = list(range(header, table.rows() - 1))  # not the caption
        pages = [self.page_of(table.cellAt(row, 0).firstCursorPosition().block()) for row in rows]
        later = sum(1 for page in pages if page > first)
        if header < 1 or later >= RUN_ON_ROWS or len(rows) < 2 * RUN_ON_ROWS:
            return False
        # A break after the first cell of the row before moves the whole row on (a break
        # before a cell moves that cell only).
        block = table.cellAt(rows[-RUN_ON_ROWS] - 1, 0).lastCursorPosition().block()
        fmt = block.blockFormat()
        if fmt.pageBreakPolicy() == AFTER:
            return False
        fmt.setPageBreakPolicy(AFTER)
        QTextCursor(block).setBlockFormat(fmt)
        return True

    def one_line_under(self, block: QTextBlock, page: int) -> bool:
        """Whether only the first line of a paragraph of several is on ``page``, under its
        heading (at 12 sessions on Letter 'Throughput' and one line of its text ended page 1)."""
        lines = block.layout()
        if QTextCursor(block).currentTable() is not None or lines is None:
            return False
        if lines.lineCount() < 2 or OBJECT_CHAR in block.text():
            return False
        top = self.layout.blockBoundingRect(block).top()
        second = _page(top + lines.lineAt(1).y(), self.page_height)
        return self.page_of(block) == page and second != page

    def heading_left_behind(self, before: QTextBlock, page: int) -> bool:
        """A heading and its short opening (less than STANDALONE_TEXT of a page) that end a
        page while the table they introduce starts ``page`` go to that page with it (at 12
        sessions "Sessions compared" and its one sentence ended page 14, its table on 15);
        True when a break was set."""
        if not before.isValid() or OBJECT_CHAR in before.text():
            return False
        here = self.page_of_last_line(before)
        if here >= page:
            return False
        start = self.group_start(before, here)
        if start is None or start.blockFormat().pageBreakPolicy() == ALWAYS_BEFORE:
            return False
        if self.bottom_of(before) - self.top(start) >= self.page_height * STANDALONE_TEXT:
            return False
        self.set_break(start)
        return True

    def unmove(self, table: QTextTable, page: int) -> bool:
        """Clear the break this set before a table when, as the pages are now, the table
        fits whole on ``page`` (its heading's) without it: a break set earlier, before the
        fixes above it moved the page's content, would send a section to a new page and
        leave the page before it mostly empty; True when cleared."""
        if table.firstPosition() not in self.our_tables:
            return False
        tfmt = table.format()
        tfmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_Auto)
        table.setFormat(tfmt)
        rect = self.layout.frameBoundingRect(table)
        if (
            _page(rect.top(), self.page_height)
            == page
            == _page(rect.bottom() - 1, self.page_height)
        ):
            self.our_tables.discard(table.firstPosition())
            return True
        tfmt.setPageBreakPolicy(ALWAYS_BEFORE)
        table.setFormat(tfmt)
        return False

    def fit_together(self, figure: QTextBlock, rect: QRectF) -> bool:
        """Whether a figure and the table of ``rect`` under it fit on one page."""
        return self.bottom_of(figure) - self.top(figure) + rect.height() <= self.page_height

    def may_run_on(self, table: QTextTable, rect: QRectF, first: int) -> bool:
        """A tall table with a header row may run on to the next page (its header repeated
        there) rather than leave more than LEAVE_EMPTY of its first page empty, when at
        least RUN_ON_ROWS of its rows (besides its caption) are on each page."""
        if table.format().headerRowCount() < 1 or rect.height() <= self.page_height * RUN_ON_TALL:
            return False
        room = (first + 1) * self.page_height - rect.top()
        if room <= self.page_height * LEAVE_EMPTY:
            return False
        pages = [
            self.page_of(table.cellAt(row, 0).firstCursorPosition().block())
            for row in range(table.format().headerRowCount(), table.rows() - 1)  # not the caption
        ]
        before = sum(1 for page in pages if page == first)
        return before >= RUN_ON_ROWS and len(pages) - before >= RUN_ON_ROWS

    def room_left(self, block: QTextBlock) -> float:
        """The height left on the page of ``block``'s last line, under it."""
        if not block.isValid():
            return 0.0
        bottom = self.bottom_of(block)
        return (_page(bottom - 1, self.page_height) + 1) * self.page_height - bottom

    def opening_stays(self, heading: QTextBlock, opening: float) -> bool:
        """A section's opening this tall stands on its own at the bottom of a page: it
        stays there when moving it would leave more than LEAVE_EMPTY of the page empty."""
        if opening < self.page_height * STANDALONE_TEXT:
            return False
        return self.left_empty(heading) > self.page_height * LEAVE_EMPTY

    def left_empty(self, block: QTextBlock) -> float:
        """The height a page break before ``block`` would leave empty at its page's bottom."""
        top = self.top(block)
        return (_page(top, self.page_height) + 1) * self.page_height - top

    def table_after(self, block: QTextBlock) -> QTextTable | None:
        """The table that comes right after ``block`` (an empty paragraph between), or None."""
        nxt = block.next()
        for _ in range(2):
            if not nxt.isValid():
                return None
            table = QTextCursor(nxt).currentTable()
            if table is not None:
                return table
            if nxt.text().strip():
                return None
            nxt = nxt.next()
        return None

    @staticmethod
    def is_listing(block: QTextBlock) -> bool:
        """A line of a command listing (a paragraph on the listing's dark background)."""
        return block.isValid() and block.blockFormat().background().color() == LISTING_COLOR

    def keep_listing_lines(self, first: QTextBlock) -> bool:
        """A listing that runs on to another page keeps at least LISTING_LINES lines on each
        side: a short one goes whole to the next page (with its heading), a long one sends
        LISTING_LINES lines on; True when a break was set."""
        lines = []
        block = first
        while self.is_listing(block):
            lines.append(block)
            block = block.next()
        pages = [self.page_of(line) for line in lines]
        for i in range(1, len(lines)):
            if pages[i] == pages[i - 1]:
                continue
            before, after = i, len(lines) - i
            if after >= LISTING_LINES and before >= LISTING_LINES:
                continue
            whole = before < LISTING_LINES or before + after < 2 * LISTING_LINES
            target = lines[0] if whole else lines[len(lines) - LISTING_LINES]
            if target.blockFormat().pageBreakPolicy() == ALWAYS_BEFORE:
                return False
            start = self.group_start(lines[0].previous(), pages[0]) if whole else None
            self.set_break(start if start is not None else target)
            return True
        return False

    def section_start_alone(self, heading: QTextBlock) -> QTextTable | QTextBlock | None:
        """The section's first figure or data table when it is on a later page than the
        section's heading (and opening text) while all of it would fit on one page, else None."""
        here, start = self.page_of(heading), self.top(heading)
        block = heading.next()
        last_bottom = self.bottom_of(heading)  # of what comes before the figure or table
        for _ in range(12):
            if not block.isValid():
                return None
            table = QTextCursor(block).currentTable()
            if table is not None:
                rect = self.layout.frameBoundingRect(table)
                if table.columns() > 1:  # a data table (a formula or a message box has one)
                    if _page(rect.top(), self.page_height) == here:
                        return None
                    moved = table.format().pageBreakPolicy() == ALWAYS_BEFORE
                    if moved and table.firstPosition() not in self.our_tables:
                        return None  # the template's own break
                    # The table starts a page (moved here, or by Qt): what comes before it
                    # is the section's opening, to take along.
                    opening = last_bottom - start
                    if self.opening_stays(heading, opening):
                        return None
                    if rect.height() + opening <= self.page_height * 0.95:
                        return table
                    # A table that runs on over pages anyway starts under its heading.
                    tall = rect.height() > self.page_height * 0.8
                    return table if tall and opening < self.page_height * 0.25 else None
                last_bottom = rect.bottom()
                block = self.doc.findBlock(table.lastPosition() + 1)
                continue
            if block.blockFormat().headingLevel() == 2:
                return None  # the next section: this one has no figure or table
            if OBJECT_CHAR in block.text():
                if self.page_of(block) == here or self.opening_stays(heading, last_bottom - start):
                    return None
                fits = self.bottom_of(block) - start <= self.page_height * 0.95
                return block if fits else None
            last_bottom = self.bottom_of(block)
            block = block.next()
        return None


def paginate(doc: QTextDocument, page_height: float, rounds: int = 80) -> int:
    """Keep tables and headings together across page breaks; return the number of fixes."""
    paginator = _Paginator(doc, page_height)
    for count in range(rounds):
        if not paginator.fix_one():
            return count
    return rounds


def write_pdf(report: WrittenReport, path: Path, page_size: str | None = None) -> Path:
    """Write the brief as a PDF; ``page_size`` is ``letter`` or ``a4`` (default: the locale's)."""
    ensure_app()
    try:
        page_size = check_paper(page_size or default_paper())
    except ValueError:
        raise ValueError(
            f"page size must be one of {', '.join(PAGE_SIZES)}, got {page_size!r}"
        ) from None
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
            # Lines this page only touches (Qt moves a line to the next page to within
            # LAYOUT_SLACK) are not drawn: clipped away, their text still went into the PDF
            # ("Sessions compared" twice in its text, once hidden under page 15's last line).
            ctx.clip = clip.adjusted(0, CLIP_INSET, 0, -CLIP_INSET)
            layout.draw(painter, ctx)
            painter.restore()
    finally:
        painter.end()
    return path


def _decorate(
    painter: QPainter,
    report: WrittenReport,
    page: int,
    pages: int,
    page_w: float,
    page_h: float,
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
        box, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), report.footer_notice
    )
    painter.drawText(
        box,
        int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
        f"bench-gui  ·  page {page + 1} of {pages}",
    )
    painter.restore()
