"""The system under test, side by side: one column per session, as the seed briefs print it.

Four tables, each with a column per session: the platform (hardware and storage), the
software and the workload (operating system, database, warehouses, users, windows), the
database settings not at the engine's defaults (seed 000's Table 7 of tuned parameters) and
the test schema with its row counts and size (its Table 8).
A value every session shares is printed once, across their columns; a value that differs is
highlighted. Only what a reader checks is listed: of the OS knobs, those the plan set and
those recorded different between the sessions, not every knob of the host.

Read from what each session stored (see :mod:`bench_gui.store.compare_input`): the inventory,
the storage layout bench-gui built or the storage the author described, the agent's facts and
settings, the plan. A part a session did not record reads "not recorded".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench_gui.core.multi_driver import CPU_WARN_PCT
from bench_gui.core.os_presets import BUILTIN_OS_PRESETS
from bench_gui.report.parts import Cell, Table, merged
from bench_gui.report.profiles import profile_text
from bench_gui.store.compare_input import (
    describe_devices,
    layout_devices,
    settings_say_defaults,
    settings_text,
    short_server,
    storage_description,
    storage_layout,
)
from bench_gui.store.records import RunDetail
from bench_gui.store.sessions import SessionStore
from bench_gui.wire.tpcc_tables import ITEMS, ROWS_PER_WAREHOUSE, TABLES

GIB = 1024**3
NOT_RECORDED = "not recorded"
# Settings that say nothing about performance: locale, time zone, logging destinations, files
# and connections. Left out of the printed table (CSV/JSON keep every setting).
NOT_TUNING = frozenset(
    {
        "DateStyle", "IntervalStyle", "TimeZone", "log_timezone", "lc_messages", "lc_monetary",
        "lc_numeric", "lc_time", "default_text_search_config", "client_encoding",
        "application_name", "config_file", "data_directory", "hba_file", "ident_file",
        "external_pid_file", "unix_socket_directories", "unix_socket_permissions",
        "listen_addresses", "port", "cluster_name", "log_destination", "log_directory",
        "log_filename", "log_file_mode", "log_line_prefix", "log_rotation_age",
        "log_rotation_size", "log_truncate_on_rotation", "logging_collector", "ssl",
        "ssl_cert_file", "ssl_key_file", "ssl_ca_file", "ssl_crl_file", "krb_server_keyfile",
    }
)  # fmt: skip


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list | tuple):
        return ", ".join(_text(v) for v in value if v is not None)
    return str(value).strip()


def duration(seconds: Any) -> str:
    """``15 min``, ``90 s``, ``1 h 30 min``."""
    if not isinstance(seconds, int | float) or isinstance(seconds, bool):
        return ""
    value = float(seconds)
    if value >= 3600 and value % 60 == 0:
        hours, minutes = divmod(int(value // 60), 60)
        return f"{hours} h" + (f" {minutes} min" if minutes else "")
    if value >= 60 and value % 60 == 0:
        return f"{int(value // 60)} min"
    return f"{value:g} s"


def user_counts(values: Sequence[int]) -> str:
    """``8, 16, 24, 32`` or, for long sweeps, ``4 to 512 (20 steps)``."""
    counts = sorted(set(values))
    if not counts:
        return ""
    if len(counts) <= 8:
        return ", ".join(map(str, counts))
    return f"{counts[0]} to {counts[-1]} ({len(counts)} steps)"


# ---- what one session recorded ----------------------------------------------------------------


@dataclass
class SystemFacts:
    """What one session recorded about the system it ran on."""

    id: int
    detail: RunDetail
    note: str = ""
    description: Any = None  # the author's description of the storage, if entered
    vus: list[int] = field(default_factory=list)  # user counts of its complete steps
    step_facts: dict[str, Any] = field(default_factory=dict)  # the first step's summary
    end_facts: dict[str, Any] = field(default_factory=dict)  # the schema as the run left it
    # Complete steps whose driver hosts were over CPU_WARN_PCT busy: (users, [(host, busy %)]).
    busy_drivers: list[tuple[int, list[tuple[str, float]]]] = field(default_factory=list)
    # A run on several driver hosts: how far apart the hosts really began each complete step
    # (its users, seconds), as measured; and the steps flagged past the limit.
    start_spreads: list[tuple[int, float]] = field(default_factory=list)
    start_flags: list[str] = field(default_factory=list)

    @property
    def inventory(self) -> dict[str, Any]:
        return _dict(self.detail.inventory)

    @property
    def plan(self) -> dict[str, Any]:
        return _dict(self.detail.plan)

    @property
    def workload(self) -> dict[str, Any]:
        return _dict(self.plan.get("workload"))

    @property
    def agent(self) -> dict[str, Any]:
        return _dict(self.detail.agent)

    @property
    def driver_hosts(self) -> list[dict[str, Any]]:
        """The driver hosts of a run on several (name, role, clock), [] on one host."""
        hosts = _dict(self.detail.target).get("driver_hosts")
        return [h for h in hosts if isinstance(h, dict)] if isinstance(hosts, list) else []

    @property
    def hardware_known(self) -> bool:
        inv = self.inventory
        return bool(_dict(inv.get("cpu")).get("model") or _dict(inv.get("memory")))

    @property
    def imported(self) -> bool:
        """Recorded by another tool (HammerDB) and imported: its own plan fields are guesses."""
        return self.agent.get("source") == "hammerdb"


def gather(store: SessionStore, run_id: int) -> SystemFacts:
    """Everything a session recorded about its system, from the store."""
    detail = store.get_run(run_id)
    steps = store.steps(run_id)
    return SystemFacts(
        id=run_id,
        detail=detail,
        note=store.note(run_id),
        description=storage_description(store, run_id),
        vus=[s.vus for s in steps if s.complete],
        step_facts=dict(steps[0].summary) if steps else {},
        end_facts=_dict(steps[-1].summary.get("after_run")) if steps else {},
        busy_drivers=[
            (s.vus, busy) for s in steps if s.complete and (busy := busy_driver_hosts(s.summary))
        ],
        start_spreads=[
            (s.vus, spread)
            for s in steps
            if s.complete and (spread := start_spread_s(s.summary)) is not None
        ],
        start_flags=[
            str(s.summary["start_flag"])
            for s in steps
            if s.complete and isinstance(s.summary.get("start_flag"), str)
        ],
    )


def start_spread_s(summary: Mapping[str, Any]) -> float | None:
    """How far apart the driver hosts of a step really began it (seconds, measured), None
    when it was not measured (one host, or a session from before it was)."""
    spread = _dict(summary.get("start")).get("spread_s")
    if isinstance(spread, int | float) and not isinstance(spread, bool) and spread >= 0:
        return float(spread)
    return None


def busy_driver_hosts(summary: Mapping[str, Any]) -> list[tuple[str, float]]:
    """The driver hosts of a step (of a run on several) that were over CPU_WARN_PCT busy over
    its window: the driver, not the system under test, may have held its figures back."""
    hosts = summary.get("driver_hosts")
    busy = []
    for host in hosts if isinstance(hosts, list) else []:
        pct = _dict(host).get("cpu_busy_pct")
        if isinstance(pct, int | float) and not isinstance(pct, bool) and pct > CPU_WARN_PCT:
            busy.append((str(_dict(host).get("host") or "?"), float(pct)))
    return busy


def driver_hosts_text(f: SystemFacts) -> str | None:
    """``2: alpha (primary, 16 threads), beta (8 threads); clocks within 0.2 ms`` for a run on
    several driver hosts; None on one."""
    hosts = f.driver_hosts
    if len(hosts) < 2:
        return None
    inventories = _dict(f.inventory.get("driver_hosts"))
    parts = []
    offsets = []
    for host in hosts:
        name = _text(host.get("host")) or "?"
        threads = _dict(_dict(inventories.get(name)).get("cpu")).get("threads")
        said = ["primary"] if host.get("role") == "primary" else []
        if isinstance(threads, int) and not isinstance(threads, bool):
            said.append(f"{threads} threads")
        parts.append(f"{name} ({', '.join(said)})" if said else name)
        offset = _dict(host.get("clock")).get("offset_ms")
        if isinstance(offset, int | float) and not isinstance(offset, bool):
            offsets.append(abs(float(offset)))
    text = f"{len(hosts)}: " + ", ".join(parts)
    if offsets and len(offsets) == len(hosts):
        text += f"; clocks within {max(offsets):.1f} ms of the desktop's"
    return text


# ---- the parts, per session (label -> value; None: not recorded) ------------------------------


def hardware(f: SystemFacts) -> dict[str, str | None]:
    inv = f.inventory
    cpu = _dict(inv.get("cpu"))
    text = _text(cpu.get("model"))
    if text and cpu.get("sockets") and int(cpu["sockets"]) > 1:
        text = f"{cpu['sockets']} x {text}"
    counts = [
        f"{cpu['cores']} cores" if cpu.get("cores") else "",
        f"{cpu['threads']} threads" if cpu.get("threads") else "",
    ]
    if text and any(counts):
        text += " (" + ", ".join(c for c in counts if c) + ")"
    memory = _dict(inv.get("memory")).get("total_bytes")
    memory_text = f"{memory / GIB:.0f} GiB" if isinstance(memory, int | float) else None
    return {
        "Host": _text(inv.get("hostname")) or None,
        "CPU": text or None,
        # An imported session's memory is the text its tool recorded.
        "Memory": memory_text or _text(_dict(inv.get("memory")).get("text")) or None,
    }


def _array_text(layout: Mapping[str, Any]) -> str:
    array, raid = _dict(layout.get("array")), _dict(layout.get("raid"))
    level = array.get("level", raid.get("level"))
    if level in (None, ""):
        return ""
    if str(level) == "single":
        return "single device"
    tool = array.get("backend") or raid.get("tool") or raid.get("backend")
    chunk = array.get("chunk_kib") or raid.get("chunk_kib") or raid.get("chunk_kb")
    extras = [str(tool) if tool else "", f"{chunk} KiB chunk" if chunk else ""]
    extra = ", ".join(e for e in extras if e)
    return f"RAID {level}" + (f" ({extra})" if extra else "")


def _filesystem_text(layout: Mapping[str, Any]) -> str:
    fs = layout.get("filesystem")
    fstype = _dict(fs).get("type") if isinstance(fs, dict) else fs
    mount = layout.get("mount")
    point = _dict(mount).get("point") if isinstance(mount, dict) else mount
    options = _dict(mount).get("options") if isinstance(mount, dict) else None
    options = options or layout.get("mount_options")
    text = _text(fstype)
    if point:
        text += f" on {point}"
    if options:
        text += f" ({options})"
    return text.strip()


def _per_device(devices: list[dict[str, Any]], key: str, unit: str = "") -> str:
    values = sorted({_text(d.get(key)) for d in devices if d.get(key) not in (None, "")})
    return ", ".join(f"{v}{unit}" for v in values)


def _description_text(description: Any) -> str:
    """The author's storage description on one line (its note after it)."""
    if isinstance(description, dict):
        text = _text(description.get("text"))
        note = _text(description.get("note"))
        if note and note != text:
            text = f"{text}; {note}" if text else note
        return text
    return _text(description)


