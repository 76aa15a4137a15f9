"""Up to six stored sessions of unlike systems, for the report's wording and page checks.

Seed 000's two arrays, then configurations chosen for what a report must say about them: one
that never saturates in the range tested (NOPM still +10% at its last step), one that
saturates at the first load tested, one whose storage nobody recorded (no inventory, no
layout), one with its settings stored as records with units (16384 x 8kB), and long names.
"""

from __future__ import annotations

from typing import Any

from bench_gui.store import SessionStore
from tests._fixtures.seed_sessions import (
    HDD_LAYOUT,
    HDD_SETTINGS,
    INVENTORY,
    SEED000_COMMANDS,
    build_seed000,
    seed000_points,
    store_session,
    sweep,
)

PG94 = "PostgreSQL 9.4.5 on x86_64-redhat-linux-gnu"
PG16 = "PostgreSQL 16.4 on x86_64-pc-linux-gnu, compiled by gcc"
NVME_LAYOUT = {
    "devices": [
        {
            "path": f"/dev/nvme{i}n1",
            "model": "Micron 7450 PRO 3.84TB",
            "size_bytes": 3_840 * 10**9,
            "rotational": False,
            "transport": "nvme",
            "firmware": "E2MU200",
            "erase": "nvme-format",
            "erase_label": "NVMe format (user data erase)",
            "scheduler": "none",
            "read_ahead_kib": 128,
        }
        for i in range(4)
    ],
    "array": {"level": "10", "backend": "mdadm", "devices": 4, "chunk_kib": 512},
    "filesystem": {"type": "xfs", "mkfs": "mkfs.xfs -f /dev/md0"},
    "mount": {
        "point": "/var/lib/postgresql/16/nvme",
        "options": "rw,noatime,attr2,inode64,logbufs=8,logbsize=32k,sunit=1024,swidth=2048",
        "owner": "postgres",
    },
}
# Settings as records with their unit: what the engine reads from pg_settings.
RECORD_SETTINGS: dict[str, Any] = {
    "shared_buffers": {"setting": "16384", "unit": "8kB", "source": "configuration file"},
    "effective_cache_size": {"setting": "3932160", "unit": "8kB", "source": "configuration file"},
    "checkpoint_timeout": {"setting": "900", "unit": "s", "source": "configuration file"},
    "random_page_cost": {"setting": "1.1", "unit": "", "source": "configuration file"},
    "max_connections": {"setting": "100", "unit": "", "source": "default", "boot_val": "100"},
    "work_mem": {"setting": "65536", "unit": "kB", "boot_val": "4096"},
    "DateStyle": {"setting": "ISO, MDY", "unit": "", "source": "configuration file"},
}


def points(rows: list[tuple[int, float, float, float]]) -> list[dict[str, Any]]:
    return [{"vus": v, "nopm": n, "avg": a, "p999": p} for v, n, a, p in rows]


# Still +10.6% at its last step (32 users): not saturated within the range tested.
NEVER_SATURATES = [
    (4, 20_000, 1.2, 9.0),
    (8, 38_000, 1.3, 9.5),
    (16, 60_000, 1.6, 11.0),
    (24, 75_000, 1.9, 12.5),
    (32, 82_950, 2.3, 14.0),
]
# NOPM falls after the first step: saturated at the first load tested.
FIRST_STEP = [
    (4, 9_000, 3.0, 40.0),
    (8, 9_100, 5.8, 75.0),
    (16, 8_700, 12.0, 160.0),
    (24, 8_500, 19.0, 240.0),
    (32, 8_300, 26.0, 330.0),
]
CLOUD = [
    (4, 4_000, 6.0, 60.0),
    (8, 7_000, 7.0, 70.0),
    (16, 11_000, 9.5, 95.0),
    (24, 12_000, 13.0, 140.0),
    (32, 12_100, 17.0, 190.0),
]


def nvme(store: SessionStore, name: str) -> int:
    run = store_session(
        store,
        name,
        sweep(PG16, {}, points(NEVER_SATURATES), 300, 600),
        plan_extra={"notes": "Tuned for NVMe: random_page_cost 1.1, 128MB shared_buffers."},
        inventory={**INVENTORY, "hostname": "db-nvme", "storage_layout": NVME_LAYOUT},
    )
    detail = store.get_run(run)
    store.set_server_info(run, detail.server_version or PG16, RECORD_SETTINGS, None)
    return run


