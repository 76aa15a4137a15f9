"""The live run's model: protocol events in, chart buffers and tile values out. No Qt here.

The Live page feeds every event of a run to :meth:`LiveModel.feed`; its redraw timer then reads
:attr:`LiveModel.samples` (preallocated ring buffers, one column per series) and
:meth:`LiveModel.tiles` when :attr:`LiveModel.version` changed. Keeping this free of Qt lets
the tests drive it with real protocol events and check every number without rendering.

Host metrics and power ride in the same samples: the whole host's CPU, memory, the disk total
and the power go into columns of :attr:`LiveModel.samples`; each block device and each CPU
socket gets a buffer of its own (:attr:`LiveModel.devices`, :attr:`LiveModel.sockets`) the
first time it appears, with its own time column.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench_gui.core.crosscheck import nopm_doubt
from bench_gui.wire.protocol import Event

# Columns of the live sample buffer. ``t`` is seconds since the run's first event; ``nopm`` and
# ``tpm`` are the best available rate (the database's counters, else the driver's count).
SAMPLE_COLUMNS: tuple[str, ...] = (
    "t",
    "step",
    "vus",
    "nopm",
    "tpm",
    "nopm_driver",
    "tpm_driver",
    "nopm_db",
    "tpm_db",
    "lat_avg",
    "lat_p95",
    "lat_p99",
    "lat_p999",
    "errors",
    # Power: the meter's latest watts, and mW per NOPM over the step's latest samples.
    "power_w",
    "mw_per_nopm",
    # The whole host: CPU shares (%), memory (MB), the disks' total (each I/O counted once).
    "cpu_user",
    "cpu_system",
    "cpu_iowait",
    "cpu_idle",
    "mem_used",
    "mem_cache",
    "mem_dirty",
    "disk_r_iops",
    "disk_w_iops",
    "disk_r_mbs",
    "disk_w_mbs",
    "disk_await",
    "disk_aqu_sz",
)
# Columns of each block device's buffer (the sample's ``host.disks[device]``).
DEVICE_COLUMNS: tuple[str, ...] = (
    "t",
    "r_iops",
    "w_iops",
    "r_mbs",
    "w_mbs",
    "r_await",
    "w_await",
    "await",
    "aqu_sz",
    "util",
)
# Columns of each CPU socket's buffer (``host.cpu.sockets[id]``).
SOCKET_COLUMNS: tuple[str, ...] = ("t", "user", "system", "iowait", "idle")
# At most this many devices and sockets get a buffer (each is preallocated).
MAX_DEVICES = 24
MAX_SOCKETS = 8

# Samples kept in the live buffers: 12 hours at one sample a second.
DEFAULT_CAPACITY = 12 * 3600

PHASE_LABELS: dict[str, str] = {
    "idle": "Idle",
    "baseline": "Idle power",
    "starting": "Starting",
    "rampup": "Ramp-up",
    "measure": "Measuring",
    "between": "Next step",
    "resetting": "Preparing the database",
    "ok": "Finished",
    "stopped": "Stopped",
    "failed": "Failed",
}
ENDED_PHASES = frozenset({"ok", "stopped", "failed"})
# A database read slower than the sampler waits is not yet worth a warning: a busy server
# may take a second; one silent this long is said on the page.
DB_WARNING_AFTER_S = 2.0


def _number(value: Any) -> float:
    """A float, or NaN for anything missing or not a number (bool included)."""
    kind = type(value)
    if kind is float:
        return value  # type: ignore[no-any-return]
    if kind is int:
        return float(value)
    return math.nan


def _optional(value: float) -> float | None:
    return None if math.isnan(value) else value


def _nanmean(values: np.ndarray) -> float | None:
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else None


class RingBuffer:
    """Float columns in a preallocated array, oldest rows dropped past ``capacity``.

    Storage is twice the capacity, so :meth:`column` always returns a contiguous view without
    copying; when the storage fills, the newest ``capacity - 1`` rows slide to the front once.
    """

    def __init__(self, columns: Sequence[str], capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 2:
            raise ValueError("capacity must be at least 2")
        self.columns = tuple(columns)
        self.capacity = capacity
        self._index = {name: i for i, name in enumerate(self.columns)}
        self._data = np.full((len(self.columns), 2 * capacity), np.nan)
        self._start = 0
        self._end = 0

    def __len__(self) -> int:
        return self._end - self._start

    def clear(self) -> None:
        self._data.fill(np.nan)
        self._start = self._end = 0

    def append(self, row: Mapping[str, float]) -> None:
        """Add one row; columns missing from ``row`` are NaN."""
        self.append_values([row.get(name, math.nan) for name in self.columns])

    def append_values(self, values: Sequence[float]) -> None:
        """Add one row given as every column's value, in column order (the fast way)."""
        if self._end == self._data.shape[1]:
            keep = self.capacity - 1
            self._data[:, :keep] = self._data[:, self._end - keep : self._end]
            self._data[:, keep:] = np.nan
            self._start, self._end = 0, keep
        self._data[:, self._end] = values
        self._end += 1
        if self._end - self._start > self.capacity:
            self._start += 1

    def column(self, name: str) -> np.ndarray:
        """A read-only view of one column, oldest first."""
        view = self._data[self._index[name], self._start : self._end]
        view.flags.writeable = False
        return view

    def last(self, name: str, n: int = 1) -> np.ndarray:
        """The newest ``n`` values of a column (fewer if the buffer holds fewer)."""
        return self.column(name)[-n:]