def _placement(f: SystemFacts) -> dict[str, str | None]:
    """Where the data directory lives, as the inventory found it (not the author's word)."""
    db = _dict(f.inventory.get("database"))
    disks = [d for d in db.get("disks") or [] if isinstance(d, dict)]
    device = _text(db.get("device"))
    if device and db.get("device_type"):
        device += f" ({db['device_type']})"
    fs = _text(db.get("filesystem"))
    if fs and db.get("mount"):
        fs += f" on {db['mount']}"
    if fs and db.get("mount_options"):
        fs += f" ({db['mount_options']})"
    read_ahead = _per_device(disks, "read_ahead_kib", " KiB")
    return {
        "Data directory on": device or None,
        "Its filesystem": fs or None,
        "Disks under it": "; ".join(describe_devices(disks)) or None,
        "I/O scheduler": _per_device(disks, "scheduler") or None,
        "Read-ahead": read_ahead or None,
    }


def storage(f: SystemFacts) -> dict[str, str | None]:
    layout = storage_layout(f.detail)
    described = _description_text(f.description)
    placement = _placement(f)
    if not layout:
        found = {k: v for k, v in placement.items() if v is not None}
        if described:
            return {"Storage": f"described by the author: {described}", **found}
        if found:
            return {"Storage": "as found under the data directory", **found}
        return {"Storage": NOT_RECORDED}
    devices = layout_devices(layout)
    wal = _dict(layout.get("wal"))
    erase = _per_device(devices, "erase_label") or _text(layout.get("erase"))
    array = _dict(layout.get("array"))
    read_ahead = _per_device(devices, "read_ahead_kib", " KiB")
    if array.get("read_ahead_kib"):
        read_ahead = f"{array['read_ahead_kib']} KiB (array)"
    return {
        "Storage": "built by bench-gui",
        "Devices": "; ".join(describe_devices(devices)) or None,
        "Array": _array_text(layout) or None,
        "Filesystem": _filesystem_text(layout) or None,
        "Prepared by": erase or None,
        "I/O scheduler": _per_device(devices, "scheduler") or None,
        "Read-ahead": read_ahead or None,
        "WAL": (
            "; ".join(describe_devices(layout_devices(wal))) + f", {_filesystem_text(wal)}"
            if wal
            else None
        ),
        "Author's description": described or None,
    }


