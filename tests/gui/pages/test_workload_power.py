"""The Workload page's power and host-metrics section: fields from the meter's options, plan
round trip, problems next to their field, the keyring password and a test reading."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest
from pytestqt.qtbot import QtBot

from bench_gui.core.plan_model import Monitor, Plan, Power
from bench_gui.gui.pages.workload.page import WorkloadPage
from tests._fixtures.powercap_tree import EnergyClock, PowercapTree

pytestmark = pytest.mark.gui


class MemoryKeyring(keyring.backend.KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        raise keyring.errors.PasswordDeleteError(username)


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def page(qtbot: QtBot) -> WorkloadPage:
    widget = WorkloadPage()
    qtbot.addWidget(widget)
    widget.resize(1600, 1200)
    widget.show()
    return widget


def test_power_fields_round_trip(page: WorkloadPage) -> None:
    plan = Plan(name="redfish plan")
    plan.power = Power(
        meter="redfish",
        options={"host": "bmc7.lab", "user": "root", "port": 8443, "verify_tls": False},
        idle_s=45,
        interval_s=2.0,
    )
    plan.monitor = Monitor(enabled=True, devices=["md0", "nvme0n1"])
    page.set_plan(plan)
    power = page.power_options
    assert power.meter == "redfish"
    assert power.stack.isVisible()
    assert power.password_button.isVisible()
    widgets = power.option_widgets["redfish"]
    assert widgets["host"].text() == "bmc7.lab"  # type: ignore[attr-defined]
    assert widgets["verify_tls"].isChecked() is False  # type: ignore[attr-defined]
    assert power.devices_edit.text() == "md0, nvme0n1"
    again = page.validated_plan()
    assert again is not None
    assert again.power.meter == "redfish"
    assert again.power.options["port"] == 8443
    assert again.power.options["verify_tls"] is False
    assert again.power.idle_s == 45
    assert again.monitor.devices == ["md0", "nvme0n1"]


def test_meter_choice_shows_its_options_and_what_it_measures(page: WorkloadPage) -> None:
    power = page.power_options
    power.meter_combo.setCurrentIndex(power.meter_combo.findData("rapl"))
    assert "not wall power" in power.scope_note.text()
    assert not power.password_button.isVisible()
    assert power.options() == {"root": "/sys/class/powercap", "dram": True}
    power.meter_combo.setCurrentIndex(power.meter_combo.findData("none"))
    assert not power.stack.isVisible()
    assert not power.idle_spin.isEnabled()
    plan = page.validated_plan()
    assert plan is not None
    assert plan.power.meter == "none"
    assert plan.power.options == {}


def test_problems_show_next_to_the_power_fields(page: WorkloadPage) -> None:
    power = page.power_options
    power.meter_combo.setCurrentIndex(power.meter_combo.findData("redfish"))
    power.devices_edit.setText("md0, sda;reboot")
    power.interval_spin.setValue(0.0)
    assert page.validated_plan() is None
    assert page.field_error("power.options.host") == "is required for meter 'redfish'"
    assert "not a block device name" in page.field_error("monitor.devices")
    assert page.field_error("power.interval_s").startswith("must be between 0.2 and 10")


def test_password_goes_to_the_keyring(page: WorkloadPage, memory_keyring: MemoryKeyring) -> None:
    power = page.power_options
    power.meter_combo.setCurrentIndex(power.meter_combo.findData("ipmi"))
    assert not power.store_password("pw")  # no BMC address or user yet
    widgets = power.option_widgets["ipmi"]
    widgets["host"].setText("10.0.0.42")  # type: ignore[attr-defined]
    widgets["user"].setText("ADMIN")  # type: ignore[attr-defined]
    assert power.store_password("s3cret")
    assert memory_keyring.entries == {("bench-gui", "ipmi:ADMIN@10.0.0.42"): "s3cret"}
    assert "stored in the OS keyring" in power.reading_label.text()
    plan = page.validated_plan()
    assert plan is not None
    assert "s3cret" not in plan.to_toml()


def test_a_test_reading_runs_off_the_gui_thread(
    page: WorkloadPage, qtbot: QtBot, tmp_path: Path
) -> None:
    tree = PowercapTree(tmp_path, max_range_uj=10**12)
    power = page.power_options
    power.meter_combo.setCurrentIndex(power.meter_combo.findData("rapl"))
    power.option_widgets["rapl"]["root"].setText(str(tree.root))  # type: ignore[attr-defined]
    with EnergyClock(tree, {"intel-rapl:0": 50.0, "intel-rapl:1": 30.0}, 10**12):
        power.test_reading()
        assert power.reading_label.text() == "Reading…"
        assert not power.test_button.isEnabled()
        qtbot.waitUntil(lambda: power.reading_label.text() != "Reading…", timeout=10_000)
    text = power.reading_label.text()
    assert text.endswith("W (CPU package + DRAM, read from this machine)")
    assert float(text.split()[0].replace(",", "")) == pytest.approx(80.0, rel=0.25)
    assert power.test_button.isEnabled()
