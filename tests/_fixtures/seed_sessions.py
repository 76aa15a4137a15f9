"""Sessions built from the seed briefs' published figures, stored in a real SessionStore.

Seed 000 (Micron S650DC RAID 10 vs 16 x 15K HDD RAID 10, PostgreSQL) publishes NOPM at 8 and
48 users (Tables 5 and 6), the ratios of Table 1 and the advantages of Tables 2 and 3. The
figures at the other user counts are chosen so that, under the comparison's rules (ratios
truncated, never rounded up), every printed ratio and advantage comes out as the seed prints
it - and 48 users stays the best case, as the seed says ("peak difference (29X) seen at 48
users").

Seed 003 (2 vs 4 Micron 9300, SQL Server) publishes only relative figures: 35% more NOPM at
saturation and 18% less power per NOPM, with saturation at 192 and 408 users. The sweeps below
saturate there under a 5% minimum-gain stop condition.

Every session is recorded the way the runner records one: create_run, the agent's events
(encoded and decoded like the real stream), finish_run.
"""

from __future__ import annotations

from typing import Any

from bench_gui.core.economics import ArrayInput, DevicePrice, PowerPrice
from bench_gui.wire.protocol import Event, decode_line, encode_event

T0 = 1_420_000_000.0
USERS = (8, 16, 24, 32, 40, 48, 56, 64)

# users: (S650DC NOPM, HDD NOPM)  - 8 and 48 users as published in Tables 5 and 6
SEED000_NOPM = {
    8: (30_267, 1_365),
    16: (52_000, 1_900),
    24: (66_000, 2_300),
    32: (75_000, 2_650),
    40: (81_201, 2_800),
    48: (86_654, 2_988),
    56: (84_000, 3_050),
    64: (83_000, 3_020),
}
# users: (S650DC avg ms, HDD avg ms) and (S650DC p99.9 ms, HDD p99.9 ms)
SEED000_AVG_MS = {
    8: (14, 300),
    16: (16, 420),
    24: (19, 520),
    32: (22, 600),
    40: (25, 700),
    48: (23, 800),
    56: (32, 900),
    64: (38, 1000),
}
SEED000_P999_MS = {
    8: (590, 2000),
    16: (650, 2100),
    24: (740, 2200),
    32: (870, 2300),
    40: (1050, 2400),
    48: (1190, 2500),
    56: (1320, 2600),
    64: (1340, 4500),
}
# What the seed prints.
TABLE1 = {8: "22X", 16: "27X", 24: "28X", 32: "28X", 40: "29X", 48: "29X", 56: "27X", 64: "27X"}
TABLE2 = {8: "95%", 16: "96%", 24: "96%", 32: "96%", 40: "96%", 48: "97%", 56: "96%", 64: "96%"}
TABLE3 = {8: "70%", 16: "69%", 24: "66%", 32: "62%", 40: "56%", 48: "52%", 56: "49%", 64: "70%"}

SSD_MODEL = "Micron S650DC 800GB"
HDD_MODEL = "SAS 15K RPM HDD 300GB"
PRICE_SOURCE = "Average of three single unit prices from web shopping results, at publication"
SEED000_PRICES = (
    DevicePrice(HDD_MODEL, 199.0, "USD", "2015-06-01", PRICE_SOURCE),
    DevicePrice(SSD_MODEL, 1262.0, "USD", "2015-06-01", PRICE_SOURCE),
)
# Tables 5 and 6 use $3440 for the HDD array although Table 4 says $199 x 16 = $3184.
HDD_HAND_COST = 3440.0

PG_SETTINGS = {
    "default_statistics_target": "100",
    "maintenance_work_mem": "2GB",
    "effective_cache_size": "72GB",
    "work_mem": "768MB",
    "shared_buffers": "30GB",
    "max_wal_size": "64GB",
    "checkpoint_timeout": "5min",
    "checkpoint_completion_target": "0.8",
    "seq_page_cost": "0.5",
    "bgwriter_delay": "15ms",
    "bgwriter_lru_maxpages": "1000",
}
SSD_SETTINGS = {**PG_SETTINGS, "random_page_cost": "2.0", "effective_io_concurrency": "1000"}
HDD_SETTINGS = {**PG_SETTINGS, "random_page_cost": "4.0", "effective_io_concurrency": "16"}

INVENTORY = {
    "hostname": "r730xd",
    "cpu": {"model": "Intel Xeon E5-2690 v3", "sockets": 2, "cores": 24, "threads": 48},
    "memory": {"total_bytes": 128 * 1024**3},
    "os": {"pretty_name": "CentOS Linux 7 (Core)"},
    "kernel": {"release": "3.10.0-229.el7.x86_64"},
    "block_devices": [],
}


