"""The power-meter seam and the arithmetic of power per unit of work.

Meters (IPMI DCMI, Redfish, RAPL, an imported log) are plugins in the ``bench_gui.power_meters``
entry-point group, found the way engines are (:mod:`bench_gui.core.engine`). A plugin is a
*meter kind*: it names its options, checks them, turns them into the agent's configuration
(secrets, such as a Redfish password from the OS keyring, go into the agent's environment,
never into the configuration) and can open a reader on this machine for a test reading.
The readers that run during a sweep live in the agent (:mod:`bench_gui.agent.power`), on the
clock the measured windows are taken with.

The figures a report shows are computed once: average power over exactly the measured window
(integrated with the trapezoid rule, never a last reading), mW per NOPM, joules per new order
and the window's energy. The arithmetic itself is the agent's (the agent may import nothing of
the desktop side, and the desktop side must not compute it twice); it is re-exported here.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from bench_gui.wire.power_math import METER_KINDS as METER_KINDS
from bench_gui.wire.power_math import SCOPE_CPU as SCOPE_CPU
from bench_gui.wire.power_math import SCOPE_WALL as SCOPE_WALL
from bench_gui.wire.power_math import (
    MeterError,
    average_watts,
    guess_column,
    parse_power_csv,
    preview_power_csv,
    significant,
)
from bench_gui.wire.power_math import joules_per_new_order as joules_per_new_order
from bench_gui.wire.power_math import mw_per_nopm as mw_per_nopm

log = logging.getLogger(__name__)

POWER_METER_GROUP = "bench_gui.power_meters"

METER_LABELS: dict[str, str] = {
    "none": "None",
    "ipmi": "IPMI DCMI",
    "redfish": "Redfish (BMC over HTTPS)",
    "rapl": "RAPL (CPU package + DRAM)",
    "csv": "CSV power log",
}
SCOPE_LABELS: dict[str, str] = {
    SCOPE_WALL: "system power",
    SCOPE_CPU: "CPU package + DRAM power, not wall power",
}


@dataclass(frozen=True)
class PowerReading:
    t: float  # seconds (any clock shared with the window's edges)
    watts: float
    source: str = ""  # e.g. "ipmi", "redfish", "rapl:package" (RAPL is CPU power, not wall)


@runtime_checkable
class PowerMeter(Protocol):
    """A source of power readings; ``read`` returns None when no valid reading is available."""

    name: str
    label: str

    def read(self) -> PowerReading | None: ...


def average_power(readings: Sequence[PowerReading], t0: float, t1: float) -> float | None:
    """Mean watts over [t0, t1] by the trapezoid rule, interpolating at the window's edges.

    Returns None when the readings do not cover the window (a report must not invent power).
    """
    return average_watts(((r.t, r.watts) for r in readings), t0, t1)


# ---- meter options ----------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionSpec:
    """One option of a meter kind: how the plan spells it, how the GUI shows it, its check."""

    name: str
    label: str
    type: str  # "str", "int", "float", "bool", "choice"
    default: Any
    help: str = ""
    choices: tuple[str, ...] = ()
    required: bool = False
    low: float = -math.inf
    high: float = math.inf


_TIMEOUT = OptionSpec(
    "timeout_s", "Timeout", "float", 5.0, "Seconds to wait for one reading.", low=0.5, high=60
)

METER_OPTIONS: dict[str, tuple[OptionSpec, ...]] = {
    "none": (),
    "ipmi": (
        OptionSpec(
            "host",
            "BMC address",
            "str",
            "",
            "Empty: this host's own BMC (in band, /dev/ipmi0), read where the agent runs.",
        ),
        OptionSpec("user", "BMC user", "str", "", "For a BMC over the LAN."),
        OptionSpec("interface", "Interface", "choice", "lanplus", choices=("lanplus", "lan")),
        OptionSpec(
            "reading",
            "Reading",
            "choice",
            "instantaneous",
            "The BMC's instantaneous reading, or its average over its sampling period.",
            choices=("instantaneous", "average"),
        ),
        OptionSpec("ipmitool", "ipmitool", "str", "ipmitool", "The command on the agent's host."),
        _TIMEOUT,
    ),
    "redfish": (
        OptionSpec("host", "BMC address", "str", "", "Host name or address.", required=True),
        OptionSpec("port", "Port", "int", 443, low=1, high=65535),
        OptionSpec("user", "User", "str", "", "The password is kept in the OS keyring."),
        OptionSpec("chassis", "Chassis", "str", "", "Chassis id; empty: the first with power."),
        OptionSpec(
            "verify_tls",
            "Check the certificate",
            "bool",
            True,
            "Turn off only for a BMC whose self-signed certificate you cannot install.",
        ),
        OptionSpec("ca_file", "CA certificate", "str", "", "PEM file on the agent's host."),
        _TIMEOUT,
    ),
    "rapl": (
        OptionSpec(
            "root",
            "Powercap folder",
            "str",
            "/sys/class/powercap",
            "Where the agent's host exposes the RAPL energy counters.",
        ),
        OptionSpec("dram", "Include DRAM", "bool", True, "Add the DRAM zones (Intel only)."),
    ),
    "csv": (
        OptionSpec("path", "Log file", "str", "", "On the agent's host.", required=True),
        OptionSpec("time_column", "Time column", "str", "", "Empty: found by its name."),
        OptionSpec("watts_column", "Watts column", "str", "", "Empty: found by its name."),
    ),
}


def default_options(kind: str) -> dict[str, Any]:
    return {spec.name: spec.default for spec in METER_OPTIONS.get(kind, ())}


def check_meter_options(
    kind: str, options: Mapping[str, Any], prefix: str = "power.options"
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """Options of a built-in meter kind, defaults filled in, and (field, reason) problems."""
    specs = {spec.name: spec for spec in METER_OPTIONS.get(kind, ())}
    problems: list[tuple[str, str]] = []
    result: dict[str, Any] = {}
    for key in options:
        if key not in specs:
            known = ", ".join(specs) or "none"
            problems.append(
                (f"{prefix}.{key}", f"unknown option for meter {kind!r} (known: {known})")
            )
    for name, spec in specs.items():
        field = f"{prefix}.{name}"
        value = options.get(name, spec.default)
        if spec.type in ("str", "choice"):
            if not isinstance(value, str):
                problems.append((field, f"must be text, got {value!r}"))
                continue
            value = value.strip()
            if spec.type == "choice" and value not in spec.choices:
                problems.append((field, f"must be one of {', '.join(spec.choices)}"))
        elif spec.type == "bool":
            if not isinstance(value, bool):
                problems.append((field, f"must be true or false, got {value!r}"))
                continue
        else:
            number_types = (int,) if spec.type == "int" else (int, float)
            if isinstance(value, bool) or not isinstance(value, number_types):
                whole = "a whole number" if spec.type == "int" else "a number"
                problems.append((field, f"must be {whole}, got {value!r}"))
                continue
            if not spec.low <= value <= spec.high:
                problems.append((field, f"must be between {spec.low:g} and {spec.high:g}"))
        if spec.required and value in ("", None):
            problems.append((field, f"is required for meter {kind!r}"))
        result[name] = value
    return result, problems


# ---- meter kinds as plugins -------------------------------------------------------------------


@runtime_checkable
class MeterKind(Protocol):
    """A power meter as the desktop side sees it (a plugin in ``bench_gui.power_meters``)."""

    name: str  # the plan's ``power.meter``
    label: str  # shown to users
    scope: str  # SCOPE_WALL or SCOPE_CPU
    options: tuple[OptionSpec, ...]

    def check(self, options: Mapping[str, Any]) -> list[tuple[str, str]]:
        """(field, reason) problems of a plan's options."""
        ...

    def agent_settings(self, options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        """The options as the agent gets them, and secret environment variables for it."""
        ...

    def open(self, options: Mapping[str, Any]) -> PowerMeter:
        """A reader on this machine (for a test reading from the desktop)."""
        ...


class MeterNotFound(LookupError):
    """No installed plugin provides the meter a plan asks for."""


def installed_meter_names() -> list[str]:
    """Names registered in the entry-point group (nothing is imported)."""
    return sorted({ep.name for ep in entry_points(group=POWER_METER_GROUP)})


def load_meter_kinds() -> dict[str, MeterKind]:
    """Every meter plugin installed, by name; a broken plugin is skipped, not fatal."""
    kinds: dict[str, MeterKind] = {}
    for ep in entry_points(group=POWER_METER_GROUP):
        try:
            kind = ep.load()()
        except Exception:  # a plugin's own code can fail in any way: skipped, not fatal
            log.warning(
                "power meter plugin %r (%s) skipped: it failed to load",
                ep.name,
                ep.value,
                exc_info=True,
            )
            continue
        if isinstance(kind, MeterKind):
            kinds[kind.name] = kind
    return kinds


def get_meter_kind(name: str) -> MeterKind:
    kinds = load_meter_kinds()
    try:
        return kinds[name]
    except KeyError:
        known = ", ".join(sorted(kinds)) or "none"
        raise MeterNotFound(f"no power meter plugin named {name!r} (installed: {known})") from None


def agent_power_config(
    meter: str, options: Mapping[str, Any], idle_s: float, interval_s: float
) -> tuple[dict[str, Any], dict[str, str]]:
    """The agent's ``power`` configuration and the secrets it needs in its environment.

    Raises :class:`MeterNotFound` for a meter no plugin provides, ValueError (naming the
    field) for options the plugin refuses.
    """
    if meter == "none":
        return {"meter": "none"}, {}
    kind = get_meter_kind(meter)
    problems = kind.check(options)
    if problems:
        raise ValueError("; ".join(f"{field}: {reason}" for field, reason in problems))
    agent_options, env = kind.agent_settings(options)
    config = {
        "meter": meter,
        "options": agent_options,
        "idle_s": idle_s,
        "interval_s": interval_s,
        "scope": kind.scope,
        "label": kind.label,
    }
    return config, env


# ---- per-step figures -------------------------------------------------------------------------


@dataclass(frozen=True)
class PowerFigures:
    """Power over one measured window and what it costs per unit of work."""

    watts: float
    energy_j: float
    mw_per_nopm: float | None
    j_per_new_order: float | None

    def as_summary(self) -> dict[str, float | None]:
        """The step-summary fields the agent writes for the same figures."""
        return {
            "power_w": round(self.watts, 3),
            "energy_j": round(self.energy_j, 1),
            "mw_per_nopm": _significant(self.mw_per_nopm),
            "j_per_new_order": _significant(self.j_per_new_order),
        }


def _significant(value: float | None) -> float | None:
    return None if value is None else significant(value)


def window_figures(watts: float, seconds: float, nopm: float | None) -> PowerFigures:
    """Energy and per-order figures of a window whose average power is ``watts``."""
    per_order = nopm is not None and nopm > 0
    return PowerFigures(
        watts=watts,
        energy_j=watts * seconds,
        mw_per_nopm=mw_per_nopm(watts, nopm) if per_order and nopm else None,
        j_per_new_order=joules_per_new_order(watts, nopm) if per_order and nopm else None,
    )


# ---- a meter's log imported after the run -----------------------------------------------------

IMPORT_METER = "csv"
IMPORT_LABEL_PREFIX = "CSV import: "
# The idle baseline of an import: this long before the run's first event when the plan names no
# idle time of its own, and at least this much of it covered by the log.
DEFAULT_IDLE_S = 30.0
MIN_IDLE_S = 5.0
# A hole in the log longer than this (or than GAP_FACTOR typical intervals, whichever is longer)
# inside a step's window is a gap: interpolating across it would invent the power of that time.
MIN_GAP_S = 10.0
GAP_FACTOR = 5.0
# The summary fields an import writes (and keeps the originals of).
POWER_FIELDS = (
    "power_w",
    "energy_j",
    "mw_per_nopm",
    "j_per_new_order",
    "power_readings",
    "power_meter",
    "power_scope",
    "power_label",
    "power_error",
    "idle_power_w",
)


class PowerLogError(ValueError):
    """A power log that cannot be read or does not fit the session; the message says why."""


def import_label(file_name: str) -> str:
    return f"{IMPORT_LABEL_PREFIX}{file_name}"


def read_power_log(path: Path, watts_column: str = "", time_column: str = "") -> list[PowerReading]:
    """The readings of a CSV power log file, in time order (see :func:`parse_power_log`)."""
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        raise PowerLogError(f"cannot read the power log {path}: {exc.strerror or exc}") from None
    return parse_power_log(text, path.name, watts_column, time_column)


@dataclass
class PowerLogPreview:
    """A power log's columns and first rows, with the columns found by name ("" if none)."""

    header: list[str]
    rows: list[list[str]]
    time_column: str
    watts_column: str


def preview_power_log(path: Path, rows: int = 5) -> PowerLogPreview:
    """The columns and first rows of a CSV power log, read from its start only."""
    try:
        with path.open(encoding="utf-8-sig", errors="replace") as handle:
            head = "".join(line for _, line in zip(range(rows + 1), handle, strict=False))
    except OSError as exc:
        raise PowerLogError(f"cannot read the power log {path}: {exc.strerror or exc}") from None
    header, first = preview_power_csv(head, rows)
    if not header:
        raise PowerLogError(f"{path.name} is empty: a power log starts with a header line")
    return PowerLogPreview(
        header, first, guess_column(header, "time"), guess_column(header, "watts")
    )


def parse_power_log(
    text: str, name: str, watts_column: str = "", time_column: str = ""
) -> list[PowerReading]:
    """The readings of a CSV power log's text, in time order (epoch seconds).

    The columns are found by name unless given (see :func:`bench_gui.agent.power.parse_power_csv`);
    a log without such columns or with fewer than two usable rows is a :class:`PowerLogError`
    that names the file (``name``).
    """
    try:
        rows = parse_power_csv(text, time_column, watts_column)
    except MeterError as exc:
        raise PowerLogError(f"{name}: {exc}") from None
    lines = sum(1 for line in text.splitlines()[1:] if line.strip())
    if len(rows) < 2:
        raise PowerLogError(
            f"{name}: {len(rows)} of {lines} rows have a readable time and watts value;"
            " a power log needs at least two readings"
        )
    return [PowerReading(t, w, IMPORT_METER) for t, w in sorted(rows)]


def _clock(t: float) -> str:
    return datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S")


def _span(seconds: float) -> str:
    seconds = abs(seconds)
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def coverage_gap(
    readings: Sequence[PowerReading], t0: float, t1: float, max_gap_s: float | None = None
) -> str | None:
    """Why the readings do not cover [t0, t1] well enough to integrate it, or None if they do.

    Uncovered edges and holes longer than ``max_gap_s`` (default: see :data:`MIN_GAP_S`) inside
    the window are gaps; the text names the times (local) and the length.
    """
    if not readings:
        return "the log has no readings"
    first, last = readings[0].t, readings[-1].t
    if first > t0:
        if first >= t1:
            return f"the log starts at {_clock(first)}, {_span(first - t1)} after the window ends"
        return f"the log starts at {_clock(first)}, {_span(first - t0)} after the window opens"
    if last < t1:
        if last <= t0:
            return f"the log ends at {_clock(last)}, {_span(t0 - last)} before the window opens"
        return f"the log ends at {_clock(last)}, {_span(t1 - last)} before the window closes"
    limit = max_gap_s if max_gap_s is not None else typical_gap_limit(readings, t1 - t0)
    times = [r.t for r in readings]
    for a, b in zip(times, times[1:], strict=False):
        if b <= t0 or a >= t1:
            continue
        if b - a > limit:
            return (
                f"the log has no reading for {_span(b - a)}"
                f" ({_clock(a)} to {_clock(b)}) inside the window"
            )
    return None


def median_interval(readings: Sequence[PowerReading]) -> float:
    steps = sorted(b.t - a.t for a, b in zip(readings, readings[1:], strict=False) if b.t > a.t)
    return steps[len(steps) // 2] if steps else 0.0


def typical_gap_limit(readings: Sequence[PowerReading], window_s: float | None = None) -> float:
    """The longest hole tolerated in a log: GAP_FACTOR of its median interval, and at least
    MIN_GAP_S (or half the window, for a window shorter than twice that): a meter that logs
    once a minute is not holey, one that logs twice a second and misses half a step is."""
    floor = MIN_GAP_S if window_s is None else min(MIN_GAP_S, window_s / 2)
    return max(floor, GAP_FACTOR * median_interval(readings))


@dataclass(frozen=True)
class StepPower:
    """One step's power figures from an imported log."""

    step: int
    vus: int
    t0: float
    t1: float
    figures: PowerFigures
    readings: int  # readings inside the window

    def as_summary(self, label: str, idle_w: float | None) -> dict[str, Any]:
        """The step-summary fields, named as the agent names its own meter's figures."""
        return {
            **self.figures.as_summary(),
            "power_readings": self.readings,
            "power_meter": IMPORT_METER,
            "power_scope": SCOPE_WALL,
            "power_label": label,
            "power_error": None,
            "idle_power_w": None if idle_w is None else round(idle_w, 3),
        }


def step_power_from_log(
    steps: Sequence[Mapping[str, Any]], readings: Sequence[PowerReading]
) -> tuple[list[StepPower], list[str]]:
    """Each step's figures over exactly its measured window, and the steps left out (why).

    A step with no measured window (stopped before its window closed, or recorded without the
    window times) is left out with a note; a step whose window the log does not cover is a
    :class:`PowerLogError` that names the step and the gap, since figures for some steps and
    not others would be a silent half result. No step with a window at all is an error too.
    """
    ordered = sorted(readings, key=lambda r: r.t)
    result: list[StepPower] = []
    skipped: list[str] = []
    problems: list[str] = []
    for step in steps:
        number = int(step.get("step", 0)) + 1
        vus = int(step.get("vus", 0) or 0)
        name = f"step {number} ({vus} VU)"
        t0, t1 = step.get("window_t0"), step.get("window_t1")
        if not isinstance(t0, int | float) or not isinstance(t1, int | float) or t1 <= t0:
            skipped.append(f"{name}: no measured window recorded")
            continue
        gap = coverage_gap(ordered, float(t0), float(t1))
        if gap is not None:
            problems.append(f"{name}, measured {_clock(float(t0))} to {_clock(float(t1))}: {gap}")
            continue
        watts = average_power(ordered, float(t0), float(t1))
        assert watts is not None  # covered, checked above
        nopm = step.get("nopm")
        result.append(
            StepPower(
                step=number - 1,
                vus=vus,
                t0=float(t0),
                t1=float(t1),
                figures=window_figures(
                    watts,
                    float(t1) - float(t0),
                    float(nopm) if isinstance(nopm, int | float) else None,
                ),
                readings=sum(1 for r in ordered if t0 <= r.t <= t1),
            )
        )
    if problems:
        span = f"the log covers {_clock(ordered[0].t)} to {_clock(ordered[-1].t)}"
        raise PowerLogError(
            "the power log does not cover every measured window (times are local):\n  "
            + "\n  ".join(problems)
            + f"\n  ({span})"
        )
    if not result:
        raise PowerLogError(
            "no step of this session has a measured window to match a power log against"
            + (f" ({'; '.join(skipped)})" if skipped else "")
        )
    return result, skipped


def idle_from_log(
    readings: Sequence[PowerReading], t0: float, t1: float, min_s: float = MIN_IDLE_S
) -> tuple[float, float, float] | None:
    """(watts, start, end) over the part of [t0, t1] the log covers, or None when it covers
    less than ``min_s`` seconds of it (all of it, for a shorter window) or has a gap there."""
    ordered = sorted(readings, key=lambda r: r.t)
    if not ordered or t1 <= t0:
        return None
    start = max(t0, ordered[0].t)
    end = min(t1, ordered[-1].t)
    need = min(min_s, t1 - t0)
    if end <= start or end - start < need or coverage_gap(ordered, start, end) is not None:
        return None
    watts = average_power(ordered, start, end)
    return None if watts is None else (watts, start, end)


@dataclass
class PowerImport:
    """What importing a power log into a stored session did."""

    run_id: int
    source: str  # the log's file name
    label: str  # the meter label the steps now carry
    steps: list[StepPower]
    idle_w: float | None
    idle_window: tuple[float, float] | None
    idle_note: str  # why there is no idle baseline, when there is none
    skipped: list[str]  # steps without a measured window, and why
    previous_w: dict[int, float | None]  # step -> the watts stored before this import
    changed: bool  # False: the same figures were already stored (a re-import)
    message: str  # the log line recorded with the session ("" when nothing changed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.run_id,
            "source": self.source,
            "label": self.label,
            "changed": self.changed,
            "idle_power_w": None if self.idle_w is None else round(self.idle_w, 3),
            "idle_window": list(self.idle_window) if self.idle_window else None,
            "idle_note": self.idle_note,
            "skipped": list(self.skipped),
            "steps": [
                {
                    "step": s.step,
                    "vus": s.vus,
                    "window_t0": s.t0,
                    "window_t1": s.t1,
                    **s.figures.as_summary(),
                    "power_readings": s.readings,
                    "previous_power_w": self.previous_w.get(s.step),
                }
                for s in self.steps
            ],
        }
