"""Chaos: a real run over a loopback sshd survives link cuts, a killed desktop, a hung database.

Everything is real and private to the script: an sshd on 127.0.0.1 (its own host and client
keys), an embedded PostgreSQL with a 1-warehouse TPROC-C database, the agent deployed over
SFTP into the script's folder (``BENCH_GUI_REMOTE_ROOT``), the session store. Three scenarios:

1. **link cuts**: a sweep followed over SSH while the sshd process serving the follower is
   killed ``--cuts`` times; for each cut, the time until the link was restored and until the
   first event over it came in;
2. **desktop kill**: ``bench-gui run --driver`` in a subprocess, killed with SIGKILL mid-run
   (the agent goes on, detached on the host), then ``bench-gui attach``: how long it took and
   what it fetched;
3. **database hang**: ``benchmarks/chaos_db_hang.py`` (the server's processes stopped with
   SIGSTOP, a stall that ends and one that does not): samples during the stall and the time
   to a clean failure;
4. **forged seq pair**: ``benchmarks/chaos_forged_seq.py`` (two far-future seqs appended to a
   live run's spool): the run's status, the bad lines, samples lost and duplicated;
5. **database away for a moment**: ``benchmarks/chaos_db_restart.py`` (a restart mid-step,
   one virtual user's backend ended, a hang during the reset between steps): runs survived,
   samples lost and duplicated against the agent's spool, time to recover.

For 1 and 2 the ground truth is the agent's own spool on the host: every sample it wrote must
be stored once (lost: in the spool, not in the store; duplicated: delivered twice to the
consumer, or stored twice). The whole script takes about four minutes.

    python benchmarks/chaos.py
    python benchmarks/chaos.py --cuts 8 --duration 30 --json
    python benchmarks/chaos.py --no-db-hang --no-db-restart
    python benchmarks/chaos.py --no-forged-seq
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests._fixtures
sys.path.insert(0, str(ROOT / "benchmarks"))  # stream_latency, chaos_db_hang, chaos_db_restart

TARGET = "chaos"
WAIT_S = 300.0


def spool_samples(run_dir: Path) -> list[int]:
    """The seqs of the samples the agent wrote to its spool (the ground truth)."""
    from bench_gui.wire.protocol import ProtocolError, decode_line

    seqs = []
    for line in (run_dir / "events.jsonl").read_text(errors="replace").splitlines():
        try:
            event = decode_line(line)
        except ProtocolError:
            continue
        if event.kind == "sample":
            seqs.append(event.seq)
    return seqs


def stored_samples(db: Path, session_id: int) -> list[int]:
    from bench_gui.store import SessionStore

    with SessionStore(db) as store:
        return [s.seq for s in store.samples(session_id)]


def compare(spool: list[int], stored: list[int], delivered: list[int] | None) -> dict[str, Any]:
    """Samples lost and duplicated, against the spool."""
    twice = sum(n - 1 for n in Counter(stored).values())
    return {
        "samples_in_spool": len(spool),
        "samples_stored": len(stored),
        "samples_lost": len(set(spool) - set(stored)),
        "samples_duplicated_in_store": twice,
        "samples_delivered_twice": None
        if delivered is None
        else sum(n - 1 for n in Counter(delivered).values()),
    }


def plan_for(database: str, socket_dir: str, vus: list[int], duration_s: float) -> Any:
    from bench_gui.core.plan_model import Driver, Plan, Target
    from bench_gui.wire.run_config import Workload

    workload = Workload(
        warehouses=1, virtual_users=vus, rampup_s=2, duration_s=duration_s, processes=1
    )
    target = Target(kind="postgresql", host=socket_dir, database=database)
    return Plan(name=f"chaos {database}", target=target, workload=workload, driver=Driver(TARGET))


def link_cuts(server: Any, db: Path, cuts: int, duration_s: float, sshd: Any) -> dict[str, Any]:
    """A two-step sweep over SSH with ``cuts`` link cuts spread over it."""
    from bench_gui.services.run import RunController
    from bench_gui.store import SessionStore

    server.clone_tpcc("chaos_cuts", 1)
    plan = plan_for("chaos_cuts", server.socket_dir, [1, 2], duration_s)
    samples_expected = 2 * (plan.workload.rampup_s + duration_s)
    every = max(2, int(samples_expected // (cuts + 1)))
    notices: list[tuple[float, str]] = []
    lock = threading.Lock()
    delivered: list[int] = []
    rows: list[dict[str, float]] = []
    cut_at: float | None = None
    with SessionStore(db) as store:
        controller = RunController(plan, store)

        def notice(state: str, _detail: str) -> None:
            with lock:
                notices.append((time.monotonic(), state))

        controller.on_notice = notice
        for event in controller.events():
            now = time.monotonic()
            if event.kind != "sample":
                continue
            delivered.append(event.seq)
            if cut_at is not None:
                with lock:
                    restored = [t for t, s in notices if s == "restored" and t > cut_at]
                if restored:  # the first sample over the new link
                    rows.append({"restored_s": restored[0] - cut_at, "first_event_s": now - cut_at})
                    cut_at = None
            due = cut_at is None and len(rows) < cuts and len(delivered) % every == 0
            port = getattr(controller.agent, "local_port", None) if due else None
            if port and sshd.cut(port):
                cut_at = time.monotonic()
        session_id = controller.session_id
        run_dir = Path(str(getattr(controller.agent, "run_dir", "")))
        status = store.get_run(session_id).status if session_id else None
    assert session_id is not None
    return {
        "cuts": len(rows),
        "resume": rows,
        "status": status,
        **compare(spool_samples(run_dir), stored_samples(db, session_id), delivered),
    }


def bench(*args: str, db: Path, **popen: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bench_gui", "--db", str(db), *args],
        text=True,
        env=dict(os.environ),
        **popen,
    )


def desktop_kill(server: Any, db: Path, workdir: Path, duration_s: float) -> dict[str, Any]:
    """``bench-gui run`` killed with SIGKILL a few samples in, then ``bench-gui attach``."""
    from bench_gui.store import SessionStore

    server.clone_tpcc("chaos_kill", 1)
    plan_file = workdir / "kill-plan.toml"
    plan_file.write_text(
        server.plan_text("chaos_kill", vus="1,2", warehouses=1, rampup=2, duration=duration_s)
    )
    log = workdir / "killed-run.log"
    with open(log, "w") as output:
        run = bench("run", str(plan_file), "--driver", TARGET, db=db, stdout=output, stderr=output)
    deadline = time.monotonic() + WAIT_S
    session_id = 0
    while not session_id:
        if run.poll() is not None or time.monotonic() > deadline:
            run.kill()
            raise SystemExit(f"the run to kill ended or never started: {log.read_text()[-2000:]}")
        if db.exists():
            with SessionStore(db) as store:
                runs = store.list_runs()
                if runs and len(store.samples(runs[-1].id)) >= 5:
                    session_id = runs[-1].id
        time.sleep(0.2)
    run.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    run.wait()
    with SessionStore(db) as store:
        before = len(store.samples(session_id))
        status_after_kill = store.get_run(session_id).status
    t0 = time.monotonic()
    attach = bench("attach", str(session_id), db=db, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = attach.communicate(timeout=WAIT_S)
    attach_s = time.monotonic() - t0
    if attach.returncode != 0:
        raise SystemExit(f"attach failed ({attach.returncode}): {err[-2000:]}")
    result = json.loads(out.strip().splitlines()[-1])
    run_dirs = sorted((Path(os.environ["BENCH_GUI_REMOTE_ROOT"]) / "runs").iterdir())
    run_dir = next(d for d in run_dirs if _session_of(d) == session_id)
    progress = [line for line in err.splitlines() if line.startswith("fetched ")]
    return {
        "killed_after_samples": before,
        "status_after_kill": status_after_kill,
        "attach_s": attach_s,
        "attach_after_kill_s": t0 - killed_at,
        "attach_events": result["events"],
        "attach_progress_lines": len(progress),
        "status": result["status"],
        **compare(spool_samples(run_dir), stored_samples(db, session_id), None),
    }


def _session_of(run_dir: Path) -> int | None:
    try:
        meta = json.loads((run_dir / "meta.json").read_text())
    except (OSError, ValueError):
        return None
    return meta.get("session_id") if isinstance(meta, dict) else None


def scenarios(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    (workdir / "home").mkdir()
    os.environ["HOME"] = str(workdir / "home")
    os.environ["BENCH_GUI_DATA_DIR"] = str(workdir / "data")
    os.environ["BENCH_GUI_REMOTE_ROOT"] = str(workdir / "driver-host")
    os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    # Imported once HOME and the data directory are ours: they are read from there.
    from stream_latency import PrivateSshd

    from bench_gui.remote.targets import TARGETS_FILE, SSHTarget, add_target
    from bench_gui.store.paths import data_dir
    from tests._fixtures.pg_hang import private_server

    figures: dict[str, Any] = {}
    sshd = PrivateSshd(workdir)
    try:
        target = SSHTarget(
            name=TARGET,
            host="127.0.0.1",
            port=sshd.port,
            user=sshd.user,
            auth="key",
            key_path=str(workdir / "client_key"),
        )
        add_target(target, data_dir() / TARGETS_FILE)
        with private_server(workdir / "pg") as server:
            print(f"loopback sshd on port {sshd.port}; building a 1-warehouse database…")
            server.tpcc_build(1)
            print(f"link cuts: {args.cuts} over a 2-step sweep of {args.duration:g} s steps…")
            figures["link_cuts"] = link_cuts(
                server, workdir / "cuts.sqlite3", args.cuts, args.duration, sshd
            )
            print("desktop kill: bench-gui run killed with SIGKILL, then bench-gui attach…")
            figures["desktop_kill"] = desktop_kill(
                server, workdir / "kill.sqlite3", workdir, args.duration
            )
            if args.forged_seq:
                from chaos_forged_seq import forged_seq_scenario

                print("forged seq pair: two far-future seqs appended to a live spool…")
                figures["forged_seq"] = forged_seq_scenario(
                    server,
                    workdir / "forged.sqlite3",
                    args.duration,
                    plan_for,
                    compare,
                    spool_samples,
                )
    finally:
        sshd.stop()
    if args.db_hang:
        from chaos_db_hang import db_hang_scenario

        print("database hang: the server's processes stopped with SIGSTOP…")
        figures["db_hang"] = db_hang_scenario(workdir / "db-hang", stall_s=8.0, limit_s=5.0)
    if args.db_restart:
        from chaos_db_restart import db_restart_scenarios

        print("database away: a restart, a killed backend, a hang during the reset…")
        figures["db_restart"] = db_restart_scenarios(workdir / "db-restart")
    return figures


def report(figures: dict[str, Any]) -> None:
    cuts = figures["link_cuts"]
    print(f"\nlink cuts ({cuts['cuts']} cuts, run {cuts['status']}):")
    for i, row in enumerate(cuts["resume"], 1):
        print(
            f"  cut {i}: link restored after {row['restored_s']:.2f} s,"
            f" first event after {row['first_event_s']:.2f} s"
        )
    print(f"  samples in the agent's spool:   {cuts['samples_in_spool']}")
    print(f"  samples stored:                 {cuts['samples_stored']}")
    print(f"  samples lost:                   {cuts['samples_lost']}")
    print(f"  samples duplicated (delivered): {cuts['samples_delivered_twice']}")
    print(f"  samples duplicated (stored):    {cuts['samples_duplicated_in_store']}")
    kill = figures["desktop_kill"]
    print(f"\ndesktop kill (killed after {kill['killed_after_samples']} stored samples):")
    print(f"  session after the kill:         {kill['status_after_kill']}")
    print(
        f"  attach: {kill['attach_s']:.1f} s, {kill['attach_events']} events fetched,"
        f" {kill['attach_progress_lines']} progress lines, session {kill['status']}"
    )
    print(f"  samples in the agent's spool:   {kill['samples_in_spool']}")
    print(f"  samples stored:                 {kill['samples_stored']}")
    print(f"  samples lost:                   {kill['samples_lost']}")
    print(f"  samples duplicated (stored):    {kill['samples_duplicated_in_store']}")
    from chaos_forged_seq import report_forged

    report_forged(figures)
    hang = figures.get("db_hang")
    if hang:
        ends, stays = hang["stall_that_ends"], hang["stall_that_never_ends"]
        print(f"\ndatabase hang, a stall that ends ({ends['stall_s']} s):")
        print(f"  samples during the stall:       {ends['samples_during_stall']}")
        print(f"  of them 'not answering':        {ends['samples_saying_not_answering']}")
        print(f"  first 'not answering' after:    {ends['first_not_answering_after_s']} s")
        print(f"  stalled step stored complete:   {ends['stalled_step_stored_complete']}")
        print(f"database hang, a stall that never ends (limit {stays['stall_limit_s']:g} s):")
        print(f"  samples during the stall:       {stays['samples_during_stall']}")
        print(f"  clean failure after:            {stays['clean_failure_after_s']} s")
        print(f"  message:                        {stays['message']}")
        print(f"  steps kept (complete):          {stays['steps_complete']}")
    away = figures.get("db_restart")
    if away:
        from chaos_db_restart import report as report_away

        print()
        report_away(away)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuts", type=int, default=5, help="link cuts during the sweep")
    parser.add_argument("--duration", type=float, default=15.0, help="measured seconds per step")
    parser.add_argument("--no-db-hang", dest="db_hang", action="store_false")
    parser.add_argument("--no-forged-seq", dest="forged_seq", action="store_false")
    parser.add_argument("--no-db-restart", dest="db_restart", action="store_false")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-gui-chaos-") as tmp:
        workdir = Path(tmp)
        workdir.chmod(0o755)  # the embedded server runs as its own user
        figures = scenarios(args, workdir)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        report(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
