"""The Sessions page over a real session store filled with real protocol events."""

from __future__ import annotations

from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from bench_gui.core.plan_model import Plan
from bench_gui.gui.pages.sessions.page import SessionsPage
from bench_gui.services.session_view import run_rows
from bench_gui.wire.protocol import Event
from tests._fixtures.scripted import capacity, latency_avg, sweep_events

pytestmark = pytest.mark.gui

Filled = tuple[Any, int, int]  # the store, the SSD run id, the HDD run id


def store_run(store: Any, name: str, events: list[Event], vus: list[int]) -> int:
    """Record a run the way the runner does: create, store every event, finish."""
    plan = Plan(name=name)
    plan.workload.virtual_users = vus
    plan.workload.rampup_s = 3
    plan.workload.duration_s = 5
    run_id: int = store.create_run(
        name=name,
        plan=plan.to_dict(),
        plan_toml=plan.to_toml(),
        target={"kind": "demo"},
        engine="postgresql",
    )
    for event in events:
        store.add_event(run_id, event)
    status = {"ok": "complete", "stopped": "incomplete"}[events[-1].get("status")]
    store.finish_run(run_id, status)
    return run_id


@pytest.fixture
def filled_store(store: Any) -> Filled:
    ssd = store_run(store, "SSD RAID 10", sweep_events([8, 16, 24], 3, 5), [8, 16, 24])
    hdd = store_run(
        store, "HDD RAID 10", sweep_events([8, 16, 24], 3, 5, stop_in_step=1), [8, 16, 24]
    )
    return store, ssd, hdd


@pytest.fixture
def page(qtbot: QtBot, filled_store: Filled) -> SessionsPage:
    widget = SessionsPage(filled_store[0])
    qtbot.addWidget(widget)
    widget.resize(1600, 1000)
    return widget


def test_sessions_are_listed_newest_first(page: SessionsPage) -> None:
    page.show()  # shown: the list is (re)loaded
    rows = page.row_texts()
    assert [r[0] for r in rows] == ["HDD RAID 10", "SSD RAID 10"]
    hdd, ssd = rows
    assert hdd[2:5] == ["◐ incomplete", "postgresql", "2"]
    assert ssd[2:5] == ["✔ complete", "postgresql", "3"]
    assert ssd[5] == f"{capacity(24):,.0f} NOPM"
    assert ssd[6] == "8, 16, 24 VU"
    assert hdd[6] == "8, 16 VU"
    assert ssd[1][:2] == "20"
    assert len(ssd[1]) == len("2026-01-01 12:00")
    assert "2 sessions" in page.subtitle.text()


def test_opening_a_session_shows_its_charts_and_steps(
    qtbot: QtBot, page: SessionsPage, filled_store: Filled
) -> None:
    _store, ssd, _hdd = filled_store
    page.show()
    assert not page.open_button.isEnabled()
    assert page.select_id(ssd)
    assert page.open_button.isEnabled()
    with qtbot.waitSignal(page.run_opened, timeout=1000) as blocker:
        page.open_button.click()
    assert blocker.args == [ssd]

    assert page.detail_title.text() == f"#{ssd}  SSD RAID 10"
    assert "PostgreSQL 16.4" in page.detail_info.text()
    x, y = page.time_chart.curves["nopm"].getData()
    assert len(x) == 3 * 8
    assert x[0] == 0.0
    assert y[-1] == pytest.approx(capacity(24))
    assert page.time_chart.marker_count == 3
    assert sorted(page.scaling_chart.values) == [8, 16, 24]
    assert page.scaling_chart.values[16][0] == pytest.approx(capacity(16))

    table = page.step_table
    assert table.rowCount() == 3
    assert table.cell_text(0, "Users") == "8"
    assert table.cell_text(2, "NOPM") == f"{capacity(24):,.0f}"
    assert table.cell_text(1, "Avg ms") == f"{latency_avg(16):.1f}"
    assert table.cell_text(1, "p99.9 ms") == f"{latency_avg(16) * 5:.1f}"
    assert table.cell_text(1, "Max ms") == f"{latency_avg(16) * 8:.1f}"
    assert table.cell_text(1, "Complete") == "yes"


