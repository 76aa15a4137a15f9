"""What ``bench-gui run`` prints while a run goes on: what the Live page knows, the terminal
says (a database not answering, users reconnecting, why a step does not count, the link to
the driver host lost and restored), and the agent's and the database's text never reaches the
terminal raw (escape sequences, bidirectional overrides, NUL bytes)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench_gui.cli.main import _print_checks
from bench_gui.cli.progress import ProgressPrinter
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import Event
from tests._fixtures.pg import Clone
from tests._fixtures.wait import wait_until

HOSTILE = "\x1b[2J\x1b]0;owned\x07\u202etxt.exe\x00end\nstep 9 done: NOPM 999"


def printed(*events: Event) -> str:
    out = io.StringIO()
    printer = ProgressPrinter(out)
    for event in events:
        printer(event)
    return out.getvalue()


def test_agent_and_database_text_is_printed_escaped() -> None:
    text = printed(
        Event("hello", 1, 0.0, {"server": HOSTILE}),
        Event("log", 2, 0.0, {"level": "warning", "message": HOSTILE}),
        Event("progress", 3, 0.0, {"task": "reset", "done": 2.0, "message": HOSTILE}),
        Event(
            "sample",
            4,
            0.0,
            {
                "step": 0,
                "vus": 1,
                "phase": "measure",
                "db_not_answering_s": 3.0,
                "db_error": HOSTILE,
            },
        ),
        Event(
            "step",
            5,
            0.0,
            {
                "phase": "end",
                "step": 0,
                "vus": 1,
                "summary": {"complete": False, "problems": [HOSTILE]},
            },
        ),
        Event("error", 6, 0.0, {"message": HOSTILE}),
    )
    for raw in ("\x1b", "\u202e", "\x00", "\x07"):
        assert raw not in text
    lines = text.splitlines()
    assert len(lines) == 7, lines  # a newline in the text starts no line of its own
    assert not any(line.startswith("step 9 done") for line in lines)
    assert lines[0] == (
        "connected: \\x1b[2J\\x1b]0;owned\\x07\\u202etxt.exe\\x00end\\x0astep 9 done: NOPM 999"
    )


def test_the_database_and_the_step_reasons_are_said() -> None:
    text = printed(
        Event(
            "sample",
            1,
            0.0,
            {
                "step": 0,
                "vus": 4,
                "phase": "measure",
                "elapsed": 3.0,
                "db_not_answering_s": 2.5,
                "db_error": "connection refused",
                "vus_down": 3,
            },
        ),
        Event(
            "progress",
            2,
            0.0,
            {
                "task": "reset",
                "done": 4.0,
                "unit": "s",
                "message": "step 2: resetting tpcc from tpcc_template",
                "db_not_answering_s": 3.0,
            },
        ),
        Event(
            "step",
            3,
            0.0,
            {
                "phase": "end",
                "step": 0,
                "vus": 4,
                "summary": {
                    "step": 0,
                    "vus": 4,
                    "complete": False,
                    "problems": ["3 of 4 virtual users lost their connection"],
                },
            },
        ),
    )
    lines = text.splitlines()
    assert "database not answering for 2.5 s (connection refused)  3 users reconnecting" in lines[0]
    assert lines[1] == (
        "  step 2: resetting tpcc from tpcc_template: 4 s  database not answering for 3.0 s"
    )
    assert lines[2].startswith("step 1 done: 4 VU")
    assert lines[2].endswith("(incomplete)")
    assert lines[3] == "  not counted: 3 of 4 virtual users lost their connection"


def _client_ports(pid: int, server_port: int) -> list[int]:
    """The local ports of ``pid``'s established connections to ``server_port``."""
    out = subprocess.run(
        ["ss", "-Htnp", "state", "established", f"( dport = :{server_port} )"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return [
        int(line.split()[2].rsplit(":", 1)[1]) for line in out.splitlines() if f"pid={pid}," in line
    ]


@pytest.mark.integration
def test_run_says_when_the_link_is_lost_and_restored(
    sshd: Any, pg_server: Any, tpcc_db: Clone, tmp_path: Path
) -> None:
    db = tmp_path / "s.sqlite3"
    sshd.trust()
    base = [sys.executable, "-m", "bench_gui", "--db", str(db)]
    add = subprocess.run(
        [
            *base,
            *("target", "add", "lab", "--host", "127.0.0.1", "--port", str(sshd.port)),
            *("--user", "root", "--auth", "key", "--key", str(sshd.client_key)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert add.returncode == 0, add.stderr
    plan = tmp_path / "plan.toml"
    plan.write_text(pg_server.plan_text(tpcc_db("cli_link", 1), vus="1", rampup=1, duration=8))
    log = tmp_path / "run.log"
    with open(log, "wb") as sink:
        run = subprocess.Popen(
            [*base, "run", str(plan), "--driver", "lab"],
            stdout=subprocess.DEVNULL,
            stderr=sink,
            env=dict(os.environ),
        )
    try:

        def sampled() -> bool:
            assert run.poll() is None, log.read_text()[-2000:]
            with SessionStore(db) as store:
                runs = store.list_runs()
                return bool(runs and store.samples(runs[0].id))

        wait_until(sampled, 240, "the run's first stored sample")
        ports = _client_ports(run.pid, sshd.port)
        assert ports, "the run has no connection to the sshd"
        assert any(sshd.cut(port) for port in ports)
        assert run.wait(240) == 0, log.read_text()[-2000:]
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    text = log.read_text()
    assert re.search(r"^link lost: ", text, re.M), text[-2000:]
    assert re.search(r"^link restored: ", text, re.M), text[-2000:]


def test_consistency_checks_are_printed_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    _print_checks([{"name": "w_ytd", "ok": False, "detail": HOSTILE}], "")
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "\u202e" not in out
    assert out.splitlines()[0].startswith("FAILED w_ytd: \\x1b[2J")
