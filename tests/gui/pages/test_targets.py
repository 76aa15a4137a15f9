"""The Targets page against a real OpenSSH sshd on loopback (the fixture of tests/remote).

Every test has its own HOME (so ``~/.ssh/known_hosts`` starts empty), its own data directory
and an in-memory keyring: nothing touches the user's files or OS keyring. Remote work runs in
:class:`~bench_gui.gui.tasks.Task` threads; none may be left running.
"""

from __future__ import annotations

import json
import platform
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from bench_gui.core.plan_model import Plan, Target
from bench_gui.gui.pages.targets.page import TargetsPage
from bench_gui.gui.pages.workload.page import WorkloadPage
from bench_gui.gui.pages.workload.target_section import THIS_MACHINE
from bench_gui.gui.tasks import live_tasks
from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
from bench_gui.remote.secrets import SERVICE
from bench_gui.remote.target_check import TargetReport
from bench_gui.remote.targets import TARGETS_FILE
from tests._fixtures.isolation import MemoryKeyring

pytestmark = pytest.mark.gui

WAIT_MS = 60_000


@pytest.fixture
def ring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Own HOME (empty ~/.ssh) and an in-memory keyring for the test."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    previous = keyring.get_keyring()
    memory = MemoryKeyring()
    keyring.set_keyring(memory)
    yield memory
    keyring.set_keyring(previous)


@pytest.fixture
def plan() -> Plan:
    return Plan()


@pytest.fixture
def page(qtbot: QtBot, data_dir: Path, ring: Any, plan: Plan) -> Iterator[TargetsPage]:
    widget = TargetsPage(data_dir, plan_source=lambda: plan)
    qtbot.addWidget(widget)
    widget.resize(1700, 1000)
    widget.show()
    yield widget
    assert widget.shutdown(30), "the page's remote task did not end"
    assert not live_tasks(), f"remote tasks left running: {live_tasks()}"


def _fill(qtbot: QtBot, page: TargetsPage, name: str, port: int, auth: str, **fields: str) -> None:
    page.new_target()
    qtbot.keyClicks(page.form.name_edit, name)
    qtbot.keyClicks(page.form.host_edit, "127.0.0.1")
    page.form.port_spin.setValue(port)
    qtbot.keyClicks(page.form.user_edit, fields.get("user", "root"))
    page.form.auth_combo.setCurrentIndex(page.form.auth_combo.findData(auth))
    if "key_path" in fields:
        page.form.key_edit.setText(fields["key_path"])
    if "password" in fields:
        qtbot.keyClicks(page.form.password_edit, fields["password"])
    if "sudo_password" in fields:
        page.form.sudo_combo.setCurrentIndex(page.form.sudo_combo.findData("password"))
        qtbot.keyClicks(page.form.sudo_password_edit, fields["sudo_password"])


def _wait_idle(qtbot: QtBot, page: TargetsPage) -> None:
    qtbot.waitUntil(lambda: not page.busy, timeout=WAIT_MS)


def test_a_target_added_through_the_form_keeps_its_secrets_in_the_keyring(
    qtbot: QtBot, page: TargetsPage, ring: Any, data_dir: Path
) -> None:
    # A bad value is shown next to its field and nothing is written.
    _fill(qtbot, page, "bad name!", 2222, "password", password="pw")
    qtbot.mouseClick(page.form.save_button, Qt.MouseButton.LeftButton)
    assert "letters, digits" in page.form.field_error("name")
    assert page.form.name_edit.property("invalid") is True
    assert not (data_dir / TARGETS_FILE).exists()
    assert ring.entries == {}

    _fill(
        qtbot,
        page,
        "lab-db",
        2222,
        "password",
        password="S3cret login pw",
        sudo_password="S3cret sudo pw",
    )
    # Only the fields of the chosen login and sudo modes are shown.
    assert page.form.password_edit.isVisibleTo(page)
    assert not page.form.key_edit.isVisibleTo(page)
    assert page.form.sudo_password_edit.isVisibleTo(page)
    with qtbot.waitSignal(page.targets_changed, timeout=1000) as changed:
        qtbot.mouseClick(page.form.save_button, Qt.MouseButton.LeftButton)
    assert changed.args == [["lab-db"]]
    assert page.form.field_error("name") == ""

    text = (data_dir / TARGETS_FILE).read_text(encoding="utf-8")
    assert "S3cret" not in text
    table = tomllib.loads(text)["targets"]["lab-db"]
    assert table == {
        "host": "127.0.0.1",
        "port": 2222,
        "user": "root",
        "auth": "password",
        "sudo": "password",
    }
    assert ring.entries == {
        (SERVICE, "lab-db:password"): "S3cret login pw",
        (SERVICE, "lab-db:sudo_password"): "S3cret sudo pw",
    }
    # The typed secrets leave the form; the form says they are stored.
    assert page.form.password_edit.text() == ""
    assert page.form.sudo_password_edit.text() == ""
    assert "Stored in the OS keyring" in page.form.secret_hints["password"].text()
    assert page.saved.table.rowCount() == 1
    assert [page.saved.table.item(0, c).text() for c in range(6)] == [
        "lab-db",
        "127.0.0.1",
        "2222",
        "root",
        "Password",
        "password",
    ]
    assert page.editing == "lab-db"

    # A second target with the same name is refused.
    _fill(qtbot, page, "lab-db", 22, "agent")
    qtbot.mouseClick(page.form.save_button, Qt.MouseButton.LeftButton)
    assert "exists already" in page.form.field_error("name")

    # Renaming moves the secrets with the target.
    page.select_target("lab-db")
    page.form.name_edit.setText("lab-db-2")
    assert page.save()
    assert sorted(tomllib.loads((data_dir / TARGETS_FILE).read_text())["targets"]) == ["lab-db-2"]
    assert ring.entries == {
        (SERVICE, "lab-db-2:password"): "S3cret login pw",
        (SERVICE, "lab-db-2:sudo_password"): "S3cret sudo pw",
    }


