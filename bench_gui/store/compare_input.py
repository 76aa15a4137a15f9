"""Read stored sessions into the plain data the comparison and the economics work on.

The one place that knows where a session keeps what a comparison shows: step figures (NOPM,
TPM, latency, power), the configuration to set side by side, the array to price, and the
provenance a report's "How we tested" is written from. Sessions recorded before the storage,
tuning and power features landed simply lack those parts: every reader here returns what is
there and leaves the rest out, never failing on a missing part.

Where things are looked for (first found wins):

- storage layout: ``plan["storage"]``, ``inventory["storage_layout"]``, ``inventory["storage"]``,
  ``agent["storage"]``;
- OS knobs: ``plan["os"]``, ``inventory["os_knobs"]``, ``agent["os_knobs"]``;
- step power (watts over the measured window): the step summary's ``power_w``,
  ``avg_power_w`` or ``power`` ({``avg_w``|``watts``}), else integrated from the samples'
  ``power`` readings (``{"watts": W}`` or a number) or ``power_w`` over the measured window;
- commands run on the target: log lines of level ``command``, or starting with ``$ ``;
- response times: the step's ``latency_ms["all"]``, or ``latency_ms["new_order"]`` when the
  report is of New-Order only (:func:`has_latency_of` says whether a session stored it);
- database settings: text (``"30GB"``) as older sessions stored them, or a record with the
  value and its unit (``{"setting": "16384", "unit": "8kB", ...}``, printed ``128MB`` as
  PostgreSQL's SHOW prints it); a record that says it is at its default is left out.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from bench_gui.core.compare import SessionData, StepPoint
from bench_gui.core.economics import ArrayInput
from bench_gui.core.power import PowerReading, average_power
from bench_gui.core.priced_storage import (
    RecordedStorage,
    device_kind,
    kind_in_text,
    size_in_text,
)
from bench_gui.store.records import RunDetail, Sample, StepResult
from bench_gui.store.sessions import SessionStore

GIB = 1024**3


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list | tuple):
        return ", ".join(_text(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, default=str)
    return "" if value is None else str(value)


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """Nested settings as ``{"raid.level": "10", ...}``; lists of records get an index."""
    out: dict[str, str] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, f"{name}."))
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for i, item in enumerate(value):
                out.update(flatten(item, f"{name}[{i}]."))
        else:
            out[name] = _text(value)
    return out


def short_server(version: str | None) -> str:
    """``PostgreSQL 16.4 on x86_64-pc-linux-gnu, compiled by ...`` -> ``PostgreSQL 16.4``."""
    return (version or "").split(" on ", 1)[0].split(",", 1)[0].strip()


# ---- where things live ------------------------------------------------------------------------


def storage_layout(detail: RunDetail) -> dict[str, Any] | None:
    """The storage layout stored with the session, if any."""
    inventory = _dict(detail.inventory)
    plan_storage = _dict(detail.plan).get("storage")
    for candidate in (
        # A plan's own storage section counts only when it describes devices.
        plan_storage if isinstance(plan_storage, dict) and "devices" in plan_storage else None,
        inventory.get("storage_layout"),
        inventory.get("storage"),
        _dict(detail.agent).get("storage"),
    ):
        if isinstance(candidate, dict) and candidate:
            return candidate
    return None


def os_knobs(detail: RunDetail) -> dict[str, Any] | None:
    for candidate in (
        _dict(detail.plan).get("os"),
        _dict(detail.inventory).get("os_knobs"),
        _dict(detail.agent).get("os_knobs"),
    ):
        if isinstance(candidate, dict) and candidate:
            return candidate
    return None


def layout_devices(layout: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The devices of a layout, as records (a bare path becomes ``{"path": ...}``)."""
    raw = layout.get("devices")
    if raw is None:
        raw = _dict(layout.get("array")).get("devices")
    devices = []
    for item in raw if isinstance(raw, list) else []:
        if isinstance(item, dict):
            devices.append(item)
        elif isinstance(item, str):
            devices.append({"path": item})
    return devices


