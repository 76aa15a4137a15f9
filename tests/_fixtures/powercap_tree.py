"""A powercap tree laid out in a temporary directory as the kernel lays out /sys for RAPL.

``/sys/devices/virtual/powercap/intel-rapl/intel-rapl:N[/intel-rapl:N:M]`` hold the zones
(``name``, ``energy_uj``, ``max_energy_range_uj``, ``enabled``, constraints); the
``/sys/class/powercap`` entries are symlinks to them, sub-zones included, as on a real host.
The tree has what a two-socket Xeon server shows: two packages each with a ``core`` and a
``dram`` sub-zone, a ``psys`` platform zone, and the ``intel-rapl-mmio`` copy of package 0 —
of which only the packages and the DRAM zones may be counted.

:class:`EnergyClock` advances the counters at given watts from a thread, wrapping at each
zone's ``max_energy_range_uj`` like the hardware, so a real agent can read a moving tree.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

MAX_RANGE_UJ = 262_143_328_850  # what Skylake-SP packages report

# (class entry, device path under devices/virtual/powercap, name)
ZONES = (
    ("intel-rapl:0", "intel-rapl/intel-rapl:0", "package-0"),
    ("intel-rapl:0:0", "intel-rapl/intel-rapl:0/intel-rapl:0:0", "core"),
    ("intel-rapl:0:1", "intel-rapl/intel-rapl:0/intel-rapl:0:1", "dram"),
    ("intel-rapl:1", "intel-rapl/intel-rapl:1", "package-1"),
    ("intel-rapl:1:0", "intel-rapl/intel-rapl:1/intel-rapl:1:0", "core"),
    ("intel-rapl:1:1", "intel-rapl/intel-rapl:1/intel-rapl:1:1", "dram"),
    ("intel-rapl:2", "intel-rapl/intel-rapl:2", "psys"),
    ("intel-rapl-mmio:0", "intel-rapl-mmio/intel-rapl-mmio:0", "package-0"),
)


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text + "\n", encoding="ascii")
    os.replace(tmp, path)  # readers never see a half-written value


class PowercapTree:
    """The tree under ``sys`` in ``base``; :attr:`root` is the ``/sys/class/powercap`` to use."""

    def __init__(self, base: Path, max_range_uj: int = MAX_RANGE_UJ, zones=ZONES) -> None:
        self.sys = base / "sys"
        self.root = self.sys / "class" / "powercap"
        self.devices = self.sys / "devices" / "virtual" / "powercap"
        self.root.mkdir(parents=True)
        self.zone_dirs: dict[str, Path] = {}
        for control in ("intel-rapl", "intel-rapl-mmio"):
            (self.devices / control).mkdir(parents=True, exist_ok=True)
            _write(self.devices / control / "enabled", "1")
            os.symlink(os.path.relpath(self.devices / control, self.root), self.root / control)
        for entry, rel, name in zones:
            folder = self.devices / rel
            folder.mkdir(parents=True)
            _write(folder / "name", name)
            _write(folder / "enabled", "1")
            _write(folder / "max_energy_range_uj", str(max_range_uj))
            _write(folder / "energy_uj", "0")
            _write(folder / "constraint_0_name", "long_term")
            _write(folder / "constraint_0_power_limit_uw", "165000000")
            _write(folder / "constraint_0_time_window_us", "999424")
            os.symlink(os.path.relpath(folder, self.root), self.root / entry)
            self.zone_dirs[entry] = folder

    def set_energy(self, entry: str, uj: int) -> None:
        _write(self.zone_dirs[entry] / "energy_uj", str(uj))

    def energy(self, entry: str) -> int:
        return int((self.zone_dirs[entry] / "energy_uj").read_text())


class EnergyClock:
    """Advances every zone's counter at its watts, modulo the zone's range, from a thread."""

    def __init__(self, tree: PowercapTree, watts: dict[str, float], max_range_uj: int) -> None:
        self.tree = tree
        self.watts = watts
        self.max_range_uj = max_range_uj
        self._stop = threading.Event()
        self._ticked = threading.Event()
        self._thread = threading.Thread(target=self._run, name="energy-clock", daemon=True)
        self._t0 = 0.0

    def _run(self) -> None:
        while not self._stop.is_set():
            elapsed = time.monotonic() - self._t0
            for entry, watts in self.watts.items():
                self.tree.set_energy(entry, int(watts * elapsed * 1e6) % self.max_range_uj)
            self._ticked.set()
            self._stop.wait(0.02)

    def __enter__(self) -> EnergyClock:
        self._t0 = time.monotonic()
        self._thread.start()
        # The counters have moved once: a meter opened now reads a running clock.
        if not self._ticked.wait(5):
            raise RuntimeError("the energy clock did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
