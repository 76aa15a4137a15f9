"""The Compare page over stored random-read sessions (seed 004: a 7.2k disk and a Crucial m4
SSD, 16 GiB of RAM each; tests/_fixtures/random_read_sessions.py): the study's own view, its
"SSDs replace RAM" question, its export, and a mix of workloads refused."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTabWidget,
    QWidget,
)
from pytestqt.qtbot import QtBot

from bench_gui.core.economics import DevicePrice, ram_price
from bench_gui.gui.pages.compare.page import ComparePage
from bench_gui.wire.fio_sizes import GIB
from bench_gui.workloads.random_read.compare import compare_random_read, multiplier_text
from bench_gui.workloads.random_read.compare_results import RandomReadView
from bench_gui.workloads.random_read.economics import default_target, gib_number, ram_economics
from bench_gui.workloads.random_read.report_input import load_random_read
from tests._fixtures.random_read_sessions import HDD, SSD, seed004
from tests._fixtures.seed_sessions import build_seed000

pytestmark = pytest.mark.gui

TPROC_C_WORDS = re.compile(r"\b(NOPM|TPM|warehouses?|new[- ]order|TPROC)", re.IGNORECASE)


@pytest.fixture
def page(qtbot: QtBot, store: Any) -> ComparePage:
    widget = ComparePage(store)
    qtbot.addWidget(widget)
    widget.resize(1700, 1000)
    widget.show()
    return widget


def study_view(page: ComparePage) -> RandomReadView:
    """The random-read kit's view on the page (its ``compare_view``)."""
    view = page.compare_views["random_read"]
    assert isinstance(view, RandomReadView)
    return view


def compared(page: ComparePage, ids: list[int], baseline: int) -> ComparePage:
    page.refresh()
    page.set_checked(ids)
    assert page.set_baseline(baseline)
    assert page.compare(), page.error_label.text()
    return page


def shown_texts(root: QWidget) -> list[str]:
    """Every text a user can see on ``root``: labels, buttons, titles, tabs, cells, inputs."""
    out: list[str] = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisibleTo(root):
            continue
        out.append(widget.toolTip())
        if isinstance(widget, QLabel | QAbstractButton):
            out.append(widget.text())
        if isinstance(widget, QGroupBox):
            out.append(widget.title())
        if isinstance(widget, QLineEdit):
            out += [widget.text(), widget.placeholderText()]
        if isinstance(widget, QComboBox):
            out += [widget.itemText(i) for i in range(widget.count())]
        if isinstance(widget, QTabWidget):
            out += [widget.tabText(i) for i in range(widget.count())]
        if isinstance(widget, QTableWidget):
            for c in range(widget.columnCount()):
                head = widget.horizontalHeaderItem(c)
                out.append(head.text() if head is not None else "")
                for r in range(widget.rowCount()):
                    item = widget.item(r, c)
                    out.append(item.text() if item is not None else "")
    return [t for t in out if t]