def array_from_layout(layout: Mapping[str, Any] | None) -> ArrayInput:
    """Device model and count of a stored layout (the most common model of a mixed array)."""
    if not layout:
        return ArrayInput()
    models = Counter(str(d.get("model")).strip() for d in layout_devices(layout) if d.get("model"))
    if not models:
        count = len(layout_devices(layout)) or None
        return ArrayInput(device=None, count=count)
    model, count = models.most_common(1)[0]
    note = ""
    if len(models) > 1:
        note = "mixed devices: " + ", ".join(f"{n} x {m}" for m, n in models.items())
    return ArrayInput(device=model, count=count, origin="layout", note=note)


def array_input(store: SessionStore, detail: RunDetail) -> ArrayInput:
    """The array to price: the stored layout, with what the user entered by hand on top."""
    from_layout = array_from_layout(storage_layout(detail))
    hand = store.run_array(detail.id)
    if hand is None:
        return from_layout
    return ArrayInput(
        device=hand.device or from_layout.device,
        count=hand.count or from_layout.count,
        hand_cost=hand.hand_cost,
        currency=hand.currency,
        origin="hand" if hand.device or hand.count else from_layout.origin,
        note=hand.note or from_layout.note,
    )


# ---- steps and power ----------------------------------------------------------------------------


def _summary_power(summary: Mapping[str, Any]) -> float | None:
    for key in ("power_w", "avg_power_w"):
        value = _num(summary.get(key))
        if value is not None:
            return value
    power = summary.get("power")
    if isinstance(power, dict):
        for key in ("avg_w", "watts", "avg"):
            value = _num(power.get(key))
            if value is not None:
                return value
    return _num(power)


def _sample_watts(sample: Sample) -> float | None:
    power = sample.extra.get("power")
    if isinstance(power, dict):
        return _num(power.get("watts", power.get("w")))
    if power is not None:
        return _num(power)
    return _num(sample.extra.get("power_w"))


def step_power(step: StepResult, samples: list[Sample]) -> float | None:
    """Average watts over the step's measured window, or None when power was not measured."""
    stored = _summary_power(step.summary)
    if stored is not None:
        return stored
    readings = [
        PowerReading(s.t, w)
        for s in samples
        if s.step == step.step and s.phase == "measure" and (w := _sample_watts(s)) is not None
    ]
    if len(readings) < 2:
        return None
    t0, t1 = readings[0].t, readings[-1].t
    if t1 <= t0:
        return None
    return average_power(readings, t0, t1)


LATENCY_KEYS = {"all": "all", "new_order": "new_order", "new-order": "new_order"}


def latency_key(scope: str) -> str:
    """``all`` or ``new_order`` (``new-order`` accepted); a ValueError names a bad scope."""
    try:
        return LATENCY_KEYS[scope]
    except KeyError:
        raise ValueError(
            f"response times are of 'all' transactions or of 'new-order' only, got {scope!r}"
        ) from None


def has_latency_of(store: SessionStore, run_id: int, scope: str) -> bool:
    """Whether every complete step of a session stored response times for ``scope``."""
    key = latency_key(scope)
    steps = [s for s in store.steps(run_id) if s.complete]
    return bool(steps) and all(
        _num(_dict(s.latency_ms.get(key)).get("avg")) is not None for s in steps
    )


def step_points(store: SessionStore, run_id: int, latency: str = "all") -> tuple[StepPoint, ...]:
    """The session's steps; response times of ``latency`` (``all`` or ``new_order``)."""
    key = latency_key(latency)
    steps = store.steps(run_id)
    # The samples are read only when some step's summary lacks its power figure.
    needs_samples = any(_summary_power(step.summary) is None for step in steps)
    samples = store.samples(run_id) if needs_samples else []
    has_power = any(_sample_watts(s) is not None for s in samples)
    points = []
    for step in steps:
        times = _dict(step.latency_ms.get(key))
        points.append(
            StepPoint(
                vus=step.vus,
                nopm=step.nopm,
                tpm=step.tpm,
                avg_ms=_num(times.get("avg")),
                p999_ms=_num(times.get("p999")),
                power_w=step_power(step, samples if has_power else []),
                complete=step.complete,
                step=step.step,
                nopm_flag=step.nopm_flag,
            )
        )
    return tuple(points)


# ---- database settings in real units ------------------------------------------------------------

