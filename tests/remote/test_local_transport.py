"""The local transport's reader: the agent's stdout, read through a real pipe from a real process
(``cat`` of a spool file plays the agent), with every kind of bad line in it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from bench_gui.remote.local_transport import LocalAgentRun
from bench_gui.remote.transport import BadLine
from bench_gui.wire.protocol import Event, encode_event
from tests._fixtures.agent_events import agent_stream


class SpoolRun(LocalAgentRun):
    """A local agent run whose output is a spool file, through a pipe as the agent's is."""

    def __init__(self, spool: Path, max_line_bytes: int | None = None) -> None:
        self.run_dir = spool.parent
        self.stderr_path = spool.parent / "agent.stderr"
        self.proc = subprocess.Popen(["cat", str(spool)], stdout=subprocess.PIPE)
        if max_line_bytes is not None:
            self.max_line_bytes = max_line_bytes


def read(
    tmp_path: Path, content: bytes, max_line_bytes: int | None = None
) -> list[Event | BadLine]:
    spool = tmp_path / "events.jsonl"
    spool.write_bytes(content)
    return list(SpoolRun(spool, max_line_bytes).events())


def with_seq(line: str, seq: object) -> bytes:
    body = json.loads(line)
    body["seq"] = seq
    return json.dumps(body).encode()


def test_bad_lines_are_reported_and_every_good_event_arrives(tmp_path: Path) -> None:
    good = agent_stream(steps=1, samples=3)
    bad = [
        good[2][:50].encode(),
        b"[" * 100_000,
        good[2][:-1].encode() + b', "n": ' + b"1" * 5000 + b"}",
        with_seq(good[2], 999_999_999),
        with_seq(good[2], 1),
        b"\xc3\x28 not utf-8",
        b"q" * 50_000,
    ]
    lines = [good[0].encode(), good[1].encode(), *bad, *(g.encode() for g in good[2:])]
    items = read(tmp_path, b"\n".join(lines) + b"\n", max_line_bytes=32_768)
    assert [i.seq for i in items if isinstance(i, Event)] == list(range(1, len(good) + 1))
    reasons = [str(i.error) for i in items if isinstance(i, BadLine)]
    assert len(reasons) == len(bad), reasons
    for reason, expected in zip(
        reasons,
        [
            "not JSON",
            "line of 100,000 bytes, longer than 32,768",
            "digits",
            "seq 1 is not after 2",
            "not JSON",
            "line of 50,000 bytes",
            # held until the next event shows the stream did not go on from it
            "seq 999999999 jumps ahead of 3",
        ],
        strict=True,
    ):
        assert expected in reason


def test_a_last_line_without_its_newline_is_read(tmp_path: Path) -> None:
    lines = [encode_event("log", 1, 1.0, message="a"), encode_event("done", 2, 2.0, status="ok")]
    items = read(tmp_path, "\n".join(lines).encode())
    assert [(i.seq, i.kind) for i in items if isinstance(i, Event)] == [(1, "log"), (2, "done")]


def test_an_over_long_last_line_is_reported_once(tmp_path: Path) -> None:
    items = read(
        tmp_path, encode_event("log", 1, 1.0, message="a").encode() + b"\n" + b"w" * 9000, 1000
    )
    assert [type(i).__name__ for i in items] == ["Event", "BadLine"]
    bad = items[1]
    assert isinstance(bad, BadLine)
    assert "line of 9,000 bytes, longer than 1,000" in str(bad.error)
    assert bad.text == "w" * 200 + "…"
