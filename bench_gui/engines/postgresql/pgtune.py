"""PgTune's formulas: PostgreSQL settings from RAM, CPUs, connections, storage and workload type.

The rules are PgTune's (le0pard/pgtune, ``configurationSlice.js``; summarised in
``shared/reference/workload-spec.md`` section 2), written again here so that every value comes
with the rule that produced it and the arithmetic behind it. Memory is computed in kB with
integer floors, as PgTune does, and written in the largest unit that loses nothing (``32GB``,
``270600kB``).

Two editions of the rules:

- ``current`` (default): today's PgTune: ``maintenance_work_mem`` capped at 8 GB, ``work_mem`` at
  least 4 MB, ``huge_pages = try`` once ``shared_buffers`` reaches 2 GB, the ``nvme`` storage
  type, and the newer settings (``jit``, ``wal_compression``, ``autovacuum_max_workers``,
  ``autovacuum_work_mem``, ``io_method``, ``io_workers``).
- ``classic``: the PgTune of the seed briefs' era: ``maintenance_work_mem`` capped at 2 GB,
  ``work_mem`` at least 64 kB, ``huge_pages = try`` from 32 GB of RAM, storage hdd/ssd/san.

Settings are mapped to the PostgreSQL version: ``checkpoint_segments`` before 9.5 instead of
``min_wal_size``/``max_wal_size``, and each parallel-query setting only from the release that
has it. This module also knows how PostgreSQL reads a setting's value (units, booleans, enums),
so a proposal can be compared with ``pg_settings`` whatever units either side uses.

Pure: no I/O, no Qt.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from bench_gui.engines.tuning_terms import (
    STORAGE_TYPES,
    TunedSetting,
    TuneInputError,
    format_bytes,
)

DB_TYPES: Final = ("web", "oltp", "dw", "desktop", "mixed")
OS_TYPES: Final = ("linux", "windows", "mac")
EDITIONS: Final = ("current", "classic")
DB_TYPE_LABELS: Final = {
    "web": "Web application",
    "oltp": "Online transaction processing (OLTP)",
    "dw": "Data warehouse",
    "desktop": "Desktop application",
    "mixed": "Mixed type of application",
}

MB_KB: Final = 1024
GB_KB: Final = 1024 * 1024
TB_KB: Final = 1024 * 1024 * 1024


# -- versions ----------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class PgVersion:
    """A PostgreSQL major release: ``PgVersion(9, 4)`` for 9.4, ``PgVersion(16)`` for 16."""

    major: int
    minor: int = 0  # the second digit of a pre-10 major release (9.4 -> 4); 0 from 10 on

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}" if self.major < 10 else str(self.major)

    @classmethod
    def parse(cls, value: str | int | float | PgVersion) -> PgVersion:
        """``"9.4"``, ``"16"``, ``16``, ``9.6``, ``"16.4"`` or a server_version_num (160004)."""
        if isinstance(value, PgVersion):
            return value
        if isinstance(value, bool):
            raise ValueError(f"{value!r} is not a PostgreSQL version")
        if isinstance(value, int):
            if value >= 10000:
                return cls.from_num(value)
            text = str(value)
        elif isinstance(value, float):
            text = repr(value)
        else:
            text = str(value).strip()
        match = re.fullmatch(r"(\d+)(?:\.(\d+))?(?:\.\d+)?", text)
        if not match:
            raise ValueError(f"{value!r} is not a PostgreSQL version (like 9.4 or 16)")
        major = int(match.group(1))
        if major >= 10000:
            return cls.from_num(major)
        minor = int(match.group(2) or 0)
        if major < 7 or major > 99:
            raise ValueError(f"{value!r} is not a PostgreSQL version (like 9.4 or 16)")
        if major >= 10:
            minor = 0  # "16.4" is release 16
        return cls(major, minor)

    @classmethod
    def from_num(cls, num: int) -> PgVersion:
        """From ``server_version_num``: 90406 -> 9.4, 160004 -> 16."""
        if num >= 100000:
            return cls(num // 10000)
        return cls(num // 10000, (num // 100) % 100)


LATEST_VERSION: Final = PgVersion(18)


# -- sizes -------------------------------------------------------------------------------------


def format_kb(value_kb: int) -> str:
    """PgTune's formatting: GB or MB only when exact, else kB (``32GB``, ``16MB``, ``270600kB``)."""
    if value_kb % GB_KB == 0:
        return f"{value_kb // GB_KB}GB"
    if value_kb % MB_KB == 0:
        return f"{value_kb // MB_KB}MB"
    return f"{value_kb}kB"


