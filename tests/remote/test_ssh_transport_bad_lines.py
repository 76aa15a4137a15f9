"""The spool follower never lets one line cost a run: real spool files on the loopback sshd, a
stand-in agent that appends them line by line while the follower reads, and the run listing
with one corrupt run among good ones.

Every kind of bad line is reported as exactly one :class:`BadLine` and skipped; every good event
arrives once, in order, also across a cut link and a re-attach.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench_gui.remote.ssh_transport import SSHTransport, desktop_identity
from bench_gui.remote.transport import BadLine
from bench_gui.services.reattach import Candidate, scan
from bench_gui.wire.protocol import Event, encode_event
from tests._fixtures.agent_events import agent_stream
from tests._fixtures.wait import wait_until

# Appends the lines of a file to the spool one at a time (its command line carries
# bench_gui.agent, so the liveness checks take it for the agent).
WRITER = r"""
import os, sys, time
source, spool, interval, go = sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]
with open(source, "rb") as src, open(spool, "ab") as out:
    while go and not os.path.exists(go):  # held until the follower is there
        time.sleep(0.01)
    for line in src:
        out.write(line)
        out.flush()
        time.sleep(interval)
"""
SMALL_LIMIT = 256 * 1024  # the follower's line limit in these tests (the real one is 16 MiB)


def start_writer(run_dir: Path, lines: list[bytes], interval: float, held: bool = False) -> int:
    """Start the stand-in agent detached (as the transport starts the agent), record its pid;
    ``held``: it writes nothing before the file ``go`` appears in the run directory."""
    run_dir.mkdir(parents=True)
    source = run_dir.parent / f"{run_dir.name}.source"
    source.write_bytes(b"".join(line + b"\n" for line in lines))
    go = str(run_dir / "go") if held else ""
    spool = str(run_dir / "events.jsonl")
    argv = [sys.executable, "-c", WRITER, "bench_gui.agent", str(source), spool, str(interval), go]
    script = f"setsid nohup {shlex.join(argv)} >/dev/null 2>&1 </dev/null & echo $!"
    out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True)
    pid = int(out.stdout)
    (run_dir / "agent.pid").write_text(f"{pid}\n")
    return pid


def writer_ended(pid: int) -> bool:
    try:
        return b"bench_gui.agent" not in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return True


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def transport(sshd: Any, tmp_path: Path, **kwargs: Any) -> SSHTransport:
    sshd.trust()
    return SSHTransport(sshd.target(), remote_root=str(tmp_path / "cache"), **kwargs)


def with_seq(line: str, seq: Any) -> bytes:
    body = json.loads(line)
    body["seq"] = seq
    return json.dumps(body).encode()


def log_lines(n: int) -> list[str]:
    lines = [encode_event("log", i, 1_760_000_000.0 + i, message=f"tick {i}") for i in range(1, n)]
    return [*lines, encode_event("done", n, 1_760_000_000.0 + n, status="ok", message="")]


def bad_stream() -> tuple[list[bytes], list[str], int]:
    """A real run's lines with one of every kind of bad line among them: the lines, the reasons
    expected in order, and the number of good events."""
    good = agent_stream(steps=1, samples=4)
    # One good event is big, but under the limit: it must pass.
    big = json.loads(good[2])
    big["message"] = "m" * (SMALL_LIMIT - 1000)
    good[2] = json.dumps(big)
    bad: list[tuple[bytes, str]] = [
        (good[3][:37].encode(), "not JSON"),  # cut short
        (b"[" * 100_000, "nested too deeply"),
        (good[3][:-1].encode() + b', "n": ' + b"9" * 5000 + b"}", "digits"),
        (b"x" * (4 * SMALL_LIMIT), f"line of {4 * SMALL_LIMIT:,} bytes, longer than"),
        (with_seq(good[4], 999_999_999), "seq 999999999 jumps ahead of"),
        (with_seq(good[4], 2), "seq 2 is not after"),  # out of order
        (b"\xff\xfe{not utf-8", "not JSON"),
    ]
    lines: list[bytes] = []
    reasons: list[str] = []
    for i, line in enumerate(good):
        lines.append(line.encode())
        if 3 <= i < 3 + len(bad):
            lines.append(bad[i - 3][0])
            reasons.append(bad[i - 3][1])
    lines.insert(6, good[5].encode())  # seq 6 early: its own line later repeats it
    reasons.insert(2, "seq 6 is not after 6")
    return lines, reasons, len(good)


@pytest.mark.parametrize("follow", ["tail", "sftp"])
def test_each_bad_line_is_reported_once_and_the_run_goes_on(
    sshd: Any, tmp_path: Path, follow: str
) -> None:
    lines, reasons, n_good = bad_stream()
    run_dir = tmp_path / "cache" / "runs" / "r1"
    start_writer(run_dir, lines, interval=0.01)
    t = transport(sshd, tmp_path, follow=follow)
    try:
        run = t.attach(str(run_dir))
        run.max_line_bytes = SMALL_LIMIT
        items = list(run.events())
        assert run.wait(10) == 0
    finally:
        t.close()
    events = [i for i in items if isinstance(i, Event)]
    bad = [i for i in items if isinstance(i, BadLine)]
    assert [e.seq for e in events] == list(range(1, n_good + 1))
    assert events[-1].kind == "done"
    assert len(bad) == len(reasons), [str(b.error) for b in bad]
    for line, reason in zip(bad, reasons, strict=True):
        assert reason in str(line.error), (reason, str(line.error))
    assert run.offset == (run_dir / "events.jsonl").stat().st_size


def test_a_stray_seq_does_not_hide_the_rest_of_the_run(sshd: Any, tmp_path: Path) -> None:
    """The issue's case: one seq of 999999999 used to make every later event be skipped."""
    good = log_lines(12)
    lines = [line.encode() for line in good]
    lines.insert(4, with_seq(good[0], 999_999_999))
    run_dir = tmp_path / "cache" / "runs" / "r2"
    pid = start_writer(run_dir, lines, interval=0.0)
    wait_until(lambda: writer_ended(pid), 10, "the writer to finish")
    t = transport(sshd, tmp_path)
    try:
        items = list(t.attach(str(run_dir)).events())
        listed = t.list_runs()
    finally:
        t.close()
    assert [i.seq for i in items if isinstance(i, Event)] == list(range(1, 13))
    assert [str(i.error)[:23] for i in items if isinstance(i, BadLine)] == [
        "seq 999999999 jumps ahe"
    ]
    assert [(r.state, r.done, r.last_seq) for r in listed] == [("finished", "ok", 12)]


