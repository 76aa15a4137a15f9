"""The Workload page: per-field validation from the plan model, plan files, task feedback."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from bench_gui.core.plan import load_plan
from bench_gui.core.plan_model import Plan
from bench_gui.gui.pages.workload.page import WorkloadPage
from tests._fixtures.isolation import MemoryKeyring
from tests._fixtures.scripted import EventScript

pytestmark = pytest.mark.gui


@pytest.fixture
def page(qtbot: QtBot) -> WorkloadPage:
    widget = WorkloadPage()
    qtbot.addWidget(widget)
    widget.resize(1500, 950)
    widget.show()
    return widget


def test_bad_fields_are_shown_next_to_them_and_nothing_starts(
    qtbot: QtBot, page: WorkloadPage
) -> None:
    page.warehouses_spin.setValue(0)
    page.vus_edit.setText("8,x")
    # The user list is checked as it is typed.
    assert page.field_error("workload.virtual_users") == "'x' is not a whole number"

    with (
        qtbot.assertNotEmitted(page.start_requested),
        qtbot.assertNotEmitted(page.build_requested),
    ):
        qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
        qtbot.mouseClick(page.build_button, Qt.MouseButton.LeftButton)

    assert page.field_error("workload.warehouses") == "must be between 1 and 100000, got 0"
    assert page.field_error("workload.virtual_users") == "'x' is not a whole number"
    assert page.warehouses_spin.property("invalid") is True
    assert page.vus_edit.property("invalid") is True
    assert page.field_error("workload.duration_s") == ""
    assert not page.general_error.isVisible()

    # Fixing the fields clears the errors and the sweep starts.
    page.warehouses_spin.setValue(2)
    page.vus_edit.setText("8-64/8")
    assert page.field_error("workload.virtual_users") == ""
    assert page.vu_hint.text().startswith("8 steps: 8, 16, 24, 32, 40, 48, 56, 64 users")
    with qtbot.waitSignal(page.start_requested, timeout=1000) as blocker:
        qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    plan = blocker.args[0]
    assert isinstance(plan, Plan)
    assert plan.workload.warehouses == 2
    assert plan.workload.virtual_users == [8, 16, 24, 32, 40, 48, 56, 64]
    assert page.field_error("workload.warehouses") == ""
    assert page.warehouses_spin.property("invalid") is False


def test_vu_list_problems_are_named(page: WorkloadPage) -> None:
    page.vus_edit.setText("")
    assert page.field_error("workload.virtual_users") == "Virtual users is empty"
    page.vus_edit.setText("64-8/8")
    assert "not a rising range" in page.field_error("workload.virtual_users")
    page.vus_edit.setText("8,0")
    assert page.field_error("workload.virtual_users") == "0 is not a positive user count"
    page.vus_edit.setText("4")
    assert page.field_error("workload.virtual_users") == ""
    page.rampup_spin.setValue(30)
    page.duration_spin.setValue(90)
    assert page.vu_hint.text() == "1 step: 4 users  ·  about\u00a02\u00a0min"


def test_a_postgresql_target_needs_a_host(page: WorkloadPage) -> None:
    assert not page.host_edit.isEnabled()  # the embedded demo needs no connection
    page.pg_radio.setChecked(True)
    assert page.host_edit.isEnabled()
    assert page.password_env_edit.isEnabled()
    page.host_edit.setText("")
    page.database_edit.setText("postgres")
    assert page.validated_plan() is None
    assert page.field_error("target.host") == "is required for a PostgreSQL target"
    assert page.field_error("target.database") == "must differ from target.admin_database"


def test_plan_round_trips_through_a_file(qtbot: QtBot, page: WorkloadPage, tmp_path: Path) -> None:
    # A plan with fields the page has no widget for: they must survive load and save.
    source = tmp_path / "source.toml"
    source.write_text(
        'name = "SSD RAID 10"\nnotes = "four SAS SSDs"\n'
        '[target]\nkind = "postgresql"\nhost = "db1"\nport = 5433\nsslmode = "require"\n'
        'password_env = "BENCH_GUI_DB1_PASSWORD"\n'
        '[workload]\nwarehouses = 100\nvirtual_users = "8-32/8"\nprocesses = 3\n',
        encoding="utf-8",
    )
    assert page.load_plan_file(source)
    assert page.name_edit.text() == "SSD RAID 10"
    assert page.pg_radio.isChecked()
    assert (page.host_edit.text(), page.port_spin.value()) == ("db1", 5433)
    assert page.vus_edit.text() == "8,16,24,32"
    assert str(source) in page.subtitle.text()

    page.warehouses_spin.setValue(50)
    page.forms["tproc_c"].keying_check.setChecked(True)
    page.forms["tproc_c"].build_combo.setCurrentIndex(
        page.forms["tproc_c"].build_combo.findData("always")
    )
    assert page.forms["tproc_c"].profile_combo.currentData() == "spec"
    page.forms["tproc_c"].profile_combo.setCurrentIndex(
        page.forms["tproc_c"].profile_combo.findData("hammerdb")
    )
    target = tmp_path / "saved.toml"
    assert page.save_plan_file(target)

    saved = load_plan(target)
    assert saved.name == "SSD RAID 10"
    assert saved.notes == "four SAS SSDs"
    assert saved.target.sslmode == "require"
    assert saved.target.password_env == "BENCH_GUI_DB1_PASSWORD"
    assert saved.workload.processes == 3
    assert saved.workload.warehouses == 50
    assert saved.workload.keying_thinking is True
    assert saved.workload.build == "always"
    assert saved.workload.profile == "hammerdb"
    assert saved.workload.virtual_users == [8, 16, 24, 32]

    other = WorkloadPage()
    qtbot.addWidget(other)
    assert other.load_plan_file(target)
    assert other.plan_data() == page.plan_data()


def test_invalid_plans_are_not_saved_and_bad_files_not_loaded(
    page: WorkloadPage, tmp_path: Path
) -> None:
    page.warehouses_spin.setValue(0)
    target = tmp_path / "bad.toml"
    assert not page.save_plan_file(target)
    assert not target.exists()
    assert page.field_error("workload.warehouses")

    broken = tmp_path / "broken.toml"
    broken.write_text("[workload]\nwarehouses = -1\ncolour = 'blue'\n", encoding="utf-8")
    page.set_plan(Plan(name="kept"))
    assert not page.load_plan_file(broken)
    text = page.general_error.text()
    assert "workload.warehouses" in text
    assert "workload.colour: unknown field" in text
    assert page.name_edit.text() == "kept"


def test_build_progress_and_check_results(page: WorkloadPage) -> None:
    page.set_busy("build")
    assert not page.start_button.isEnabled()
    assert page.cancel_button.isEnabled()
    script = EventScript()
    page.task_event(
        script.emit(
            "progress", task="build", stage="stock", done=250, total=1000, unit="rows", rate=50
        )
    )
    assert page.progress.maximum() == 1000
    assert page.progress.value() == 250
    assert page.task_status.text() == "stock  ·  250 of 1,000 rows  ·  50 rows/s"
    page.task_finished("build", "ok")
    page.set_busy(None)
    assert page.progress.value() == 1000
    assert page.task_status.text() == "Building schema: done."
    assert page.start_button.isEnabled()
    assert not page.cancel_button.isEnabled()

    page.set_busy("check")
    page.task_event(script.emit("log", level="info", message="checking district next_o_id"))
    assert page.task_status.text() == "checking district next_o_id"
    checks = [
        {"name": "warehouse ytd", "ok": True, "detail": ""},
        {"name": "district next_o_id", "ok": False, "detail": "3 districts differ"},
    ]
    page.task_event(script.emit("summary", checks=checks, status="failed"))
    page.task_finished("check", "ok")
    assert [page.check_list.item(i).text() for i in range(page.check_list.count())] == [
        "✔  warehouse ytd",
        "✘  district next_o_id — 3 districts differ",
    ]
    assert page.task_status.text() == "Checking consistency: 1 check(s) failed."

    page.task_failed("build", "cannot connect to db1:5432")
    assert "Building schema failed: cannot connect" in page.task_status.text()


def test_the_database_password_goes_to_the_keyring_and_the_page_says_which_is_used(
    qtbot: QtBot,
    page: WorkloadPage,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    isolated_keyring: MemoryKeyring,
) -> None:
    section = page.target
    assert not section.password_edit.isEnabled()  # the embedded demo needs none
    page.pg_radio.setChecked(True)
    page.host_edit.setText("db1")
    page.user_edit.setText("bench")
    page.port_spin.setValue(5433)
    server = "postgresql:bench@db1:5433"
    assert section.password_note.text() == (
        f"A run's password: none (the OS keyring holds no password for {server})."
    )

    qtbot.keyClicks(section.password_edit, "s3cret")
    qtbot.mouseClick(section.password_save_button, Qt.MouseButton.LeftButton)
    assert isolated_keyring.entries == {("bench-gui", server): "s3cret"}
    assert section.password_edit.text() == ""
    assert section.password_note.text() == f"A run's password: the OS keyring ({server})."
    saved = tmp_path / "plan.toml"
    assert page.save_plan_file(saved)
    assert "s3cret" not in saved.read_text()

    # A variable the plan may name, when it is set, is what a run sends: the page says so.
    monkeypatch.setenv("BENCH_GUI_DB1", "from-env")
    page.password_env_edit.setText("BENCH_GUI_DB1")
    page.password_env_edit.editingFinished.emit()
    assert section.password_note.text() == "A run's password: environment variable BENCH_GUI_DB1."
    # Any other variable is refused, next to the field.
    page.password_env_edit.setText("AWS_SECRET_ACCESS_KEY")
    assert page.validated_plan() is None
    assert "is not allowed" in page.field_error("target.password_env")
