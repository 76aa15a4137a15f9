"""The Live page's strip of driver hosts (issue 18): one card per host of a run on several
driver hosts, fed events shaped as that run sends them (merged by the functions the run uses,
see :func:`tests.services.test_live_hosts.two_host_events`); none for a run on one host."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from bench_gui.gui.pages.live.hosts_strip import HostCardView
from bench_gui.gui.pages.live.page import LivePage
from bench_gui.remote.ssh_transport import LINK_LOST, LINK_RESTORED
from bench_gui.services.live_hosts import CPU_WARNING
from bench_gui.wire.protocol import Event
from tests._fixtures.scripted import scripted_plan, sweep_events
from tests.services.test_live_hosts import two_host_events

pytestmark = pytest.mark.gui


@pytest.fixture
def page(qtbot: QtBot) -> LivePage:
    widget = LivePage()
    qtbot.addWidget(widget)
    widget.resize(1366, 700)
    widget.show()
    return widget


def feed(page: LivePage, events: list[Event]) -> None:
    page.begin_run(scripted_plan("two driver hosts", vus=(4, 8)))
    for event in events:
        page.handle_event(event)
    page.refresh()


def test_each_host_has_a_card(page: LivePage) -> None:
    events = two_host_events({"alpha": 42.0, "beta": 63.0})
    feed(page, events)
    strip = page.hosts_strip
    assert strip.isVisible()
    assert list(strip.cards) == ["alpha", "beta"]
    alpha, beta = strip.cards["alpha"], strip.cards["beta"]
    assert alpha.role_label.text() == "primary"
    assert alpha.role_label.toolTip() == "primary · database counters"
    assert beta.role_label.text() == "secondary"
    assert alpha.cpu_label.text() == "CPU 42%"
    assert beta.cpu_label.text() == "CPU 63%"
    last = {h["host"]: h for h in [e for e in events if e.kind == "sample"][-1].get("hosts")}
    nopm = f"{last['beta']['nopm_driver']:,.0f} NOPM"
    assert beta.figures_label.text().startswith("4 users  ·  ")
    assert nopm in beta.figures_label.text()
    assert beta.note_label.text().startswith("step 2  ·  ")
    for view in (alpha, beta):
        assert view.property("tone") == ""
        assert view.cpu_label.property("tone") == ""
    # A short row: the charts keep the page's height.
    assert strip.height() < 110
    assert page.view.board.height() > 300


def test_a_host_past_80_percent_is_flagged(page: LivePage) -> None:
    feed(page, two_host_events({"alpha": 30.0, "beta": 88.0}))
    beta = page.hosts_strip.cards["beta"]
    assert beta.cpu_label.text() == "CPU 88%"
    assert beta.cpu_label.property("tone") == "warning"
    assert beta.property("tone") == "warning"
    assert beta.note_label.text() == CPU_WARNING
    # The warning colour is what the user sees, not only a property.
    assert beta.cpu_label.palette().color(beta.cpu_label.foregroundRole()).name() == "#f1c21b"
    alpha = page.hosts_strip.cards["alpha"]
    assert alpha.property("tone") == ""
    assert alpha.cpu_label.palette().color(alpha.cpu_label.foregroundRole()).name() != "#f1c21b"


def test_link_notices_show_on_the_host_named(qtbot: QtBot, page: LivePage) -> None:
    feed(page, two_host_events({"alpha": 30.0, "beta": 30.0}))
    beta = page.hosts_strip.cards["beta"]
    # As RunController.on_notice would be wired: the signal, emitted (here from this thread).
    page.link_notice.emit("lost", f"driver host 'beta': {LINK_LOST}")
    assert beta.note_label.text() == "link lost · reconnecting"
    assert beta.property("tone") == "warning"
    assert LINK_LOST in beta.note_label.toolTip()
    assert page.hosts_strip.cards["alpha"].property("tone") == ""
    page.link_notice.emit("restored", f"driver host 'beta': {LINK_RESTORED}")
    assert beta.note_label.text() == "link restored"
    assert beta.note_label.property("tone") == "ok"
    assert beta.property("tone") == ""
    # A state the card has no words for is said, naming it, and changes no card.
    page.link_notice.emit("unplugged", "driver host 'beta': cable")
    assert "link state 'unplugged' of driver host 'beta'" in page.log_line.text()
    assert beta.note_label.text() == "link restored"


def test_a_host_lost_for_good(page: LivePage) -> None:
    feed(page, two_host_events({"alpha": 30.0, "beta": 30.0}, lose="beta"))
    beta = page.hosts_strip.cards["beta"]
    assert beta.note_label.text() == "host lost · the run fails"
    assert beta.property("tone") == "warning"


def test_a_single_host_run_shows_no_strip(page: LivePage) -> None:
    # A run on two hosts first, then one on one host: its strip goes.
    feed(page, two_host_events({"alpha": 30.0, "beta": 30.0}))
    assert page.hosts_strip.isVisible()
    page.run_finished("ok")
    feed(page, sweep_events((4, 8), 3, 5))
    page.link_notice.emit("lost", LINK_LOST)  # a one-host run's notice names no host
    page.run_finished("ok")
    assert not page.hosts_strip.isVisible()
    assert page.hosts_strip.cards == {}
    assert page.hosts_strip.findChildren(HostCardView) == []  # the old cards are gone


def test_a_new_run_replaces_the_cards(page: LivePage) -> None:
    feed(page, two_host_events({"alpha": 30.0, "beta": 30.0}))
    page.run_finished("ok")
    feed(page, two_host_events({"alpha": 85.0, "beta": 30.0}))
    views = page.hosts_strip.findChildren(HostCardView)
    assert sorted(v.name_label.text() for v in views) == ["alpha", "beta"]
    assert page.hosts_strip.cards["alpha"].property("tone") == "warning"
    assert page.view.tile_vus.value_text != ""