def _knobs_set(f: SystemFacts) -> tuple[str, dict[str, str]]:
    """The OS preset and knobs the plan set for the run (as recorded, else as planned)."""
    tuning = _dict(f.inventory.get("os_tuning"))
    if tuning:
        return _text(tuning.get("preset")), {
            str(k): _text(v) for k, v in _dict(tuning.get("knobs")).items()
        }
    planned = _dict(f.plan.get("os"))
    preset = _text(planned.get("preset"))
    knobs: dict[str, str] = {}
    if preset in BUILTIN_OS_PRESETS:
        knobs.update({k: _text(v) for k, v in BUILTIN_OS_PRESETS[preset].knobs.items()})
    knobs.update({str(k): _text(v) for k, v in _dict(planned.get("knobs")).items()})
    return preset, knobs


def operating_system(facts: Sequence[SystemFacts]) -> list[tuple[str, dict[int, str | None]]]:
    """Distribution and kernel; the OS knobs the plans set, and recorded knobs that differ."""
    rows: list[tuple[str, dict[int, str | None]]] = []
    for label, part, key in (
        ("Distribution", "os", "pretty_name"),
        ("Kernel", "kernel", "release"),
    ):
        rows.append(
            (label, {f.id: _text(_dict(f.inventory.get(part)).get(key)) or None for f in facts})
        )
    presets = {f.id: _knobs_set(f) for f in facts}
    if any(p for p, _ in presets.values()):
        rows.append(("OS preset", {sid: p or "none" for sid, (p, _) in presets.items()}))
    set_names: list[str] = []
    for _, knobs in presets.values():
        set_names += [k for k in knobs if k not in set_names]
    observed = {f.id: {str(k): _text(v) for k, v in _dict(f.inventory.get("os_knobs")).items()}
                for f in facts}  # fmt: skip
    for name in set_names:
        values: dict[int, str | None] = {}
        for f in facts:
            planned = presets[f.id][1].get(name)
            values[f.id] = (
                f"{planned} (set for the run)" if planned else observed[f.id].get(name) or "not set"
            )
        rows.append((name, values))
    seen = set(set_names)
    for name in sorted({k for obs in observed.values() for k in obs} - seen):
        values = {f.id: observed[f.id].get(name) for f in facts}
        if len(set(values.values())) > 1:
            rows.append((name, values))
    return rows