# -- inputs and results ------------------------------------------------------------------------


@dataclass(frozen=True)
class TuneInput:
    """What PgTune asks: memory, CPUs, connections, storage, workload type, version, OS."""

    ram_bytes: int
    cpus: int | None = None
    connections: int | None = None  # None: PgTune's default for the workload type
    storage: str = "ssd"
    db_type: str = "oltp"
    version: PgVersion = LATEST_VERSION
    os_type: str = "linux"
    edition: str = "current"

    @property
    def ram_kb(self) -> int:
        return self.ram_bytes // 1024

    def validate(self) -> None:
        """Raise :class:`TuneInputError` naming every bad field."""
        problems: list[tuple[str, str]] = []
        if self.ram_bytes < 1024**2:
            problems.append(("ram", f"must be at least 1 MB, got {self.ram_bytes} bytes"))
        if self.cpus is not None and not 1 <= self.cpus <= 9999:
            problems.append(("cpus", f"must be between 1 and 9999, got {self.cpus}"))
        if self.connections is not None and not 1 <= self.connections <= 262143:
            problems.append(
                ("connections", f"must be between 1 and 262143, got {self.connections}")
            )
        if self.db_type not in DB_TYPES:
            problems.append(("type", f"must be one of {', '.join(DB_TYPES)}"))
        if self.os_type not in OS_TYPES:
            problems.append(("os", f"must be one of {', '.join(OS_TYPES)}"))
        if self.edition not in EDITIONS:
            problems.append(("edition", f"must be one of {', '.join(EDITIONS)}"))
        storages = STORAGE_TYPES if self.edition != "classic" else STORAGE_TYPES[:3]
        if self.storage not in storages:
            problems.append(("storage", f"must be one of {', '.join(storages)}"))
        if self.version < PgVersion(8, 4):
            problems.append(("version", f"PostgreSQL {self.version} is older than 8.4"))
        if problems:
            raise TuneInputError(problems)

    def describe(self) -> list[tuple[str, str]]:
        """(label, value) lines, as PgTune prints them on top of its output."""
        return [
            ("DB Version", str(self.version)),
            ("OS Type", self.os_type),
            ("DB Type", self.db_type),
            ("Total Memory (RAM)", format_bytes(self.ram_bytes)),
            ("CPUs num", "-" if self.cpus is None else str(self.cpus)),
            ("Connections num", "-" if self.connections is None else str(self.connections)),
            ("Data Storage", self.storage),
            ("Rules", f"PgTune ({self.edition})"),
        ]