def pdf_text(path: Path) -> str:
    done = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_study_view_shows_what_the_core_computes(page: ComparePage, store: Any) -> None:
    hdd, ssd = seed004(store)
    page.refresh()
    page.set_checked([hdd, ssd])
    # Random-read studies ticked: the study's view and inputs, none of the other workload's.
    assert page.views.currentWidget() is study_view(page)
    assert not page.stop_box.isVisibleTo(page)
    assert page.prices.ram_spin.isVisibleTo(page)
    assert not page.array_table.isVisibleTo(page)
    assert page.set_baseline(hdd)
    assert page.compare(), page.error_label.text()
    view = study_view(page)
    tabs = [view.tabs.tabText(i) for i in range(view.tabs.count())]
    assert tabs == ["Ops/s by size", "× raw IOPS", "Latency", "SSDs replace RAM", "The study"]

    expected = compare_random_read(load_random_read(store, [hdd, ssd]), hdd)
    rows = view.table_views["ops"].texts()
    assert len(rows) == len(expected.rows) == 5
    for shown, row in zip(rows, expected.rows, strict=True):
        hdd_point, ssd_point = row.points[hdd], row.points[ssd]
        ratio = row.ratios[ssd]
        assert hdd_point is not None
        assert ssd_point is not None
        assert ratio is not None
        assert shown[0] == f"{row.ram_ratio:g}x"
        assert shown[2:5] == [f"{hdd_point.ops_s:,.0f}", f"{ssd_point.ops_s:,.0f}", ratio.text]
    assert [r[4] for r in rows] == ["+19%", "68X", "259X", "277X", "277X"]

    multipliers = view.table_views["multiplier"].texts()
    for shown, row in zip(multipliers, expected.rows, strict=True):
        points = [row.points[hdd], row.points[ssd]]
        assert shown[1:] == [multiplier_text(p.multiplier or 0) for p in points if p]
    # The seed's own figures: at 2x and 4x RAM the SSD 4.45X and 3.15X, the disk 2.12X, 1.5X.
    assert [r[1:] for r in multipliers[3:]] == [["2.12X", "4.45X"], ["1.50X", "3.15X"]]

    # Ops/s by dataset size on a log scale (the disk stays visible), switched to linear.
    chart = view.charts["ops"]
    assert chart.log_y
    assert view.ops_values(0) == list(HDD["ops"])  # the baseline first
    assert view.ops_values(1) == list(SSD["ops"])
    view.linear_button.click()
    assert not chart.log_y
    assert chart.spec is not None
    assert chart.spec.key == "ops_linear"
    assert view.ops_values(1) == list(SSD["ops"])
    view.log_button.click()
    assert chart.log_y

    seen: list[str] = []
    for i in range(view.tabs.count()):  # every tab, as a user opens it
        view.tabs.setCurrentIndex(i)
        seen += shown_texts(page)
    assert any("to 3.15X (at 4x RAM) as many reads a second" in t for t in seen)
    assert any("SSDs replace RAM" in t for t in seen)
    assert [t for t in seen if TPROC_C_WORDS.search(t)] == []


def test_the_ram_question_follows_its_inputs(page: ComparePage, store: Any) -> None:
    hdd, ssd = seed004(store)
    compared(page, [hdd, ssd], hdd)
    question = study_view(page).ram_question
    study_view(page).tabs.setCurrentIndex(3)
    assert study_view(page).tabs.tabText(3) == "SSDs replace RAM"
    comparison = compare_random_read(load_random_read(store, [hdd, ssd]), hdd)
    target, dataset = default_target(comparison)  # as bench-gui compare's defaults
    assert (question.target(), question.dataset_bytes()) == (target, dataset) == (103_950, 64 * GIB)
    assert "no RAM price" in study_view(page).notes_label.text()

    page.prices.ram_spin.setValue(4.0)  # a RAM price typed in Prices: the cost follows at once
    report = page.report
    assert report is not None
    assert report.economics is not None
    assert report.economics.price is not None
    assert report.economics.price.per_gib == 4.0
    question.set_question(150_000, "1 TiB")
    report = page.report
    assert report is not None
    assert report.economics is not None
    assert (report.economics.target_ops_s, report.economics.dataset_bytes) == (150_000, 1 << 40)
    ram = DevicePrice("RAM per GiB", 4.0, "USD")
    expected = ram_economics(comparison, 150_000, 1 << 40, [ram])
    shown = study_view(page).table_views["ram_needed"].texts()
    assert [row[1] for row in shown] == [gib_number(n.ram_gib) for n in expected.needs]
    assert [row[4] for row in shown] == [n.cost_text for n in expected.needs]
    disk, ssd_need = expected.need(hdd), expected.need(ssd)
    assert disk.ram_gib > ssd_need.ram_gib  # the disk needs more RAM than the SSD
    assert any(expected.findings[0] in t for t in shown_texts(page))

    page.prices.ram_spin.setValue(8.0)  # twice the price, twice the cost
    report = page.report
    assert report is not None
    assert report.economics is not None
    costs = [n.cost for n in report.economics.needs]
    assert costs == [pytest.approx(2 * (n.cost or 0)) for n in expected.needs]

    assert page.save_prices(), page.error_label.text()  # kept in the price list
    kept = ram_price(store.device_prices())
    assert kept is not None
    assert (kept.per_gib, kept.entry.device) == (8.0, "RAM per GiB")

    question.set_question(150_000, "12 parsecs")  # named, and the answer on show stays
    assert "Dataset size '12 parsecs'" in page.error_label.text()
    assert page.report is report
    question.defaults_requested.emit()
    assert (question.target(), question.dataset_bytes()) == (target, dataset)
    assert not page.error_label.isVisibleTo(page)


