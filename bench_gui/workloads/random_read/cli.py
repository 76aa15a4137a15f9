"""The command line's words for a random-read run (seed 004 by fio): progress lines, the step
table of ``bench-gui run`` and ``bench-gui sessions show``. Dataset sizes, operations per
second and the multiplier over the device's raw IOPS; never TPROC-C's words."""

from __future__ import annotations

from typing import Any

from bench_gui.cli.terminal import safe
from bench_gui.wire.fio_sizes import format_size
from bench_gui.wire.protocol import Event
from bench_gui.workloads.random_read.compare import multiplier_text

WORKLOAD = "random_read"


def _num(value: Any, digits: int = 0) -> str:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "-"
    return f"{value:,.{digits}f}"


def _ms(value: Any) -> str:
    """A latency in ms with the digits it needs: 0.000201 and 12.3 both read well."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "-"
    if value >= 10:
        return f"{value:,.1f}"
    if value >= 0.01:
        return f"{value:.3f}"
    return f"{value:.6f}"


def _multiplier(value: Any) -> str:
    """The multiplier over raw IOPS by the comparison's one rule (``4.68X``, never rounded
    up), so ``sessions show`` and ``compare`` print the same figure."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "-"
    return multiplier_text(float(value))


def _size(value: Any) -> str:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "-"
    return format_size(value)


def _read_latency(record: dict[str, Any]) -> dict[str, Any]:
    latency = record.get("latency_ms")
    read = latency.get("read") if isinstance(latency, dict) else None
    return read if isinstance(read, dict) else {}


def is_random_read(event: Event) -> bool:
    """Whether an event is of a random-read run (those that say so)."""
    summary = event.get("summary")
    return (
        event.get("workload") == WORKLOAD
        or (isinstance(summary, dict) and summary.get("workload") == WORKLOAD)
        or (event.kind == "progress" and event.get("task") in ("prepare", "raw_iops"))
    )


def _warmup_words(cap: Any) -> str:
    """Each point is warmed until steady, at most ``cap`` seconds (none when 0)."""
    if isinstance(cap, int | float) and not isinstance(cap, bool) and cap > 0:
        return f"warm-up until steady (at most {cap:g} s)"
    return "no warm-up"


def progress_line(event: Event) -> str | None:
    """The progress line of a random-read event; None for one to print as any run's (log,
    error) or not at all."""
    kind = event.kind
    if kind == "hello":
        record = event.get("random_read") or {}
        memory = (record.get("memory") or {}).get("label", "-")
        caches = "dropped" if record.get("caches_dropped") else "NOT dropped"
        return (
            f"{safe(event.get('fio_version', 'fio'))}: data file {safe(record.get('file'))},"
            f" RAM for the study {safe(memory)}, page cache {caches} between points"
        )
    if kind == "progress":
        task = event.get("task")
        done, total = event.get("done"), event.get("total")
        if task == "prepare":
            share = 100.0 * done / total if isinstance(done, int | float) and total else 0.0
            return (
                f"writing the data file: {_size(done)} of {_size(total)} ({share:.0f}%),"
                f" {_num(event.get('rate'), 1)} MB/s"
            )
        if task == "raw_iops":
            if event.get("stage") == "done":
                return f"raw-IOPS pass done: {safe(event.get('message', ''))}"
            return (
                f"raw-IOPS pass: {_num(done, 0)}/{_num(total, 0)} s, {_num(event.get('rate'))} IOPS"
            )
        return None
    if kind == "step" and event.get("phase") == "start":
        return (
            f"point {event.get('step', 0) + 1}: dataset {safe(event.get('dataset_label'))},"
            f" {_warmup_words(event.get('rampup_s'))}, measuring {event.get('duration_s')} s,"
            f" {event.get('vus')} fio jobs"
        )
    if kind == "sample":
        lat = _read_latency(event.data)
        text = (
            f"  {str(event.get('phase') or ''):7} {_num(event.get('elapsed')):>6} s"
            f"  ops/s {_num(event.get('ops_s')):>12}  MB/s {_num(event.get('mbs'), 1):>9}"
        )
        if lat:
            text += f"  p99 {_ms(lat.get('p99'))} ms"
        if event.get("memory_used_bytes") is not None:
            text += f"  memory {_size(event.get('memory_used_bytes'))}"
        return text
    if kind == "step" and event.get("phase") == "end":
        s = event.get("summary") or {}
        lat = _read_latency(s)
        text = (
            f"point {s.get('step', 0) + 1} done: {safe(s.get('dataset_label'))}"
            f"  ops/s {_num(s.get('ops_s'))}  MB/s {_num(s.get('mbs'), 1)}"
            f"  p99 {_ms(lat.get('p99'))} ms  p99.9 {_ms(lat.get('p999'))} ms"
        )
        if isinstance(s.get("multiplier"), int | float):
            text += f"  {multiplier_text(s['multiplier'])} raw IOPS"
        if not s.get("complete"):
            text += f"  (incomplete: {safe('; '.join(s.get('problems') or []))})"
        return text
    return None