def hdd_repeat(
    store: SessionStore,
    scale: float,
    name: str = "HDD RAID 10 (16 x 15K SAS)",
    commands: tuple[str, ...] = SEED000_COMMANDS,
) -> int:
    """Seed 000's HDD array measured again (its NOPM times ``scale``): the baseline's repeat."""
    again = [{**p, "nopm": p["nopm"] * scale} for p in seed000_points(1)]
    return store_session(
        store,
        name,
        sweep(PG94, HDD_SETTINGS, again),
        plan_extra={"storage": HDD_LAYOUT},
        inventory={**INVENTORY, "block_devices": HDD_LAYOUT["devices"]},
        commands=commands,
    )


def fleet(store: SessionStore, count: int) -> list[int]:
    """``count`` sessions (1 to 12), the first the baseline."""
    hdd, ssd = build_seed000(store)
    ids = [hdd, ssd]
    if count >= 3:
        ids.append(nvme(store, "PostgreSQL 16 on 4 x Micron 7450 NVMe RAID 10 with tuned settings"))
    if count >= 4:
        ids.append(
            store_session(
                store,
                "PostgreSQL 16 on 2 x SATA SSD mirror, default settings",
                sweep(PG16, {"max_connections": "200"}, points(FIRST_STEP), 300, 600),
                plan_extra={"os": {"preset": "", "knobs": {"vm.swappiness": "1"}}},
                inventory={**INVENTORY, "hostname": "db-sata"},
            )
        )
    if count >= 5:
        cloud = store_session(
            store, "Cloud volume gp3 3000 IOPS", sweep(PG16, {}, points(CLOUD), 300, 600)
        )
        store.set_note(cloud, "Provisioned 3000 IOPS, 125 MB/s; instance r6i.4xlarge.")
        ids.append(cloud)
    if count >= 6:
        ids.append(
            hdd_repeat(
                store, 1.02, "HDD RAID 10 (16 x 15K SAS), second run after a firmware update", ()
            )
        )
    # 7 to 12: NVMe arrays of other device counts, for the layouts of wide comparisons.
    for n, scale in zip((2, 6, 8, 10, 12, 16), (0.6, 1.1, 1.2, 1.25, 1.3, 1.35), strict=True):
        if len(ids) >= count:
            break
        rows = [(v, nopm * scale, a, p) for v, nopm, a, p in NEVER_SATURATES]
        ids.append(
            store_session(
                store,
                f"PostgreSQL 16 on {n} x Micron 7450 NVMe RAID 10",
                sweep(PG16, {}, points(rows), 300, 600),
                inventory={**INVENTORY, "hostname": f"db-nvme{n}"},
            )
        )
    return ids[:count]


# Names as the seeds' authors write them: long, with what sets them apart in parentheses.
SEED_LIKE_NAMES = [
    "HDD RAID 10 (16 x Seagate 15K 300GB), PostgreSQL 15",
    "Micron S650DC RAID 10 (4 x 800GB), PostgreSQL 15",
    "Micron S650DC RAID 10 (4 x 800GB), PostgreSQL 15 tuned",
    "SATA SSD mirror (2 x Samsung PM883 960GB), PostgreSQL 16",
    "Cloud volume gp3 (3000 IOPS, 125 MB/s), PostgreSQL 16",
    "HDD RAID 10 (16 x Seagate 15K 300GB), PostgreSQL 15",
] + [f"Micron 7450 NVMe RAID 10 ({n} x 3.84TB), PostgreSQL 16" for n in (2, 6, 8, 10, 12, 16)]


def seed_like_fleet(store: SessionStore, count: int) -> list[int]:
    """:func:`fleet` with :data:`SEED_LIKE_NAMES`."""
    ids = fleet(store, count)
    for sid, name in zip(ids, SEED_LIKE_NAMES, strict=False):
        store.rename_run(sid, name)
    return ids
