"""The Storage page on this machine's real loop devices: scan, evidence, plan, confirm, apply.

Root only (loop devices); CI runs as root. Every loop device is detached in the fixture's
teardown, whatever the test did.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from bench_gui.gui.pages.storage import StoragePage
from tests._fixtures.loop import command_of, held_open, signature

pytestmark = [
    pytest.mark.gui,
    pytest.mark.skipif(os.geteuid() != 0, reason="loop devices need root"),
]

WAIT_MS = 90_000


@pytest.fixture
def loop_pair(tmp_path: Path) -> Iterator[tuple[str, str, Path]]:
    """A free loop device and a mounted one (with its mount point)."""
    devices: list[str] = []
    busy = tmp_path / "busy"
    busy.mkdir()
    try:
        for i in range(2):
            image = tmp_path / f"d{i}.img"
            with open(image, "wb") as fh:
                fh.truncate(512 << 20)
            out = subprocess.run(
                ["losetup", "-f", "--show", str(image)], capture_output=True, text=True, check=True
            )
            devices.append(out.stdout.strip())
        subprocess.run(["mkfs.ext4", "-q", devices[1]], check=True)
        subprocess.run(["mount", devices[1], str(busy)], check=True)
        yield devices[0], devices[1], busy
    finally:
        for point in (tmp_path / "vol", busy):
            subprocess.run(["umount", "-l", str(point)], capture_output=True, check=False)
        for dev in devices:
            subprocess.run(["losetup", "-d", dev], check=False)


@pytest.fixture
def page(qtbot: QtBot, data_dir: Path) -> Iterator[StoragePage]:
    widget = StoragePage(folder=data_dir)
    qtbot.addWidget(widget)
    widget.resize(1700, 1000)
    widget.show()
    yield widget
    assert widget.shutdown(60)


def wait_idle(qtbot: QtBot, page: StoragePage) -> None:
    qtbot.waitUntil(lambda: page.task is None, timeout=WAIT_MS)


def accept_unreadable(page: StoragePage) -> None:
    """Tick the override for an incomplete process scan, when the page offers it (in a
    sandbox some processes cannot be read even by root)."""
    if not page.run.unreadable_check.isHidden():
        assert "could not be read" in page.check_label.text()
        page.run.unreadable_check.setChecked(True)


def row_of(page: StoragePage, path: str) -> int:
    for row in range(page.device_table.rowCount()):
        item = page.device_table.item(row, 0)
        if item is not None and item.data(Qt.ItemDataRole.UserRole) == path:
            return row
    raise AssertionError(f"{path} is not in the table")


def test_scan_shows_devices_and_the_evidence_of_use(
    qtbot: QtBot, page: StoragePage, loop_pair: tuple[str, str, Path]
) -> None:
    free, busy, point = loop_pair
    assert page.target_name() == "local"
    assert page.scan()
    assert not page.scan_button.isEnabled()
    wait_idle(qtbot, page)
    use_col = page.device_table.columnCount() - 1
    busy_row = row_of(page, busy)
    assert page.device_table.item(busy_row, use_col).text().startswith("In use: mounted")
    assert f"is mounted on {point}" in page.device_table.item(busy_row, use_col).toolTip()
    assert page.device_table.item(row_of(page, free), use_col).text() == "Free"
    page.device_table.selectRow(busy_row)
    assert "cannot be opened exclusively" in page.evidence_label.text()

    # Ticking the busy device: the plan is shown, refused with the evidence, nothing can run.
    page.point_edit.setText("/mnt/bench-gui-never")
    page.tick(busy)
    page.confirm_edit.setText(Path(busy).name)
    assert f"blkdiscard --verbose -- {busy}" in page.plan_text.toPlainText()
    assert "Refused" in page.check_label.text()
    assert "mounted on" in page.check_label.text()
    assert not page.apply_button.isEnabled()


def test_apply_after_typing_the_names_then_tear_down(
    qtbot: QtBot, page: StoragePage, loop_pair: tuple[str, str, Path], tmp_path: Path
) -> None:
    free, _busy, _point = loop_pair
    page.scan()
    wait_idle(qtbot, page)
    page.tick(free)
    page.point_edit.setText(str(tmp_path / "vol"))
    page.owner_edit.setText("")
    page.fs_combo.setCurrentIndex(page.fs_combo.findData("xfs"))
    assert page.current_layout is not None
    plan = page.plan_text.toPlainText()
    assert f"mkfs.xfs -K -- {free}" in plan
    assert f"mount -t xfs -o noatime -- {free} {tmp_path / 'vol'}" in plan
    accept_unreadable(page)
    assert "no device is in use" in page.check_label.text()

    assert not page.apply_button.isEnabled()
    page.confirm_edit.setText("loop99")
    assert not page.apply_button.isEnabled()
    page.confirm_edit.setText(Path(free).name)
    assert page.apply_button.isEnabled()

    applied: list[dict[str, Any]] = []
    page.layout_applied.connect(applied.append)
    qtbot.mouseClick(page.apply_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.banner.tone() == "ok", timeout=WAIT_MS)
    wait_idle(qtbot, page)  # the rescan that follows
    assert "Built:" in page.banner.text()
    log = page.log_view.toPlainText()
    assert f"$ blkdiscard --verbose -- {free}" in log
    assert "$ mkfs.xfs" in log
    assert applied
    assert applied[0]["filesystem"]["type"] == "xfs"
    assert page.progress_bar.value() == 1000
    assert page.plan_mode.currentData() == "teardown"

    page.confirm_edit.setText(free)
    assert page.teardown_button.isEnabled()
    qtbot.mouseClick(page.teardown_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Taken down" in page.banner.text(), timeout=WAIT_MS)
    wait_idle(qtbot, page)
    use_col = page.device_table.columnCount() - 1
    assert page.device_table.item(row_of(page, free), use_col).text() == "Free"


def test_layout_errors_name_the_field(page: StoragePage) -> None:
    page.level_combo.setCurrentIndex(page.level_combo.findData("10"))
    page.point_edit.setText("/")
    assert page.current_layout is None
    text = page.layout_errors.text()
    assert "mount.point" in text
    assert "devices" in text
    assert not page.apply_button.isEnabled()


def test_a_device_held_open_by_a_process_is_shown_and_refused(
    qtbot: QtBot, page: StoragePage, loop_pair: tuple[str, str, Path]
) -> None:
    free, _busy, _point = loop_pair
    with held_open(free) as holder:
        page.scan()
        wait_idle(qtbot, page)
        command = command_of(holder.pid)
    use_col = page.device_table.columnCount() - 1
    assert page.device_table.item(row_of(page, free), use_col).text() == "In use: held open"
    page.point_edit.setText("/mnt/bench-gui-never")
    page.tick(free)
    accept_unreadable(page)
    page.confirm_edit.setText(Path(free).name)
    assert f"is held open by process {holder.pid} ({command}) as fd 3" in page.check_label.text()
    assert not page.apply_button.isEnabled()


def test_teardown_of_a_layout_bench_gui_did_not_build(
    qtbot: QtBot, page: StoragePage, loop_pair: tuple[str, str, Path]
) -> None:
    """The refusal in the banner; the separate confirmation lets it go."""
    _free, busy, point = loop_pair  # mounted by hand: bench-gui never built it
    page.scan()
    wait_idle(qtbot, page)
    page.tick(busy)
    page.point_edit.setText(str(point))
    page.owner_edit.setText("")
    page.fs_combo.setCurrentIndex(page.fs_combo.findData("ext4"))
    page.plan_mode.setCurrentIndex(page.plan_mode.findData("teardown"))
    accept_unreadable(page)
    page.confirm_edit.setText(Path(busy).name)
    assert page.banner.tone() == "failed"
    assert "no record of building" in page.banner.text()
    assert "no record of building" in page.check_label.text()
    assert not page.teardown_button.isEnabled()

    assert not page.run.not_built_box.isHidden()
    assert not page.run.not_built_edit.isEnabled()
    page.run.not_built_check.setChecked(True)
    page.run.not_built_edit.setText("loop99")
    assert "type every device of it again" in page.check_label.text()
    assert not page.teardown_button.isEnabled()
    page.run.not_built_edit.setText(Path(busy).name)
    assert page.banner.text() == ""
    assert page.teardown_button.isEnabled()
    qtbot.mouseClick(page.teardown_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Taken down" in page.banner.text(), timeout=WAIT_MS)
    wait_idle(qtbot, page)
    assert signature(busy) == ""
    # Back to building: the override is gone with the teardown mode.
    assert page.run.not_built_box.isHidden()
    assert not page.run.not_built_check.isChecked()


def test_apply_over_a_device_that_carries_a_signature_needs_its_name_again(
    qtbot: QtBot, page: StoragePage, loop_pair: tuple[str, str, Path], tmp_path: Path
) -> None:
    free, _busy, _point = loop_pair
    subprocess.run(["mkfs.ext4", "-q", "-F", free], check=True, capture_output=True)
    page.scan()
    wait_idle(qtbot, page)
    page.tick(free)
    page.point_edit.setText(str(tmp_path / "vol"))
    page.owner_edit.setText("")
    page.fs_combo.setCurrentIndex(page.fs_combo.findData("xfs"))
    accept_unreadable(page)
    page.confirm_edit.setText(Path(free).name)
    assert "carries a signature" in page.check_label.text()
    assert not page.apply_button.isEnabled()
    assert not page.run.signed_box.isHidden()
    page.run.signed_check.setChecked(True)
    page.run.signed_edit.setText("loop99")
    assert not page.apply_button.isEnabled()
    page.run.signed_edit.setText(Path(free).name)
    assert "carries a signature" not in page.check_label.text()
    assert page.apply_button.isEnabled()
    qtbot.mouseClick(page.apply_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.banner.tone() == "ok", timeout=WAIT_MS)
    wait_idle(qtbot, page)
    assert "TYPE=xfs" in signature(free)
