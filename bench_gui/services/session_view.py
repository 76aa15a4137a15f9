"""The one place where the GUI reads the session store and knows its field names.

Everything the Sessions page shows goes through these functions, which turn the store's
records (dataclasses, rows or dicts) into small display records. If a field of the store is
renamed, this is the only module to change: each lookup lists the names it accepts.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench_gui.wire.protocol import LATENCY_FIELDS
from bench_gui.workloads.base import (
    DEFAULT_WORKLOAD,
    kit_for,
    kits,
    run_record,
    workload_of_record,
)

_MISSING = object()


def _get(record: Any, *names: str, default: Any = None) -> Any:
    """The first of ``names`` that ``record`` has, as an attribute or a mapping key."""
    for name in names:
        if isinstance(record, Mapping):
            value = record.get(name, _MISSING)
        else:
            value = getattr(record, name, _MISSING)
        if value is not _MISSING:
            return value
    return default


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return None if math.isnan(number) else number


def _nan(value: Any) -> float:
    number = _float(value)
    return math.nan if number is None else number


def format_time(value: Any) -> str:
    """A timestamp (epoch seconds, datetime or ISO text) as local ``YYYY-MM-DD HH:MM``."""
    when: dt.datetime | None = None
    if isinstance(value, dt.datetime):
        when = value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        when = dt.datetime.fromtimestamp(float(value))
    elif isinstance(value, str) and value:
        try:
            when = dt.datetime.fromisoformat(value)
        except ValueError:
            return value
    if when is None:
        return ""
    if when.tzinfo is not None:
        when = when.astimezone()
    return when.strftime("%Y-%m-%d %H:%M")


def user_count(n: int) -> str:
    """ "1 user", "8 users"."""
    return f"{n} user" if n == 1 else f"{n} users"


# What a step does after its measured window ends, while the countdown would show 0:00.
COLLECTING = "collecting the step's figures"


def format_vus(vus: Any) -> str:
    """``[8, 16, 24]`` as ``8, 16, 24`` (text is passed through)."""
    if isinstance(vus, str):
        return vus
    if isinstance(vus, Iterable):
        return ", ".join(str(v) for v in vus)
    return ""


def short_server(version: str | None) -> str:
    """``PostgreSQL 18.6 on x86_64-pc-linux-gnu, compiled by ...`` -> ``PostgreSQL 18.6``."""
    return (version or "").split(" on ", 1)[0].split(",", 1)[0].strip()


@dataclass
class RunRow:
    """One line of the Sessions table."""

    id: int
    name: str
    created: str
    status: str
    engine: str
    n_steps: int
    best_nopm: float | None
    vus: str
    sort_key: float = 0.0  # created time, for sorting newest first
    author: str = ""  # who recorded it ("" when not known)
    system: str = ""  # the tested system: the target's label (searched, as the CLI's --system)
    # The row's workload, and its cells in that workload's words (its kit's ``list_row``
    # fills them: "42,000 NOPM" and "8, 16 VU", or a random-read study's multiplier and sizes).
    workload: str = DEFAULT_WORKLOAD
    best_text: str = ""
    best_key: float = 0.0
    swept: str = ""

    @property
    def best_cell(self) -> tuple[str, float]:
        """The "Best result" cell: its text and its sort key."""
        return self.best_text, self.best_key

    @property
    def swept_cell(self) -> str:
        """What the steps swept: virtual users, or dataset sizes of a random-read study."""
        return self.swept


@dataclass
class RunHeader:
    """What the Sessions page shows above a run's charts."""

    id: int
    name: str
    created: str
    finished: str
    status: str
    engine: str
    server_version: str
    settings: dict[str, Any] = field(default_factory=dict)
    plan: Any = None
    workload: str = DEFAULT_WORKLOAD  # its kit words its facts and draws its overview


@dataclass
class StepRow:
    """One step of a stored run (table row and a point of the by-users chart)."""

    step: int
    vus: int
    nopm: float | None
    tpm: float | None
    nopm_driver: float | None
    window_s: float | None
    complete: bool
    latency: dict[str, float | None]  # LATENCY_FIELDS of "all", milliseconds
    errors: int
    # Power over the measured window (a meter during the run, or a log imported afterwards).
    power_w: float | None = None
    mw_per_nopm: float | None = None
    j_per_new_order: float | None = None
    power_label: str = ""


@dataclass
class SampleSeries:
    """A stored run's samples as arrays (``t`` in seconds since the first sample)."""

    t: np.ndarray
    nopm: np.ndarray
    tpm: np.ndarray
    lat_avg: np.ndarray
    lat_p95: np.ndarray
    lat_p99: np.ndarray
    lat_p999: np.ndarray
    step_starts: list[tuple[float, int, int]]  # (t, step, vus)

    def __len__(self) -> int:
        return len(self.t)


def _sort_key(value: Any) -> float:
    if isinstance(value, dt.datetime):
        return value.timestamp()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return dt.datetime.fromisoformat(value).timestamp()
        except ValueError:
            return 0.0
    return 0.0


