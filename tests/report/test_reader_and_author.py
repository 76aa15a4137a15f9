"""Who a note is for (issue 14): page 1 speaks to the reader; what the author must fix goes to
the command line and the Compare page, and into the document only as an appendix kept on
purpose. A data inconsistency the reader must know (seed 000's $3,440 against 16 x $199) stays,
in the reader's words."""

from __future__ import annotations

import subprocess
import unicodedata
from pathlib import Path

import pytest

from bench_gui.report import build_report, write_report
from bench_gui.report.html import render_html
from bench_gui.report.options import ReportOptions
from bench_gui.store import SessionStore
from tests._fixtures.seed_sessions import build_seed000, store_session, sweep
from tests.report.fleet import PG16, points

AUTHOR_WORDS = ("Read this first", "by hand", "price list (", "add it to the price list")


def pdf_pages(path: Path) -> list[str]:
    text = subprocess.run(
        ["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout
    text = unicodedata.normalize("NFKC", text)  # the "fi" ligature read back as "fi"
    return [" ".join(page.split()) for page in text.split("\f") if page.strip()]


@pytest.fixture
def unpriced(store: SessionStore) -> tuple[int, int, int]:
    """Seed 000, and a session nobody priced or inventoried (the author has work to do)."""
    hdd, ssd = build_seed000(store)
    bare = store_session(
        store, "Bare", sweep(PG16, {}, points([(8, 900, 3, 30), (16, 1500, 4, 40)]))
    )
    return hdd, ssd, bare


def test_page_one_speaks_to_the_reader(
    store: SessionStore, unpriced: tuple[int, int, int], tmp_path: Path
) -> None:
    hdd, ssd, bare = unpriced
    r = build_report(store, [hdd, ssd, bare], hdd)
    warnings = list(r.author_notes)
    assert any(
        f"session {bare} (Bare): the array is unknown" in w and "by hand" in w for w in warnings
    )
    assert any(f"session {bare} (Bare): no hardware inventory" in w for w in warnings)
    assert any(f"session {bare} (Bare): its storage was neither built" in w for w in warnings)
    pages = pdf_pages(write_report(r, tmp_path / "brief.pdf", page_size="a4"))
    for words in AUTHOR_WORDS:
        assert words not in " ".join(pages), words
    assert "Notes on the figures" in pages[0]
    assert (
        "The HDD RAID 10 array cost used below, $3,440, was given by the author and disagrees"
        " with its unit price x count ($199 x 16 = $3,184); the economics use $3,440."
    ) in pages[0]
    assert "Appendix: notes for the author" not in " ".join(pages)
    html = render_html(r)
    assert "Read this first" not in html
    assert "Notes on the figures" in html
    assert "by hand" not in html


def test_the_author_may_keep_the_notes_in_an_appendix(
    store: SessionStore, unpriced: tuple[int, int, int], tmp_path: Path
) -> None:
    hdd, ssd, bare = unpriced
    r = build_report(store, [hdd, ssd, bare], hdd, options=ReportOptions(author_notes="appendix"))
    pages = pdf_pages(write_report(r, tmp_path / "kept.pdf", page_size="letter"))
    assert "by hand" not in pages[0]
    assert "Appendix: notes for the author" in pages[-1]
    assert f"session {bare} (Bare): the array is unknown" in pages[-1]
    assert "Appendix: notes for the author" in render_html(r)
    with pytest.raises(ValueError, match="author notes are 'omit' or 'appendix', got 'end'"):
        ReportOptions(author_notes="end")


def test_no_author_notes_no_appendix(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    store.set_run_array(hdd, None)  # the $3,440 hand cost gone: nothing left to flag
    r = build_report(store, [hdd, ssd], hdd, options=ReportOptions(author_notes="appendix"))
    assert list(r.author_notes) == []
    assert r.reader_notes == []
    assert not r.keeps_author_notes
