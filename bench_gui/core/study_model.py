"""A study's model: the systems compared, the prices, the report's options, and StudyError.

A study is one TOML file beside the plans: several systems (each a target, a driver host, OS
knobs, a storage description and a tuning preset) measured with one shared workload and sweep,
the stop condition, the prices the economics use, the baseline, and the report's options. Each
system with the shared sections is an ordinary plan (:meth:`Study.plan_dict`), checked by the
plan's own checks; reading and checking a study is :mod:`bench_gui.core.study`'s.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Final

from bench_gui.core.economics import DevicePrice, PowerPrice
from bench_gui.core.plan_model import Plan
from bench_gui.core.saturation import StopConditions
from bench_gui.workloads.base import DEFAULT_WORKLOAD

# The workload fields a system may set for itself: where its data is, never the sweep.
SYSTEM_WORKLOAD_FIELDS: Final = ("file", "memory_limit")
REPORT_FORMATS: Final = ("html", "pdf", "csv", "json")
# A study file is a few KiB of TOML, like a plan.
MAX_STUDY_BYTES: Final = 1024 * 1024
# Tags are at most 40 characters (bench_gui.store.annotations): "study:" + this.
MAX_STUDY_KEY: Final = 30
# A system's short name heads the brief's table columns: as long as the report lets an author's
# short name be (bench_gui.report.names.MAX_AUTHOR).
MAX_SHORT_NAME: Final = 40


class StudyError(ValueError):
    """A study with one or more bad values; ``problems`` lists (field path, reason) pairs."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        text = "; ".join(f"{name}: {reason}" for name, reason in problems)
        super().__init__(f"invalid study: {text}")


@dataclass
class Storage:
    """What a system's data sits on, as the brief's array table and economics price it."""

    devices: str = ""  # the device model, as the price list names it
    count: int | None = None
    raid: str = ""
    filesystem: str = ""
    note: str = ""
    # A layout prepared on the Storage page (its TOML file, beside the study file or absolute):
    # built before the system's runs and taken down after them. ``confirm``: its devices,
    # typed in the study file as on the Storage page, since building it erases them.
    layout: str = ""
    confirm: list[str] = field(default_factory=list)
    accept_unreadable: bool = False  # the process scan may not read every process (containers)

    def __bool__(self) -> bool:
        """Whether there is a description to record with the session (the layout records
        its own)."""
        return bool(self.devices or self.count or self.raid or self.filesystem or self.note)


@dataclass
class Tuning:
    """The database preset applied before the system's run and rolled back after it."""

    profile: str = ""  # a preset name, pgtune/innodb/mssql-seed-003, or a preset file
    restart: bool = True  # restart the server when a setting needs it (and after rollback)


@dataclass
class System:
    """One system under test: the plan sections of its own and what the run prepares."""

    key: str
    name: str
    plan: Plan
    storage: Storage = field(default_factory=Storage)
    tuning: Tuning = field(default_factory=Tuning)
    # The system's section as written (for the fingerprint of what was measured).
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass
class Prices:
    """The study's own prices: they join the store's price list when the brief is written."""

    devices: list[DevicePrice] = field(default_factory=list)
    power: PowerPrice | None = None


@dataclass
class ReportChoices:
    """The brief's options: where it goes, in which formats, and the author's choices."""

    title: str = ""
    output: str = "brief"  # the file name without its suffix, beside the study file
    formats: list[str] = field(default_factory=lambda: ["html", "pdf"])
    paper: str = ""  # "" the locale's
    latency: str = "all"
    appendix: bool = False  # the author's notes kept in an appendix at the end
    # "How to reproduce": the study file itself at the end of the brief.
    reproduce: bool = True
    author: str = ""
    logo: str = ""
    date: str = ""
    # Random reads: the RAM question (ops/s target, dataset size); None: the report's default.
    target_ops: float | None = None
    dataset: str = ""
    # The author's short name of each system (key -> name), used after the full name is given.
    short_names: dict[str, str] = field(default_factory=dict)
    # The sections in the order of the seed the study reproduces (the rest follow).
    order: list[str] = field(default_factory=list)


@dataclass
class Study:
    """A checked study file."""

    name: str
    key: str  # names its sessions' tag: "study:<key>"
    systems: list[System]
    baseline: str
    stop: StopConditions = field(default_factory=StopConditions)
    prices: Prices = field(default_factory=Prices)
    report: ReportChoices = field(default_factory=ReportChoices)
    notes: str = ""
    # The study file's text as read (the brief's "how to reproduce" part); "" if not from text.
    text: str = ""

    @property
    def workload_kind(self) -> str:
        return self.systems[0].plan.workload.kind if self.systems else DEFAULT_WORKLOAD

    def system(self, key: str) -> System:
        for system in self.systems:
            if system.key == key:
                return system
        raise KeyError(key)

    @property
    def tag(self) -> str:
        return f"study:{self.key}"


def system_fingerprint(system: System) -> str:
    """Eight hex digits naming what a system's run measured: its plan, storage and tuning.

    A stored session of the study is still valid for a system when this is unchanged (the
    study file's system section and the shared sections it becomes a plan with)."""
    data = {
        "plan": system.plan.to_dict(),
        "storage": system.raw.get("storage", {}),
        "tuning": system.raw.get("tuning", {}),
    }
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
