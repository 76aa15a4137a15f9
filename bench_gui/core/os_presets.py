"""The OS presets: the kernel knobs a brief set (seed 003: NUMA balancing, scheduler
granularity, dirty ratios, read-ahead), applied on the database host around a run whatever its
engine (:mod:`bench_gui.remote.osknobs` applies and restores them). Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final


@dataclass(frozen=True)
class OsPreset:
    """Kernel knobs a brief set: sysctl names, plus ``read_ahead_kb``/``scheduler`` for the
    data devices and ``transparent_hugepage`` for THP."""

    name: str
    title: str
    knobs: dict[str, str]
    source: str = ""
    notes: list[str] = field(default_factory=list)


BUILTIN_OS_PRESETS: Final[dict[str, OsPreset]] = {
    "micron-9300-linux": OsPreset(
        name="micron-9300-linux",
        title="Seed 003: kernel knobs of the 9300 NVMe runs",
        knobs={
            "kernel.numa_balancing": "0",
            "vm.max_map_count": "262144",
            "kernel.sched_min_granularity_ns": "10000000",
            "kernel.sched_wakeup_granularity_ns": "15000000",
            "vm.dirty_ratio": "40",
            "vm.dirty_background_ratio": "10",
            "read_ahead_kb": "2048",
        },
        source="seeds/003 (Micron 9300 brief), Table 2, OS Settings (read-ahead by udev rule)",
        notes=[
            "kernels since 6.6 (EEVDF) have no sched_min/wakeup_granularity_ns: reported as"
            " missing, not an error"
        ],
    )
}
