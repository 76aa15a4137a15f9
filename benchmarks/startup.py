"""How long the desktop app takes to open, and to have the demo target ready for a sweep.

Launches the real app (``.venv/bin/bench-gui-desktop``, or ``--entry bench-gui``) on a private
Xvfb screen, several times, and prints for each kind of launch the median and the maximum of:

- **mapped**: from the launch to the main window mapped on the X screen (``xwininfo``
  polled every 20 ms sees it viewable);
- **shown**: to the app's ``startup: window shown`` log line (the window is on screen and
  painted; the line also says which heavy libraries were loaded by then: none, ideally);
- **ready**: to the ``startup: demo target ...`` line (the embedded PostgreSQL is up and the
  Workload plan's schema is built: a sweep starts measuring at once).

Kinds of launch:

- **cold**: the app's files (the venv's and the source tree's) dropped from the page cache
  first (``posix_fadvise(DONTNEED)``, only those files), and a new data directory: a first
  launch on a machine that just booted (initdb and the schema build included);
- **warm**: the same data directory again, files cached: every later launch.

    .venv/bin/python benchmarks/startup.py                 # 3 cold, 3 warm, 1366x768 screen
    .venv/bin/python benchmarks/startup.py --runs 5 --screen 1280x720
    .venv/bin/python benchmarks/startup.py --no-ready      # window only: quit once shown
    .venv/bin/python benchmarks/startup.py --background 4  # under a fixed load: 4 processes
        that keep a CPU busy each for the whole measurement (the load average is printed)
    .venv/bin/python benchmarks/startup.py --bundle ~/.local/opt/bench-gui   # the installed
        desktop bundle (scripts/bundle.sh, then its install.sh) instead of the venv
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TITLE = "Workload — bench-gui"
SHOWN = re.compile(r"startup: window shown t=([0-9.]+) heavy=(\S+) pages=(\S+)")
READY = re.compile(r"startup: demo target (\w+(?: \w+)?) t=([0-9.]+)")
POLL_S = 0.02


@dataclass
class Launch:
    mapped: float | None = None
    shown: float | None = None
    ready: float | None = None
    ready_state: str = ""
    heavy: str = ""
    log: list[str] = field(default_factory=list)


def start_xvfb(screen: str) -> tuple[subprocess.Popen[bytes], str]:
    """A private X server on a free display numbered from 200 up (far from the :0 and :99
    that desktops and ``xvfb-run`` take, so no other server's exit removes our socket)."""
    for number in range(200, 300):
        if Path(f"/tmp/.X{number}-lock").exists():
            continue
        display = f":{number}"
        proc = subprocess.Popen(
            ["Xvfb", display, "-screen", "0", f"{screen}x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if answers(display) and proc.poll() is None:
            return proc, display
        proc.kill()
        proc.wait()
    raise SystemExit("Xvfb did not start on any display from :200 to :299")


def answers(display: str, wait_s: float = 10.0) -> bool:
    """Whether the X server of ``display`` takes connections (within ``wait_s``)."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        probe = subprocess.run(
            ["xwininfo", "-display", display, "-root"], capture_output=True, check=False
        )
        if probe.returncode == 0:
            return True
        time.sleep(0.1)
    return False


def mapped(display: str) -> bool:
    out = subprocess.run(
        ["xwininfo", "-display", display, "-name", TITLE],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.returncode == 0 and "IsViewable" in out.stdout


BUSY_LOOP = "while True:\n    pass\n"


def start_background(count: int) -> list[subprocess.Popen[bytes]]:
    """``count`` processes that each keep one CPU busy: a fixed load to measure under, the
    same from one launch to the next (a shared machine's own load comes on top of it)."""
    return [
        subprocess.Popen([sys.executable, "-c", BUSY_LOOP], stdin=subprocess.DEVNULL)
        for _ in range(count)
    ]


def stop_background(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.wait()


def drop_from_cache(roots: list[Path]) -> int:
    """Evict the files under ``roots`` from the page cache (only them); how many."""
    count = 0
    for root in roots:
        for dirpath, _dirs, files in os.walk(root):
            for name in files:
                try:
                    fd = os.open(os.path.join(dirpath, name), os.O_RDONLY)
                except OSError:
                    continue
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    count += 1
                except OSError:
                    pass
                finally:
                    os.close(fd)
    return count


class DisplayLost(RuntimeError):
    """The app could not reach its X server (on a shared machine, something else took the
    display's socket away): the launch is measured again on a new server."""


def launch_on_new_screen(
    command: list[str], screen: str, data: Path, home: Path, wait_ready: bool, timeout: float
) -> Launch:
    """One launch on an X server of its own (started before the clock starts)."""
    for _attempt in range(3):
        xvfb, display = start_xvfb(screen)
        try:
            return launch(command, display, data, home, wait_ready, timeout)
        except DisplayLost as lost:
            print(f"(the app lost display {lost}: launched again on a new X server)")
        finally:
            xvfb.terminate()
            xvfb.wait()
    raise SystemExit("the app could not reach an X server three times in a row")


def launch(
    command: list[str], display: str, data: Path, home: Path, wait_ready: bool, timeout: float
) -> Launch:
    env = dict(os.environ)
    env.update(
        DISPLAY=display,
        QT_QPA_PLATFORM="xcb",
        BENCH_GUI_DATA_DIR=str(data),
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        PYTHONUNBUFFERED="1",
    )
    if not wait_ready:
        env["BENCH_GUI_DEMO_WARMUP"] = "0"
    log_path = home / "app.log"
    result = Launch()
    with open(log_path, "wb") as log:
        t0 = time.time()
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = t0 + timeout
        while time.time() < deadline:
            if proc.poll() is not None:
                text = log_path.read_text(errors="replace")
                if "could not connect to display" in text:
                    raise DisplayLost(display)
                raise RuntimeError(f"the app ended early:\n{text[-3000:]}")
            if result.mapped is None and mapped(display):
                result.mapped = time.time() - t0
            text = log_path.read_text(errors="replace")
            shown = SHOWN.search(text)
            if shown and result.shown is None:
                result.shown = float(shown.group(1)) - t0
                result.heavy = shown.group(2)
            ready = READY.search(text)
            if ready:
                result.ready_state = ready.group(1)
                result.ready = float(ready.group(2)) - t0
            seen = result.mapped is not None and result.shown is not None
            if seen and (not wait_ready or result.ready is not None):
                break
            time.sleep(POLL_S)
        else:
            raise RuntimeError(f"timed out:\n{log_path.read_text()[-3000:]}")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    result.log = log_path.read_text(errors="replace").splitlines()
    return result


def figures(name: str, values: list[float | None]) -> str:
    got = [v for v in values if v is not None]
    if not got:
        return f"{name:7} -"
    return (
        f"{name:7} median {statistics.median(got):6.2f} s   max {max(got):6.2f} s"
        f"   ({', '.join(f'{v:.2f}' for v in got)})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="launches of each kind")
    parser.add_argument("--screen", default="1366x768", help="the Xvfb screen, WxH")
    parser.add_argument(
        "--entry",
        default="bench-gui-desktop",
        choices=("bench-gui-desktop", "bench-gui"),
        help="the installed command to launch",
    )
    parser.add_argument("--no-ready", action="store_true", help="do not wait for the demo")
    parser.add_argument(
        "--bundle",
        type=Path,
        metavar="DIR",
        help="launch the desktop bundle installed in DIR (e.g. ~/.local/opt/bench-gui)",
    )
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument(
        "--background",
        type=int,
        default=0,
        metavar="N",
        help="measure under a fixed load: N processes keeping a CPU busy each",
    )
    args = parser.parse_args()
    for tool in ("Xvfb", "xwininfo"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is needed (apt-get install xvfb x11-utils)")
    command = [str(Path(sys.executable).parent / args.entry)]
    cached = [Path(sys.prefix), REPO / "bench_gui", REPO / "plugins"]
    if args.bundle is not None:
        command = [str(args.bundle.expanduser() / args.entry)]
        cached = [args.bundle.expanduser()]
    if not Path(command[0]).exists():
        raise SystemExit(f"{command[0]} is not installed (pip install -e . or the bundle)")
    wait_ready = not args.no_ready
    work = Path(tempfile.mkdtemp(prefix="bench-gui-startup-"))
    work.chmod(0o755)  # the embedded server runs as its own user and must reach its data
    results: dict[str, list[Launch]] = {"cold": [], "warm": []}
    load_before = os.getloadavg()[0]
    background = start_background(args.background)
    try:
        for run in range(args.runs):
            data = work / f"data-{run}"
            home = work / f"home-cold-{run}"
            home.mkdir()
            drop_from_cache(cached)
            results["cold"].append(
                launch_on_new_screen(command, args.screen, data, home, wait_ready, args.timeout)
            )
        for run in range(args.runs):
            home = work / f"home-warm-{run}"
            home.mkdir()
            data = work / "data-0"
            results["warm"].append(
                launch_on_new_screen(command, args.screen, data, home, wait_ready, args.timeout)
            )
    finally:
        load_after = os.getloadavg()[0]
        stop_background(background)
        shutil.rmtree(work, ignore_errors=True)
    what = f"{command[0]}" if args.bundle is not None else args.entry
    print(f"{what} on a {args.screen} Xvfb screen, {os.cpu_count()} CPUs, {args.runs} runs")
    print(
        f"background: {args.background} busy processes; 1-min load average"
        f" {load_before:.1f} before, {load_after:.1f} at the end"
    )
    for kind, launches in results.items():
        print(f"{kind}:")
        print("  " + figures("mapped", [r.mapped for r in launches]))
        print("  " + figures("shown", [r.shown for r in launches]))
        if wait_ready:
            print("  " + figures("ready", [r.ready for r in launches]))
            print(f"  demo target: {', '.join(r.ready_state or '?' for r in launches)}")
        print(f"  heavy modules loaded when shown: {', '.join(r.heavy for r in launches)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
