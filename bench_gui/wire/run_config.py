"""The run configuration: one schema that the plan's workload fills and the agent reads.

:class:`Workload` is the plan's ``[workload]`` section (:class:`bench_gui.core.plan.Plan`
holds one); :class:`RunConfig` is what the desktop sends the agent as JSON: the workload's
fields with the same defaults (a workload kit's own in ``options``), plus the target, the
monitor and power settings and, with several driver hosts, the users' split.
:meth:`RunConfig.from_dict` refuses a key it does not know, naming it, so a field one side
renames is an error, not a silently ignored setting.
Stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

DEFAULT_DATASET_SIZES: Final = (0.25, 0.5, 1, 1.5, 2, 4)


class ConfigError(ValueError):
    """A run configuration the agent cannot take (unknown keys, not an object)."""


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
    # SQL Server: a rebuild may drop a database other sessions use, ending them (ROLLBACK
    # IMMEDIATE) only when this confirms it; otherwise the drop is refused, naming them.
    drop_ends_sessions: bool = False
    # Worker processes for the virtual users; 0: one per CPU (capped at the user count).
    processes: int = 0
    # Seconds the database may go without answering (hung, not down) before the run ends
    # with the steps it finished; a step it stayed silent in never counts as complete.
    db_stall_limit_s: float = 120.0
    # Whose transaction logic runs: "spec" (the default) or "hammerdb" (PROFILES).
    profile: str = "spec"
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
    # The workload kit's own fields (a plan's [workload.options] table), so a kit needs no
    # field here: its kit's plan_options face checks them at the plan boundary and its agent
    # side reads them. Empty for the built-in kits: neither written nor sent when empty.
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class RunConfig(Workload):
    """What the desktop side asks the agent to do (sent as JSON; no secrets in it)."""

    action: str = "run"  # run | build | check | status
    # The plan's target.kind ("fio" for a random-read run, which has no database).
    engine: str = "postgresql"
    conninfo: str = ""
    admin_conninfo: str = ""
    database: str = "tpcc"
    seed: int | None = None
    # Host metrics and the power meter (the plan's [monitor] and [power] sections).
    monitor: dict[str, Any] = field(default_factory=dict)
    power: dict[str, Any] = field(default_factory=dict)
    # Several driver hosts (bench_gui.agent.barrier): per step, the global index of this host's
    # first user and the step's users over every host; empty on one host.
    first_user: list[int] = field(default_factory=list)
    total_users: list[int] = field(default_factory=list)

    # The session the run writes into, named in the run lock's "who holds it" message; the
    # run's token (several driver hosts): its agents on one machine share the lock.
    session_id: int | None = None
    session_name: str = ""
    run_token: str = ""

    # Fields a configuration of one host does not show (the hello's config stays as it was).
    MULTI_HOST_FIELDS = ("first_user", "total_users")
    # Fields the run lock records, not the hello's config.
    LOCK_FIELDS = ("session_id", "session_name", "run_token")
    # Fields neither sent nor echoed when empty: an agent older than them refuses the key, and
    # the hello's config of a workload without them stays as it was.
    UNSENT_WHEN_EMPTY = ("options",)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunConfig:
        """The configuration ``data`` gives; ConfigError naming every key this agent does not
        know (a desktop and an agent that disagree on a field must not run)."""
        if not isinstance(data, dict):
            raise ConfigError(f"the run configuration is a {type(data).__name__}, not an object")
        unknown = sorted(str(k) for k in data if k not in cls.__dataclass_fields__)
        if unknown:
            raise ConfigError(
                "the run configuration has keys this agent does not know: " + ", ".join(unknown)
            )
        return cls(**data)
