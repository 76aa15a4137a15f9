"""CSV power log plugin: a wall meter's or PDU's log with timestamps and watts.

During a run the agent reads the log as another program writes it on the agent's host. After
a run, :func:`bench_gui.core.power.read_power_log` reads a log taken anywhere and
:meth:`bench_gui.store.SessionStore.import_power_log` gives each stored step its power figures
over the step's measured window (``window_t0``/``window_t1``, wall-clock times in the step
summary).
"""

from __future__ import annotations

from bench_gui.core.power import SCOPE_WALL
from bench_gui_plugins.power_base import BuiltinMeterKind


class CsvMeterKind(BuiltinMeterKind):
    name = "csv"
    scope = SCOPE_WALL
