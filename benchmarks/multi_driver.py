"""Several driver hosts: NOPM with one driver host, then with two, against the same server.

Everything is real and private to the script: an sshd on 127.0.0.1 (its own keys), an
embedded PostgreSQL with a TPROC-C database, the agent deployed over SFTP into the script's
folder, the session store. The "two hosts" are two saved SSH targets on that one sshd (each
agent has its own run directory and go file; they share the database server's run lock in the
script's lock folder, as two agents of one run on one machine do), so both drivers share this
machine's CPU with the server: the figures show the orchestration's cost and that the merged
NOPM is the database's (read once), not what two real hosts would add.

With ``--netns`` (root) the two hosts are two machines as far as the network goes: each in its
own network namespace with its own sshd, hostname and lock folder, reached over a veth pair
(``tests/_fixtures/netns.py``); ``--busy`` keeps every CPU of the machine spinning during the
two-host sweep (the start barrier under load).

For each sweep step it prints the database's NOPM, the drivers' summed New-Order rate and its
agreement with the database (the 2% rule), and for two hosts each host's driver NOPM, how late
each host started after the common instant and the hosts' start spread the step stored.

    python benchmarks/multi_driver.py
    python benchmarks/multi_driver.py --warehouses 4 --vus 4,8 --duration 20
    python benchmarks/multi_driver.py --netns --busy
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests._fixtures
sys.path.insert(0, str(ROOT / "benchmarks"))  # stream_latency


def sweep(plan: Any, db: Path) -> dict[str, Any]:
    """One run of the plan through the run controller; its steps and (several hosts) the
    hosts' own figures."""
    from bench_gui.core.crosscheck import nopm_doubt
    from bench_gui.services.run import RunController
    from bench_gui.store import SessionStore

    with SessionStore(db) as store:
        controller = RunController(plan, store)
        late: dict[int, dict[str, float]] = {}
        for event in controller.events():
            if event.kind == "progress" and event.get("stage") == "go":
                host = str(event.get("driver_host"))
                late.setdefault(int(event.get("step")), {})[host] = float(event.get("late_s"))
        assert controller.session_id is not None
        steps = []
        for step in store.steps(controller.session_id):
            hosts = {
                str(h["host"]): h.get("nopm_driver")
                for h in step.summary.get("driver_hosts", []) or []
            }
            steps.append(
                {
                    "vus": step.vus,
                    "nopm": step.nopm,
                    "nopm_driver": step.nopm_driver,
                    "agree": nopm_doubt(step.nopm, step.nopm_driver, step.window_s, step.vus)
                    is None,
                    "hosts": hosts,
                    "late_s": late.get(step.step, {}),
                    "spread_s": (step.summary.get("start") or {}).get("spread_s"),
                }
            )
        return {"status": store.get_run(controller.session_id).status, "steps": steps}


@contextlib.contextmanager
def busy_cpus(on: bool) -> Iterator[None]:
    """Every CPU spinning (a process each) until the block ends; nothing when not ``on``."""
    spin = [sys.executable, "-c", "while True: pass"]
    procs = [subprocess.Popen(spin) for _ in range(os.cpu_count() or 1)] if on else []
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def driver_hosts(workdir: Path, netns: bool) -> Iterator[None]:
    """Saved targets "one" and "two": on one private sshd, or each in its own namespace."""
    from bench_gui.remote.targets import TARGETS_FILE, SSHTarget, add_target
    from bench_gui.store.paths import data_dir

    if netns:
        from tests._fixtures.netns import namespaced_hosts, netns_unavailable

        why = netns_unavailable()
        if why:
            raise SystemExit(f"--netns: {why}")
        with namespaced_hosts(workdir / "hosts", ["one", "two"]) as hosts:
            known = Path(os.environ["HOME"]) / ".ssh" / "known_hosts"
            known.parent.mkdir(parents=True, exist_ok=True)
            known.write_text("".join(h.sshd.known_hosts_line() for h in hosts))
            for host in hosts:
                add_target(host.sshd.target(host.name), data_dir() / TARGETS_FILE)
            yield
        return
    from stream_latency import PrivateSshd

    sshd = PrivateSshd(workdir)
    try:
        for name in ("one", "two"):
            target = SSHTarget(
                name=name,
                host="127.0.0.1",
                port=sshd.port,
                user=sshd.user,
                auth="key",
                key_path=str(workdir / "client_key"),
            )
            add_target(target, data_dir() / TARGETS_FILE)
        yield
    finally:
        sshd.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouses", type=int, default=2)
    parser.add_argument("--vus", default="2,4")
    parser.add_argument("--rampup", type=float, default=2)
    parser.add_argument("--duration", type=float, default=10)
    parser.add_argument("--netns", action="store_true", help="each host in its own namespace")
    parser.add_argument("--busy", action="store_true", help="every CPU spinning (two hosts)")
    args = parser.parse_args()
    vus = [int(v) for v in args.vus.split(",")]

    with tempfile.TemporaryDirectory(prefix="bench-gui-multi-") as tmp:
        workdir = Path(tmp)
        (workdir / "home").mkdir()
        os.environ["HOME"] = str(workdir / "home")
        os.environ["BENCH_GUI_DATA_DIR"] = str(workdir / "data")
        os.environ["BENCH_GUI_REMOTE_ROOT"] = str(workdir / "driver-host")
        os.environ["BENCH_GUI_LOCK_DIR"] = str(workdir / "locks")
        os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
        from bench_gui.core.plan_model import Driver, Plan, Target
        from bench_gui.wire.run_config import Workload
        from tests._fixtures.pg_hang import private_server

        with driver_hosts(workdir, args.netns), private_server(workdir / "pg") as server:
            print(f"building a {args.warehouses}-warehouse database…", flush=True)
            server.tpcc_build(args.warehouses)
            results = {}
            for label, driver in (
                ("one driver host", Driver(target="one")),
                ("two driver hosts", Driver(target="one", targets=["one", "two"])),
            ):
                database = f"multi_{len(driver.hosts)}"
                server.clone_tpcc(database, warehouses=args.warehouses)
                plan = Plan(
                    name=label,
                    target=Target(kind="postgresql", host=server.socket_dir, database=database),
                    workload=Workload(
                        warehouses=args.warehouses,
                        virtual_users=list(vus),
                        rampup_s=args.rampup,
                        duration_s=args.duration,
                        processes=1,
                    ),
                    driver=driver,
                )
                print(f"{label}: {args.vus} users, {args.duration:g} s steps…", flush=True)
                with busy_cpus(args.busy and len(driver.hosts) > 1):
                    results[label] = sweep(plan, workdir / f"{len(driver.hosts)}.sqlite3")

    for label, result in results.items():
        print(f"\n{label} (session {result['status']}):")
        for step in result["steps"]:
            line = (
                f"  {step['vus']:>3} VU: NOPM {step['nopm']:>9,.0f}   drivers"
                f" {step['nopm_driver']:>9,.0f}   {'agree' if step['agree'] else 'DISAGREE'}"
            )
            if step["hosts"]:
                parts = ", ".join(f"{h} {n:,.0f}" for h, n in step["hosts"].items())
                lates = ", ".join(f"{h} {s * 1000:.1f} ms" for h, s in step["late_s"].items())
                line += f"   per host: {parts}   late: {lates}"
                if step["spread_s"] is not None:
                    line += f"   spread {step['spread_s'] * 1000:.1f} ms"
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
