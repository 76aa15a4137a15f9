"""The checks of a plan's ``[power]``, ``[monitor]`` and ``[os]`` sections.

What a run measures and sets on its hosts: the power meter and its options, the block devices
the agent reports, and the kernel knobs applied for the run (:func:`os_knob_problem` checks a
knob's form; the host answers whether it has it). Kept apart from
:mod:`bench_gui.core.plan_checks` so that each stays small.
"""

from __future__ import annotations

import re
from typing import Any, Final

from bench_gui.core.os_presets import BUILTIN_OS_PRESETS
from bench_gui.core.plan_checks import TARGET_NAME, check_bool, check_float, check_str
from bench_gui.core.plan_model import Monitor, OsKnobs, Plan, Power
from bench_gui.core.power import METER_KINDS, check_meter_options, installed_meter_names
from bench_gui.wire.hostinfo import SYSCTLS, THP_KNOBS
from bench_gui.workloads.base import uses_database

_DEVICE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:+-]*$")


def check_power(
    problems: list[tuple[str, str]], plan: Plan, power_data: Any, monitor_data: Any
) -> None:
    """The ``[power]`` and ``[monitor]`` sections."""
    if not isinstance(power_data, dict):
        problems.append(("power", "must be a table"))
        power_data = {}
    for key in power_data:
        if key not in Power.__dataclass_fields__:
            problems.append((f"power.{key}", "unknown field"))
    power = plan.power
    power.meter = check_str(problems, "power.meter", power_data.get("meter", power.meter))
    options = power_data.get("options", {})
    if not isinstance(options, dict):
        problems.append(("power.options", "must be a table"))
        options = {}
    if power.meter in METER_KINDS:
        power.options, option_problems = check_meter_options(power.meter, options)
        if power.meter == "none":
            power.options = {}
        problems.extend(option_problems)
    elif power.meter in installed_meter_names():
        power.options = dict(options)  # a third-party meter checks its own options
    else:
        known = ", ".join(dict.fromkeys([*METER_KINDS, *installed_meter_names()]))
        problems.append(("power.meter", f"must be one of {known}"))
    power.idle_s = check_float(
        problems, "power.idle_s", power_data.get("idle_s", power.idle_s), 0, 3600
    )
    power.interval_s = check_float(
        problems, "power.interval_s", power_data.get("interval_s", power.interval_s), 0.2, 10
    )

    if not isinstance(monitor_data, dict):
        problems.append(("monitor", "must be a table"))
        monitor_data = {}
    for key in monitor_data:
        if key not in Monitor.__dataclass_fields__:
            problems.append((f"monitor.{key}", "unknown field"))
    monitor = plan.monitor
    monitor.enabled = check_bool(
        problems, "monitor.enabled", monitor_data.get("enabled", monitor.enabled)
    )
    monitor.devices = _device_names(problems, "monitor.devices", monitor_data.get("devices", []))


def _device_names(problems: list[tuple[str, str]], field_name: str, devices: Any) -> list[str]:
    """``["sda", "/dev/nvme0n1"]`` or ``"sda, nvme0n1"`` -> device names."""
    if isinstance(devices, str):
        devices = [d for d in devices.replace(",", " ").split() if d]
    if not isinstance(devices, list):
        problems.append((field_name, "must be a list of block device names"))
        devices = []
    names: list[str] = []
    for device in devices:
        name = device.removeprefix("/dev/") if isinstance(device, str) else device
        if not isinstance(name, str) or not _DEVICE_NAME.match(name):
            problems.append((field_name, f"{device!r} is not a block device name"))
        elif name not in names:
            names.append(name)
    return names


# Values of the knobs with a fixed set of choices (the kernel lists them in brackets).
THP_CHOICES: Final = {
    "enabled": ("always", "madvise", "never"),
    "defrag": ("always", "defer", "defer+madvise", "madvise", "never"),
}
_SYSCTL_NAME = re.compile(r"^(vm|kernel)\.[a-z0-9_]+$")
_NUMBERS = re.compile(r"^-?[0-9]+(\s+-?[0-9]+)*$")
_SCHEDULER_NAME = re.compile(r"^[a-z0-9][a-z0-9_+-]*$")
KNOWN_OS_KNOBS: Final = (
    "a sysctl (vm.*, kernel.*), read_ahead_kb, scheduler, transparent_hugepage[.enabled|.defrag]"
    " or block.DEVICE.read_ahead_kb|scheduler"
)