def test_unknown_host_key_is_asked_about_and_accepting_records_it(
    qtbot: QtBot, page: TargetsPage, sshd: Any, data_dir: Path
) -> None:
    known = data_dir / APP_KNOWN_HOSTS
    _fill(qtbot, page, "loop", sshd.port, "key", key_path=str(sshd.client_key))
    assert page.save()

    # Rejecting: nothing recorded, nothing offered, the page says so.
    qtbot.mouseClick(page.checks.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.host_keys.dialog is not None, timeout=WAIT_MS)
    dialog = page.host_keys.dialog
    assert dialog is not None
    assert not page.busy
    assert not live_tasks()
    assert dialog.accept_button is not None
    assert dialog.reject_button.isDefault()  # Enter never trusts a key
    qtbot.mouseClick(dialog.reject_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.host_keys.dialog is None, timeout=5000)
    assert "was not accepted" in page.checks.banner.text()
    assert not known.exists()
    assert page.checks.report is None

    # Accepting: the fingerprint shown is the server's; the key is recorded, the test passes.
    qtbot.mouseClick(page.checks.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.host_keys.dialog is not None, timeout=WAIT_MS)
    dialog = page.host_keys.dialog
    assert dialog is not None
    assert dialog.accept_button is not None
    assert dialog.error.fingerprint_sha256 == sshd.fingerprint
    assert dialog.error.host == f"[127.0.0.1]:{sshd.port}"
    shown = [label.text() for label in dialog.findChildren(type(page.header.subtitle))]
    assert sshd.fingerprint in shown
    assert any("ED25519" in text for text in shown)
    assert any(str(known) in text for text in shown)  # says where the key will be recorded
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.checks.report is not None, timeout=WAIT_MS)
    _wait_idle(qtbot, page)
    report = page.checks.report
    assert report is not None
    assert report.ok, report.format()
    assert sshd.host_key_line in known.read_text()
    assert page.checks.banner.tone() == "ok"
    marks = dict((text, ok) for ok, text in page.checks.check_rows)
    assert marks[f"connected to root@127.0.0.1:{sshd.port}"] is True
    assert any(ok and text.startswith("python3 is Python") for ok, text in page.checks.check_rows)
    assert any(ok and "root" in text for ok, text in page.checks.check_rows if "sudo" in text)
    # The default plan is the embedded demo: its database is not checked from there.
    assert any(ok is None and "embedded demo" in text for ok, text in page.checks.check_rows)

    # Known now: the next test asks nothing.
    page.test_connection()
    _wait_idle(qtbot, page)
    assert page.host_keys.dialog is None
    assert page.checks.report is not None
    assert page.checks.report.ok


def _tested(qtbot: QtBot, page: TargetsPage, sshd: Any) -> TargetReport:
    """Test the sshd as a target with the page's plan: its report, which passed."""
    sshd.trust()
    _fill(qtbot, page, "loop", sshd.port, "key", key_path=str(sshd.client_key))
    assert page.test_connection()
    _wait_idle(qtbot, page)
    report = page.checks.report
    assert report is not None
    assert report.ok, report.format()
    return report


def test_the_plan_database_is_checked_from_the_target(
    qtbot: QtBot, page: TargetsPage, sshd: Any, plan: Plan, pg_server: Any
) -> None:
    plan.target = Target(kind="postgresql", host=pg_server.socket_dir, database="tpcc_gui")
    report = _tested(qtbot, page, sshd)
    assert report.database_ok is True
    assert any(ok and "the database answers" in text for ok, text in page.checks.check_rows)


