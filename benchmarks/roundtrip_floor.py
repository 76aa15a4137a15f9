"""The round-trip floor: the client CPU of the cheapest prepared call through the same driver.

A virtual user's transaction is one prepared call to the server, so no driver can spend less
client CPU per transaction than one prepared round trip through the same client library costs.
``driver_overhead.py`` measures this floor in the same run as the driver, for the engine it
drives, and prints the driver's CPU per transaction as a multiple of it (issue 30):

- PostgreSQL: libpq through psycopg's ``pq`` layer (what the virtual users call), a prepared
  ``SELECT $1::int`` executed in a loop;
- MariaDB/MySQL: pyodbc with the same ODBC driver, a prepared ``SELECT ?`` in a loop.

The CPU is this thread's own (``time.thread_time``), so other processes on a loaded machine do
not count; the server's share of the round trip is not the client's either.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Floor:
    calls: int
    cpu_s: float
    wall_s: float

    @property
    def cpu_us_per_call(self) -> float:
        return self.cpu_s / self.calls * 1e6 if self.calls else float("nan")


def _loop(call: Any, done: Any, pace: float = 0.0) -> Floor:
    """Call ``call`` repeatedly until ``done()`` (after a short warm-up), sleeping ``pace``
    seconds after each call when given."""
    for _ in range(200):
        call()
    calls = 0
    wall0, cpu0 = time.monotonic(), time.thread_time()
    batch = 1 if pace else 20
    while True:
        for _ in range(batch):
            call()
        calls += batch
        if pace:
            time.sleep(pace)
        if done():
            break
    return Floor(calls, time.thread_time() - cpu0, time.monotonic() - wall0)


def _for(seconds: float) -> Any:
    end = time.monotonic() + seconds
    return lambda: time.monotonic() >= end


def pg_floor(conninfo: str, done: Any, pace: float = 0.0) -> Floor:
    """Prepared ``SELECT $1::int`` round trips over libpq (psycopg.pq), as the users call."""
    from psycopg import pq

    conn = pq.PGconn.connect(conninfo.encode())
    if conn.status != pq.ConnStatus.OK:
        raise ConnectionError(conn.error_message.decode(errors="replace"))
    try:
        res = conn.prepare(b"floor", b"SELECT $1::int")
        if res.status != pq.ExecStatus.COMMAND_OK:
            raise RuntimeError(res.error_message.decode(errors="replace"))
        ok = pq.ExecStatus.TUPLES_OK
        params = [b"1"]

        def call() -> None:
            result = conn.exec_prepared(b"floor", params)
            if result.status != ok:
                raise RuntimeError(result.error_message.decode(errors="replace"))

        return _loop(call, done, pace)
    finally:
        conn.finish()


def odbc_floor(conninfo: str, flavour: str, done: Any, pace: float = 0.0) -> Floor:
    """Prepared ``SELECT ?`` round trips through pyodbc and the engine's ODBC driver (pyodbc
    prepares a statement once and re-executes it while the SQL text stays the same)."""
    from bench_gui.engines.mariadb.shared import odbc

    conn = odbc.connect(conninfo, flavour)
    try:
        cursor = conn.cursor()

        def call() -> None:
            cursor.execute("SELECT ?", 1)
            cursor.fetchone()

        return _loop(call, done, pace)
    finally:
        conn.close()


def measure(
    engine: str, conninfo: str, seconds: float | None, stop: Any = None, pace: float = 0.0
) -> Floor:
    """The floor of ``engine`` (``postgresql``, ``mariadb`` or ``mysql``), for ``seconds`` or
    until the event ``stop`` is set."""
    done = _for(seconds) if seconds is not None else stop.is_set
    if engine == "postgresql":
        return pg_floor(conninfo, done, pace)
    return odbc_floor(conninfo, engine, done, pace)


def _floor_process(engine: str, conninfo: str, stop: Any, out: Any) -> None:
    floor = measure(engine, conninfo, None, stop, PACE_S)
    out.send((floor.calls, floor.cpu_s, floor.wall_s))


# The floor alongside sleeps this long after each call, as a user waits on its transaction.
PACE_S = 0.001


class FloorAlongside:
    """The floor measured in a process of its own while the driver runs (started and stopped
    with the measured window), one call per millisecond: its round trips then meet the same
    loaded CPUs and the caches the server's transactions keep cold, and each begins from a
    sleep as a user's does. The idle floor (a tight loop on an idle server) is the lower
    bound: it keeps its own code and data in the caches, which no driver sharing the CPUs with
    a busy server can. (The calls count in the database's TPM, not in NOPM.)"""

    def __init__(self, engine: str, conninfo: str) -> None:
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self.stop = ctx.Event()
        self.reader, writer = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(
            target=_floor_process, args=(engine, conninfo, self.stop, writer), daemon=True
        )
        self.proc.start()
        writer.close()

    def result(self) -> Floor | None:
        self.stop.set()
        try:
            calls, cpu_s, wall_s = self.reader.recv() if self.reader.poll(30) else (0, 0, 0)
        except EOFError:
            return None
        finally:
            self.proc.join(timeout=5)
        return Floor(calls, cpu_s, wall_s) if calls else None


def _proc_cpu(pid: int, *, with_children: bool) -> float:
    """CPU seconds of one process (all its threads), with its reaped children's when asked."""
    from os import sysconf
    from pathlib import Path

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    if with_children:
        ticks += int(fields[13]) + int(fields[14])  # cutime, cstime
    return ticks / sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    from pathlib import Path

    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


class ServerCpu:
    """The CPU the server under test spends, when it runs on this machine: PostgreSQL's
    postmaster with its backends (reaped ones included, through the postmaster's children's
    times), or the one mariadbd/mysqld process. ``None`` figures when it is not local."""

    def __init__(self, engine: str, conninfo: str) -> None:
        self.pid: int | None = None
        self.postgres = engine == "postgresql"
        try:
            self.pid = self._find(engine, conninfo)
            self.seconds()
        except Exception:  # noqa: BLE001 (a remote server or another user's: no figure)
            self.pid = None

    def _find(self, engine: str, conninfo: str) -> int:
        if self.postgres:
            return self._postmaster(conninfo)
        from bench_gui.engines.mariadb.shared import odbc

        conn = odbc.connect(conninfo, engine)
        try:
            pid_file = conn.cursor().execute("SELECT @@pid_file").fetchone()[0]
        finally:
            conn.close()
        return int(Path(pid_file).read_text().split()[0])

    @staticmethod
    def _postmaster(conninfo: str) -> int:
        from psycopg import pq

        conn = pq.PGconn.connect(conninfo.encode())
        try:
            res = conn.exec_(b"SELECT current_setting('data_directory')")
            folder = res.get_value(0, 0).decode()
        finally:
            conn.finish()
        return int(Path(folder, "postmaster.pid").read_text().split()[0])

    def seconds(self) -> float | None:
        if self.pid is None:
            return None
        total = _proc_cpu(self.pid, with_children=self.postgres)
        if self.postgres:
            for child in _children(self.pid):
                try:
                    total += _proc_cpu(child, with_children=True)
                except OSError:
                    pass  # it ended meanwhile (its times are now in the postmaster's)
        return total


class WindowCpu:
    """CPU of the driver (worker processes and this process) and of the server over a step's
    measured window alone, with the transactions counted in it: the start-up of the worker
    processes (a spawned interpreter's imports, connecting, preparing) is a fixed cost that the
    whole step's figure spreads over its transactions, the window's steady state is what a
    transaction costs."""

    def __init__(self, step: Any, server: ServerCpu, floor: Any = None) -> None:
        import threading

        self.step = step
        self.server = server
        self.floor = floor  # what starts a FloorAlongside at the window's start, or None
        self.alongside: FloorAlongside | None = None
        self.samples: list[tuple[float, float | None, int]] = []
        # Each worker's CPU at the window's start and as last read: a worker whose /proc entry
        # is gone at the end (it exited) keeps its last reading, so no worker's share can be
        # negative and their sum never falls below what was read at the start.
        self.workers_start: dict[int, float] = {}
        self.workers_last: dict[int, float] = {}
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _read_workers(self) -> dict[int, float]:
        seen = {}
        for proc, _writer in self.step.procs:
            try:
                seen[proc.pid] = _proc_cpu(proc.pid, with_children=False)
            except (OSError, TypeError):
                pass  # not started, or gone: its last reading stands
        return seen

    def _sample(self) -> tuple[float, float | None, int]:
        import resource

        for pid, cpu in self._read_workers().items():
            self.workers_last[pid] = max(cpu, self.workers_last.get(pid, 0.0))
        me = resource.getrusage(resource.RUSAGE_SELF)
        return (
            me.ru_utime + me.ru_stime,
            self.server.seconds(),
            sum(self.step.driver_counts()),
        )

    def workers_seconds(self) -> float:
        """The workers' CPU in the window, never negative (see ``workers_start``)."""
        return sum(
            max(0.0, self.workers_last.get(pid, start) - start)
            for pid, start in self.workers_start.items()
        )

    def _watch(self) -> None:
        from bench_gui.agent.users import FLAG_MEASURING, FLAG_STOP

        flags = self.step.flags
        while not flags[FLAG_MEASURING] and not flags[FLAG_STOP]:
            time.sleep(0.02)
        if flags[FLAG_STOP]:
            return
        self.samples.append(self._sample())
        self.workers_start = dict(self.workers_last)
        if self.floor is not None:
            self.alongside = self.floor()
        # (a coarse poll: this thread's CPU counts as the supervising process'; the workers'
        # CPU is read each second so that one exiting early keeps a recent reading)
        polls = 0
        while flags[FLAG_MEASURING] and not flags[FLAG_STOP]:
            time.sleep(0.05)
            polls += 1
            if polls % 20 == 0:
                self._sample()
        self.samples.append(self._sample())

    def result(self) -> dict[str, float] | None:
        """µs per transaction in the window: workers, supervisor, server (NaN: not local)."""
        self._thread.join(timeout=5)
        if len(self.samples) < 2:
            return None
        (s0, v0, n0), (s1, v1, n1) = self.samples
        n = n1 - n0
        if n <= 0:
            return None
        server = (v1 - v0) / n * 1e6 if v0 is not None and v1 is not None else float("nan")
        return {
            "workers": self.workers_seconds() / n * 1e6,
            "supervisor": max(0.0, s1 - s0) / n * 1e6,
            "server": server,
            "transactions": float(n),
        }
