"""The sweep: steps of virtual users, each with a ramp-up and a measured window.

The parent process supervises: it starts the worker processes that drive the users, reads the
database counters and the shared driver counters at the same instants, emits one ``sample`` a
second and a ``step`` summary at the end of each step. NOPM and TPM come from the database as
HammerDB measures them; the driver's own count of committed New-Orders is reported beside
them as a cross-check.

Host metrics and power (:class:`~bench_gui.agent.hostmetrics.Monitor`) ride along: each sample
carries the second's CPU, disks, memory and watts, each step summary the same over exactly its
measured window (average power integrated, mW per NOPM, J per new order, energy), and an idle
power baseline is measured before the first step.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench_gui.agent.barrier import BarrierTimeout, Coordination, NoCounters, wait_until
from bench_gui.agent.between_steps import DatabaseAway, watched
from bench_gui.agent.engines import AgentEngine, CounterSource, Snapshot
from bench_gui.agent.hostmetrics import Monitor
from bench_gui.agent.outages import Outages
from bench_gui.agent.power import MeterError
from bench_gui.agent.users import (
    FLAG_HOLD,
    FLAG_MEASURING,
    FLAG_STOP,
    FLAGS,
    SLOT_ERRORS,
    SLOT_ROLLBACK,
    SLOTS,
    WorkerSpec,
)
from bench_gui.wire import hist
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.protocol import TX_KEYS, EventWriter
from bench_gui.wire.run_config import RunConfig

READY_TIMEOUT_S = 60.0
# With a start barrier, no per-second sample this close to the window's planned end.
END_SLACK_S = 0.25
TPM_WINDOW_S = 5


def window_tolerance_s(duration_s: float) -> float:
    """How much longer than planned a measured window may last (and how long the database may
    stay silent inside it) and still count: 2 s and 1% of the window."""
    return 2.0 + 0.01 * duration_s


@dataclass
class _Mark:
    """Where the previous sample left off: the database's last answer, the driver's counts and
    when they were read."""

    snap: Snapshot | None
    counts: list[int]
    t: float


class StepFailed(RuntimeError):
    """The users of a step could not start (connection refused, schema missing...)."""


class RunCut(EngineError):
    """The run ends before its last step, its finished steps (``steps``) kept; ``code`` (if
    any) goes with the fatal error event."""

    def __init__(self, message: str, steps: list[dict[str, Any]], code: str = "") -> None:
        super().__init__(message)
        self.steps = steps
        self.code = code


class StoppedAtBarrier(Exception):
    """The run was stopped while this host waited at a step's start barrier."""


class DatabaseStalled(RunCut):
    """The database did not answer for the plan's stall limit: the run ends, its finished
    steps (``steps``, the stalled one last) kept."""

    def __init__(self, message: str, steps: list[dict[str, Any]]) -> None:
        super().__init__(message, steps)


def _per_minute(delta: float, seconds: float) -> float:
    return round(delta * 60.0 / seconds, 1) if seconds > 0 else 0.0


def worker_processes(processes: int, cpus: int, vus: int, users_per_process: int) -> int:
    """How many worker processes drive ``vus`` users: the plan's ``processes`` when it names
    them, else one per CPU but no fewer than ``users_per_process`` users in each."""
    if processes:
        return max(1, min(processes, vus))
    return max(1, min(cpus, math.ceil(vus / max(1, users_per_process)), vus))


def worker_specs(
    cfg: RunConfig, conninfo: str, index: int, vus: int, nproc: int, seed: int
) -> list[WorkerSpec]:
    """What each of a step's ``nproc`` worker processes runs: its users (global indices: with
    several driver hosts, this host's follow the hosts before it, ``cfg.first_user``) and the
    step's users over every host (``cfg.total_users``: all-warehouses mode spreads them)."""
    first = cfg.first_user[index] if cfg.first_user else 0
    total = cfg.total_users[index] if cfg.total_users else vus
    return [
        WorkerSpec(
            worker=w,
            conninfo=conninfo,
            vus=[first + u for u in range(w, vus, nproc)],
            total_vus=total,
            warehouses=cfg.warehouses,
            all_warehouses=cfg.all_warehouses,
            keying_thinking=cfg.keying_thinking,
            profile=cfg.profile,
            # Distinct on every host even with the plan's one seed.
            seed=seed * 1000 + index * 100 + w + 7919 * first,
        )
        for w in range(nproc)
    ]


