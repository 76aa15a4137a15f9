"""OS knobs for a run: read them, apply them for the run, roll them back afterwards.

The knobs are the agent's list (:mod:`bench_gui.wire.hostinfo`): sysctls (dirty ratios,
swappiness, NUMA balancing, max_map_count, the scheduler's granularity where the kernel has
it), ``read_ahead_kb`` and the I/O ``scheduler`` of the data devices, transparent huge pages.
They are written through a :class:`~bench_gui.remote.host_access.HostIO` (this machine or an SSH
target, as root), never persisted unless asked (:func:`persist_sysctls`), and every apply keeps
an :class:`OsSnapshot` that :func:`rollback` writes back.

Knob keys: sysctl names (``vm.dirty_ratio``), ``transparent_hugepage.enabled`` /
``.defrag``, and ``block.DEVICE.read_ahead_kb`` / ``block.DEVICE.scheduler``. In a change set
the device may be left out (``read_ahead_kb = 2048``): it then applies to every data device.
A knob the kernel lacks is reported in ``missing``, not an error; a value the kernel refuses
(or a missing privilege) undoes what was already changed and raises :class:`OsKnobError`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from bench_gui.remote.host_access import HostIO
from bench_gui.wire.hostinfo import (
    BLOCK_KNOBS,
    SYS_BLOCK,
    SYSCTLS,
    THP_DIR,
    THP_KNOBS,
    choices,
    is_data_candidate,
    selected,
)

SYSCTL_FILE: Final = "/etc/sysctl.d/90-bench-gui.conf"
DEVICE_KNOBS: Final = ("read_ahead_kb", "scheduler")  # the writable ones of BLOCK_KNOBS


class OsKnobError(RuntimeError):
    """Knobs could not be applied or restored; ``failed`` maps keys to the reason."""

    def __init__(self, message: str, failed: Mapping[str, str]) -> None:
        self.failed = dict(failed)
        super().__init__(message)


@dataclass
class Knob:
    """One knob as the host has it."""

    key: str
    path: str | None  # where it lives; None: the kernel lacks it
    value: str | None  # the selected choice for lists such as the scheduler
    choices: list[str] = field(default_factory=list)
    status: str = "ok"  # ok, missing, unreadable
    note: str = ""

    @property
    def available(self) -> bool:
        return self.status == "ok"


@dataclass
class OsSnapshot:
    """The values before an apply, in the order they were changed."""

    taken_at: str
    host: str
    entries: list[dict[str, str]]  # key, path, value

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OsSnapshot:
        return cls(
            taken_at=str(data.get("taken_at", "")),
            host=str(data.get("host", "")),
            entries=[dict(e) for e in data.get("entries", [])],
        )


@dataclass
class OsResult:
    """What an apply or a rollback did."""

    action: str
    changed: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (before, after)
    unchanged: list[str] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)  # key -> why it is not there
    snapshot: OsSnapshot | None = None

    def summary(self) -> str:
        parts = [f"{len(self.changed)} knob(s) changed" if self.changed else "nothing to change"]
        if self.missing:
            parts.append(f"not on this kernel: {', '.join(self.missing)}")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "changed": {k: list(v) for k, v in self.changed.items()},
            "unchanged": list(self.unchanged),
            "missing": dict(self.missing),
            "summary": self.summary(),
        }


def _candidates(key: str) -> list[str]:
    """Where a knob may live, first found wins (empty: not a knob this module knows)."""
    if key in SYSCTLS:
        return list(SYSCTLS[key])
    if key.startswith("vm.") or key.startswith("kernel."):
        return ["/proc/sys/" + key.replace(".", "/")]
    if key.startswith("transparent_hugepage."):
        knob = key.split(".", 1)[1]
        return [f"{THP_DIR}/{knob}"] if knob in THP_KNOBS else []
    parts = key.split(".")
    if len(parts) == 3 and parts[0] == "block" and parts[2] in BLOCK_KNOBS:
        return [f"{SYS_BLOCK}/{parts[1]}/queue/{parts[2]}"]
    return []


def _missing_note(key: str) -> str:
    if "sched_" in key:
        return (
            "the kernel has no such knob (since 5.13 the scheduler's granularity lives in"
            " debugfs, since 6.6 EEVDF replaced it with base_slice_ns; debugfs may not be"
            " mounted or readable)"
        )
    if key.startswith("block."):
        return "no such block device (or it has no request queue)"
    return "the kernel has no such knob"


def read_knobs(host: HostIO, keys: Iterable[str]) -> dict[str, Knob]:
    """The current value of each knob (missing and unreadable ones say so)."""
    wanted = list(dict.fromkeys(keys))
    paths = sorted({p for key in wanted for p in _candidates(key)})
    found = host.read_many(paths)
    out: dict[str, Knob] = {}
    for key in wanted:
        candidates = _candidates(key)
        if not candidates:
            out[key] = Knob(key, None, None, status="missing", note="not a knob bench-gui knows")
            continue
        knob = Knob(key, None, None, status="missing", note=_missing_note(key))
        for path in candidates:
            value = found.get(path)
            if isinstance(value, str):
                text = value.strip()
                listed = "[" in text
                knob = Knob(
                    key,
                    path,
                    selected(text) if listed else text,
                    choices(text) if listed else [],
                )
                break
            if isinstance(value, OSError) and not isinstance(value, FileNotFoundError):
                knob = Knob(
                    key,
                    path,
                    None,
                    status="unreadable",
                    note=f"cannot be read: {value.strerror or value}",
                )
        out[key] = knob
    return out


def block_devices(host: HostIO) -> list[str]:
    """The host's block devices worth tuning (no RAM disks, zram or unused loop devices)."""
    names = []
    for name in host.listdir(SYS_BLOCK):
        backing = host.exists(f"{SYS_BLOCK}/{name}/loop/backing_file")
        if is_data_candidate(name, backing):
            names.append(name)
    return names


