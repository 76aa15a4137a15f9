"""The run plan's model: its sections as dataclasses, the constants they use, and PlanError.

A plan names its target (the embedded demo, or a PostgreSQL server), the workload (warehouses,
the sweep of virtual-user counts, ramp-up and measured windows, options), the power meter and
the host metrics the agent samples, the OS knobs applied for the run (rolled back when it
ends), and a name. A plan writes itself to TOML here; reading and checking one is
:mod:`bench_gui.core.plan`'s. Nothing here checks a value, so the check modules import the model
and the model imports none of them (no cycle).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

import tomli_w

from bench_gui.core.echo import problems_text
from bench_gui.core.multi_driver import step_splits
from bench_gui.core.os_presets import BUILTIN_OS_PRESETS
from bench_gui.engines.registry import target_kind
from bench_gui.wire.run_config import Workload

# A target's kinds, their defaults and which are reached through ODBC are its engine kit's
# (bench_gui.engines.base.TargetKind, looked up by bench_gui.engines.registry.target_kind).

# Target fields only ODBC engines have, and the values two of them take.
ODBC_FIELDS: Final = ("odbc_driver", "dsn", "tls", "authentication")
TLS_MODES: Final = ("", "off", "on", "verify")
# The transactions' logic: "spec" (ours, TPC-C as written: NURand items, distinct items, every
# update the spec asks for) or "hammerdb" (HammerDB 6.0's own per engine, faults included, so
# a run compares like for like with HammerDB's results). See docs/profiles.md.
PROFILES: Final = ("spec", "hammerdb")
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
    "drop_ends_sessions",
    "processes",
    "db_stall_limit_s",
    "profile",
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
# Several driver hosts: how long a host's link may stay down before the run fails naming it
# (seconds). Kept well under the agents' barrier timeout (600 s), so a healthy host waiting at a
# barrier for the lost one is stopped before it times out and blames itself.
DEFAULT_MAX_OUTAGE_S: Final = 120.0
MAX_OUTAGE_LIMIT_S: Final = 300.0
# Fields of [driver] only a plan of several driver hosts has.
MULTI_DRIVER_FIELDS: Final = ("targets", "users", "share", "max_clock_offset_ms", "max_outage_s")


class PlanError(ValueError):
    """A plan with one or more bad values; ``problems`` lists (field, reason) pairs."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__(f"invalid plan: {problems_text(problems)}")


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
    # certificate) and how the user authenticates (its kit's TargetKind.authentication).
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
    # A host whose link stays down longer than this fails the run, named (the others stopped).
    max_outage_s: float = DEFAULT_MAX_OUTAGE_S

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

    preset: str = ""  # an OS preset (bench_gui.core.os_presets.BUILTIN_OS_PRESETS)
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
        spec = target_kind(self.target.kind)
        if spec is not None and spec.odbc:
            del data["target"]["sslmode"]
        else:
            # A PostgreSQL or demo plan stays as it was before there were ODBC engines.
            for key in ODBC_FIELDS:
                del data["target"][key]
        workload = data["workload"]
        from bench_gui.workloads.base import DEFAULT_WORKLOAD, kits, uses_database

        if not uses_database(self.workload.kind):
            # fio on the driver host: no database.
            del data["target"]
        # None of another workload's fields; a plan of the default workload stays as it was
        # before there were other workloads.
        for kit in kits():
            if kit.name != self.workload.kind:
                for key in kit.face("plan_fields"):
                    workload.pop(key, None)
        if self.workload.kind == DEFAULT_WORKLOAD:
            del workload["kind"]
        if not self.workload.options:
            del workload["options"]  # a kit's own fields: a plan without them stays as it was
        return data

    def to_toml(self) -> str:
        return tomli_w.dumps(self.to_dict())

    def save(self, path: Path) -> None:
        path.write_text(self.to_toml(), encoding="utf-8")
