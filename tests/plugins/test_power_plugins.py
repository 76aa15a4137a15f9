"""The first-party power meter plugins, found through the entry-point group: passwords from the
keyring into the agent's environment, a test reading from a real Redfish service over HTTPS,
a CSV log imported after a run."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_gui_plugins.power_base import keyring_entry, set_bmc_password

from bench_gui.core.power import (
    PowerMeter,
    agent_power_config,
    get_meter_kind,
    read_power_log,
    step_power_from_log,
)
from tests._fixtures.isolation import MemoryKeyring
from tests._fixtures.powercap_tree import PowercapTree
from tests._fixtures.redfish_service import RedfishService


def test_redfish_password_goes_from_the_keyring_to_the_agent_env(
    isolated_keyring: MemoryKeyring,
) -> None:
    options = {"host": "bmc7.lab", "user": "root"}
    with pytest.raises(
        ValueError, match="no Redfish .* password for root@bmc7.lab in the OS keyring"
    ):
        agent_power_config("redfish", options, 30.0, 1.0)
    set_bmc_password("redfish", "root", "bmc7.lab", "calvin")
    assert isolated_keyring.entries == {("bench-gui", "redfish:root@bmc7.lab"): "calvin"}
    config, env = agent_power_config("redfish", options, 30.0, 1.0)
    assert env == {"BENCH_GUI_REDFISH_PASSWORD": "calvin"}
    assert "calvin" not in repr(config)  # the configuration is echoed in events: no secret
    assert config["options"]["verify_tls"] is True


def test_ipmi_over_lan_needs_a_keyring_password_in_band_does_not(
    isolated_keyring: MemoryKeyring,
) -> None:
    assert agent_power_config("ipmi", {}, 30.0, 1.0)[1] == {}  # this host's BMC: no password
    isolated_keyring.set_password("bench-gui", keyring_entry("ipmi", "ADMIN", "10.0.0.42"), "pw")
    _config, env = agent_power_config("ipmi", {"host": "10.0.0.42", "user": "ADMIN"}, 30.0, 1.0)
    assert env == {"IPMI_PASSWORD": "pw"}


def test_a_test_reading_from_a_real_redfish_service(
    tmp_path: Path, isolated_keyring: MemoryKeyring
) -> None:
    with RedfishService("rackmount-environment", tmp_path) as service:
        set_bmc_password("redfish", "root", "127.0.0.1", "calvin")
        kind = get_meter_kind("redfish")
        options = {"host": "127.0.0.1", "port": service.port, "user": "root"}
        strict = kind.open(options)
        with pytest.raises(Exception, match="not trusted"):
            strict.read()
        reader = kind.open({**options, "ca_file": str(service.cert)})
        assert isinstance(reader, PowerMeter)
        reading = reader.read()
        reader.close()  # type: ignore[attr-defined]
        strict.close()  # type: ignore[attr-defined]
    assert reading is not None
    assert reading.watts == 374
    assert reading.source == "redfish"


def test_a_test_reading_from_rapl(tmp_path: Path) -> None:
    tree = PowercapTree(tmp_path)
    tree.set_energy("intel-rapl:0", 1_000_000)
    reader = get_meter_kind("rapl").open({"root": str(tree.root)})
    assert "not wall power" in reader.label
    # The counters do not move in a static tree: 0 W, but a reading (two counter reads).
    reading = reader.read()
    assert reading is not None
    assert reading.watts == 0.0


def test_csv_log_imported_after_the_run(tmp_path: Path) -> None:
    log = tmp_path / "pdu.csv"
    rows = ["Time;Outlet W"] + [
        f"2024-05-01T10:{m:02d}:{s:02d}Z;{250 + (m - 10) * 100}"
        for m in range(10, 13)
        for s in range(0, 60, 5)
    ]
    log.write_text("\n".join(rows) + "\n", encoding="utf-8")
    readings = read_power_log(log, watts_column="Outlet W")
    assert readings[0].watts == 250.0
    assert readings[0].source == "csv"
    start = readings[0].t
    steps = [
        {"step": 0, "nopm": 50_000.0, "window_t0": start + 5, "window_t1": start + 50},
        {"step": 1, "nopm": 70_000.0, "window_t0": start + 65, "window_t1": start + 110},
    ]
    out = [p.figures.as_summary() for p in step_power_from_log(steps, readings)[0]]
    assert out[0]["power_w"] == pytest.approx(250.0)
    assert out[0]["mw_per_nopm"] == pytest.approx(5.0)
    assert out[1]["power_w"] == pytest.approx(350.0)
    with pytest.raises(ValueError, match="no watts column"):
        read_power_log(log)  # "Outlet W" is not a name it guesses
    with pytest.raises(ValueError, match="cannot read"):
        read_power_log(tmp_path / "missing.csv")
