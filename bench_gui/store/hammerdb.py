"""Import HammerDB's results as sessions that compare like bench-gui's own.

Each HammerDB job is one run at one virtual-user count; bench-gui's session is a sweep. Jobs
that follow each other with the same configuration and a rising user count (4, 8, 16) become
one session with a step per job; a job with another configuration, a user count that does not
rise, or a job in between that is not a result (a build, a failed run) starts the next session
(``each=True``: one session per job). A failed run becomes a failed session without steps, with
the reason; a schema build a session of kind ``build``.

An imported session is marked as such: ``agent["source"] == "hammerdb"`` and
``agent["hammerdb"]`` holds the file, the job ids and the job configuration (passwords left
out). Its steps have the shape of bench-gui's (``vus``, ``nopm``, ``tpm``, ``window_s``,
``latency_ms`` per transaction type when HammerDB's time profile stored timings) and each
step's summary names its job (``hammerdb_job``) and what went wrong in it after its result
(``hammerdb_problem``). Importing the same jobs again adds nothing:
the job ids already stored are skipped. The whole import is one transaction: a file that
cannot be read, or a failure while writing, stores nothing.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from bench_gui import __version__
from bench_gui.core.plan_model import Plan, Target
from bench_gui.store.hammerdb_jobs import HammerJob, read_hammerdb
from bench_gui.store.sessions import SessionStore
from bench_gui.wire.protocol import Event
from bench_gui.wire.run_config import Workload

SOURCE: Final = "hammerdb"
MAX_LOG_LINES_PER_JOB: Final = 200
_BENCHMARKS: Final = {"TPC-C": "TPROC-C", "TPC-H": "TPROC-H"}


@dataclass(frozen=True)
class ImportedSession:
    """One session an import created."""

    run_id: int
    name: str
    kind: str  # run or build
    status: str  # complete or failed
    jobs: tuple[str, ...]
    vus: tuple[int, ...]  # of the steps stored (none for a failed run or a build)
    message: str


@dataclass(frozen=True)
class HammerDBImport:
    """What an import did: the sessions it created and the jobs it found stored already."""

    file: str
    jobs: int  # jobs in the file
    sessions: tuple[ImportedSession, ...]
    already: tuple[tuple[str, int], ...]  # (job id, the session that holds it)


# ---- grouping -----------------------------------------------------------------------------------


def _sweep_key(job: HammerJob) -> str:
    return json.dumps(job.comparable_config(), sort_keys=True)


def group_jobs(jobs: Sequence[HammerJob], each: bool = False) -> list[list[HammerJob]]:
    """Jobs (oldest first) as sessions: runs with a result that follow each other with the
    same configuration and a rising user count form one; every other job stands alone."""
    groups: list[list[HammerJob]] = []
    sweep: list[HammerJob] = []
    for job in sorted(jobs, key=lambda j: (j.started, j.job_id)):
        measured = job.kind == "run" and job.result is not None and job.vus is not None
        if not measured:
            if sweep:
                groups.append(sweep)
                sweep = []
            groups.append([job])
            continue
        last = sweep[-1] if sweep else None
        rising = last is not None and (job.vus or 0) > (last.vus or 0)
        if each or last is None or not rising or _sweep_key(job) != _sweep_key(last):
            if sweep:
                groups.append(sweep)
            sweep = [job]
        else:
            sweep.append(job)
    if sweep:
        groups.append(sweep)
    return groups


# ---- what a session is made of ------------------------------------------------------------------


def _engine(job: HammerJob) -> str:
    return "".join(job.database.split()).lower() or "unknown"


def _minutes(value: float | None) -> str:
    return "?" if value is None else f"{value:g}"


def _name(group: list[HammerJob]) -> str:
    first = group[0]
    bench = _BENCHMARKS.get(first.benchmark, first.benchmark or "HammerDB")
    when = first.started.strftime("%Y-%m-%d %H:%M")
    if first.kind == "build":
        wh = first.warehouses
        what = f"schema build ({wh} warehouses)" if wh else "schema build"
        return f"HammerDB {bench} {first.database} {what}, {when}"
    users = "/".join(str(j.vus) for j in group if j.vus is not None) or "?"
    name = f"HammerDB {bench} {first.database} {users} VU, {when}"
    return name if first.result is not None else f"{name} (no result)"


def _plan(group: list[HammerJob], name: str, path: Path) -> Plan:
    first = group[0]
    port = first.setting("_port")
    target = Target(
        kind=_engine(first),
        host=first.setting("_host") or "",
        port=int(port) if port and port.isdigit() else 0,
        user=first.setting("_user") or "",
        database=first.setting("_dbase") or "",
    )
    rampup, duration = first.rampup_min, first.duration_min
    workload = Workload(
        warehouses=first.warehouses or 0,
        virtual_users=[j.vus for j in group if j.vus is not None],
        rampup_s=(rampup or 0.0) * 60.0,
        duration_s=(duration or 0.0) * 60.0,
        all_warehouses=first.setting("_allwarehouse") == "true",
        keying_thinking=first.setting("_keyandthink") == "true",
        build="never",
        profile="hammerdb",  # HammerDB's own transactions, by definition
    )
    jobs = ", ".join(j.job_id for j in group)
    notes = f"Imported from HammerDB ({path.name}), job {jobs}."
    return Plan(name=name, target=target, workload=workload, notes=notes)


def _ends(job: HammerJob) -> datetime:
    """When a job ended, estimated: its start, ramp-up and measured window (HammerDB does not
    store the end)."""
    minutes = (job.rampup_min or 0.0) + (job.duration_min or 0.0) if job.result else 0.0
    return job.started + timedelta(minutes=minutes)


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).isoformat(timespec="milliseconds")


def _inventory(job: HammerJob) -> dict[str, Any] | None:
    """JOBSYSTEM's record of the host, in the inventory's shape where the fields match."""
    system = {k: v for k, v in job.system.items() if v not in (None, "")}
    if not system:
        return None
    inventory: dict[str, Any] = {"source": SOURCE, "hammerdb_system": system}
    if system.get("hostname"):
        inventory["hostname"] = system["hostname"]
    cpu = {"model": system.get("cpumodel"), "threads": system.get("cpucount")}
    if any(cpu.values()):
        inventory["cpu"] = cpu
    if system.get("os_name"):
        inventory["os"] = {"pretty_name": system["os_name"]}
    if system.get("memory"):
        inventory["memory"] = {"text": str(system["memory"])}
    return inventory


def _step(job: HammerJob, index: int) -> Event:
    """The job's result as the step-end event bench-gui's agent sends."""
    nopm, tpm = job.result or (None, None)
    duration = job.duration_min
    latency = job.latency_ms()
    summary: dict[str, Any] = {
        "step": index,
        "vus": job.vus,
        "nopm": nopm,
        "tpm": tpm,
        "nopm_driver": None,
        "window_s": None if duration is None else duration * 60.0,
        "rampup_s": None if job.rampup_min is None else job.rampup_min * 60.0,
        "duration_s": None if duration is None else duration * 60.0,
        "complete": True,
        "latency_ms": latency,
        "counts": {},
        "errors": {},
        "hammerdb_job": job.job_id,
        "hammerdb_started": _iso(job.started),
        "source": SOURCE,
    }
    calls = job.calls()
    if calls:
        summary["hammerdb_calls"] = calls
    if job.failure:
        summary["hammerdb_problem"] = job.failure
    return Event("step", index + 1, _ends(job).timestamp(), {"phase": "end", "summary": summary})


def _log_lines(job: HammerJob) -> list[tuple[float, str, str]]:
    """The job's output for the session's log: the console and monitor lines as they are,
    the active users' lines once each with their count."""
    t = job.started.timestamp()
    head = f"HammerDB job {job.job_id}"
    out = [(t, "info", f"{head}: {job.vus or '?'} virtual users, started {_iso(job.started)}")]
    workers: dict[str, set[int]] = {}
    counts: dict[str, int] = {}
    for vu, text in job.lines:
        if vu <= 1:
            level = "error" if "Error" in text or "FAILED" in text else "info"
            who = "console" if vu == 0 else "monitor"
            out.append((t, level, f"{head} {who}: {text}"))
        else:
            workers.setdefault(text, set()).add(vu)
            counts[text] = counts.get(text, 0) + 1
    for text, users in workers.items():
        level = "error" if "Error" in text else "info"
        times = f" (x{counts[text]})" if counts[text] > 1 else ""
        out.append((t, level, f"{head} users {_span(users)}: {text}{times}"))
    if len(out) > MAX_LOG_LINES_PER_JOB:
        left = len(out) - MAX_LOG_LINES_PER_JOB
        out = out[:MAX_LOG_LINES_PER_JOB]
        out.append((t, "info", f"{head}: {left} more lines of its output not kept"))
    return out


