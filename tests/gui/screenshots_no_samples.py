"""Screenshots of the Sessions page opening sessions that stored no samples (not a test: run it
by hand).

    xvfb-run -a -s "-screen 0 1280x720x24" .venv/bin/python -m tests.gui.screenshots_no_samples DIR

Stores, the way the runner does, a TPROC-C sweep whose samples were lost (its steps kept), a
run that failed before its first event, and a random-read session without its samples, opens
each on the Sessions page of the main window sized to the screen, and saves
``SIZE-sessions-KIND.png`` (and its Overview tab whole, ``…-overview.png``): the charts' "No
samples were stored" message should sit in the middle of each chart.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from tests._fixtures.random_read_sessions import MULTIPLES, RAM, random_read_events
from tests._fixtures.scripted import sweep_events
from tests.gui.screenshots import store_run


def main(out_dir: str) -> int:
    folder = tempfile.mkdtemp(prefix="bench-gui-nosamples-")
    os.environ["BENCH_GUI_DATA_DIR"] = folder
    try:
        return shoot(Path(out_dir))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def shoot(out: Path) -> int:
    from PySide6.QtWidgets import QApplication

    from bench_gui.core.plan_model import Plan
    from bench_gui.gui.app import APP_NAME, apply_theme
    from bench_gui.gui.main_window import MainWindow
    from bench_gui.gui.window_fit import fit_to_screen
    from bench_gui.store import SessionStore

    out.mkdir(parents=True, exist_ok=True)
    QApplication.setApplicationName(APP_NAME)
    app = QApplication(sys.argv[:1])
    apply_theme(app)
    screen = app.primaryScreen()
    size = f"{screen.size().width()}x{screen.size().height()}"
    store = SessionStore()
    vus = [8, 16, 24]
    plan = Plan(name="NVMe RAID 10 — samples lost")
    plan.workload.virtual_users = vus
    events = [e for e in sweep_events(vus, 10, 30, seed=3) if e.kind != "sample"]
    lost = store_run(store, plan.name, events, plan)
    never = int(store.create_run("Failed before it began", {}, "", {"kind": "demo"}, "postgresql"))
    store.finish_run(never, "failed", "cannot connect to the database")
    file = "/mnt/ssd/bench-gui-random-read.dat"
    rr_plan = {"name": "SSD random reads — samples lost", "workload": {"kind": "random_read"}}
    target = {"kind": "random_read", "host": "local", "file": file, "driver": ""}
    rr = int(store.create_run(rr_plan["name"], rr_plan, "", target, "fio"))
    ops = (210_000.0, 120_000.0, 60_000.0, 40_000.0, 35_000.0)
    for event in random_read_events(file, 33_000.0, ops, MULTIPLES, RAM):
        if event.kind != "sample":
            store.add_event(rr, event)
    store.finish_run(rr, "complete")

    window = MainWindow(store)
    fit_to_screen(window)
    window.show()
    window.show_page("Sessions")
    for kind, run_id in (("tproc-c", lost), ("never-ran", never), ("random-read", rr)):
        window.sessions_page.open_run(run_id)
        for _ in range(30):
            app.processEvents()
        screen.grabWindow(0).save(str(out / f"{size}-sessions-{kind}.png"))
        # The charts lie below the fold at 720 px: the opened session's tab whole as well.
        overview = window.sessions_page.detail.overview_stack.currentWidget()
        overview.grab().save(str(out / f"{size}-sessions-{kind}-overview.png"))
    window.close()
    store.close()
    print(f"screenshots in {out}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "artifacts"))
