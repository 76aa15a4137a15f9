"""Screenshots of the Live page during a real random-read run (not a test: run it by hand).

    .venv/bin/python -m tests.gui.screenshots_random_read OUT_DIR [EVENTS.jsonl]

Without an events file it records one first: the real agent runs real fio on a loop device
under a 64 MiB memory cgroup (root, fio and cgroups needed), five dataset sizes from 0.25x to
4x that "RAM", and writes its events to OUT_DIR/random-read-events.jsonl. The events go into
the Live page of the real main window at 1920x1080 and 1366x768: mid-run with a few points
done, then finished.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_gui.wire.protocol import Event, decode_line


def _settle(app: Any) -> None:
    for _ in range(20):
        app.processEvents()


def _events(out: Path, given: str | None) -> list[Event]:
    if given:
        return [decode_line(line) for line in Path(given).read_text().splitlines() if line]
    from tests.services.random_read_recording import record_run

    folder = Path(tempfile.mkdtemp(prefix="recording-", dir=out))
    try:
        events, _device = record_run(folder, (0.25, 0.5, 1, 2, 4), warmup_s=5, measure_s=10)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    (out / "random-read-events.jsonl").write_text("".join(e.to_line() + "\n" for e in events))
    return events


def main(out_dir: str, given: str | None = None) -> int:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    # The window's data (an empty store, settings) in the output folder: nothing left in /tmp.
    os.environ.setdefault("BENCH_GUI_DATA_DIR", str(out / "data"))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from bench_gui.core.plan_model import Plan
    from bench_gui.gui.app import APP_NAME, build_main_window
    from bench_gui.store import SessionStore

    events = _events(out, given)
    QApplication.setApplicationName(APP_NAME)
    app = QApplication(sys.argv[:1])
    window = build_main_window(SessionStore())
    plan = Plan(name="Random reads — SSD under a 64 MiB memory limit")
    plan.workload.kind = "random_read"
    plan.workload.dataset_sizes = [0.25, 0.5, 1, 2, 4]
    plan.workload.memory_limit = "64MiB"
    plan.workload.warmup_s = 5
    plan.workload.measure_s = 10
    starts = [e for e in events if e.kind == "step" and e.get("phase") == "start"]
    final = len(starts) - 1
    # Mid-run: the last point past the middle of its measured window.
    last = [i for i, e in enumerate(events) if e.kind == "sample" and e.get("step") == final]
    cut = last[len(last) * 2 // 3] if last else len(events) // 2
    for size in ((1920, 1080), (1366, 768)):
        tag = f"{size[0]}x{size[1]}"
        window.resize(*size)
        window.show()
        live = window.live_page
        live.begin_run(plan)
        window.show_page("Live")
        for event in events[: cut + 1]:
            live.handle_event(event)
        live.refresh()
        _settle(app)
        window.grab().save(str(out / f"live-random-read-{tag}.png"))
        for event in events[cut + 1 :]:
            live.handle_event(event)
        live.run_finished("ok")
        _settle(app)
        window.grab().save(str(out / f"live-random-read-{tag}-finished.png"))
        # Early on: the file being written.
        live.begin_run(plan)
        first = next(i for i, e in enumerate(events) if e.kind == "progress")
        for event in events[: first + 1]:
            live.handle_event(event)
        live.refresh()
        _settle(app)
        window.grab().save(str(out / f"live-random-read-{tag}-start.png"))
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