def _span(users: set[int]) -> str:
    ordered = sorted(users)
    if len(ordered) > 2 and ordered[-1] - ordered[0] == len(ordered) - 1:
        return f"{ordered[0]}-{ordered[-1]}"
    return ",".join(str(u) for u in ordered)


# ---- importing ----------------------------------------------------------------------------------


def imported_jobs(store: SessionStore) -> dict[str, int]:
    """{HammerDB job id: session id} of every job imported before."""
    found: dict[str, int] = {}
    # The JSON is read here, not with json_extract: the same query runs on a team store.
    with store.transaction() as conn:
        rows = conn.execute(
            "SELECT id, agent FROM runs WHERE agent LIKE ?", (f"%{SOURCE}%",)
        ).fetchall()
    for run_id, text in rows:
        agent = json.loads(text or "{}")
        if not isinstance(agent, dict) or agent.get("source") != SOURCE:
            continue
        for job_id in (agent.get("hammerdb") or {}).get("jobs") or []:
            found[str(job_id)] = int(run_id)
    return found


def _write(store: SessionStore, group: list[HammerJob], path: Path) -> ImportedSession:
    first, last = group[0], group[-1]
    name = _name(group)
    plan = _plan(group, name, path)
    measured = first.result is not None
    kind = "build" if first.kind == "build" else "run"
    failure = "" if measured else first.failure
    status = "failed" if failure else "complete"
    problems = [f"{j.job_id}: {j.failure}" for j in group if measured and j.failure]
    message = failure or "; ".join(problems)
    agent = {
        "source": SOURCE,
        "hammerdb": {
            "file": str(path),
            "jobs": [j.job_id for j in group],
            "database": first.database,
            "benchmark": first.benchmark,
            "config": first.config,
            "timings": any(j.timings for j in group),
            "imported_at": _iso(datetime.now(UTC)),
            "imported_by": f"bench-gui {__version__}",
            "times_from": "HammerDB's start of each job; ends estimated from ramp-up + window",
        },
    }
    server = next((j.server_version for j in group if j.server_version), None)
    target = {
        "kind": plan.target.kind,
        "host": plan.target.host,
        "port": plan.target.port,
        "database": plan.target.database,
    }
    inventory = _inventory(first)
    with store.transaction() as conn:
        cur = conn.execute(
            "INSERT INTO runs (kind, name, status, created_at, finished_at, engine, app_version,"
            " plan, plan_toml, target, server_version, settings, inventory, agent, message, uuid)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', ?, ?, ?, ?)",
            (
                kind,
                name,
                status,
                _iso(first.started),
                _iso(_ends(last)),
                plan.target.kind,
                __version__,
                json.dumps(plan.to_dict(), separators=(",", ":")),
                plan.to_toml(),
                json.dumps(target, separators=(",", ":")),
                server,
                None if inventory is None else json.dumps(inventory, separators=(",", ":")),
                json.dumps(agent, separators=(",", ":"), default=str),
                message,
                # Who ran HammerDB, and where, the job store does not say: author and host
                # stay unknown ("").
                str(uuid.uuid4()),
            ),
        )
        run_id = cur.lastrowid
        assert run_id is not None
        if measured:
            for index, job in enumerate(group):
                store.add_event(run_id, _step(job, index))
        conn.executemany(
            "INSERT INTO run_log (run_id, seq, t, level, message) VALUES (?, NULL, ?, ?, ?)",
            [(run_id, t, level, text) for job in group for t, level, text in _log_lines(job)],
        )
    return ImportedSession(
        run_id=run_id,
        name=name,
        kind=kind,
        status=status,
        jobs=tuple(j.job_id for j in group),
        vus=tuple(j.vus for j in group if j.vus is not None) if measured else (),
        message=message,
    )


def import_hammerdb(
    store: SessionStore,
    path: Path,
    *,
    each: bool = False,
    utc_offset_h: float | None = None,
) -> HammerDBImport:
    """Import a HammerDB job store (``hammer.DB``) or log file into ``store``.

    Jobs stored before are skipped; a bad file raises
    :class:`~bench_gui.store.hammerdb_jobs.HammerDBError` (naming it) and stores nothing; the
    new sessions are written in one transaction. ``utc_offset_h``: the HammerDB host's offset
    from UTC (its job store keeps local times; default: this machine's zone).
    """
    jobs = read_hammerdb(path, utc_offset_h)
    with store.transaction():
        before = imported_jobs(store)
        fresh = [j for j in jobs if j.job_id not in before]
        sessions = [_write(store, group, path) for group in group_jobs(fresh, each)]
    already = tuple((j.job_id, before[j.job_id]) for j in jobs if j.job_id in before)
    return HammerDBImport(str(path), len(jobs), tuple(sessions), already)