def _devices(model: str, count: int, size: int, rotational: bool, fw: str) -> list[dict[str, Any]]:
    return [
        {
            "path": f"/dev/sd{chr(ord('b') + i)}",
            "model": model,
            "serial": f"{model[:4].upper()}{1000 + i}",
            "size_bytes": size,
            "rotational": rotational,
            "transport": "sas",
            "firmware": fw,
        }
        for i in range(count)
    ]


SSD_LAYOUT = {
    "devices": _devices(SSD_MODEL, 4, 800 * 10**9, False, "M012"),
    "raid": {"level": 10, "tool": "mdadm", "chunk_kb": 512},
    "filesystem": "xfs",
    "mount": "/dbtest",
    "mount_options": "noatime",
    "erase": "secure erase (sg_sanitize --crypto)",
}
HDD_LAYOUT = {
    "devices": _devices(HDD_MODEL, 16, 300 * 10**9, True, "ES64"),
    "raid": {"level": 10, "tool": "mdadm", "chunk_kb": 512},
    "filesystem": "xfs",
    "mount": "/dbtest",
    "mount_options": "noatime",
    "erase": "format only",
}


class Script:
    """Numbers events like the agent's EventWriter; each is encoded and decoded."""

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


def sweep(
    server: str,
    settings: dict[str, str],
    points: list[dict[str, Any]],
    rampup_s: float = 900.0,
    window_s: float = 900.0,
    power_samples: bool = False,
    status: str = "ok",
) -> list[Event]:
    """hello, then per point a step start, (power samples), a step end; summary, done.

    A point: vus, nopm, avg, p999, optional tpm, power_w (stored in the step summary, or as
    one sample a minute through the measured window when ``power_samples``), complete."""
    script = Script()
    script.emit(
        "hello",
        agent_version="0.1.0",
        engine="postgresql",
        server=server,
        settings=settings,
        config={"action": "run"},
        pid=1,
    )
    for i, p in enumerate(points):
        vus = p["vus"]
        script.emit(
            "step", 1.0, phase="start", step=i, vus=vus, rampup_s=rampup_s, duration_s=window_s
        )
        latency = {"avg": p["avg"], "p50": p["avg"] * 0.8, "p95": p["avg"] * 2}
        latency |= {"p99": p["p999"] * 0.6, "p999": p["p999"], "max": p["p999"] * 1.5}
        summary: dict[str, Any] = {
            "step": i,
            "vus": vus,
            "nopm": p["nopm"],
            "tpm": p.get("tpm", round(p["nopm"] * 2.3)),
            "nopm_driver": p["nopm"] * 0.999,
            "window_s": window_s,
            "rampup_s": rampup_s,
            "counts": {"new_order": int(p["nopm"] * window_s / 60)},
            "rollbacks": 0,
            "errors": {},
            "latency_ms": {"all": latency, "new_order": latency},
            "histograms": {},
            "complete": p.get("complete", True),
        }
        if power_samples and p.get("power_w") is not None:
            script.t += rampup_s
            for minute in range(int(window_s // 60) + 1):
                script.emit(
                    "sample",
                    0.0 if minute == 0 else 60.0,
                    step=i,
                    vus=vus,
                    phase="measure",
                    elapsed=rampup_s + 60.0 * minute,
                    nopm_db=p["nopm"],
                    tpm_db=p["nopm"] * 2.3,
                    latency_ms={"all": latency},
                    power={"watts": p["power_w"], "source": "ipmi"},
                )
        elif p.get("power_w") is not None:
            summary["power_w"] = p["power_w"]
            script.t += rampup_s + window_s
        else:
            script.t += rampup_s + window_s
        script.emit("step", 1.0, phase="end", step=i, vus=vus, summary=summary)
    script.emit("summary", 1.0, steps=[], status=status)
    script.emit("done", 1.0, status=status, message=f"{len(points)} steps")
    return script.events


def store_session(
    store: Any,
    name: str,
    events: list[Event],
    plan_extra: dict[str, Any] | None = None,
    inventory: dict[str, Any] | None = None,
    finish: bool = True,
    commands: tuple[str, ...] = (),
) -> int:
    plan: dict[str, Any] = {
        "name": name,
        "target": {"kind": "postgresql", "host": "r730xd", "port": 5432, "database": "tpcc"},
        "workload": {
            "warehouses": 7500,
            "virtual_users": [e.get("vus") for e in events if e.kind == "step"][::2],
            "rampup_s": 900.0,
            "duration_s": 900.0,
            "reset_between_steps": True,
        },
    }
    plan |= plan_extra or {}
    run_id: int = store.create_run(
        name, plan, f'name = "{name}"\n', plan["target"], "postgresql", kind="run"
    )
    for line in commands:
        store.add_log(run_id, "command", f"$ {line}")
    for event in events:
        store.add_event(run_id, event)
    if inventory is not None:
        detail = store.get_run(run_id)
        store.set_server_info(run_id, detail.server_version or "", detail.settings, inventory)
    if finish:
        final = events[-1]
        status = {"ok": "complete", "stopped": "incomplete"}.get(final.get("status"), "failed")
        store.finish_run(run_id, status)
    return run_id


def seed000_points(side: int) -> list[dict[str, Any]]:
    """side 0: the S650DC array, side 1: the HDD array."""
    return [
        {
            "vus": vus,
            "nopm": SEED000_NOPM[vus][side],
            "avg": SEED000_AVG_MS[vus][side],
            "p999": SEED000_P999_MS[vus][side],
        }
        for vus in USERS
    ]


# The commands the seed's sessions logged on their target.
SEED000_COMMANDS = (
    "mdadm --create /dev/md0 --level=10 --raid-devices=4 /dev/sdb /dev/sdc /dev/sdd /dev/sde",
    "mkfs.xfs /dev/md0",
    "mount -o noatime /dev/md0 /dbtest",
    'psql -c "CREATE DATABASE tpcc TEMPLATE wh7500 OWNER tpcc TABLESPACE dbtest"',
)


def build_seed000(store: Any, prices: bool = True) -> tuple[int, int]:
    """Store the seed's two sessions (and its prices); return (hdd_id, ssd_id)."""
    commands = SEED000_COMMANDS
    hdd = store_session(
        store,
        "HDD RAID 10 (16 x 15K SAS)",
        sweep("PostgreSQL 9.4.5 on x86_64-redhat-linux-gnu", HDD_SETTINGS, seed000_points(1)),
        plan_extra={"storage": HDD_LAYOUT},
        inventory={**INVENTORY, "block_devices": HDD_LAYOUT["devices"]},
        commands=commands,
    )
    ssd = store_session(
        store,
        "S650DC RAID 10 (4 x 800GB SAS SSD)",
        sweep("PostgreSQL 9.4.5 on x86_64-redhat-linux-gnu", SSD_SETTINGS, seed000_points(0)),
        plan_extra={"storage": SSD_LAYOUT},
        inventory={**INVENTORY, "block_devices": SSD_LAYOUT["devices"]},
        commands=commands,
    )
    if prices:
        for price in SEED000_PRICES:
            store.add_device_price(price)
        store.set_run_array(hdd, ArrayInput(hand_cost=HDD_HAND_COST, currency="USD"))
    return hdd, ssd


# ---- seed 003 -----------------------------------------------------------------------------------

# users: NOPM, avg ms, p99.9 ms, watts
SEED003_BASELINE = [
    (48, 200_000, 2.0, 20.0, 560.0),
    (96, 330_000, 2.4, 25.0, 610.0),
    (144, 400_000, 3.0, 30.0, 660.0),
    (192, 440_000, 3.6, 36.0, 700.0),
    (240, 445_000, 4.6, 48.0, 705.0),
]
SEED003_SCALED = [
    (48, 210_000, 1.8, 18.0, 600.0),
    (96, 350_000, 2.1, 22.0, 650.0),
    (192, 480_000, 2.9, 28.0, 710.0),
    (288, 550_000, 3.5, 33.0, 745.0),
    (408, 594_000, 4.4, 41.0, 774.0),
    (480, 600_000, 5.6, 55.0, 780.0),
]
POWER_PRICE = PowerPrice(0.12, "USD", "2019-09-01", "utility tariff")


def seed003_points(rows: list[tuple[int, int, float, float, float]]) -> list[dict[str, Any]]:
    return [
        {"vus": v, "nopm": n, "avg": a, "p999": p, "power_w": w, "tpm": round(n * 2.2)}
        for v, n, a, p, w in rows
    ]


def build_seed003(store: Any) -> tuple[int, int]:
    """Store seed 003's two configurations; return (baseline_id, scaled_id)."""
    base = store_session(
        store,
        "2x 9300 PRO mirrored (baseline)",
        sweep("Microsoft SQL Server 2017", {}, seed003_points(SEED003_BASELINE), 300, 600, True),
    )
    scaled = store_session(
        store,
        "4x 9300 PRO mirrored (scaled)",
        sweep("Microsoft SQL Server 2017", {}, seed003_points(SEED003_SCALED), 300, 600, False),
    )
    return base, scaled
