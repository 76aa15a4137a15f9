"""A scripted sweep (``scripted.sweep_events``) with host metrics and power, as the agent sends
them: the run's power configuration in the hello, the idle baseline's progress events, ``host``
and ``power`` in every sample, and the power figures in every step summary.

With ``noise=0`` the numbers follow formulas the tests can recompute:

- power: ``watts(nopm) = IDLE_W + W_PER_NOPM * nopm``; idle is ``IDLE_W``;
- CPU: ``busy(vus) = min(95, 8 + 1.4 * vus)`` percent at full load (70% user, 25% system,
  the rest iowait), spread evenly over the sockets;
- disks: the array writes ``WRITES_PER_ORDER`` times per new order; a mirror's members each see
  every write and half the reads, so the total counts the array alone.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from bench_gui.wire.protocol import Event
from tests._fixtures.scripted import EventScript, sweep_events

IDLE_W = 180.0
W_PER_NOPM = 0.0012
WRITES_PER_ORDER = 8.0
READS_PER_ORDER = 3.0


def watts(nopm: float) -> float:
    return IDLE_W + W_PER_NOPM * nopm


def busy(vus: int) -> float:
    return min(95.0, 8.0 + 1.4 * vus)


def host_fields(
    vus: int,
    load: float,
    nopm: float,
    array: str,
    members: Sequence[str],
    sockets: int,
    rng: random.Random | None,
) -> dict[str, Any]:
    jitter = (lambda: 1.0 + rng.uniform(-0.05, 0.05)) if rng else (lambda: 1.0)
    b = busy(vus) * load
    user, system = 0.7 * b * jitter(), 0.25 * b * jitter()
    iowait = max(0.0, b - user - system)
    cpu: dict[str, Any] = {
        "user": round(user, 2),
        "system": round(system, 2),
        "iowait": round(iowait, 2),
        "idle": round(100 - user - system - iowait, 2),
        "steal": 0.0,
    }
    if sockets > 1:
        cpu["sockets"] = {
            str(s): {
                "user": round(user * (1.1 - 0.2 * s), 2),
                "system": round(system, 2),
                "iowait": round(iowait, 2),
                "idle": round(100 - user * (1.1 - 0.2 * s) - system - iowait, 2),
                "steal": 0.0,
            }
            for s in range(sockets)
        }
    orders = nopm / 60.0
    w_iops = orders * WRITES_PER_ORDER * jitter()
    r_iops = orders * READS_PER_ORDER * jitter()
    wait = 0.08 + 0.004 * vus

    def rates(r: float, w: float) -> dict[str, float]:
        return {
            "r_iops": round(r, 1),
            "w_iops": round(w, 1),
            "r_mbs": round(r * 8192 / 1e6, 3),
            "w_mbs": round(w * 16384 / 1e6, 3),
            "r_await": round(wait, 3),
            "w_await": round(wait * 1.6, 3),
            "await": round(wait * 1.4, 3),
            "aqu_sz": round((r + w) * wait / 1000, 3),
            "util": round(min(100.0, (r + w) / 2000), 1),
        }

    disks = {array: rates(r_iops, w_iops)}
    for member in members:
        disks[member] = rates(r_iops / max(1, len(members)), w_iops)
    return {
        "interval_s": 1.0,
        "cpu": cpu,
        "disks": disks,
        "disk_total": disks[array],
        "mem": {
            "used_mb": round(48_000 + 120 * vus * load, 1),
            "cache_mb": round(200_000 + 30 * nopm / 1000, 1),
            "dirty_mb": round(40 + 0.002 * nopm, 1),
            "writeback_mb": 0.0,
            "total_mb": 412_316.9,
        },
    }


def power_sweep_events(
    vus: Sequence[int] = (8, 16, 24),
    rampup_s: int = 3,
    duration_s: int = 5,
    noise: float = 0.0,
    seed: int = 1,
    idle_s: int = 5,
    meter: str = "ipmi",
    scope: str = "wall",
    label: str = "IPMI DCMI (BMC 10.0.0.42, instantaneous)",
    array: str = "md0",
    members: Sequence[str] = ("nvme0n1", "nvme1n1"),
    sockets: int = 2,
    stop_in_step: int | None = None,
) -> list[Event]:
    """``sweep_events`` with host metrics and power added (renumbered, one clock)."""
    rng = random.Random(seed) if noise else None
    base = sweep_events(
        vus, rampup_s, duration_s, noise=noise, seed=seed, stop_in_step=stop_in_step
    )
    script = EventScript(t0=base[0].t)
    script.t = base[0].t
    config = dict(base[0].data.get("config") or {})
    config["power"] = {"meter": meter, "scope": scope, "label": label, "idle_s": idle_s}
    script.emit("hello", **{**base[0].data, "config": config})
    for second in range(1, idle_s + 1):
        script.emit(
            "progress",
            dt=1.0,
            task="idle",
            done=float(second),
            total=float(idle_s),
            unit="s",
            message="measuring idle power",
            host=host_fields(0, 0.0, 0.0, array, members, sockets, rng),
            power={"watts": IDLE_W},
        )
    script.emit("log", dt=0.1, level="info", message=f"idle power {IDLE_W:.1f} W over {idle_s} s")
    previous_t = base[0].t
    for event in base[1:]:
        dt = event.t - previous_t
        previous_t = event.t
        data = dict(event.data)
        if event.kind == "sample":
            nopm = float(data.get("nopm_db") or data.get("nopm_driver") or 0.0)
            users = int(data["vus"])
            load = nopm / max(1.0, _capacity(users))
            data["host"] = host_fields(users, load, nopm, array, members, sockets, rng)
            data["power"] = {
                "watts": round(watts(nopm) * (rng.uniform(0.98, 1.02) if rng else 1), 2)
            }
        elif event.kind == "step" and data.get("phase") == "end":
            data["summary"] = _with_power(dict(data["summary"]), meter, scope, label)
        elif event.kind == "summary":
            data["steps"] = [_with_power(dict(s), meter, scope, label) for s in data["steps"]]
        script.emit(event.kind, dt=dt, **data)
    return script.events


def _capacity(vus: int) -> float:
    from tests._fixtures.scripted import capacity

    return capacity(vus)


def _with_power(summary: dict[str, Any], meter: str, scope: str, label: str) -> dict[str, Any]:
    nopm = float(summary.get("nopm") or 0.0)
    w = watts(nopm)
    window = float(summary.get("window_s") or 0.0)
    summary.update(
        power_w=round(w, 3),
        energy_j=round(w * window, 1),
        mw_per_nopm=round(1000 * w / nopm, 4) if nopm else None,
        j_per_new_order=round(60 * w / nopm, 4) if nopm else None,
        idle_power_w=IDLE_W,
        power_meter=meter,
        power_scope=scope,
        power_label=label,
    )
    return summary
