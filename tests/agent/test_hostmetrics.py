"""Host metrics: the parsers and the counting-once rules on captured text and a sysfs tree laid
out as the kernel lays it out, then the samplers against this machine's real /proc while a real
load runs (direct writes with dd, a CPU busy loop), cross-checked with iostat and vmstat."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bench_gui.agent.hostmetrics import (
    BlockTopology,
    CpuTimes,
    DiskCounters,
    HostSampler,
    Monitor,
    cpu_percent,
    cpu_sockets,
    database_devices,
    device_totals_set,
    disk_rates,
    is_local_host,
    memory_figures,
    parse_diskstats,
    parse_meminfo,
    parse_proc_stat,
    postgres_paths,
    socket_times,
    sum_rates,
)
from tests._fixtures.powercap_tree import EnergyClock, PowercapTree
from tests._fixtures.wait import wait_until

# /proc/stat of a two-socket, four-CPU host (kernel 6.1), trimmed after the cpu lines.
PROC_STAT = """\
cpu  4705 356 584 3699176 23 23 0 0 0 0
cpu0 1393 280 234 922547 10 17 0 0 0 0
cpu1 1161 21 114 925441 5 2 0 0 0 0
cpu2 1085 32 120 925689 4 2 0 0 0 0
cpu3 1066 23 116 925499 4 2 0 0 0 0
intr 114930548 113199788 3 0 5 263 0 4 [...]
ctxt 1990473
btime 1062191376
"""

# /proc/diskstats (kernel 5.5+, 20 fields): a RAID 10 of two partitioned disks.
DISKSTATS = """\
   8       0 sda 421 12 34172 311 9120 2311 1223616 18213 0 8172 18524 0 0 0 0 412 0
   8       1 sda1 300 12 30000 250 9000 2311 1220000 18000 0 8000 18250 0 0 0 0 0 0
   8      16 sdb 410 9 33990 290 9101 2290 1221000 18190 1 8111 18480 0 0 0 0 401 0
   8      17 sdb1 290 9 29800 240 8990 2290 1219000 18020 1 7990 18260 0 0 0 0 0 0
   9       0 md0 590 0 59800 0 15700 0 2439000 0 0 0 0 0 0 0 0 0 0
   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0