@dataclass
class Proposal:
    """A set of settings to apply, each with its rule; ``notes`` explain what was left out."""

    title: str
    settings: list[TunedSetting]
    version: PgVersion
    inputs: TuneInput | None = None
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def values(self) -> dict[str, str]:
        return {s.name: s.value for s in self.settings}

    def get(self, name: str) -> TunedSetting | None:
        for setting in self.settings:
            if setting.name == name:
                return setting
        return None

    def names(self) -> list[str]:
        return [s.name for s in self.settings]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "title": self.title,
            "version": str(self.version),
            "settings": [s.to_dict() for s in self.settings],
            "warnings": list(self.warnings),
            "notes": list(self.notes),
        }
        if self.inputs is not None:
            i = self.inputs
            data["inputs"] = {
                "ram_bytes": i.ram_bytes,
                "cpus": i.cpus,
                "connections": i.connections,
                "storage": i.storage,
                "type": i.db_type,
                "version": str(i.version),
                "os": i.os_type,
                "edition": i.edition,
            }
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def to_conf(self, with_rules: bool = True) -> str:
        """postgresql.conf lines, PgTune's header first; rules as comments."""
        lines = [f"# {w}" for w in self.warnings]
        if self.inputs is not None:
            lines += [f"# {label}: {value}" for label, value in self.inputs.describe()]
        else:
            lines.append(f"# {self.title} (PostgreSQL {self.version})")
        lines.append("")
        width = max((len(f"{s.name} = {s.value}") for s in self.settings), default=0)
        for s in self.settings:
            text = f"{s.name} = {s.value}"
            if with_rules:
                text = f"{text:<{width}}  # {s.rule}"
            lines.append(text)
        lines += [f"# note: {n}" for n in self.notes]
        return "\n".join(lines) + "\n"

    def to_alter_system(self) -> str:
        """The same as ``ALTER SYSTEM`` statements (PgTune's second tab)."""
        return "\n".join(
            f"ALTER SYSTEM SET {s.name} = '{s.value.replace(chr(39), chr(39) * 2)}';"
            for s in self.settings
        )


# -- the rules ---------------------------------------------------------------------------------

DEFAULT_CONNECTIONS: Final = {"web": 200, "oltp": 300, "dw": 40, "desktop": 20, "mixed": 100}
# min_wal_size / max_wal_size in MB (9.5+).
WAL_SIZES_MB: Final = {
    "web": (1024, 4096),
    "oltp": (2048, 8192),
    "dw": (4096, 16384),
    "desktop": (100, 2048),
    "mixed": (1024, 4096),
}
# checkpoint_segments before 9.5 (PgTune of the 9.x era).
CHECKPOINT_SEGMENTS: Final = {"web": 32, "oltp": 64, "dw": 128, "desktop": 3, "mixed": 32}
RANDOM_PAGE_COST: Final = {"hdd": "4", "ssd": "1.1", "san": "1.1", "nvme": "1.1"}
EFFECTIVE_IO_CONCURRENCY: Final = {"hdd": 2, "ssd": 200, "san": 300, "nvme": 1000}
# PostgreSQL's own default of max_worker_processes, used by the work_mem rule below 4 CPUs.
DEFAULT_MAX_WORKER_PROCESSES: Final = 8


def _conn_rule(inp: TuneInput) -> tuple[int, str]:
    if inp.connections:
        return inp.connections, "as given"
    n = DEFAULT_CONNECTIONS[inp.db_type]
    return n, f"PgTune's default for {inp.db_type}"


def _shared_buffers(inp: TuneInput) -> tuple[int, str]:
    ram = inp.ram_kb
    div = 16 if inp.db_type == "desktop" else 4
    value = ram // div
    rule = f"RAM/{div} = {format_kb(ram)}/{div} = {format_kb(value)}"
    if inp.os_type == "windows" and inp.version < PgVersion(10) and value > 512 * MB_KB:
        value = 512 * MB_KB
        rule += ", limited to 512MB on Windows before PostgreSQL 10"
    return value, rule