_BYTE_UNITS = (("TB", 1024**4), ("GB", 1024**3), ("MB", 1024**2), ("kB", 1024), ("B", 1))
_TIME_UNITS = (("d", 86_400_000.0), ("h", 3_600_000.0), ("min", 60_000.0), ("s", 1000.0))
_TIME_UNITS_SMALL = (("ms", 1.0), ("us", 0.001))
_UNIT = re.compile(r"(\d*)\s*(TB|GB|MB|kB|B|d|h|min|s|ms|us)")


def with_unit(value: Any, unit: str) -> str:
    """A pg_settings value in its unit as SHOW prints it: 16384 x ``8kB`` -> ``128MB``,
    ``300`` ``s`` -> ``5min``; a value that is not a whole number of its unit, or a negative
    one (-1: off), is printed as it is with its unit."""
    text = _text(value)
    match = _UNIT.fullmatch(unit.strip())
    number = _num(value)
    if number is None:
        try:
            number = float(text)
        except ValueError:
            return f"{text}{unit}" if text and unit else text
    if match is None or number < 0 or not number.is_integer():
        return f"{text}{unit.strip()}" if unit.strip() and number != -1 else text
    multiple = int(match.group(1) or 1)
    base = match.group(2)
    sizes = dict(_BYTE_UNITS)
    if base in sizes:
        total_bytes = int(number) * multiple * sizes[base]
        if total_bytes == 0:
            return "0"
        for name, size in _BYTE_UNITS:
            if total_bytes % size == 0:
                return f"{total_bytes // size}{name}"
    times = dict(_TIME_UNITS + _TIME_UNITS_SMALL)
    total_ms = number * multiple * times[base]
    if total_ms == 0:
        return "0"
    for name, unit_ms in _TIME_UNITS + _TIME_UNITS_SMALL:
        count = total_ms / unit_ms
        if abs(count - round(count)) < 1e-9:
            return f"{round(count)}{name}"
    return f"{text}{unit.strip()}"


def setting_text(value: Any) -> str:
    """A stored setting as a reader reads it: text as stored, or a record's value in its unit."""
    if isinstance(value, dict):
        for key in ("display", "text", "show"):
            if isinstance(value.get(key), str) and value[key].strip():
                return str(value[key]).strip()
        raw = value.get("setting", value.get("value"))
        unit = value.get("unit")
        return with_unit(raw, unit) if isinstance(unit, str) and unit else _text(raw)
    return _text(value)


# PostgreSQL's own values of the settings initdb writes into postgresql.conf (PostgreSQL 10
# on: the compiled value and initdb's are these): a session migrated from text settings
# (:mod:`bench_gui.store.settings_migration`) kept no boot value, so these tell its defaults.
PG_INITDB_DEFAULTS: Final = {
    "shared_buffers": "128MB",
    "max_connections": "100",
    "dynamic_shared_memory_type": "posix",
    "max_wal_size": "1GB",
    "min_wal_size": "80MB",
}
# Sources that mean nobody set the value: the engine's own, or sized by the server itself.
DEFAULT_SOURCES: Final = frozenset({"default", "auto"})


def setting_is_default(value: Any, name: str = "", engine: str = "") -> bool:
    """True when a stored setting record says it is at the engine's default (its source is
    ``default``/``auto``, or it equals its boot value; a migrated PostgreSQL record, which
    has neither, equals initdb's value); text settings were stored as non-default."""
    if not isinstance(value, dict):
        return False
    if value.get("source") in DEFAULT_SOURCES:
        return True
    raw = value.get("setting", value.get("value"))
    for key in ("boot_val", "default", "boot_value"):
        boot = value.get(key)
        if boot is not None and raw is not None:
            return _text(boot) == _text(raw)
    if engine in ("", "postgresql") and "source" not in value and name in PG_INITDB_DEFAULTS:
        return setting_text(value) == PG_INITDB_DEFAULTS[name]
    return False


def settings_say_defaults(settings: Mapping[str, Any] | None) -> bool:
    """Whether stored settings say which of them are defaults (a source or a default value
    per record); MariaDB sessions recorded before they did, all marked "server", do not."""
    records = [v for v in _dict(settings).values() if isinstance(v, dict)]
    if not records:
        return False
    return any(
        v.get("source") not in (None, "server") or v.get("boot_val") is not None
        or "migrated_from" in v
        for v in records
    )  # fmt: skip