class Step:
    """One step of the sweep: its worker processes, shared counters and aggregation."""

    def __init__(
        self,
        cfg: RunConfig,
        engine: AgentEngine,
        out: EventWriter,
        stop: threading.Event,
        index: int,
        vus: int,
        monitor: Monitor | None = None,
        db_counters: CounterSource | None = None,
        coord: Coordination | None = None,
    ) -> None:
        self.cfg = cfg
        # Several driver hosts: this host's role, and the instant (its own clock) the step's
        # ramp-up begins at on every host, given by the barrier once the users are connected
        # (None: at once, as on one host).
        self.coord = coord or Coordination()
        self.start_at: float | None = None
        self.started_at: float | None = None
        self.monitor = monitor
        # A reader of the database counters to share; without one the step opens its own and
        # closes it at its end (so reset_between_steps can drop the database in between).
        self.db_counters = db_counters
        self.stalled = ""  # why the database's silence ended the step
        self.silent_in_window_s = 0.0  # the longest silence of the database in the window
        self.engine = engine
        self.out = out
        self.stop = stop
        self.index = index
        self.vus = vus
        cpus = os.cpu_count() or 1
        # An engine written before the setting existed gets one process per CPU.
        per_process = getattr(engine, "users_per_process", 1)
        self.nproc = worker_processes(cfg.processes, cpus, vus, per_process)
        ctx = mp.get_context("spawn")
        self.counters: Any = ctx.RawArray("q", self.nproc * SLOTS)
        self.flags: Any = ctx.RawArray("b", FLAGS)  # [stop, measuring, hold]
        # With a start barrier the connected users wait for its instant.
        self.flags[FLAG_HOLD] = 1 if self.coord.barrier else 0
        self.pipes: list[Any] = []
        self.procs: list[Any] = []
        seed = cfg.seed if cfg.seed is not None else random.randrange(1 << 30)
        # As the engine resolved it (ODBC: its driver).
        for w, spec in enumerate(worker_specs(cfg, engine.conninfo, index, vus, self.nproc, seed)):
            reader, writer = ctx.Pipe(duplex=False)
            proc = ctx.Process(
                target=engine.worker_main,
                args=(spec, self.counters, self.flags, writer),
                name=f"bench-gui-vu-{w}",
                daemon=True,
            )
            self.pipes.append(reader)
            self.procs.append((proc, writer))
        self.tick_hists = {k: hist.new_histogram() for k in TX_KEYS}
        self.tick_errors: dict[str, int] = {}
        self.step_errors: dict[str, int] = {}
        self.window_hists = {k: hist.new_histogram() for k in TX_KEYS}
        self.tick_sums = dict.fromkeys(TX_KEYS, 0)
        self.window_sums = dict.fromkeys(TX_KEYS, 0)
        self.byes = 0
        self.outages = Outages()  # users whose connection broke, and for how long

    # -- counters ------------------------------------------------------------------------------
    def driver_counts(self) -> list[int]:
        """Sum of every worker's slots: committed per type, rollbacks, errors."""
        c = self.counters
        return [sum(c[w * SLOTS + s] for w in range(self.nproc)) for s in range(SLOTS)]

    def _drain(self, timeout: float = 0.0) -> None:
        for pipe in self.pipes:
            while pipe.poll(timeout):
                self._take(pipe.recv())
                timeout = 0.0

    def _take(self, msg: tuple[Any, ...]) -> None:
        """One message of a worker process (its pipe protocol: ``worker_main``)."""
        kind = msg[0]
        if kind == "tick":
            _, encoded, sums, errors, in_window = msg
            for key, enc in encoded.items():
                hist.add_encoded(self.tick_hists[key], enc)
                if in_window:
                    hist.add_encoded(self.window_hists[key], enc)
            for key, total in sums.items():
                self.tick_sums[key] += total
                if in_window:
                    self.window_sums[key] += total
            for err, n in errors.items():
                self.tick_errors[err] = self.tick_errors.get(err, 0) + n
                self.step_errors[err] = self.step_errors.get(err, 0) + n
        elif kind == "bye":
            self.byes += 1
        elif kind == "error":
            raise StepFailed(msg[1])
        else:
            self.outages.take(msg)

    # -- lifecycle -------------------------------------------------------------------------------
    def start_users(self) -> None:
        for proc, _writer in self.procs:
            proc.start()
        for _proc, writer in self.procs:
            writer.close()  # the parent keeps only the reading ends
        ready = 0
        deadline = time.monotonic() + READY_TIMEOUT_S
        while ready < self.nproc:
            if self.stop.is_set():
                raise StepFailed("stopped before the users were connected")
            if time.monotonic() > deadline:
                raise StepFailed(f"virtual users not connected after {READY_TIMEOUT_S:.0f} s")
            for pipe, (proc, _w) in zip(self.pipes, self.procs, strict=True):
                if pipe.poll(0.05):
                    try:
                        msg = pipe.recv()
                    except EOFError:
                        raise StepFailed(
                            f"worker process {proc.name} died (exit code {proc.exitcode})"
                        ) from None
                    if msg[0] == "ready":
                        ready += 1
                    else:
                        self._take(msg)

    def stop_users(self) -> None:
        self.flags[FLAG_MEASURING] = 0
        self.flags[FLAG_STOP] = 1
        deadline = time.monotonic() + 15
        while self.byes < self.nproc and time.monotonic() < deadline:
            try:
                self._drain(0.05)
            except (EOFError, OSError, StepFailed):
                break
            if all(not p.is_alive() for p, _ in self.procs):
                try:
                    self._drain(0.0)
                except (EOFError, OSError, StepFailed):
                    pass
                break
        for proc, _w in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
                proc.join(timeout=5)
        for pipe in self.pipes:
            pipe.close()

    def _tick_latency(self) -> dict[str, dict[str, float]]:
        summary = hist.merged_summary(self.tick_hists, self.tick_sums)
        self.tick_hists = {k: hist.new_histogram() for k in TX_KEYS}
        self.tick_sums = dict.fromkeys(TX_KEYS, 0)
        return summary

    def run(self) -> dict[str, Any]:
        """Ramp up, measure, and return the step summary.

        ``complete`` is False when the step was stopped, lost the database's counters, or the
        database did not answer around or inside its measured window (the window overran the
        plan); ``problems`` then says why. The sampler never waits on the database (see
        :mod:`bench_gui.engines.postgresql.agent.counters`): while it does not answer, samples,
        host metrics
        and power go on, each sample saying for how long. A database silent for the plan's
        ``db_stall_limit_s`` ends the step, and :attr:`stalled` says so.
        """
        cfg = self.cfg
        reads_db = self.coord.reads_counters
        if not self.coord.barrier:
            self._say_start()
        own_reader = self.db_counters is None
        db: CounterSource
        if self.db_counters is not None:
            db = self.db_counters
        else:
            db = self.engine.counter_reader() if reads_db else NoCounters()
        connecting = time.monotonic()
        try:
            self.start_users()
            connect_s = time.monotonic() - connecting
            if self.coord.barrier:
                # Ready means connected: the barrier's instant waits for no connection.
                self.start_at = self.coord.wait_for_go(
                    self.index, self.vus, self.out.emit, self.stop, connect_s
                )
                if self.start_at is None:
                    raise StoppedAtBarrier
                self._say_start()
        except BaseException:
            self.stop_users()
            if own_reader:
                db.close()
            raise
        if self.start_at is not None and wait_until(self.start_at, self.stop):
            # Every host's users (and so its ramp-up and measured window) begin at this instant.
            self.flags[FLAG_HOLD] = 0
            self.started_at = self.coord.went(self.index, self.start_at, self.out.emit, connect_s)
        t0 = time.monotonic()
        ramp_end = t0 + cfg.rampup_s
        window_end = ramp_end + cfg.duration_s
        # With a start barrier every host's window is planned to end at this one instant: no
        # host ticks just around it, and each closes the window with its last fraction, so the
        # hosts give the same seconds of the step (the desktop pairs them by time).
        planned_end = window_end
        limit = float(cfg.db_stall_limit_s)
        start: Snapshot | None = None
        start_counts: list[int] = []
        end: Snapshot | None = None
        end_counts: list[int] = []
        end_t = 0.0
        first = db.read()
        last = _Mark(first, self.driver_counts(), time.monotonic())
        # pg_stat_database is flushed by each backend at most once a second, so a one-second
        # difference of it jitters (even to zero); the live TPM uses a trailing window instead.
        recent: deque[Snapshot] = deque([first] if first else [], maxlen=TPM_WINDOW_S + 1)
        next_tick = t0 + 1.0
        complete = False

        def emit_sample(
            now: float, snap: Snapshot | None, counts: list[int], counts_t: float
        ) -> None:
            """One second of the step (or the fraction of one that closes the window); with
            no ``snap`` (the database did not answer in time), without the database's rates."""
            self._drain()
            prev_snap, prev_counts = last.snap, last.counts
            dt = counts_t - last.t
            delta = [a - b for a, b in zip(counts, prev_counts, strict=True)]
            db_fields: dict[str, Any] = {"nopm_db": None, "tpm_db": None}
            if snap is not None and prev_snap is not None:
                db_fields["nopm_db"] = _per_minute(
                    snap.new_orders - prev_snap.new_orders, snap.t - prev_snap.t
                )
            if snap is not None and recent:
                db_fields["tpm_db"] = _per_minute(
                    snap.transactions - recent[0].transactions, snap.t - recent[0].t
                )
            if snap is None:
                db_fields["db_not_answering_s"] = round(db.not_answering_s(), 1)
                if db.error:
                    db_fields["db_error"] = db.error
            if not reads_db:
                db_fields = {}  # a secondary host: the primary reports the database's rates
            self.out.emit(
                "sample",
                step=self.index,
                vus=self.vus,
                phase="measure" if start is not None else "rampup",
                elapsed=round(now - t0, 3),
                remaining=round(max(0.0, window_end - now), 3),
                counts={k: delta[i] for i, k in enumerate(TX_KEYS)},
                rollbacks=delta[SLOT_ROLLBACK],
                errors=self.tick_errors,
                latency_ms=self._tick_latency(),
                nopm_driver=_per_minute(delta[0], dt),
                tpm_driver=_per_minute(sum(delta[: len(TX_KEYS)]) + delta[SLOT_ROLLBACK], dt),
                **db_fields,
                **self.outages.sample_fields(),
                **(self.monitor.sample_fields() if self.monitor is not None else {}),
            )
            self.tick_errors = {}
            last.counts, last.t = counts, counts_t
            if snap is not None:
                last.snap = snap
                recent.append(snap)

        try:
            while not self.stop.is_set():
                now = time.monotonic()
                silent = db.not_answering_s(now)
                if now >= ramp_end and end is None:
                    self.silent_in_window_s = max(self.silent_in_window_s, silent)
                if silent >= limit:
                    self.stalled = (
                        f"the database has not answered for {silent:.0f} s"
                        f" (workload.db_stall_limit_s = {limit:g})"
                    )
                    if db.error:
                        self.stalled += f", last error: {db.error}"
                    break
                if start is None and now >= ramp_end:
                    snap = db.read()
                    if snap is not None:
                        start, start_counts = snap, self.driver_counts()
                        self.flags[FLAG_MEASURING] = 1
                        if self.monitor is not None:
                            self.monitor.window_start()
                        # A window that opened late still lasts the plan's duration.
                        window_end = max(window_end, start.t + cfg.duration_s)
                if start is not None and now >= window_end:
                    snap = db.read()
                    if snap is not None:
                        end, end_counts = snap, self.driver_counts()
                        end_t = time.monotonic()
                        self.flags[FLAG_MEASURING] = 0
                        complete = True
                        break
                near_end = self.coord.barrier and abs(now - planned_end) < END_SLACK_S
                if now >= next_tick and not near_end:
                    next_tick = max(next_tick + 1.0, now + 0.5)
                    snap = db.read()
                    emit_sample(now, snap, self.driver_counts(), time.monotonic())
                # An edge the database has not answered yet is tried again within 0.25 s.
                wake = next_tick
                edge = ramp_end if start is None else window_end
                if edge > now:
                    wake = min(wake, edge)
                self.stop.wait(max(0.0, min(0.25, wake - time.monotonic())))
            if start is not None and end is None and not self.stalled:
                # Stopped inside the measured window: keep what was measured.
                end = db.read()
                end_counts, end_t = self.driver_counts(), time.monotonic()
            if end is not None and self.monitor is not None:
                self.monitor.window_end(end.t)  # while the users still run
            if end is not None and (
                end_t - last.t > 0.05 or (self.coord.barrier and end_t > last.t)
            ):
                # The window's last fraction of a second gets its own sample: every second
                # of the window is stored (with a barrier always, as on every other host).
                emit_sample(time.monotonic(), end, end_counts, end_t)
        finally:
            self.stop_users()
            if own_reader:
                db.close()
        return self._summary(start, start_counts, end, end_counts, complete)

    def _say_start(self) -> None:
        """The step's ``start`` event (with a barrier: once its instant is known)."""
        self.out.emit(
            "step",
            phase="start",
            step=self.index,
            vus=self.vus,
            rampup_s=self.cfg.rampup_s,
            duration_s=self.cfg.duration_s,
            processes=self.nproc,
            **({"start_at": self.start_at} if self.start_at is not None else {}),
        )

    def _problems(self, start: Snapshot | None, end: Snapshot | None) -> list[str]:
        """Why a step that ran to its end must not count as complete ([] if it may)."""
        cfg = self.cfg
        problems: list[str] = []
        if self.stalled:
            problems.append(f"{self.stalled}: the step lost the database's counters")
        elif start is not None and end is None:
            problems.append(
                "the database did not answer when the step was stopped: the counters at the end"
                " of its measured window are lost"
            )
        tolerance = window_tolerance_s(cfg.duration_s)
        if start is not None and end is not None:
            seconds = end.t - start.t
            if seconds > cfg.duration_s + tolerance:
                problems.append(
                    f"the measured window lasted {seconds:.1f} s, {seconds - cfg.duration_s:.1f} s"
                    f" over the plan's {cfg.duration_s:g} s: the database did not answer in time"
                )
        if self.silent_in_window_s > tolerance and not self.stalled:
            problems.append(
                f"the database did not answer for {self.silent_in_window_s:.1f} s"
                " in the measured window"
            )
        lost = self.outages.problem(self.vus, time.monotonic())
        if lost:
            problems.append(lost)
        return problems

    def _summary(
        self,
        start: Snapshot | None,
        start_counts: list[int],
        end: Snapshot | None,
        end_counts: list[int],
        complete: bool,
    ) -> dict[str, Any]:
        problems = self._problems(start, end)
        summary: dict[str, Any] = {
            "step": self.index,
            "vus": self.vus,
            "rampup_s": self.cfg.rampup_s,
            "duration_s": self.cfg.duration_s,
            "complete": complete and not problems,
            "errors": self.step_errors,
            "nopm": None,
            "tpm": None,
            "nopm_driver": None,
            "window_s": 0.0,
            "counts": {},
            "rollbacks": 0,
            "latency_ms": {},
            "histograms": {},
        }
        if problems:
            summary["problems"] = problems
        summary.update(self.outages.summary_fields(time.monotonic()))
        if self.start_at is not None:
            summary.update(start_at=self.start_at, started_at=self.started_at)
        if start is None or end is None:
            return summary
        seconds = end.t - start.t
        delta = [a - b for a, b in zip(end_counts, start_counts, strict=True)]
        summary.update(
            window_s=round(seconds, 3),
            nopm=_per_minute(end.new_orders - start.new_orders, seconds),
            tpm=_per_minute(end.transactions - start.transactions, seconds),
            nopm_driver=_per_minute(delta[0], seconds),
            counts={k: delta[i] for i, k in enumerate(TX_KEYS)},
            rollbacks=delta[SLOT_ROLLBACK],
            error_count=delta[SLOT_ERRORS],
            latency_ms=hist.merged_summary(self.window_hists, self.window_sums),
            histograms={
                k: hist.encode(h) for k, h in self.window_hists.items() if h.get_total_count()
            },
        )
        if not self.coord.reads_counters:
            # A secondary host read no database counters: its figures are its driver's only.
            summary.update(nopm=None, tpm=None)
        if self.monitor is not None:
            summary.update(self.monitor.window_fields(start.t, end.t, summary["nopm"]))
        return summary