def database(f: SystemFacts) -> dict[str, str | None]:
    placed = _dict(f.inventory.get("database"))
    version = f.detail.server_version or _text(placed.get("version"))
    server = short_server(version) or f.detail.engine or None
    data_dir = f.agent.get("data_directory") or placed.get("data_directory")
    return {"Server": server, "Data directory": _text(data_dir) or None}


def workload(f: SystemFacts) -> dict[str, str | None]:
    wl = f.workload

    def flag(key: str, yes: str, no: str) -> str | None:
        return None if key not in wl else (yes if wl[key] else no)

    warehouses = wl.get("warehouses")
    imported = f.imported
    processes = None if imported else wl.get("processes")
    return {
        "Driver": "HammerDB (imported)" if imported else "bench-gui",
        "Transaction profile": profile_text(f),
        "Driver hosts": driver_hosts_text(f),
        "Warehouses": f"{warehouses:,}" if isinstance(warehouses, int) else None,
        "Virtual users": user_counts(f.vus or list(wl.get("virtual_users") or [])) or None,
        "Ramp-up": duration(wl.get("rampup_s")) or None,
        "Measured window": duration(wl.get("duration_s")) or None,
        "Keying and thinking": flag(
            "keying_thinking", "on (TPC-C keying and think times)", "off (no waits)"
        ),
        "Users on all warehouses": flag("all_warehouses", "yes", "no (a home warehouse each)"),
        "Reset between steps": flag(
            "reset_between_steps", "yes (a fresh copy of the built database)", "no"
        ),
        "Driver processes": (
            None if processes is None else ("one per CPU" if processes == 0 else str(processes))
        ),
    }


