"""RAPL power meter plugin: CPU package (+ DRAM) energy counters of the agent's host.

The powercap counters (``/sys/class/powercap/intel-rapl:N[:M]``) measure the CPU packages and
their DRAM, not the system at the wall: every figure from this meter is labelled so. The
counters wrap around at ``max_energy_range_uj`` (handled) and are readable by root only on
current kernels.
"""

from __future__ import annotations

from bench_gui.core.power import SCOPE_CPU
from bench_gui_plugins.power_base import BuiltinMeterKind


class RaplMeterKind(BuiltinMeterKind):
    name = "rapl"
    scope = SCOPE_CPU
