"""The Compare page over a real session store holding seed 000 and seed 003 sessions."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from bench_gui.gui.pages.compare.page import ComparePage
from bench_gui.gui.pages.compare.session_picker import ID_ROLE
from tests._fixtures.seed_sessions import (
    POWER_PRICE,
    TABLE1,
    build_seed000,
    build_seed003,
    store_session,
    sweep,
)

pytestmark = pytest.mark.gui


@pytest.fixture
def page(qtbot: QtBot, store: Any) -> ComparePage:
    widget = ComparePage(store)
    qtbot.addWidget(widget)
    widget.resize(1700, 1000)
    return widget


def test_compare_seed000(qtbot: QtBot, page: ComparePage, store: Any) -> None:
    hdd, ssd = build_seed000(store)
    page.refresh()
    assert page.session_list.count() == 2
    assert not page.compare_button.isEnabled()
    page.set_checked([hdd, ssd])
    assert page.compare_button.isEnabled()
    assert page.set_baseline(hdd)
    assert page.array_table.rowCount() == 2
    with qtbot.waitSignal(page.compared, timeout=5000):
        page.compare_button.click()
    assert not page.error_label.isVisibleTo(page)
    assert [t.value_text for t in page.tiles] == ["22X to 29X", "95% to 97%", "49% to 70%",
                                                  "29X", "15X to 19X"]  # fmt: skip
    tabs = [page.tabs.tabText(i) for i in range(page.tabs.count())]
    assert tabs == ["Throughput", "Response time", "Saturation", "Economics", "Repeatability",
                    "Configuration"]  # fmt: skip
    table = page.table_views["throughput"]
    assert {int(row[0]): row[5] for row in table.texts()} == TABLE1
    nopm = page.charts["nopm"]
    assert nopm.saturation_marks == {"HDD RAID 10": 48, "S650DC RAID 10": 48}
    assert set(page.charts) == {"nopm", "latency_avg", "latency_p999"}
    worst = page.table_views[f"economics_worst_{ssd}"].texts()
    assert worst[0][4] == "$0.17"
    assert worst[1][4] == "$2.52"
    assert "disagrees with unit price x count" in page.notes_label.text()
    assert page.export_button.isEnabled()


def test_thresholds_change_the_saturation_point(page: ComparePage, store: Any) -> None:
    hdd, ssd = build_seed000(store)
    page.refresh()
    page.set_checked([hdd, ssd])
    page.set_baseline(hdd)
    page.min_gain_spin.setValue(20)
    assert page.compare()
    assert page.charts["nopm"].saturation_marks == {"HDD RAID 10": 24, "S650DC RAID 10": 24}
    page.min_gain_spin.setValue(5)
    page.max_avg_spin.setValue(500)
    assert page.compare()
    assert page.charts["nopm"].saturation_marks["HDD RAID 10"] == 16  # 520 ms at 24 users


def test_prices_entered_on_the_page(page: ComparePage, store: Any) -> None:
    hdd, ssd = build_seed000(store, prices=False)
    page.refresh()
    page.set_checked([hdd, ssd])
    page.set_baseline(hdd)
    assert page.compare()
    assert "no price for device 'Micron S650DC 800GB'" in page.notes_label.text()
    assert not any(k.startswith("economics_") for k in page.table_views)
    page.set_array(ssd, unit_price=1262)
    page.set_array(hdd, unit_price=199, hand_cost=3440)
    assert page.compare()
    worst = page.table_views[f"economics_worst_{ssd}"].texts()
    assert (worst[0][4], worst[1][4]) == ("$0.17", "$2.52")
    assert store.device_prices() == []  # not saved yet
    assert page.save_prices()
    assert sorted(p.unit_price for p in store.device_prices()) == [199, 1262]
    assert store.run_array(hdd).hand_cost == 3440
    assert store.run_array(ssd) is None  # same as its stored layout: nothing to keep
    page.set_array(ssd, hand_cost="lots")  # type: ignore[arg-type]
    assert not page.compare()
    assert "must be numbers" in page.error_label.text()


def test_bad_input_is_explained(page: ComparePage, store: Any) -> None:
    hdd, ssd = build_seed000(store)
    points = [{"vus": 8, "nopm": 100, "avg": 2, "p999": 9}]
    running = store_session(
        store, "still going", sweep("PostgreSQL", {}, points)[:-2], finish=False
    )
    other = store_session(store, "other users", sweep("PostgreSQL", {}, [{**points[0], "vus": 96}]))
    page.refresh()
    page.set_checked([])  # one session alone makes a report (tests/gui/pages/test_compare_export)
    assert not page.compare()
    assert "Tick at least one session" in page.error_label.text()
    page.set_checked([hdd, running])
    page.set_baseline(hdd)
    assert not page.compare()
    assert f"session {running} (still going) is still running" in page.error_label.text()
    assert page.report is None
    assert not page.export_button.isEnabled()
    page.set_checked([hdd, other])
    page.set_baseline(hdd)
    assert page.compare()
    assert "shares no user count with the baseline" in page.notes_label.text()


def test_filter_keeps_ticked_sessions_visible(page: ComparePage, store: Any) -> None:
    hdd, ssd = build_seed000(store)
    store.add_tags(hdd, ["legacy"])
    page.refresh()
    page.set_checked([ssd])
    page.filter_edit.setText("legacy")
    hidden = {
        int(page.session_list.item(i).data(ID_ROLE)): page.session_list.item(i).isHidden()
        for i in range(page.session_list.count())
    }
    assert hidden == {hdd: False, ssd: False}  # ssd is ticked
    page.set_checked([])
    page.filter_edit.setText("legacy")
    page.apply_filter("legacy")
    assert page.session_list.item(0).isHidden() != page.session_list.item(1).isHidden()


def test_power_and_export(page: ComparePage, store: Any, tmp_path: Path) -> None:
    base, scaled = build_seed003(store)
    store.add_power_price(POWER_PRICE)
    page.refresh()
    assert page.power_spin.value() == pytest.approx(0.12)
    page.set_checked([base, scaled])
    page.set_baseline(base)
    assert page.compare()
    assert "Power" in [page.tabs.tabText(i) for i in range(page.tabs.count())]
    assert page.charts["power"].saturation_marks == {
        "2x 9300 PRO mirrored": 192,
        "4x 9300 PRO mirrored": 408,
    }
    assert page.table_views["saturation"].texts()[1][8] == "+35%"
    pdf = tmp_path / "seed003.pdf"
    assert page.export_report(pdf)
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    assert "35% more NOPM than 2x 9300 PRO mirrored at saturation" in text
    assert page.export_report(tmp_path / "seed003.html")
    charts = page.export_charts(tmp_path / "charts", "svg")
    assert [c.suffix for c in charts] == [".svg"] * 4
    assert not page.export_report(tmp_path / "seed003.docx")
    assert "a report file ends in" in page.error_label.text()


def test_main_window_has_the_compare_page(main_window: Any, store: Any) -> None:
    hdd, ssd = build_seed000(store)
    main_window.show_page("Compare")
    assert main_window.current_page_name() == "Compare"
    page = main_window.compare_page
    page.refresh()
    page.set_checked([hdd, ssd])
    page.set_baseline(ssd)  # any session can be the baseline
    assert page.compare()
    assert page.table_views["throughput"].texts()[0][5] == "-95%"
    assert "Compared 2 sessions" in main_window.face.status_label.text()