def _size_text(size: Any) -> str | None:
    """A database size in the unit a reader takes in at a glance (MiB under 1 GiB)."""
    if not isinstance(size, int | float) or size <= 0:
        return None
    if size < GIB:
        return f"{size / 1024**2:,.0f} MiB"
    return f"{size / GIB:,.1f} GiB"


def schema_rows(f: SystemFacts) -> tuple[dict[str, str | None], bool]:
    """Rows per table and the database size; True when the rows were counted, not derived.

    A table whose rows the agent estimated (``pg_class.reltuples`` after ANALYZE, on a large
    database) is marked with "≈"; the size the run left the database at is its own row.
    """
    counted = _dict(f.agent.get("table_rows")) or _dict(f.step_facts.get("table_rows"))
    methods = _dict(f.agent.get("table_rows_method")) or _dict(
        f.step_facts.get("table_rows_method")
    )
    size = f.agent.get("database_size_bytes") or f.step_facts.get("database_size_bytes")
    out: dict[str, str | None] = {}
    warehouses = f.workload.get("warehouses")
    for table in TABLES:
        if table in counted and isinstance(counted[table], int | float):
            mark = "≈ " if methods.get(table) == "estimate" else ""
            out[table] = f"{mark}{int(counted[table]):,}"
        elif table == "item":
            out[table] = f"{ITEMS:,}" if isinstance(warehouses, int) else None
        elif isinstance(warehouses, int) and table in ROWS_PER_WAREHOUSE:
            out[table] = f"{ROWS_PER_WAREHOUSE[table] * warehouses:,}"
        else:
            out[table] = None
    if (text := _size_text(size)) is not None:
        out["Database size"] = text
    if (after := _size_text(f.end_facts.get("database_size_bytes"))) is not None:
        out["Database size after the run"] = after
    return out, bool(counted)


# ---- side by side -------------------------------------------------------------------------------