def _parallel(inp: TuneInput) -> tuple[list[TunedSetting], list[str]]:
    """max_worker_processes and the parallel settings, from 4 CPUs, for the releases with them."""
    cpus = inp.cpus
    notes: list[str] = []
    if not cpus or cpus < 4:
        return [], notes
    ver = inp.version
    out: list[TunedSetting] = []
    half = math.ceil(cpus / 2)
    if ver >= PgVersion(9, 4):
        out.append(TunedSetting("max_worker_processes", str(cpus), f"CPUs = {cpus}"))
    else:
        notes.append(f"max_worker_processes: not in PostgreSQL {ver} (since 9.4)")
    if ver >= PgVersion(9, 6):
        per_gather = half if inp.db_type == "dw" else min(half, 4)
        rule = f"⌈CPUs/2⌉ = ⌈{cpus}/2⌉ = {half}"
        if per_gather != half:
            rule += ", capped at 4 (not for dw)"
        out.append(TunedSetting("max_parallel_workers_per_gather", str(per_gather), rule))
    else:
        notes.append(f"max_parallel_workers_per_gather: not in PostgreSQL {ver} (since 9.6)")
    if ver >= PgVersion(10):
        out.append(TunedSetting("max_parallel_workers", str(cpus), f"CPUs = {cpus}"))
    else:
        notes.append(f"max_parallel_workers: not in PostgreSQL {ver} (since 10)")
    if ver >= PgVersion(11):
        maint = min(half, 4)
        rule = f"⌈CPUs/2⌉ = ⌈{cpus}/2⌉ = {half}" + (", capped at 4" if maint != half else "")
        out.append(TunedSetting("max_parallel_maintenance_workers", str(maint), rule))
    else:
        notes.append(f"max_parallel_maintenance_workers: not in PostgreSQL {ver} (since 11)")
    return out, notes