def run_sweep(
    cfg: RunConfig,
    engine: AgentEngine,
    out: EventWriter,
    stop: threading.Event,
    coord: Coordination | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    """Run every step; return the final status and the step summaries.

    ``coord``: this host's role and start barrier among several driver hosts (none: one host).
    """
    coord = coord or Coordination()
    for name in RunConfig.MULTI_HOST_FIELDS:
        given = getattr(cfg, name)
        if given and len(given) != len(cfg.virtual_users):
            raise EngineError(
                f"the configuration's {name} has {len(given)} entries for"
                f" {len(cfg.virtual_users)} steps"
            )
    steps: list[dict[str, Any]] = []
    monitor = start_monitor(cfg, engine, out)
    try:
        _run_steps(cfg, engine, out, stop, monitor, steps, coord)
    finally:
        if monitor is not None:
            monitor.close()
    status = "ok" if len(steps) == len(cfg.virtual_users) and not stop.is_set() else "stopped"
    return status, steps


def _run_steps(
    cfg: RunConfig,
    engine: AgentEngine,
    out: EventWriter,
    stop: threading.Event,
    monitor: Monitor | None,
    steps: list[dict[str, Any]],
    coord: Coordination,
) -> None:
    if monitor is not None:
        monitor.idle_baseline(out.emit, stop)
    # The database is the primary's to reset and describe (one host: this one).
    primary = coord.reads_counters
    reset = cfg.reset_between_steps and engine.supports_template and primary
    if cfg.reset_between_steps and not engine.supports_template:
        out.emit(
            "log",
            level="warning",
            message=f"reset_between_steps is not supported on {engine.name}: every step runs"
            " on the data the previous steps left",
        )

    def between(action: Callable[[], None], what: str, index: int) -> bool:
        """``action`` on the database between steps, watched (:mod:`.between_steps`); False
        when the run was stopped first. A server away for the stall limit ends the run."""
        try:
            return watched(
                action,
                what=what,
                engine=engine,
                emit=out.emit,
                stop=stop,
                monitor=monitor,
                limit_s=float(cfg.db_stall_limit_s),
            )
        except DatabaseAway as exc:
            kept = len(steps)
            raise DatabaseStalled(
                f"{exc}: the run ends here, before step {index + 1}"
                f" ({cfg.virtual_users[index]} VU), with {kept} finished"
                f" step{'' if kept == 1 else 's'} kept",
                steps,
            ) from None

    if reset:
        found: list[bool] = []
        what = f"looking for template {engine.template}"
        # (A run stopped meanwhile ends at the loop's first check.)
        looked = between(lambda: found.append(engine.database_exists(engine.template)), what, 0)
        if looked and not found[0]:
            what = f"creating template {engine.template}"
            out.emit("log", level="info", message=what)
            engine.close_monitor()
            between(engine.make_template, what, 0)
    for index, vus in enumerate(cfg.virtual_users):
        if stop.is_set():
            break
        if reset:
            what = f"step {index + 1}: resetting {cfg.database} from {engine.template}"
            out.emit("log", level="info", message=what)
            if not between(engine.reset_from_template, what, index):
                break  # stopped while the server was busy or away
        # The test schema (rows, size) as the first step finds it, and after the last step.
        start: dict[str, Any] = {}
        if index == 0 and primary:
            start = _schema_before_step_1(engine, out, stop, between)
            if stop.is_set():
                break
        step = Step(cfg, engine, out, stop, index, vus, monitor, coord=coord)
        try:
            summary = step.run()
        except BarrierTimeout as exc:
            kept = len(steps)
            raise RunCut(
                f"{exc}; the run ends here with {kept} finished step{'' if kept == 1 else 's'}",
                steps,
                code=exc.code,
            ) from None
        except StoppedAtBarrier:
            break
        summary.update(start)
        last = stop.is_set() or index == len(cfg.virtual_users) - 1
        if primary and not step.stalled and last:
            summary["after_run"] = engine.after_run_facts(out.emit, stop)
        steps.append(summary)
        out.emit("step", phase="end", step=index, vus=vus, summary=summary)
        if step.stalled:
            kept = len(steps) - 1
            raise DatabaseStalled(
                f"{step.stalled}: the run ends here, step {index + 1} ({vus} VU) failed"
                f" and {kept} finished step{'' if kept == 1 else 's'} kept",
                steps,
            )
    engine.close_monitor()


def _schema_before_step_1(
    engine: AgentEngine,
    out: EventWriter,
    stop: threading.Event,
    between: Callable[[Callable[[], None], str, int], bool],
) -> dict[str, Any]:
    """The test schema as step 1 finds it, measured under the run's watch (``between``); its
    log lines are held and written from the run's thread (the event writer has one)."""
    held: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    facts: dict[str, Any] = {}

    def hold(*args: Any, **kwargs: Any) -> None:
        held.append((args, kwargs))

    def measure() -> None:
        facts.update(engine.schema_facts(hold, stop, "before step 1"))

    between(measure, "measuring the test schema before step 1", 0)
    for args, kwargs in held:
        out.emit(*args, **kwargs)
    return facts


def sweep_message(status: str, steps: list[dict[str, Any]]) -> str:
    """The ``done`` message of a sweep: its outcome, and each step that does not count."""
    text = "sweep complete" if status == "ok" else "stopped by request"
    flagged = [
        f"step {s.get('step', 0) + 1} ({s.get('vus')} VU): {'; '.join(s['problems'])}"
        for s in steps
        if s.get("problems")
    ]
    return f"{text}; not counted: {' | '.join(flagged)}" if flagged else text


# ---- host metrics and power (bench_gui.agent.hostmetrics, bench_gui.agent.power) -------------


def start_monitor(cfg: RunConfig, engine: AgentEngine, out: EventWriter) -> Monitor | None:
    """Host metrics and the power meter for the sweep, started; None when neither is wanted.

    With no devices chosen, the block devices are those the database's data directory, WAL
    and tablespaces live on, when the agent runs on the database's host. A power meter that
    gives no reading now stops the run before it starts (a sweep without the power it was
    meant to measure is of no use).
    """
    wanted = cfg.monitor.get("enabled", True) is not False
    if not wanted and str(cfg.power.get("meter") or "none") == "none":
        return None
    paths: list[str] = []
    if wanted and not cfg.monitor.get("devices"):
        paths = engine.data_paths()
    return open_monitor(cfg, out, paths)


def open_monitor(cfg: RunConfig, out: EventWriter, paths: list[str]) -> Monitor | None:
    """Host metrics (the block devices under ``paths`` unless the plan names some) and the
    power meter, started; None when neither is wanted. Raises EngineError like
    :func:`start_monitor` (every workload's sweep starts its monitor here)."""
    wanted = cfg.monitor.get("enabled", True) is not False
    if not wanted and str(cfg.power.get("meter") or "none") == "none":
        return None
    try:
        monitor = Monitor.from_config(cfg.monitor, cfg.power, paths)
    except (MeterError, OSError, ValueError) as exc:
        raise EngineError(str(exc)) from exc
    try:
        monitor.start()
    except (MeterError, OSError, ValueError) as exc:
        monitor.close()
        raise EngineError(str(exc)) from exc
    for note in monitor.notes:
        out.emit("log", level="info", message=note)
    return monitor


__all__ = [
    "DatabaseStalled",
    "RunCut",
    "EngineError",
    "RunConfig",
    "Step",
    "StepFailed",
    "open_monitor",
    "run_sweep",
    "sweep_message",
]
