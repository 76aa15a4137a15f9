"""What the command line prints of a TPROC-C sweep: its steps' NOPM, TPM and latency."""

from __future__ import annotations

from typing import Any

from bench_gui.cli.terminal import DOUBT_MARK, safe
from bench_gui.cli.terminal import number as _fmt


def print_session(data: dict[str, Any]) -> None:
    """``sessions show ID`` of a sweep (``data``: the store's run_to_json)."""
    run = data.get("run") or {}
    print(f"session {run.get('id')}: {safe(run.get('name'))} ({safe(run.get('status'))})")
    created, finished = safe(run.get("created_at")), safe(run.get("finished_at") or "-")
    print(f"created: {created}  finished: {finished}")
    print(f"target: {safe(run.get('target_summary'))}  engine: {safe(run.get('engine'))}")
    print(f"server: {safe(run.get('server_version') or '-')}")
    if run.get("message"):
        print(f"message: {safe(run.get('message'))}")
    print_steps(
        [
            {
                **s,
                "nopm": s.get("nopm"),
                "tpm": s.get("tpm"),
                "nopm_driver": s.get("nopm_driver"),
            }
            for s in data.get("steps", [])
        ]
    )


def print_steps(steps: list[dict[str, Any]]) -> None:
    """The steps as a table; a NOPM the database and the driver disagree on (``nopm_flag``)
    carries :data:`DOUBT_MARK`, a step that does not count ``*``, with the reasons below the
    table."""
    if not steps:
        return
    print(
        f"{'VUs':>5} {'NOPM':>10}{'':4} {'TPM':>10} {'driver NOPM':>12} {'avg ms':>8}"
        f" {'p99.9 ms':>9}"
    )
    doubts: list[str] = []
    for s in steps:
        lat = (s.get("latency_ms") or {}).get("all") or {}
        mark = f" {DOUBT_MARK}" if s.get("nopm_flag") else ""
        if s.get("nopm_flag"):
            doubts.append(f"{DOUBT_MARK} {s['vus']} VU: {s['nopm_flag']}")
        if not s.get("complete"):
            mark = mark or " *"
            reasons = "; ".join(str(p) for p in s.get("problems") or []) or "incomplete"
            doubts.append(safe(f"*   {s['vus']} VU: not counted: {reasons}"))
        print(
            f"{s['vus']:>5} {_fmt(s['nopm']):>10}{mark:4} {_fmt(s['tpm']):>10}"
            f" {_fmt(s['nopm_driver']):>12} {_fmt(lat.get('avg'), 2):>8}"
            f" {_fmt(lat.get('p999'), 2):>9}"
        )
    for line in doubts:
        print(line)