def calculate(inp: TuneInput) -> Proposal:
    """PgTune's settings for ``inp``; raise :class:`TuneInputError` on bad inputs."""
    inp.validate()
    current = inp.edition == "current"
    ver = inp.version
    ram = inp.ram_kb
    settings: list[TunedSetting] = []
    notes: list[str] = []

    def add(name: str, value: str, rule: str) -> None:
        settings.append(TunedSetting(name, value, rule))

    max_conn, conn_rule = _conn_rule(inp)
    add("max_connections", str(max_conn), conn_rule)

    sb, sb_rule = _shared_buffers(inp)
    add("shared_buffers", format_kb(sb), sb_rule)

    ecs_div = "/4" if inp.db_type == "desktop" else "×3/4"
    ecs = ram // 4 if inp.db_type == "desktop" else ram * 3 // 4
    add("effective_cache_size", format_kb(ecs), f"RAM{ecs_div} = {format_kb(ecs)}")

    mwm_div = 8 if inp.db_type == "dw" else 16
    mwm = ram // mwm_div
    mwm_rule = f"RAM/{mwm_div} = {format_kb(mwm)}"
    windows_cap = inp.os_type == "windows" and (not current or ver <= PgVersion(17))
    cap = 8 * GB_KB if current and not windows_cap else 2 * GB_KB
    if mwm >= cap:
        capped = cap - MB_KB if windows_cap else cap
        if capped != mwm:
            mwm_rule += f", capped at {format_kb(capped)}"
            if windows_cap:
                mwm_rule += " (2GB - 1MB on Windows)"
        mwm = capped
    add("maintenance_work_mem", format_kb(mwm), mwm_rule)

    add("checkpoint_completion_target", "0.9", "0.9 (PostgreSQL 14's own default)")

    wal = 3 * sb // 100
    wal_rule = f"3% of shared_buffers = {format_kb(wal)}"
    if wal > 16 * MB_KB:
        wal = 16 * MB_KB
        wal_rule += ", capped at 16MB"
    elif 14 * MB_KB < wal < 16 * MB_KB:
        wal = 16 * MB_KB
        wal_rule += ", near 16MB: rounded up to 16MB"
    if wal < 32:
        wal = 32
        wal_rule += ", raised to the 32kB minimum"
    add("wal_buffers", format_kb(wal), wal_rule)

    add(
        "default_statistics_target",
        "500" if inp.db_type == "dw" else "100",
        "500 for data warehouses" if inp.db_type == "dw" else "100 (PostgreSQL's default)",
    )
    add(
        "random_page_cost",
        RANDOM_PAGE_COST[inp.storage],
        f"{RANDOM_PAGE_COST[inp.storage]} for {inp.storage}",
    )
    if inp.os_type == "linux":
        eic = EFFECTIVE_IO_CONCURRENCY[inp.storage]
        add("effective_io_concurrency", str(eic), f"{eic} for {inp.storage} (Linux)")
    else:
        notes.append("effective_io_concurrency: left alone (PgTune sets it on Linux only)")

    parallel, parallel_notes = _parallel(inp)
    notes += parallel_notes
    if inp.cpus and inp.cpus >= 4:
        workers, workers_rule = inp.cpus, f"max_worker_processes {inp.cpus}"
    else:
        workers = DEFAULT_MAX_WORKER_PROCESSES
        workers_rule = f"PostgreSQL's default max_worker_processes {workers}"
    divisor = {"dw": 2, "mixed": 2, "desktop": 6}.get(inp.db_type, 1)
    denom = (max_conn + workers) * 3 * divisor
    work_mem = (ram - sb) // denom
    work_rule = (
        f"(RAM - shared_buffers) / ((max_connections {max_conn} + {workers_rule}) × 3"
        + (f" × {divisor}" if divisor > 1 else "")
        + f") = ({ram} - {sb})kB / {denom} = {format_kb(work_mem)}"
    )
    floor_kb = 4 * MB_KB if current else 64
    if work_mem < floor_kb:
        work_mem = floor_kb
        work_rule += f", raised to the {format_kb(floor_kb)} minimum"
    if current and inp.os_type == "windows" and ver <= PgVersion(17):
        limit = 2 * GB_KB - MB_KB
        if work_mem > limit:
            work_mem = limit
            work_rule += ", capped at 2GB - 1MB on Windows"
    add("work_mem", format_kb(work_mem), work_rule)

    if ver >= PgVersion(9, 4):
        if current:
            on = inp.os_type != "mac" and sb >= 2 * GB_KB
            huge_rule = (
                "off on macOS"
                if inp.os_type == "mac"
                else f"try when shared_buffers ≥ 2GB (it is {format_kb(sb)})"
            )
        else:
            on = ram >= 32 * GB_KB
            huge_rule = f"try when RAM ≥ 32GB (it is {format_kb(ram)})"
        add("huge_pages", "try" if on else "off", huge_rule)
    else:
        notes.append(f"huge_pages: not in PostgreSQL {ver} (since 9.4)")

    if current:
        _newer_settings(inp, mwm, add)

    if ver >= PgVersion(9, 5):
        low, high = WAL_SIZES_MB[inp.db_type]
        add("min_wal_size", format_kb(low * MB_KB), f"{format_kb(low * MB_KB)} for {inp.db_type}")
        add("max_wal_size", format_kb(high * MB_KB), f"{format_kb(high * MB_KB)} for {inp.db_type}")
    else:
        segs = CHECKPOINT_SEGMENTS[inp.db_type]
        add(
            "checkpoint_segments",
            str(segs),
            f"{segs} for {inp.db_type} (before 9.5; max_wal_size replaced it)",
        )

    settings += parallel

    if inp.db_type == "desktop":
        add("wal_level", "minimal", "minimal for a desktop database")
        add("max_wal_senders", "0", "must be 0 when wal_level is minimal")

    warnings: list[str] = []
    if inp.ram_bytes < 256 * 1024**2:
        warnings.append("WARNING: this tool is not optimal for low memory systems")
    if inp.ram_bytes > 100 * 1024**3:
        warnings.append("WARNING: this tool is not optimal for very high memory systems")

    return Proposal(
        title=f"PgTune {inp.db_type}, {format_bytes(inp.ram_bytes)}, {inp.storage}",
        settings=settings,
        version=ver,
        inputs=inp,
        warnings=warnings,
        notes=notes,
    )


