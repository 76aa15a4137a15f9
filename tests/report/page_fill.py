"""How full each page of a PDF report is, read from the PDF's text positions.

``pdftotext -bbox`` (poppler) gives every word's box in points. A page's fill is how far down
its body (between the running header and the footer, the writer's margins) its lowest word
reaches, from 0 (nothing) to 1 (to the footer). A figure ends in its caption, which is text,
so a page that ends with a figure counts as full to its caption.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from bench_gui.report import pdf as pdf_writer

POINTS = 72.0
PAGE = re.compile(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', re.S)
WORD = re.compile(r'<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">')


def page_fills(pdf: Path) -> list[float]:
    """The fill of every page, in page order (0 to 1)."""
    done = subprocess.run(
        ["pdftotext", "-bbox", str(pdf), "-"], check=True, capture_output=True, text=True
    )
    scale = POINTS / pdf_writer.LAYOUT_DPI
    top_margin = pdf_writer.MARGIN_TOP * scale
    bottom_margin = pdf_writer.MARGIN_BOTTOM * scale
    fills = []
    for _width, height, body in PAGE.findall(done.stdout):
        top, bottom = top_margin, float(height) - bottom_margin
        lows = [float(y_max) for y_min, y_max in WORD.findall(body) if top <= float(y_min) < bottom]
        fills.append(max(0.0, (max(lows) - top) / (bottom - top)) if lows else 0.0)
    return fills


def sparse_pages(fills: list[float], least: float) -> list[int]:
    """Pages (numbered from 1) but the last that are filled less than ``least``."""
    return [i + 1 for i, fill in enumerate(fills[:-1]) if fill < least]
