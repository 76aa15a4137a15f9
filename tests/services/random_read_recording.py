"""A real random-read run recorded for the Live view's tests: the real agent runs real fio on a
loop-device filesystem under a small memory cgroup, and its events are kept as it wrote them.

By default three dataset sizes around the cgroup's "RAM" (half, once, twice), short windows, a
raw-IOPS pass and host metrics on the loop device: every kind of event the Live view reads, in
about twenty seconds. What this host cannot do (no root, no fio, no memory cgroups) is a skip
that says so.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from bench_gui.wire.protocol import Event, decode_line
from tests._fixtures.loop import LoopDevices
from tests.workloads.random_read.agent.helpers import (
    agent_config,
    make_filesystem,
    memory_cgroups_usable,
    need_fio,
    need_root,
    run_agent,
)

LIMIT_MIB = 64
MULTIPLES = (0.5, 1, 2)
WARMUP_S = 2
MEASURE_S = 3


def record_run(
    folder: Path,
    multiples: Sequence[float] = MULTIPLES,
    warmup_s: float = WARMUP_S,
    measure_s: float = MEASURE_S,
) -> tuple[list[Event], str]:
    """The events of one real random-read run (decoded as the desktop decodes them) and the
    name of the loop device the data file was on. Loop devices are gone when it returns."""
    need_root()
    need_fio()
    memory_cgroups_usable()
    loops = LoopDevices(folder)
    file_mib = int(max(multiples) * LIMIT_MIB)
    try:
        device = make_filesystem(loops, folder / "mnt", size_mib=max(200, file_mib + 100))
        config = agent_config(
            folder / "mnt" / "data",
            dataset_sizes=list(multiples),
            memory_limit=f"{LIMIT_MIB}MiB",
            warmup_s=warmup_s,
            measure_s=measure_s,
            raw_iops_s=2,
        )
        raw, done = run_agent(config, folder / "run")
    finally:
        loops.cleanup()
    assert done.returncode == 0, done.stderr[-3000:]
    return [decode_line(json.dumps(e)) for e in raw], device


def recorded(factory: pytest.TempPathFactory) -> tuple[list[Event], str]:
    """The default recording, made once per test session (kept under the session's base temp
    folder, so the Live view's service and page tests read the same real run)."""
    cache = factory.getbasetemp() / "random-read-recording.jsonl"
    if not cache.exists():
        events, device = record_run(factory.mktemp("random-read-recording"))
        lines = [device] + [e.to_line() for e in events]
        cache.write_text("\n".join(lines) + "\n")
    device, *lines = cache.read_text().splitlines()
    return [decode_line(line) for line in lines], device
