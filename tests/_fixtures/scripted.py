"""Scripted sequences of real protocol events for the GUI tests and screenshots.

Every event is encoded with :func:`encode_event` and decoded with :func:`decode_line`, exactly
as the runner receives them from the agent. With ``noise=0`` every number follows a formula
the tests can recompute:

- throughput: ``nopm = CAPACITY(vus) * ramp`` where ``ramp`` grows linearly to 1 during the
  ramp-up and is 1 while measuring; ``tpm = nopm * TPM_RATIO``; the driver counts
  ``nopm_driver = nopm * DRIVER_RATIO``;
- latency of "all": ``avg = 1.5 + 0.08 * vus`` ms, p50/p95/p99/p99.9/max = avg times 0.9/2/3/5/8.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from bench_gui.core.plan_model import Plan
from bench_gui.wire.protocol import LATENCY_FIELDS, TX_KEYS, Event, decode_line, encode_event

T0 = 1_760_000_000.0
TPM_RATIO = 2.3
DRIVER_RATIO = 0.99
LATENCY_FACTORS = {"avg": 1.0, "p50": 0.9, "p95": 2.0, "p99": 3.0, "p999": 5.0, "max": 8.0}


def capacity(vus: int) -> float:
    """NOPM at full load for a user count: rises, then saturates."""
    return 9000.0 * vus / (1.0 + vus / 40.0)


def latency_avg(vus: int) -> float:
    return 1.5 + 0.08 * vus


def latency_stats(vus: int, jitter: float = 1.0) -> dict[str, float]:
    avg = latency_avg(vus) * jitter
    return {name: round(avg * LATENCY_FACTORS[name], 3) for name in LATENCY_FIELDS}


class EventScript:
    """Numbers events and advances a clock, like the agent's EventWriter."""

    def __init__(self, t0: float = T0) -> None:
        self.seq = 0
        self.t = t0
        self.events: list[Event] = []

    def emit(self, kind: str, dt: float = 0.0, **data: Any) -> Event:
        self.seq += 1
        self.t += dt
        event = decode_line(encode_event(kind, self.seq, self.t, **data))
        self.events.append(event)
        return event


def sweep_events(
    vus: Sequence[int] = (8, 16, 24),
    rampup_s: int = 3,
    duration_s: int = 5,
    noise: float = 0.0,
    seed: int = 1,
    stop_in_step: int | None = None,
    status: str = "ok",
    db_counters: bool = True,
) -> list[Event]:
    """A whole run: hello, per step a start, one sample a second, an end with its summary,
    then the run summary and done. ``stop_in_step`` ends the run half-way through that step
    (status ``stopped``, the step marked incomplete)."""
    rng = random.Random(seed)
    script = EventScript()
    script.emit(
        "hello",
        agent_version="0.1.0",
        engine="postgresql",
        server="PostgreSQL 16.4",
        settings={"shared_buffers": "4GB"},
        config={"action": "run", "virtual_users": list(vus), "warehouses": 8},
        pid=4242,
    )
    summaries: list[dict[str, Any]] = []
    final_status = status
    for step, users in enumerate(vus):
        script.emit("step", dt=0.5, phase="start", step=step, vus=users)
        total = rampup_s + duration_s
        stop_at = total // 2 if stop_in_step == step else None
        measured: list[dict[str, Any]] = []
        for second in range(1, total + 1):
            phase = "rampup" if second <= rampup_s else "measure"
            ramp = second / rampup_s if phase == "rampup" else 1.0
            jitter = 1.0 + (rng.uniform(-noise, noise) if noise else 0.0)
            nopm = capacity(users) * ramp * jitter
            tpm = nopm * TPM_RATIO
            new_orders = int(nopm / 60)
            lat = latency_stats(users, 1.0 + (rng.uniform(0, 2 * noise) if noise else 0.0))
            if noise and rng.random() < 0.08:
                lat["p999"] *= 2.5
                lat["max"] *= 3.0
            sample = dict(
                step=step,
                vus=users,
                phase=phase,
                elapsed=float(second),
                remaining=float(total - second),
                counts={
                    "new_order": new_orders,
                    "payment": new_orders,
                    "delivery": new_orders // 10,
                    "stock_level": new_orders // 10,
                    "order_status": new_orders // 10,
                },
                rollbacks=new_orders // 100,
                errors={"serialization": 1} if noise and rng.random() < 0.05 else {},
                latency_ms={"all": lat, "new_order": lat},
                nopm_driver=round(nopm * DRIVER_RATIO, 3),
                tpm_driver=round(tpm * DRIVER_RATIO, 3),
                nopm_db=round(nopm, 3) if db_counters else None,
                tpm_db=round(tpm, 3) if db_counters else None,
            )
            script.emit("sample", dt=1.0, **sample)
            if phase == "measure":
                measured.append(sample)
            if stop_at is not None and second >= stop_at:
                break
        complete = stop_at is None
        n = max(1, len(measured))
        nopm_step = sum(s["nopm_driver"] / DRIVER_RATIO for s in measured) / n
        summary = {
            "step": step,
            "vus": users,
            "nopm": round(nopm_step, 3),
            "tpm": round(nopm_step * TPM_RATIO, 3),
            "nopm_driver": round(nopm_step * DRIVER_RATIO, 3),
            "window_s": float(len(measured)),
            "rampup_s": float(rampup_s),
            "counts": {k: sum(s["counts"][k] for s in measured) for k in TX_KEYS},
            "rollbacks": sum(s["rollbacks"] for s in measured),
            "errors": {},
            "latency_ms": {"all": latency_stats(users), "new_order": latency_stats(users)},
            "histograms": {},
            "complete": complete,
        }
        script.emit("step", dt=0.2, phase="end", step=step, vus=users, summary=summary)
        summaries.append(summary)
        if not complete:
            final_status = "stopped"
            break
    script.emit("summary", dt=0.1, steps=summaries, status=final_status)
    message = {"ok": "sweep complete", "stopped": "stopped by the user"}.get(final_status, "")
    script.emit("done", dt=0.1, status=final_status, message=message)
    return script.events


def scripted_plan(name: str, vus: Sequence[int] = (8, 16, 24), meter: str = "none") -> Plan:
    """The plan the scripted events run (3 s ramp-up, 5 s measured per step)."""
    plan = Plan(name=name)
    plan.workload.virtual_users = list(vus)
    plan.workload.rampup_s = 3
    plan.workload.duration_s = 5
    plan.power.meter = meter
    return plan


def sample_index(events: Sequence[Event], step: int, elapsed: float) -> int:
    """The index of the sample of ``step`` at ``elapsed`` seconds into it."""
    return next(
        i
        for i, e in enumerate(events)
        if e.kind == "sample" and e.get("step") == step and e.get("elapsed") == elapsed
    )