def test_export_writes_the_studys_own_report(page: ComparePage, store: Any, tmp_path: Path) -> None:
    hdd, ssd = seed004(store)
    store.add_device_price(DevicePrice("DDR4 RDIMM 64GB", 240.0, "USD", "2026-11-01", "vendor"))
    compared(page, [hdd, ssd], hdd)
    study_view(page).ram_question.set_question(150_000, "1 TiB")
    report = page.report
    assert report is not None
    assert report.economics is not None
    need = report.economics.need(ssd)
    assert need.cost_text.startswith("$")

    # Through the export menu's path: the author's notes first, then the file.
    pdf = tmp_path / "study.pdf"
    dialog = page.export_gate.request(pdf)
    assert dialog is not None
    assert "more RAM than the dataset" in dialog.notes
    dialog.export_button.click()
    assert pdf.exists()
    for name in ("study.html", "study.csv", "study.json"):
        assert page.export_report(tmp_path / name), page.error_label.text()
    texts = {
        "pdf": " ".join(pdf_text(pdf).split()),
        # Without the embedded images (base64 may spell anything).
        "html": re.sub(r"data:[^\"')]+", "", (tmp_path / "study.html").read_text("utf-8")),
        "csv": (tmp_path / "study.csv").read_text(encoding="utf-8"),
        "json": (tmp_path / "study.json").read_text(encoding="utf-8"),
    }
    for fmt, text in texts.items():
        assert TPROC_C_WORDS.search(text) is None, (fmt, TPROC_C_WORDS.search(text))
        for figure in ("4.45X", "3.15X", "277X", f"{gib_number(need.ram_gib)} GiB"):
            assert figure in text, (fmt, figure)
    assert "150,000 ops/s from a 1 TiB dataset" in texts["pdf"]
    data = json.loads(texts["json"])
    assert data["workload"] == "random_read"
    assert data["ram_economics"]["target_ops_s"] == 150_000
    assert data["ram_economics"]["price_per_gib"] == pytest.approx(240 / 64)


def test_a_mix_of_workloads_is_refused(page: ComparePage, store: Any) -> None:
    hdd, ssd = seed004(store)
    sas, s650 = build_seed000(store)
    page.refresh()
    page.set_checked([sas, hdd])
    assert page.set_baseline(sas)
    # Said at once, and Compare refuses it: no crash, nothing on show, nothing to export.
    assert "random-read study" in page.error_label.text()
    assert not page.compare()
    message = page.error_label.text()
    assert page.error_label.isVisibleTo(page)
    assert f"session {sas} (HDD RAID 10 (16 x 15K SAS))" in message
    assert f"session {hdd} (HDD 7.2k 3TB)" in message
    assert page.report is None
    assert not page.export_button.isEnabled()

    page.set_checked([hdd, ssd])  # one workload again: the message goes, the study compares
    assert not page.error_label.isVisibleTo(page)
    assert page.set_baseline(hdd)
    assert page.compare()
    assert page.views.currentWidget() is study_view(page)

    page.set_checked([sas, s650])  # back to the transaction workload's view and inputs
    assert page.report is None
    assert page.views.currentWidget() is page.results
    assert page.stop_box.isVisibleTo(page)
    assert page.array_table.isVisibleTo(page)
    assert not page.prices.ram_spin.isVisibleTo(page)
    assert page.set_baseline(sas)
    assert page.compare(), page.error_label.text()
    assert "throughput" in page.table_views