@dataclass(frozen=True)
class BuildState:
    """The schema build a run does before its first step (a first run on the demo target):
    its stage and how far it is."""

    stage: str
    done: float
    total: float
    unit: str

    @property
    def text(self) -> str:
        """ "building the database: loading 3 of 8 warehouses (38%)" """
        what = f"building the database: {self.stage}" if self.stage else "building the database"
        if self.total > 0 and self.done >= 0:
            pct = 100.0 * min(self.done, self.total) / self.total
            unit = f" {self.unit}" if self.unit else ""
            what += f" {self.done:,.0f} of {self.total:,.0f}{unit} ({pct:.0f}%)"
        return what


@dataclass
class StepPoint:
    """One finished sweep step, as the ``step`` end event summarised it."""

    step: int
    vus: int
    nopm: float | None
    tpm: float | None
    nopm_driver: float | None
    window_s: float | None
    complete: bool
    latency_all: dict[str, float] = field(default_factory=dict)
    errors: int = 0
    power_w: float | None = None
    mw_per_nopm: float | None = None
    j_per_new_order: float | None = None
    energy_j: float | None = None
    nopm_flag: str | None = None  # why its NOPM is doubtful (core.crosscheck), or None


@dataclass
class Tiles:
    """The numbers of the big tiles (None: not known yet)."""

    nopm: float | None = None
    tpm: float | None = None
    nopm_driver: float | None = None
    latency_avg_ms: float | None = None
    latency_p999_ms: float | None = None
    vus: int | None = None
    errors: int = 0
    rollbacks: int = 0
    power_w: float | None = None
    mw_per_nopm: float | None = None
    idle_power_w: float | None = None
    cpu_busy: float | None = None  # user + system, %
    cpu_iowait: float | None = None
    nopm_flag: str | None = None  # the database and the driver disagree (LiveModel.nopm_flag)


