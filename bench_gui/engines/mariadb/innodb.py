"""InnoDB settings for MariaDB and MySQL from RAM, CPUs, storage and the planned users.

The counterpart of :mod:`bench_gui.engines.postgresql.pgtune` for the ODBC engines: each proposed
variable comes with the one-line reason that produced it. The rules:

- ``innodb_buffer_pool_size``: a server declared dedicated gets MySQL's
  ``innodb_dedicated_server`` share (RAM/2 below 4 GiB, RAM×3/4 from there, 128 MiB below
  1 GiB); any other (the default: nobody said the machine is the database's alone) gets
  RAM/4. Rounded down to whole 128 MiB chunks (× the pool instances on MySQL), since the
  server rounds any other value itself and the diff would never settle;
- the redo log: a quarter of the buffer pool, between 512 MiB and 8 GiB (the usual "an hour of
  writes" is unknown before a run). MariaDB has one log file from 10.5 on
  (``innodb_log_file_size`` is the whole log), MySQL before 8.0.30 two
  (``innodb_log_file_size`` is half), MySQL from 8.0.30 ``innodb_redo_log_capacity``;
- ``innodb_flush_method = O_DIRECT`` on Linux (no double caching in the page cache);
- ``innodb_io_capacity`` / ``innodb_io_capacity_max`` by storage kind;
- ``innodb_flush_log_at_trx_commit = 1`` (every commit flushed) unless the relaxed durability
  is asked for (2: an OS crash may lose about a second of commits), which is said in the rule;
- ``max_connections`` from the planned users: users + 10% + 10 for administration, never
  below the servers' default of 151 (a DBA's server serves more than the benchmark; the diff
  also never lowers a server's current value, see ``engines.mariadb.tuner``);
- ``innodb_buffer_pool_instances``: one per GiB of pool, at most 8 (MySQL, MariaDB before
  10.5; MariaDB 10.5 has a single pool and dropped the variable).

Values are written the way a ``my.cnf`` takes them (``12G``, ``512M``, ``O_DIRECT``);
:func:`to_number` reads them back, and :func:`same_value` compares them with what
``SHOW GLOBAL VARIABLES`` prints (bytes). Pure: no I/O, no Qt.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from bench_gui.engines.tuning_terms import STORAGE_TYPES, TunedSetting, TuneInputError, format_bytes

FLAVOURS: Final = ("mariadb", "mysql")
FLAVOUR_LABELS: Final = {"mariadb": "MariaDB", "mysql": "MySQL"}
# The conservative role first: it is the default until the machine is declared dedicated.
SERVER_ROLES: Final = ("shared", "dedicated")
SERVER_ROLE_LABELS: Final = {
    "dedicated": "Dedicated database server",
    "shared": "Shares the machine (not declared dedicated)",
}
# MariaDB's and MySQL's max_connections when nothing sets it.
DEFAULT_MAX_CONNECTIONS: Final = 151
DURABILITIES: Final = ("full", "relaxed")
DURABILITY_LABELS: Final = {
    "full": "Full: flush the log at every commit",
    "relaxed": "Relaxed: flush about once a second",
}
OS_TYPES: Final = ("linux", "windows", "mac")

MIB: Final = 1024**2
GIB: Final = 1024**3
CHUNK: Final = 128 * MIB  # innodb_buffer_pool_chunk_size's default on MySQL
REDO_MIN: Final = 512 * MIB
REDO_MAX: Final = 8 * GIB
# (innodb_io_capacity, innodb_io_capacity_max) by storage kind.
IO_CAPACITY: Final = {
    "hdd": (200, 2000),
    "san": (1000, 4000),
    "ssd": (2000, 4000),
    "nvme": (10000, 20000),
}
# Variables that hold sizes in bytes, and those that hold words (compared without case).
SIZE_VARIABLES: Final = frozenset(
    {"innodb_buffer_pool_size", "innodb_log_file_size", "innodb_redo_log_capacity"}
)
ENUM_VARIABLES: Final = frozenset({"innodb_flush_method"})
# MySQL's variables of this proposal that cannot change while the server runs (MariaDB's
# server says so itself in information_schema.SYSTEM_VARIABLES.READ_ONLY).
MYSQL_STATIC: Final = frozenset(
    {"innodb_flush_method", "innodb_buffer_pool_instances", "innodb_log_file_size"}
)

_SIZE_SUFFIX: Final = {"": 1, "K": 1024, "M": MIB, "G": GIB, "T": 1024 * GIB}


class InnoDbValueError(ValueError):
    """A value that is not what the variable takes; the message names it."""


# -- versions ----------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class DbVersion:
    """A MariaDB or MySQL release: ``DbVersion(10, 11, 6)``."""

    major: int
    minor: int = 0
    patch: int = 0

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"

    @classmethod
    def parse(cls, value: str | DbVersion) -> DbVersion:
        """``"10.11.6-MariaDB-0+deb12u1"``, ``"8.0.36"``, ``"10.11"`` -> a version."""
        if isinstance(value, DbVersion):
            return value
        match = re.match(r"\s*(?:5\.5\.5-)?(\d+)\.(\d+)(?:\.(\d+))?", str(value))
        if not match:
            raise InnoDbValueError(f"{value!r} is not a MariaDB or MySQL version (like 10.11.6)")
        return cls(int(match.group(1)), int(match.group(2)), int(match.group(3) or 0))


def flavour_of(version_text: str) -> str:
    """``mariadb`` when the server's version string says MariaDB, else ``mysql``."""
    return "mariadb" if "mariadb" in version_text.lower() else "mysql"


