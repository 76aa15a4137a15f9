"""The spool follower on its own, with a stand-in agent that writes events on a schedule.

No database: a small writer process plays the agent (its command line carries
``bench_gui.agent`` so the liveness checks see it as one), which makes the edge cases cheap to
reach: lines written in two halves, garbage lines, the ``sftp`` follower, a cut link while the
writer keeps writing, a writer that dies without ``done``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bench_gui.remote.ssh_transport import ConnectError, SSHTransport
from bench_gui.remote.transport import BadLine
from bench_gui.wire.protocol import Event
from tests._fixtures.wait import wait_until

WRITER = r"""
import json, sys, time
spool, n, interval, mode = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
with open(spool, "a") as fh:
    def emit(seq, kind, **data):
        body = {"v": 1, "seq": seq, "t": time.time(), "kind": kind}
        body.update(data)
        line = json.dumps(body) + "\n"
        if mode == "halves":
            fh.write(line[:10]); fh.flush(); time.sleep(0.05)
            line = line[10:]
        fh.write(line)
        fh.flush()
    emit(1, "hello", agent_version="stand-in")
    for i in range(n):
        time.sleep(interval)
        emit(i + 2, "log", level="info", message="tick %d" % i)
        if mode == "garbage" and i == 1:
            fh.write("this is not an event\n"); fh.flush()
    if mode != "no-done":
        emit(n + 2, "done", status="ok", message="")
"""


def start_writer(run_dir: Path, n: int, interval: float, mode: str = "plain") -> int:
    """Start the stand-in agent detached, as the transport does (not our child), record its pid."""
    run_dir.mkdir(parents=True)
    argv = [
        sys.executable,
        "-c",
        WRITER,
        "bench_gui.agent",
        str(run_dir / "events.jsonl"),
        str(n),
        str(interval),
        mode,
    ]
    script = f"setsid nohup {shlex.join(argv)} >/dev/null 2>&1 </dev/null & echo $!"
    pid = int(
        subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True).stdout
    )
    (run_dir / "agent.pid").write_text(f"{pid}\n")
    return pid


def writer_ended(pid: int) -> bool:
    """The stand-in agent is gone, by the rule the run listing uses (its command line)."""
    try:
        return b"bench_gui.agent" not in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True


def transport(sshd: Any, tmp_path: Path, **kwargs: Any) -> SSHTransport:
    sshd.trust()
    return SSHTransport(sshd.target(), remote_root=str(tmp_path / "cache"), **kwargs)


@pytest.mark.parametrize("follow", ["tail", "sftp"])
def test_follows_every_event_in_order(sshd: Any, tmp_path: Path, follow: str) -> None:
    run_dir = tmp_path / "cache" / "runs" / "r1"
    start_writer(run_dir, n=20, interval=0.02, mode="halves")
    t = transport(sshd, tmp_path, follow=follow)
    try:
        run = t.attach(str(run_dir))
        items = [e for e in run.events() if isinstance(e, Event)]
        assert run.wait(10) == 0
    finally:
        t.close()
    assert [e.seq for e in items] == list(range(1, 23))
    assert items[-1].kind == "done"
    assert run.offset == (run_dir / "events.jsonl").stat().st_size


def test_garbage_lines_are_reported_not_fatal(sshd: Any, tmp_path: Path) -> None:
    run_dir = tmp_path / "cache" / "runs" / "r2"
    start_writer(run_dir, n=4, interval=0.01, mode="garbage")
    t = transport(sshd, tmp_path)
    try:
        items = list(t.attach(str(run_dir)).events())
    finally:
        t.close()
    bad = [i for i in items if isinstance(i, BadLine)]
    assert len(bad) == 1
    assert bad[0].text == "this is not an event"
    assert [i.seq for i in items if isinstance(i, Event)] == list(range(1, 7))


def test_attach_from_seq_skips_what_the_store_has(sshd: Any, tmp_path: Path) -> None:
    run_dir = tmp_path / "cache" / "runs" / "r3"
    pid = start_writer(run_dir, n=5, interval=0.0)
    wait_until(lambda: writer_ended(pid), 10, "the writer to finish")
    t = transport(sshd, tmp_path)
    try:
        listed = t.list_runs()
        assert [(r.run_id, r.state, r.done, r.last_seq) for r in listed] == [
            ("r3", "finished", "ok", 7)
        ]
        items = [e for e in t.attach(str(run_dir), from_seq=4).events() if isinstance(e, Event)]
    finally:
        t.close()
    assert [e.seq for e in items] == [5, 6, 7]


def test_writer_dying_without_done_ends_the_stream(sshd: Any, tmp_path: Path) -> None:
    run_dir = tmp_path / "cache" / "runs" / "r4"
    start_writer(run_dir, n=3, interval=0.05, mode="no-done")
    t = transport(sshd, tmp_path)
    try:
        run = t.attach(str(run_dir))
        items = [e for e in run.events() if isinstance(e, Event)]
        assert run.final is None
        assert run.wait(10) == -1  # ended, and not by a done event
        assert [r.state for r in t.list_runs()] == ["ended"]
    finally:
        t.close()
    assert [e.seq for e in items] == [1, 2, 3, 4]


@pytest.mark.parametrize("follow", ["tail", "sftp"])
def test_cut_link_resumes_without_gap_or_duplicate(sshd: Any, tmp_path: Path, follow: str) -> None:
    run_dir = tmp_path / "cache" / "runs" / "r5"
    start_writer(run_dir, n=60, interval=0.05)
    states: list[tuple[float, str]] = []
    t = transport(
        sshd,
        tmp_path,
        follow=follow,
        on_link_state=lambda s, d: states.append((time.monotonic(), s)),
    )
    seqs: list[int] = []
    try:
        run = t.attach(str(run_dir))
        for event in run.events():
            assert isinstance(event, Event)
            seqs.append(event.seq)
            if event.seq in (10, 30):
                port = run.local_port
                assert port is not None
                assert sshd.cut(port)
    finally:
        t.close()
    assert seqs == list(range(1, 63))
    assert [s for _, s in states] == ["lost", "restored", "lost", "restored"]
    resumed = states[1][0] - states[0][0]
    assert resumed < 5, f"resuming took {resumed:.1f} s"


def test_lock_refusal_names_the_holder(tmp_path: Path) -> None:
    """The agent's --lock on its own: a second agent on the same lock exits 4 and says who."""
    lock = tmp_path / "lock-x"
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"action": "status", "conninfo": "host=/nonexistent"}))
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, json, os, sys, time; fh = open(sys.argv[1], 'a+');"
            " fcntl.flock(fh, fcntl.LOCK_EX); fh.write(json.dumps({'pid': os.getpid(),"
            " 'user': 'alice', 'host': 'driver1', 'since': '2026-01-02 03:04:05 UTC',"
            " 'spool': '/x/events.jsonl', 'by': 'alice@laptop'})); fh.flush();"
            " print('ready', flush=True); time.sleep(60)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "ready"
        env_file = tmp_path / "env.json"
        env_file.write_text(json.dumps({"PGPASSWORD": "x"}))
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench_gui.agent",
                "--config",
                str(config),
                "--lock",
                str(lock),
                "--env-file",
                str(env_file),
                "--spool",
                str(tmp_path / "s.jsonl"),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        holder.kill()
        holder.wait()
    assert result.returncode == 4, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["kind"] for e in events] == ["error", "done"]
    message = events[0]["message"]
    assert f"agent pid {holder.pid} of alice on driver1" in message
    assert "alice@laptop" in message
    assert "since 2026-01-02 03:04:05 UTC" in message
    assert events[1]["status"] == "failed"
    assert not env_file.exists()  # the secrets file is gone even when the run is refused
    assert time.time() - os.stat(lock).st_mtime < 120


