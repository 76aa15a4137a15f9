"""The run directories on a driver host, listed for re-attaching.

:class:`~bench_gui.remote.ssh_transport.SSHTransport` runs :data:`_LIST_SCRIPT` with the host's
Python (nothing of the agent needs to be there) and reads each row it prints with
:func:`_remote_run` into a :class:`RemoteRun`: what the host holds is never trusted, so a row
whose fields are of the wrong type is mended or dropped, never fatal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from bench_gui.core.events import scrubbed
from bench_gui.wire.protocol import INT64_MAX

_LIST_SCRIPT: Final = r"""
import json, os, sys
runs = os.path.join(sys.argv[1], "runs")
out = []
for name in sorted(os.listdir(runs)) if os.path.isdir(runs) else []:
    d = os.path.join(runs, name)
    if not os.path.isdir(d):
        continue
    info = {"run_id": name, "run_dir": d, "meta": {}, "pid": None}
    isfile = lambda base: os.path.isfile(os.path.join(d, base))  # never open a FIFO
    try:
        with open(os.path.join(d, "meta.json") if isfile("meta.json") else os.devnull, "rb") as fh:
            meta = json.loads(fh.read(1048576))
        if isinstance(meta, dict):
            info["meta"] = meta
    except (OSError, ValueError, RecursionError):
        pass
    try:
        with open(os.path.join(d, "agent.pid") if isfile("agent.pid") else os.devnull) as fh:
            pid = int(fh.read(32).strip())
        if 0 < pid < 4194305:
            info["pid"] = pid
    except (OSError, ValueError):
        pass
    alive = False
    if info["pid"]:
        try:
            with open("/proc/%d/cmdline" % info["pid"], "rb") as fh:
                alive = b"bench_gui.agent" in fh.read()
        except (OSError, ValueError):
            alive = False
    size, done, last_seq = 0, None, 0
    spool = os.path.join(d, "events.jsonl")
    try:
        size = os.path.getsize(spool) if isfile("events.jsonl") else 0
        with open(spool if size else os.devnull, "rb") as fh:
            fh.seek(max(0, size - 262144))
            # A corrupt line (deep, huge, not JSON) is passed over, and a seq counts only when
            # it goes on from the line before it: a stray jump is not the run's last event.
            prev = 0 if size <= 262144 else None
            for line in fh.read().splitlines():
                try:
                    ev = json.loads(line)
                except (ValueError, RecursionError):
                    continue
                if not isinstance(ev, dict):
                    continue
                seq = ev.get("seq")
                if type(seq) is not int:
                    continue
                if prev is not None and seq == prev + 1 and seq > last_seq:
                    last_seq = seq
                prev = seq
                if ev.get("kind") == "done" and isinstance(ev.get("status"), str):
                    done = ev["status"][:40]
    except (OSError, MemoryError):
        pass
    info.update(spool_bytes=size, last_seq=last_seq, done=done,
                state="running" if alive else ("finished" if done else "ended"))
    out.append(info)
print(json.dumps(out))
"""


@dataclass
class RemoteRun:
    """A run directory on a driver host, for re-attaching."""

    run_id: str
    run_dir: str
    state: str  # running | finished (has a done) | ended (gone without a done)
    pid: int | None
    spool_bytes: int
    last_seq: int
    done: str | None
    meta: dict[str, Any] = field(default_factory=dict)


def _remote_run(row: Any) -> RemoteRun | None:
    """One row of the run listing, every field of the right type (a run's meta.json is whatever
    its file held: scrubbed like an event's payload); None for a row that names no run."""
    if not isinstance(row, dict):
        return None
    run_id, run_dir = row.get("run_id"), row.get("run_dir")
    if not isinstance(run_id, str) or not isinstance(run_dir, str):
        return None

    def whole(value: Any) -> int:
        return value if type(value) is int and 0 <= value <= INT64_MAX else 0

    pid, state, done, meta = row.get("pid"), row.get("state"), row.get("done"), row.get("meta")
    return RemoteRun(
        run_id=run_id,
        run_dir=run_dir,
        state=state if state in ("running", "finished", "ended") else "ended",
        pid=whole(pid) or None,
        spool_bytes=whole(row.get("spool_bytes")),
        last_seq=whole(row.get("last_seq")),
        done=done if isinstance(done, str) else None,
        meta=scrubbed(meta) if isinstance(meta, dict) else {},
    )
