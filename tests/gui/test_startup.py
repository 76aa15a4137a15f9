"""The app's start, as a user starts it: the real entry points in a subprocess.

The window opens before the heavy libraries load (the pages nobody opened yet, the charts,
SSH, the database driver, the reports): the app's "window shown" line says what was loaded
by then. With the demo warm-up on, the first launch starts the embedded PostgreSQL and builds
the plan's schema in the background, the next launch finds it built, and quitting stops the
server (its data is kept).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench_gui.gui.app import HEAVY_MODULES
from tests._fixtures.wait import wait_until

pytestmark = pytest.mark.gui

WAIT_S = 240
BUILD_WAIT_S = 600
SHOWN = re.compile(r"startup: window shown t=\S+ heavy=(\S+) pages=(\S+)")
DEMO = re.compile(r"startup: demo target (ready|built|server|busy|stopped|not ready)")


@pytest.fixture
def apps() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def launch(
    code: str, tmp_path: Path, log: Path, warmup: bool, data: Path | None = None
) -> subprocess.Popen[bytes]:
    """The app on the offscreen platform with its own data, home and settings."""
    env = dict(os.environ)
    env.update(
        QT_QPA_PLATFORM="offscreen",
        BENCH_GUI_DATA_DIR=str(data or tmp_path / "data"),
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        BENCH_GUI_DEMO_WARMUP="1" if warmup else "0",
    )
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-c", code], stdout=out, stderr=subprocess.STDOUT, env=env
        )


def read(log: Path) -> str:
    return log.read_text(errors="replace")


def wait_for(proc: subprocess.Popen[bytes], log: Path, pattern: re.Pattern[str], wait_s: float):
    def seen() -> re.Match[str] | None:
        if proc.poll() is not None:
            raise AssertionError(f"the app ended: {read(log)[-3000:]}")
        return pattern.search(read(log))

    return wait_until(seen, wait_s, pattern.pattern)


def quit_app(proc: subprocess.Popen[bytes], log: Path) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        status = proc.wait(120)
    except subprocess.TimeoutExpired:
        pytest.fail(f"SIGTERM did not close the app: {read(log)[-3000:]}")
    assert status == 0, read(log)[-3000:]


DESKTOP = "from bench_gui.gui.app import main; raise SystemExit(main())"
COMMAND = (
    "import sys; from bench_gui.cli.main import main; sys.argv[1:] = []; raise SystemExit(main())"
)


@pytest.mark.parametrize("code", [DESKTOP, COMMAND], ids=["bench-gui-desktop", "bench-gui"])
def test_the_window_opens_before_the_heavy_libraries_load(
    tmp_path: Path, apps: list[subprocess.Popen[bytes]], code: str
) -> None:
    log = tmp_path / "app.log"
    proc = launch(code, tmp_path, log, warmup=False)
    apps.append(proc)
    shown = wait_for(proc, log, SHOWN, WAIT_S)
    assert shown.group(1) == "none", f"loaded before the window showed: {shown.group(1)}"
    assert shown.group(2) == "Workload"  # the other pages are built when first shown
    assert "paramiko" in HEAVY_MODULES
    assert "pyqtgraph" in HEAVY_MODULES
    wait_for(proc, log, re.compile("bench-gui is up"), WAIT_S)
    quit_app(proc, log)
    assert not DEMO.search(read(log))  # BENCH_GUI_DEMO_WARMUP=0: no demo server started


@pytest.mark.integration
def test_the_demo_target_is_ready_at_once_and_kept_between_launches(
    tmp_path: Path, apps: list[subprocess.Popen[bytes]]
) -> None:
    data = tmp_path / "data"
    pgdata = data / "demo-postgres"

    log = tmp_path / "first.log"
    proc = launch(DESKTOP, tmp_path, log, warmup=True, data=data)
    apps.append(proc)
    shown = wait_for(proc, log, SHOWN, WAIT_S)
    assert shown.group(1) == "none"  # the warm-up starts after the window is up
    first = wait_for(proc, log, DEMO, BUILD_WAIT_S)
    assert first.group(1) == "built", read(log)[-3000:]
    assert (pgdata / "postmaster.pid").exists()
    quit_app(proc, log)
    assert not (pgdata / "postmaster.pid").exists(), "the demo server was left running"
    assert (pgdata / "PG_VERSION").exists()  # its data is kept for the next launch

    log = tmp_path / "second.log"
    proc = launch(DESKTOP, tmp_path, log, warmup=True, data=data)
    apps.append(proc)
    second = wait_for(proc, log, DEMO, WAIT_S)
    assert second.group(1) == "ready", read(log)[-3000:]
    assert "building" not in read(log)

    # A second app while this one holds the server: it shares it, and leaves it running.
    log3 = tmp_path / "third.log"
    other = launch(DESKTOP, tmp_path, log3, warmup=True, data=data)
    apps.append(other)
    third = wait_for(other, log3, DEMO, WAIT_S)
    assert third.group(1) == "ready", read(log3)[-3000:]
    quit_app(other, log3)
    assert (pgdata / "postmaster.pid").exists(), "the other app stopped the shared server"
    quit_app(proc, log)
    assert not (pgdata / "postmaster.pid").exists()