def test_a_sql_server_plan_says_once_that_its_database_was_not_checked(
    qtbot: QtBot, page: TargetsPage, sshd: Any, plan: Plan, ring: Any
) -> None:
    """No SQL Server here: its kit says it was not checked, once and neither passed nor failed
    (before, PostgreSQL's probe was handed SQL Server's ODBC string and failed)."""
    plan.target = Target(kind="mssql", host="127.0.0.1", port=1433, user="sa", database="tpcc")
    plan.target.admin_database = "master"
    report = _tested(qtbot, page, sshd)
    assert report.database_ok is None
    said = [(ok, text) for ok, text in page.checks.check_rows if "not checked" in text]
    assert len(said) == 1, page.checks.check_rows
    assert said[0][0] is None
    assert "SQL Server's connection is tried when a run starts" in said[0][1]


def test_wrong_password_and_refused_connection_are_clear_messages(
    qtbot: QtBot, page: TargetsPage, sshd: Any, ring: Any
) -> None:
    sshd.trust()
    # Typed, not saved: the test uses the form as it is, and stores nothing.
    _fill(qtbot, page, "loop", sshd.port, "password", password="not-the-password")
    qtbot.mouseClick(page.checks.button, Qt.MouseButton.LeftButton)
    _wait_idle(qtbot, page)
    assert page.checks.report is not None
    assert not page.checks.report.connected
    assert page.checks.banner.tone() == "failed"
    text = page.checks.banner.text()
    assert text.startswith("Cannot connect to loop: authentication failed for root@127.0.0.1")
    assert "refused the password" in text
    assert "not-the-password" not in text
    assert ring.entries == {}

    page.form.port_spin.setValue(sshd.free_port())
    page.test_connection()
    _wait_idle(qtbot, page)
    assert page.checks.banner.tone() == "failed"
    assert "connection refused" in page.checks.banner.text()

    # A password login without any password is named as such.
    page.form.port_spin.setValue(sshd.port)
    page.form.password_edit.clear()
    page.test_connection()
    _wait_idle(qtbot, page)
    assert "none is stored in the keyring" in page.checks.banner.text()


def test_changed_host_key_is_refused_without_an_accept_button(
    qtbot: QtBot, page: TargetsPage, sshd: Any, data_dir: Path
) -> None:
    stranger = Path(f"{sshd.stranger_key}.pub").read_text().split()[:2]
    home_known = Path.home() / ".ssh" / "known_hosts"
    home_known.write_text(f"[127.0.0.1]:{sshd.port} {' '.join(stranger)}\n")
    _fill(qtbot, page, "loop", sshd.port, "key", key_path=str(sshd.client_key))
    page.test_connection()
    qtbot.waitUntil(lambda: page.host_keys.dialog is not None, timeout=WAIT_MS)
    dialog = page.host_keys.dialog
    assert dialog is not None
    assert dialog.is_refusal
    assert dialog.accept_button is None
    assert "CHANGED" in dialog.warning_label.text()
    assert "man-in-the-middle" in dialog.warning_label.text()
    assert page.checks.banner.tone() == "failed"
    assert "Connection refused" in page.checks.banner.text()
    assert "has CHANGED" in page.checks.banner.text()
    qtbot.mouseClick(dialog.reject_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.host_keys.dialog is None, timeout=5000)
    assert not (data_dir / APP_KNOWN_HOSTS).exists()
    assert page.checks.report is None


def _local_disks() -> list[str]:
    """This machine's disks (loop devices come and go with other tests: left out)."""
    out = subprocess.run(
        ["lsblk", "-J", "-b", "-o", "NAME,PATH,TYPE"], capture_output=True, text=True, check=True
    ).stdout
    return [
        str(d.get("path") or f"/dev/{d['name']}")
        for d in json.loads(out)["blockdevices"]
        if d.get("type") == "disk"
    ]


def test_inventory_shows_this_machines_block_devices(
    qtbot: QtBot, page: TargetsPage, sshd: Any
) -> None:
    sshd.trust()
    _fill(qtbot, page, "loop", sshd.port, "key", key_path=str(sshd.client_key))
    assert not page.inventory.body.isVisibleTo(page)
    qtbot.mouseClick(page.inventory.button, Qt.MouseButton.LeftButton)
    assert page.busy
    assert not page.checks.button.isEnabled()
    _wait_idle(qtbot, page)
    assert page.inventory.data is not None, page.inventory.banner.text()
    assert page.inventory.banner.tone() == "ok"
    assert page.inventory.body.isVisibleTo(page)
    shown = [row["Device"].lstrip(" └") for row in page.inventory.device_rows()]
    local = _local_disks()
    assert local, "lsblk lists no device on this machine"
    for path in local:
        assert path in shown
    columns = set(page.inventory.device_rows()[0])
    assert {"Model", "Serial", "Size", "Rotational", "Transport"} <= columns
    assert page.inventory.fs_table.rowCount() >= 1
    fs = [
        page.inventory.fs_table.item(r, 0).text() for r in range(page.inventory.fs_table.rowCount())
    ]
    assert "/" in fs
    assert platform.release() in page.inventory.summary_values["Kernel"].text()
    assert page.inventory.summary_values["Memory"].text().endswith("available)")