Item = tuple[str, dict[int, str | None]]


def _row(label: str, values: Mapping[int, str | None], ids: Sequence[int]) -> list[Cell] | None:
    texts = [values.get(sid) for sid in ids]
    if all(t is None for t in texts):
        return None
    cells = [Cell(label, label, "label")]
    if len(set(texts)) == 1:
        return cells + merged(str(texts[0]), len(ids))
    for text in texts:
        cells.append(Cell(text or "—", text, "diff"))
    return cells


def side_by_side(
    key: str,
    title: str,
    parts: Sequence[tuple[str, Sequence[Item]]],
    ids: Sequence[int],
    short: Mapping[int, str],
    notes: Sequence[str] = (),
) -> Table | None:
    """A table with a column per session; None when no part has a row."""
    rows: list[list[Cell]] = []
    for heading, items in parts:
        body = [r for label, values in items if (r := _row(label, values, ids)) is not None]
        if not body:
            continue
        if heading:
            rows.append(merged(heading, len(ids) + 1, tone="section"))
        rows.extend(body)
    if not rows:
        return None
    return Table(
        key,
        title,
        ["Item"] + [short[sid] for sid in ids],
        rows,
        notes=list(notes),
        text_columns=tuple(range(len(ids) + 1)),
    )


def _items(
    facts: Sequence[SystemFacts], get: Callable[[SystemFacts], dict[str, str | None]]
) -> list[Item]:
    per = {f.id: get(f) for f in facts}
    labels: list[str] = []
    for values in per.values():
        labels += [k for k in values if k not in labels]
    return [(label, {sid: per[sid].get(label) for sid in per}) for label in labels]


def _workload_items(facts: Sequence[SystemFacts]) -> list[Item]:
    """The workload rows; beside a run on several driver hosts, one on a single host says
    so ("1"), not "not recorded"."""
    items = _items(facts, workload)
    for label, values in items:
        if label == "Driver hosts" and any(values.values()):
            for f in facts:
                if values.get(f.id) is None and not f.imported:
                    values[f.id] = "1"
    return items


@dataclass
class ConfigTables:
    """The three tables (None where nothing was recorded) and what a reader is told."""

    platform: Table | None  # hardware and storage
    software: Table | None  # operating system, database, workload
    settings: Table | None
    schema: Table | None
    hosts_identical: bool  # hardware recorded for all, and the same
    missing_hardware: list[int] = field(default_factory=list)
    missing_storage: list[int] = field(default_factory=list)
    # Said in words when there is no settings table: defaults, or not recorded (and whose).
    settings_sentence: str = ""


