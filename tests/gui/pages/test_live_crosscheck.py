"""The Live page says when the database counts New-Orders the run's driver did not commit."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from pytestqt.qtbot import QtBot

from bench_gui.core.crosscheck import ANOTHER_LOAD
from bench_gui.core.plan_model import Plan
from bench_gui.gui.pages.live.page import LivePage
from bench_gui.wire.protocol import Event, decode_line, encode_event
from tests._fixtures.scripted import sweep_events

pytestmark = pytest.mark.gui

VUS = [8, 16]


def with_another_load(events: Iterable[Event]) -> list[Event]:
    """The same run with another load on its database: the database counts twice the New-Orders
    (every sample's ``nopm_db`` and every step's ``nopm``), the driver the same."""
    out = []
    for event in events:
        data = dict(event.data)
        if event.kind == "sample" and isinstance(data.get("nopm_db"), float):
            data["nopm_db"] *= 2
        if event.kind == "step" and data.get("phase") == "end":
            data["summary"] = {**data["summary"], "nopm": data["summary"]["nopm"] * 2}
        if event.kind == "summary":
            data["steps"] = [{**s, "nopm": s["nopm"] * 2} for s in data.get("steps", [])]
        out.append(decode_line(encode_event(event.kind, event.seq, event.t, **data)))
    return out


@pytest.fixture
def page(qtbot: QtBot) -> LivePage:
    widget = LivePage()
    qtbot.addWidget(widget)
    widget.resize(1600, 1000)
    widget.show()
    plan = Plan(name="shared server")
    plan.workload.virtual_users = list(VUS)
    plan.workload.rampup_s = 3
    plan.workload.duration_s = 5
    widget.begin_run(plan)
    return widget


def measuring(events: list[Event], step: int, elapsed: float) -> int:
    return next(
        i
        for i, e in enumerate(events)
        if e.kind == "sample" and e.get("step") == step and e.get("elapsed") == elapsed
    )


def test_the_nopm_tile_and_the_outcome_flag_another_load(page: LivePage) -> None:
    events = with_another_load(sweep_events(VUS, 3, 5))
    cut = measuring(events, 0, 6.0)  # three seconds into the first measured window
    for event in events[: cut + 1]:
        page.handle_event(event)
    page.refresh()
    detail = page.view.tile_nopm.detail_label.text()
    assert detail.startswith(f"⚑ {ANOTHER_LOAD}")
    assert page.view.tile_nopm.toolTip().startswith("NOPM doubtful: the database counted ")

    for event in events[cut + 1 :]:
        page.handle_event(event)
    page.run_finished("ok")
    page.refresh()
    banner = page.banner.text()
    assert "⚑ Step 1 (8 VU): NOPM doubtful" in banner
    assert banner.endswith(f"{ANOTHER_LOAD} (and 1 more step(s)).")


def test_a_clean_run_is_not_flagged(page: LivePage) -> None:
    events = sweep_events(VUS, 3, 5)  # the driver counts 99% of the database's orders
    for event in events:
        page.handle_event(event)
    page.run_finished("ok")
    page.refresh()
    assert "⚑" not in page.view.tile_nopm.detail_label.text()
    assert page.view.tile_nopm.toolTip() == ""
    assert "⚑" not in page.banner.text()