@pytest.mark.parametrize("follow", ["tail", "sftp"])
def test_a_cut_link_after_bad_lines_resumes_without_gap_or_duplicate(
    sshd: Any, tmp_path: Path, follow: str
) -> None:
    good = log_lines(60)
    lines = [line.encode() for line in good]
    lines.insert(8, with_seq(good[0], 999_999_999))
    lines.insert(20, b"[" * 100_000)
    lines.insert(33, good[20].encode())  # seq 21 again, after 32
    run_dir = tmp_path / "cache" / "runs" / "r3"
    start_writer(run_dir, lines, interval=0.03, held=True)
    states: list[str] = []
    t = transport(sshd, tmp_path, follow=follow, on_link_state=lambda s, d: states.append(s))
    seqs: list[int] = []
    bad: list[str] = []
    try:
        run = t.attach(str(run_dir))
        (run_dir / "go").touch()
        for item in run.events():
            if isinstance(item, BadLine):
                bad.append(str(item.error))
                continue
            seqs.append(item.seq)
            if item.seq in (10, 30):
                port = run.local_port
                assert port is not None
                assert sshd.cut(port)
    finally:
        t.close()
    assert seqs == list(range(1, 61))
    assert states == ["lost", "restored", "lost", "restored"]
    assert len(bad) == 3, bad
    assert "seq 999999999" in bad[0]
    assert "nested too deeply" in bad[1]
    assert "seq 21 is not after" in bad[2]


def test_reattach_reports_only_the_bad_lines_it_has_not_passed(sshd: Any, tmp_path: Path) -> None:
    good = log_lines(10)
    lines = [line.encode() for line in good]
    lines.insert(2, b"garbage before the resume point")
    lines.insert(4, with_seq(good[0], 10**12))
    lines.insert(9, b"garbage after it")
    run_dir = tmp_path / "cache" / "runs" / "r4"
    pid = start_writer(run_dir, lines, interval=0.0)
    wait_until(lambda: writer_ended(pid), 10, "the writer to finish")
    t = transport(sshd, tmp_path)
    try:
        items = list(t.attach(str(run_dir), from_seq=5).events())
    finally:
        t.close()
    assert [i.seq for i in items if isinstance(i, Event)] == [6, 7, 8, 9, 10]
    assert [i.text for i in items if isinstance(i, BadLine)] == ["garbage after it"]


def write_run(root: Path, name: str, spool: bytes | None, **files: Any) -> Path:
    run_dir = root / "runs" / name
    run_dir.mkdir(parents=True)
    if spool is not None:
        (run_dir / "events.jsonl").write_bytes(spool)
    for base, content in files.items():
        path = run_dir / base.replace("_", ".")
        path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    return run_dir