def run_row(store: Any, info: Any) -> RunRow:
    """One stored run (a ``RunInfo``) as a list row; a random-read study with its own cells."""
    created = _get(info, "created_at", "created", "started_at")
    steps = _get(info, "n_steps", "steps", default=0)
    row = RunRow(
        id=int(_get(info, "id", "run_id")),
        name=str(_get(info, "name", default="") or ""),
        created=format_time(created),
        status=str(_get(info, "status", default="") or ""),
        engine=str(_get(info, "engine", default="") or ""),
        n_steps=len(steps) if isinstance(steps, Sequence) else int(steps or 0),
        best_nopm=_float(_get(info, "best_nopm", "max_nopm")),
        vus=format_vus(_get(info, "vus", "virtual_users", default="")),
        sort_key=_sort_key(created),
        author=str(_get(info, "author", default="") or ""),
        system=str(_get(info, "target_summary", default="") or ""),
    )
    row.workload = _row_workload(store, row)
    kit_for(row.workload).face("list_row")(store, row)
    return row


def _row_workload(store: Any, row: RunRow) -> str:
    """The row's workload: a kit's own engine names it, confirmed by the stored run (only
    such rows are read further, so listing a thousand TPROC-C sweeps reads no run)."""
    for kit in kits():
        if kit.engine and kit.engine == row.engine:
            return workload_of_record(run_record(store.get_run(row.id)))
    return DEFAULT_WORKLOAD


def run_rows(store: Any) -> list[RunRow]:
    """Every stored run, newest first."""
    rows = [run_row(store, info) for info in store.list_runs()]
    rows.sort(key=lambda r: (r.sort_key, r.id), reverse=True)
    return rows


def run_header(store: Any, run_id: int) -> RunHeader:
    detail = store.get_run(run_id)
    settings = _get(detail, "settings", default={})
    return RunHeader(
        id=run_id,
        name=str(_get(detail, "name", default="") or ""),
        created=format_time(_get(detail, "created_at", "created", "started_at")),
        finished=format_time(_get(detail, "finished_at", "finished", "ended_at")),
        status=str(_get(detail, "status", default="") or ""),
        engine=str(_get(detail, "engine", default="") or ""),
        server_version=str(_get(detail, "server_version", "server", default="") or ""),
        settings=dict(settings) if isinstance(settings, Mapping) else {},
        plan=_get(detail, "plan"),
        workload=workload_of_record(run_record(detail)),
    )


def _latency_all(record: Any) -> Mapping[str, Any]:
    latency = _get(record, "latency_ms", "latency", default={})
    if isinstance(latency, Mapping):
        value = latency.get("all", {})
        return value if isinstance(value, Mapping) else {}
    return {}


def _error_count(errors: Any) -> int:
    if isinstance(errors, Mapping):
        return sum(int(v) for v in errors.values() if isinstance(v, int | float))
    if isinstance(errors, int):
        return errors
    return 0


def run_steps(store: Any, run_id: int) -> list[StepRow]:
    rows = []
    for result in store.steps(run_id):
        latency = _latency_all(result)
        summary = _get(result, "summary", default={})
        summary = summary if isinstance(summary, Mapping) else {}
        rows.append(
            StepRow(
                step=int(_get(result, "step", "step_index", default=0)),
                vus=int(_get(result, "vus", "virtual_users", default=0)),
                nopm=_float(_get(result, "nopm")),
                tpm=_float(_get(result, "tpm")),
                nopm_driver=_float(_get(result, "nopm_driver")),
                window_s=_float(_get(result, "window_s")),
                complete=bool(_get(result, "complete", default=True)),
                latency={name: _float(latency.get(name)) for name in LATENCY_FIELDS},
                errors=_error_count(_get(result, "errors", default={})),
                power_w=_float(summary.get("power_w")),
                mw_per_nopm=_float(summary.get("mw_per_nopm")),
                j_per_new_order=_float(summary.get("j_per_new_order")),
                power_label=str(summary.get("power_label") or ""),
            )
        )
    rows.sort(key=lambda r: r.step)
    return rows


def run_samples(store: Any, run_id: int) -> SampleSeries:
    records = list(store.samples(run_id))
    n = len(records)
    columns = {
        name: np.full(n, np.nan)
        for name in ("t", "nopm", "tpm", "lat_avg", "lat_p95", "lat_p99", "lat_p999")
    }
    starts: list[tuple[float, int, int]] = []
    last_step: Any = _MISSING
    t0: float | None = None
    for i, record in enumerate(records):
        t = _float(_get(record, "t", "time"))
        if t is None:
            t = float(i)
        if t0 is None:
            t0 = t
        columns["t"][i] = t - t0
        # The database's counters when the monitor read them, else the driver's count.
        nopm = _float(_get(record, "nopm_db"))
        tpm = _float(_get(record, "tpm_db"))
        columns["nopm"][i] = _nan(nopm if nopm is not None else _get(record, "nopm_driver"))
        columns["tpm"][i] = _nan(tpm if tpm is not None else _get(record, "tpm_driver"))
        latency = _latency_all(record)
        for name in ("avg", "p95", "p99", "p999"):
            columns[f"lat_{name}"][i] = _nan(latency.get(name))
        step = _get(record, "step")
        if step != last_step:
            last_step = step
            vus = _get(record, "vus", default=0)
            starts.append((columns["t"][i], int(step or 0), int(vus or 0)))
    return SampleSeries(step_starts=starts, **columns)
