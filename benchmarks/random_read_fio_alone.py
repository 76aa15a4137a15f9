"""The product against fio alone: is a random-read point as fast as its stored fio command?

Makes a loop-device filesystem (root needed), runs the real agent's random-read sweep there
(fio under a memory cgroup of ``--memory``, one point in RAM and one past it), then runs the
fio commands the session stored - the warm-up for as long as the product's took, then the
measured window - alone in a fresh memory cgroup of the same limit after dropping caches.
Product and fio alone alternate ``--pairs`` times. Prints, per point, ops/s of each, their
ratio (product / fio alone), and the wall time of the product's whole run against the sum
of fio's own runs (its start-up and between-point overhead). Run it when the machine is
quiet: the load (``uptime``) is printed with the figures, because on a shared machine the
ratio says more about the neighbours than about the product.

    sudo .venv/bin/python benchmarks/random_read_fio_alone.py --pairs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests._fixtures, tests.workloads.random_read.agent.helpers

from bench_gui.wire.fio_sizes import parse_size  # noqa: E402
from bench_gui.workloads.random_read.agent.cgroup import MemoryCgroup  # noqa: E402
from bench_gui.workloads.random_read.agent.dataset import drop_caches  # noqa: E402
from bench_gui.workloads.random_read.agent.status import reading, window_result  # noqa: E402
from tests._fixtures.loop import LoopDevices  # noqa: E402
from tests.workloads.random_read.agent.helpers import (  # noqa: E402
    agent_config,
    kinds,
    make_filesystem,
    run_agent,
    step_summaries,
)


def _command(template: list[str], size: int, runtime_s: float | None = None) -> list[str]:
    argv = ["fio"]
    for arg in template:
        if arg.startswith("--size="):
            arg = f"--size={size}"
        elif arg.startswith("--runtime=") and runtime_s is not None:
            arg = f"--runtime={max(1, round(runtime_s * 1000))}ms"
        elif arg.startswith("--status-interval"):
            continue  # fio alone reports once, at the end
        argv.append(arg)
    return argv


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memory", default="256MiB", help="the study's RAM (cgroup limit)")
    parser.add_argument("--sizes", default="0.25,2", help="dataset sizes as multiples of RAM")
    parser.add_argument("--warmup", type=float, default=20.0, help="warm-up cap per point, s")
    parser.add_argument("--measure", type=float, default=10.0, help="measured window, s")
    parser.add_argument("--pairs", type=int, default=2, help="product / fio-alone pairs")
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("root is needed (loop devices, cgroups, dropping caches)")
    limit = parse_size(args.memory)
    sizes = [float(x) for x in args.sizes.split(",")]
    rows: dict[str, list[tuple[float, float]]] = {}
    walls: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory(prefix="rr-fio-alone-") as tmp:
        folder = Path(tmp)
        loops = LoopDevices(folder)
        try:
            mount = folder / "fs"
            device = make_filesystem(loops, mount)
            for pair in range(args.pairs):
                config = agent_config(
                    mount / "data",
                    dataset_sizes=sizes,
                    memory_limit=args.memory,
                    warmup_s=args.warmup,
                    measure_s=args.measure,
                    raw_iops_s=0,
                    monitor={"enabled": False},
                )
                started = time.monotonic()
                events, done = run_agent(config, folder / f"run{pair}")
                product_wall = time.monotonic() - started
                if done.returncode != 0:
                    errors = [e.get("message", "") for e in kinds(events, "error")]
                    raise SystemExit(f"the product's run failed: {errors} {done.stderr[-3000:]}")
                record = kinds(events, "hello")[0]["random_read"]
                alone_wall = 0.0
                for summary in step_summaries(events):
                    size = summary["dataset_bytes"]
                    drop_caches()
                    with MemoryCgroup(limit) as group:
                        # Warm-up then measure in one group, as the product does.
                        warm = _command(
                            record["fio_warmup_command"], size, summary["warmup_taken_s"]
                        )
                        t0 = time.monotonic()
                        subprocess.run(group.wrap(warm), capture_output=True, check=True)
                        measure = _command(record["fio_command"], size)
                        out = subprocess.run(
                            group.wrap(measure), capture_output=True, text=True, check=True
                        ).stdout
                        alone_wall += time.monotonic() - t0
                    final = json.loads(out[out.index("{") :])
                    found = reading(final)
                    alone = window_result(found).ops_s if found is not None else float("nan")
                    rows.setdefault(summary["dataset_label"], []).append((summary["ops_s"], alone))
                walls.append((product_wall, alone_wall))
        finally:
            loops.cleanup()
    print(f"device: {device} (a loop device on this host's disk, not throttled)")
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout
    print(f"load at the end: {load.strip()}")
    print(f"{'point':>24} {'product ops/s':>14} {'fio alone':>12} {'ratio':>7}")
    for label, pairs in rows.items():
        for product, alone in pairs:
            print(f"{label:>24} {product:>14,.0f} {alone:>12,.0f} {product / alone:>7.3f}")
        ratio = statistics.median(p / a for p, a in pairs)
        print(f"{label:>24} median ratio {ratio:.3f}")
    for product_wall, alone_wall in walls:
        print(
            f"wall: product {product_wall:.1f} s (agent start, file, sweep), fio alone"
            f" {alone_wall:.1f} s: overhead {product_wall - alone_wall:.1f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
