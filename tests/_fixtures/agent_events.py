"""A realistic agent event stream as JSON lines, encoded by the protocol the agent uses: every
field the agent writes (host metrics, power, latency per transaction type, step summaries with
histograms), so the tests of bad lines and odd payloads start from what a real run looks like.
"""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path
from typing import Any

from bench_gui.wire.protocol import LATENCY_FIELDS, TX_KEYS, encode_event

T0 = 1_760_000_000.0


def _latency(base: float) -> dict[str, float]:
    return {f: round(base * (1 + i * 0.5), 3) for i, f in enumerate(LATENCY_FIELDS)}


def _disk(i: int) -> dict[str, float]:
    return {
        "r_iops": 100.0 + i,
        "w_iops": 200.0,
        "r_mbs": 1.5,
        "w_mbs": 3.25,
        "r_await": 0.4,
        "w_await": 0.9,
        "await": 0.7,
        "aqu_sz": 0.3,
        "util": 41.0,
    }


def host_fields(i: int) -> dict[str, Any]:
    """A sample's ``host`` and ``power`` as the agent's monitor writes them."""
    shares = {"user": 31.0, "system": 7.5, "iowait": 2.0, "idle": 59.5, "steal": 0.0}
    return {
        "host": {
            "cpu": {**shares, "sockets": {"0": shares, "1": shares}},
            "disks": {"nvme0n1": _disk(i), "nvme1n1": _disk(i + 1)},
            "disk_total": _disk(2 * i),
            "mem": {
                "used_mb": 4096.0,
                "cache_mb": 8192.0,
                "dirty_mb": 12.0,
                "writeback_mb": 0.0,
                "total_mb": 65536.0,
            },
        },
        "power": {"watts": 212.5 + i % 7, "error": None},
    }


def sample(step: int, vus: int, i: int, phase: str = "measure") -> dict[str, Any]:
    return {
        "step": step,
        "vus": vus,
        "phase": phase,
        "elapsed": float(i + 1),
        "remaining": 30.0 - i,
        "counts": {k: 10 + n for n, k in enumerate(TX_KEYS)},
        "rollbacks": 1,
        "errors": {"serialization": 1} if i % 5 == 0 else {},
        "latency_ms": {
            "all": _latency(2.0),
            **{k: _latency(1.0 + n) for n, k in enumerate(TX_KEYS)},
        },
        "nopm_driver": 600.0 + i,
        "tpm_driver": 1400.0 + i,
        "nopm_db": 601.0 + i,
        "tpm_db": 1402.0,
        **host_fields(i),
    }


def step_summary(step: int, vus: int) -> dict[str, Any]:
    histogram = base64.b64encode(bytes(range(256)) * 4).decode()
    return {
        "step": step,
        "vus": vus,
        "nopm": 6000.0 + step,
        "tpm": 14000.0,
        "nopm_driver": 5990.0,
        "window_s": 30.0,
        "rampup_s": 2.0,
        "counts": {k: 3000 for k in TX_KEYS},
        "rollbacks": 30,
        "errors": {},
        "latency_ms": {"all": _latency(2.0), **{k: _latency(1.5) for k in TX_KEYS}},
        "histograms": {k: histogram for k in TX_KEYS},
        "complete": True,
        "window_t0": T0 + 10,
        "window_t1": T0 + 40,
        "host": host_fields(step)["host"],
        "power_w": 214.0,
        "energy_j": 6420.0,
        "mw_per_nopm": 35.6,
        "j_per_new_order": 2.14,
        "idle_power_w": 120.0,
        "power_meter": "csv",
        "power_scope": "wall",
        "power_label": "wall power (test meter)",
        "power_readings": 30,
        "power_error": None,
    }


def agent_stream(
    steps: int = 2, samples: int = 5, vus: tuple[int, ...] = (1, 2, 4, 8)
) -> list[str]:
    """hello, idle baseline, per step a start, its samples, a log line and an end; the summary
    and ``done``: one JSON line per event, numbered 1, 2, 3..."""
    out: list[str] = []

    def emit(kind: str, **data: Any) -> None:
        out.append(encode_event(kind, len(out) + 1, T0 + len(out), **data))

    emit(
        "hello",
        agent_version="0.1.0",
        engine="postgresql",
        server="PostgreSQL 16.4",
        settings={"shared_buffers": "8GB", "max_connections": "200"},
        config={"action": "run", "virtual_users": [vus[i % len(vus)] for i in range(steps)]},
        os_knobs={"vm.swappiness": "10"},
        pid=4242,
    )
    emit("progress", task="idle", done=1.0, total=2.0, unit="s", message="idle", **host_fields(0))
    summaries = []
    for step in range(steps):
        users = vus[step % len(vus)]
        emit(
            "step", phase="start", step=step, vus=users, rampup_s=2.0, duration_s=30.0, processes=1
        )
        for i in range(samples):
            emit("sample", **sample(step, users, i, "rampup" if i == 0 else "measure"))
        emit("log", level="info", message=f"step {step + 1} measured")
        summary = step_summary(step, users)
        summaries.append(summary)
        emit("step", phase="end", step=step, vus=users, summary=summary)
    emit("error", message="a worker restarted", fatal=False)
    emit("summary", steps=summaries, status="ok")
    emit("done", status="ok", message="sweep complete")
    return out


def ended_run_dir(tmp_path: Path, name: str, lines: list[bytes]) -> Path:
    """A run directory in the desktop's cache (``tmp_path/cache/runs/NAME``) as an agent left
    it: its spool holds ``lines`` and its pid file names a process that has ended."""
    run_dir = tmp_path / "cache" / "runs" / name
    run_dir.mkdir(parents=True)
    (run_dir / "events.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    ended = subprocess.Popen(["true"])
    ended.wait()
    (run_dir / "agent.pid").write_text(f"{ended.pid}\n")
    return run_dir