def settings_text(settings: Mapping[str, Any] | None, engine: str = "") -> dict[str, str]:
    """Settings not at their defaults, by name, as a reader reads them."""
    return {
        str(name): setting_text(value)
        for name, value in sorted(_dict(settings).items())
        if not setting_is_default(value, str(name), engine)
    }


# ---- configuration ------------------------------------------------------------------------------


def _size(num_bytes: Any) -> str:
    value = _num(num_bytes)
    if value is None:
        return ""
    if value >= 1000**4:
        return f"{value / 1000**4:.1f} TB"
    return f"{value / 1000**3:.0f} GB"


def describe_devices(devices: list[dict[str, Any]]) -> list[str]:
    """``4 x Micron S650DC 800 GB (SAS, SSD, FW M012)``-style lines, identical devices counted."""
    groups: Counter[str] = Counter()
    for d in devices:
        kind = device_kind(d)
        extras = ", ".join(
            x
            for x in (
                str(d.get("transport") or "").upper(),
                kind,
                f"FW {d['firmware']}" if d.get("firmware") else "",
            )
            if x
        )
        name = str(d.get("model") or d.get("path") or "?")
        size = "" if re.search(r"\d\s*[GT]B\b", name) else _size(d.get("size_bytes"))
        label = f"{name} {size}" if size else name
        groups[f"{label} ({extras})" if extras else label] += 1
    return [f"{n} x {label}" for label, n in groups.items()]


def layout_summary(layout: Mapping[str, Any]) -> dict[str, str]:
    """A storage layout as key/value lines: identical devices counted, serials on one line."""
    out: dict[str, str] = {}
    devices = layout_devices(layout)
    for i, line in enumerate(describe_devices(devices)):
        out[f"Devices[{i}]" if i else "Devices"] = line
    serials = [str(d["serial"]) for d in devices if d.get("serial")]
    if serials:
        out["Serial numbers"] = ", ".join(serials)
    rest = {k: v for k, v in layout.items() if k != "devices"}
    if isinstance(rest.get("array"), dict):
        rest["array"] = {k: v for k, v in rest["array"].items() if k != "devices"}
    for key, value in flatten(rest).items():
        if key == "array.level" and value == "single":
            value = "none (one device)"
        label = layout_label(key)
        out[label if label not in out else f"{label} ({key})"] = value
    return out


# How a stored layout's keys read in the app and in reports; a key not listed is turned into
# words, so a field added to the layout later still reads as text, not as a dotted key.
LAYOUT_LABELS = {
    "name": "Layout",
    "target": "Target",
    "host": "Host",
    "volume": "Volume",
    "erase": "Erased with",
    "array.level": "RAID level",
    "array.backend": "Array built with",
    "array.device": "Array device",
    "array.read_ahead_kib": "Read-ahead (KiB)",
    "array.chunk_kib": "Chunk (KiB)",
    "array.resync": "Resync",
    "filesystem.type": "Filesystem",
    "filesystem.mkfs": "mkfs command",
    "filesystem.label": "Filesystem label",
    "filesystem.stripe": "Stripe alignment",
    "mount.point": "Mount point",
    "mount.options": "Mount options",
    "mount.owner": "Mount owner",
    "applied_at": "Prepared at",
}


def layout_label(key: str) -> str:
    """``array.chunk_kib`` -> ``Chunk (KiB)``; unknown keys become plain words."""
    if key in LAYOUT_LABELS:
        return LAYOUT_LABELS[key]
    words = re.sub(r"\[\d+\]", "", key).replace(".", " ").replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def hardware(inventory: Mapping[str, Any] | None) -> dict[str, str]:
    """The hardware facts of an inventory, as key/value lines."""
    inv = _dict(inventory)
    out: dict[str, str] = {}
    cpu = _dict(inv.get("cpu"))
    if cpu.get("model"):
        text = str(cpu["model"])
        if cpu.get("sockets"):
            text = f"{cpu['sockets']} x {text}"
        out["CPU"] = text
    if cpu.get("cores") or cpu.get("threads"):
        out["Cores / threads"] = f"{cpu.get('cores') or '?'} / {cpu.get('threads') or '?'}"
    memory = _num(_dict(inv.get("memory")).get("total_bytes"))
    if memory:
        out["Memory"] = f"{memory / GIB:.0f} GiB"
    disks = [
        d
        for d in inv.get("block_devices") or []
        if isinstance(d, dict) and d.get("type") in ("disk", None)
    ]
    for i, line in enumerate(describe_devices(disks)):
        out[f"Disks[{i}]" if i else "Disks"] = line
    if inv.get("hostname"):
        out["Host"] = str(inv["hostname"])
    return out