def test_the_listing_survives_a_corrupt_run_among_good_ones(sshd: Any, tmp_path: Path) -> None:
    root = tmp_path / "cache"
    me = desktop_identity()
    started = "2026-01-02T03:04:05Z"
    good = "\n".join(log_lines(7)).encode() + b"\n"
    pid = str(dead_pid()).encode()
    write_run(
        root,
        "a-good",
        good,
        meta_json={"session_id": 1, "desktop": me, "started_at": started},
        agent_pid=pid,
    )
    corrupt = b"\n".join(
        [
            good.splitlines()[0],
            b"y" * 400_000,  # the listing reads the last 256 KiB: this line is cut in two
            b"[" * 100_000,
            b'{"v": 1, "seq": ' + b"9" * 5000 + b', "kind": "log", "t": 0}',
            b"\xff\xfe\x00 not utf-8",
            good.splitlines()[1],
            good.splitlines()[2],
            b'{"v": 1, "seq": 999999999, "kind": "done", "t": 0, "status": ["ok"]}',
        ]
    )
    write_run(root, "b-corrupt", corrupt, meta_json=b"[" * 100_000, agent_pid=b"\xff" * 64)
    write_run(root, "c-list-meta", good[:200], meta_json=[1, 2, 3], agent_pid=b"-7")
    fifo = write_run(
        root, "d-fifo", None, meta_json={"session_id": 2, "desktop": me, "started_at": started}
    )
    os.mkfifo(fifo / "events.jsonl")
    os.mkfifo(fifo / "agent.pid")
    ended = "\n".join(log_lines(5)[:-1]).encode() + b"\n"  # no done
    write_run(
        root,
        "e-ended",
        ended,
        meta_json={"session_id": 3, "desktop": me, "started_at": started},
        agent_pid=pid,
    )
    (root / "runs" / "f-not-a-dir").write_text("x")
    t = transport(sshd, tmp_path)
    try:
        listed = t.list_runs()  # a FIFO is never opened (it would block the listing)
    finally:
        t.close()
    rows = {r.run_id: r for r in listed}
    assert list(rows) == ["a-good", "b-corrupt", "c-list-meta", "d-fifo", "e-ended"]
    assert (rows["a-good"].state, rows["a-good"].done, rows["a-good"].last_seq) == (
        "finished",
        "ok",
        7,
    )
    assert rows["a-good"].meta["session_id"] == 1
    corrupt_row = rows["b-corrupt"]
    assert (corrupt_row.state, corrupt_row.done, corrupt_row.last_seq) == ("ended", None, 3)
    assert (corrupt_row.meta, corrupt_row.pid) == ({}, None)
    assert (rows["c-list-meta"].meta, rows["c-list-meta"].pid) == ({}, None)
    assert (rows["d-fifo"].state, rows["d-fifo"].spool_bytes) == ("ended", 0)
    assert (rows["e-ended"].state, rows["e-ended"].last_seq) == ("ended", 4)

    # The GUI's re-attach scan over the same host: the corrupt run costs nothing to the others.
    def candidate(session_id: int) -> Candidate:
        return Candidate(
            session_id, f"s{session_id}", "loop", "2026-01-01T00:00:00+00:00", "running", "", 0, 0
        )

    found = scan(
        [candidate(1), candidate(2), candidate(3), candidate(4)],
        lambda name: transport(sshd, tmp_path),
    )
    assert [(c.state, c.remote_seq) for c in found] == [
        ("finished", 7),
        ("ended", 0),
        ("ended", 4),
        ("missing", 0),
    ]


def test_a_huge_spool_line_is_read_in_pieces(sshd: Any, tmp_path: Path) -> None:
    """A line far past the limit streams through the follower without being buffered whole."""
    good = log_lines(4)
    lines = [
        good[0].encode(),
        b'{"v": 1, "message": "' + b"z" * (3 * 1024 * 1024),
        *[g.encode() for g in good[1:]],
    ]
    run_dir = tmp_path / "cache" / "runs" / "r5"
    start_writer(run_dir, lines, interval=0.05)
    t = transport(sshd, tmp_path)
    try:
        run = t.attach(str(run_dir))
        run.max_line_bytes = SMALL_LIMIT
        items = list(run.events())
    finally:
        t.close()
    assert [i.seq for i in items if isinstance(i, Event)] == [1, 2, 3, 4]
    bad = [i for i in items if isinstance(i, BadLine)]
    assert len(bad) == 1
    assert f"line of {3 * 1024 * 1024 + 21:,} bytes" in str(bad[0].error)
    assert bad[0].text.startswith('{"v": 1, "message": "zzz')