def os_knob_problem(key: str, value: str) -> str:
    """Why a knob of an ``[os]`` section is not acceptable ('' if it is).

    Only the form is checked here: whether the kernel has the knob (a missing one is reported,
    not an error) and takes the value is the host's answer when the run applies it.
    """
    parts = key.split(".")
    device_knob = key if len(parts) == 1 else parts[2] if len(parts) == 3 else ""
    if len(parts) == 3 and (parts[0] != "block" or not _DEVICE_NAME.match(parts[1])):
        device_knob = ""
    if not value.strip():
        return "is empty"
    if device_knob == "read_ahead_kb":
        if not value.strip().isdigit():
            return f"must be a whole number of KiB, got {value!r}"
    elif device_knob == "scheduler":
        if not _SCHEDULER_NAME.match(value.strip()):
            return f"{value!r} is not an I/O scheduler name (none, mq-deadline, kyber, bfq)"
    elif key == "transparent_hugepage" or key.startswith("transparent_hugepage."):
        knob = "enabled" if key == "transparent_hugepage" else key.split(".", 1)[1]
        if knob not in THP_KNOBS:
            return f"not a knob bench-gui knows: use {KNOWN_OS_KNOBS}"
        if value.strip() not in THP_CHOICES[knob]:
            return f"must be one of {', '.join(THP_CHOICES[knob])}, got {value!r}"
    elif key in SYSCTLS or _SYSCTL_NAME.match(key):
        if not _NUMBERS.match(value.strip()):
            return f"must be a whole number, got {value!r}"
    else:
        return f"not a knob bench-gui knows: use {KNOWN_OS_KNOBS}"
    return ""


def check_os(problems: list[tuple[str, str]], plan: Plan, data: Any) -> None:
    """The ``[os]`` section: knobs applied for the run."""
    if not isinstance(data, dict):
        problems.append(("os", "must be a table"))
        return
    for key in data:
        if key not in OsKnobs.__dataclass_fields__:
            problems.append((f"os.{key}", "unknown field"))
    section = plan.os
    section.preset = check_str(problems, "os.preset", data.get("preset", ""))
    if section.preset and section.preset not in BUILTIN_OS_PRESETS:
        known = ", ".join(BUILTIN_OS_PRESETS)
        problems.append(("os.preset", f"no OS preset {section.preset!r} (known: {known})"))
        section.preset = ""
    knobs = data.get("knobs", {})
    if not isinstance(knobs, dict):
        problems.append(("os.knobs", 'must be a table, e.g. { "vm.dirty_ratio" = "10" }'))
        knobs = {}
    for key, value in knobs.items():
        name = f"os.knobs.{key}"
        if isinstance(value, bool) or not isinstance(value, str | int):
            problems.append((name, f"must be text or a whole number, got {value!r}"))
            continue
        reason = os_knob_problem(str(key), str(value))
        if reason:
            problems.append((name, reason))
        else:
            section.knobs[str(key)] = str(value).strip()
    section.host = check_str(problems, "os.host", data.get("host", "")).strip()
    if section.host and section.host != "local":
        if not TARGET_NAME.match(section.host):
            problems.append(("os.host", f"{section.host!r} is not a saved SSH target's name"))
        elif plan.target.kind == "demo" and uses_database(plan.workload.kind):
            problems.append(("os.host", "the embedded demo runs on this machine: leave it empty"))
    elif not section.host and section.enabled and len(plan.driver.targets) > 1:
        # One driver host is taken to be the database host; of several, none is.
        problems.append(
            (
                "os.host",
                "with several driver hosts, name the host the knobs go to: the database"
                " server's saved SSH target, or 'local' for this machine",
            )
        )
    section.data_dir = check_str(problems, "os.data_dir", data.get("data_dir", "")).strip()
    if section.data_dir and not section.data_dir.startswith("/"):
        problems.append(("os.data_dir", f"must be an absolute path, got {section.data_dir!r}"))
    section.devices = _device_names(problems, "os.devices", data.get("devices", []))
