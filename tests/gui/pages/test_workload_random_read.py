"""The Workload page's workload kind: TPROC-C or seed 004's random reads by fio. Each kind
shows its own sections, the plan carries only its fields (the plan model refuses the other
kind's), a random-read plan round-trips through a file, and Start gives a valid plan."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from bench_gui.core.plan import load_plan, plan_from_dict, plan_from_toml
from bench_gui.core.plan_model import TPROC_C_FIELDS, Plan
from bench_gui.gui.pages.workload.page import WorkloadPage
from bench_gui.wire.fio_sizes import RANDOM_READ_FIELDS
from bench_gui.workloads.random_read.plan_form import NO_LIMIT_SIZE

pytestmark = pytest.mark.gui

SEED_004 = """name = "It's RAM, not disk: SSD"
notes = "Samsung PM883, 8 GiB cgroup"
[driver]
target = "storage1"
[workload]
kind = "random_read"
dataset_sizes = [0.25, 0.5, 1.0, 1.5, 2, 4, "512MiB"]
block_size = "4k"
jobs = 16
ioengine = "psync"
direct = true
zipf_theta = 1.2
warmup_s = 120.0
measure_s = 300.0
file = "/mnt/ssd/fio.dat"
drop_caches = false
memory_limit = "8GiB"
raw_iops_s = 10.0
[monitor]
devices = ["nvme0n1"]
"""


@pytest.fixture
def page(qtbot: QtBot) -> WorkloadPage:
    widget = WorkloadPage()
    qtbot.addWidget(widget)
    widget.resize(1500, 950)
    widget.show()
    return widget


def choose_kind(page: WorkloadPage, kind: str) -> None:
    page.workload_kind_combo.setCurrentIndex(page.workload_kind_combo.findData(kind))


def tproc_c_shown(page: WorkloadPage) -> list[bool]:
    widgets = (
        page.warehouses_spin,
        page.vus_edit,
        page.rampup_spin,
        page.forms["tproc_c"],
        page.schema,
    )
    return [w.isVisibleTo(page) for w in widgets]


def test_the_kind_switch_shows_each_kinds_sections_and_keeps_the_others_values(
    page: WorkloadPage,
) -> None:
    assert tproc_c_shown(page) == [True] * 5
    assert not page.forms["random_read"].isVisibleTo(page)
    page.warehouses_spin.setValue(25)
    page.pg_radio.setChecked(True)
    page.host_edit.setText("db1")

    choose_kind(page, "random_read")
    assert tproc_c_shown(page) == [False] * 5
    assert page.forms["random_read"].isVisibleTo(page)
    # No database: only the host fio runs on, which the demo's rule does not hold back.
    assert not page.host_edit.isVisibleTo(page)
    assert not page.engine_combo.isVisibleTo(page)
    assert page.driver_combo.isVisibleTo(page)
    assert page.driver_combo.isEnabled()
    assert page.target.title() == "Host"
    assert page.name_edit.text() == "Random-read sweep"  # the default name follows the kind
    assert page.start_button.text().startswith("Start study")
    assert "Random-read study plan" in page.subtitle.text()
    data = page.plan_data()
    assert "target" not in data
    assert data["workload"]["kind"] == "random_read"
    assert set(data["workload"]) == {"kind", *RANDOM_READ_FIELDS}
    plan = page.validated_plan()
    assert plan is not None
    assert plan.workload.kind == "random_read"

    choose_kind(page, "tproc_c")
    assert tproc_c_shown(page) == [True] * 5
    assert not page.forms["random_read"].isVisibleTo(page)
    assert page.target.title() == "Target"
    assert page.name_edit.text() == "TPROC-C sweep"
    data = page.plan_data()
    assert not set(data["workload"]) & {"kind", *RANDOM_READ_FIELDS}
    assert set(TPROC_C_FIELDS) <= set(data["workload"])
    plan = page.validated_plan()
    assert plan is not None
    assert (plan.workload.warehouses, plan.target.host) == (25, "db1")


def test_a_name_the_user_typed_is_kept_across_kinds(page: WorkloadPage) -> None:
    page.name_edit.setText("NVMe vs SAS")
    choose_kind(page, "random_read")
    assert page.name_edit.text() == "NVMe vs SAS"
    choose_kind(page, "tproc_c")
    assert page.name_edit.text() == "NVMe vs SAS"


def test_a_random_read_plan_from_toml_shows_in_the_form_and_saves_back_identical(
    qtbot: QtBot, page: WorkloadPage, tmp_path: Path
) -> None:
    source = tmp_path / "seed-004.toml"
    source.write_text(SEED_004, encoding="utf-8")
    assert page.load_plan_file(source)
    rr = page.forms["random_read"]
    assert page.workload_kind_combo.currentData() == "random_read"
    assert rr.isVisibleTo(page)
    assert rr.sizes_edit.text() == "0.25, 0.5, 1.0, 1.5, 2, 4, 512MiB"
    assert rr.sizes_hint.text().startswith(
        "7 points: 0.25x RAM, 0.5x RAM, 1x RAM, 1.5x RAM, 2x RAM, 4x RAM, 512MiB"
    )
    assert rr.sizes_hint.text().endswith("about\u00a049\u00a0min\u00a010\u00a0s of reads")
    assert rr.block_combo.currentText() == "4k"
    assert (rr.jobs_spin.value(), rr.theta_spin.value()) == (16, 1.2)
    assert rr.ioengine_combo.currentData() == "psync"
    assert rr.direct_check.isChecked()
    assert rr.direct_check.isEnabled()
    assert (rr.warmup_spin.value(), rr.measure_spin.value(), rr.raw_iops_spin.value()) == (
        120,
        300,
        10,
    )
    assert rr.file_edit.text() == "/mnt/ssd/fio.dat"
    assert not rr.drop_check.isChecked()
    assert rr.memory_combo.currentData() == "limit"
    assert rr.memory_edit.text() == "8GiB"
    assert rr.memory_edit.isEnabled()
    assert page.driver_combo.currentData() == "storage1"

    saved = tmp_path / "saved.toml"
    assert page.save_plan_file(saved)
    original = load_plan(source)
    assert load_plan(saved) == original
    assert saved.read_text(encoding="utf-8") == original.to_toml()

    other = WorkloadPage()
    qtbot.addWidget(other)
    assert other.load_plan_file(saved)
    assert other.plan_data() == page.plan_data()


def test_start_gives_a_valid_random_read_plan(qtbot: QtBot, page: WorkloadPage) -> None:
    choose_kind(page, "random_read")
    page.forms["random_read"].sizes_edit.setText("0.5, 2, 1GiB")
    page.forms["random_read"].memory_combo.setCurrentIndex(1)
    page.forms["random_read"].memory_edit.setText("256MiB")
    with qtbot.waitSignal(page.start_requested, timeout=1000) as blocker:
        qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    plan = blocker.args[0]
    assert isinstance(plan, Plan)
    assert plan.workload.kind == "random_read"
    assert plan.workload.dataset_sizes == [0.5, 2, "1GiB"]
    assert plan.workload.memory_limit == "256MiB"
    assert "target" not in plan.to_dict()
    assert plan_from_dict(plan.to_dict()) == plan


def test_bad_random_read_values_are_shown_next_to_their_field(
    qtbot: QtBot, page: WorkloadPage
) -> None:
    choose_kind(page, "random_read")
    rr = page.forms["random_read"]
    rr.sizes_edit.setText("0.5, big")
    # Checked as it is typed.
    assert page.field_error("workload.dataset_sizes").startswith(
        "Dataset sizes item 2 ('big'): 'big' is not a size"
    )
    rr.jobs_spin.setValue(0)
    rr.theta_spin.setValue(1.0)
    rr.file_edit.setText("fio.dat")
    rr.block_combo.setCurrentText("3k")
    rr.memory_combo.setCurrentIndex(1)
    rr.memory_edit.setText("")
    with qtbot.assertNotEmitted(page.start_requested):
        qtbot.mouseClick(page.start_button, Qt.MouseButton.LeftButton)
    assert page.field_error("workload.jobs") == "must be between 1 and 256, got 0"
    assert page.field_error("workload.zipf_theta").startswith("1 is not allowed")
    assert page.field_error("workload.file").startswith("must be an absolute path of a file")
    assert page.field_error("workload.block_size").startswith("must be a power of two")
    assert page.field_error("workload.memory_limit") == NO_LIMIT_SIZE
    assert rr.jobs_spin.property("invalid") is True
    assert page.current_plan() is None
    assert not page.general_error.isVisible()

    rr.memory_edit.setText("16MiB")
    assert page.validated_plan() is None
    assert "is less than 64 MiB" in page.field_error("workload.memory_limit")

    rr.sizes_edit.setText("0.5, 2")
    rr.jobs_spin.setValue(8)
    rr.theta_spin.setValue(0.99)
    rr.file_edit.setText("/srv/fio.dat")
    rr.block_combo.setCurrentText("1k")
    rr.memory_combo.setCurrentIndex(0)
    assert not rr.memory_edit.isEnabled()
    plan = page.validated_plan()
    assert plan is not None
    assert plan.workload.memory_limit == ""  # the machine's RAM: the typed size is not used
    assert page.field_error("workload.jobs") == ""


def test_the_io_engine_decides_direct_io_where_the_plan_would_refuse_a_choice(
    page: WorkloadPage,
) -> None:
    choose_kind(page, "random_read")
    rr = page.forms["random_read"]
    assert rr.ioengine_combo.currentData() == "mmap"
    assert not rr.direct_check.isEnabled()
    assert not rr.direct_check.isChecked()
    rr.ioengine_combo.setCurrentIndex(rr.ioengine_combo.findData("psync"))
    assert rr.direct_check.isEnabled()
    assert not rr.direct_check.isChecked()
    rr.direct_check.setChecked(True)
    rr.ioengine_combo.setCurrentIndex(rr.ioengine_combo.findData("mmap"))
    assert not rr.direct_check.isChecked()
    plan = page.validated_plan()
    assert plan is not None
    assert (plan.workload.ioengine, plan.workload.direct) == ("mmap", False)
    rr.ioengine_combo.setCurrentIndex(rr.ioengine_combo.findData("libaio"))
    assert rr.direct_check.isChecked()
    assert not rr.direct_check.isEnabled()
    plan = page.validated_plan()
    assert plan is not None
    assert (plan.workload.ioengine, plan.workload.direct) == ("libaio", True)
    # psync again: the user's own choice comes back.
    rr.ioengine_combo.setCurrentIndex(rr.ioengine_combo.findData("psync"))
    assert rr.direct_check.isChecked()
    assert rr.direct_check.isEnabled()


def test_each_kind_round_trips_with_no_plan_error(qtbot: QtBot) -> None:
    for text in (
        SEED_004,
        '[target]\nkind = "mariadb"\nhost = "db1"\n[workload]\nwarehouses = 8\n',
        "[workload]\nprocesses = 2\n",
    ):
        plan = plan_from_toml(text)
        page = WorkloadPage(plan)
        qtbot.addWidget(page)
        assert page.workload_kind == plan.workload.kind
        assert plan_from_dict(page.plan_data()) == plan
        # Through the other kind and back: the same plan.
        other = "tproc_c" if plan.workload.kind == "random_read" else "random_read"
        choose_kind(page, other)
        assert plan_from_dict(page.plan_data()).workload.kind == other
        choose_kind(page, plan.workload.kind)
        assert plan_from_dict(page.plan_data()) == plan


def test_power_and_host_metrics_speak_of_the_data_file_for_a_study(qtbot: QtBot) -> None:
    page = WorkloadPage()
    qtbot.addWidget(page)
    power = page.power_options
    page.set_plan(plan_from_dict({"workload": {"kind": "random_read"}}))
    assert power.devices_edit.placeholderText() == "where the data file lives"
    assert "fio's data file" in power.fields.hints["monitor.devices"].text()
    power.meter_combo.setCurrentIndex(power.meter_combo.findData("rapl"))
    assert "the host fio runs on" in power.scope_note.text()
    page.set_plan(plan_from_dict({}))  # back to TPROC-C: the database's words again
    assert power.devices_edit.placeholderText() == "where the database lives"
    power.meter_combo.setCurrentIndex(power.meter_combo.findData("rapl"))
    assert "the database host" in power.scope_note.text()
