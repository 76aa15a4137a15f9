"""Seed 004's multipliers, measured here: operations per second over the device's raw IOPS.

Makes two loop-device filesystems (root needed), one of them held by a cgroup to ``--iops``
random reads a second (a 7.2k disk does about 200-250), and runs the real agent's random-read
sweep on each with fio under a memory cgroup of ``--memory`` (the study's "RAM"): 1 KiB mmap
reads, 8 jobs, scrambled Zipfian 0.99, one point per dataset size, caches dropped between
points. Prints ops/s per dataset size and the multiplier over each device's raw IOPS (a
short direct-I/O 4 KiB random-read pass before the sweep), beside the seed's figures:
SSD 4.45x at 2x RAM and 3.15x at 4x RAM, 7.2k disk 2.12x down to 1.5x.

    sudo .venv/bin/python benchmarks/random_read_multiplier.py                 # ~10 minutes
    sudo .venv/bin/python benchmarks/random_read_multiplier.py --warmup 600 --measure 600

The seed warmed each point for 600 s; shorter warm-ups leave the slow device's cache colder
(it fills at the device's IOPS), so its multipliers come out lower than a long run's.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from _pytest.outcomes import Skipped

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests._fixtures, tests.workloads.random_read.agent.helpers

from bench_gui.wire.fio_sizes import MIB, format_size, parse_size  # noqa: E402
from tests._fixtures.loop import LoopDevices  # noqa: E402
from tests.workloads.random_read.agent.helpers import (  # noqa: E402
    agent_config,
    kinds,
    make_filesystem,
    run_agent,
    step_summaries,
    throttled,
)

SEED = "seed 004 (16 GB RAM): SSD 4.45x at 2x RAM, 3.15x at 4x RAM; 7.2k disk 2.12x to 1.5x"


def _sweep(
    args: argparse.Namespace, mount: Path, folder: Path, throttle: Any = None
) -> dict[str, Any]:
    config = agent_config(
        mount / "data",
        dataset_sizes=args.sizes,
        memory_limit=args.memory,
        warmup_s=args.warmup,
        measure_s=args.measure,
        raw_iops_s=args.raw,
        jobs=args.jobs,
    )
    events, done = run_agent(config, folder, throttle, timeout=24 * 3600)
    if done.returncode != 0:
        errors = [e["message"] for e in kinds(events, "error")]
        raise SystemExit(f"the sweep failed: {errors or done.stderr[-2000:]}")
    hello = events[0]
    return {"hello": hello, "steps": step_summaries(events)}


def _num(value: Any, digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _cache(step: dict[str, Any]) -> str:
    cached = step.get("data_cache_bytes")
    return "-" if cached is None else _num(cached / MIB)


def _warm(step: dict[str, Any]) -> str:
    taken = _num(step.get("warmup_taken_s"))
    return taken if step.get("warm") else f"{taken} cap"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iops", type=int, default=200, help="the slow device's read IOPS")
    parser.add_argument("--memory", default="256MiB", help="the study's RAM (a cgroup limit)")
    parser.add_argument(
        "--sizes", default="0.25,0.5,1,1.5,2,4", help="dataset sizes as RAM multiples"
    )
    parser.add_argument("--warmup", type=float, default=30.0, help="warm-up per point, s")
    parser.add_argument("--measure", type=float, default=15.0, help="measured window, s")
    parser.add_argument("--raw", type=float, default=10.0, help="raw-IOPS pass, s")
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()
    args.sizes = [float(x) for x in args.sizes.split(",")]
    largest = int(max(args.sizes) * parse_size(args.memory))
    disk_mib = largest // MIB + 256
    with tempfile.TemporaryDirectory(prefix="bench-gui-multiplier-") as tmp:
        folder = Path(tmp)
        loops = LoopDevices(folder)
        try:
            fast_dev = make_filesystem(loops, folder / "fast", disk_mib)
            slow_dev = make_filesystem(loops, folder / "slow", disk_mib)
            print(f"fast device {fast_dev}, slow device {slow_dev} held to {args.iops} IOPS;")
            print(f"largest dataset {format_size(largest)}; running the fast device...")
            sys.stdout.flush()
            fast = _sweep(args, folder / "fast", folder / "fast-run")
            print("running the slow device...")
            sys.stdout.flush()
            name = f"bench-gui-multiplier-{slow_dev}"
            with throttled(slow_dev, args.iops, name) as throttle:
                slow = _sweep(args, folder / "slow", folder / "slow-run", throttle)
        except Skipped as exc:
            print(f"cannot run here: {exc.msg}", file=sys.stderr)
            return 2
        finally:
            loops.cleanup()
    record = fast["hello"]["random_read"]
    print()
    print(
        f"{fast['hello']['fio_version']}, RAM = {record['memory']['label']},"
        f" {record['block_size']} B {record['ioengine']} reads, {record['jobs']} jobs,"
        f" zipf {record['zipf_theta']}, warm-up {args.warmup:g} s, measured {args.measure:g} s"
    )
    fast_raw, slow_raw = fast["steps"][0]["raw_iops"], slow["steps"][0]["raw_iops"]
    print(f"raw IOPS (4 KiB direct random reads): fast {_num(fast_raw)}, slow {_num(slow_raw)}")
    # The data's own page cache as each point ended (fio takes ~60 MiB of the limit itself),
    # and its warm-up: seconds until judged warm, "cap" where it never was (measured cold).
    print(
        f"{'dataset':>22} {'fast ops/s':>13} {'x raw':>8} {'cache MiB':>9} {'warm s':>7}"
        f" {'slow ops/s':>13} {'x raw':>9} {'cache MiB':>9} {'warm s':>7}"
    )
    for f, s in zip(fast["steps"], slow["steps"], strict=True):
        print(
            f"{f['dataset_label']:>22} {_num(f['ops_s']):>13} {_num(f['multiplier'], 2):>8}"
            f" {_cache(f):>9} {_warm(f):>7}"
            f" {_num(s['ops_s']):>13} {_num(s['multiplier'], 2):>9}"
            f" {_cache(s):>9} {_warm(s):>7}"
        )
    print(SEED)
    if args.json:
        figures = {
            "fast": {"raw_iops": fast_raw, "steps": fast["steps"]},
            "slow": {"raw_iops": slow_raw, "iops_limit": args.iops, "steps": slow["steps"]},
        }
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
