"""The Compare page's report choices, its notes for the reader and for the author, the mark of
a sweep that never saturated, and a report of one session - over real stored sessions
(tests/report/fleet.py: seed 000's two arrays, an NVMe array still rising at 32 users, a SATA
mirror that saturates at its first step, a cloud volume nobody described...)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from bench_gui.core.economics import DevicePrice
from bench_gui.gui.pages.compare.export_options import ExportOptionsBox
from bench_gui.gui.pages.compare.page import ComparePage
from bench_gui.gui.widgets.report_notes import (
    APPENDIX,
    AUTHOR_HEADING,
    OMITTED,
    READER_HEADING,
)
from tests.report.fleet import fleet

pytestmark = pytest.mark.gui

NVME = "4 x Micron 7450 NVMe RAID 10"
UNDESCRIBED = "its storage was neither built by bench-gui nor described"
APPENDIX_TITLE = "Appendix: notes for the author"


@pytest.fixture
def page(qtbot: QtBot, store: Any) -> ComparePage:
    widget = ComparePage(store)
    qtbot.addWidget(widget)
    widget.resize(1700, 1000)
    return widget


def compared(page: ComparePage, ids: list[int]) -> ComparePage:
    page.refresh()
    page.set_checked(ids)
    assert page.set_baseline(ids[0])
    assert page.compare(), page.error_label.text()
    return page


def logo(tmp_path: Path) -> Path:
    path = tmp_path / "acme.png"
    image = QImage(120, 40, QImage.Format.Format_RGB32)
    image.fill(QColor("#c23b6b"))
    assert image.save(str(path))
    return path


def pdf_text(path: Path) -> str:
    done = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def pdf_page_size(path: Path) -> str:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True).stdout
    return next(line for line in info.splitlines() if line.startswith("Page size:"))


# ---- the options panel ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variable", "value", "paper"),
    [("LC_ALL", "en_US.UTF-8", "letter"), ("LANG", "de_DE.UTF-8", "a4"), ("LANG", "C", "a4")],
)
def test_paper_defaults_to_the_locale(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, paper: str
) -> None:
    for name in ("LC_ALL", "LC_PAPER", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, value)
    box = ExportOptionsBox()
    qtbot.addWidget(box)
    assert box.paper() == paper
    assert (box.latency(), box.author_notes()) == ("all", "omit")
    with pytest.raises(ValueError, match="no choice 'legal'"):
        box.set_paper("legal")


def test_export_uses_paper_cover_and_appendix(
    page: ComparePage, store: Any, tmp_path: Path
) -> None:
    hdd, ssd = fleet(store, 2)
    compared(page, [hdd, ssd])
    box = page.report_box
    box.set_cover("Acme Storage Labs", logo(tmp_path), "2026-11-24")
    box.set_paper("letter")
    letter = tmp_path / "letter.pdf"
    assert page.export_report(letter), page.error_label.text()
    assert pdf_page_size(letter).startswith("Page size:       612 x 792")
    text = pdf_text(letter)
    assert "Acme Storage Labs" in text
    assert "2026-11-24" in text
    assert APPENDIX_TITLE not in text
    # The cover is the author's: the comparison on show keeps its figures.
    assert page.report is not None
    assert not page.report.cover

    box.set_paper("a4")
    box.set_author_notes("appendix")
    a4 = tmp_path / "a4.pdf"
    assert page.export_report(a4)
    assert pdf_page_size(a4).startswith("Page size:       595")
    text = " ".join(pdf_text(a4).split())
    assert APPENDIX_TITLE in text
    assert "the hand-entered array cost $3,440 disagrees with unit price x count" in text


def test_a_bad_logo_or_date_is_named_and_nothing_written(
    page: ComparePage, store: Any, tmp_path: Path
) -> None:
    hdd, ssd = fleet(store, 2)
    compared(page, [hdd, ssd])
    target = tmp_path / "brief.html"
    page.report_box.set_cover("Acme", tmp_path / "missing.png", "")
    assert not page.export_report(target)
    assert "the logo" in page.error_label.text()
    assert "missing.png is not a file" in (page.error_label.text())
    notes = tmp_path / "notes.txt"
    notes.write_text("not an image")
    page.report_box.set_cover("Acme", notes, "")
    assert not page.export_report(target)
    assert "must be a PNG, JPEG or SVG image" in page.error_label.text()
    page.report_box.set_cover("Acme", "", "24/11/2026")
    assert not page.export_report(target)
    assert "the date is YYYY-MM-DD, got '24/11/2026'" in page.error_label.text()
    assert not target.exists()
    page.report_box.today_button.click()
    assert page.export_report(target)
    assert not page.error_label.isVisibleTo(page)


def test_response_time_scope_compares_again(
    qtbot: QtBot, page: ComparePage, store: Any, tmp_path: Path
) -> None:
    hdd, ssd = fleet(store, 2)
    compared(page, [hdd, ssd])
    assert page.charts["latency_avg"].spec is not None
    assert page.charts["latency_avg"].spec.title == "Average response time by user count"
    with qtbot.waitSignal(page.compared, timeout=10_000):
        page.report_box.set_latency("new-order")
    assert page.report is not None
    assert page.report.latency == "new_order"
    assert page.charts["latency_avg"].spec.title == (
        "Average New-Order response time by user count"
    )
    html = tmp_path / "new-order.html"
    assert page.export_report(html)
    assert "New-Order response time" in html.read_text()


# ---- notes for the reader, notes for the author -------------------------------------------------


def test_reader_and_author_notes_are_shown_apart(page: ComparePage, store: Any) -> None:
    ids = fleet(store, 5)
    compared(page, ids)
    reader = page.results.reader_label.text()
    author = page.notes_label.text()
    assert reader.startswith(READER_HEADING)
    assert f"{NVME} did not saturate within the range tested: not reached by 32 users" in reader
    assert "saturates at the first load tested (4 users)" in reader
    assert author.startswith(AUTHOR_HEADING)
    assert f"session {ids[4]} (Cloud volume gp3 3000 IOPS): {UNDESCRIBED}" in author
    # Nothing that speaks to the tool's user reaches the reader's box.
    for words in ("by hand", "bench-gui prices", "describe it", "session "):
        assert words not in reader
    page.clear_results()
    assert not page.results.report_notes.isVisibleTo(page)


def test_author_notes_are_acknowledged_before_export(
    qtbot: QtBot, page: ComparePage, store: Any, tmp_path: Path
) -> None:
    ids = fleet(store, 5)
    compared(page, ids)
    first = tmp_path / "first.html"
    # As the Export menu does once the file is chosen: the notes come first.
    page.export_button.report_file_chosen.emit(first)
    dialog = page.export_gate.dialog
    assert dialog is not None
    assert dialog.isVisible()
    assert page.report is not None
    assert dialog.notes.count("⚑") == len(page.report.author_notes) >= 5
    assert UNDESCRIBED in dialog.notes
    assert dialog.where_label.text() == OMITTED
    assert not first.exists()
    dialog.back_button.click()  # back, to fix them: nothing written
    assert page.export_gate.dialog is None
    assert not first.exists()

    dialog = page.export_gate.request(first)
    assert dialog is not None
    dialog.appendix_check.setChecked(True)
    assert dialog.where_label.text() == APPENDIX
    dialog.export_button.click()
    assert first.exists()
    assert page.report_box.author_notes() == "appendix"
    html = first.read_text()
    assert APPENDIX_TITLE in html
    assert UNDESCRIBED in html

    # Seen once for this comparison: the next export asks nothing, and omits them again.
    page.report_box.set_author_notes("omit")
    second = tmp_path / "second.html"
    assert page.export_gate.request(second) is None
    html = second.read_text()
    assert APPENDIX_TITLE not in html
    assert UNDESCRIBED not in html
    assert f"{NVME} did not saturate within the range tested" in html  # the reader's note

    # A new comparison has notes of its own: they are shown again.
    assert page.compare()
    third = page.export_gate.request(tmp_path / "third.html")
    assert third is not None
    third.reject()
    assert not (tmp_path / "third.html").exists()


def test_no_author_notes_no_dialog(page: ComparePage, store: Any, tmp_path: Path) -> None:
    nvme = fleet(store, 3)[2]
    # The fleet's NVMe devices have no price yet: with one, nothing is left for the author.
    store.add_device_price(
        DevicePrice("Micron 7450 PRO 3.84TB", 410.0, "USD", "2026-11-01", "distributor quote")
    )
    compared(page, [nvme])
    assert page.report is not None
    assert page.report.author_notes == []
    assert page.export_gate.request(tmp_path / "nvme.html") is None
    assert (tmp_path / "nvme.html").exists()


# ---- the chart of a sweep that never saturated, a report of one session -------------------------


def texts(chart: Any) -> list[str]:
    return [item.toPlainText() for item in chart._items if isinstance(item, pg.TextItem)]


def test_unsaturated_heaviest_load_is_marked_apart(page: ComparePage, store: Any) -> None:
    ids = fleet(store, 4)
    compared(page, ids)
    chart = page.charts["nopm"]
    assert chart.unsaturated_marks == {NVME: 32}
    assert NVME not in chart.saturation_marks
    assert chart.saturation_marks["2 x SATA SSD mirror"] == 4
    assert "not reached by 32 users" in texts(chart)
    assert "saturation 32" not in texts(chart)
    triangles = [
        item
        for item in chart._items
        if isinstance(item, pg.ScatterPlotItem) and item.opts["symbol"] == "t1"
    ]
    assert len(triangles) == 1
    assert "not saturated (heaviest load tested)" in chart.legend_label.text()
    # Seed 000 alone: both saturate, no triangle and no such legend entry.
    compared(page, ids[:2])
    chart = page.charts["nopm"]
    assert chart.unsaturated_marks == {}
    assert "not saturated" not in chart.legend_label.text()


def test_a_report_of_one_session(
    qtbot: QtBot, page: ComparePage, store: Any, tmp_path: Path
) -> None:
    ids = fleet(store, 3)
    page.refresh()
    page.set_checked([])
    assert not page.compare_button.isEnabled()
    assert not page.compare()
    assert "Tick at least one session" in page.error_label.text()
    said: list[str] = []
    page.status.connect(said.append)
    page.set_checked([ids[2]])
    assert page.compare_button.isEnabled()
    with qtbot.waitSignal(page.compared, timeout=10_000):
        page.compare_button.click()
    assert page.report is not None
    assert [s.id for s in page.report.comparison.sessions] == [ids[2]]
    assert said[-1].startswith("Report of ")
    assert said[-1].endswith(" alone")
    tabs = [page.tabs.tabText(i) for i in range(page.tabs.count())]
    assert tabs[0] == "Throughput"
    assert "Configuration" in tabs
    assert page.charts["nopm"].unsaturated_marks == {"PostgreSQL 16 on 4 x Micron 7450": 32}
    assert "not reached by 32 users" in page.results.reader_label.text()
    target = tmp_path / "one.html"
    page.report_box.set_author_notes("omit")
    assert page.export_gate.request(target) is not None  # the NVMe devices have no price
    page.export_gate.dialog.export_button.click()  # type: ignore[union-attr]
    assert "A TPROC-C sweep from" in target.read_text()


def test_the_author_names_sessions_and_the_page_compares_again(
    page: ComparePage, store: Any
) -> None:
    hdd, ssd = fleet(store, 2)
    compared(page, [hdd, ssd])
    box = page.report_box
    box.short_edit.setText(f"{ssd}=4 x S650DC; {hdd}=16 x 15K HDD")
    box.short_edit.editingFinished.emit()
    assert page.report is not None
    assert page.report.short == {hdd: "16 x 15K HDD", ssd: "4 x S650DC"}
    assert page.report.title.startswith("4 x S650DC vs 16 x 15K HDD")
    box.short_edit.setText(f"{ssd}")
    box.short_edit.editingFinished.emit()
    assert "a short name is ID=NAME" in page.error_label.text()


def test_the_configuration_tab_prints_shared_values_once_and_highlights_differences(
    qtbot: QtBot, page: ComparePage, store: Any
) -> None:
    """Issue 28: 'Hardware | Hardware', shared values in every column, nothing highlighted,
    the second column clipped at 1366."""
    hdd, ssd = fleet(store, 2)
    page.resize(1366, 768)
    page.show()
    compared(page, [hdd, ssd])
    assert "config_all" not in page.results.table_views  # the printed tables say it all
    view = page.results.table_views["config_platform"]
    table = view.table
    assert table is not None
    section = next(r for r, row in enumerate(table.rows) if row[0].tone == "section")
    assert view.columnSpan(section, 0) == 3  # "Hardware" once, across the row
    shared = next(r for r, row in enumerate(table.rows) if row[1].span == 2)
    assert view.columnSpan(shared, 1) == 2  # a value both sessions share, once
    differs = next(r for r, row in enumerate(table.rows) if row[1].tone == "diff")
    item = view.item(differs, 1)
    assert item is not None
    assert item.background().color().name() != "#000000"
    assert item.font().bold()
    widths = sum(view.columnWidth(c) for c in range(view.columnCount()))
    assert widths <= 3 * 280 + 1