LATEST: Final = {"mariadb": DbVersion(11, 4), "mysql": DbVersion(8, 4)}


# -- sizes -------------------------------------------------------------------------------------


def format_size(size: int) -> str:
    """Bytes as a ``my.cnf`` writes them: the largest unit that loses nothing (``12G``)."""
    for suffix in ("T", "G", "M", "K"):
        factor = _SIZE_SUFFIX[suffix]
        if size >= factor and size % factor == 0:
            return f"{size // factor}{suffix}"
    return str(size)


def to_number(name: str, value: str) -> int:
    """A numeric variable's value as an integer (sizes in bytes): ``"512M"`` -> 536870912."""
    text = str(value).strip().upper().removesuffix("B")
    match = re.fullmatch(r"(\d+)\s*([KMGT]?)", text)
    if not match or (match.group(2) and name not in SIZE_VARIABLES):
        raise InnoDbValueError(f"{name}: {value!r} is not a whole number" + (
            " of bytes (like 512M or 4G)" if name in SIZE_VARIABLES else ""))  # fmt: skip
    return int(match.group(1)) * _SIZE_SUFFIX[match.group(2)]


def normalize(name: str, value: str) -> str | int:
    """A value two spellings can be compared in (``4G`` and ``4294967296`` are one)."""
    if name.lower() in ENUM_VARIABLES:
        return str(value).strip().upper()
    try:
        return to_number(name.lower(), value)
    except InnoDbValueError:
        return str(value).strip().upper()


def same_value(name: str, a: str, b: str) -> bool:
    """True if the server reads ``a`` and ``b`` as the same value of ``name``."""
    return normalize(name, a) == normalize(name, b)


def sql_value(name: str, value: str) -> str:
    """The literal ``SET GLOBAL`` takes (no size suffixes there): bytes, a number or a word."""
    normal = normalize(name, value)
    if isinstance(normal, int):
        return str(normal)
    if not re.fullmatch(r"[A-Za-z0-9_.]+", str(value).strip()):
        raise InnoDbValueError(f"{name}: {value!r} is not a plain word")
    return "'" + str(value).strip() + "'"


def display(name: str, value: str) -> str:
    """What ``SHOW GLOBAL VARIABLES`` printed, as people read it (bytes -> ``256M``)."""
    if name.lower() in SIZE_VARIABLES and str(value).strip().isdigit():
        return format_size(int(value))
    return str(value)


# -- inputs and the proposal -------------------------------------------------------------------