def data_devices(host: HostIO, path: str) -> tuple[list[str], list[str]]:
    """The disks under a directory (the data directory): (device names, notes).

    A partition is tuned through its disk; a device-mapper or md device also through the
    disks it is made of.
    """
    notes: list[str] = []
    try:
        dev = host.device_of(path)
    except OSError as exc:
        return [], [f"{path}: {exc.strerror or exc}"]
    if dev is None or dev[0] == 0:
        return [], [f"{path} is not on a block device (tmpfs, overlay or network filesystem)"]
    try:
        real = host.realpath(f"/sys/dev/block/{dev[0]}:{dev[1]}")
    except OSError as exc:
        return [], [f"block device {dev[0]}:{dev[1]}: {exc.strerror or exc}"]

    def disk_of(sys_path: str) -> str:
        if host.exists(f"{sys_path}/partition"):
            return posixpath.basename(posixpath.dirname(sys_path))
        return posixpath.basename(sys_path)

    devices: list[str] = []
    todo = [disk_of(real)]
    while todo:
        name = todo.pop(0)
        if name in devices:
            continue
        devices.append(name)
        try:
            slaves = host.listdir(f"{SYS_BLOCK}/{name}/slaves")
        except OSError:
            slaves = []
        for slave in slaves:
            try:
                todo.append(disk_of(host.realpath(f"{SYS_BLOCK}/{name}/slaves/{slave}")))
            except OSError:
                notes.append(f"{name}: cannot follow {slave}")
    return devices, notes


def default_keys(devices: Iterable[str]) -> list[str]:
    """Every knob worth showing for these data devices."""
    keys = [k for k in SYSCTLS if not k.endswith("_bytes") and k != "vm.overcommit_memory"]
    keys += [f"transparent_hugepage.{k}" for k in THP_KNOBS]
    for dev in devices:
        keys += [f"block.{dev}.{k}" for k in DEVICE_KNOBS]
    return keys