def test_a_stopped_session_marks_its_partial_step(page: SessionsPage, filled_store: Filled) -> None:
    _store, _ssd, hdd = filled_store
    assert page.open_run(hdd)
    assert page.step_table.rowCount() == 2
    assert page.step_table.cell_text(1, "Complete") == "stopped"
    assert page.scaling_chart.partial == {16}


def test_refresh_picks_up_new_runs_and_keeps_the_selection(
    page: SessionsPage, filled_store: Filled
) -> None:
    store, ssd, _hdd = filled_store
    page.refresh()
    page.select_id(ssd)
    new = store_run(store, "NVMe", sweep_events([4], 1, 2), [4])
    page.refresh()
    assert [r[0] for r in page.row_texts()][0] == "NVMe"
    assert page.selected_id() == ssd
    assert {r.id for r in run_rows(store)} == {ssd, new, _hdd}


def test_unknown_session_shows_a_message(page: SessionsPage) -> None:
    assert not page.open_run(9999)
    assert page.error_label.isVisibleTo(page)
    assert "9999" in page.error_label.text()


def _message_place(chart: Any) -> tuple[float, float]:
    """Where an empty chart's message sits in its plot, as shares of its width and height."""
    (x0, x1), (y0, y1) = chart.plot.getViewBox().viewRange()
    at = chart._placeholder.pos()
    return (at.x() - x0) / (x1 - x0), (at.y() - y0) / (y1 - y0)


def test_a_session_without_samples_says_so_in_the_middle_of_its_charts(
    qtbot: QtBot, store: Any
) -> None:
    """Seen at 1280 x 720: a session whose samples were lost (its steps kept), and one that
    failed before its first event, put "No samples were stored with this session" at the top
    edge of the chart, half cut, once the chart ranged itself over its step markers; a
    random-read session without samples likewise."""
    from tests._fixtures.random_read_sessions import MULTIPLES, RAM, random_read_events

    vus = [8, 16, 24]
    lost = store_run(
        store, "samples lost", [e for e in sweep_events(vus, 3, 5) if e.kind != "sample"], vus
    )
    never = int(store.create_run("never ran", {}, "", {"kind": "demo"}, "postgresql"))
    store.finish_run(never, "failed", "cannot connect to the database")
    file = "/mnt/ssd/bench-gui-random-read.dat"
    plan = {"name": "random reads, samples lost", "workload": {"kind": "random_read"}}
    target = {"kind": "random_read", "host": "local", "file": file, "driver": ""}
    rr = int(store.create_run(plan["name"], plan, "", target, "fio"))
    ops = (210_000.0, 120_000.0, 60_000.0, 40_000.0, 35_000.0)
    for event in random_read_events(file, 33_000.0, ops, MULTIPLES, RAM):
        if event.kind != "sample":
            store.add_event(rr, event)
    store.finish_run(rr, "complete")
    page = SessionsPage(store)
    qtbot.addWidget(page)
    page.resize(1156, 900)
    page.show()
    qtbot.waitExposed(page)
    page.refresh()
    for run_id, kind in ((lost, "tproc_c"), (never, "tproc_c"), (rr, "random_read")):
        assert page.open_run(run_id)
        qtbot.wait(20)
        chart = page.detail.overviews[kind].time_chart
        assert chart.empty
        assert chart._placeholder.isVisible()
        assert chart._placeholder.textItem.toPlainText() == (
            "No samples were stored with this session"
        )
        x, y = _message_place(chart)
        assert x == pytest.approx(0.5, abs=0.01), (run_id, x)
        assert y == pytest.approx(0.5, abs=0.01), (run_id, y)
