"""The random-read sweep of seed 004 on the target host: one fio run per dataset size.

Order of a run: the study is checked (:mod:`bench_gui.workloads.random_read.agent.study`),
``hello`` says what
it is (fio's version, the RAM, the file, whether caches are dropped), host metrics and power
start as for TPROC-C (an idle power baseline first when a meter is set), the data file is
written or reused (``progress`` task ``prepare``), the raw-IOPS pass measures the device
(``progress`` task ``raw_iops``), then for each dataset size: the page cache is dropped, a
``step`` starts, fio runs in its memory cgroup with its warm-up and measured window, each of
its status objects becomes a ``sample``, and its final result the ``step`` summary. The event
fields are listed in :mod:`bench_gui.workloads.random_read.agent` (the package docstring).
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

from bench_gui.agent.driver import open_monitor, window_tolerance_s
from bench_gui.agent.hostmetrics import Monitor
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.fio_sizes import RANDOM_READ_FIELDS, format_size
from bench_gui.wire.hostinfo import os_knobs
from bench_gui.wire.names import AGENT_VERSION
from bench_gui.wire.protocol import EventWriter
from bench_gui.wire.run_config import RunConfig
from bench_gui.workloads.random_read.agent.cgroup import CgroupError, MemoryCgroup
from bench_gui.workloads.random_read.agent.dataset import DatasetError, drop_caches, prepare
from bench_gui.workloads.random_read.agent.residency import cached_bytes
from bench_gui.workloads.random_read.agent.runner import FioError, FioProcess
from bench_gui.workloads.random_read.agent.status import (
    Reading,
    Second,
    SecondTracker,
    reading,
    window_result,
)
from bench_gui.workloads.random_read.agent.study import Point, Study, StudyError
from bench_gui.workloads.random_read.agent.warmup import SteadyJudge

WORKLOAD = "random_read"
# A status interval shorter than this (fio's final object, just after its last status) is
# not a second of its own.
MIN_SAMPLE_S = 0.25
# Expected failures: an error event and a done, no traceback.
EXPECTED = (StudyError, FioError, DatasetError, CgroupError, EngineError)
# The fields of RunConfig a random-read run uses (the hello's ``config``).
CONFIG_FIELDS = ("action", "kind", *RANDOM_READ_FIELDS, "monitor", "power")


def lock_key() -> tuple[str, list[str]]:
    """(label, keys) of the run lock: one random-read run per host (the page cache, its
    dropping and the memory pressure are the host's, whatever the file)."""
    import socket

    return f"random reads on {socket.gethostname()}", ["random-read"]


class Seconds:
    """fio's status objects of one run as whole seconds: each tick is ``(now, second)``, the
    second None between them (fio's tick without an object, a short final interval); the
    last reading stays in :attr:`last` for the run's result. One reader for the raw pass,
    the warm-up and the measured window, so the three count a second the same way."""

    def __init__(self, run: FioProcess, warmup_s: float = 0.0) -> None:
        self.run = run
        self.tracker = SecondTracker(warmup_s)
        self.last: Reading | None = None

    def ticks(
        self, stop: threading.Event, deadline: float
    ) -> Iterator[tuple[float, Second | None]]:
        for obj in self.run.objects(stop, deadline):
            now = time.monotonic()
            found = reading(obj) if obj is not None else None
            second = None
            if found is not None:
                self.last = found
                second = self.tracker.push(found)
                if second is not None and second.seconds < MIN_SAMPLE_S:
                    second = None
            yield now, second

    def whole(self, stop: threading.Event, deadline: float) -> Iterator[tuple[float, Second]]:
        """Only the whole seconds."""
        for now, second in self.ticks(stop, deadline):
            if second is not None:
                yield now, second


class Sweep:
    """The passes of one run over a checked :class:`Study`."""

    def __init__(
        self, study: Study, out: EventWriter, stop: threading.Event, monitor: Monitor | None
    ) -> None:
        self.study = study
        self.out = out
        self.stop = stop
        self.monitor = monitor
        self.raw: dict[str, Any] | None = None
        self.steps: list[dict[str, Any]] = []
        # The data's resident bytes when the current point's warm-up judged it warm.
        self.warm_cache: int | None = None

    @property
    def jobs(self) -> int:
        return self.study.cfg.jobs

    def run(self) -> str:
        """Every pass; the final status ("ok" or "stopped")."""
        if self.monitor is not None:
            self.monitor.idle_baseline(self.out.emit, self.stop)
        self.prepare_file()
        if not self.stop.is_set():
            self.raw = self.raw_pass()
        for index, point in enumerate(self.study.points):
            if self.stop.is_set():
                break
            summary = self.point(index, point)
            self.steps.append(summary)
            self.out.emit("step", phase="end", step=index, vus=self.jobs, summary=summary)
        done = len(self.steps) == len(self.study.points) and not self.stop.is_set()
        return "ok" if done else "stopped"

    # -- the data file ------------------------------------------------------------------------

    def prepare_file(self) -> None:
        study = self.study

        def progress(**fields: Any) -> None:
            self.out.emit("progress", task="prepare", unit="bytes", **fields)

        prepared = prepare(
            study.file, study.file_bytes, study.fio, progress, self.stop, study.fio_version
        )
        if prepared.reused:
            message = (
                f"reusing the data file {study.file} ({format_size(prepared.size_bytes)},"
                " written whole by an earlier run)"
            )
        else:
            message = (
                f"data file {study.file} written: {format_size(prepared.size_bytes)} in"
                f" {prepared.seconds:.1f} s"
            )
        self.out.emit("log", level="info", message=message)

    # -- the raw-IOPS pass --------------------------------------------------------------------

    def raw_pass(self) -> dict[str, Any] | None:
        """The device's own random-read IOPS (direct I/O, no cache): the multiplier's base."""
        study = self.study
        total = float(study.cfg.raw_iops_s)
        if total <= 0:
            self.out.emit(
                "log",
                level="info",
                message="raw-IOPS pass skipped (workload.raw_iops_s = 0): no multipliers",
            )
            return None
        run = FioProcess(study.raw_argv())
        stream = Seconds(run)
        for _, second in stream.whole(self.stop, run.started + total + 120):
            self.out.emit(
                "progress",
                task="raw_iops",
                done=round(min(total, time.monotonic() - run.started), 1),
                total=total,
                unit="s",
                rate=round(second.ops_s, 1),
                message=f"raw device IOPS ({study.raw_method()})",
            )
        if self.stop.is_set():
            return None
        last = stream.last
        if run.proc.returncode != 0 or last is None:
            error = run.failure("the raw-IOPS pass failed")
            if any("direct" in line for line in run.stderr_lines):
                error = FioError(
                    f"{error}; the filesystem under {study.file} may not support direct I/O"
                    " (tmpfs does not): set workload.raw_iops_s = 0 to skip the pass"
                )
            raise error
        result = window_result(last)
        record = {
            "iops": result.ops_s,
            "mbs": result.mbs,
            "seconds": result.window_s,
            "latency_ms": result.latency_ms,
            "block_size": 4096,
            "direct": True,
            "method": study.raw_method(),
        }
        self.out.emit(
            "progress",
            task="raw_iops",
            stage="done",
            done=total,
            total=total,
            unit="s",
            rate=result.ops_s,
            message=f"raw device IOPS: {result.ops_s:,.0f} ({study.raw_method()})",
            raw_iops=record,
        )
        self.out.emit(
            "log",
            level="info",
            message=f"raw device IOPS {result.ops_s:,.0f} over {result.window_s:.1f} s"
            f" ({study.raw_method()}) on {study.file}",
        )
        return record

    # -- one dataset size ---------------------------------------------------------------------

    def point(self, index: int, point: Point) -> dict[str, Any]:
        study = self.study
        if study.drop_caches:
            drop_caches()
        group = (
            MemoryCgroup(study.memory.bytes, study.memory.hierarchy)
            if (study.memory.limited)
            else None
        )
        try:
            return self._point(index, point, group)
        finally:
            if group is not None:
                group.remove()

    def _point(self, index: int, point: Point, group: MemoryCgroup | None) -> dict[str, Any]:
        study, cfg = self.study, self.study.cfg
        ratio = round(point.bytes / study.memory.bytes, 4)
        self.out.emit(
            "step",
            phase="start",
            step=index,
            vus=self.jobs,
            rampup_s=cfg.warmup_s,
            duration_s=cfg.measure_s,
            workload=WORKLOAD,
            dataset_bytes=point.bytes,
            dataset_label=point.label,
            ram_ratio=ratio,
        )
        taken, warm = 0.0, None
        if cfg.warmup_s > 0:
            taken, warm = self._warm_up(index, point, group)
            if self.stop.is_set():
                return self._stopped_in_warmup(index, point, ratio, taken)
        argv = study.point_argv(point)
        run = FioProcess(group.wrap(argv) if group is not None else argv)
        t0 = run.started
        window_open = t0
        window_close = window_open + cfg.measure_s
        deadline = window_close + max(60.0, 0.1 * cfg.measure_s)
        stream = Seconds(run)
        opened: float | None = None
        closed: float | None = None
        monitor = self.monitor
        for now, second in stream.ticks(self.stop, deadline):
            if monitor is not None and opened is None and now >= window_open:
                monitor.window_start()
                opened = now
            if (
                monitor is not None
                and opened is not None
                and closed is None
                and (now >= window_close)
            ):
                monitor.window_end(now)
                closed = now
            if second is None:
                continue
            self._sample(
                index,
                point,
                group,
                second,
                second.phase,
                elapsed=taken + now - t0,
                remaining=max(0.0, window_close - now),
            )
        last = stream.last
        end = time.monotonic()
        if monitor is not None and opened is not None and closed is None:
            monitor.window_end(end)
            closed = end
        code = run.proc.returncode
        if last is None or (code != 0 and not run.interrupted):
            raise run.failure(f"fio failed at dataset size {point.label}")
        if last.error:
            raise FioError(
                f"fio reported error {last.error} ({os.strerror(last.error)}) at dataset size"
                f" {point.label}"
            )
        summary = self._summary(
            index, point, ratio, last, stream.tracker.measuring, run.interrupted
        )
        summary.update(warmup_taken_s=round(taken, 1), warm=warm, warm_cache_bytes=self.warm_cache)
        if warm is False:
            self.out.emit(
                "log",
                level="warning",
                message=f"point {index + 1} ({point.label}): not steady after the"
                f" {cfg.warmup_s:g} s warm-up cap: measured before its cache was warm",
            )
        # The data's share of the cache as the point ended (fio's own memory is charged to
        # the same limit): the RAM the study really gave the data, read after fio exited.
        summary["data_cache_bytes"] = cached_bytes(study.file)
        if group is not None:
            summary["memory_peak_bytes"] = group.peak_bytes()
        if monitor is not None and opened is not None and closed is not None:
            summary.update(monitor.window_fields(opened, closed, None))
        return summary

    def _warm_up(
        self, index: int, point: Point, group: MemoryCgroup | None
    ) -> tuple[float, bool | None]:
        """Warm the point's cache until its major faults/s and ops/s settle, at most the
        warm-up (``warmup_s``); samples of phase "warmup" meanwhile. (seconds taken, steady:
        True, False when the cap came first, None when stopped)."""
        study, cfg = self.study, self.study.cfg
        self.warm_cache = None
        argv = study.point_argv(point, "warmup")
        run = FioProcess(group.wrap(argv) if group is not None else argv)
        t0 = run.started
        judge = SteadyJudge()
        steady_at: float | None = None
        stream = Seconds(run)
        for now, second in stream.whole(self.stop, t0 + cfg.warmup_s + 60.0):
            faults_s = second.major_faults / second.seconds
            # Read outside fio's cgroup, in the warm-up only: the measured window pays nothing.
            cached = cached_bytes(study.file)
            if judge.push(second.ops_s, faults_s, cached) and steady_at is None:
                steady_at = now - t0
                self.warm_cache = cached
                run.interrupt()  # warm: on to the measured window
            self._sample(
                index,
                point,
                group,
                second,
                "warmup",
                elapsed=now - t0,
                remaining=max(0.0, cfg.warmup_s - (now - t0)) + cfg.measure_s,
            )
        last = stream.last
        taken = time.monotonic() - t0
        if self.stop.is_set():
            return taken, None
        if last is None or (run.proc.returncode != 0 and not run.interrupted):
            raise run.failure(f"fio failed warming dataset size {point.label}")
        return (steady_at, True) if steady_at is not None else (taken, False)

    def _sample(
        self,
        index: int,
        point: Point,
        group: MemoryCgroup | None,
        second: Second,
        phase: str,
        *,
        elapsed: float,
        remaining: float,
    ) -> None:
        """One second of a point as a ``sample`` event (the warm-up's carry no latency: fio
        records none before its counters reset)."""
        latency = second.latency_ms if phase != "warmup" else None
        fields: dict[str, Any] = {
            "step": index,
            "vus": self.jobs,
            "phase": phase,
            "elapsed": round(elapsed, 3),
            "remaining": round(remaining, 3),
            "workload": WORKLOAD,
            "ops_s": round(second.ops_s, 1),
            "mbs": round(second.mbs, 3),
            "counts": {"read": second.ios},
            "errors": {},
            "latency_ms": {"read": latency} if latency else {},
            "major_faults_s": round(second.major_faults / second.seconds, 1),
            "dataset_bytes": point.bytes,
        }
        if group is not None:
            fields["memory_used_bytes"] = group.usage_bytes()
        if self.monitor is not None:
            fields.update(self.monitor.sample_fields())
        self.out.emit("sample", **fields)

    def _stopped_in_warmup(
        self, index: int, point: Point, ratio: float, taken: float
    ) -> dict[str, Any]:
        summary = self._summary(index, point, ratio, None, False, True)
        summary.update(warmup_taken_s=round(taken, 1), warm=None)
        return summary

    def _summary(
        self,
        index: int,
        point: Point,
        ratio: float,
        final: Reading | None,
        measured: bool,
        interrupted: bool,
    ) -> dict[str, Any]:
        study, cfg = self.study, self.study.cfg
        summary: dict[str, Any] = {
            "step": index,
            "vus": self.jobs,
            "workload": WORKLOAD,
            "dataset_bytes": point.bytes,
            "dataset_label": point.label,
            "ram_multiple": point.multiple,
            "ram_ratio": ratio,
            "memory_bytes": study.memory.bytes,
            "memory_source": study.memory.source,
            "caches_dropped": study.drop_caches,
            "rampup_s": cfg.warmup_s,
            "duration_s": cfg.measure_s,
            "ops_s": None,
            "mbs": None,
            "window_s": 0.0,
            "counts": {},
            "errors": {},
            "latency_ms": {},
            "raw_iops": self.raw["iops"] if self.raw else None,
            "multiplier": None,
            "complete": False,
        }
        problems: list[str] = []
        if not measured or final is None:
            problems.append("stopped in the warm-up: nothing was measured")
        else:
            result = window_result(final)
            summary.update(
                ops_s=result.ops_s,
                mbs=result.mbs,
                window_s=result.window_s,
                counts={"read": result.ios},
                latency_ms={"read": result.latency_ms} if result.latency_ms else {},
                major_faults=result.major_faults,
                major_faults_s=round(result.major_faults / result.window_s, 1)
                if result.window_s
                else None,
                fio_cpu={"usr": result.usr_cpu, "sys": result.sys_cpu},
            )
            if self.raw and self.raw.get("iops"):
                summary["multiplier"] = round(result.ops_s / float(self.raw["iops"]), 3)
            short = cfg.measure_s - result.window_s
            if short > window_tolerance_s(cfg.measure_s):
                why = "stopped" if interrupted else "fio ended early"
                problems.append(
                    f"{why}: the measured window lasted {result.window_s:.1f} s of the planned"
                    f" {cfg.measure_s:g} s"
                )
        if problems:
            summary["problems"] = problems
        summary["complete"] = not problems
        return summary


def _public_config(cfg: RunConfig) -> dict[str, Any]:
    data = dataclasses.asdict(cfg)
    return {k: data.get(k) for k in CONFIG_FIELDS if k in data}


def done_message(status: str, steps: list[dict[str, Any]]) -> str:
    """The ``done`` message: the outcome, and every dataset size that does not count."""
    text = "sweep complete" if status == "ok" else "stopped by request"
    flagged = [
        f"point {s.get('step', 0) + 1} ({s.get('dataset_label')}): {'; '.join(s['problems'])}"
        for s in steps
        if s.get("problems")
    ]
    return f"{text}; not counted: {' | '.join(flagged)}" if flagged else text


def _monitored(cfg: RunConfig, study: Study) -> RunConfig:
    """The run's config with host metrics on the file's device when the plan names none."""
    monitor = dict(cfg.monitor)
    if monitor.get("enabled", True) is not False and not monitor.get("devices"):
        device = study.record().get("device")
        if device:
            monitor["devices"] = [device]
    return dataclasses.replace(cfg, monitor=monitor)


def run_random_read(
    cfg: RunConfig,
    out: EventWriter,
    stop: threading.Event,
    hello_extra: dict[str, Any] | None = None,
) -> int:
    """A random-read run from check to ``done``; the process exit code (0 ran, 2 expected
    failure, 3 unexpected)."""
    sweep: Sweep | None = None
    try:
        study = Study.check(cfg)
        out.emit(
            "hello",
            agent_version=AGENT_VERSION,
            engine="fio",
            workload=WORKLOAD,
            pid=os.getpid(),
            config=_public_config(cfg),
            os_knobs=os_knobs(),
            fio_version=study.fio_version,
            random_read=study.record(),
            **(hello_extra or {}),
        )
        for note in study.notes:
            out.emit("log", level="warning", message=note)
        out.emit(
            "log",
            level="info",
            message=f"{study.fio_version}; RAM for the study: {study.memory.label};"
            f" {len(study.points)} dataset sizes up to {format_size(study.file_bytes)}",
        )
        monitor = open_monitor(_monitored(cfg, study), out, [])
        sweep = Sweep(study, out, stop, monitor)
        try:
            status = sweep.run()
        finally:
            if monitor is not None:
                monitor.close()
        if stop.is_set():
            out.emit("log", level="warning", message="stop requested: run ended early")
        out.emit("summary", steps=sweep.steps, status=status, workload=WORKLOAD, raw_iops=sweep.raw)
        out.emit("done", status=status, message=done_message(status, sweep.steps))
        return 0
    except EXPECTED as exc:
        out.emit("error", message=str(exc), fatal=True)
        if sweep is not None and sweep.steps:
            out.emit(
                "summary",
                steps=sweep.steps,
                status="failed",
                workload=WORKLOAD,
                raw_iops=sweep.raw,
            )
        out.emit("done", status="stopped" if stop.is_set() else "failed", message=str(exc))
        return 2
    except Exception as exc:  # noqa: BLE001 - the top level: a fatal error event + traceback
        return out.crash(exc)


__all__ = ["WORKLOAD", "Sweep", "done_message", "lock_key", "run_random_read"]


class _RandomReadAgent:
    """This kit's agent side as :class:`bench_gui.agent.workloads.AgentWorkload`."""

    single_host = True

    def lock_key(self) -> tuple[str, list[str]]:
        return lock_key()

    def run(
        self,
        cfg: RunConfig,
        out: EventWriter,
        stop: threading.Event,
        hello_extra: dict[str, Any] | None = None,
    ) -> int:
        return run_random_read(cfg, out, stop, hello_extra)


# Named in bench_gui.agent.workloads.AGENT_WORKLOADS.
AGENT_WORKLOAD = _RandomReadAgent()
