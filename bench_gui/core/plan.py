"""Run plans: what to run, where, and how, read from and written to TOML.

A plan names its target (the embedded demo, or a PostgreSQL server), the workload (warehouses,
the sweep of virtual-user counts, ramp-up and measured windows, options), the power meter and
the host metrics the agent samples, the OS knobs applied for the run (rolled back when it
ends), and a name. Every bad value is reported with the field it belongs to and why it is
wrong, all of them at once, so a user fixes a plan in one pass.
"""

from __future__ import annotations

import re
import reprlib
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import tomli_w

from bench_gui.agent.fio.sizes import (
    MIB,
    RANDOM_READ_FIELDS,
    format_size,
    is_power_of_two,
    parse_size,
)
from bench_gui.agent.hostinfo import SYSCTLS, THP_KNOBS
from bench_gui.core.multi_driver import SplitError, step_splits
from bench_gui.core.power import METER_KINDS, check_meter_options, installed_meter_names
from bench_gui.core.tuning.presets import BUILTIN_OS_PRESETS

TARGET_KINDS = ("demo", "postgresql", "mariadb", "mysql", "mssql")
# The engines reached through ODBC (pyodbc on the driver host) and what each target field
# defaults to on them when the plan does not say: (port, user, admin_database).
ODBC_KINDS: Final = ("mariadb", "mysql", "mssql")
ODBC_DEFAULTS: Final[dict[str, tuple[int, str, str]]] = {
    "mariadb": (3306, "root", "mysql"),
    "mysql": (3306, "root", "mysql"),
    "mssql": (1433, "sa", "master"),
}
# Target fields only ODBC engines have, and the values two of them take.
ODBC_FIELDS: Final = ("odbc_driver", "dsn", "tls", "authentication")
TLS_MODES: Final = ("", "off", "on", "verify")
AUTHENTICATION_MODES: Final[dict[str, tuple[str, ...]]] = {
    "mariadb": ("", "password"),
    "mysql": ("", "password"),
    "mssql": ("", "sql", "windows", "entra_password", "entra_integrated"),
}
WORKLOAD_KINDS = ("tproc_c", "random_read")
DEFAULT_DATASET_SIZES: Final = (0.25, 0.5, 1, 1.5, 2, 4)
RANDOM_READ_ENGINES: Final = ("mmap", "psync", "libaio")
# A RAM multiple past this is a typo (the seed goes to 4x).
MAX_RAM_MULTIPLE: Final = 1024
# fio itself, its libraries' pages and the smallest useful cache need more than this.
MIN_MEMORY_LIMIT: Final = 64 * 1024 * 1024
# Which workload fields belong to which kind (a plan of one kind may not set the other's).
TPROC_C_FIELDS: Final = (
    "warehouses",
    "virtual_users",
    "rampup_s",
    "duration_s",
    "all_warehouses",
    "keying_thinking",
    "reset_between_steps",
    "build",
    "build_workers",
    "processes",
    "db_stall_limit_s",
)
BUILD_MODES = ("if_missing", "always", "never")
DEFAULT_VUS = (8, 16, 24, 32, 40, 48, 56, 64)
# Each virtual user is a database connection of its own, and PostgreSQL's max_connections
# rarely allows more; each step is a full ramp-up and measured window, so a sweep of more steps
# runs for days. Both are checked before a range is expanded ("1-3000000000/1" builds nothing).
MAX_VUS_PER_STEP: Final = 5000
MAX_STEPS: Final = 100
# A plan is a few kilobytes of TOML: a bigger file is not a plan, and is not read whole.
MAX_PLAN_BYTES: Final = 1024 * 1024
# The only environment variables a plan may name for the database password: the value is sent
# to the plan's host, so a shared plan must not pick any variable of the desktop's environment.
PASSWORD_ENV_NAMES: Final = re.compile(r"^(PGPASSWORD|BENCH_GUI_[A-Z0-9_]+)$")
# Several driver hosts: the clock offset a host may have from the desktop's (milliseconds).
DEFAULT_MAX_CLOCK_OFFSET_MS: Final = 50.0
MAX_CLOCK_OFFSET_LIMIT_MS: Final = 60_000.0
# Fields of [driver] only a plan of several driver hosts has.
MULTI_DRIVER_FIELDS: Final = ("targets", "users", "share", "max_clock_offset_ms")


def shown(value: Any) -> str:
    """A value as an error message shows it: short, one line, whatever the value is."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a number of about {int(value.bit_length() * 0.30103)} digits"
    try:
        return reprlib.repr(value)
    except (ValueError, RecursionError):
        return f"a {type(value).__name__} that cannot be shown"


def password_env_problem(name: str) -> str:
    """Why ``target.password_env`` may not name this variable ('' if it may)."""
    if not name or PASSWORD_ENV_NAMES.match(name):
        return ""
    return (
        f"{shown(name)} is not allowed: only PGPASSWORD or a BENCH_GUI_* variable (its value"
        " is sent to the plan's host, so a plan may not pick any variable of your"
        " environment); or keep the password in the OS keyring: bench-gui target db-password"
    )


class PlanError(ValueError):
    """A plan with one or more bad values; ``problems`` lists (field, reason) pairs."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        text = "; ".join(f"{name}: {reason}" for name, reason in problems)
        super().__init__(f"invalid plan: {text}")


