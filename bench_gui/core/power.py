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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from bench_gui.agent.power import METER_KINDS as METER_KINDS
from bench_gui.agent.power import SCOPE_CPU as SCOPE_CPU
from bench_gui.agent.power import SCOPE_WALL as SCOPE_WALL
from bench_gui.agent.power import average_watts
from bench_gui.agent.power import joules_per_new_order as joules_per_new_order
from bench_gui.agent.power import mw_per_nopm as mw_per_nopm

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
        except Exception:  # noqa: BLE001 - one broken plugin must not break the app
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
            "mw_per_nopm": None if self.mw_per_nopm is None else round(self.mw_per_nopm, 4),
            "j_per_new_order": (
                None if self.j_per_new_order is None else round(self.j_per_new_order, 4)
            ),
        }


def window_figures(watts: float, seconds: float, nopm: float | None) -> PowerFigures:
    """Energy and per-order figures of a window whose average power is ``watts``."""
    per_order = nopm is not None and nopm > 0
    return PowerFigures(
        watts=watts,
        energy_j=watts * seconds,
        mw_per_nopm=mw_per_nopm(watts, nopm) if per_order and nopm else None,
        j_per_new_order=joules_per_new_order(watts, nopm) if per_order and nopm else None,
    )


def apply_power_log(
    steps: Sequence[Mapping[str, Any]], readings: Sequence[PowerReading]
) -> list[dict[str, Any]]:
    """Step summaries with power figures from a log imported after the run.

    ``readings`` carry wall-clock times (epoch seconds); each step's window is its summary's
    ``window_t0``/``window_t1``, the same instants the agent measured NOPM between. A step the
    log does not cover gets ``power_w`` None and a ``power_error``.
    """
    result = []
    for step in steps:
        summary = dict(step)
        t0, t1 = summary.get("window_t0"), summary.get("window_t1")
        if not isinstance(t0, int | float) or not isinstance(t1, int | float) or t1 <= t0:
            summary.update(power_w=None, power_error="the step has no measured window")
            result.append(summary)
            continue
        watts = average_power(readings, float(t0), float(t1))
        if watts is None:
            summary.update(power_w=None, power_error="the log does not cover the window")
        else:
            nopm = summary.get("nopm")
            figures = window_figures(
                watts, float(t1) - float(t0), nopm if isinstance(nopm, int | float) else None
            )
            summary.update(figures.as_summary())
            summary.pop("power_error", None)
        summary["power_meter"] = "csv"
        summary["power_scope"] = SCOPE_WALL
        result.append(summary)
    return result