def _newer_settings(inp: TuneInput, mwm_kb: int, add: Callable[[str, str, str], None]) -> None:
    """The settings today's PgTune adds: jit, wal_compression, autovacuum, asynchronous I/O."""
    ver = inp.version
    if ver >= PgVersion(12) and inp.db_type in ("web", "oltp", "mixed"):
        add("jit", "off", f"off for {inp.db_type}: JIT slows down short queries (on since 12)")
    if ver >= PgVersion(15):
        add("wal_compression", "lz4", "lz4 from PostgreSQL 15 (cheaper than pglz)")
    elif ver >= PgVersion(10):
        add("wal_compression", "on", "on (pglz) for PostgreSQL 10 to 14")
    if inp.cpus and inp.cpus >= 32:
        add("autovacuum_max_workers", "5", f"5 from 32 CPUs (it has {inp.cpus})")
    elif inp.cpus and inp.cpus >= 16:
        add("autovacuum_max_workers", "4", f"4 from 16 CPUs (it has {inp.cpus})")
    if ver >= PgVersion(9, 4) and mwm_kb >= 2 * GB_KB:
        limit = 2 * GB_KB
        rule = "2GB per worker when maintenance_work_mem ≥ 2GB"
        if inp.os_type == "windows" and ver <= PgVersion(17):
            limit -= MB_KB
            rule += " (2GB - 1MB on Windows)"
        add("autovacuum_work_mem", format_kb(limit), rule)
    if ver >= PgVersion(18):
        method = "io_uring" if inp.os_type == "linux" else "worker"
        add("io_method", method, f"{method} on {inp.os_type} (asynchronous I/O, PostgreSQL 18)")
        if inp.cpus:
            workers = min(32, max(3, inp.cpus // 4))
            if workers > 3:
                add(
                    "io_workers",
                    str(workers),
                    f"⌊CPUs/4⌋ = ⌊{inp.cpus}/4⌋ = {workers}, between 3 and 32",
                )


# -- how PostgreSQL reads values ---------------------------------------------------------------

MEMORY_UNITS: Final = {"B": 1, "kB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}
TIME_UNITS_US: Final = {
    "us": 1,
    "ms": 1000,
    "s": 1000**2,
    "min": 60 * 1000**2,
    "h": 3600 * 1000**2,
    "d": 86400 * 1000**2,
}
_TRUE: Final = ("on", "true", "yes", "1")  # enum settings that also take booleans
_FALSE: Final = ("off", "false", "no", "0")


def base_unit(unit: str) -> tuple[str, float] | None:
    """``pg_settings.unit`` as (kind, size of one unit): ``"8kB"`` -> ("memory", 8192.0)."""
    match = re.fullmatch(r"(\d*)\s*([A-Za-z]+)", unit.strip())
    if not match:
        return None
    count = int(match.group(1) or 1)
    name = match.group(2)
    if name in MEMORY_UNITS:
        return "memory", float(count * MEMORY_UNITS[name])
    if name in TIME_UNITS_US:
        return "time", float(count * TIME_UNITS_US[name])
    return None


def to_base_units(value: str, unit: str) -> float:
    """A value (``"128MB"``, ``"5min"``, ``"16384"``) in the setting's base unit.

    A number without a unit is already in the base unit, as PostgreSQL reads it. Raises
    ValueError for text that is not a number with a unit of the right kind.
    """
    text = value.strip()
    match = re.fullmatch(r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z]*)", text)
    if not match:
        raise ValueError(f"{value!r} is not a number")
    number = float(match.group(1))
    suffix = match.group(2)
    if not suffix:
        return number
    base = base_unit(unit) if unit else None
    if base is None:
        raise ValueError(f"{value!r}: this setting takes no unit")
    kind, size = base
    table: Mapping[str, int] = MEMORY_UNITS if kind == "memory" else TIME_UNITS_US
    if suffix not in table:
        valid = ", ".join(table)
        raise ValueError(f"{value!r}: valid units for this setting are {valid}")
    return number * table[suffix] / size


def normalize_value(
    value: str, unit: str = "", vartype: str = "string", enumvals: Iterable[str] = ()
) -> str | float | int:
    """A value in a form two spellings can be compared in (``on``/``true``/``1`` -> ``on``)."""
    text = str(value).strip()
    if vartype == "bool":
        low = text.lower()
        if low and (low in ("on", "1") or "true".startswith(low) or "yes".startswith(low)):
            return "on"
        if low and (low in ("of", "off", "0") or "false".startswith(low) or "no".startswith(low)):
            return "off"
        raise ValueError(f"{value!r} is not on or off")
    if vartype == "integer":
        amount = to_base_units(text, unit)
        return int(math.floor(amount + 0.5)) if amount >= 0 else -int(math.floor(-amount + 0.5))
    if vartype == "real":
        return to_base_units(text, unit)
    if vartype == "enum":
        low = text.lower()
        choices = [c.lower() for c in enumvals]
        if low not in choices:
            if low in _TRUE and "on" in choices:
                return "on"
            if low in _FALSE and "off" in choices:
                return "off"
        return low
    return text


def same_value(
    a: str, b: str, unit: str = "", vartype: str = "string", enumvals: Iterable[str] = ()
) -> bool:
    """True if PostgreSQL would read ``a`` and ``b`` as the same value of this setting."""
    choices = list(enumvals)
    try:
        x = normalize_value(a, unit, vartype, choices)
        y = normalize_value(b, unit, vartype, choices)
    except ValueError:
        return a.strip() == b.strip()
    if isinstance(x, float) or isinstance(y, float):
        fx, fy = float(x), float(y)
        return math.isclose(fx, fy, rel_tol=1e-9, abs_tol=1e-12)
    return x == y


def format_setting(setting: str, unit: str, vartype: str = "integer") -> str:
    """``pg_settings.setting`` with its unit as people write it: 16384 × 8kB -> ``128MB``."""
    base = base_unit(unit) if unit else None
    if base is None or vartype not in ("integer", "real"):
        return setting
    try:
        amount = float(setting)
    except ValueError:
        return setting
    kind, size = base
    total = amount * size
    if amount < 0:
        return setting  # -1: "use the default", shown as is
    if kind == "memory":
        for name in ("TB", "GB", "MB", "kB"):
            factor = MEMORY_UNITS[name]
            if total >= factor and total % factor == 0:
                return f"{int(total // factor)}{name}"
        return f"{int(total)}B"
    for name in ("d", "h", "min", "s", "ms"):
        factor = TIME_UNITS_US[name]
        if total >= factor and total % factor == 0:
            return f"{int(total // factor)}{name}"
    if total == 0:
        return "0"
    return f"{total:g}us"


def settings_differences(
    a: Mapping[str, Any], b: Mapping[str, Any]
) -> list[tuple[str, Any | None, Any | None]]:
    """(name, a's value, b's value) for every setting that differs, by name; None: not set.

    Nested dictionaries (the OS knobs of a run: ``{"sysctl": {...}, "block": {...}}``) are
    compared leaf by leaf under dotted names.
    """

    def flat(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in data.items():
            name = f"{prefix}{key}"
            if isinstance(value, Mapping):
                out.update(flat(value, f"{name}."))
            else:
                out[name] = value
        return out

    fa, fb = flat(a), flat(b)
    return [
        (name, fa.get(name), fb.get(name))
        for name in sorted(set(fa) | set(fb))
        if fa.get(name) != fb.get(name)
    ]


def memory_warnings(
    values: Mapping[str, str], ram_bytes: int, *, fatal_only: bool = False
) -> dict[str, str]:
    """Settings whose memory does not fit the machine, by name, with why (for a diff, and a
    study's check before its run); ``fatal_only``: those with which the server may not start."""
    ram_kb = ram_bytes / 1024
    out: dict[str, str] = {}
    ram = format_bytes(ram_bytes)
    checks = (
        ("shared_buffers", 1.0, f"more than the machine's {ram} of RAM: it may not start", True),
        ("shared_buffers", 0.5, f"more than half the machine's {ram} of RAM", False),
        ("effective_cache_size", 1.0, f"more than the machine's {ram} of RAM", False),
        ("maintenance_work_mem", 0.5, f"more than half the machine's {ram} of RAM", False),
    )
    for name, share, why, fatal in checks:
        if name in out or name not in values or (fatal_only and not fatal):
            continue
        try:
            kb = to_base_units(values[name], "kB")
        except ValueError:
            continue
        if kb > ram_kb * share:
            out[name] = f"{values[name]} is {why}"
    return out