@dataclass
class Target:
    """Where the database runs. Secrets never live here: passwords come from the keyring/env."""

    kind: str = "demo"
    host: str = "127.0.0.1"
    port: int = 5432
    user: str = "postgres"
    database: str = "tpcc"
    # Maintenance database used to create/drop the benchmark database and templates.
    admin_database: str = "postgres"
    # Name of the environment variable holding the password, if any (never the password).
    password_env: str = ""
    sslmode: str = "prefer"  # PostgreSQL only
    # ODBC engines only (mariadb, mysql, mssql): the driver's name as unixODBC knows it ("":
    # the first Connector/ODBC installed on the driver host), or a DSN of odbc.ini instead of
    # host and port; TLS ("" the driver's default, off, on, verify: on and check the
    # certificate) and how the user authenticates (see AUTHENTICATION_MODES).
    odbc_driver: str = ""
    dsn: str = ""
    tls: str = ""
    authentication: str = ""


@dataclass
class Driver:
    """Where the workload agent runs: this machine, an SSH target (by its saved name), or
    several SSH targets for one run (``targets``: each takes part of every step's users).

    The database host and port in ``target`` are as seen from the driver host(s). With several
    hosts, ``target`` is the first of them, the primary (it reads the database's counters);
    see :mod:`bench_gui.core.multi_driver` for the split and the merged results.
    """

    target: str = ""  # empty: this machine
    # Several driver hosts (saved SSH target names, two or more); empty: one host, ``target``.
    targets: list[str] = field(default_factory=list)
    # Each host's users, one row per sweep step (a single row: the same for every step);
    # empty: by ``share``, else an even split (the remainder one each to the first hosts).
    users: list[list[int]] = field(default_factory=list)
    # Each host's share of every step's users (positive weights); empty: an even split.
    share: list[float] = field(default_factory=list)
    # The run is refused when a host's clock is further than this from the desktop's.
    max_clock_offset_ms: float = DEFAULT_MAX_CLOCK_OFFSET_MS

    @property
    def hosts(self) -> list[str]:
        """Every driver host's saved SSH target name ([] for this machine)."""
        return list(self.targets) if self.targets else ([self.target] if self.target else [])

    def step_splits(self, virtual_users: list[int]) -> list[list[int]]:
        """Each step's users per host (one column per host of :attr:`hosts`)."""
        if len(self.targets) < 2:
            return [[vus] for vus in virtual_users]
        users = self.users or None
        return step_splits(
            virtual_users, len(self.targets), users, self.share or None, self.targets
        )


@dataclass
class Workload:
    """The workload and its sweep: TPROC-C (virtual-user steps) by default, or with
    ``kind = "random_read"`` seed 004's random reads by fio (dataset-size steps). A plan sets
    only its kind's fields; :meth:`Plan.to_dict` writes only those."""

    warehouses: int = 4
    virtual_users: list[int] = field(default_factory=lambda: [2, 4, 8])
    rampup_s: float = 10.0
    duration_s: float = 20.0
    all_warehouses: bool = False
    keying_thinking: bool = False
    # Re-create the database from a template copy before every step (CREATE DATABASE ...
    # TEMPLATE ...), so every step starts from the same data.
    reset_between_steps: bool = False
    build: str = "if_missing"
    build_workers: int = 0  # 0: one per CPU
    # Worker processes for the virtual users; 0: one per CPU (capped at the user count).
    processes: int = 0
    # Seconds the database may go without answering (hung, not down) before the run ends
    # with the steps it finished; a step it stayed silent in never counts as complete.
    db_stall_limit_s: float = 120.0
    # "tproc_c" (the fields above) or "random_read" (seed 004 with fio: the fields below).
    kind: str = "tproc_c"
    # RAM multiples (0.25, 4) and/or absolute sizes ("512MiB"): one sweep point each.
    dataset_sizes: list[float | int | str] = field(
        default_factory=lambda: list(DEFAULT_DATASET_SIZES)
    )
    block_size: str = "1k"
    jobs: int = 8
    ioengine: str = "mmap"  # mmap (the seed's), psync, or libaio (with direct = true)
    direct: bool = False
    zipf_theta: float = 0.99
    warmup_s: float = 600.0
    measure_s: float = 600.0
    # The data file on the target host; "" puts it on the storage prepared there (Storage page).
    file: str = ""
    drop_caches: bool = True
    # A cgroup memory limit for fio ("256MiB"); "" studies the machine's RAM.
    memory_limit: str = ""
    # Seconds of the raw-IOPS pass (direct 4 KiB random reads); 0 skips it (no multipliers).
    raw_iops_s: float = 30.0


