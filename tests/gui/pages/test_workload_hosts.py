"""The Workload page's driver hosts (issue 18): one host as before, or several saved SSH
targets with an even split, shares per host or the plan's own users per host, and a clock
limit; the first step's users per host in a hint; plans that round-trip with no loss; the
plan model's problems next to their field."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QAbstractButton
from pytestqt.qtbot import QtBot

from bench_gui.core.plan import load_plan, plan_from_toml
from bench_gui.core.plan_model import Plan
from bench_gui.gui.pages.workload.page import WorkloadPage

pytestmark = pytest.mark.gui

SERVER = '[target]\nkind = "postgresql"\nhost = "db1"\n[workload]\nvirtual_users = [24, 48]\n'
SAVED = ["lab-a", "lab-b", "lab-c"]
MULTI = """name = "Two driver hosts"
[target]
kind = "postgresql"
host = "db1.lab"
[driver]
targets = ["lab-b", "lab-a"]
share = [3, 1]
max_clock_offset_ms = 120
[workload]
virtual_users = [8, 16]
"""


def make_page(qtbot: QtBot, toml: str = SERVER, saved: list[str] | None = None) -> WorkloadPage:
    page = WorkloadPage(plan_from_toml(toml))
    qtbot.addWidget(page)
    page.resize(1500, 950)
    page.set_driver_targets(SAVED if saved is None else saved)
    page.show()
    return page


def click(qtbot: QtBot, button: QAbstractButton) -> None:
    """A click as the user's (the rows just shown may not be laid out yet for a mouse event
    at their centre)."""
    button.click()


def several(qtbot: QtBot, page: WorkloadPage, *names: str) -> None:
    """What a user does: Several hosts, then check the hosts."""
    hosts = page.target.hosts
    click(qtbot, hosts.several_radio)
    for name in names:
        check = hosts.row(name).check
        if not check.isChecked():
            click(qtbot, check)


def test_one_host_stays_as_it_was(qtbot: QtBot) -> None:
    page = make_page(qtbot)
    hosts = page.target.hosts
    assert hosts.one_radio.isChecked()
    assert page.driver_combo.isVisibleTo(page)
    assert not hosts.hosts_box.isVisibleTo(page)
    combo = page.driver_combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["This machine", *SAVED]
    combo.setCurrentIndex(combo.findData("lab-c"))
    plan = page.validated_plan()
    assert plan is not None
    assert (plan.driver.target, plan.driver.targets) == ("lab-c", [])
    assert plan.to_dict()["driver"] == {"target": "lab-c"}


def test_choosing_two_hosts_makes_a_plan_with_targets(qtbot: QtBot) -> None:
    page = make_page(qtbot)
    several(qtbot, page, "lab-a", "lab-b")
    hosts = page.target.hosts
    assert hosts.hosts_box.isVisibleTo(page)
    assert not page.driver_combo.isVisibleTo(page)
    assert not hosts.row("lab-a").share.isVisibleTo(page)  # an even split by default
    assert hosts.split_hint.text() == "Step 1: 24 users → lab-a 12, lab-b 12"
    page.vus_edit.setText("25,50")
    assert hosts.split_hint.text() == "Step 1: 25 users → lab-a 13, lab-b 12"
    plan = page.validated_plan()
    assert plan is not None
    assert plan.driver.targets == ["lab-a", "lab-b"]
    assert plan.driver.target == "lab-a"  # the primary
    assert (plan.driver.share, plan.driver.users) == ([], [])
    assert plan.driver.max_clock_offset_ms == 50
    assert plan.driver.step_splits(plan.workload.virtual_users) == [[13, 12], [25, 25]]
    assert "target" not in plan.to_dict()["driver"]


def test_the_one_host_chosen_becomes_the_primary(qtbot: QtBot) -> None:
    page = make_page(qtbot)
    page.driver_combo.setCurrentIndex(page.driver_combo.findData("lab-c"))
    several(qtbot, page, "lab-a")
    plan = page.validated_plan()
    assert plan is not None
    assert plan.driver.targets == ["lab-c", "lab-a"]


def test_the_first_host_checked_is_the_primary(qtbot: QtBot) -> None:
    page = make_page(qtbot)
    several(qtbot, page, "lab-c", "lab-a")
    hosts = page.target.hosts
    assert hosts.row("lab-c").role.text() == "primary"
    assert hosts.row("lab-a").role.text() == ""
    assert hosts.split_hint.text() == "Step 1: 24 users → lab-c 12, lab-a 12"
    click(qtbot, hosts.row("lab-c").check)  # unchecked, then checked again: last now
    click(qtbot, hosts.row("lab-c").check)
    assert hosts.row("lab-a").role.text() == "primary"
    plan = page.validated_plan()
    assert plan is not None
    assert plan.driver.targets == ["lab-a", "lab-c"]
    page.set_driver_targets(["lab-c", "lab-a", "lab-d"])  # a new list keeps the order
    assert hosts.chosen() == ["lab-a", "lab-c"]


def test_shares_make_a_plan_with_share(qtbot: QtBot) -> None:
    page = make_page(qtbot)
    several(qtbot, page, "lab-a", "lab-b", "lab-c")
    hosts = page.target.hosts
    hosts.split_combo.setCurrentIndex(hosts.split_combo.findData("share"))
    assert hosts.row("lab-a").share.isVisibleTo(page)
    hosts.row("lab-a").share.setValue(2)
    hosts.row("lab-c").share.setValue(0.5)
    hosts.clock_spin.setValue(200)
    assert hosts.split_hint.text() == "Step 1: 24 users → lab-a 14, lab-b 7, lab-c 3"
    plan = page.validated_plan()
    assert plan is not None
    assert plan.driver.share == [2.0, 1.0, 0.5]
    assert plan.driver.max_clock_offset_ms == 200
    assert plan.driver.step_splits([24, 48]) == [[14, 7, 3], [27, 14, 7]]


def test_bad_share_is_shown_next_to_its_field(qtbot: QtBot) -> None:
    page = make_page(qtbot)
    several(qtbot, page, "lab-a", "lab-b")
    hosts = page.target.hosts
    hosts.split_combo.setCurrentIndex(hosts.split_combo.findData("share"))
    hosts.row("lab-b").share.setValue(0)
    assert page.validated_plan() is None
    assert "must be one positive number per driver host" in page.field_error("driver.share")
    assert not page.general_error.isVisible()
    # Shares that leave a host without users in a step: the plan model names the host.
    hosts.row("lab-b").share.setValue(1)
    hosts.row("lab-a").share.setValue(100)
    assert "without any" in hosts.split_hint.text()
    assert page.validated_plan() is None
    assert "leave host 2 ('lab-b') without any" in page.field_error("driver.share")
    hosts.row("lab-a").share.setValue(3)
    assert page.validated_plan() is not None
    assert page.field_error("driver.share") == ""


def test_one_checked_host_or_none_is_shown_at_the_hosts(qtbot: QtBot) -> None:
    page = make_page(qtbot)
    several(qtbot, page, "lab-a")
    assert page.validated_plan() is None
    assert "check two or more hosts" in page.field_error("driver.targets")
    click(qtbot, page.target.hosts.row("lab-a").check)
    assert page.validated_plan() is None
    assert "two or more" in page.field_error("driver.targets")


def test_a_multi_host_plan_saves_back_identical(qtbot: QtBot, tmp_path: Path) -> None:
    original = tmp_path / "multi.toml"
    original.write_text(plan_from_toml(MULTI).to_toml(), encoding="utf-8")
    page = make_page(qtbot, saved=["lab-a", "lab-b"])
    assert page.load_plan_file(original)
    hosts = page.target.hosts
    assert hosts.several_radio.isChecked()
    assert hosts.chosen() == ["lab-b", "lab-a"]  # the plan's order: lab-b is the primary
    assert hosts.split == "share"
    assert hosts.row("lab-b").share.value() == 3
    assert hosts.clock_spin.value() == 120
    assert hosts.split_hint.text() == "Step 1: 8 users → lab-b 6, lab-a 2"
    saved = tmp_path / "saved.toml"
    assert page.save_plan_file(saved)
    assert saved.read_text(encoding="utf-8") == original.read_text(encoding="utf-8")
    assert load_plan(saved) == load_plan(original)


def test_a_plan_of_users_per_host_is_kept(qtbot: QtBot, tmp_path: Path) -> None:
    text = MULTI.replace("share = [3, 1]", "users = [[5, 3], [10, 6]]")
    text = text.replace("max_clock_offset_ms = 120", "max_clock_offset_ms = 12.5")
    plan = plan_from_toml(text)
    page = make_page(qtbot, text, saved=["lab-a", "lab-c"])  # lab-b is not saved here
    hosts = page.target.hosts
    assert hosts.split == "users"
    assert hosts.row("lab-b").check.text() == "lab-b (not saved)"
    assert "step 2: lab-b 10, lab-a 6" in hosts.users_label.text()
    assert hosts.users_label.isVisibleTo(page)
    assert hosts.split_hint.text() == "Step 1: 8 users → lab-b 5, lab-a 3"
    assert page.validated_plan() == plan
    path = tmp_path / "users.toml"
    assert page.save_plan_file(path)
    assert path.read_text(encoding="utf-8") == plan.to_toml()
    # The users are for lab-b and lab-a: other hosts need another split.
    click(qtbot, hosts.row("lab-c").check)
    assert page.validated_plan() is None
    assert "for lab-b, lab-a" in page.field_error("driver.users")


def test_switching_back_to_one_host_gives_target_only(qtbot: QtBot) -> None:
    page = make_page(qtbot, MULTI)
    click(qtbot, page.target.hosts.one_radio)
    assert page.driver_combo.isVisibleTo(page)
    assert page.driver_combo.isEnabled()
    plan = page.validated_plan()
    assert plan is not None
    assert (plan.driver.target, plan.driver.targets) == ("lab-b", [])
    assert plan.to_dict()["driver"] == {"target": "lab-b"}
    assert plan == plan_from_toml(
        MULTI.split("[driver]")[0]
        + '[driver]\ntarget = "lab-b"\n[workload]\nvirtual_users = [8, 16]\n'
    )


def test_the_demo_and_a_random_read_study_have_one_host(qtbot: QtBot) -> None:
    page = make_page(qtbot, MULTI)
    hosts = page.target.hosts
    page.demo_radio.setChecked(True)
    assert hosts.one_radio.isChecked()
    assert not hosts.several_radio.isEnabled()
    plan = page.validated_plan()
    assert plan is not None
    assert plan.driver == Plan().driver
    page.pg_radio.setChecked(True)
    assert hosts.several_radio.isEnabled()
    page.workload_kind_combo.setCurrentIndex(page.workload_kind_combo.findData("random_read"))
    assert not hosts.several_radio.isEnabled()
    assert not hosts.mode_row.isVisibleTo(page)


def test_os_knobs_on_several_hosts_name_their_host(qtbot: QtBot) -> None:
    """One driver host is taken to be the database host; of several, none is: the OS knobs'
    host field says it is needed, and an empty one is an error beside it."""
    page = make_page(qtbot)
    host_edit = page.os_section.host_edit
    assert "driver host" in host_edit.placeholderText()
    page.os_section.preset_combo.setCurrentIndex(1)
    several(qtbot, page, "lab-a", "lab-b")
    assert host_edit.placeholderText().startswith("required with several driver hosts")
    assert page.validated_plan() is None
    assert "with several driver hosts, name the host" in page.field_error("os.host")
    host_edit.setText("lab-c")
    plan = page.validated_plan()
    assert plan is not None
    assert plan.os.host == "lab-c"
    click(qtbot, page.target.hosts.one_radio)  # one host again: the field may stay empty
    assert "driver host" in host_edit.placeholderText()
    assert not host_edit.placeholderText().startswith("required")
    # A plan of several hosts loaded from a file says it at once.
    page.set_plan(plan_from_toml(MULTI))
    assert host_edit.placeholderText().startswith("required with several driver hosts")


def test_a_plan_s_outage_limit_is_kept(qtbot: QtBot) -> None:
    """driver.max_outage_s is not on the page: a plan's own value goes through it unchanged."""
    text = MULTI.replace(
        "max_clock_offset_ms = 120", "max_clock_offset_ms = 120\nmax_outage_s = 30"
    )
    page = make_page(qtbot, text)
    plan = page.validated_plan()
    assert plan is not None
    assert plan.driver.max_outage_s == 30.0
    assert plan == plan_from_toml(text)
