"""Power meters on the agent's host: ipmitool output, a real Redfish service over HTTPS, a
powercap tree as the kernel lays it out (wrap-around included), CSV logs, and the window
arithmetic every step's power figures come from."""

from __future__ import annotations

import json
import stat
import sys
import time
from pathlib import Path

import pytest

from bench_gui.agent.power import (
    SCOPE_CPU,
    SCOPE_WALL,
    CsvMeter,
    IpmiMeter,
    MeterError,
    PowerSampler,
    RaplMeter,
    RedfishMeter,
    average_watts,
    counter_average,
    environment_metrics_watts,
    joules_per_new_order,
    legacy_power_watts,
    make_meter,
    mw_per_nopm,
    parse_dcmi_power_reading,
    parse_power_csv,
    rapl_zones,
)
from tests._fixtures.powercap_tree import EnergyClock, PowercapTree
from tests._fixtures.redfish_service import MOCKUPS, RedfishService
from tests._fixtures.wait import wait_until

IPMI = Path(__file__).resolve().parent / "fixtures" / "ipmitool"


def ipmi_text(name: str) -> str:
    return (IPMI / name).read_text(encoding="utf-8")


# ---- ipmitool dcmi power reading ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "inst", "low", "high", "avg", "period", "stamp"),
    [
        ("dell-idrac9-ipmitool-1.8.18.txt", 238, 84, 514, 236, 1, "Tue Jul 16 14:57:49 2024"),
        # ipmitool 1.8.19 prints the timestamp without its newline: two fields on one line.
        ("supermicro-x11-ipmitool-1.8.19.txt", 240, 132, 384, 204, 1, "03/06/2025 07:40:35 UTC"),
        ("gigabyte-rolling-5s.txt", 412, 377, 468, 409, 5, "08/28/26 07:12:06 UTC"),
    ],
)
def test_dcmi_readings_parse(
    fixture: str, inst: int, low: int, high: int, avg: int, period: int, stamp: str
) -> None:
    reading = parse_dcmi_power_reading(ipmi_text(fixture))
    assert reading.instantaneous == inst
    assert (reading.minimum, reading.maximum, reading.average) == (low, high, avg)
    assert reading.sampling_period_s == period
    assert reading.timestamp == stamp
    assert reading.state == "activated"
    assert reading.active


def test_dcmi_deactivated_state_is_parsed_and_not_active() -> None:
    reading = parse_dcmi_power_reading(ipmi_text("openbmc-deactivated.txt"))
    assert reading.instantaneous == 235
    assert reading.state == "deactivated"
    assert not reading.active


@pytest.mark.parametrize(
    ("fixture", "message"),
    [
        ("dcmi-unsupported.txt", "DCMI request failed because: Invalid command"),
        ("lanplus-session-refused.txt", "Unable to establish IPMI v2 / RMCP\\+ session"),
    ],
)
def test_dcmi_failures_name_the_reason(fixture: str, message: str) -> None:
    with pytest.raises(MeterError, match=message):
        parse_dcmi_power_reading(ipmi_text(fixture))


def test_dcmi_other_sampling_period_units() -> None:
    text = ipmi_text("dell-idrac9-ipmitool-1.8.18.txt").replace("00000001 Seconds.", "1_min")
    assert parse_dcmi_power_reading(text).sampling_period_s == 60