@dataclass
class Power:
    """The power meter (a plugin of ``bench_gui.power_meters``) and the idle baseline.

    ``meter`` is one of none, ipmi, redfish, rapl, csv (or an installed third-party kind);
    ``options`` are the meter's (see :data:`bench_gui.core.power.METER_OPTIONS`). Secrets are
    never here: a BMC password lives in the OS keyring.
    """

    meter: str = "none"
    options: dict[str, Any] = field(default_factory=dict)
    # Power measured with no load before the first step; 0 skips it.
    idle_s: float = 30.0
    # Seconds between two readings of the meter.
    interval_s: float = 1.0


@dataclass
class Monitor:
    """Host metrics sampled by the agent: CPU, memory and block devices, once a second."""

    enabled: bool = True
    # Block devices to report (sda, md0, nvme0n1...); empty: the devices the database lives on
    # when the agent runs on its host, else every disk and array.
    devices: list[str] = field(default_factory=list)


@dataclass
class OsKnobs:
    """Kernel knobs applied on the database host for the run, rolled back when it ends.

    ``knobs`` are those of :mod:`bench_gui.remote.osknobs` (``vm.dirty_ratio``,
    ``read_ahead_kb``, ``scheduler``, ``transparent_hugepage``...) and win over the preset's.
    Never persisted: a reboot, the end of the run or a rollback brings the old values back.
    """

    preset: str = ""  # an OS preset (bench_gui.core.tuning.presets.BUILTIN_OS_PRESETS)
    knobs: dict[str, str] = field(default_factory=dict)
    # Where: "" the database host (the driver's SSH target, else this machine; a plan with
    # several driver hosts must name it), "local" this machine, or a saved SSH target's name.
    host: str = ""
    # The data devices, for read_ahead_kb and scheduler: named, or the disks under data_dir
    # (default: the server's data directory when it is on this machine, else every disk).
    data_dir: str = ""
    devices: list[str] = field(default_factory=list)

    @property
    def enabled(self) -> bool:
        return bool(self.preset or self.knobs)

    def changes(self) -> dict[str, str]:
        """The preset's knobs with this section's own on top."""
        out = dict(BUILTIN_OS_PRESETS[self.preset].knobs) if self.preset else {}
        out.update(self.knobs)
        return out


@dataclass
class Plan:
    """A complete run plan."""

    name: str = "TPROC-C sweep"
    target: Target = field(default_factory=Target)
    workload: Workload = field(default_factory=Workload)
    driver: Driver = field(default_factory=Driver)
    power: Power = field(default_factory=Power)
    monitor: Monitor = field(default_factory=Monitor)
    os: OsKnobs = field(default_factory=OsKnobs)
    notes: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        if not self.driver.targets:
            # One driver host: [driver] stays as it was before there were several.
            for key in MULTI_DRIVER_FIELDS:
                del data["driver"][key]
        else:
            del data["driver"]["target"]  # the first of targets
            for key in ("users", "share"):
                if not data["driver"][key]:
                    del data["driver"][key]
        if self.os == OsKnobs():
            # No [os] section: plans and sessions stay as they were without one (a stored
            # plan's "os" is what comparisons show as the run's OS knobs).
            del data["os"]
        if self.target.kind in ODBC_KINDS:
            del data["target"]["sslmode"]
        else:
            # A PostgreSQL or demo plan stays as it was before there were ODBC engines.
            for key in ODBC_FIELDS:
                del data["target"][key]
        workload = data["workload"]
        if self.workload.kind == "random_read":
            # fio on the driver host: no database, none of TPROC-C's fields.
            del data["target"]
            for key in TPROC_C_FIELDS:
                del workload[key]
        else:
            # A TPROC-C plan stays as it was before there were other workloads.
            for key in (*RANDOM_READ_FIELDS, "kind"):
                del workload[key]
        return data

    def to_toml(self) -> str:
        return tomli_w.dumps(self.to_dict())

    def save(self, path: Path) -> None:
        path.write_text(self.to_toml(), encoding="utf-8")


