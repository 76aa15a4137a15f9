"""What a random-read run will do, settled before it starts: fio, RAM, dataset sizes, caches.

Everything that can refuse the run is checked here, before the ``hello``: fio and its engines,
the memory limit (a cgroup is made and removed once, so a host that cannot do it says so
now), the right to drop the page cache, the file's place. The result is the :class:`Study`
the sweep runs, and the record the session keeps (the hello's ``random_read``).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from typing import Any, Final

from bench_gui.wire.fio_sizes import MIB, format_multiple, format_size, parse_size
from bench_gui.wire.run_config import RunConfig
from bench_gui.workloads.random_read.agent.cgroup import (
    CgroupError,
    Hierarchy,
    MemoryCgroup,
    find_hierarchy,
    inherited_limit,
    machine_ram,
)
from bench_gui.workloads.random_read.agent.dataset import can_drop_caches, file_size_for
from bench_gui.workloads.random_read.agent.runner import fio_engines, fio_path, fio_version

IOENGINES: Final = ("mmap", "psync", "libaio")
# The raw-IOPS pass: 4 KiB direct random reads, queue depth 32 (libaio), or 32 jobs (psync).
RAW_BLOCK: Final = 4096
RAW_QUEUE: Final = 32


class StudyError(RuntimeError):
    """The run cannot start as planned; the message names the field or what is missing."""


@dataclass(frozen=True)
class Point:
    """One dataset size of the sweep."""

    bytes: int
    label: str  # "0.25x RAM (64 MiB)" or "512 MiB"
    multiple: float | None  # the plan's RAM multiple, None for an absolute size


@dataclass(frozen=True)
class Memory:
    """The RAM the study is about."""

    bytes: int
    source: str  # "machine", "agent_cgroup" (the agent's own limit), "cgroup_limit" (the plan's)
    label: str  # "machine: 24 GiB", "cgroup limit: 256 MiB"
    machine_bytes: int
    hierarchy: Hierarchy | None = None

    @property
    def limited(self) -> bool:
        return self.source == "cgroup_limit"

    def record(self) -> dict[str, Any]:
        return {
            "bytes": self.bytes,
            "source": self.source,
            "label": self.label,
            "machine_bytes": self.machine_bytes,
            "cgroup_version": self.hierarchy.version if self.hierarchy else None,
        }


def _memory(limit_text: str) -> Memory:
    machine = machine_ram()
    try:
        hierarchy: Hierarchy | None = find_hierarchy()
    except CgroupError:
        if limit_text:
            raise
        hierarchy = None
    inherited = inherited_limit(hierarchy) if hierarchy is not None else None
    available = min(machine, inherited) if inherited else machine
    if not limit_text:
        if inherited is not None and inherited < machine:
            label = f"the agent's cgroup limit: {format_size(inherited)}"
            return Memory(inherited, "agent_cgroup", label, machine, hierarchy)
        return Memory(machine, "machine", f"machine: {format_size(machine)}", machine, hierarchy)
    try:
        limit = parse_size(limit_text)
    except ValueError as exc:
        raise StudyError(f"workload.memory_limit: {exc}") from None
    if limit > available:
        raise StudyError(
            f"workload.memory_limit {format_size(limit)} is more than the"
            f" {format_size(available)} this host gives the agent: it would limit nothing"
        )
    assert hierarchy is not None
    MemoryCgroup(limit, hierarchy).remove()  # can a group be made and limited here?
    return Memory(limit, "cgroup_limit", f"cgroup limit: {format_size(limit)}", machine, hierarchy)


def _points(sizes: list[Any], memory: Memory, block: int) -> list[Point]:
    points: list[Point] = []
    for item in sizes:
        if isinstance(item, int | float) and not isinstance(item, bool):
            size = max(MIB, round(float(item) * memory.bytes / MIB) * MIB)
            label = f"{format_multiple(float(item))} ({format_size(size)})"
            points.append(Point(size, label, float(item)))
        else:
            try:
                size = parse_size(item)
            except ValueError as exc:
                raise StudyError(f"workload.dataset_sizes: {exc}") from None
            size = max(block, size - size % block)
            points.append(Point(size, format_size(size), None))
    if not points:
        raise StudyError("workload.dataset_sizes is empty: name at least one dataset size")
    return points


@dataclass
class Study:
    """A random-read run, checked and resolved on the host it runs on."""

    cfg: RunConfig
    fio: str
    fio_version: str
    engines: set[str]
    memory: Memory
    block_size: int
    points: list[Point]
    file: str
    file_bytes: int
    drop_caches: bool
    raw_engine: str
    notes: list[str] = field(default_factory=list)

    @classmethod
    def check(cls, cfg: RunConfig) -> Study:
        """Everything checked (see the module docstring); :class:`StudyError` when not."""
        if cfg.action != "run":
            raise StudyError(f"a random_read workload can only be run, not {cfg.action!r}")
        if not cfg.file or not os.path.isabs(cfg.file):
            raise StudyError(
                f"workload.file must be an absolute path on this host, got {cfg.file!r}"
            )
        if cfg.ioengine not in IOENGINES:
            raise StudyError(f"workload.ioengine must be one of {', '.join(IOENGINES)}")
        fio = fio_path()
        version = fio_version(fio)
        engines = fio_engines(fio)
        if cfg.ioengine not in engines:
            raise StudyError(
                f"this fio ({version}) has no {cfg.ioengine} engine: choose another"
                " workload.ioengine"
            )
        try:
            block = parse_size(cfg.block_size)
        except ValueError as exc:
            raise StudyError(f"workload.block_size: {exc}") from None
        try:
            memory = _memory(cfg.memory_limit)
        except CgroupError as exc:
            raise StudyError(str(exc)) from None
        points = _points(list(cfg.dataset_sizes), memory, block)
        notes: list[str] = []
        if cfg.drop_caches:
            reason = can_drop_caches()
            if reason:
                raise StudyError(
                    f"{reason}: run the agent as root, or set workload.drop_caches = false"
                    " (the session is then marked: page cache not dropped)"
                )
        else:
            notes.append(
                "page cache not dropped between points (workload.drop_caches = false): only"
                " fio's own invalidation of the file's cached pages cleans it"
            )
        return cls(
            cfg=cfg,
            fio=fio,
            fio_version=version,
            engines=engines,
            memory=memory,
            block_size=block,
            points=points,
            file=cfg.file,
            file_bytes=file_size_for(max(p.bytes for p in points)),
            drop_caches=bool(cfg.drop_caches),
            raw_engine="libaio" if "libaio" in engines else "psync",
            notes=notes,
        )

    # -- fio's command lines --------------------------------------------------------------------

    def point_argv(self, point: Point, phase: str = "measure") -> list[str]:
        """fio for one dataset size: the seed's reads, fio's JSON status every second.

        ``phase`` "warmup": the warm-up run (the cache dropped and filled, for at most the
        warm-up, stopped once steady: see :mod:`bench_gui.workloads.random_read.agent.warmup`);
        "measure": the
        measured window, on the cache the warm-up left (not invalidated) when there was one.

        ``zipf:THETA:0`` fixes the distribution's offset, so every job shares one hot set (the
        seed's eight threads draw from one scrambled Zipfian); without it each job would pick a
        random offset and the hot set would be eight times larger.
        """
        cfg = self.cfg
        argv = [
            self.fio,
            "--name=bench-gui-random-read",
            f"--filename={self.file}",
            f"--size={point.bytes}",
            "--rw=randread",
            f"--random_distribution=zipf:{cfg.zipf_theta:g}:0",
            f"--bs={self.block_size}",
            f"--numjobs={cfg.jobs}",
            f"--ioengine={cfg.ioengine}",
            f"--direct={1 if cfg.direct else 0}",
            f"--invalidate={0 if phase == 'measure' and cfg.warmup_s > 0 else 1}",
            "--group_reporting",
            "--output-format=json+",
            "--status-interval=1",
            "--time_based",
            f"--runtime={round((cfg.warmup_s if phase == 'warmup' else cfg.measure_s) * 1000)}ms",
        ]
        return argv

    def raw_argv(self) -> list[str]:
        """The raw-IOPS pass: uniform 4 KiB direct random reads over the whole file."""
        argv = [
            self.fio,
            "--name=bench-gui-raw-iops",
            f"--filename={self.file}",
            f"--size={self.file_bytes}",
            "--rw=randread",
            f"--bs={RAW_BLOCK}",
            "--direct=1",
            "--norandommap",
            "--randrepeat=0",
            "--group_reporting",
            "--output-format=json+",
            "--status-interval=1",
            "--time_based",
            f"--runtime={round(self.cfg.raw_iops_s * 1000)}ms",
        ]
        if self.raw_engine == "libaio":
            argv += ["--ioengine=libaio", f"--iodepth={RAW_QUEUE}", "--numjobs=1"]
        else:
            argv += ["--ioengine=psync", f"--numjobs={RAW_QUEUE}"]
        return argv

    def raw_method(self) -> str:
        if self.raw_engine == "libaio":
            return f"4 KiB random reads, direct I/O, libaio queue depth {RAW_QUEUE}"
        return f"4 KiB random reads, direct I/O, {RAW_QUEUE} psync jobs"

    # -- what the session keeps -------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The hello's ``random_read``: what this run is, for the session and its report."""
        cfg = self.cfg
        return {
            "file": self.file,
            "file_bytes": self.file_bytes,
            "device": device_of(self.file),
            "points": [
                {"bytes": p.bytes, "label": p.label, "multiple": p.multiple} for p in self.points
            ],
            "memory": self.memory.record(),
            "caches_dropped": self.drop_caches,
            "block_size": self.block_size,
            "jobs": cfg.jobs,
            "ioengine": cfg.ioengine,
            "direct": bool(cfg.direct),
            "zipf_theta": cfg.zipf_theta,
            "warmup_s": cfg.warmup_s,
            "measure_s": cfg.measure_s,
            "raw_iops_s": cfg.raw_iops_s,
            "raw_method": self.raw_method() if cfg.raw_iops_s > 0 else None,
            # fio's options for every point; the --size is each point's dataset bytes.
            "fio_command": [
                "--size=<dataset bytes>" if a.startswith("--size=") else a
                for a in self.point_argv(self.points[0])[1:]
            ],
            # Before it, each point is warmed by this (stopped once steady, at most warmup_s).
            "fio_warmup_command": [
                "--size=<dataset bytes>" if a.startswith("--size=") else a
                for a in self.point_argv(self.points[0], "warmup")[1:]
            ]
            if cfg.warmup_s > 0
            else None,
            "warmup": "until steady" if cfg.warmup_s > 0 else "none",
        }


def device_of(path: str) -> str | None:
    """The block device a path's filesystem is on (``loop0``, ``nvme0n1p2``), if it can be told."""
    from bench_gui.agent.hostmetrics import BlockTopology

    folder = os.path.dirname(path) or "."
    with contextlib.suppress(OSError):
        return BlockTopology().device_of(folder)
    return None


__all__ = ["IOENGINES", "Memory", "Point", "Study", "StudyError", "device_of"]
