"""The Database page's OS knobs against this machine, for real: read them, type a value for
the run, the diff, apply, roll back, a value the kernel refuses, a preset, persisting only
after its own confirmation, the history.

Changed knobs are the read-ahead and the I/O scheduler of a loop device made for the test;
the machine's own sysctls are only read (a preset fills them in, nothing applies them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from bench_gui.core.plan_model import OsKnobs, Plan
from bench_gui.gui.pages.database.os_table import OS_STATUS, OS_WANTED
from bench_gui.gui.pages.database.page import DatabasePage
from bench_gui.gui.pages.workload.page import WorkloadPage

pytestmark = pytest.mark.gui
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="changing kernel knobs needs root")
WAIT_MS = 60_000


@pytest.fixture
def loop_device(tmp_path: Path) -> Iterator[str]:
    if not shutil.which("losetup"):
        pytest.skip("losetup is needed")
    image = tmp_path / "disk.img"
    with open(image, "wb") as fh:
        fh.truncate(16 * 1024 * 1024)
    dev = subprocess.run(
        ["losetup", "-f", "--show", str(image)], capture_output=True, text=True, check=True
    ).stdout.strip()
    name = Path(dev).name
    before = read_ahead(name)
    try:
        yield name
    finally:
        Path(f"/sys/block/{name}/queue/read_ahead_kb").write_text(before + "\n")
        subprocess.run(["losetup", "-d", dev], check=False)


def read_ahead(device: str) -> str:
    return Path(f"/sys/block/{device}/queue/read_ahead_kb").read_text().strip()


@pytest.fixture
def page(qtbot: QtBot, store: Any) -> Iterator[DatabasePage]:
    widget = DatabasePage(store, plan_provider=Plan)
    qtbot.addWidget(widget)
    widget.resize(1500, 1000)
    widget.show()
    widget.tabs.setCurrentWidget(widget.os_scroll)
    yield widget
    assert widget.shutdown(60)


def idle(qtbot: QtBot, page: DatabasePage) -> None:
    qtbot.waitUntil(lambda: not page.busy, timeout=WAIT_MS)


def click(qtbot: QtBot, page: DatabasePage, button: Any) -> None:
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    idle(qtbot, page)


def cell(page: DatabasePage, key: str, col: int) -> str:
    panel = page.os_panel
    item = panel.table.item(list(panel.knobs).index(key), col)
    assert item is not None
    return item.text()


@needs_root
def test_show_apply_and_roll_back(qtbot: QtBot, page: DatabasePage, loop_device: str) -> None:
    panel = page.os_panel
    assert panel.host_name() == "local"
    assert not panel.apply_button.isEnabled()
    panel.devices_edit.setText(f"/dev/{loop_device}")
    click(qtbot, page, panel.read_button)
    key = f"block.{loop_device}.read_ahead_kb"
    before = read_ahead(loop_device)
    assert panel.knobs[key].value == before
    ratio = Path("/proc/sys/vm/dirty_ratio").read_text().strip()
    assert panel.knobs["vm.dirty_ratio"].value == ratio
    assert "none" in cell(page, f"block.{loop_device}.scheduler", 3)
    if not Path("/proc/sys/kernel/sched_min_granularity_ns").exists():
        status = cell(page, "kernel.sched_min_granularity_ns", OS_STATUS)
        assert status.startswith("not on this kernel")
    assert f"data devices {loop_device}" in panel.host_note.text()
    assert "Nothing to change" in panel.diff_label.text()

    # The diff first: typed for the run, shown against the host's value.
    new = "4096" if before != "4096" else "2048"
    panel.set_wanted(key, new)
    assert panel.changes() == {key: new}
    assert f"{key}: {before} → {new}" in panel.diff_label.text()
    click(qtbot, page, panel.apply_button)
    assert panel.last_error == ""
    assert read_ahead(loop_device) == new
    assert f"Changed: {key}: {before} → {new}" in panel.result_label.text()
    assert page.message().startswith("Applied on this machine: 1 knob(s) changed")
    assert panel.knobs[key].value == new  # read again after the apply
    assert panel.changes() == {}
    assert panel.history_table.rowCount() == 1
    assert panel.rollback_button.isEnabled()

    click(qtbot, page, panel.rollback_button)
    assert read_ahead(loop_device) == before
    assert panel.result_label.text() == f"Restored: {key} = {before}."
    assert page.message().startswith("Rolled back #")
    assert panel.history_table.rowCount() == 2
    assert not panel.rollback_button.isEnabled()
    # What was typed for the run is kept: the diff shows it again.
    assert panel.changes() == {key: new}

    # A value the kernel refuses: nothing changes, the reason is shown.
    panel.set_wanted(key, "lots")
    click(qtbot, page, panel.apply_button)
    assert "Invalid argument" in panel.last_error
    assert page.message().startswith("Not applied: cannot apply")
    assert read_ahead(loop_device) == before


@needs_root
def test_a_preset_fills_the_run_column(qtbot: QtBot, page: DatabasePage, loop_device: str) -> None:
    panel = page.os_panel
    panel.devices_edit.setText(loop_device)
    click(qtbot, page, panel.read_button)
    panel.select_preset("micron-9300-linux")
    idle(qtbot, page)
    assert "seeds/003" in panel.preset_note.text()
    assert cell(page, f"block.{loop_device}.read_ahead_kb", OS_WANTED) == "2048"
    assert cell(page, "vm.dirty_ratio", OS_WANTED) == "40"
    assert cell(page, "kernel.sched_min_granularity_ns", OS_WANTED) == "10000000"
    changes = panel.changes()
    if not Path("/proc/sys/kernel/sched_min_granularity_ns").exists():
        assert "kernel.sched_min_granularity_ns" not in changes  # missing: left out, no error
        assert "Not on this kernel, left out: kernel.sched_min" in panel.diff_label.text()
    panel.select_preset("")
    assert cell(page, "vm.dirty_ratio", OS_WANTED) == ""


@needs_root
def test_persisting_needs_its_own_confirmation(
    qtbot: QtBot, page: DatabasePage, tmp_path: Path
) -> None:
    panel = page.os_panel
    panel.devices_edit.setText("none0")  # no such device: the sysctls are what matter here
    click(qtbot, page, panel.read_button)
    assert panel.knobs["block.none0.read_ahead_kb"].status == "missing"
    panel.persist_path = str(tmp_path / "90-bench-gui.conf")
    asked: list[str] = []
    panel.confirm = lambda _title, question: asked.append(question) is not None and False
    panel.set_wanted("vm.dirty_ratio", "40")
    panel.set_wanted("block.none0.read_ahead_kb", "2048")  # not a sysctl: never persisted
    assert not panel.persist_sysctls()
    assert "vm.dirty_ratio = 40" in asked[0]
    assert not Path(panel.persist_path).exists()
    panel.confirm = lambda _title, _question: True
    assert panel.persist_sysctls()
    idle(qtbot, page)
    text = Path(panel.persist_path).read_text()
    assert "vm.dirty_ratio = 40" in text
    assert "read_ahead_kb" not in text
    assert page.message().startswith("Persisted 1 sysctl(s)")


def test_the_plan_editor_edits_the_os_section(qtbot: QtBot) -> None:
    page = WorkloadPage(Plan(os=OsKnobs(preset="micron-9300-linux", knobs={"vm.swappiness": "1"})))
    qtbot.addWidget(page)
    assert page.os_preset_combo.currentData() == "micron-9300-linux"
    assert page.os_knobs_edit.toPlainText() == "vm.swappiness = 1"
    page.os_knobs_edit.setPlainText("vm.dirty_ratio = 10\n# a comment\nread_ahead_kb = 4096")
    page.os_devices_edit.setText("nvme0n1")
    plan = page.validated_plan()
    assert plan is not None
    assert plan.os.knobs == {"vm.dirty_ratio": "10", "read_ahead_kb": "4096"}
    assert plan.os.devices == ["nvme0n1"]
    page.os_knobs_edit.setPlainText("vm.dirty_ratio = lots\nnet.core.somaxconn = 1")
    assert page.validated_plan() is None
    error = page.field_error("os.knobs")
    assert "vm.dirty_ratio: must be a whole number, got 'lots'" in error
    assert "net.core.somaxconn: not a knob bench-gui knows" in error
    page.os_preset_combo.setCurrentIndex(0)
    page.os_knobs_edit.setPlainText("")
    page.os_devices_edit.setText("")
    plan = page.validated_plan()
    assert plan is not None
    assert "os" not in plan.to_dict()