def test_long_outage_gives_up_and_reattach_fetches_the_rest(sshd: Any, tmp_path: Path) -> None:
    run_dir = tmp_path / "cache" / "runs" / "r6"
    start_writer(run_dir, n=40, interval=0.05)
    states: list[str] = []
    t = transport(sshd, tmp_path, max_outage=1.0, on_link_state=lambda s, d: states.append(s))
    seqs: list[int] = []
    try:
        run = t.attach(str(run_dir))

        def follow() -> None:
            for event in run.events():
                assert isinstance(event, Event)
                seqs.append(event.seq)
                if event.seq == 5:
                    t.target.port = sshd.free_port()  # the host is gone for good
                    port = run.local_port
                    assert port is not None
                    sshd.cut(port)

        with pytest.raises(ConnectError, match=r"has been down for \d+ s .* can be re-attached"):
            follow()
    finally:
        t.close()
    assert states[0] == "lost"
    assert states[-1] == "failed"
    assert seqs == list(range(1, len(seqs) + 1))
    # Later, with the host back: re-attach from the last seq and get exactly the rest.
    again = transport(sshd, tmp_path)
    try:
        rest = [
            e.seq
            for e in again.attach(str(run_dir), from_seq=seqs[-1]).events()
            if isinstance(e, Event)
        ]
    finally:
        again.close()
    assert seqs + rest == list(range(1, 43))


def test_silent_link_is_detected_by_the_idle_probe(sshd: Any, tmp_path: Path) -> None:
    """A link that drops without a FIN (Wi-Fi gone): the sshd serving it is frozen."""
    run_dir = tmp_path / "cache" / "runs" / "r7"
    start_writer(run_dir, n=100, interval=0.05)
    states: list[str] = []
    t = transport(sshd, tmp_path, on_link_state=lambda s, d: states.append(s))
    seqs: list[int] = []
    frozen: list[int] = []
    try:
        run = t.attach(str(run_dir))
        run.idle_probe_s = 1.0
        run.probe_timeout = 1.5
        for event in run.events():
            assert isinstance(event, Event)
            seqs.append(event.seq)
            if event.seq == 5:
                port = run.local_port
                assert port is not None
                frozen = sshd.session_pids(port)
                for pid in frozen:
                    os.kill(pid, signal.SIGSTOP)
    finally:
        t.close()
        for pid in frozen:
            # A killed session may be reaped before the SIGCONT that a stopped one needs.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
                os.kill(pid, signal.SIGCONT)
    assert frozen
    assert states == ["lost", "restored"]
    assert seqs == list(range(1, 103))