def print_steps(steps: list[dict[str, Any]]) -> None:
    """The dataset sizes as a table on stdout: ops/s, MB/s, latency, multiplier."""
    if not steps:
        return
    print(
        f"{'dataset':>24} {'x RAM':>7} {'ops/s':>13} {'MB/s':>9} {'p50 ms':>10} {'p99 ms':>10}"
        f" {'p99.9 ms':>10} {'x raw IOPS':>10}"
    )
    for s in steps:
        lat = _read_latency(s)
        ratio = s.get("ram_ratio")
        mark = "" if s.get("complete") else "  (incomplete)"
        print(
            f"{safe(str(s.get('dataset_label') or '-')):>24} {_num(ratio, 2):>7}"
            f" {_num(s.get('ops_s')):>13} {_num(s.get('mbs'), 1):>9}"
            f" {_ms(lat.get('p50')):>10} {_ms(lat.get('p99')):>10} {_ms(lat.get('p999')):>10}"
            f" {_multiplier(s.get('multiplier')):>10}{mark}"
        )


def print_session(data: dict[str, Any]) -> None:
    """``sessions show ID`` of a random-read session (``data``: the store's run_to_json)."""
    run = data.get("run") or {}
    agent = run.get("agent") or {}
    record = agent.get("random_read") or {}
    memory = record.get("memory") or {}
    raw = record.get("raw_iops") or {}
    print(f"session {run.get('id')}: {safe(run.get('name'))} ({safe(run.get('status'))})")
    created, finished = safe(run.get("created_at")), safe(run.get("finished_at") or "-")
    print(f"created: {created}  finished: {finished}")
    print(f"workload: random reads  target: {safe(run.get('target_summary'))}")
    print(f"fio: {safe(agent.get('fio_version') or '-')}")
    if record:
        print(
            f"data file: {safe(record.get('file'))} ({_size(record.get('file_bytes'))}) on"
            f" {safe(record.get('device') or 'an unknown device')}"
        )
        print(
            f"reads: {_size(record.get('block_size'))} {safe(record.get('ioengine'))}"
            f"{' direct' if record.get('direct') else ''}, {record.get('jobs')} jobs,"
            f" zipf theta {record.get('zipf_theta')}, warm-up {record.get('warmup_s')} s,"
            f" measured {record.get('measure_s')} s"
        )
        print(f"RAM for the study: {safe(memory.get('label') or '-')}")
        caches = "dropped" if record.get("caches_dropped") else "NOT dropped (caches not dropped)"
        print(f"page cache between points: {caches}")
    if raw:
        print(f"raw device IOPS: {_num(raw.get('iops'))} ({safe(raw.get('method') or '')})")
    elif record:
        print("raw device IOPS: not measured (no multipliers)")
    if run.get("message"):
        print(f"message: {safe(run.get('message'))}")
    print_steps([s.get("summary") or {} for s in data.get("steps", [])])
