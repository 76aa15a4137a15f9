"""Screenshots of the Live page with power and host metrics (not a test: run it by hand).

    xvfb-run -a -s "-screen 0 1920x1080x24" \
        .venv/bin/python -m tests.gui.screenshots_power artifacts

Builds the real main window over a session store in a temporary data directory (and QSettings
in a temporary folder), feeds a scripted sweep with host metrics and IPMI power into the Live
page and saves PNGs: mid-run with the default charts, every chart in four columns, the chart
chooser, a RAPL run (CPU power, labelled so), the finished run, and the Workload page's power
options.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tests._fixtures.scripted_power import (
    power_sweep_events,
)


def main(out_dir: str) -> int:
    os.environ.setdefault("BENCH_GUI_DATA_DIR", tempfile.mkdtemp(prefix="bench-gui-shots-"))
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    QSettings.setPath(
        QSettings.Format.IniFormat,
        QSettings.Scope.UserScope,
        tempfile.mkdtemp(prefix="bench-gui-settings-"),
    )
    from bench_gui.core.plan_model import Plan, Power
    from bench_gui.gui.app import APP_NAME, build_main_window
    from bench_gui.gui.widgets.chart_layout import CHART_KEYS, LiveLayout
    from bench_gui.store import SessionStore

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    QApplication.setApplicationName(APP_NAME)
    app = QApplication(sys.argv[:1])
    store = SessionStore()
    window = build_main_window(store)
    window.resize(1920, 1080)
    window.show()

    def settle() -> None:
        for _ in range(30):
            app.processEvents()

    vus = list(range(8, 65, 8))
    plan = Plan(name="RAID 1, 2× NVMe — PostgreSQL 16, wall power")
    plan.workload.warehouses = 100
    plan.workload.virtual_users = vus
    plan.workload.rampup_s = 10
    plan.workload.duration_s = 30
    plan.power = Power(meter="ipmi", options={"host": "10.0.0.42", "user": "ADMIN"}, idle_s=20)
    events = power_sweep_events(vus, 10, 30, noise=0.05, seed=11, idle_s=20)
    cut = next(
        i
        for i, e in enumerate(events)
        if e.kind == "sample" and e.get("step") == 5 and e.get("elapsed") == 22.0
    )
    live = window.live_page
    live.begin_run(plan)
    window.show_page("Live")
    for event in events[: cut + 1]:
        live.handle_event(event)
    live.refresh()
    settle()
    window.grab().save(str(out / "live-power.png"))

    live.view.apply_layout(LiveLayout(list(CHART_KEYS), 4, []))
    live.refresh()
    settle()
    window.grab().save(str(out / "live-power-all-charts.png"))

    live.choose_charts()
    settle()
    assert live.view.layout_dialog is not None
    live.view.layout_dialog.grab().save(str(out / "live-chart-chooser.png"))
    live.view.layout_dialog.reject()

    live.view.apply_layout(LiveLayout())
    for event in events[cut + 1 :]:
        live.handle_event(event)
    live.run_finished("ok")
    settle()
    window.grab().save(str(out / "live-power-finished.png"))

    rapl = Plan(name="Single socket, RAPL — PostgreSQL 16")
    rapl.workload = plan.workload
    rapl.power = Power(meter="rapl", options={}, idle_s=10)
    events = power_sweep_events(
        vus,
        10,
        30,
        noise=0.05,
        seed=5,
        idle_s=10,
        meter="rapl",
        scope="cpu",
        label="RAPL CPU power (1 package + 1 DRAM; not wall power)",
        array="nvme0n1",
        members=(),
        sockets=1,
    )
    live.begin_run(rapl)
    live.view.apply_layout(LiveLayout(["throughput", "power", "efficiency", "cpu", "disk_mbs",
                                  "disk_latency"], 3, []))  # fmt: skip
    cut = next(
        i
        for i, e in enumerate(events)
        if e.kind == "sample" and e.get("step") == 3 and e.get("elapsed") == 25.0
    )
    for event in events[: cut + 1]:
        live.handle_event(event)
    live.refresh()
    settle()
    window.grab().save(str(out / "live-rapl.png"))
    live.run_finished("stopped")
    live.view.apply_layout(LiveLayout())

    window.workload_page.set_plan(plan)
    window.show_page("Workload")
    settle()
    from PySide6.QtWidgets import QScrollArea

    scroll = window.workload_page.findChild(QScrollArea)
    scroll.ensureWidgetVisible(window.workload_page.power_options)
    settle()
    window.grab().save(str(out / "workload-power.png"))

    window.close()
    store.close()
    print(f"screenshots in {out}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "artifacts"))
