"""What the session store hands out: plain records of runs, samples, steps and log lines.

In a module of their own so that the store's parts (the measured data in ``sessions``, what
people add in ``annotations``) can share them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class RunInfo:
    """One line of the session list."""

    id: int
    name: str
    kind: str
    status: str  # one of RUN_STATUSES
    created_at: str  # UTC, ISO 8601
    finished_at: str | None
    engine: str
    target_summary: str  # "user@host:port/database", "embedded demo"
    steps: int  # step results stored
    best_nopm: float | None  # best complete step (any step if none is complete)
    vus: list[int]  # virtual users of the stored steps, in step order
    # Who recorded it and where (schema 4; "" when not known: sessions from before, files of
    # older versions), and the UUID naming it in every store (the local file, a team store).
    uuid: str = field(default="", kw_only=True)
    author: str = field(default="", kw_only=True)
    host: str = field(default="", kw_only=True)
    # The UUID of the session this one is a copy of (schema 7; "" for an original): a copy is
    # the same measurement, never a repeat of it.
    origin: str = field(default="", kw_only=True)
    # The database role that pushed it to the team store (schema 7; set by the team store
    # itself, so not a claim like ``author``): "" for a session recorded here.
    pushed_by: str = field(default="", kw_only=True)

    @property
    def measurement(self) -> str:
        """What names the measurement itself: the original's UUID for a copy, else its own."""
        return self.origin or self.uuid


@dataclass
class RunDetail(RunInfo):
    """Everything about a run except its bulk data (samples, steps, histograms, log)."""

    plan: dict[str, Any]
    plan_toml: str
    target: dict[str, Any]
    server_version: str | None
    # name -> record (setting, unit, value, value_unit, display, source, boot_val, vartype:
    # bench_gui.wire.setting_units); text only in sessions imported from old files.
    settings: dict[str, Any]
    inventory: dict[str, Any] | None
    agent: dict[str, Any]  # the agent's hello: agent_version, engine, config, pid
    app_version: str
    message: str


@dataclass
class Sample:
    """One second of a step, as the agent measured it."""

    seq: int
    t: float
    step: int
    vus: int
    phase: str
    elapsed: float
    nopm_driver: float | None
    tpm_driver: float | None
    nopm_db: float | None
    tpm_db: float | None
    counts: dict[str, int]
    errors: dict[str, int]
    latency_ms: dict[str, dict[str, float]]
    extra: dict[str, Any]  # the rest of the event: remaining, rollbacks, host, power...


@dataclass
class StepResult:
    """The result of one sweep step (its ``step`` end event)."""

    step: int
    vus: int
    nopm: float | None
    tpm: float | None
    nopm_driver: float | None
    window_s: float | None
    complete: bool
    latency_ms: dict[str, dict[str, float]]
    counts: dict[str, int]
    errors: dict[str, int]
    summary: dict[str, Any]  # the whole step summary, histograms excepted (see histograms())
    seq: int
    t: float
    # Why the step's NOPM is doubtful (its database and driver counts disagree), or None:
    # judged on read by ``core.crosscheck.nopm_doubt``, so every session, old or imported,
    # is judged by the same rule.
    nopm_flag: str | None = None


@dataclass
class LogLine:
    """A log line of a run: from the agent (seq set) or the desktop side (seq None)."""

    seq: int | None
    t: float
    level: str  # agent levels, plus "error"/"fatal" for error events
    message: str