"""

MEMINFO = """\
MemTotal:       24684092 kB
MemFree:        23416212 kB
MemAvailable:   23618428 kB
Buffers:            4848 kB
Cached:           681384 kB
SwapCached:            0 kB
Dirty:               640 kB
Writeback:            12 kB
"""


def test_proc_stat_and_cpu_shares() -> None:
    stat = parse_proc_stat(PROC_STAT)
    assert set(stat) == {"cpu", "cpu0", "cpu1", "cpu2", "cpu3"}
    assert stat["cpu"] == CpuTimes(4705, 356, 584, 3699176, 23, 23, 0, 0)
    a = CpuTimes(100, 0, 50, 800, 40, 5, 5, 0)
    b = CpuTimes(400, 100, 150, 1100, 140, 10, 15, 85)  # +1000 jiffies
    assert cpu_percent(a, b) == {
        "user": 40.0,  # user + nice, as vmstat's us
        "system": 11.5,  # system + irq + softirq, as vmstat's sy
        "iowait": 10.0,
        "idle": 30.0,
        "steal": 8.5,
    }
    assert cpu_percent(a, a) == {}


def make_cpu_topology(sys_root: Path, sockets: dict[str, int]) -> None:
    for cpu, socket in sockets.items():
        folder = sys_root / "devices" / "system" / "cpu" / cpu / "topology"
        folder.mkdir(parents=True)
        (folder / "physical_package_id").write_text(f"{socket}\n")
    (sys_root / "devices" / "system" / "cpu" / "cpufreq").mkdir()


def test_cpu_per_socket(tmp_path: Path) -> None:
    make_cpu_topology(tmp_path, {"cpu0": 0, "cpu1": 0, "cpu2": 1, "cpu3": 1, "cpu4": 1})
    sockets = cpu_sockets(str(tmp_path))
    assert sockets == {"cpu0": 0, "cpu1": 0, "cpu2": 1, "cpu3": 1, "cpu4": 1}
    per_socket = socket_times(parse_proc_stat(PROC_STAT), sockets)  # cpu4 is offline
    assert per_socket[0].user == 1393 + 1161
    assert per_socket[1].total == sum(parse_proc_stat(PROC_STAT)[c].total for c in ("cpu2", "cpu3"))


def test_diskstats_and_iostat_figures() -> None:
    stats = parse_diskstats(DISKSTATS)
    assert stats["sda"] == DiskCounters(
        421, 12, 34172, 311, 9120, 2311, 1223616, 18213, 0, 8172, 18524
    )
    assert "loop0" in stats  # old 14-field lines parse too
    a = DiskCounters(1000, 0, 80000, 500, 2000, 0, 160000, 4000, 0, 1000, 5000)
    b = DiskCounters(1500, 0, 120000, 1500, 3000, 10, 360000, 10000, 2, 1800, 13000)
    rates = disk_rates(a, b, 2.0)
    assert rates == {
        "r_iops": 250.0,
        "w_iops": 500.0,
        "r_mbs": 10.24,  # 40000 sectors of 512 bytes in 2 s, 10^6-byte MB
        "w_mbs": 51.2,
        "r_await": 2.0,  # 1000 ms over 500 reads
        "w_await": 6.0,
        "await": pytest.approx(7000 / 1500, abs=0.001),  # all requests
        "aqu_sz": 4.0,  # 8000 ms of queue time in 2 s
        "util": 40.0,
    }
    assert disk_rates(b, a, 2.0) == {}  # counters went back: the device was re-added
    total = sum_rates([rates, rates])
    assert total["w_iops"] == 1000.0
    assert total["w_await"] == 6.0  # latencies are averaged, not added
    assert total["aqu_sz"] == 8.0


def test_meminfo() -> None:
    figures = memory_figures(parse_meminfo(MEMINFO))
    kb = 1024 / 1e6
    assert figures["used_mb"] == round((24684092 - 23618428) * kb, 1)  # free's "used"
    assert figures["cache_mb"] == round((681384 + 4848) * kb, 1)
    assert figures["dirty_mb"] == round(640 * kb, 1)
    assert figures["writeback_mb"] == round(12 * kb, 1)


def make_block_tree(sys_root: Path) -> None:
    """sda, sdb (each with two partitions), md0 on sda1+sdb1, md1 on sda2+sdb2, nvme0n1 with
    dm-0 on its partition, loop0: links and folders as sysfs has them."""
    devices = sys_root / "devices"
    pci = devices / "pci0000:00" / "0000:00:17.0" / "ata1" / "host0" / "target0:0:0"
    disks = {
        "sda": pci / "0:0:0:0" / "block" / "sda",
        "sdb": pci / "0:0:1:0" / "block" / "sdb",
        "nvme0n1": devices / "pci0000:00" / "0000:01:00.0" / "nvme" / "nvme0" / "nvme0n1",
    }
    virtual = {
        "md0": devices / "virtual" / "block" / "md0",
        "md1": devices / "virtual" / "block" / "md1",
        "dm-0": devices / "virtual" / "block" / "dm-0",
        "loop0": devices / "virtual" / "block" / "loop0",
    }
    parts = {"sda1": "sda", "sda2": "sda", "sdb1": "sdb", "sdb2": "sdb", "nvme0n1p1": "nvme0n1"}
    klass = sys_root / "class" / "block"
    klass.mkdir(parents=True)
    where: dict[str, Path] = {}
    for name, folder in {**disks, **virtual}.items():
        folder.mkdir(parents=True)
        (folder / "slaves").mkdir()
        (folder / "holders").mkdir()
        (folder / "dev").write_text("0:0\n")
        where[name] = folder
    for part, disk in parts.items():
        folder = where[disk] / part
        folder.mkdir()
        (folder / "partition").write_text(part[-1] + "\n")
        (folder / "holders").mkdir()
        where[part] = folder
    for name, folder in where.items():
        os.symlink(os.path.relpath(folder, klass), klass / name)
    for holder, slaves in {
        "md0": ["sda1", "sdb1"],
        "md1": ["sda2", "sdb2"],
        "dm-0": ["nvme0n1p1"],
    }.items():
        for slave in slaves:
            os.symlink(
                os.path.relpath(where[slave], where[holder] / "slaves"),
                where[holder] / "slaves" / slave,
            )
            os.symlink(
                os.path.relpath(where[holder], where[slave] / "holders"),
                where[slave] / "holders" / holder,
            )


def test_block_topology_as_sysfs_lays_it_out(tmp_path: Path) -> None:
    make_block_tree(tmp_path)
    topo = BlockTopology(str(tmp_path))
    assert topo.devices["sda1"].partition_of == "sda"
    assert topo.devices["sda1"].kind == "part"
    assert topo.devices["md0"].slaves == ("sda1", "sdb1")
    assert topo.devices["md0"].kind == "md"
    assert topo.devices["dm-0"].kind == "dm"
    assert topo.whole("sdb2") == "sdb"
    assert topo.below("md0") == {"sda1", "sdb1", "sda", "sdb"}
    assert topo.below("sda") == set()
    assert topo.leaves("md0") == ["sda", "sdb"]
    assert topo.leaves("dm-0") == ["nvme0n1"]
    assert sorted(topo.whole_devices()) == ["dm-0", "md0", "md1", "nvme0n1", "sda", "sdb"]


@pytest.mark.parametrize(
    ("selected", "total"),
    [
        (["md0", "sda", "sdb"], ["md0"]),  # an array and its members: the array once
        (["sda", "sda1"], ["sda"]),  # a partition and its disk: the disk once
        (["sda1", "sda"], ["sda"]),
        (["md0", "md1"], ["md0", "md1"]),  # two arrays on the same disks: disjoint I/O
        (["sda1", "sda2"], ["sda1", "sda2"]),  # partitions of one disk: disjoint too
        (["dm-0", "nvme0n1", "md0"], ["dm-0", "md0"]),
        (["sdb", "md0"], ["md0"]),
    ],
)
def test_devices_are_counted_once(tmp_path: Path, selected: list[str], total: list[str]) -> None:
    make_block_tree(tmp_path)
    assert device_totals_set(BlockTopology(str(tmp_path)), selected) == total


def add_writes(text: str, device: str, writes: int) -> str:
    lines = []
    for line in text.splitlines():
        parts = line.split()
        if parts[2] == device:
            parts[7] = str(int(parts[7]) + writes)
            line = " ".join(parts)
        lines.append(line)
    return "\n".join(lines) + "\n"


def test_sampler_totals_never_add_a_partition_to_its_disk(tmp_path: Path) -> None:
    make_block_tree(tmp_path / "sys")
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "stat").write_text(PROC_STAT)
    (proc / "meminfo").write_text(MEMINFO)
    (proc / "diskstats").write_text(DISKSTATS)
    sampler = HostSampler(
        ["md0", "sda", "sdb", "sda1"], proc_root=str(proc), sys_root=str(tmp_path / "sys")
    )
    assert sampler.totals == ["md0"]
    first = sampler.snapshot()
    # One second later: md0 did 3000 writes; each member disk (and its partition) 3000 too.
    text = DISKSTATS
    for name in ("md0", "sda", "sda1", "sdb"):
        text = add_writes(text, name, 3000)
    (proc / "diskstats").write_text(text)
    second = sampler.snapshot()
    second.t = first.t + 1.0
    host = sampler.rates(first, second)
    assert host["disks"]["md0"]["w_iops"] == 3000.0
    assert host["disks"]["sda"]["w_iops"] == 3000.0
    assert host["disks"]["sda1"]["w_iops"] == 3000.0
    assert host["disk_total"]["w_iops"] == 3000.0  # not 9000, not 12000
    assert "sockets" not in host["cpu"]  # one socket here: no per-socket lines


# ---- against the real machine ------------------------------------------------------------------


def _device_for(path: Path) -> str:
    topo = BlockTopology()
    dev = topo.device_of(str(path))
    if dev is None:
        pytest.skip(f"cannot tell the block device of {path}")
    return topo.whole(dev)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (/proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(shutil.which("iostat") is None, reason="iostat (sysstat) is not installed")
def test_disk_sampler_matches_iostat_under_direct_writes(tmp_path: Path) -> None:
    device = _device_for(tmp_path)
    target = tmp_path / "dd.out"
    dd = subprocess.Popen(
        ["dd", "if=/dev/zero", f"of={target}", "bs=256k", "count=200000", "oflag=direct"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # Measure once the direct writes flow (32 MiB written), not while dd starts.
        wait_until(lambda: target.exists() and target.stat().st_size >= 32 << 20, 30, "dd to write")
        sampler = HostSampler([device])
        a = sampler.snapshot()
        out = subprocess.run(
            ["iostat", "-d", "-x", "-y", "-o", "JSON", device, "3", "1"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        b = sampler.snapshot()
        alive = dd.poll() is None
    finally:
        dd.kill()
        dd.wait()
        target.unlink(missing_ok=True)
    assert alive, "dd ended before the measurement did"
    ours = sampler.rates(a, b)["disks"][device]
    report = json.loads(out)["sysstat"]["hosts"][0]["statistics"][0]["disk"][0]
    assert report["disk_device"] == device
    theirs_mbs = report["wkB/s"] * 1024 / 1e6  # iostat's kB are 1024 bytes
    assert ours["w_mbs"] > 5, f"the load did not reach the device: {ours}"
    assert ours["w_mbs"] == pytest.approx(theirs_mbs, rel=0.2)
    assert ours["w_iops"] == pytest.approx(report["w/s"], rel=0.2)
    assert ours["aqu_sz"] == pytest.approx(report["aqu-sz"], rel=0.35, abs=0.1)
    assert ours["w_await"] == pytest.approx(report["w_await"], rel=0.35, abs=0.2)
    assert ours["util"] == pytest.approx(report["util"], abs=15)


@pytest.mark.skipif(shutil.which("vmstat") is None, reason="vmstat (procps) is not installed")
def test_cpu_sampler_matches_vmstat_under_a_busy_loop() -> None:
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        wait_until(lambda: _cpu_seconds(busy.pid) >= 0.3, 30, "the busy loop to spin")
        sampler = HostSampler()
        a = sampler.snapshot()
        out = subprocess.run(
            ["vmstat", "-n", "3", "2"], capture_output=True, text=True, check=True
        ).stdout
        b = sampler.snapshot()
    finally:
        busy.kill()
        busy.wait()
    ours = sampler.rates(a, b)["cpu"]
    header, values = out.splitlines()[1], out.splitlines()[-1]
    theirs = dict(zip(header.split(), (int(v) for v in values.split()), strict=True))
    cpus = os.cpu_count() or 1
    assert ours["user"] >= 100 / cpus * 0.8  # one CPU spinning
    busy_ours = ours["user"] + ours["system"]
    assert busy_ours == pytest.approx(theirs["us"] + theirs["sy"], abs=8)
    assert ours["idle"] == pytest.approx(theirs["id"], abs=8)
    assert ours["iowait"] == pytest.approx(theirs["wa"], abs=5)


def test_memory_against_free() -> None:
    out = subprocess.run(["free", "-b"], capture_output=True, text=True, check=True).stdout
    mem = HostSampler().snapshot().memory
    row = out.splitlines()[1].split()
    total, used = int(row[1]), int(row[2])
    assert mem["total_mb"] == pytest.approx(total / 1e6, rel=0.001)
    assert mem["used_mb"] == pytest.approx(used / 1e6, rel=0.05, abs=50)


def test_database_devices_of_a_local_directory(tmp_path: Path) -> None:
    device = _device_for(tmp_path)
    topo = BlockTopology()
    assert database_devices(topo, [str(tmp_path)])[0] == device
    pgdata = tmp_path / "pgdata"
    (pgdata / "pg_tblspc").mkdir(parents=True)
    wal = tmp_path / "wal"
    wal.mkdir()
    (pgdata / "pg_wal").symlink_to(wal)
    (pgdata / "pg_tblspc" / "16384").symlink_to(tmp_path)
    assert postgres_paths(str(pgdata)) == [str(pgdata), str(wal), str(tmp_path)]
    assert is_local_host("/var/run/postgresql")
    assert is_local_host("localhost")
    assert not is_local_host("db7.example.com")


# ---- the monitor ---------------------------------------------------------------------------------


def test_monitor_idle_baseline_and_window_with_rapl(tmp_path: Path) -> None:
    tree = PowercapTree(tmp_path)
    events: list[tuple[str, dict[str, Any]]] = []

    def emit(kind: str, **data: Any) -> None:
        events.append((kind, data))

    watts = {"intel-rapl:0": 30.0, "intel-rapl:1": 20.0, "intel-rapl:0:1": 3.0}
    with EnergyClock(tree, watts, 262_143_328_850):
        monitor = Monitor.from_config(
            {"devices": [_device_for(tmp_path)]},
            {
                "meter": "rapl",
                "options": {"root": str(tree.root)},
                "idle_s": 2,
                "interval_s": 0.25,
            },
        )
        monitor.start()
        try:
            idle = monitor.idle_baseline(emit, threading.Event())
            t0 = time.monotonic()
            monitor.window_start()
            time.sleep(1.2)  # the measured window itself: power is integrated over it
            sample = monitor.sample_fields()
            t1 = time.monotonic()
            fields = monitor.window_fields(t0, t1, nopm=60_000.0)
        finally:
            monitor.close()
    assert idle is not None
    assert idle["idle_power_w"] == pytest.approx(53.0, rel=0.05)
    progress = [data for kind, data in events if kind == "progress"]
    assert len(progress) == 2
    assert progress[0]["task"] == "idle"
    assert "host" in progress[-1]
    assert progress[-1]["power"]["watts"] == pytest.approx(53.0, rel=0.2)
    assert any("idle power 5" in data.get("message", "") for kind, data in events if kind == "log")
    assert sample["power"]["watts"] == pytest.approx(53.0, rel=0.2)
    assert set(sample["host"]) >= {"cpu", "mem", "disks", "disk_total"}
    assert fields["power_w"] == pytest.approx(53.0, rel=0.05)
    assert fields["energy_j"] == pytest.approx(fields["power_w"] * (t1 - t0), rel=0.01)
    assert fields["mw_per_nopm"] == pytest.approx(1000 * fields["power_w"] / 60_000.0, rel=1e-3)
    assert fields["j_per_new_order"] == pytest.approx(60 * fields["power_w"] / 60_000.0, rel=1e-3)
    assert fields["idle_power_w"] == idle["idle_power_w"]
    assert fields["power_scope"] == "cpu"
    assert "not wall power" in fields["power_label"]
    assert fields["window_t1"] - fields["window_t0"] == pytest.approx(t1 - t0, abs=0.01)
    assert set(fields["host"]) >= {"cpu", "mem", "disks"}


def test_monitor_refuses_a_meter_without_readings(tmp_path: Path) -> None:
    monitor = Monitor.from_config(
        {"enabled": False}, {"meter": "csv", "options": {"path": str(tmp_path / "none.csv")}}
    )
    assert monitor.host is None
    from bench_gui.agent.power import MeterError

    with pytest.raises(MeterError, match="power meter csv: .*does not exist"):
        monitor.start()
    monitor.close()
