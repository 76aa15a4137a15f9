"""The study's data file, written once at the largest dataset size and kept; and the page cache
dropped between points.

The file is written in full by fio (1 MiB sequential writes of fio's random, scrambled data,
then fsync): a sparse or merely fallocated file would be read without device I/O (unwritten
extents read as zeros), and zeros would let a compressing filesystem or device skip the read.
A marker beside it (``FILE.bench-gui.json``: size, inode, mtime) says it was written whole;
the next run reuses the file when the marker matches and the file is at least as large as it
needs, rewrites it when it does not, and refuses a file that bench-gui did not write.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from bench_gui.wire.fio_sizes import MIB, format_size
from bench_gui.workloads.random_read.agent.runner import FioProcess

MARKER_SUFFIX: Final = ".bench-gui.json"
DROP_CACHES: Final = "/proc/sys/vm/drop_caches"

Progress = Callable[..., Any]


class DatasetError(RuntimeError):
    """The data file cannot be prepared or the cache cannot be dropped; says why and what to do."""


@dataclass(frozen=True)
class Prepared:
    """The data file ready for the sweep."""

    path: str
    size_bytes: int  # its size (at least what the sweep needs)
    reused: bool
    seconds: float  # how long writing took (0 when reused)


def marker_path(path: str) -> str:
    return path + MARKER_SUFFIX


def _marker(path: str) -> dict[str, Any] | None:
    try:
        with open(marker_path(path), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def reusable(path: str, needed: int) -> bool:
    """Whether ``path`` is a whole file bench-gui wrote, of at least ``needed`` bytes."""
    marker = _marker(path)
    try:
        st = os.stat(path)
    except OSError:
        return False
    return (
        marker is not None
        and marker.get("size") == st.st_size
        and marker.get("inode") == st.st_ino
        and marker.get("mtime_ns") == st.st_mtime_ns
        and st.st_size >= needed
        # Every block really allocated: a file with holes reads them without I/O.
        and st.st_blocks * 512 >= st.st_size
    )


def file_size_for(largest: int) -> int:
    """The file's size for a largest dataset: whole MiB (fio writes 1 MiB at a time)."""
    return -(-largest // MIB) * MIB


def _check_place(path: str, size: int) -> None:
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise DatasetError(
            f"the folder of workload.file, {folder}, does not exist on this host: prepare the"
            " storage (Storage page) or name a file on a mounted filesystem"
        )
    if not os.access(folder, os.W_OK):
        raise DatasetError(f"cannot write in {folder}: the agent's user may not create {path}")
    if os.path.lexists(path):
        if not os.path.isfile(path) or os.path.islink(path):
            raise DatasetError(f"{path} exists and is not a regular file: name another file")
        if _marker(path) is None:
            raise DatasetError(
                f"{path} exists and was not written by bench-gui (no {marker_path(path)}"
                " beside it): it is never overwritten; remove it or name another file"
            )
    st = os.statvfs(folder)
    free = st.f_bavail * st.f_frsize
    with contextlib.suppress(OSError):
        free += os.stat(path).st_blocks * 512  # an old file of ours is rewritten
    if free < size:
        raise DatasetError(
            f"{folder} has {format_size(free)} free, the data file needs {format_size(size)}:"
            " free some space or use smaller dataset sizes"
        )


def prepare(
    path: str,
    needed: int,
    fio: str,
    progress: Progress,
    stop: threading.Event,
    fio_version: str = "",
) -> Prepared:
    """Reuse or write the data file; ``progress(done=, total=, rate=, message=)`` once a
    second while writing. A stop leaves no marker (the next run writes it again)."""
    if reusable(path, needed):
        return Prepared(path, os.stat(path).st_size, True, 0.0)
    size = file_size_for(needed)
    _check_place(path, size)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(marker_path(path))
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    argv = [
        fio,
        "--name=bench-gui-prepare",
        f"--filename={path}",
        f"--size={size}",
        "--rw=write",
        "--bs=1M",
        "--ioengine=psync",
        "--fallocate=none",
        "--end_fsync=1",
        "--output-format=json",
        "--status-interval=1",
    ]
    t0 = time.monotonic()
    run = FioProcess(argv)
    last_bytes, last_t = 0, t0
    for obj in run.objects(stop):
        if obj is None:
            continue
        write = ((obj.get("jobs") or [{}])[0] or {}).get("write") or {}
        done = int(write.get("io_bytes") or 0)
        now = time.monotonic()
        rate = (done - last_bytes) / (now - last_t) / 1e6 if now > last_t else 0.0
        last_bytes, last_t = done, now
        progress(
            done=min(done, size),
            total=size,
            rate=round(max(rate, 0.0), 1),
            message=f"writing the data file {path} ({format_size(size)})",
        )
    code = run.proc.returncode
    if stop.is_set() or run.interrupted:
        raise DatasetError(f"stopped while writing {path}: it will be written again next run")
    if code != 0:
        raise DatasetError(str(run.failure(f"writing {path}")))
    st = os.stat(path)
    if st.st_size < size:
        raise DatasetError(f"fio wrote {format_size(st.st_size)} of {path}, not {size} bytes")
    marker = {
        "size": st.st_size,
        "inode": st.st_ino,
        "mtime_ns": st.st_mtime_ns,
        "written_by": "bench-gui",
        "fio_version": fio_version,
        "written_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    tmp = marker_path(path) + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(marker, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, marker_path(path))
    return Prepared(path, st.st_size, False, round(time.monotonic() - t0, 3))


def can_drop_caches() -> str:
    """Why this agent cannot drop the page cache ('' when it can)."""
    if os.geteuid() != 0:
        return f"dropping the page cache (echo 1 > {DROP_CACHES}) needs root"
    if not os.access(DROP_CACHES, os.W_OK):
        return f"{DROP_CACHES} is not writable here (a container with a read-only /proc/sys?)"
    return ""


def drop_caches() -> None:
    """``sync; echo 1 > /proc/sys/vm/drop_caches``: clean page cache out, as the seed did."""
    os.sync()
    try:
        with open(DROP_CACHES, "w", encoding="ascii") as fh:
            fh.write("1\n")
    except OSError as exc:
        raise DatasetError(f"cannot drop the page cache ({DROP_CACHES}): {exc.strerror}") from exc


__all__ = [
    "DROP_CACHES",
    "MARKER_SUFFIX",
    "DatasetError",
    "Prepared",
    "can_drop_caches",
    "drop_caches",
    "file_size_for",
    "marker_path",
    "prepare",
    "reusable",
]
