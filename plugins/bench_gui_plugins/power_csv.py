"""CSV power log plugin: a wall meter's or PDU's log with timestamps and watts.

During a run the agent reads the log as another program writes it on the agent's host. After
a run, :func:`import_log` reads a log taken anywhere and
:func:`bench_gui.core.power.apply_power_log` gives each stored step its power figures over the
step's measured window (``window_t0``/``window_t1``, wall-clock times in the step summary).
"""

from __future__ import annotations

from pathlib import Path

from bench_gui.agent.power import MeterError, parse_power_csv
from bench_gui.core.power import SCOPE_WALL, PowerReading
from bench_gui_plugins.power_base import BuiltinMeterKind


class CsvMeterKind(BuiltinMeterKind):
    name = "csv"
    scope = SCOPE_WALL


def import_log(path: Path, time_column: str = "", watts_column: str = "") -> list[PowerReading]:
    """Every reading of a CSV power log (wall-clock times); ValueError naming what is wrong."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        rows = parse_power_csv(text, time_column, watts_column)
    except MeterError as exc:
        raise ValueError(f"{path}: {exc}") from exc
    if not rows:
        raise ValueError(f"{path}: no readings")
    return [PowerReading(t, w, "csv") for t, w in rows]