def expand_changes(changes: Mapping[str, str], devices: Iterable[str]) -> dict[str, str]:
    """``read_ahead_kb``/``scheduler`` without a device -> one key per data device;
    ``transparent_hugepage`` alone means its ``enabled`` knob."""
    devs = list(devices)
    out: dict[str, str] = {}
    for key, value in changes.items():
        if key in DEVICE_KNOBS:
            for dev in devs:
                out[f"block.{dev}.{key}"] = str(value)
        elif key == "transparent_hugepage":
            out["transparent_hugepage.enabled"] = str(value)
        else:
            out[key] = str(value)
    return out


def _write(host: HostIO, path: str, value: str) -> None:
    host.write_text(path, value + "\n" if not value.endswith("\n") else value, root=True)


def _reason(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return f"{exc.strerror or exc}: changing kernel knobs needs root"
    return str(exc.strerror or exc)


def apply(host: HostIO, changes: Mapping[str, str], devices: Iterable[str] = ()) -> OsResult:
    """Apply knobs for a run; returns what changed, with the snapshot to roll back."""
    wanted = expand_changes(changes, devices)
    current = read_knobs(host, wanted)
    result = OsResult("apply")
    snapshot = OsSnapshot(datetime.now(UTC).isoformat(timespec="seconds"), host.label, [])
    result.snapshot = snapshot
    failed: dict[str, str] = {}
    for key, value in wanted.items():
        knob = current[key]
        if not knob.available or knob.path is None:
            result.missing[key] = knob.note
            continue
        if knob.value == value.strip():
            result.unchanged.append(key)
            continue
        if knob.choices and value.strip() not in knob.choices:
            failed[key] = f"{value!r} is not one of {', '.join(knob.choices)}"
            break
        try:
            _write(host, knob.path, value.strip())
        except OSError as exc:
            failed[key] = _reason(exc)
            break
        assert knob.value is not None
        snapshot.entries.append({"key": key, "path": knob.path, "value": knob.value})
        result.changed[key] = (knob.value, value.strip())
    if not failed:
        after = read_knobs(host, result.changed)
        for key, (_before, value) in result.changed.items():
            if after[key].value != value:
                failed[key] = f"the kernel shows {after[key].value} after writing {value}"
    if failed:
        undone = rollback(host, snapshot)
        what = "; ".join(f"{k}: {r}" for k, r in failed.items())
        note = " (the knobs already changed were restored)" if undone.changed else ""
        raise OsKnobError(f"cannot apply {what}{note}", failed)
    return result


def rollback(host: HostIO, snapshot: OsSnapshot) -> OsResult:
    """Write the snapshot's values back, last change first; verify them."""
    result = OsResult("rollback", snapshot=snapshot)
    failed: dict[str, str] = {}
    for entry in reversed(snapshot.entries):
        try:
            _write(host, entry["path"], entry["value"])
        except OSError as exc:
            failed[entry["key"]] = _reason(exc)
            continue
    keys = [e["key"] for e in snapshot.entries]
    now = read_knobs(host, keys)
    for entry in snapshot.entries:
        key = entry["key"]
        if key in failed:
            continue
        if now[key].value != entry["value"]:
            failed[key] = f"shows {now[key].value}, expected {entry['value']}"
        else:
            result.changed[key] = ("", entry["value"])
    if failed:
        what = "; ".join(f"{k}: {r}" for k, r in failed.items())
        raise OsKnobError(f"cannot restore {what}", failed)
    return result


def persist_sysctls(host: HostIO, values: Mapping[str, str], path: str = SYSCTL_FILE) -> str:
    """Write sysctls to a sysctl.d file so they survive a reboot (only when asked)."""
    lines = ["# Written by bench-gui: OS knobs for database benchmarks."]
    lines += [
        f"{k} = {v}"
        for k, v in values.items()
        if any(p.startswith("/proc/sys/") for p in _candidates(k))
    ]
    text = "\n".join(lines) + "\n"
    host.write_text(path, text, root=True)
    return text
