"""The app's start: runs a live process still writes are left alone; Ctrl+C and SIGTERM close it.

Real processes only: ``bench-gui run`` on the embedded PostgreSQL as a subprocess writing the
same session store the starting app opens, and the desktop app itself as a subprocess on Qt's
offscreen platform receiving the signals a terminal sends.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from pytestqt.qtbot import QtBot

from bench_gui.gui.app import start_up
from bench_gui.services.reattach import find_candidates
from bench_gui.store import SessionStore
from bench_gui.store.sessions import STALE_MESSAGE
from tests._fixtures.pg import Clone
from tests._fixtures.wait import wait_until

pytestmark = [pytest.mark.gui, pytest.mark.integration]

WAIT_S = 240


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes a test starts, with everything they started, killed if still there."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        kill_tree(proc)


def kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL a process and what it started: the agent runs in its own session, so it
    outlives a killed ``bench-gui run`` (and would keep the server's run lock)."""
    try:
        family = psutil.Process(proc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        family = []
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for child in family:
        try:
            child.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(family, timeout=30)


def cli_run(store: SessionStore, plan: Path, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "bench_gui", "--db", str(store.path), "run", str(plan)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=dict(os.environ),
        )


def running_with_samples(store: SessionStore, log: Path, proc: subprocess.Popen[bytes]) -> int:
    """The id of the run the CLI is writing, once it has stored a sample (0 before)."""
    if proc.poll() is not None:
        raise AssertionError(f"bench-gui run ended early: {log.read_text()[-2000:]}")
    runs = [r for r in store.list_runs() if r.status == "running"]
    return runs[0].id if runs and store.samples(runs[0].id) else 0


def test_start_up_leaves_a_run_a_live_cli_writes_alone(
    qtbot: QtBot,
    pg_server: Any,
    tpcc_db: Clone,
    store: SessionStore,
    tmp_path: Path,
    processes: list[subprocess.Popen[bytes]],
) -> None:
    plan = tmp_path / "plan.toml"
    database = tpcc_db("gui_app_live")
    plan.write_text(pg_server.plan_text(database, vus="1", warehouses=1, rampup=1, duration=6))

    # A run in a terminal, going on while the app starts: left running, and it ends as the
    # CLI says, not as "bench-gui stopped".
    log = tmp_path / "live.log"
    proc = cli_run(store, plan, log)
    processes.append(proc)
    live = wait_until(lambda: running_with_samples(store, log, proc), WAIT_S, "a stored sample")
    window = start_up(store)
    qtbot.addWidget(window)
    try:
        assert store.get_run(live).status == "running"
        assert find_candidates(store) == []
        assert proc.wait(WAIT_S) == 0, log.read_text()[-2000:]
    finally:
        assert window.shutdown(30)
    run = store.get_run(live)
    assert run.status == "complete", run.message
    assert run.message != STALE_MESSAGE

    # The same run killed with its agent: nobody writes it any more, so the next start
    # closes it as the app's own crash would be.
    log = tmp_path / "killed.log"
    proc = cli_run(store, plan, log)
    processes.append(proc)
    lost = wait_until(lambda: running_with_samples(store, log, proc), WAIT_S, "a stored sample")
    kill_tree(proc)
    window = start_up(store)
    qtbot.addWidget(window)
    try:
        run = store.get_run(lost)
        assert (run.status, run.message) == ("incomplete", STALE_MESSAGE)
        assert store.samples(lost)  # what was stored is kept
    finally:
        assert window.shutdown(30)


def desktop_app(tmp_path: Path, log: Path) -> subprocess.Popen[bytes]:
    """``bench-gui-desktop`` on the offscreen platform with its own data, home and settings."""
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        BENCH_GUI_DATA_DIR=str(tmp_path / "data"),
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-c", "from bench_gui.gui.app import main; raise SystemExit(main())"],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_quit_signal_closes_the_app(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]], sig: signal.Signals
) -> None:
    log = tmp_path / "app.log"
    proc = desktop_app(tmp_path, log)
    processes.append(proc)

    def up() -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"the app ended at start: {log.read_text()[-3000:]}")
        return "bench-gui is up" in log.read_text(errors="replace")

    wait_until(up, WAIT_S, "the app's window")
    proc.send_signal(sig)
    try:
        status = proc.wait(60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{sig.name} did not close the app: {log.read_text()[-3000:]}")
    assert status in (0, 128 + signal.SIGINT), log.read_text()[-3000:]
    assert f"{sig.name} received: closing" in log.read_text()
