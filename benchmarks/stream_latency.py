"""Stream latency over SSH: from an event written on the driver host to the desktop's follower.

A stand-in agent on the driver host appends events to a spool file, each stamped with the time
it was written; the desktop follows the spool through :class:`SSHTransport` exactly as it
follows a real run, and notes when each event arrives. Over loopback both ends share one clock,
so arrival minus stamp is the latency. Then the link is cut (the sshd process serving the
follower is killed) a few times while events keep coming, and the time from each cut to the
first event received after it is the resume time. Every event must arrive once, in order.

Goal (issue 3): median under 0.3 s, resume under 5 s.

    python benchmarks/stream_latency.py                        # private sshd on 127.0.0.1
    python benchmarks/stream_latency.py --events 500 --interval 0.01 --follow tail
    python benchmarks/stream_latency.py --cuts 0               # latency only

The private sshd needs /usr/sbin/sshd and ``ss`` (for the cuts); it runs as the current user
with keys generated for the occasion, in a temporary directory that is removed afterwards.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

WRITER = r"""
import json, sys, time
spool, n, interval, delay = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
time.sleep(delay)
with open(spool, "a") as fh:
    for seq in range(1, n + 2):
        kind = "done" if seq == n + 1 else "log"
        body = {"v": 1, "seq": seq, "t": time.time(), "kind": kind, "level": "info",
                "message": "tick", "status": "ok"}
        fh.write(json.dumps(body) + "\n")
        fh.flush()
        if seq <= n:
            time.sleep(interval)
"""


class PrivateSshd:
    """An sshd on 127.0.0.1 for this benchmark only, with a client key and a host key."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        for name in ("host_key", "client_key"):
            subprocess.run(
                ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(folder / name)],
                check=True,
            )
        user = subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
        self.user = user
        (folder / "authorized_keys").write_text((folder / "client_key.pub").read_text())
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        config = folder / "sshd_config"
        config.write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {folder / 'host_key'}\n"
            f"PidFile {folder / 'sshd.pid'}\nAuthorizedKeysFile {folder / 'authorized_keys'}\n"
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitRootLogin yes\n"
            "UsePAM no\nStrictModes no\nMaxSessions 100\n"
            "Subsystem sftp /usr/lib/openssh/sftp-server\n"
        )
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        with open(folder / "sshd.log", "wb") as log:
            self.proc = subprocess.Popen(
                ["/usr/sbin/sshd", "-D", "-e", "-f", str(config)], stderr=log
            )
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    text = (folder / "sshd.log").read_text()
                    raise SystemExit(f"sshd did not start: {text}") from None
                time.sleep(0.05)
        key_type, key = (folder / "host_key.pub").read_text().split()[:2]
        home = Path(os.environ["HOME"])
        (home / ".ssh").mkdir(parents=True, exist_ok=True)
        (home / ".ssh" / "known_hosts").write_text(f"[127.0.0.1]:{self.port} {key_type} {key}\n")

    def cut(self, client_port: int) -> int:
        out = subprocess.run(
            [
                "ss",
                "-Htnp",
                "state",
                "established",
                f"( sport = :{self.port} and dport = :{client_port} )",
            ],
            capture_output=True,
            text=True,
        ).stdout
        pids = {int(p) for p in re.findall(r"pid=(\d+)", out)}
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return len(pids)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def start_writer(transport: Any, name: str, n: int, interval: float) -> str:
    session = transport.session()
    root = session.abspath(transport.remote_root)
    run_dir = f"{root}/runs/{name}"
    session.run(["mkdir", "-p", run_dir], check=True)
    session.put_bytes(b"", f"{run_dir}/events.jsonl")  # as start_agent does
    argv = [
        transport.target.python,
        "-c",
        WRITER,
        "bench_gui.agent",
        f"{run_dir}/events.jsonl",
        str(n),
        str(interval),
        "1.0",
    ]
    script = (
        f"setsid nohup {shlex.join(argv)} >/dev/null 2>&1 </dev/null &\n"
        f"echo $! > {shlex.quote(run_dir)}/agent.pid\n"
    )
    session.run(["sh", "-c", script], check=True)
    return run_dir


