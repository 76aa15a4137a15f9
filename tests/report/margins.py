"""Ink in a PDF report's side margins, read from its pages as rendered.

``pdftoppm`` (poppler) renders each page's two side margins (between the running header and
the footer) in grey at 72 dpi, one pixel a point; any pixel darker than paper there is a table
cell, a rule, a figure or a word that ran past the writer's margin (``MARGIN_X``). The pixel
column that the text area's edge falls in is the text area's: only the whole pixels beyond it
are margin.
"""

from __future__ import annotations

import math
import subprocess
import tempfile
from pathlib import Path

from bench_gui.report import pdf as pdf_writer

DPI = 72
PAPER = 245  # grey level from which a pixel counts as paper (the lightest cell shade is ~248)


def _pgm(path: Path) -> tuple[int, int, bytes]:
    """Width, height and pixels of a binary greyscale PGM (as pdftoppm writes it)."""
    data = path.read_bytes()
    fields: list[bytes] = []
    at = 0
    while len(fields) < 4:
        while data[at : at + 1].isspace():
            at += 1
        end = at
        while not data[end : end + 1].isspace():
            end += 1
        fields.append(data[at:end])
        at = end
    width, height = int(fields[1]), int(fields[2])
    return width, height, data[at + 1 :]


def margin_ink(pdf: Path) -> list[tuple[int, str, int]]:
    """Every page (from 1) and side ("left", "right") with ink in that margin, and how many
    pixel columns into the margin it reaches."""
    scale = DPI / pdf_writer.LAYOUT_DPI
    margin = math.floor(pdf_writer.MARGIN_X * scale)
    top = math.ceil(pdf_writer.MARGIN_TOP * scale)
    bottom = math.ceil(pdf_writer.MARGIN_BOTTOM * scale)
    found = []
    with tempfile.TemporaryDirectory() as folder:
        stem = Path(folder) / "p"
        subprocess.run(["pdftoppm", "-gray", "-r", str(DPI), str(pdf), str(stem)], check=True)
        for page, path in enumerate(sorted(Path(folder).glob("p-*.pgm")), 1):
            width, height, pixels = _pgm(path)
            for side, columns in (
                ("left", range(margin - 1, -1, -1)),
                ("right", range(width - margin, width)),
            ):
                depth = 0
                for n, x in enumerate(columns, 1):
                    if any(pixels[y * width + x] < PAPER for y in range(top, height - bottom)):
                        depth = n
                if depth:
                    found.append((page, side, depth))
    return found
