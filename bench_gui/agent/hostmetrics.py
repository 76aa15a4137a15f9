"""Host metrics sampled by the agent once a second: CPU, block devices, memory (Linux, stdlib).

Everything comes from the kernel's own counters, read the way ``vmstat`` and ``iostat`` read
them, so the figures can be checked against those tools:

- CPU (``/proc/stat``): user (+nice), system (+irq, softirq), iowait, idle and steal as a
  percentage of the interval, for the whole host and per socket (``physical_package_id`` in
  ``/sys/devices/system/cpu``) when there is more than one.
- Block devices (``/proc/diskstats``): read/write IOPS, MB/s (10⁶ bytes; the kernel counts
  512-byte sectors whatever the device's block size), average latency of the requests that
  completed (await, ms), average queue depth (``aqu-sz``) and utilisation.
- Memory (``/proc/meminfo``): used (total − available, as ``free`` shows it), page cache,
  dirty and under writeback.

Devices are counted once. A partition's I/O is also counted in its disk, and an array's (MD,
device mapper) I/O is issued again to its members, so a partition and its disk, or an array
and its members, must never be added up. :func:`device_totals_set` picks the devices whose
sum is the real total: the upper devices (what the database writes to), and a lower device
only when nothing above it in the selection already counts its I/O.

:class:`Monitor` ties host metrics and the power meter together for the sweep: the fields of
each ``sample`` event, exact averages over a step's measured window, and the idle baseline.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench_gui.agent.power import (
    MeterError,
    PowerSampler,
    joules_per_new_order,
    make_meter,
    mw_per_nopm,
)
from bench_gui.wire.power_math import significant

SECTOR_BYTES = 512
# Devices never worth charting unless asked for by name.
VIRTUAL_PREFIXES = ("loop", "ram", "zram", "nbd", "fd", "sr")

# ---- CPU --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CpuTimes:
    """Jiffies of one CPU line of /proc/stat (guest time is already inside user and nice)."""

    user: int
    nice: int
    system: int
    idle: int
    iowait: int
    irq: int
    softirq: int
    steal: int

    @property
    def total(self) -> int:
        return (
            self.user
            + self.nice
            + self.system
            + self.idle
            + self.iowait
            + self.irq
            + self.softirq
            + self.steal
        )

    def __add__(self, other: CpuTimes) -> CpuTimes:
        return CpuTimes(*(a + b for a, b in zip(_cpu_tuple(self), _cpu_tuple(other), strict=True)))


def _cpu_tuple(c: CpuTimes) -> tuple[int, ...]:
    return (c.user, c.nice, c.system, c.idle, c.iowait, c.irq, c.softirq, c.steal)


ZERO_CPU = CpuTimes(0, 0, 0, 0, 0, 0, 0, 0)


def parse_proc_stat(text: str) -> dict[str, CpuTimes]:
    """``{"cpu": all, "cpu0": ..., ...}`` from /proc/stat."""
    result: dict[str, CpuTimes] = {}
    for line in text.splitlines():
        if not line.startswith("cpu"):
            continue
        parts = line.split()
        values = [int(v) for v in parts[1:9]]
        values += [0] * (8 - len(values))
        result[parts[0]] = CpuTimes(*values)
    return result


def cpu_percent(a: CpuTimes, b: CpuTimes) -> dict[str, float]:
    """Shares of the interval between two readings, in percent (vmstat's us/sy/wa/id/st)."""
    total = b.total - a.total
    if total <= 0:
        return {}

    def pct(delta: int) -> float:
        return round(100.0 * max(0, delta) / total, 2)

    return {
        "user": pct(b.user + b.nice - a.user - a.nice),
        "system": pct(b.system + b.irq + b.softirq - a.system - a.irq - a.softirq),
        "iowait": pct(b.iowait - a.iowait),
        "idle": pct(b.idle - a.idle),
        "steal": pct(b.steal - a.steal),
    }


def cpu_sockets(sys_root: str = "/sys") -> dict[str, int]:
    """``{"cpu0": socket, ...}`` from the CPU topology (empty when it cannot be read)."""
    base = os.path.join(sys_root, "devices", "system", "cpu")
    sockets: dict[str, int] = {}
    try:
        names = os.listdir(base)
    except OSError:
        return sockets
    for name in names:
        if not re.fullmatch(r"cpu\d+", name):
            continue
        try:
            with open(os.path.join(base, name, "topology", "physical_package_id")) as fh:
                sockets[name] = int(fh.read().strip())
        except (OSError, ValueError):
            continue
    return sockets


def socket_times(
    per_cpu: Mapping[str, CpuTimes], sockets: Mapping[str, int]
) -> dict[int, CpuTimes]:
    """CPU times summed per socket (CPUs missing from /proc/stat are offline: skipped)."""
    result: dict[int, CpuTimes] = {}
    for cpu, socket in sockets.items():
        times = per_cpu.get(cpu)
        if times is not None:
            result[socket] = result.get(socket, ZERO_CPU) + times
    return result


# ---- block devices ----------------------------------------------------------------------------


@dataclass(frozen=True)
class DiskCounters:
    """The I/O fields of one /proc/diskstats line (kernel Documentation/admin-guide/iostats)."""

    rd_ios: int
    rd_merges: int
    rd_sectors: int
    rd_ticks: int  # ms
    wr_ios: int
    wr_merges: int
    wr_sectors: int
    wr_ticks: int  # ms
    in_flight: int
    io_ticks: int  # ms the device had I/O in flight
    time_in_queue: int  # ms, weighted by the requests in flight


def parse_diskstats(text: str) -> dict[str, DiskCounters]:
    result: dict[str, DiskCounters] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 14:
            continue
        try:
            values = [int(v) for v in parts[3:14]]
        except ValueError:
            continue
        result[parts[2]] = DiskCounters(*values)
    return result


def disk_rates(a: DiskCounters, b: DiskCounters, seconds: float) -> dict[str, float]:
    """iostat -x's figures between two readings ``seconds`` apart.

    ``r_await``/``w_await``/``await`` are the mean time (ms) of the requests that completed in
    the interval, queueing included; ``aqu_sz`` the mean number of requests in the device's
    queue; ``util`` the percentage of the interval with I/O in flight.
    """
    if seconds <= 0:
        return {}
    rd = b.rd_ios - a.rd_ios
    wr = b.wr_ios - a.wr_ios
    rd_ticks = b.rd_ticks - a.rd_ticks
    wr_ticks = b.wr_ticks - a.wr_ticks
    if min(rd, wr) < 0:  # the device was removed and re-added: no rate this time
        return {}

    def r(value: float, digits: int = 2) -> float:
        return round(value, digits)

    return {
        "r_iops": r(rd / seconds, 1),
        "w_iops": r(wr / seconds, 1),
        "r_mbs": r((b.rd_sectors - a.rd_sectors) * SECTOR_BYTES / 1e6 / seconds, 3),
        "w_mbs": r((b.wr_sectors - a.wr_sectors) * SECTOR_BYTES / 1e6 / seconds, 3),
        "r_await": r(rd_ticks / rd, 3) if rd else 0.0,
        "w_await": r(wr_ticks / wr, 3) if wr else 0.0,
        "await": r((rd_ticks + wr_ticks) / (rd + wr), 3) if rd + wr else 0.0,
        "aqu_sz": r((b.time_in_queue - a.time_in_queue) / 1000.0 / seconds, 3),
        "util": r(min(100.0, (b.io_ticks - a.io_ticks) / 10.0 / seconds), 1),
    }


def sum_rates(rates: Iterable[Mapping[str, float]]) -> dict[str, float]:
    """Several devices as one: rates and queue depths add, latencies are weighted by IOPS."""
    rows = list(rates)
    if not rows:
        return {}
    total = {
        k: round(sum(r.get(k, 0.0) for r in rows), 3)
        for k in ("r_iops", "w_iops", "r_mbs", "w_mbs", "aqu_sz")
    }
    for key, weight in (("r_await", "r_iops"), ("w_await", "w_iops")):
        ios = sum(r.get(weight, 0.0) for r in rows)
        total[key] = (
            round(sum(r.get(key, 0.0) * r.get(weight, 0.0) for r in rows) / ios, 3) if ios else 0.0
        )
    ios = total["r_iops"] + total["w_iops"]
    total["await"] = (
        round((total["r_await"] * total["r_iops"] + total["w_await"] * total["w_iops"]) / ios, 3)
        if ios
        else 0.0
    )
    total["util"] = round(max(r.get("util", 0.0) for r in rows), 1)
    return total


@dataclass(frozen=True)
class BlockDevice:
    """A block device as sysfs describes it."""

    name: str
    partition_of: str | None  # the whole disk of a partition
    slaves: tuple[str, ...]  # the devices an array or mapping issues its I/O to

    @property
    def kind(self) -> str:
        if self.partition_of:
            return "part"
        if self.name.startswith("md"):
            return "md"
        if self.name.startswith("dm-"):
            return "dm"
        return "disk"


class BlockTopology:
    """Partitions and holders from ``/sys/class/block``: which device's I/O lands where."""

    def __init__(self, sys_root: str = "/sys") -> None:
        self.sys_root = sys_root
        self.devices: dict[str, BlockDevice] = {}
        base = os.path.join(sys_root, "class", "block")
        try:
            names = sorted(os.listdir(base))
        except OSError:
            names = []
        for name in names:
            path = os.path.join(base, name)
            partition_of = None
            if os.path.exists(os.path.join(path, "partition")):
                partition_of = os.path.basename(os.path.dirname(os.path.realpath(path)))
            try:
                slaves = tuple(sorted(os.listdir(os.path.join(path, "slaves"))))
            except OSError:
                slaves = ()
            self.devices[name] = BlockDevice(name, partition_of, slaves)

    def whole(self, name: str) -> str:
        """The whole device of a partition (the name itself otherwise)."""
        dev = self.devices.get(name)
        return dev.partition_of if dev is not None and dev.partition_of else name

    def below(self, name: str) -> set[str]:
        """Every device that also counts the I/O of ``name``: its disk if it is a partition,
        its members (and theirs, and their disks) if it is an array or a mapping."""
        seen: set[str] = set()
        todo = [name]
        while todo:
            dev = self.devices.get(todo.pop())
            if dev is None:
                continue
            nxt = list(dev.slaves)
            if dev.partition_of:
                nxt.append(dev.partition_of)
            for other in nxt:
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        return seen

    def leaves(self, name: str) -> list[str]:
        """The whole physical devices under ``name`` (itself for a plain disk)."""
        below = self.below(name) | {name}
        return sorted(
            d
            for d in below
            if d in self.devices and not self.devices[d].slaves and not self.devices[d].partition_of
        )

    def whole_devices(self) -> list[str]:
        """Disks and arrays (no partitions, no loop/ram/zram devices)."""
        return [
            d.name
            for d in self.devices.values()
            if not d.partition_of and not d.name.startswith(VIRTUAL_PREFIXES)
        ]

    def device_of(self, path: str) -> str | None:
        """The block device a path's filesystem lives on (None when it cannot be told)."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        major, minor = os.major(st.st_dev), os.minor(st.st_dev)
        if major != 0:
            link = os.path.join(self.sys_root, "dev", "block", f"{major}:{minor}")
            if os.path.exists(link):
                return os.path.basename(os.path.realpath(link))
        return _device_from_mountinfo(path)


def _device_from_mountinfo(path: str) -> str | None:
    """The mount source of the mount holding ``path`` (btrfs and others give no real st_dev)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    real = os.path.realpath(path)
    best: tuple[int, str] | None = None
    for line in lines:
        left, _, right = line.partition(" - ")
        fields = left.split()
        rest = right.split()
        if len(fields) < 5 or len(rest) < 2:
            continue
        mount = fields[4].replace("\\040", " ")
        inside = real == mount or real.startswith(mount.rstrip("/") + "/")
        if inside and (best is None or len(mount) > best[0]):
            best = (len(mount), rest[1])
    if best is None or not best[1].startswith("/dev/"):
        return None
    return os.path.basename(os.path.realpath(best[1]))


def device_totals_set(topology: BlockTopology, names: Sequence[str]) -> list[str]:
    """The devices of ``names`` whose I/O adds up to the true total, each I/O counted once.

    Arrays and mappings come first (what the database writes to, rather than their members),
    then whole disks (a disk counts all of its partitions), then partitions; a device is added
    only when none already chosen counts its I/O or has its I/O counted.
    """
    below = {n: topology.below(n) for n in names}
    under_other = {n for n in names for m in names if m != n and n in below[m]}

    def rank(name: str) -> tuple[int, bool]:
        dev = topology.devices.get(name)
        level = 1
        if dev is not None and dev.partition_of:
            level = 2
        elif dev is not None and dev.slaves:
            level = 0
        return (level, name in under_other)

    order = sorted(names, key=rank)
    chosen: list[str] = []
    for name in order:
        if all(name not in below[c] and c not in below[name] for c in chosen):
            chosen.append(name)
    return chosen


def database_devices(topology: BlockTopology, paths: Iterable[str]) -> list[str]:
    """Whole devices and arrays the database's paths live on, with the members of arrays."""
    found: list[str] = []
    for path in paths:
        dev = topology.device_of(path)
        if dev is None:
            continue
        top = topology.whole(dev)
        for name in [top, *(d for d in topology.leaves(top) if d != top)]:
            if name not in found:
                found.append(name)
    return found


def postgres_paths(data_directory: str) -> list[str]:
    """The data directory, its WAL directory and its tablespaces (what can be read of them)."""
    paths = [data_directory]
    for sub in ("pg_wal",):
        candidate = os.path.join(data_directory, sub)
        try:
            paths.append(os.path.realpath(candidate, strict=True))
        except OSError:
            pass
    try:
        for entry in os.listdir(os.path.join(data_directory, "pg_tblspc")):
            paths.append(os.path.realpath(os.path.join(data_directory, "pg_tblspc", entry)))
    except OSError:
        pass
    return paths


def is_local_host(host: str) -> bool:
    """Whether a libpq host names this machine (a socket directory, localhost, our name)."""
    if not host or host.startswith("/") or host.startswith("@"):
        return True
    import socket

    names = {"localhost", "127.0.0.1", "::1", socket.gethostname(), socket.getfqdn()}
    return host.split(",")[0] in names


# ---- memory -----------------------------------------------------------------------------------


def parse_meminfo(text: str) -> dict[str, int]:
    """/proc/meminfo in kB."""
    result: dict[str, int] = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        parts = rest.split()
        if parts:
            try:
                result[name.strip()] = int(parts[0])
            except ValueError:
                continue
    return result


def memory_figures(info: Mapping[str, int]) -> dict[str, float]:
    """Used, page cache, dirty, writeback and total, in MB (10⁶ bytes)."""

    def mb(kb: int) -> float:
        return round(kb * 1024 / 1e6, 1)

    total = info.get("MemTotal", 0)
    available = info.get("MemAvailable")
    if available is None:  # kernels before 3.14
        available = info.get("MemFree", 0) + info.get("Buffers", 0) + info.get("Cached", 0)
    return {
        "used_mb": mb(total - available),
        "cache_mb": mb(info.get("Cached", 0) + info.get("Buffers", 0)),
        "dirty_mb": mb(info.get("Dirty", 0)),
        "writeback_mb": mb(info.get("Writeback", 0)),
        "total_mb": mb(total),
    }


# ---- the sampler ------------------------------------------------------------------------------


def _read(path: str) -> str:
    with open(path, encoding="ascii", errors="replace") as fh:
        return fh.read()


@dataclass
class HostSnapshot:
    """The kernel's counters at one instant (monotonic ``t``)."""

    t: float
    cpu: CpuTimes | None
    sockets: dict[int, CpuTimes]
    disks: dict[str, DiskCounters]
    memory: dict[str, float]


class HostSampler:
    """Reads the counters and turns two snapshots into the rates of the interval.

    ``devices`` are the block devices reported one by one (others are ignored), and
    ``totals`` the subset whose sum is the ``disk_total`` (see :func:`device_totals_set`).
    """

    def __init__(
        self,
        devices: Sequence[str] = (),
        proc_root: str = "/proc",
        sys_root: str = "/sys",
        topology: BlockTopology | None = None,
    ) -> None:
        self.proc_root = proc_root
        self.sys_root = sys_root
        self.topology = topology or BlockTopology(sys_root)
        self.devices = list(dict.fromkeys(devices))
        self.totals = device_totals_set(self.topology, self.devices)
        self._sockets = cpu_sockets(sys_root)
        if len(set(self._sockets.values())) < 2:
            self._sockets = {}  # one socket: the host line says it all
        self.last: HostSnapshot | None = None

    def snapshot(self) -> HostSnapshot:
        t = time.monotonic()
        cpu: CpuTimes | None = None
        sockets: dict[int, CpuTimes] = {}
        try:
            per_cpu = parse_proc_stat(_read(os.path.join(self.proc_root, "stat")))
            cpu = per_cpu.get("cpu")
            if self._sockets:
                sockets = socket_times(per_cpu, self._sockets)
        except OSError:
            pass
        disks: dict[str, DiskCounters] = {}
        if self.devices:
            try:
                stats = parse_diskstats(_read(os.path.join(self.proc_root, "diskstats")))
                disks = {d: stats[d] for d in self.devices if d in stats}
            except OSError:
                pass
        try:
            memory = memory_figures(parse_meminfo(_read(os.path.join(self.proc_root, "meminfo"))))
        except OSError:
            memory = {}
        return HostSnapshot(t, cpu, sockets, disks, memory)

    def rates(self, a: HostSnapshot, b: HostSnapshot) -> dict[str, Any]:
        """The ``host`` payload: CPU and disk rates between two snapshots, memory at ``b``."""
        seconds = b.t - a.t
        out: dict[str, Any] = {"interval_s": round(seconds, 3)}
        if a.cpu is not None and b.cpu is not None:
            cpu: dict[str, Any] = cpu_percent(a.cpu, b.cpu)
            if b.sockets:
                cpu["sockets"] = {
                    str(s): cpu_percent(a.sockets[s], times)
                    for s, times in sorted(b.sockets.items())
                    if s in a.sockets
                }
            out["cpu"] = cpu
        disks = {
            name: disk_rates(a.disks[name], b.disks[name], seconds)
            for name in self.devices
            if name in a.disks and name in b.disks
        }
        disks = {name: rates for name, rates in disks.items() if rates}
        if disks:
            out["disks"] = disks
            out["disk_total"] = sum_rates(disks[n] for n in self.totals if n in disks)
        if b.memory:
            out["mem"] = b.memory
        return out

    def tick(self) -> dict[str, Any] | None:
        """Rates since the previous tick (None on the first)."""
        snap = self.snapshot()
        previous, self.last = self.last, snap
        return None if previous is None else self.rates(previous, snap)


# ---- the monitor the sweep uses ---------------------------------------------------------------


def _wall(t_monotonic: float) -> float:
    return round(time.time() - time.monotonic() + t_monotonic, 3)


@dataclass
class Monitor:
    """Host metrics and power for a sweep: sample fields, window figures, the idle baseline."""

    host: HostSampler | None = None
    power: PowerSampler | None = None
    meter_kind: str = "none"
    idle_s: float = 0.0
    idle_w: float | None = None
    notes: list[str] = field(default_factory=list)
    _window: HostSnapshot | None = field(default=None, init=False, repr=False)
    _window_end: HostSnapshot | None = field(default=None, init=False, repr=False)
    _idle: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def from_config(
        cls,
        monitor: Mapping[str, Any],
        power: Mapping[str, Any],
        db_paths: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> Monitor:
        """Build from the run configuration; a meter that cannot be set up raises MeterError."""
        mon = cls()
        if monitor.get("enabled", True) is not False:
            topology = BlockTopology()
            wanted = [str(d).removeprefix("/dev/") for d in monitor.get("devices") or []]
            if wanted:
                unknown = [d for d in wanted if d not in topology.devices]
                if unknown:
                    mon.notes.append(f"no block device named {', '.join(unknown)} on this host")
                devices = [d for d in wanted if d in topology.devices]
                where = "chosen"
            else:
                devices = database_devices(topology, db_paths)
                where = "the database's"
                if not devices:
                    devices = topology.whole_devices()
                    where = "all"
            mon.host = HostSampler(devices, topology=topology)
            if devices:
                total = ", ".join(mon.host.totals)
                mon.notes.append(
                    f"host metrics: CPU, memory, {where} block devices {', '.join(devices)}"
                    f" (total counts {total} once)"
                )
        meter = make_meter(power, env)
        if meter is not None:
            mon.meter_kind = str(power.get("meter"))
            interval = power.get("interval_s", 1.0)
            mon.power = PowerSampler(
                meter, float(interval) if isinstance(interval, int | float) else 1.0
            )
            idle = power.get("idle_s", 0)
            mon.idle_s = float(idle) if isinstance(idle, int | float) else 0.0
        return mon

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        """First host snapshot; a power meter must give a reading now or the run stops."""
        if self.host is not None:
            self.host.tick()
        if self.power is not None:
            try:
                self.power.probe()
            except MeterError as exc:
                raise MeterError(f"power meter {self.meter_kind}: {exc}") from None
            except (OSError, ValueError) as exc:
                raise MeterError(f"power meter {self.meter_kind}: {exc}") from None
            self.power.start()
            self.notes.append(f"power: {self.power.meter.label}")

    def close(self) -> None:
        if self.power is not None:
            self.power.close()

    @property
    def power_info(self) -> dict[str, Any]:
        if self.power is None:
            return {}
        meter = self.power.meter
        return {
            "power_meter": self.meter_kind,
            "power_scope": meter.scope,
            "power_label": meter.label,
        }

    # -- per second -----------------------------------------------------------------------------

    def sample_fields(self) -> dict[str, Any]:
        """``host`` and ``power`` for one sample event."""
        fields: dict[str, Any] = {}
        if self.host is not None:
            host = self.host.tick()
            if host:
                fields["host"] = host
        if self.power is not None:
            stale = 3 * self.power.interval_s + 5.0
            reading = self.power.latest(max_age_s=stale)
            power: dict[str, Any] = {
                "watts": None if reading is None else round(reading.watts or 0.0, 2)
            }
            if self.power.last_error:
                power["error"] = self.power.last_error
            fields["power"] = power
        return fields

    # -- the measured window --------------------------------------------------------------------

    def window_start(self) -> None:
        """The measured window opens: host counters now (power readings are kept anyway)."""
        if self.host is not None:
            self._window = self.host.snapshot()
        self._window_end = None

    def window_end(self, t1: float) -> None:
        """The window closes at ``t1``: host counters now, and a power reading at or after
        ``t1`` while the load still runs (the users are stopped afterwards)."""
        if self.host is not None:
            self._window_end = self.host.snapshot()
        if self.power is not None:
            self.power.cover(t1, timeout_s=2 * self.power.interval_s + 5.0)

    def window_fields(self, t0: float, t1: float, nopm: float | None) -> dict[str, Any]:
        """Figures over exactly the measured window [t0, t1] (monotonic)."""
        fields: dict[str, Any] = {"window_t0": _wall(t0), "window_t1": _wall(t1)}
        if self.host is not None and self._window is not None:
            end = self._window_end or self.host.snapshot()
            fields["host"] = self.host.rates(self._window, end)
        self._window = self._window_end = None
        if self.power is not None:
            fields.update(self.power_info)
            fields["idle_power_w"] = self.idle_w
            self.power.cover(t1, timeout_s=2 * self.power.interval_s + 5.0)
            window = self.power.window(t0, t1)
            if window is None:
                reason = self.power.last_error or "the readings do not cover the window"
                fields.update(power_w=None, power_error=reason)
            else:
                fields.update(
                    power_w=round(window.watts, 3),
                    energy_j=round(window.energy_j, 1),
                    power_readings=window.readings,
                )
                if nopm:
                    fields["mw_per_nopm"] = significant(mw_per_nopm(window.watts, nopm))
                    fields["j_per_new_order"] = significant(
                        joules_per_new_order(window.watts, nopm)
                    )
        return fields

    # -- the idle baseline ----------------------------------------------------------------------

    def idle_baseline(
        self,
        emit: Callable[..., Any],
        stop: threading.Event,
    ) -> dict[str, Any] | None:
        """Measure power (and the host) with no load for ``idle_s`` seconds before step 1.

        Emits a ``progress`` event a second (task ``idle``, with the live watts) and a log line
        with the result; returns the figures, also kept for every step's summary.
        """
        if self.power is None or self.idle_s <= 0:
            return None
        t0 = time.monotonic()
        if self.host is not None:
            self.window_start()
        end = t0 + self.idle_s
        second = 0
        while not stop.is_set():
            now = time.monotonic()
            if now >= end:
                break
            stop.wait(min(1.0, end - now))
            second += 1
            emit(
                "progress",
                task="idle",
                done=round(min(self.idle_s, time.monotonic() - t0), 1),
                total=self.idle_s,
                unit="s",
                message="measuring idle power",
                **self.sample_fields(),
            )
        t1 = time.monotonic()
        if stop.is_set() or t1 - t0 < 0.5:
            return None
        figures = self.window_fields(t0, t1, None)
        self.idle_w = figures.get("power_w")
        self._idle = {
            "idle_power_w": self.idle_w,
            "idle_s": round(t1 - t0, 3),
            **({"idle_host": figures["host"]} if "host" in figures else {}),
        }
        if self.idle_w is None:
            emit(
                "log",
                level="warning",
                message=f"idle power not measured: {figures.get('power_error', 'no readings')}",
            )
        else:
            emit(
                "log",
                level="info",
                message=f"idle power {self.idle_w:.1f} W over {t1 - t0:.0f} s"
                f" ({self.power.meter.label})",
            )
        return dict(self._idle)

    @property
    def idle(self) -> dict[str, Any]:
        return dict(self._idle)


__all__ = [
    "BlockDevice",
    "BlockTopology",
    "CpuTimes",
    "DiskCounters",
    "HostSampler",
    "HostSnapshot",
    "Monitor",
    "cpu_percent",
    "cpu_sockets",
    "database_devices",
    "device_totals_set",
    "disk_rates",
    "is_local_host",
    "memory_figures",
    "parse_diskstats",
    "parse_meminfo",
    "parse_proc_stat",
    "postgres_paths",
    "sum_rates",
]