def _check_int(problems: list[tuple[str, str]], name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        problems.append((name, f"must be a whole number, got {shown(value)}"))
        return low
    if not low <= value <= high:
        problems.append((name, f"must be between {low} and {high}, got {shown(value)}"))
        return low
    return value


def _check_float(
    problems: list[tuple[str, str]], name: str, value: Any, low: float, high: float
) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        problems.append((name, f"must be a number of seconds, got {shown(value)}"))
        return low
    if not low <= value <= high:  # NaN too
        problems.append((name, f"must be between {low:g} and {high:g} seconds, got {shown(value)}"))
        return low
    return float(value)


def _check_bool(problems: list[tuple[str, str]], name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        problems.append((name, f"must be true or false, got {shown(value)}"))
        return False
    return value


def _check_str(problems: list[tuple[str, str]], name: str, value: Any) -> str:
    if not isinstance(value, str):
        problems.append((name, f"must be text, got {shown(value)}"))
        return ""
    return value


def _check_number(
    problems: list[tuple[str, str]], name: str, value: Any, low: float, high: float
) -> float:
    """A plain number (not seconds) in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        problems.append((name, f"must be a number, got {shown(value)}"))
        return low
    if not low <= value <= high:  # NaN too
        problems.append((name, f"must be between {low:g} and {high:g}, got {shown(value)}"))
        return low
    return float(value)


def _check_size(
    problems: list[tuple[str, str]], name: str, value: Any, low: int, what: str
) -> int | None:
    """Bytes of a size text ("512MiB") or a whole number of bytes, at least ``low``."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        problems.append((name, f'must be a size like "512MiB", got {shown(value)}'))
        return None
    try:
        size = parse_size(value)
    except ValueError as exc:
        problems.append((name, str(exc)))
        return None
    if size < low:
        problems.append((name, f"{shown(value)} is less than {format_size(low)}: {what}"))
        return None
    return size


def _number_text(text: str) -> float | int | str:
    """``"0.25"`` -> 0.25, ``"4"`` -> 4; a size text stays text."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def parse_dataset_sizes(value: Any) -> list[float | int | str]:
    """``[0.25, 1, "512MiB"]`` (or the same as comma-separated text): RAM multiples and
    absolute sizes, each checked; raise ValueError naming the bad item."""
    items: list[Any]
    if isinstance(value, str):
        items = [_number_text(v.strip()) for v in value.split(",") if v.strip()]
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        raise ValueError(f"must be a list of RAM multiples or sizes, got {shown(value)}")
    if not items:
        raise ValueError("is empty: name at least one dataset size")
    if len(items) > MAX_STEPS:
        raise _too_many_steps(len(items))
    out: list[float | int | str] = []
    seen: dict[tuple[str, float], Any] = {}
    for number, item in enumerate(items, 1):
        where = f"item {number} ({shown(item)})"
        key: tuple[str, float]
        if isinstance(item, bool):
            raise ValueError(f"{where} is neither a RAM multiple nor a size")
        if isinstance(item, int | float):
            if not 0 < item <= MAX_RAM_MULTIPLE:  # NaN too
                raise ValueError(
                    f"{where}: a RAM multiple must be above 0 and at most {MAX_RAM_MULTIPLE}"
                )
            key = ("x", float(item))
            out.append(item)
        elif isinstance(item, str):
            try:
                size = parse_size(item)
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None
            if size < MIB:
                raise ValueError(f"{where} is less than 1 MiB: too small a dataset")
            key = ("b", float(size))
            out.append(item.strip())
        else:
            raise ValueError(f"{where} is neither a RAM multiple nor a size")
        if key in seen:
            raise ValueError(f"{where} repeats {shown(seen[key])}: each size once")
        seen[key] = item
    return out


def _check_random_read(problems: list[tuple[str, str]], wl: Workload, data: dict[str, Any]) -> None:
    """The fields of a ``kind = "random_read"`` workload (seed 004 driven by fio)."""
    try:
        wl.dataset_sizes = parse_dataset_sizes(data.get("dataset_sizes", wl.dataset_sizes))
    except ValueError as exc:
        problems.append(("workload.dataset_sizes", str(exc)))
    block = data.get("block_size", wl.block_size)
    size = _check_size(problems, "workload.block_size", block, 512, "the smallest read is 512 B")
    if size is not None:
        if not is_power_of_two(size) or size > MIB:
            problems.append(
                ("workload.block_size", f"must be a power of two up to 1 MiB, got {shown(block)}")
            )
        wl.block_size = str(block).strip()
    wl.jobs = _check_int(problems, "workload.jobs", data.get("jobs", wl.jobs), 1, 256)
    wl.ioengine = _check_str(problems, "workload.ioengine", data.get("ioengine", wl.ioengine))
    if wl.ioengine not in RANDOM_READ_ENGINES:
        problems.append(("workload.ioengine", f"must be one of {', '.join(RANDOM_READ_ENGINES)}"))
    wl.direct = _check_bool(problems, "workload.direct", data.get("direct", wl.direct))
    if wl.direct and wl.ioengine == "mmap":
        problems.append(
            (
                "workload.direct",
                "mmap reads through the page cache: direct I/O needs ioengine psync or libaio",
            )
        )
    if wl.ioengine == "libaio" and not wl.direct:
        problems.append(
            (
                "workload.ioengine",
                "libaio needs direct = true (buffered libaio reads are synchronous: use psync"
                " for buffered reads)",
            )
        )
    wl.zipf_theta = _check_number(
        problems, "workload.zipf_theta", data.get("zipf_theta", wl.zipf_theta), 0.001, 100
    )
    if wl.zipf_theta == 1.0:
        problems.append(
            ("workload.zipf_theta", "1 is not allowed (fio's generator divides by 1 - theta)")
        )
    wl.warmup_s = _check_float(
        problems, "workload.warmup_s", data.get("warmup_s", wl.warmup_s), 0, 86_400
    )
    wl.measure_s = _check_float(
        problems, "workload.measure_s", data.get("measure_s", wl.measure_s), 1, 86_400
    )
    wl.file = _check_str(problems, "workload.file", data.get("file", wl.file)).strip()
    if wl.file and (not wl.file.startswith("/") or wl.file.endswith("/")):
        problems.append(("workload.file", f"must be an absolute path of a file, got {wl.file!r}"))
    elif any(c in wl.file for c in "\0\n\r"):
        problems.append(("workload.file", "must not hold NUL or line breaks"))
    wl.drop_caches = _check_bool(
        problems, "workload.drop_caches", data.get("drop_caches", wl.drop_caches)
    )
    limit = data.get("memory_limit", wl.memory_limit)
    wl.memory_limit = ""
    if limit != "":
        why = "fio and its libraries alone need about 60 MiB"
        if _check_size(problems, "workload.memory_limit", limit, MIN_MEMORY_LIMIT, why):
            wl.memory_limit = str(limit).strip()
    wl.raw_iops_s = _check_float(
        problems, "workload.raw_iops_s", data.get("raw_iops_s", wl.raw_iops_s), 0, 3600
    )


def _too_many_users(number: int) -> ValueError:
    return ValueError(
        f"{shown(number) if number.bit_length() > 64 else format(number, ',')} virtual users in"
        f" one step: at most {MAX_VUS_PER_STEP} (each is a database connection of its own)"
    )


def _too_many_steps(count: int) -> ValueError:
    return ValueError(
        f"{count:,} sweep steps: at most {MAX_STEPS} (each step is a full ramp-up and measured"
        " window; more would run for days)"
    )


def parse_vu_list(value: Any) -> list[int]:
    """Accept ``[8, 16]``, ``"8,16,24"`` or ``"8-64/8"`` (start-stop/step); raise ValueError.

    The limits (:data:`MAX_VUS_PER_STEP`, :data:`MAX_STEPS`) are checked before a range is
    expanded, so a typo of a few digits never builds a list of millions.
    """
    if isinstance(value, str):
        text = value.replace(" ", "")
        if not text:
            raise ValueError("is empty")
        if "-" in text and "," not in text:
            span, _, step_text = text.partition("/")
            start_text, _, stop_text = span.partition("-")
            try:
                start, stop = int(start_text), int(stop_text)
                step = int(step_text) if step_text else 1
            except ValueError:
                raise ValueError(f"{shown(value)} is not a range like 8-64/8") from None
            if step <= 0 or stop < start:
                raise ValueError(f"{shown(value)} is not a rising range")
            if start < 1:
                raise ValueError(f"{start} is not a positive user count")
            if stop > MAX_VUS_PER_STEP:
                raise _too_many_users(stop)
            count = (stop - start) // step + 1
            if count > MAX_STEPS:
                raise _too_many_steps(count)
            return list(range(start, stop + 1, step))
        items: list[Any] = text.split(",")
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        raise ValueError(f"must be a list of user counts, got {shown(value)}")
    if len(items) > MAX_STEPS:
        raise _too_many_steps(len(items))
    result: list[int] = []
    for item in items:
        if isinstance(item, bool):
            raise ValueError(f"{shown(item)} is not a whole number")
        if isinstance(item, int):
            number = item
        elif isinstance(item, str):
            try:
                number = int(item)
            except ValueError:
                raise ValueError(f"{shown(item)} is not a whole number") from None
        else:
            raise ValueError(f"{shown(item)} is not a whole number")
        if number < 1:
            raise ValueError(f"{shown(number)} is not a positive user count")
        if number > MAX_VUS_PER_STEP:
            raise _too_many_users(number)
        result.append(number)
    if not result:
        raise ValueError("is empty")
    return result


def plugin_engine_kinds() -> tuple[str, ...]:
    """The target kinds third-party engines add: the names of the installed
    ``bench_gui.engines`` entry points beyond :data:`TARGET_KINDS` (read from the packages'
    metadata; nothing is imported, so a plugin that fails to load is still a kind here and
    its error is reported where it is loaded)."""
    from importlib.metadata import entry_points

    names = sorted({ep.name for ep in entry_points(group="bench_gui.engines")})
    return tuple(n for n in names if n not in TARGET_KINDS)


def plan_from_dict(data: dict[str, Any]) -> Plan:
    """Build and validate a plan; raise :class:`PlanError` naming every bad field."""
    problems: list[tuple[str, str]] = []
    known_top = {"name", "target", "workload", "driver", "power", "monitor", "os", "notes"}
    for key in data:
        if key not in known_top:
            problems.append((key, "unknown section or field"))

    plan = Plan()
    plan.name = _check_str(problems, "name", data.get("name", plan.name)) or plan.name
    plan.notes = _check_str(problems, "notes", data.get("notes", ""))

    target_data = data.get("target", {})
    if not isinstance(target_data, dict):
        problems.append(("target", "must be a table"))
        target_data = {}
    target = plan.target
    for key in target_data:
        if key not in Target.__dataclass_fields__:
            problems.append((f"target.{key}", "unknown field"))
    target.kind = _check_str(problems, "target.kind", target_data.get("kind", target.kind))
    third_party = target.kind not in TARGET_KINDS and target.kind in plugin_engine_kinds()
    if target.kind not in TARGET_KINDS and not third_party:
        kinds = (*TARGET_KINDS, *plugin_engine_kinds())
        problems.append(("target.kind", f"must be one of {', '.join(kinds)}"))
    if target.kind in ODBC_DEFAULTS:
        target.port, target.user, target.admin_database = ODBC_DEFAULTS[target.kind]
    for key in ("host", "user", "database", "admin_database", "password_env", "sslmode"):
        setattr(
            target,
            key,
            _check_str(problems, f"target.{key}", target_data.get(key, getattr(target, key))),
        )
    if password_env_problem(target.password_env):
        problems.append(("target.password_env", password_env_problem(target.password_env)))
    target.port = _check_int(
        problems, "target.port", target_data.get("port", target.port), 1, 65535
    )
    if target.kind == "postgresql" and not target.host:
        problems.append(("target.host", "is required for a PostgreSQL target"))
    if third_party and not target.host:
        problems.append(("target.host", f"is required for a {target.kind} target"))
    _check_odbc_target(problems, target, target_data)
    if not target.database or not target.database.replace("_", "a").isalnum():
        problems.append(("target.database", "must be a plain name (letters, digits, _)"))
    elif target.database == target.admin_database:
        problems.append(("target.database", "must differ from target.admin_database"))

    wl_data = data.get("workload", {})
    if not isinstance(wl_data, dict):
        problems.append(("workload", "must be a table"))
        wl_data = {}
    wl = plan.workload
    wl.kind = _check_str(problems, "workload.kind", wl_data.get("kind", wl.kind))
    if wl.kind not in WORKLOAD_KINDS:
        problems.append(("workload.kind", f"must be one of {', '.join(WORKLOAD_KINDS)}"))
        wl.kind = "tproc_c"
    for key in wl_data:
        if key not in Workload.__dataclass_fields__:
            problems.append((f"workload.{key}", "unknown field"))
        elif wl.kind == "random_read" and key in TPROC_C_FIELDS:
            problems.append(
                (f"workload.{key}", 'a TPROC-C field: not used by kind = "random_read"')
            )
        elif wl.kind == "tproc_c" and key in RANDOM_READ_FIELDS:
            problems.append((f"workload.{key}", 'only for kind = "random_read"'))
    if wl.kind == "random_read":
        _check_random_read(problems, wl, wl_data)
        if "name" not in data:
            plan.name = "Random-read sweep"
        if "target" in data:
            problems.append(
                (
                    "target",
                    "a random_read workload reads a file with fio on the driver host and uses"
                    " no database: remove [target] (the host is [driver] target)",
                )
            )
    else:
        _check_tproc_c(problems, wl, wl_data)

    driver_data = data.get("driver", {})
    if not isinstance(driver_data, dict):
        problems.append(("driver", "must be a table"))
        driver_data = {}
    for key in driver_data:
        if key not in Driver.__dataclass_fields__:
            problems.append((f"driver.{key}", "unknown field"))
    plan.driver.target = _check_str(problems, "driver.target", driver_data.get("target", ""))
    if plan.driver.target and target.kind == "demo" and wl.kind != "random_read":
        problems.append(("driver.target", "the embedded demo runs on this machine only"))
    _check_driver_hosts(problems, plan, driver_data)

    _check_power(problems, plan, data.get("power", {}), data.get("monitor", {}))
    _check_os(problems, plan, data.get("os", {}))

    if problems:
        raise PlanError(problems)
    return plan


def _check_driver_hosts(problems: list[tuple[str, str]], plan: Plan, data: dict[str, Any]) -> None:
    """``[driver] targets`` (several hosts) and the fields that go with it: the split of the
    users (``users`` or ``share``) and ``max_clock_offset_ms``."""
    driver = plan.driver
    if "targets" not in data:
        for key in MULTI_DRIVER_FIELDS:
            if key in data:
                problems.append(
                    (f"driver.{key}", "only with several driver hosts (driver.targets)")
                )
        return
    names = data["targets"]
    if not isinstance(names, list) or not names:
        problems.append(
            ("driver.targets", "must list two or more saved SSH targets' names (one: use target)")
        )
        return
    seen: set[str] = set()
    for name in names:
        if not isinstance(name, str) or not _TARGET_NAME.match(name):
            problems.append(("driver.targets", f"{shown(name)} is not a saved SSH target's name"))
        elif name == "local":
            problems.append(
                (
                    "driver.targets",
                    "'local' is this machine: every driver host must be a saved SSH target",
                )
            )
        elif name in seen:
            problems.append(("driver.targets", f"{name!r} is named more than once"))
        else:
            seen.add(name)
    if "target" in data:
        problems.append(("driver.target", "give target (one host) or targets (several), not both"))
        return
    if plan.target.kind == "demo" and plan.workload.kind != "random_read":
        problems.append(("driver.targets", "the embedded demo runs on this machine only"))
    if len(names) == 1:
        # One host, spelled as a list: the same as target = "name".
        driver.target = names[0]
        for key in ("users", "share", "max_clock_offset_ms"):
            if key in data:
                problems.append((f"driver.{key}", "only with two or more driver hosts"))
        return
    driver.targets = list(names)
    driver.target = names[0]
    if plan.workload.kind == "random_read":
        problems.append(
            ("driver.targets", "a random_read workload runs fio on one host: use driver.target")
        )
    if plan.workload.reset_between_steps:
        problems.append(
            (
                "driver.targets",
                "workload.reset_between_steps is not supported with several driver hosts (the"
                " reset would drop the database under the other hosts' users)",
            )
        )
    if "max_clock_offset_ms" in data:
        value = data["max_clock_offset_ms"]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not 1 <= value <= MAX_CLOCK_OFFSET_LIMIT_MS
        ):
            problems.append(
                (
                    "driver.max_clock_offset_ms",
                    f"must be a number of milliseconds from 1 to {MAX_CLOCK_OFFSET_LIMIT_MS:,.0f},"
                    f" got {shown(value)}",
                )
            )
        else:
            driver.max_clock_offset_ms = float(value)
    _check_driver_split(problems, plan, data)


def check_driver_hosts_saved(plan: Plan, saved: list[str]) -> None:
    """Raise :class:`PlanError` naming every driver host of ``plan`` that is not among the
    ``saved`` SSH targets' names (the plan itself cannot know them: the caller asks the
    store of targets)."""
    field_name = "driver.targets" if plan.driver.targets else "driver.target"
    missing = [name for name in plan.driver.hosts if name not in saved]
    if missing:
        known = ", ".join(sorted(saved)) if saved else "none yet"
        raise PlanError(
            [
                (field_name, f"{name!r} is not a saved SSH target (saved: {known})")
                for name in missing
            ]
        )


def _check_driver_split(problems: list[tuple[str, str]], plan: Plan, data: dict[str, Any]) -> None:
    """``users`` (each host's users, per step or for every step) or ``share`` (weights)."""
    driver, hosts = plan.driver, len(plan.driver.targets)
    if "users" in data and "share" in data:
        problems.append(("driver.share", "give users or share, not both"))
        return
    if "users" in data:
        rows = data["users"]
        if isinstance(rows, list) and rows and all(_is_count(v) for v in rows):
            rows = [rows]  # one row: the same for every step
        if (
            not isinstance(rows, list)
            or not rows
            or not all(isinstance(row, list) and all(_is_count(v) for v in row) for row in rows)
        ):
            problems.append(
                (
                    "driver.users",
                    "must be each host's virtual users ([4, 4]) or one such row per sweep step"
                    f" ([[2, 2], [4, 4]]), got {shown(data['users'])}",
                )
            )
            return
        for row in rows:
            if len(row) != hosts:
                problems.append(
                    ("driver.users", f"{shown(row)} has {len(row)} counts for {hosts} driver hosts")
                )
                return
        steps = len(plan.workload.virtual_users)
        if len(rows) not in (1, steps):
            problems.append(
                (
                    "driver.users",
                    f"{len(rows)} rows for {steps} sweep steps: give one row per step, or one"
                    " row for every step",
                )
            )
            return
        driver.users = [list(row) for row in rows] * (steps if len(rows) == 1 else 1)
    elif "share" in data:
        share = data["share"]
        if (
            not isinstance(share, list)
            or len(share) != hosts
            or not all(
                not isinstance(v, bool) and isinstance(v, int | float) and 0 < v < float("inf")
                for v in share
            )
        ):
            problems.append(
                (
                    "driver.share",
                    f"must be one positive number per driver host ({hosts}), got {shown(share)}",
                )
            )
            return
        driver.share = [float(v) for v in share]
    if any(name == "workload.virtual_users" for name, _ in problems):
        return  # no sweep to split
    try:
        driver.step_splits(plan.workload.virtual_users)
    except SplitError as exc:
        field_name = (
            "driver.users"
            if driver.users
            else "driver.share"
            if driver.share
            else ("driver.targets")
        )
        problems.append((field_name, f"{exc} (workload.virtual_users)"))


def _is_count(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and 1 <= value <= MAX_VUS_PER_STEP


def _check_odbc_target(
    problems: list[tuple[str, str]], target: Target, data: dict[str, Any]
) -> None:
    """The fields of an ODBC target (mariadb, mysql, mssql), and none of them elsewhere."""
    for key in ODBC_FIELDS:
        value = _check_str(problems, f"target.{key}", data.get(key, ""))
        if key not in data:
            continue
        if target.kind not in ODBC_KINDS:
            problems.append((f"target.{key}", f"only for ODBC targets ({', '.join(ODBC_KINDS)})"))
            continue
        setattr(target, key, value)
        if key in ("odbc_driver", "dsn") and any(c in value for c in ";{}=\n"):
            problems.append((f"target.{key}", f"{shown(value)} may not contain ; {{ }} or ="))
    if target.kind not in ODBC_KINDS:
        return
    if "sslmode" in data:
        problems.append(("target.sslmode", "a PostgreSQL field: use target.tls"))
    if target.tls not in TLS_MODES:
        problems.append(("target.tls", "must be one of off, on, verify (or empty)"))
    modes = AUTHENTICATION_MODES.get(target.kind, ("",))
    if target.authentication not in modes:
        problems.append(
            (
                "target.authentication",
                f"must be one of {', '.join(m for m in modes if m)} for {target.kind}",
            )
        )
    if not target.host and not target.dsn:
        problems.append(("target.host", f"is required for a {target.kind} target (or a dsn)"))


def _check_tproc_c(problems: list[tuple[str, str]], wl: Workload, wl_data: dict[str, Any]) -> None:
    """The fields of a TPROC-C workload."""
    wl.warehouses = _check_int(
        problems, "workload.warehouses", wl_data.get("warehouses", wl.warehouses), 1, 100_000
    )
    try:
        wl.virtual_users = parse_vu_list(wl_data.get("virtual_users", wl.virtual_users))
    except ValueError as exc:
        problems.append(("workload.virtual_users", str(exc)))
    wl.rampup_s = _check_float(
        problems, "workload.rampup_s", wl_data.get("rampup_s", wl.rampup_s), 0, 86_400
    )
    wl.duration_s = _check_float(
        problems, "workload.duration_s", wl_data.get("duration_s", wl.duration_s), 1, 86_400
    )
    for key in ("all_warehouses", "keying_thinking", "reset_between_steps"):
        setattr(
            wl, key, _check_bool(problems, f"workload.{key}", wl_data.get(key, getattr(wl, key)))
        )
    wl.build = _check_str(problems, "workload.build", wl_data.get("build", wl.build))
    if wl.build not in BUILD_MODES:
        problems.append(("workload.build", f"must be one of {', '.join(BUILD_MODES)}"))
    wl.build_workers = _check_int(
        problems, "workload.build_workers", wl_data.get("build_workers", wl.build_workers), 0, 256
    )
    wl.processes = _check_int(
        problems, "workload.processes", wl_data.get("processes", wl.processes), 0, 256
    )
    wl.db_stall_limit_s = _check_float(
        problems,
        "workload.db_stall_limit_s",
        wl_data.get("db_stall_limit_s", wl.db_stall_limit_s),
        1,
        86_400,
    )


_DEVICE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:+-]*$")


def _check_power(
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
    power.meter = _check_str(problems, "power.meter", power_data.get("meter", power.meter))
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
    power.idle_s = _check_float(
        problems, "power.idle_s", power_data.get("idle_s", power.idle_s), 0, 3600
    )
    power.interval_s = _check_float(
        problems, "power.interval_s", power_data.get("interval_s", power.interval_s), 0.2, 10
    )

    if not isinstance(monitor_data, dict):
        problems.append(("monitor", "must be a table"))
        monitor_data = {}
    for key in monitor_data:
        if key not in Monitor.__dataclass_fields__:
            problems.append((f"monitor.{key}", "unknown field"))
    monitor = plan.monitor
    monitor.enabled = _check_bool(
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
_TARGET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
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


def _check_os(problems: list[tuple[str, str]], plan: Plan, data: Any) -> None:
    """The ``[os]`` section: knobs applied for the run."""
    if not isinstance(data, dict):
        problems.append(("os", "must be a table"))
        return
    for key in data:
        if key not in OsKnobs.__dataclass_fields__:
            problems.append((f"os.{key}", "unknown field"))
    section = plan.os
    section.preset = _check_str(problems, "os.preset", data.get("preset", ""))
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
    section.host = _check_str(problems, "os.host", data.get("host", "")).strip()
    if section.host and section.host != "local":
        if not _TARGET_NAME.match(section.host):
            problems.append(("os.host", f"{section.host!r} is not a saved SSH target's name"))
        elif plan.target.kind == "demo" and plan.workload.kind != "random_read":
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
    section.data_dir = _check_str(problems, "os.data_dir", data.get("data_dir", "")).strip()
    if section.data_dir and not section.data_dir.startswith("/"):
        problems.append(("os.data_dir", f"must be an absolute path, got {section.data_dir!r}"))
    section.devices = _device_names(problems, "os.devices", data.get("devices", []))


def plan_text(raw: bytes, where: str) -> str:
    """A plan file's bytes as text: UTF-8 (a leading BOM is allowed) or :class:`PlanError`."""
    if len(raw) > MAX_PLAN_BYTES:
        raise PlanError(
            [(where, f"is larger than {MAX_PLAN_BYTES // 1024} KiB: not a plan (one is a few KiB)")]
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise PlanError(
            [
                (
                    where,
                    f"is not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line}): save it"
                    " as UTF-8",
                )
            ]
        ) from None


def load_plan(path: Path) -> Plan:
    """Read a TOML plan file; syntax errors and bad values both raise :class:`PlanError`."""
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_PLAN_BYTES + 1)
    except OSError as exc:
        raise PlanError([(str(path), f"cannot be read: {exc.strerror}")]) from exc
    return plan_from_toml(plan_text(raw, str(path)), str(path))


def plan_from_toml(text: str, where: str = "plan") -> Plan:
    """A plan from TOML text; syntax errors and bad values both raise :class:`PlanError`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PlanError([(where, f"is not valid TOML: {exc}")]) from exc
    except ValueError as exc:  # an integer of thousands of digits
        reason = "a number has thousands of digits" if "digits" in str(exc) else str(exc)
        raise PlanError([(where, f"is not a usable plan: {reason}")]) from exc
    except RecursionError:
        raise PlanError(
            [(where, "is not a usable plan: its arrays or tables nest too deeply")]
        ) from None
    return plan_from_dict(data)
