"""Run claims: a live writer's claim is seen by every other store, and dies with its process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench_gui.store import SessionStore
from bench_gui.store.run_claims import RunClaims
from bench_gui.store.sessions import STALE_MESSAGE

HOLDER = """
import sys
from pathlib import Path
from bench_gui.store.run_claims import RunClaims
claims = RunClaims(Path(sys.argv[1]))
print("held" if claims.claim(int(sys.argv[2])) else "refused", flush=True)
sys.stdin.read()  # until the test closes our stdin (or kills us)
"""


@pytest.fixture
def holders() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def hold(folder: Path, run_id: int, holders: list[subprocess.Popen[str]]) -> str:
    """Claim ``run_id`` from another process; what it said."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(folder), str(run_id)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    holders.append(proc)
    assert proc.stdout is not None
    return proc.stdout.readline().strip()


def test_a_claim_is_seen_from_another_process_until_it_ends(
    tmp_path: Path, holders: list[subprocess.Popen[str]]
) -> None:
    claims = RunClaims(tmp_path / "s.sqlite3.live")
    assert not claims.held(1)
    assert hold(claims.folder, 1, holders) == "held"
    assert claims.held(1)
    assert not claims.mine(1)
    assert not claims.claim(1)  # one writer per run
    assert hold(claims.folder, 1, holders) == "refused"
    assert not claims.held(2)

    first = holders[0]
    assert first.stdin is not None
    first.stdin.close()  # it ends normally
    first.wait()
    assert not claims.held(1)
    assert claims.claim(1)
    assert claims.mine(1)
    claims.release(1)
    assert not claims.held(1)


def test_a_killed_writer_leaves_no_claim(
    tmp_path: Path, holders: list[subprocess.Popen[str]]
) -> None:
    claims = RunClaims(tmp_path / "live")
    assert hold(claims.folder, 7, holders) == "held"
    os.kill(holders[0].pid, signal.SIGKILL)
    holders[0].wait()
    assert not claims.held(7)
    assert claims.claim(7)


def test_stores_on_one_file_leave_each_others_live_runs_alone(tmp_path: Path) -> None:
    """The CLI's store writes a run; an app's store on the same file starts meanwhile."""
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as writer, SessionStore(path) as app:
        live = writer.create_run("live", {}, "", {}, "postgresql")
        assert writer.claims.mine(live)
        assert app.claims.held(live)
        assert app.mark_stale_running() == []
        assert not app.close_unfinished(live, "the app thinks it is lost")
        assert app.get_run(live).status == "running"
        assert not app.claims.claim(live)

        writer.finish_run(live, "complete", "all steps measured")
        assert not app.claims.held(live)  # released with its end

        crashed = writer.create_run("crashed", {}, "", {}, "postgresql")
    # The writer's store is closed (its process gone, as far as claims go): the run is stale.
    with SessionStore(path) as app:
        assert app.mark_stale_running() == [crashed]
        assert app.get_run(crashed).message == STALE_MESSAGE
        assert app.get_run(live).status == "complete"
