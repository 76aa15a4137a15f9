"""The benchmarks' measured-window CPU (``benchmarks/roundtrip_floor.WindowCpu``): a worker that
exits inside the window must not take its CPU away from the sum, which once printed a negative
driver figure (``driver_overhead.py --floor-seconds 0``)."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

from bench_gui.agent.users import FLAG_MEASURING

BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3:\n    pass\n"


class _Proc:
    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.pid = proc.pid


class _Step:
    def __init__(self, procs: list[Any]) -> None:
        self.flags = [0, 0, 0]
        self.procs = [(p, None) for p in procs]
        self.count = 0

    def driver_counts(self) -> list[int]:
        return [self.count]


class _NoServer:
    def seconds(self) -> None:
        return None


def test_a_worker_exiting_in_the_window_never_makes_the_figure_negative() -> None:
    from benchmarks.roundtrip_floor import WindowCpu

    # A worker that has burned CPU before the window, then waits to be told to exit.
    worker = subprocess.Popen(
        [sys.executable, "-c", BURN + "import sys\nsys.stdin.read()\n"], stdin=subprocess.PIPE
    )
    try:
        while _cpu(worker.pid) < 0.2:
            time.sleep(0.05)
        step = _Step([_Proc(worker)])
        window = WindowCpu(step, _NoServer())  # type: ignore[arg-type]
        step.flags[FLAG_MEASURING] = 1
        while not window.samples:
            time.sleep(0.01)
        step.count = 100
        assert worker.stdin is not None
        worker.stdin.close()
        worker.wait()  # gone: its /proc entry with it
        step.flags[FLAG_MEASURING] = 0
        result = window.result()
    finally:
        worker.kill()
        worker.wait()
    assert result is not None
    assert result["workers"] >= 0.0
    assert result["supervisor"] >= 0.0
    assert result["transactions"] == 100


def _cpu(pid: int) -> float:
    from benchmarks.roundtrip_floor import _proc_cpu

    return _proc_cpu(pid, with_children=False)
