"""Time the test suite (or some of its files) on N pytest-xdist workers.

    python benchmarks/suite_time.py [-n 3] [--write-durations] [PYTEST PATHS...]

Prints the wall time and the ten slowest files (the sum of their tests' setup, call and
teardown, from pytest's JUnit XML); --write-durations stores those per-file seconds in
tests/durations.json, which tests/_fixtures/schedule.py reads to start the longest files first.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def per_file_seconds(junit: Path) -> dict[str, float]:
    seconds: dict[str, float] = defaultdict(float)
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("classname", "").split(".")
        # classname is the module path with dots, then maybe a class: find the test_*.py file
        for end in range(len(name), 0, -1):
            path = "/".join(name[:end]) + ".py"
            if (ROOT / path).is_file():
                seconds[path] += float(case.get("time", 0) or 0)
                break
    return dict(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=3, help="workers (1: serial)")
    parser.add_argument("--write-durations", action="store_true")
    parser.add_argument("paths", nargs="*")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        junit = Path(scratch) / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", "-q", f"--junitxml={junit}", *args.paths]
        if args.n > 1:
            cmd[3:3] = ["-n", str(args.n)]
        started = time.monotonic()
        rc = subprocess.call(cmd, cwd=ROOT)
        wall = time.monotonic() - started
        seconds = per_file_seconds(junit) if junit.is_file() else {}
    print(f"\nwall time: {wall / 60:.1f} min ({wall:.0f} s) on {args.n} worker(s), exit {rc}")
    for path, s in sorted(seconds.items(), key=lambda kv: -kv[1])[:10]:
        print(f"  {s:8.1f} s  {path}")
    if args.write_durations and seconds:
        out = ROOT / "tests" / "durations.json"
        out.write_text(json.dumps(dict(sorted(seconds.items())), indent=1) + "\n")
        print(f"wrote {out}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
