"""Twelve sessions with long names on A4 and Letter (issue 28): every table, figure and word
stays inside the page's margins with its words whole. An 11-column part of a wide table was
wider than the text with seed-like names: the writer broke every word of the brief to fit,
and tables of many columns as wide as the page reached a pixel or two into the margin.

Measured on the written PDF as rendered (``pdftoppm``, tests/report/margins.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMarginsF, QRectF
from PySide6.QtGui import QColor, QPageLayout, QPageSize, QPainter, QPdfWriter, QTextOption

from bench_gui.report import build_report, write_report
from bench_gui.report import pdf as pdf_writer
from bench_gui.store import SessionStore
from tests.report.fleet import seed_like_fleet
from tests.report.margins import margin_ink
from tests.report.test_pages import content_size


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_twelve_long_named_sessions_stay_inside_the_margins(
    store: SessionStore, tmp_path: Path, paper: str
) -> None:
    ids = seed_like_fleet(store, 12)
    report = build_report(store, ids, ids[0])
    content = content_size(paper)
    doc = pdf_writer.build_document(report, content)
    assert doc.defaultTextOption().wrapMode() == QTextOption.WrapMode.WordWrap
    assert doc.size().width() <= content.width()
    pdf = write_report(report, tmp_path / f"twelve-{paper}.pdf", page_size=paper)
    assert margin_ink(pdf) == []


def _band(path: Path, reach: float) -> Path:
    """An A4 page with a dark band from the left margin, ``reach`` CSS pixels wide."""
    writer = QPdfWriter(str(path))
    writer.setResolution(int(pdf_writer.LAYOUT_DPI))
    writer.setPageLayout(
        QPageLayout(
            QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait, QMarginsF()
        )
    )
    painter = QPainter(writer)
    painter.fillRect(QRectF(pdf_writer.MARGIN_X, 300, reach, 20), QColor("#1f2a3c"))
    painter.end()
    return path


def test_margin_ink_sees_a_band_past_the_margin(tmp_path: Path) -> None:
    """The measure itself: a band as wide as the text is inside, one 2 points wider is not."""
    text_width = content_size("a4").width()
    assert margin_ink(_band(tmp_path / "inside.pdf", text_width)) == []
    past = _band(tmp_path / "past.pdf", text_width + 2 * pdf_writer.LAYOUT_DPI / 72)
    assert margin_ink(past) == [(1, "right", 2)]
