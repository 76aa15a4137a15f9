"""The OS knobs a run depends on, read from /proc/sys and /sys: recorded with every run.

Stdlib only (this runs on the target and the driver host). The knob list lives here, once:
the desktop side's :mod:`bench_gui.remote.osknobs` reads and changes the same knobs.

- sysctls: dirty ratios, swappiness, NUMA balancing, max_map_count and the scheduler's
  granularity, which moved from ``/proc/sys/kernel`` (up to 5.12) to debugfs (5.13-6.5) and was
  replaced by ``base_slice_ns`` with EEVDF (6.6+); a knob the kernel lacks is listed under
  ``missing``, not an error;
- per block device: ``read_ahead_kb``, the I/O ``scheduler`` (the selected one of
  ``none [mq-deadline] kyber``), ``rotational``;
- transparent huge pages: ``enabled`` and ``defrag``.
"""

from __future__ import annotations

import os
import re

PROC_SYS = "/proc/sys"
DEBUGFS_SCHED = "/sys/kernel/debug/sched"
THP_DIR = "/sys/kernel/mm/transparent_hugepage"
SYS_BLOCK = "/sys/block"

# sysctl name -> where a kernel may keep it, first found wins.
SYSCTLS: dict[str, tuple[str, ...]] = {
    "vm.dirty_ratio": (f"{PROC_SYS}/vm/dirty_ratio",),
    "vm.dirty_background_ratio": (f"{PROC_SYS}/vm/dirty_background_ratio",),
    "vm.dirty_bytes": (f"{PROC_SYS}/vm/dirty_bytes",),
    "vm.dirty_background_bytes": (f"{PROC_SYS}/vm/dirty_background_bytes",),
    "vm.swappiness": (f"{PROC_SYS}/vm/swappiness",),
    "vm.max_map_count": (f"{PROC_SYS}/vm/max_map_count",),
    "vm.overcommit_memory": (f"{PROC_SYS}/vm/overcommit_memory",),
    "kernel.numa_balancing": (f"{PROC_SYS}/kernel/numa_balancing",),
    "kernel.sched_min_granularity_ns": (
        f"{PROC_SYS}/kernel/sched_min_granularity_ns",
        f"{DEBUGFS_SCHED}/min_granularity_ns",
    ),
    "kernel.sched_wakeup_granularity_ns": (
        f"{PROC_SYS}/kernel/sched_wakeup_granularity_ns",
        f"{DEBUGFS_SCHED}/wakeup_granularity_ns",
    ),
    "kernel.sched_migration_cost_ns": (
        f"{PROC_SYS}/kernel/sched_migration_cost_ns",
        f"{DEBUGFS_SCHED}/migration_cost_ns",
    ),
    "kernel.sched_base_slice_ns": (f"{DEBUGFS_SCHED}/base_slice_ns",),
}
THP_KNOBS = ("enabled", "defrag")
BLOCK_KNOBS = ("read_ahead_kb", "scheduler", "rotational", "nr_requests")


def selected(text: str) -> str:
    """The selected choice of ``none [mq-deadline] kyber`` (the text itself if none is)."""
    match = re.search(r"\[([^\]]+)\]", text)
    return match.group(1) if match else text.strip()


def choices(text: str) -> list[str]:
    """Every choice of ``none [mq-deadline] kyber``."""
    return [c.strip("[]") for c in text.split()]


def is_data_candidate(name: str, has_backing_file: bool) -> bool:
    """Block devices worth recording: not RAM disks, zram, floppies, CD-ROMs or idle loops."""
    if name.startswith(("ram", "zram", "fd", "sr")):
        return False
    return not name.startswith("loop") or has_backing_file


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read().strip()
    except OSError:
        return None


def os_knobs() -> dict[str, object]:
    """Every knob this host has: ``{"sysctl": {...}, "thp": {...}, "block": {...},
    "missing": [...]}``; values as the kernel shows them (selected choice for lists)."""
    sysctl: dict[str, str] = {}
    missing: list[str] = []
    for name, paths in SYSCTLS.items():
        for path in paths:
            value = _read(path)
            if value is not None:
                sysctl[name] = value
                break
        else:
            missing.append(name)
    thp: dict[str, str] = {}
    for knob in THP_KNOBS:
        value = _read(f"{THP_DIR}/{knob}")
        if value is None:
            missing.append(f"transparent_hugepage.{knob}")
        else:
            thp[knob] = selected(value)
    block: dict[str, dict[str, str]] = {}
    try:
        names = sorted(os.listdir(SYS_BLOCK))
    except OSError:
        names = []
    for name in names:
        backing = os.path.exists(f"{SYS_BLOCK}/{name}/loop/backing_file")
        if not is_data_candidate(name, backing):
            continue
        info: dict[str, str] = {}
        for knob in BLOCK_KNOBS:
            value = _read(f"{SYS_BLOCK}/{name}/queue/{knob}")
            if value is not None:
                info[knob] = selected(value) if knob == "scheduler" else value
        block[name] = info
    return {"sysctl": sysctl, "thp": thp, "block": block, "missing": missing}


if __name__ == "__main__":
    import json

    print(json.dumps(os_knobs(), indent=1))  # noqa: T201