def operating_system(inventory: Mapping[str, Any] | None) -> dict[str, str]:
    inv = _dict(inventory)
    out = {}
    name = _dict(inv.get("os")).get("pretty_name")
    if name:
        out["Distribution"] = str(name)
    kernel = _dict(inv.get("kernel")).get("release")
    if kernel:
        out["Kernel"] = str(kernel)
    return out


def workload(plan: Mapping[str, Any]) -> dict[str, str]:
    wl = _dict(plan.get("workload"))
    out: dict[str, str] = {}
    labels = (
        ("warehouses", "Warehouses"),
        ("virtual_users", "Virtual users"),
        ("rampup_s", "Ramp-up (s)"),
        ("duration_s", "Measured window (s)"),
        ("all_warehouses", "All warehouses"),
        ("keying_thinking", "Keying and thinking time"),
        ("reset_between_steps", "Database reset between steps"),
        ("processes", "Driver processes"),
        ("profile", "Transaction profile"),
    )
    for key, label in labels:
        if key in wl:
            out[label] = _text(wl[key])
    return out


def config_of(detail: RunDetail) -> dict[str, dict[str, str]]:
    """The configuration sections of a session (only those it stored)."""
    config: dict[str, dict[str, str]] = {}
    layout = storage_layout(detail)
    if layout:
        config["Storage layout"] = layout_summary(layout)
    for name, section in (
        ("Hardware", hardware(detail.inventory)),
        ("Operating system", operating_system(detail.inventory)),
    ):
        if section:
            config[name] = section
    knobs = os_knobs(detail)
    if knobs:
        config["OS knobs"] = flatten(knobs)
    database = {"Engine": detail.engine}
    if detail.server_version:
        database["Server"] = short_server(detail.server_version)
    config["Database"] = database
    settings = settings_text(detail.settings, detail.engine)
    if settings:
        config["Database settings"] = settings
    wl = workload(detail.plan)
    if wl:
        config["Workload"] = wl
    return config


# Inventory fields that change from one reading to the next on one unchanged system.
_VOLATILE = frozenset(
    {
        "collected_at", "applied_at", "notes", "available_bytes", "avail_bytes", "used_bytes",
        "history_id", "resync", "result", "before", "rolled_back", "updated_at",
    }
)  # fmt: skip


