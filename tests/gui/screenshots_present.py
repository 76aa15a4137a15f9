"""Screenshots of the Present view and of the Live page at a laptop's size (not a test: run it
by hand, or through ``tests.gui.screenshots`` which calls it).

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python -m tests.gui.screenshots_present DIR

The Present view is fed a scripted sweep with power (``present-SIZE-measuring.png``), raced
against a ghost with its "4.2X" figure during a ramp-up (``present-SIZE-race-rampup.png``) and
left on its result with an error in the corner (``present-SIZE-finished.png``), at 1920x1080,
1366x768 and 1280x720. The Live page is shot in the main window at 1366x768 mid-run and after.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests._fixtures.scripted import sweep_events
from tests._fixtures.scripted_power import power_sweep_events

SIZES = ((1920, 1080), (1366, 768), (1280, 720))


def _cut(events: list[Any], step: int, elapsed: float) -> int:
    return next(
        i
        for i, e in enumerate(events)
        if e.kind == "sample" and e.get("step") == step and e.get("elapsed") == elapsed
    )


def _settle(app: Any) -> None:
    for _ in range(30):
        app.processEvents()


def present_views(
    app: Any, plan: Any, out: Path, sizes: tuple[tuple[int, int], ...] = SIZES
) -> None:
    """The Present view at each size: measuring, a race in ramp-up, the result."""
    from PySide6.QtCore import QSize

    from bench_gui.gui.present.window import PresentWindow

    vus = plan.workload.virtual_users
    events = power_sweep_events(vus, 10, 30, noise=0.06, seed=11, idle_s=5)
    ghost = sweep_events(vus, 10, 30, noise=0.1, seed=5)
    t0 = ghost[0].t
    # The rival (an HDD array) at a quarter of the throughput, on this run's time axis.
    ghost_points = [
        (e.t - t0, float(e.get("nopm_db") or 0.0) / 4.2) for e in ghost if e.kind == "sample"
    ]
    for width, height in sizes:
        window = PresentWindow()
        window.present(windowed=True, size=QSize(width, height))
        view = window.view
        view.begin_run(plan)
        measuring = _cut(events, 5, 22.0)
        for event in events[: measuring + 1]:
            view.handle_event(event)
        view.refresh()
        _settle(app)
        window.grab().save(str(out / f"present-{width}x{height}-measuring.png"))

        rampup = _cut(events, 6, 6.0)
        for event in events[measuring + 1 : rampup + 1]:
            view.handle_event(event)
        view.set_ghost("HDD RAID 10", ghost_points)
        view.set_ratio_text("4.2X vs HDD RAID 10")
        view.refresh()
        _settle(app)
        window.grab().save(str(out / f"present-{width}x{height}-race-rampup.png"))

        for event in events[rampup + 1 :]:
            view.handle_event(event)
        view.run_finished("ok")
        view.show_corner_error("Run 3 failed: the demo target restarted (connection refused)")
        view.refresh()
        _settle(app)
        window.grab().save(str(out / f"present-{width}x{height}-finished.png"))
        window.may_close = True
        window.close()


def live_at(window: Any, plan: Any, out: Path, size: tuple[int, int]) -> None:
    """The Live page in the main window at ``size``: mid-run, then finished."""
    from PySide6.QtWidgets import QApplication

    qt_app = QApplication.instance()
    events = sweep_events(plan.workload.virtual_users, 10, 30, noise=0.06, seed=11)
    window.resize(*size)
    live = window.live_page
    live.begin_run(plan)
    window.show_page("Live")
    cut = _cut(events, 5, 22.0)
    for event in events[: cut + 1]:
        live.handle_event(event)
    live.refresh()
    _settle(qt_app)
    tag = f"{size[0]}x{size[1]}"
    window.grab().save(str(out / f"live-{tag}.png"))
    for event in events[cut + 1 :]:
        live.handle_event(event)
    live.run_finished("ok")
    _settle(qt_app)
    window.grab().save(str(out / f"live-{tag}-finished.png"))


def main(out_dir: str) -> int:
    os.environ.setdefault("BENCH_GUI_DATA_DIR", tempfile.mkdtemp(prefix="bench-gui-present-"))
    from PySide6.QtWidgets import QApplication

    from bench_gui.core.plan_model import Plan
    from bench_gui.gui.app import APP_NAME, apply_theme

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    QApplication.setApplicationName(APP_NAME)
    app = QApplication(sys.argv[:1])
    apply_theme(app)
    plan = Plan(name="RAID 10, 4× SAS SSD — PostgreSQL 16")
    plan.workload.virtual_users = list(range(8, 65, 8))
    plan.workload.rampup_s = 10
    plan.workload.duration_s = 30
    plan.power.meter = "ipmi"
    present_views(app, plan, out)
    print(f"screenshots in {out}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "artifacts"))