@dataclass(frozen=True)
class InnoDbInput:
    """What the InnoDB rules ask: the machine, the planned users, the server's release."""

    ram_bytes: int
    cpus: int | None = None
    connections: int | None = None  # the planned users (virtual users of the plan)
    storage: str = "ssd"
    flavour: str = "mariadb"
    version: DbVersion | None = None  # None: the flavour's latest release
    server: str = "shared"  # "dedicated" only when declared so
    durability: str = "full"
    os_type: str = "linux"

    @property
    def release(self) -> DbVersion:
        return self.version or LATEST.get(self.flavour, LATEST["mariadb"])

    def validate(self) -> None:
        """Raise :class:`~bench_gui.engines.tuning_terms.TuneInputError` naming every bad field."""
        problems: list[tuple[str, str]] = []
        if self.ram_bytes < 256 * MIB:
            problems.append(("ram", f"must be at least 256 MB, got {format_bytes(self.ram_bytes)}"))
        if self.cpus is not None and not 1 <= self.cpus <= 9999:
            problems.append(("cpus", f"must be between 1 and 9999, got {self.cpus}"))
        if self.connections is not None and not 1 <= self.connections <= 100000:
            problems.append(
                ("connections", f"must be between 1 and 100000, got {self.connections}")
            )
        checks = (
            ("storage", self.storage, STORAGE_TYPES),
            ("flavour", self.flavour, FLAVOURS),
            ("server", self.server, SERVER_ROLES),
            ("durability", self.durability, DURABILITIES),
            ("os", self.os_type, OS_TYPES),
        )
        for name, value, allowed in checks:
            if value not in allowed:
                problems.append((name, f"{value!r}: must be one of {', '.join(allowed)}"))
        if problems:
            raise TuneInputError(problems)

    def describe(self) -> list[tuple[str, str]]:
        return [
            ("Server", f"{FLAVOUR_LABELS.get(self.flavour, self.flavour)} {self.release}"),
            ("Role", self.server),
            ("Total Memory (RAM)", format_bytes(self.ram_bytes)),
            ("CPUs num", "-" if self.cpus is None else str(self.cpus)),
            ("Planned users", "-" if self.connections is None else str(self.connections)),
            ("Data Storage", self.storage),
            ("Durability", self.durability),
        ]


@dataclass
class InnoDbProposal:
    """InnoDB variables to apply, each with its reason; ``notes``: what was left out and why."""

    title: str
    settings: list[TunedSetting]
    version: DbVersion
    flavour: str = "mariadb"
    inputs: InnoDbInput | None = None
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def values(self) -> dict[str, str]:
        return {s.name: s.value for s in self.settings}

    def get(self, name: str) -> TunedSetting | None:
        return next((s for s in self.settings if s.name == name), None)

    def names(self) -> list[str]:
        return [s.name for s in self.settings]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "title": self.title,
            "flavour": self.flavour,
            "version": str(self.version),
            "settings": [s.to_dict() for s in self.settings],
            "warnings": list(self.warnings),
            "notes": list(self.notes),
        }
        if self.inputs is not None:
            data["inputs"] = {label: value for label, value in self.inputs.describe()}
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    def to_cnf(self, with_rules: bool = True) -> str:
        """A ``[mysqld]`` section, the inputs and reasons as comments."""
        lines = [f"# {w}" for w in self.warnings]
        if self.inputs is not None:
            lines += [f"# {label}: {value}" for label, value in self.inputs.describe()]
        lines.append("[mysqld]")
        width = max((len(f"{s.name} = {s.value}") for s in self.settings), default=0)
        for s in self.settings:
            text = f"{s.name} = {s.value}"
            lines.append(f"{text:<{width}}  # {s.rule}" if with_rules else text)
        lines += [f"# note: {n}" for n in self.notes]
        return "\n".join(lines) + "\n"


# -- the rules ---------------------------------------------------------------------------------