def _stable(value: Any) -> Any:
    """``value`` without the fields that change between readings of one system."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in _VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _described_count(description: Mapping[str, Any]) -> int | None:
    count = description.get("count")
    if isinstance(count, int) and not isinstance(count, bool) and count > 0:
        return count
    match = re.match(r"\s*(\d+)\s*[x×]\s", _text(description.get("devices")))
    return int(match.group(1)) if match else None


def recorded_storage(store: SessionStore, detail: RunDetail) -> RecordedStorage | None:
    """What was recorded about a session's storage: the author's description wins, then the
    layout bench-gui built, then the disks found under the data directory (None: nothing)."""
    description = storage_description(store, detail.id)
    if isinstance(description, dict):
        words = _text(description.get("devices"))
        count = _described_count(description)
        if words or count:
            return RecordedStorage(
                "the author's description",
                count,
                kind_in_text(words),
                size_in_text(words),
                _text(description.get("text")) or words,
            )
    layout = storage_layout(detail)
    devices = layout_devices(layout) if layout else []
    source = "the storage layout"
    if not devices:
        database = _dict(_dict(detail.inventory).get("database"))
        devices = [d for d in database.get("disks") or [] if isinstance(d, dict)]
        source = "the disks under the data directory"
    if not devices:
        return None
    kinds = {device_kind(d) for d in devices}
    sizes = Counter(_num(d.get("size_bytes")) for d in devices if _num(d.get("size_bytes")))
    return RecordedStorage(
        source,
        len(devices),
        kinds.pop() if len(kinds) == 1 else "",
        sizes.most_common(1)[0][0] if sizes else None,
        "; ".join(describe_devices(devices)),
    )


def storage_description(store: SessionStore, run_id: int) -> Any:
    """What the author entered about a session's storage where bench-gui did not build it
    (None when nothing was entered, or the store predates the feature)."""
    reader = getattr(store, "storage_description", None)
    if not callable(reader):
        return None
    found = reader(run_id)
    return found or None


def plan_key(detail: RunDetail, note: str = "", description: Any = None) -> str:
    """Sessions with equal keys ran the same plan on a system recorded as the same: repeats.

    The plan without its name (its notes included), the target, the server version, data
    directory and settings, the inventory (what does not change between readings), the
    storage layout or the author's description of the storage, the OS knobs and the session's
    note: two sweeps differing in any of these are not repeats. "" when neither an inventory
    nor a storage layout or description was recorded: too little is known to tell.
    """
    inventory = _dict(detail.inventory)
    layout = storage_layout(detail)
    hardware = {k: v for k, v in inventory.items() if k not in ("storage_layout", "os_tuning")}
    if not (hardware or layout or description):
        return ""
    tuning = _dict(inventory.get("os_tuning"))
    material = {
        "plan": {k: v for k, v in _dict(detail.plan).items() if k != "name"},
        "engine": detail.engine,
        "server": short_server(detail.server_version),
        "data_directory": _dict(detail.agent).get("data_directory"),
        "settings": detail.settings,
        "inventory": _stable(hardware),
        "storage": _stable(layout),
        "description": _stable(description),
        "os": os_knobs(detail),
        "os_tuning": {"preset": tuning.get("preset"), "knobs": tuning.get("knobs")},
        "note": note.strip(),
    }
    text = json.dumps(material, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def session_data(store: SessionStore, run_id: int, latency: str = "all") -> SessionData:
    """A stored session as the comparison needs it; response times of ``latency``."""
    detail = store.get_run(run_id)
    return SessionData(
        id=detail.id,
        name=detail.name,
        status=detail.status,
        steps=step_points(store, run_id, latency),
        config=config_of(detail),
        plan_key=plan_key(detail, store.note(run_id), storage_description(store, run_id)),
        created_at=detail.created_at,
        latency_of=latency_key(latency),
        measurement=detail.measurement,
    )


# ---- provenance ---------------------------------------------------------------------------------


@dataclass
class Provenance:
    """What a report's "How we tested" says about one session."""

    id: int
    name: str
    created_at: str
    finished_at: str | None
    status: str
    app_version: str
    agent_version: str
    target: str
    engine: str
    server_version: str
    config: dict[str, dict[str, str]]
    rampup_s: float | None
    duration_s: float | None
    measured_windows: list[tuple[int, float]]  # (users, real measured window in s) per step
    erase: str  # the erase method of the storage layout, if stored
    commands: list[str] = field(default_factory=list)
    array: ArrayInput = field(default_factory=ArrayInput)


def _erase(layout: Mapping[str, Any] | None) -> str:
    if not layout:
        return ""
    for key in ("erase", "erase_method"):
        if layout.get(key):
            return _text(layout[key])
    methods = {str(d.get("erase")) for d in layout_devices(layout) if d.get("erase")}
    return ", ".join(sorted(methods))


def provenance(store: SessionStore, run_id: int) -> Provenance:
    detail = store.get_run(run_id)
    wl = _dict(_dict(detail.plan).get("workload"))
    commands = [
        line.message.removeprefix("$ ")
        for line in store.log(run_id)
        if line.level in ("command", "cmd") or line.message.startswith("$ ")
    ]
    return Provenance(
        id=detail.id,
        name=detail.name,
        created_at=detail.created_at,
        finished_at=detail.finished_at,
        status=detail.status,
        app_version=detail.app_version,
        agent_version=str(_dict(detail.agent).get("agent_version") or ""),
        target=detail.target_summary,
        engine=detail.engine,
        server_version=short_server(detail.server_version),
        config=config_of(detail),
        rampup_s=_num(wl.get("rampup_s")),
        duration_s=_num(wl.get("duration_s")),
        measured_windows=[
            (s.vus, s.window_s) for s in store.steps(run_id) if s.window_s is not None
        ],
        erase=_erase(storage_layout(detail)),
        commands=commands,
        array=array_input(store, detail),
    )
