"""Screenshots of the main window with scripted runs (not a test: run it by hand).

    xvfb-run -s "-screen 0 1920x1080x24" .venv/bin/python -m tests.gui.screenshots artifacts

Builds the real main window over a real session store in a temporary data directory, stores
two scripted sweeps in it the way the runner does (create_run, add_event, finish_run), feeds a
third one into the Live page and saves a PNG of each page.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests._fixtures.scripted import (
    sweep_events,
)


def store_run(store: Any, name: str, events: list[Any], plan: Any) -> int:
    run_id = store.create_run(
        name=name,
        plan=plan.to_dict(),
        plan_toml=plan.to_toml(),
        target={"kind": plan.target.kind},
        engine="postgresql",
    )
    for event in events:
        store.add_event(run_id, event)
    final = events[-1]
    status = {"ok": "complete", "stopped": "incomplete"}.get(final.get("status"), "failed")
    store.finish_run(run_id, status, str(final.get("message") or ""))
    return int(run_id)


def main(out_dir: str) -> int:
    os.environ.setdefault("BENCH_GUI_DATA_DIR", tempfile.mkdtemp(prefix="bench-gui-shots-"))
    from PySide6.QtWidgets import QApplication

    from bench_gui.core.plan_model import Plan
    from bench_gui.gui.app import APP_NAME, build_main_window
    from bench_gui.store import SessionStore

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    QApplication.setApplicationName(APP_NAME)
    app = QApplication(sys.argv[:1])
    store = SessionStore()

    vus = list(range(8, 65, 8))
    plan = Plan(name="RAID 10, 4× SAS SSD — PostgreSQL 16")
    plan.workload.warehouses = 100
    plan.workload.virtual_users = vus
    plan.workload.rampup_s = 10
    plan.workload.duration_s = 30
    store_run(store, plan.name, sweep_events(vus, 10, 30, noise=0.06, seed=3), plan)
    hdd = Plan(name="RAID 10, 16× 15K HDD — PostgreSQL 16")
    hdd.workload = plan.workload
    store_run(
        store, hdd.name, sweep_events(vus[:5], 10, 30, noise=0.1, seed=5, stop_in_step=4), hdd
    )

    window = build_main_window(store)
    window.resize(1920, 1080)
    window.workload_page.set_plan(plan)
    window.show()

    def settle() -> None:
        for _ in range(20):
            app.processEvents()

    settle()
    window.grab().save(str(out / "workload.png"))

    # Workload page with validation errors.
    window.workload_page.warehouses_spin.setValue(0)
    window.workload_page.vus_edit.setText("8,x")
    window.workload_page.validated_plan()
    settle()
    window.grab().save(str(out / "workload-errors.png"))
    window.workload_page.set_plan(plan)

    # Live page mid-run: feed a sweep up to the middle of step 6.
    events = sweep_events(vus, 10, 30, noise=0.06, seed=11)
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
    window.grab().save(str(out / "live.png"))

    # The same run, ended.
    for event in events[cut + 1 :]:
        live.handle_event(event)
    live.run_finished("ok")
    settle()
    window.grab().save(str(out / "live-finished.png"))

    live.begin_run(plan)
    live.handle_event(events[0])
    live.run_failed("cannot connect to 10.0.0.5:5432: password authentication failed")
    settle()
    window.grab().save(str(out / "live-failed.png"))

    # The Live page at a laptop's size, and the Present view (tests/gui/screenshots_present.py).
    from tests.gui.screenshots_present import live_at, present_views

    live_at(window, plan, out, (1366, 768))
    window.resize(1920, 1080)
    present_views(app, plan, out)

    window.show_page("Sessions")
    settle()
    window.sessions_page.open_run(window.sessions_page.rows[-1].id)
    settle()
    window.grab().save(str(out / "sessions.png"))
    window.sessions_page.open_run(window.sessions_page.rows[0].id)
    settle()
    window.grab().save(str(out / "sessions-partial.png"))

    window.close()
    store.close()
    print(f"screenshots in {out}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "artifacts"))