def _buffer_pool(inp: InnoDbInput) -> tuple[int, str]:
    ram = inp.ram_bytes
    if inp.server == "shared":
        size = ram // 4
        rule = (
            f"RAM/4 = {format_bytes(size)} (the machine is not declared dedicated; declare it"
            " to give InnoDB RAM×3/4)"
        )
    elif ram < GIB:
        size, rule = 128 * MIB, "128M below 1 GiB of RAM (dedicated server)"
    elif ram <= 4 * GIB:
        size, rule = ram // 2, f"RAM/2 = {format_bytes(ram // 2)} up to 4 GiB of RAM (dedicated)"
    else:
        size = ram * 3 // 4
        rule = f"RAM×3/4 = {format_bytes(size)} (a dedicated server with more than 4 GiB of RAM)"
    rounded = max(CHUNK, size // CHUNK * CHUNK)
    if rounded != size:
        rule += f", down to whole 128M chunks: {format_size(rounded)}"
    return rounded, rule


def _instances(inp: InnoDbInput, pool: int) -> int:
    count = max(1, min(8, pool // GIB))
    if inp.cpus:
        count = min(count, inp.cpus)
    return count


def calculate(inp: InnoDbInput) -> InnoDbProposal:
    """The InnoDB proposal for ``inp``; raise ``TuneInputError`` on bad inputs."""
    inp.validate()
    ver, mariadb = inp.release, inp.flavour == "mariadb"
    settings: list[TunedSetting] = []
    notes: list[str] = []

    def add(name: str, value: str, rule: str) -> None:
        settings.append(TunedSetting(name, value, rule, "innodb"))

    pool, pool_rule = _buffer_pool(inp)
    one_pool = mariadb and ver >= DbVersion(10, 5)
    instances = 1 if one_pool else _instances(inp, pool)
    if instances > 1 and pool % (CHUNK * instances):
        pool = max(CHUNK * instances, pool // (CHUNK * instances) * (CHUNK * instances))
        pool_rule += f", a multiple of 128M × {instances} instances: {format_size(pool)}"
    add("innodb_buffer_pool_size", format_size(pool), pool_rule)
    if one_pool:
        notes.append(
            f"innodb_buffer_pool_instances: MariaDB {ver} has a single buffer pool (the"
            " variable went in 10.5)"
        )
    else:
        why = "one per GiB of buffer pool, at most 8" + (
            f" and at most the {inp.cpus} CPUs" if inp.cpus else "")  # fmt: skip
        add("innodb_buffer_pool_instances", str(instances), why)

    redo = min(REDO_MAX, max(REDO_MIN, pool // 4 // MIB * MIB))
    redo_rule = f"a quarter of the buffer pool, between 512M and 8G: {format_size(redo)}"
    if not mariadb and ver >= DbVersion(8, 0, 30):
        add("innodb_redo_log_capacity", format_size(redo), redo_rule + " (MySQL 8.0.30+)")
    elif mariadb and ver >= DbVersion(10, 5):
        add("innodb_log_file_size", format_size(redo), redo_rule + " (one log file since 10.5)")
    else:
        half = redo // 2 // MIB * MIB
        add(
            "innodb_log_file_size",
            format_size(half),
            redo_rule + f", split over the default 2 log files: {format_size(half)} each",
        )

    if inp.os_type == "linux":
        add(
            "innodb_flush_method", "O_DIRECT", "O_DIRECT on Linux: no second copy in the page cache"
        )
    else:
        notes.append(f"innodb_flush_method: O_DIRECT is Linux's (the server runs {inp.os_type})")

    io, io_max = IO_CAPACITY[inp.storage]
    add("innodb_io_capacity", str(io), f"{io} for {inp.storage} (background flushing rate, IOPS)")
    add("innodb_io_capacity_max", str(io_max), f"{io_max} for {inp.storage} (bursts when behind)")

    if inp.durability == "relaxed":
        add(
            "innodb_flush_log_at_trx_commit",
            "2",
            "2, as asked (relaxed): an OS crash or power loss can lose about 1 s of commits",
        )
    else:
        add(
            "innodb_flush_log_at_trx_commit",
            "1",
            "1: every commit is flushed (full durability; 2 only if relaxed is asked for)",
        )

    if inp.connections:
        users = inp.connections
        conns = users + math.ceil(users / 10) + 10
        rule = f"{users} planned users + 10% + 10 for administration"
        if conns < DEFAULT_MAX_CONNECTIONS:
            rule += f" = {conns}, raised to the default {DEFAULT_MAX_CONNECTIONS}: never lowered"
            conns = DEFAULT_MAX_CONNECTIONS
        add("max_connections", str(conns), rule)
    else:
        notes.append("max_connections: the planned users are not known (give them)")

    warnings: list[str] = []
    if inp.version is None:
        label = FLAVOUR_LABELS.get(inp.flavour, inp.flavour)
        warnings.append(f"rules for {label} {ver} (no version given)")
    if inp.server == "dedicated" and inp.ram_bytes < 2 * GIB:
        warnings.append("WARNING: with under 2 GiB of RAM little is left for connections")
    return InnoDbProposal(
        title=f"InnoDB {inp.server}, {format_bytes(inp.ram_bytes)}, {inp.storage}",
        settings=settings,
        version=ver,
        flavour=inp.flavour,
        inputs=inp,
        warnings=warnings,
        notes=notes,
    )


def memory_warnings(
    values: Mapping[str, str], ram_bytes: int, *, fatal_only: bool = False
) -> dict[str, str]:
    """The buffer pool when it does not fit the machine's RAM (InnoDB allocates it as the
    server starts, so the server may not start); the engine kit's ``memory_warnings``."""
    value = values.get("innodb_buffer_pool_size")
    if value is None:
        return {}
    try:
        size = to_number("innodb_buffer_pool_size", value)
    except ValueError:
        return {}
    if size <= ram_bytes:
        return {}
    why = f"more than the machine's {format_bytes(ram_bytes)} of RAM: it may not start"
    return {"innodb_buffer_pool_size": f"{value} is {why}"}
