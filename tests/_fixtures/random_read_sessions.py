"""Stored random-read sessions with seed 004's figures, written through the store's real API.

The events have the shape the agent sends (hello with its ``random_read`` record, the raw-IOPS
progress event, one step end per dataset size with its summary, samples, done), so the store
files them as it files a real run. The figures are the seed's: two desktops with 16 GiB of
RAM, a Crucial m4 SSD (33k raw IOPS) and a 7.2k 3 TB disk (250 raw IOPS); at 2x and 4x RAM the
SSD serves 4.45X and 3.15X its raw IOPS, the disk 2.12X and 1.5X.
"""

from __future__ import annotations

from typing import Any

from bench_gui.wire.fio_sizes import GIB, format_multiple, format_size
from bench_gui.wire.protocol import Event

RAM = 16 * GIB
MULTIPLES = (0.5, 1.0, 1.5, 2.0, 4.0)
# ops/s at each multiple of MULTIPLES, and the raw IOPS of the device.
SSD = {"raw": 33_000.0, "ops": (3_100_000.0, 620_000.0, 210_000.0, 146_850.0, 103_950.0)}
HDD = {"raw": 250.0, "ops": (2_600_000.0, 9_000.0, 810.0, 530.0, 375.0)}


def _hello(file: str, raw: float, multiples: tuple[float, ...], memory: int) -> dict[str, Any]:
    return {
        "agent_version": "0.1.0",
        "engine": "fio",
        "workload": "random_read",
        "fio_version": "fio-3.33",
        "random_read": {
            "file": file,
            "file_bytes": int(max(multiples) * memory),
            "device": "sdb",
            "points": [
                {
                    "bytes": int(m * memory),
                    "label": f"{format_multiple(m)} ({format_size(m * memory)})",
                    "multiple": m,
                }
                for m in multiples
            ],
            "memory": {
                "bytes": memory,
                "source": "cgroup_limit",
                "label": f"cgroup limit: {format_size(memory)}",
            },
            "caches_dropped": True,
            "block_size": 1024,
            "jobs": 8,
            "ioengine": "mmap",
            "direct": False,
            "zipf_theta": 0.99,
            "warmup_s": 600.0,
            "measure_s": 600.0,
            "raw_iops_s": 30.0,
            "raw_method": "4 KiB random reads, direct I/O, libaio queue depth 32",
            "fio_command": [
                "--name=bench-gui-random-read",
                f"--filename={file}",
                "--size=<dataset bytes>",
                "--rw=randread",
                "--random_distribution=zipf:0.99:0",
                "--bs=1024",
                "--numjobs=8",
                "--ioengine=mmap",
            ],
        },
    }


def random_read_events(
    file: str,
    raw: float | None,
    ops: tuple[float, ...],
    multiples: tuple[float, ...] = MULTIPLES,
    memory: int = RAM,
    data_cache: tuple[int | None, ...] | None = None,
) -> list[Event]:
    """The events of one random-read run (``raw`` None: no raw-IOPS pass; ``data_cache``:
    each point's measured data cache, none stored when None)."""
    t = 1_795_000_000.0
    seq = iter(range(1, 10_000))
    events = [Event("hello", next(seq), t, _hello(file, raw or 0.0, multiples, memory))]
    if raw is not None:
        events.append(
            Event(
                "progress",
                next(seq),
                t + 1,
                {
                    "task": "raw_iops",
                    "stage": "done",
                    "raw_iops": {
                        "iops": raw,
                        "block_size": 4096,
                        "direct": True,
                        "method": "4 KiB random reads, direct I/O, libaio queue depth 32",
                        "latency_ms": {"p50": 0.2, "p99": 1.2, "p999": 4.0},
                    },
                },
            )
        )
    for step, (multiple, value) in enumerate(zip(multiples, ops, strict=True)):
        size = int(multiple * memory)
        label = f"{format_multiple(multiple)} ({format_size(size)})"
        # A miss costs the device's access time (1 / raw IOPS per job); in RAM microseconds.
        access = 8.0 * 1000.0 / (raw or 1000.0)
        miss = 0.0 if multiple < 1 else min(1.0, 1.0 - 1.0 / multiple + 0.3)
        latency = {
            "read": {
                "p50": 0.0006,
                "p99": 0.004 + miss * access,
                "p999": 0.02 + miss * access * 4,
            }
        }
        for second in range(3):
            events.append(
                Event(
                    "sample",
                    next(seq),
                    t + 10 * step + second,
                    {
                        "step": step,
                        "vus": 8,
                        "phase": "warmup" if second == 0 else "measure",
                        "elapsed": float(second),
                        "workload": "random_read",
                        "ops_s": value,
                        "mbs": value / 1000,
                        "dataset_bytes": size,
                    },
                )
            )
        events.append(
            Event(
                "step",
                next(seq),
                t + 10 * step + 5,
                {
                    "phase": "end",
                    "step": step,
                    "vus": 8,
                    "summary": {
                        "step": step,
                        "vus": 8,
                        "workload": "random_read",
                        "dataset_bytes": size,
                        "dataset_label": label,
                        "ram_multiple": multiple,
                        "ram_ratio": multiple,
                        "memory_bytes": memory,
                        "ops_s": value,
                        "mbs": value * 1024 / 1e6,
                        "window_s": 600.0,
                        "latency_ms": latency,
                        "raw_iops": raw,
                        "multiplier": None if raw is None else round(value / raw, 3),
                        "complete": True,
                        "memory_peak_bytes": min(size, memory),
                        **(
                            {"data_cache_bytes": data_cache[step]} if data_cache is not None else {}
                        ),
                    },
                },
            )
        )
    events.append(Event("done", next(seq), t + 100, {"status": "ok"}))
    return events


def store_random_read(
    store: Any,
    name: str,
    raw: float | None,
    ops: tuple[float, ...],
    multiples: tuple[float, ...] = MULTIPLES,
    memory: int = RAM,
    data_cache: tuple[int | None, ...] | None = None,
) -> int:
    """A finished random-read session in ``store``; its id."""
    file = f"/mnt/{name.split()[0].lower()}/bench-gui-random-read.dat"
    plan = {
        "name": name,
        "workload": {
            "kind": "random_read",
            "dataset_sizes": list(multiples),
            "block_size": "1k",
            "jobs": 8,
            "memory_limit": format_size(memory).replace(" ", ""),
            "file": file,
        },
    }
    target = {"kind": "random_read", "host": "local", "file": file, "driver": ""}
    run_id: int = store.create_run(name, plan, f'name = "{name}"\n', target, "fio")
    for event in random_read_events(file, raw, ops, multiples, memory, data_cache):
        store.add_event(run_id, event)
    store.finish_run(run_id, "complete")
    return run_id


def seed004(store: Any) -> tuple[int, int]:
    """The seed's two desktops: (disk session, SSD session)."""
    hdd = store_random_read(store, "HDD 7.2k 3TB", HDD["raw"], HDD["ops"])
    ssd = store_random_read(store, "SSD Crucial m4 128GB", SSD["raw"], SSD["ops"])
    return hdd, ssd