def fake_ipmitool(folder: Path, fixture: str) -> Path:
    """An executable standing in for ipmitool (there is no BMC here): it records its
    arguments and the password it was given through IPMI_PASSWORD, and prints ``fixture``."""
    script = folder / "ipmitool"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        f"with open({str(folder / 'calls.jsonl')!r}, 'a') as fh:\n"
        "    fh.write(json.dumps({'argv': sys.argv[1:],"
        " 'password': os.environ.get('IPMI_PASSWORD')}) + '\\n')\n"
        f"sys.stdout.write(open({str(IPMI / fixture)!r}).read())\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def calls(folder: Path) -> list[dict[str, object]]:
    lines = (folder / "calls.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_ipmi_meter_reads_the_local_bmc(tmp_path: Path) -> None:
    tool = fake_ipmitool(tmp_path, "dell-idrac9-ipmitool-1.8.18.txt")
    meter = IpmiMeter(ipmitool=str(tool), env={})
    before = time.monotonic()
    reading = meter.read()
    assert reading is not None
    assert reading.watts == 238
    assert before <= reading.t <= time.monotonic()
    assert calls(tmp_path)[0]["argv"] == ["dcmi", "power", "reading"]
    assert meter.scope == SCOPE_WALL
    average = IpmiMeter(ipmitool=str(tool), env={}, reading="average").read()
    assert average is not None
    assert average.watts == 236


def test_ipmi_meter_over_lan_keeps_the_password_off_the_command_line(tmp_path: Path) -> None:
    tool = fake_ipmitool(tmp_path, "supermicro-x11-ipmitool-1.8.19.txt")
    meter = IpmiMeter(
        host="10.0.0.42", user="ADMIN", ipmitool=str(tool), env={"IPMI_PASSWORD": "s3cret"}
    )
    reading = meter.read()
    assert reading is not None
    assert reading.watts == 240
    call = calls(tmp_path)[0]
    assert call["argv"] == [
        "-I", "lanplus", "-H", "10.0.0.42", "-U", "ADMIN", "-E", "dcmi", "power", "reading",
    ]  # fmt: skip
    assert call["password"] == "s3cret"
    assert "s3cret" not in " ".join(meter.command)
    assert "10.0.0.42" in meter.label


def test_ipmi_meter_rejects_deactivated_readings(tmp_path: Path) -> None:
    tool = fake_ipmitool(tmp_path, "openbmc-deactivated.txt")
    with pytest.raises(MeterError, match="deactivated.*rejected"):
        IpmiMeter(ipmitool=str(tool), env={}).read()


def test_ipmi_meter_reports_a_missing_ipmitool(tmp_path: Path) -> None:
    with pytest.raises(MeterError, match="not installed"):
        IpmiMeter(ipmitool=str(tmp_path / "nope"), env={}).read()
    with pytest.raises(MeterError, match="not installed"):
        make_meter({"meter": "ipmi", "options": {"ipmitool": "no-such-ipmitool-here"}})


# ---- Redfish -----------------------------------------------------------------------------------


def test_redfish_parsers_on_the_mockups() -> None:
    base = MOCKUPS
    env = json.loads(
        (base / "rackmount-environment/Chassis/1U/EnvironmentMetrics/index.json").read_text()
    )
    legacy = json.loads((base / "rackmount-environment/Chassis/1U/Power/index.json").read_text())
    null_env = json.loads(
        (base / "environment-null/Chassis/1U/EnvironmentMetrics/index.json").read_text()
    )
    skip_null = json.loads(
        (base / "legacy-power-only/Chassis/System.Embedded.1/Power/index.json").read_text()
    )
    assert environment_metrics_watts(env) == 374
    assert legacy_power_watts(legacy) == 344
    assert environment_metrics_watts(null_env) is None
    assert legacy_power_watts(skip_null) == 286  # the first control with a reading, not a sum
    assert environment_metrics_watts({}) is None
    assert legacy_power_watts({"PowerControl": "odd"}) is None


@pytest.fixture
def rackmount(tmp_path: Path):
    with RedfishService("rackmount-environment", tmp_path) as service:
        yield service


def meter_for(service: RedfishService, **kwargs: object) -> RedfishMeter:
    options = {"user": "root", "password": "calvin", "ca_file": str(service.cert)}
    options.update(kwargs)
    return RedfishMeter("127.0.0.1", service.port, **options)  # type: ignore[arg-type]


def test_redfish_prefers_environment_metrics(rackmount: RedfishService) -> None:
    meter = meter_for(rackmount)
    try:
        reading = meter.read()
        assert reading is not None
        assert reading.watts == 374
        assert meter.source == ("/redfish/v1/Chassis/1U/EnvironmentMetrics", "environment")
        rackmount.set(
            "/redfish/v1/Chassis/1U/EnvironmentMetrics", "PowerWatts", "Reading", value=401.5
        )
        second = meter.read()
        assert second is not None
        assert second.watts == 401.5
        rackmount.set(
            "/redfish/v1/Chassis/1U/EnvironmentMetrics", "PowerWatts", "Reading", value=None
        )
        assert meter.read() is None  # null: no reading this time
    finally:
        meter.close()
    # After discovery only the metrics resource is polled.
    assert rackmount.requests[-1] == "/redfish/v1/Chassis/1U/EnvironmentMetrics"
    assert "/redfish/v1/Chassis/1U/Power" not in rackmount.requests


def test_redfish_falls_back_to_legacy_power(tmp_path: Path) -> None:
    with RedfishService("environment-null", tmp_path) as service:
        meter = meter_for(service)
        reading = meter.read()
        meter.close()
    assert reading is not None
    assert reading.watts == 351
    assert meter.source == ("/redfish/v1/Chassis/1U/Power", "legacy")


def test_redfish_legacy_service_finds_the_chassis_with_power(tmp_path: Path) -> None:
    with RedfishService("legacy-power-only", tmp_path) as service:
        meter = meter_for(service)
        reading = meter.read()
        meter.close()
        chosen = meter_for(service, chassis="Enclosure.Internal.0-1")
        with pytest.raises(MeterError, match="no power reading"):
            chosen.read()
        chosen.close()
        unknown = meter_for(service, chassis="Blade9")
        with pytest.raises(MeterError, match="no chassis 'Blade9'"):
            unknown.read()
        unknown.close()
    assert reading is not None
    assert reading.watts == 286
    assert meter.source == ("/redfish/v1/Chassis/System.Embedded.1/Power", "legacy")


def test_redfish_checks_certificates_unless_told_not_to(rackmount: RedfishService) -> None:
    strict = RedfishMeter("127.0.0.1", rackmount.port, user="root", password="calvin")
    with pytest.raises(MeterError, match="not trusted.*verify_tls = false"):
        strict.read()
    strict.close()
    relaxed = RedfishMeter(
        "127.0.0.1", rackmount.port, user="root", password="calvin", verify_tls=False
    )
    reading = relaxed.read()
    relaxed.close()
    assert reading is not None
    assert reading.watts == 374


def test_redfish_wrong_password_is_named(rackmount: RedfishService) -> None:
    meter = meter_for(rackmount, password="wrong")
    with pytest.raises(MeterError, match="refused the credentials"):
        meter.read()
    meter.close()


def test_redfish_password_comes_from_the_environment(rackmount: RedfishService) -> None:
    config = {
        "meter": "redfish",
        "options": {
            "host": "127.0.0.1",
            "port": rackmount.port,
            "user": "root",
            "ca_file": str(rackmount.cert),
        },
    }
    meter = make_meter(config, env={"BENCH_GUI_REDFISH_PASSWORD": "calvin"})
    assert isinstance(meter, RedfishMeter)
    reading = meter.read()
    meter.close()
    assert reading is not None
    assert reading.watts == 374


# ---- RAPL --------------------------------------------------------------------------------------


def test_rapl_counts_packages_and_dram_only(tmp_path: Path) -> None:
    tree = PowercapTree(tmp_path)
    zones = rapl_zones(str(tree.root))
    assert [(Path(z.path).name, z.name) for z in zones] == [
        ("intel-rapl:0", "package-0"),
        ("intel-rapl:0:1", "dram"),
        ("intel-rapl:1", "package-1"),
        ("intel-rapl:1:1", "dram"),
    ]
    assert [z.name for z in rapl_zones(str(tree.root), dram=False)] == ["package-0", "package-1"]
    meter = RaplMeter(str(tree.root))
    assert meter.scope == SCOPE_CPU
    assert meter.counter
    assert "not wall power" in meter.label
    assert "2 packages + 2 DRAM" in meter.label


def test_rapl_energy_and_watts_with_wrap_around(tmp_path: Path) -> None:
    tree = PowercapTree(tmp_path, max_range_uj=1_000_000_000)
    start = {
        "intel-rapl:0": 999_000_000,
        "intel-rapl:0:1": 10,
        "intel-rapl:1": 5,
        "intel-rapl:1:1": 0,
    }
    for entry, value in start.items():
        tree.set_energy(entry, value)
    tree.set_energy("intel-rapl:0:0", 123)  # core: part of package 0, never added
    tree.set_energy("intel-rapl:2", 777_000_000)  # psys: the platform, never added
    meter = RaplMeter(str(tree.root))
    first = meter.read()
    assert first is not None
    assert first.energy_j == 0.0
    assert first.watts is None
    # Package 0 wrapped: 999 J -> 4 J is 5 J at a 1000 J range.
    tree.set_energy("intel-rapl:0", 4_000_000)
    tree.set_energy("intel-rapl:0:1", 2_000_010)
    tree.set_energy("intel-rapl:1", 7_000_005)
    tree.set_energy("intel-rapl:1:1", 1_000_000)
    tree.set_energy("intel-rapl-mmio:0", 999_999_999)
    wait_until(lambda: time.monotonic() > first.t, what="the clock to pass the first reading")
    second = meter.read()
    assert second is not None
    assert second.energy_j == pytest.approx(5 + 2 + 7 + 1)
    assert second.watts == pytest.approx(15 / (second.t - first.t))


def test_rapl_without_a_tree_or_packages(tmp_path: Path) -> None:
    with pytest.raises(MeterError, match="no powercap tree"):
        RaplMeter(str(tmp_path / "missing"))
    tree = PowercapTree(tmp_path, zones=(("intel-rapl:0:0", "intel-rapl/intel-rapl:0:0", "core"),))
    with pytest.raises(MeterError, match="no RAPL package zone"):
        RaplMeter(str(tree.root))


def test_rapl_sampler_integrates_a_moving_counter_through_wraps(tmp_path: Path) -> None:
    # A 30 J range at 48 W total wraps package 0 every ~0.75 s: several wraps in the window.
    tree = PowercapTree(tmp_path, max_range_uj=30_000_000)
    watts = {
        "intel-rapl:0": 25.0,
        "intel-rapl:0:1": 4.0,
        "intel-rapl:1": 15.0,
        "intel-rapl:1:1": 4.0,
    }
    watts |= {"intel-rapl:0:0": 20.0, "intel-rapl:2": 90.0, "intel-rapl-mmio:0": 25.0}
    with EnergyClock(tree, watts, 30_000_000):
        sampler = PowerSampler(RaplMeter(str(tree.root)), interval_s=0.2)
        sampler.probe()
        sampler.start()
        try:
            wait_until(lambda: len(sampler.readings()) >= 3, what="the sampler's thread to read")
            t0 = time.monotonic()
            time.sleep(2.0)  # the measured window itself, over several wraps
            t1 = time.monotonic()
            # The thread's last reading, an interval after the one before it (cover() may add
            # one a few milliseconds after it, too short an interval to show watts).
            live = sampler.latest(max_age_s=1)
            assert sampler.cover(t1, timeout_s=2)
            window = sampler.window(t0, t1)
        finally:
            sampler.close()
    assert window is not None
    assert window.watts == pytest.approx(48.0, rel=0.05)
    assert window.energy_j == pytest.approx(48.0 * (t1 - t0), rel=0.05)
    assert window.readings >= 8
    assert live is not None
    # One short interval read while the fake counters are written by another thread: only
    # plausible, not exact, on a loaded machine (the integrated window above is the figure).
    assert live.watts == pytest.approx(48.0, rel=0.5)


# ---- CSV logs ----------------------------------------------------------------------------------


def test_power_csv_formats() -> None:
    epoch = "timestamp,watts\n1700000000,250.5\n1700000001.5,260\n"
    assert parse_power_csv(epoch) == [(1700000000.0, 250.5), (1700000001.5, 260.0)]
    iso = "Time;Power (W);Volts\n2024-05-01T10:00:00Z;301.2;230\n2024-05-01T10:00:01.500Z;299\n"
    rows = parse_power_csv(iso)
    assert rows[0] == (1714557600.0, 301.2)
    assert rows[1] == (1714557601.5, 299.0)
    naive = "datetime\tpower_w\n2024-05-01 10:00:00\t100\n"
    expected = time.mktime((2024, 5, 1, 10, 0, 0, 0, 0, -1))
    assert parse_power_csv(naive) == [(expected, 100.0)]  # no zone: this host's local time
    odd = "ts,W\n# logger restarted\n1700000000,bad\n1700000002,10\n1700000003"
    assert parse_power_csv(odd) == [(1700000002.0, 10.0)]
    named = "when,inlet_w,outlet_w\n1700000000,5,7\n"
    assert parse_power_csv(named, "when", "outlet_w") == [(1700000000.0, 7.0)]
    with pytest.raises(MeterError, match="no watts column"):
        parse_power_csv("time,volts\n1,2\n")
    with pytest.raises(MeterError, match="no column 'amps'"):
        parse_power_csv("time,watts\n1,2\n", watts_column="amps")


def test_csv_meter_tails_a_growing_log(tmp_path: Path) -> None:
    log = tmp_path / "wall.csv"
    meter = CsvMeter(str(log))
    with pytest.raises(MeterError, match="does not exist"):
        meter.poll()
    now = time.time()
    log.write_text(
        f"time,watts\n{now - 2:.3f},200\n{now - 1:.3f},210\n{now:.3f},2", encoding="utf-8"
    )
    first = meter.poll()
    assert [r.watts for r in first] == [200, 210]  # the unfinished line waits
    assert first[-1].t == pytest.approx(time.monotonic() - 1, abs=0.2)
    with log.open("a", encoding="utf-8") as fh:
        fh.write(f"20\n{now + 1:.3f},230\n")
    assert [r.watts for r in meter.poll()] == [220, 230]
    assert meter.poll() == []


# ---- the arithmetic ----------------------------------------------------------------------------


def test_average_watts_integrates_exactly_the_window() -> None:
    points = [(0.0, 100.0), (10.0, 200.0), (20.0, 200.0)]
    # Edge values are interpolated: at t=5 the power is 150 W.
    assert average_watts(points, 5.0, 15.0) == pytest.approx((5 * 175 + 5 * 200) / 10)
    assert average_watts(points, 0.0, 20.0) == pytest.approx((10 * 150 + 10 * 200) / 20)
    assert average_watts(points, -1.0, 5.0) is None  # not covered: no invented power
    assert average_watts(points[:1], 0.0, 0.5) is None
    with pytest.raises(ValueError, match="positive length"):
        average_watts(points, 3.0, 3.0)


def test_counter_average_interpolates_the_counter() -> None:
    points = [(0.0, 0.0), (1.0, 100.0), (2.0, 300.0)]
    assert counter_average(points, 0.5, 1.5) == pytest.approx((200.0 - 50.0) / 1.0)
    assert counter_average(points, 0.5, 2.5) is None


def test_per_new_order_figures() -> None:
    assert mw_per_nopm(300.0, 150_000.0) == pytest.approx(2.0)
    assert joules_per_new_order(300.0, 150_000.0) == pytest.approx(0.12)
    with pytest.raises(ValueError, match="positive"):
        mw_per_nopm(300.0, 0.0)


def test_make_meter_kinds(tmp_path: Path) -> None:
    assert make_meter({"meter": "none"}) is None
    assert make_meter({}) is None
    tree = PowercapTree(tmp_path)
    meter = make_meter({"meter": "rapl", "options": {"root": str(tree.root), "dram": False}})
    assert isinstance(meter, RaplMeter)
    assert [z.name for z in meter.zones] == ["package-0", "package-1"]
    assert isinstance(make_meter({"meter": "csv", "options": {"path": "/x.csv"}}), CsvMeter)
    with pytest.raises(MeterError, match="no power meter of kind 'watt-o-matic'"):
        make_meter({"meter": "watt-o-matic"})


def test_sampler_keeps_failures_as_messages(tmp_path: Path) -> None:
    sampler = PowerSampler(CsvMeter(str(tmp_path / "later.csv")), interval_s=0.05)
    assert sampler.poll_now() == []
    assert "does not exist" in sampler.last_error
    with pytest.raises(MeterError, match="does not exist"):
        sampler.probe()
    (tmp_path / "later.csv").write_text(f"t,w\n{time.time():.3f},50\n", encoding="utf-8")
    assert sampler.poll_now()
    assert sampler.last_error == ""
    sampler.close()