class LiveModel:
    """Accumulates one run's events into buffers and display values.

    ``smoothing`` is how many of the step's latest samples the NOPM/TPM tiles average (the
    per-second rates are noisy; the charts show them raw).
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY, smoothing: int = 5) -> None:
        self.samples = RingBuffer(SAMPLE_COLUMNS, capacity)
        self.capacity = capacity
        self.smoothing = max(1, smoothing)
        self.devices: dict[str, RingBuffer] = {}
        self.sockets: dict[str, RingBuffer] = {}
        # Counts the runs this model has been reset for: a view that follows the model (the
        # Present view) sees a new run even when ``version`` happens to come back the same.
        self.generation = 0
        self.reset()

    # ---- lifecycle -----------------------------------------------------------------------

    def reset(
        self,
        planned_vus: Iterable[int] = (),
        rampup_s: float | None = None,
        duration_s: float | None = None,
        name: str = "",
    ) -> None:
        """Forget everything and get ready for a new run of the given shape."""
        self.build: BuildState | None = None
        self.samples.clear()
        for buffers in (self.devices, self.sockets):
            for buf in buffers.values():
                buf.clear()
        self.name = name
        self.planned_vus: list[int] = list(planned_vus)
        self.rampup_s = rampup_s
        self.duration_s = duration_s
        self.t0: float | None = None
        self.engine = ""
        self.server = ""
        self.phase = "idle"
        self.step: int | None = None
        self.vus: int | None = None
        self.remaining: float | None = None
        self.remaining_at: float | None = None  # run time (s) of the sample that said it
        self.points: list[StepPoint] = []
        self.markers: list[tuple[float, int, int]] = []  # (t, step, vus) at each step start
        # Each step's measured window so far, (start, end) in run time: what counts, as opposed
        # to the ramp-up before it (the charts shade it).
        self.windows: list[tuple[float, float]] = []
        self._window_of: int | None = None  # the step the last window belongs to
        self.generation += 1
        self.errors_total = 0
        self.rollbacks_total = 0
        self.error_messages: list[str] = []
        self.logs: deque[tuple[str, str]] = deque(maxlen=200)
        self.status_message = ""
        # Seconds the database had not answered for, as of the latest sample (None: it did).
        self.db_silent_s: float | None = None
        self.vus_down = 0  # users without a connection in the latest sample
        self.last_seq: int | None = None
        self.version = 0
        self._last_latency: dict[str, float] = {}
        self._last_sample: dict[str, float] = {}
        # Power: what the meter measures (from the run's configuration), the idle baseline.
        self.power_meter = ""
        self.power_scope = ""
        self.power_label = ""
        self.idle_power_w: float | None = None
        self.power_error = ""
        self.device_order: list[str] = []  # in the order they first appeared
        self._mw_window: deque[tuple[float, float]] = deque(maxlen=self.smoothing)
        self._mw_step = math.nan
        self.socket_order: list[str] = []
        # The current step's measured window so far: [database orders, driver orders, seconds]
        # and the last sample's elapsed time, for the running NOPM cross-check.
        self._window = [0.0, 0.0, 0.0]
        self._window_elapsed: float | None = None

    def begin(
        self, planned_vus: Iterable[int], rampup_s: float, duration_s: float, name: str
    ) -> None:
        """Reset for a run that is about to start (the plan's shape is known)."""
        self.reset(planned_vus, rampup_s, duration_s, name)
        self.phase = "starting"
        self.version += 1

    # ---- feeding -------------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        """Take one protocol event; unknown kinds and odd payloads are ignored, never fatal."""
        if self.t0 is None:
            self.t0 = event.t
        self.last_seq = event.seq
        handler = getattr(self, f"_on_{event.kind}", None)
        if handler is not None:
            handler(event)
            self.version += 1

    def feed_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.feed(event)

    def run_time(self, event_t: float) -> float:
        return event_t - (self.t0 if self.t0 is not None else event_t)

    def _on_hello(self, event: Event) -> None:
        self.engine = str(event.get("engine") or "")
        self.server = str(event.get("server") or "")
        config = event.get("config")
        if isinstance(config, dict):
            nested = config.get("workload")
            workload: dict[str, Any] = nested if isinstance(nested, dict) else {}
            vus = workload.get("virtual_users", config.get("virtual_users"))
            if not self.planned_vus and isinstance(vus, list):
                self.planned_vus = [int(v) for v in vus if isinstance(v, int)]
            if self.rampup_s is None:
                value = _number(workload.get("rampup_s", config.get("rampup_s")))
                self.rampup_s = _optional(value)
            if self.duration_s is None:
                value = _number(workload.get("duration_s", config.get("duration_s")))
                self.duration_s = _optional(value)
            power = config.get("power")
            if isinstance(power, dict) and power.get("meter") not in (None, "", "none"):
                self.power_meter = str(power.get("meter"))
                self.power_scope = str(power.get("scope") or "")
                self.power_label = str(power.get("label") or self.power_meter)
        if self.phase == "idle":
            self.phase = "starting"

    def _on_step(self, event: Event) -> None:
        step = event.get("step")
        vus = event.get("vus")
        if event.get("phase") == "start":
            self.step = step if isinstance(step, int) else self.step
            self.vus = vus if isinstance(vus, int) else self.vus
            self.phase = "rampup" if (self.rampup_s or 0) > 0 else "measure"
            self.remaining = None
            self.remaining_at = None
            self._last_sample = {}
            self._last_latency = {}
            self._window = [0.0, 0.0, 0.0]
            self._window_elapsed = None
            self.markers.append((self.run_time(event.t), self.step or 0, self.vus or 0))
            if self.step is not None and self.step >= len(self.planned_vus) and self.vus:
                # More steps than planned (or no plan): grow the list so "k of n" stays true.
                self.planned_vus.extend([0] * (self.step + 1 - len(self.planned_vus)))
                self.planned_vus[self.step] = self.vus
        elif event.get("phase") == "end":
            summary = event.get("summary")
            if isinstance(summary, dict):
                self._add_point(summary, step, vus)
            self.phase = "between"
            self.remaining = None
            self.remaining_at = None
            self.db_silent_s = None
            self.vus_down = 0

    def _add_point(self, summary: Mapping[str, Any], step: Any, vus: Any) -> None:
        step_no = summary.get("step", step)
        users = summary.get("vus", vus)
        if not isinstance(step_no, int) or not isinstance(users, int):
            return
        latency = summary.get("latency_ms")
        latency_all = latency.get("all") if isinstance(latency, dict) else None
        errors = summary.get("errors")
        point = StepPoint(
            step=step_no,
            vus=users,
            nopm=_optional(_number(summary.get("nopm"))),
            tpm=_optional(_number(summary.get("tpm"))),
            nopm_driver=_optional(_number(summary.get("nopm_driver"))),
            window_s=_optional(_number(summary.get("window_s"))),
            complete=bool(summary.get("complete", True)),
            latency_all={
                k: float(v)
                for k, v in (latency_all or {}).items()
                if isinstance(v, int | float) and not isinstance(v, bool)
            },
            errors=sum(int(v) for v in errors.values() if isinstance(v, int))
            if isinstance(errors, dict)
            else 0,
            power_w=_optional(_number(summary.get("power_w"))),
            mw_per_nopm=_optional(_number(summary.get("mw_per_nopm"))),
            j_per_new_order=_optional(_number(summary.get("j_per_new_order"))),
            energy_j=_optional(_number(summary.get("energy_j"))),
        )
        point.nopm_flag = nopm_doubt(point.nopm, point.nopm_driver, point.window_s, point.vus)
        idle = _optional(_number(summary.get("idle_power_w")))
        if idle is not None:
            self.idle_power_w = idle
        if summary.get("power_scope") and not self.power_scope:
            self.power_scope = str(summary.get("power_scope"))
        if summary.get("power_label"):
            self.power_label = str(summary.get("power_label"))
        self.points = [p for p in self.points if p.step != point.step]
        self.points.append(point)
        self.points.sort(key=lambda p: p.step)

    def _on_sample(self, event: Event) -> None:
        phase = event.get("phase")
        if phase in ("rampup", "measure"):
            self.phase = phase
        step = event.get("step")
        vus = event.get("vus")
        if isinstance(step, int):
            self.step = step
        if isinstance(vus, int):
            self.vus = vus
        t = self.run_time(event.t)
        if phase == "measure":
            self._note_window(step if isinstance(step, int) else -1, t, event.get("elapsed"))
        remaining = _number(event.get("remaining"))
        self.remaining = _optional(remaining)
        self.remaining_at = t if self.remaining is not None else None
        self.db_silent_s = _optional(_number(event.get("db_not_answering_s")))
        down = event.get("vus_down")
        self.vus_down = down if isinstance(down, int) and not isinstance(down, bool) else 0

        errors = event.get("errors")
        n_errors = 0
        if isinstance(errors, dict):
            n_errors = sum(int(v) for v in errors.values() if isinstance(v, int | float))
        self.errors_total += n_errors
        rollbacks = event.get("rollbacks")
        if isinstance(rollbacks, int):
            self.rollbacks_total += rollbacks

        latency = event.get("latency_ms")
        lat_all = latency.get("all") if isinstance(latency, dict) else None
        lat = lat_all if isinstance(lat_all, dict) else {}
        nopm_driver = _number(event.get("nopm_driver"))
        tpm_driver = _number(event.get("tpm_driver"))
        nopm_db = _number(event.get("nopm_db"))
        tpm_db = _number(event.get("tpm_db"))
        row = {
            "t": t,
            "step": _number(step),
            "vus": _number(vus),
            "nopm": nopm_driver if math.isnan(nopm_db) else nopm_db,
            "tpm": tpm_driver if math.isnan(tpm_db) else tpm_db,
            "nopm_driver": nopm_driver,
            "tpm_driver": tpm_driver,
            "nopm_db": nopm_db,
            "tpm_db": tpm_db,
            "lat_avg": _number(lat.get("avg")),
            "lat_p95": _number(lat.get("p95")),
            "lat_p99": _number(lat.get("p99")),
            "lat_p999": _number(lat.get("p999")),
            "errors": float(n_errors),
        }
        row.update(self._host_and_power(event, t))
        row["mw_per_nopm"] = self._live_mw_per_nopm(row)
        self._add_to_window(phase, _number(event.get("elapsed")), nopm_db, nopm_driver)
        self.samples.append_values([row.get(name, math.nan) for name in SAMPLE_COLUMNS])
        self._last_sample = row
        self._last_latency = {k: v for k, v in row.items() if k.startswith("lat_")}

    def _note_window(self, step: int, t: float, elapsed: Any) -> None:
        """A measured second of ``step`` at run time ``t``: its window opens (where the step's
        ramp-up ended, from the sample's ``elapsed`` and the ramp-up, else one second before)
        or grows to ``t``."""
        if self.windows and self._window_of == step:
            self.windows[-1] = (self.windows[-1][0], t)
            return
        start = t - 1.0  # a sample counts the second before it
        since_start = _number(elapsed)
        if self.rampup_s is not None and not math.isnan(since_start):
            start = min(t, t - since_start + max(0.0, self.rampup_s))
        self._window_of = step
        self.windows.append((start, t))

    def _add_to_window(
        self, phase: Any, elapsed: float, nopm_db: float, nopm_driver: float
    ) -> None:
        """Count the second's New-Orders (database and driver) into the measured window so far;
        a sample without both rates (or out of order) is left out of both counts."""
        previous, self._window_elapsed = self._window_elapsed, elapsed
        if phase != "measure" or previous is None or math.isnan(elapsed) or elapsed <= previous:
            return
        if math.isnan(nopm_db) or math.isnan(nopm_driver):
            return
        dt = elapsed - previous
        self._window[0] += nopm_db * dt / 60.0
        self._window[1] += nopm_driver * dt / 60.0
        self._window[2] += dt

    @property
    def nopm_flag(self) -> str | None:
        """Why the NOPM shown is doubtful, or None: while a step measures, its window so far;
        after, the latest finished step's (core.crosscheck.nopm_doubt either way)."""
        db, driver, seconds = self._window
        if self.phase == "measure" and seconds > 0:
            return nopm_doubt(db * 60 / seconds, driver * 60 / seconds, seconds, self.vus)
        return self.points[-1].nopm_flag if self.points else None

    def _host_and_power(self, event: Event, t: float) -> dict[str, float]:
        """Columns from a sample's (or the idle baseline's) ``host`` and ``power``; per-device
        and per-socket rows go to their own buffers."""
        row: dict[str, float] = {}
        power = event.get("power")
        if isinstance(power, dict):
            row["power_w"] = _number(power.get("watts"))
            error = power.get("error")
            self.power_error = str(error) if error else ""
            if not self.power_meter:
                self.power_meter = "power"
        host = event.get("host")
        if not isinstance(host, dict):
            return row
        cpu = host.get("cpu")
        if isinstance(cpu, dict):
            for name in ("user", "system", "iowait", "idle"):
                row[f"cpu_{name}"] = _number(cpu.get(name))
            sockets = cpu.get("sockets")
            if isinstance(sockets, dict):
                for socket, shares in sockets.items():
                    buf = self._buffer(self.sockets, self.socket_order, str(socket), MAX_SOCKETS)
                    if buf is not None and isinstance(shares, dict):
                        buf.append_values(
                            [t, *(_number(shares.get(k)) for k in SOCKET_COLUMNS[1:])]
                        )
        mem = host.get("mem")
        if isinstance(mem, dict):
            for name in ("used", "cache", "dirty"):
                row[f"mem_{name}"] = _number(mem.get(f"{name}_mb"))
        total = host.get("disk_total")
        if isinstance(total, dict):
            for name in ("r_iops", "w_iops", "r_mbs", "w_mbs", "await", "aqu_sz"):
                row[f"disk_{name}"] = _number(total.get(name))
        disks = host.get("disks")
        if isinstance(disks, dict):
            for device, rates in disks.items():
                buf = self._buffer(self.devices, self.device_order, str(device), MAX_DEVICES)
                if buf is not None and isinstance(rates, dict):
                    buf.append_values([t] + [_number(rates.get(k)) for k in DEVICE_COLUMNS[1:]])
        return row

    def _buffer(
        self, buffers: dict[str, RingBuffer], order: list[str], name: str, limit: int
    ) -> RingBuffer | None:
        buf = buffers.get(name)
        if buf is None:
            if len(buffers) >= limit:
                return None
            columns = DEVICE_COLUMNS if buffers is self.devices else SOCKET_COLUMNS
            buf = buffers[name] = RingBuffer(columns, self.capacity)
        if name not in order:
            order.append(name)
        return buf

    def _live_mw_per_nopm(self, row: Mapping[str, float]) -> float:
        """mW per NOPM over the step's latest measured samples, this one included: mean watts
        over mean NOPM (per-second NOPM is noisy; a per-second ratio would jump about)."""
        watts, nopm = row.get("power_w", math.nan), row.get("nopm", math.nan)
        step = row.get("step", math.nan)
        if self.phase != "measure" or step != self._mw_step:
            self._mw_window.clear()  # ramp-up is not measured: its ratio would mean nothing
            self._mw_step = step if self.phase == "measure" else math.nan
        if self.phase != "measure" or math.isnan(watts) or math.isnan(nopm):
            return math.nan
        self._mw_window.append((watts, nopm))
        mean_nopm = sum(n for _, n in self._mw_window) / len(self._mw_window)
        if mean_nopm <= 0:
            return math.nan
        return 1000.0 * sum(w for w, _ in self._mw_window) / len(self._mw_window) / mean_nopm

    def _on_progress(self, event: Event) -> None:
        """The idle power baseline before the first step (task ``idle``); a schema build's
        progress (task ``build``) while the run is starting; the reset of the database between
        steps (task ``reset``: how long the database has not answered)."""
        task = event.get("task")
        if task == "build":
            if self.phase in ("idle", "starting"):
                self.build = BuildState(
                    str(event.get("stage") or ""),
                    _number(event.get("done")),
                    _number(event.get("total")),
                    str(event.get("unit") or ""),
                )
            return
        if task not in ("idle", "reset"):
            return
        if task == "reset":
            self.phase = "resetting"
            self.db_silent_s = _optional(_number(event.get("db_not_answering_s")))
        elif self.phase in ("idle", "starting"):
            self.phase = "baseline"
        t = self.run_time(event.t)
        total, done = _number(event.get("total")), _number(event.get("done"))
        if not math.isnan(total) and not math.isnan(done):
            self.remaining = max(0.0, total - done)
            self.remaining_at = t
        row: dict[str, float] = {"t": t}
        row.update(self._host_and_power(event, t))
        self.samples.append(row)

    def _on_log(self, event: Event) -> None:
        self.logs.append((str(event.get("level") or "info"), str(event.get("message") or "")))

    def _on_error(self, event: Event) -> None:
        message = str(event.get("message") or "error")
        self.error_messages.append(message)
        if event.get("fatal"):
            self.phase = "failed"
            self.status_message = message

    def _on_summary(self, event: Event) -> None:
        steps = event.get("steps")
        if isinstance(steps, list):
            for summary in steps:
                if isinstance(summary, dict):
                    self._add_point(summary, summary.get("step"), summary.get("vus"))

    def _on_done(self, event: Event) -> None:
        status = event.get("status")
        self.phase = status if status in ENDED_PHASES else "ok"
        message = event.get("message")
        if message:
            self.status_message = str(message)
        self.remaining = None
        self.remaining_at = None
        self.db_silent_s = None
        self.vus_down = 0

    def fail(self, message: str) -> None:
        """The run failed outside the event stream (the worker raised)."""
        self.phase = "failed"
        self.status_message = message
        self.remaining = None
        self.version += 1

    # ---- reading -------------------------------------------------------------------------

    @property
    def phase_label(self) -> str:
        if self.phase == "starting" and self.build is not None:
            return "Building"
        return PHASE_LABELS.get(self.phase, self.phase.title())

    @property
    def ended(self) -> bool:
        return self.phase in ENDED_PHASES

    @property
    def db_warning(self) -> str:
        """The line "database not answering for N s" while the latest sample says so, and
        "N users reconnecting" while some have lost their connection; else ''."""
        if self.ended:
            return ""
        parts = []
        if self.db_silent_s is not None and self.db_silent_s >= DB_WARNING_AFTER_S:
            parts.append(f"database not answering for {self.db_silent_s:.0f} s")
        if self.vus_down:
            parts.append(f"{self.vus_down} user{'' if self.vus_down == 1 else 's'} reconnecting")
        return " · ".join(parts)

    @property
    def step_number(self) -> int | None:
        """The current step counted from 1 (for "step k of n")."""
        return None if self.step is None else self.step + 1

    @property
    def step_count(self) -> int | None:
        return len(self.planned_vus) or None

    def phase_remaining(self, now: float | None = None) -> float | None:
        """Seconds left in the current phase (ramp-up or measured window).

        ``now`` is the current run time; without it, the value as of the last sample. The
        agent reports the time left in the whole step, so during ramp-up the measured window
        is taken off when the plan's duration is known.
        """
        if self.remaining is None or self.ended:
            return None
        left = self.remaining
        if now is not None and self.remaining_at is not None:
            left -= max(0.0, now - self.remaining_at)
        if self.phase == "rampup" and self.duration_s is not None:
            left -= self.duration_s
        return max(0.0, left)

    def tiles(self) -> Tiles:
        nopm = tpm = nopm_driver = None
        n = len(self.samples)
        if n and self._last_sample:
            # Average over the step's latest samples only (its measured ones, once it measures).
            k = self._step_run_length()
            nopm = _nanmean(self.samples.last("nopm", k))
            tpm = _nanmean(self.samples.last("tpm", k))
            nopm_driver = _nanmean(self.samples.last("nopm_driver", k))
        power_w = mw = cpu_busy = iowait = None
        if n:
            power_w = _nanmean(self.samples.last("power_w", self._step_run_length()))
            if power_w is not None and nopm is not None and nopm > 0:
                mw = 1000.0 * power_w / nopm
            user = float(self.samples.last("cpu_user")[-1])
            system = float(self.samples.last("cpu_system")[-1])
            if not math.isnan(user):
                cpu_busy = user + (0.0 if math.isnan(system) else system)
            iowait = _optional(float(self.samples.last("cpu_iowait")[-1]))
        return Tiles(
            power_w=power_w,
            mw_per_nopm=mw,
            idle_power_w=self.idle_power_w,
            cpu_busy=cpu_busy,
            cpu_iowait=iowait,
            nopm=nopm,
            tpm=tpm,
            nopm_driver=nopm_driver,
            latency_avg_ms=_optional(self._last_latency.get("lat_avg", math.nan)),
            latency_p999_ms=_optional(self._last_latency.get("lat_p999", math.nan)),
            vus=self.vus,
            errors=self.errors_total,
            rollbacks=self.rollbacks_total,
            nopm_flag=self.nopm_flag,
        )

    def result_tiles(self) -> Tiles | None:
        """The run's result in the tiles' terms: the best step's figures (the most NOPM, as
        :meth:`best_point` picks it), the run's errors and rollbacks; None before a step ends."""
        best = self.best_point()
        if best is None:
            return None
        lat = best.latency_all
        return Tiles(
            nopm=best.nopm,
            tpm=best.tpm,
            nopm_driver=best.nopm_driver,
            latency_avg_ms=lat.get("avg"),
            latency_p999_ms=lat.get("p999"),
            vus=best.vus,
            errors=self.errors_total,
            rollbacks=self.rollbacks_total,
            power_w=best.power_w,
            mw_per_nopm=best.mw_per_nopm,
            idle_power_w=self.idle_power_w,
            nopm_flag=best.nopm_flag,
        )

    def _step_run_length(self) -> int:
        """How many of the latest rows belong to the current step (at most ``smoothing``);
        once the step measures, only its measured rows (its ramp-up does not count)."""
        steps = self.samples.last("step", self.smoothing)
        if not len(steps):
            return 0
        current = steps[-1]
        same = steps == current if not math.isnan(current) else np.isnan(steps)
        k = int(same[::-1].cumprod().sum())
        if self.windows and not math.isnan(current) and self._window_of == int(current):
            start = self.windows[-1][0]
            # The latest row is the window's own (it opened or grew the window).
            k = min(k, max(1, int(np.count_nonzero(self.samples.last("t", k) > start))))
        return k

    @property
    def has_power(self) -> bool:
        return bool(self.power_meter)

    def best_point(self) -> StepPoint | None:
        """The step with the most NOPM: among complete steps, else among all (as the store)."""
        scored = [p for p in self.points if p.nopm is not None]
        complete = [p for p in scored if p.complete]
        candidates = complete or scored
        return max(candidates, key=lambda p: p.nopm or 0.0) if candidates else None