def measure_latency(transport: Any, name: str, n: int, interval: float) -> dict[str, float]:
    run_dir = start_writer(transport, name, n, interval)
    run = transport.attach(run_dir)
    latencies: list[float] = []
    seqs: list[int] = []
    for event in run.events():
        latencies.append(time.time() - event.t)
        seqs.append(event.seq)
    run.close()
    assert seqs == list(range(1, n + 2)), "events lost or duplicated"
    return {
        "events": len(latencies),
        "median": statistics.median(latencies),
        "p90": percentile(latencies, 90),
        "p99": percentile(latencies, 99),
        "max": max(latencies),
    }


def measure_resume(
    transport: Any, sshd: PrivateSshd, name: str, cuts: int, interval: float
) -> list[dict[str, float]]:
    per_cut = 40
    n = per_cut * (cuts + 1)
    run_dir = start_writer(transport, name, n, interval)
    marks: dict[str, list[float]] = {"lost": [], "restored": []}
    lock = threading.Lock()

    def on_link(state: str, _detail: str) -> None:
        with lock:
            marks.setdefault(state, []).append(time.monotonic())

    run = transport.attach(run_dir)
    run.on_link_state = on_link
    results: list[dict[str, float]] = []
    cut_at: float | None = None
    seqs: list[int] = []
    for event in run.events():
        seqs.append(event.seq)
        now = time.monotonic()
        with lock:
            lost = [t for t in marks["lost"] if cut_at is not None and t > cut_at]
            restored = [t for t in marks["restored"] if cut_at is not None and t > cut_at]
        if cut_at is not None and lost and restored:
            # The first event over the new link (any before it were already in flight).
            results.append(
                {
                    "detected": lost[0] - cut_at,
                    "restored": restored[0] - cut_at,
                    "first_event": now - cut_at,
                }
            )
            cut_at = None
        if cut_at is None and event.seq % per_cut == 0 and len(results) < cuts:
            port = run.local_port
            if port and sshd.cut(port):
                cut_at = time.monotonic()
    run.close()
    assert seqs == list(range(1, n + 2)), "events lost or duplicated across the cuts"
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=300, help="events per latency run")
    parser.add_argument("--interval", type=float, default=0.02, help="seconds between events")
    parser.add_argument("--follow", choices=["tail", "sftp", "both"], default="both")
    parser.add_argument("--cuts", type=int, default=3, help="link cuts for the resume figure")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-gui-latency-") as tmp:
        folder = Path(tmp)
        (folder / "home").mkdir()
        os.environ["HOME"] = str(folder / "home")
        os.environ["BENCH_GUI_DATA_DIR"] = str(folder / "data")
        # Imported after HOME moved: known-hosts paths and the data dir are read from it.
        from bench_gui.remote.ssh_transport import SSHTransport
        from bench_gui.remote.targets import SSHTarget

        sshd = PrivateSshd(folder)
        target = SSHTarget(
            name="latency",
            host="127.0.0.1",
            port=sshd.port,
            user=sshd.user,
            auth="key",
            key_path=str(folder / "client_key"),
        )
        methods = ["tail", "sftp"] if args.follow == "both" else [args.follow]
        try:
            print(
                f"loopback sshd on port {sshd.port}; {args.events} events,"
                f" one every {args.interval * 1000:.0f} ms"
            )
            print(f"{'follower':<8} {'events':>6} {'median':>9} {'p90':>9} {'p99':>9} {'max':>9}")
            for method in methods:
                transport = SSHTransport(target, remote_root=str(folder / "driver"), follow=method)
                try:
                    r = measure_latency(transport, f"lat-{method}", args.events, args.interval)
                finally:
                    transport.close()
                print(
                    f"{method:<8} {r['events']:>6} {r['median'] * 1000:>7.1f}ms"
                    f" {r['p90'] * 1000:>7.1f}ms {r['p99'] * 1000:>7.1f}ms"
                    f" {r['max'] * 1000:>7.1f}ms"
                )
            if args.cuts:
                print(f"\nresume after a cut (sshd serving the follower killed), {args.cuts} cuts")
                print(
                    f"{'follower':<8} {'cut':>3} {'detected':>9} {'restored':>9} {'1st event':>10}"
                )
                for method in methods:
                    transport = SSHTransport(
                        target, remote_root=str(folder / "driver"), follow=method
                    )
                    try:
                        rows = measure_resume(transport, sshd, f"cut-{method}", args.cuts, 0.05)
                    finally:
                        transport.close()
                    for i, row in enumerate(rows, 1):
                        print(
                            f"{method:<8} {i:>3} {row['detected']:>8.2f}s"
                            f" {row['restored']:>8.2f}s {row['first_event']:>9.2f}s"
                        )
        finally:
            sshd.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