def config_tables(facts: Sequence[SystemFacts], short: Mapping[int, str]) -> ConfigTables:
    """The configuration tables of a report (baseline first, as ``facts`` are ordered)."""
    ids = [f.id for f in facts]
    missing_hw = [f.id for f in facts if not f.hardware_known]
    if len(missing_hw) == len(ids):
        hw: list[Item] = [("Hardware", {sid: NOT_RECORDED for sid in ids})]
    else:
        hw = _items(facts, hardware)
        for _, values in hw:
            for sid in missing_hw:
                values[sid] = NOT_RECORDED
    st = _items(facts, storage)
    # Two tables rather than one: each then fits on a page and moves whole.
    platform = side_by_side(
        "config_platform",
        "System under test: hardware and storage",
        [("Hardware", hw), ("Storage", st)],
        ids,
        short,
    )
    software = side_by_side(
        "config_software",
        "System under test: software and workload",
        [
            ("Operating system", operating_system(facts)),
            ("Database", _items(facts, database)),
            ("Workload", _workload_items(facts)),
        ],
        ids,
        short,
    )
    recorded = {f.id: settings_text(f.detail.settings, f.detail.engine) for f in facts}
    has_settings = {f.id: bool(f.detail.settings) for f in facts}
    names: list[str] = []
    for found in recorded.values():
        names += [n for n in found if n not in names and n not in NOT_TUNING]
    settings_items: list[Item] = []
    for name in sorted(names, key=str.lower):
        row: dict[int, str | None] = {}
        for f in facts:
            if not has_settings[f.id]:
                row[f.id] = NOT_RECORDED
            else:
                row[f.id] = recorded[f.id].get(name, "default")
        settings_items.append((name, row))
    unsaid = [f.id for f in facts if has_settings[f.id] and not settings_say_defaults(
        f.detail.settings)]  # fmt: skip
    settings_notes = [
        "As the database reported them when each run started (settings whose source is not"
        ' the default); "default" where a configuration left one at its default. Locale,'
        " logging, connection and file-location settings are left out."
    ]
    if unsaid:
        whose = ", ".join(short[i] for i in unsaid)
        settings_notes.append(
            f"{whose}: the database did not say which settings are at their defaults when"
            " the session was recorded, so every recorded setting is listed."
        )
    settings = side_by_side(
        "config_settings",
        "Database settings not at their defaults",
        [("", settings_items)],
        ids,
        short,
        notes=settings_notes,
    )
    sentence = "" if settings is not None else _settings_sentence(facts, has_settings, short)
    schema_values = {f.id: schema_rows(f) for f in facts}
    counted = any(c for _, c in schema_values.values())
    sized = any("Database size" in v for v, _ in schema_values.values())
    labels = [*TABLES, "Database size", "Database size after the run"]
    schema_items: list[Item] = [
        (label, {sid: schema_values[sid][0].get(label) for sid in ids}) for label in labels
    ]
    estimated = any(
        v.startswith("≈") for vals, _ in schema_values.values() for v in vals.values() if v
    )
    derived_text = (
        "as the TPROC-C build creates them for the warehouse count (order_line: 5 to 15 lines"
        " per order, 10 on average)"
    )
    uncounted = [short[f.id] for f in facts if not schema_values[f.id][1]]
    schema_notes = [
        "Rows counted in the database when the run started"
        + ("; ≈: estimated by the database's statistics after ANALYZE." if estimated else ".")
        if counted
        else f"Rows {derived_text}: not counted."
    ]
    if counted and uncounted:
        # Said per session: a derived figure is never passed off as a count.
        schema_notes.append(
            f"Not counted for {', '.join(uncounted)}: rows there are {derived_text}."
        )
    if not sized:
        schema_notes.append("The database size was not recorded with these sessions.")
    schema = side_by_side(
        "config_schema", "Test schema", [("", schema_items)], ids, short, notes=schema_notes
    )
    if schema is not None:
        schema.columns[0] = "Table"
    cpu_mem = [(hardware(f).get("CPU"), hardware(f).get("Memory")) for f in facts]
    identical = not missing_hw and len(set(cpu_mem)) == 1
    missing_storage = [f.id for f in facts if storage(f) == {"Storage": NOT_RECORDED}]
    return ConfigTables(
        platform, software, settings, schema, identical, missing_hw, missing_storage, sentence
    )


def _settings_sentence(
    facts: Sequence[SystemFacts], has_settings: Mapping[int, bool], short: Mapping[int, str]
) -> str:
    """When no setting differs from its default: say so, and whose settings were not
    recorded, so a reader never takes "not recorded" for "defaults"."""
    if not facts:
        return ""
    at_default = [short[f.id] for f in facts if has_settings[f.id]]
    missing = [short[f.id] for f in facts if not has_settings[f.id]]
    if not missing:
        every = "every configuration" if len(facts) > 1 else "the configuration"
        return (
            f"Database settings: {every} ran with every recorded setting at the engine's"
            " default (locale, logging and file locations aside)."
        )
    if not at_default:
        return "Database settings: not recorded with these sessions."
    return (
        f"Database settings: {', '.join(at_default)} ran with every recorded setting at the"
        f" engine's default; not recorded for {', '.join(missing)}."
    )