def test_remove_asks_first_and_forgets_the_secrets(
    qtbot: QtBot, page: TargetsPage, ring: Any, data_dir: Path
) -> None:
    _fill(qtbot, page, "doomed", 22, "password", password="pw-1", sudo_password="pw-2")
    assert page.save()
    _fill(qtbot, page, "kept", 22, "password", password="pw-3")
    assert page.save()
    page.select_target("doomed")

    # Cancel keeps everything.
    qtbot.mouseClick(page.form.remove_button, Qt.MouseButton.LeftButton)
    box = page.confirm_box
    assert box is not None
    assert box.isVisible()
    assert "doomed" in box.text()
    assert "keyring" in box.informativeText()
    cancel = box.button(QMessageBox.StandardButton.Cancel)
    assert box.defaultButton() is cancel
    qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.confirm_box is None, timeout=5000)
    assert page.target_names() == ["doomed", "kept"]
    assert (SERVICE, "doomed:password") in ring.entries

    # Remove does it, secrets included; the other target is untouched.
    qtbot.mouseClick(page.form.remove_button, Qt.MouseButton.LeftButton)
    box = page.confirm_box
    assert box is not None
    with qtbot.waitSignal(page.targets_changed, timeout=5000) as changed:
        qtbot.mouseClick(page.confirm_remove_button, Qt.MouseButton.LeftButton)
    assert changed.args == [["kept"]]
    assert page.target_names() == ["kept"]
    assert sorted(tomllib.loads((data_dir / TARGETS_FILE).read_text())["targets"]) == ["kept"]
    assert ring.entries == {(SERVICE, "kept:password"): "pw-3"}
    assert page.editing is None
    assert not page.form.remove_button.isEnabled()


def test_workload_driver_host_is_bound_to_the_plan(qtbot: QtBot) -> None:
    workload = WorkloadPage()
    qtbot.addWidget(workload)
    combo = workload.driver_combo
    assert combo.currentText() == THIS_MACHINE
    # The embedded demo runs on this machine only.
    assert workload.demo_radio.isChecked()
    assert not combo.isEnabled()

    workload.set_driver_targets(["lab-db", "loadgen"])
    assert [combo.itemText(i) for i in range(combo.count())] == [THIS_MACHINE, "lab-db", "loadgen"]
    workload.pg_radio.setChecked(True)
    assert combo.isEnabled()
    combo.setCurrentIndex(combo.findData("loadgen"))
    plan = workload.validated_plan()
    assert plan is not None
    assert plan.driver.target == "loadgen"
    # Back to the demo: this machine (the choice comes back with a server target).
    workload.demo_radio.setChecked(True)
    assert combo.currentText() == THIS_MACHINE
    plan = workload.validated_plan()
    assert plan is not None
    assert plan.driver.target == ""
    workload.pg_radio.setChecked(True)
    assert combo.currentData() == "loadgen"

    # A plan naming a target this machine does not have keeps it, marked.
    server = Plan(target=Target(kind="postgresql", host="db1"))
    server.driver.target = "elsewhere"
    workload.set_plan(server)
    assert combo.currentText() == "elsewhere (not saved)"
    assert workload.current_plan() is not None
    assert workload.current_plan().driver.target == "elsewhere"  # type: ignore[union-attr]
    # Refreshing the list keeps the choice.
    workload.set_driver_targets(["lab-db"])
    assert combo.currentData() == "elsewhere"


def test_main_window_lists_saved_targets_as_driver_hosts(
    qtbot: QtBot, main_window: Any, ring: Any
) -> None:
    main_window.show_page("Targets")
    assert main_window.current_page_name() == "Targets"
    page = main_window.targets_page
    _fill(qtbot, page, "loadgen", 22, "agent")
    qtbot.mouseClick(page.form.save_button, Qt.MouseButton.LeftButton)
    combo = main_window.workload_page.driver_combo
    assert [combo.itemText(i) for i in range(combo.count())] == [THIS_MACHINE, "loadgen"]
    assert "saved" in main_window.face.status_label.text()
