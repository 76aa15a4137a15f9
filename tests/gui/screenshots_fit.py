"""Screenshots of every page at the size of the screen (not a test: run it by hand).

    xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python -m tests.gui.screenshots_fit DIR

Opens the main window as the app does (sized to the screen it is on) over a real session
store with two stored sweeps, shows every page in turn, feeds a scripted sweep to the Live
page, and saves what the screen shows (``SIZE-screen-PAGE.png``: clipping by the screen edge
shows there). Prints the window's geometry after each page, and says if the window grew.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from tests._fixtures.scripted import sweep_events
from tests.gui.screenshots import store_run


def main(out_dir: str) -> int:
    if os.environ.get("BENCH_GUI_DATA_DIR"):
        return shoot(out_dir)
    folder = tempfile.mkdtemp(prefix="bench-gui-fit-")
    os.environ["BENCH_GUI_DATA_DIR"] = folder
    try:
        return shoot(out_dir)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def shoot(out_dir: str) -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from bench_gui.core.plan_model import Plan
    from bench_gui.gui.app import APP_NAME, apply_theme
    from bench_gui.gui.main_window import MainWindow
    from bench_gui.gui.window_fit import fit_to_screen
    from bench_gui.gui.window_pages import PAGES
    from bench_gui.store import SessionStore

    settings = Path(os.environ["BENCH_GUI_DATA_DIR"]) / "settings"
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(settings))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    QApplication.setApplicationName(APP_NAME)
    app = QApplication(sys.argv[:1])
    apply_theme(app)
    screen = app.primaryScreen()
    size = f"{screen.size().width()}x{screen.size().height()}"
    store = SessionStore()

    vus = list(range(8, 65, 8))
    plan = Plan(name="RAID 10, 4× SAS SSD — PostgreSQL 16")
    plan.workload.warehouses = 100
    plan.workload.virtual_users = vus
    plan.workload.rampup_s = 10
    plan.workload.duration_s = 30
    first = store_run(store, plan.name, sweep_events(vus, 10, 30, noise=0.06, seed=3), plan)
    hdd = Plan(name="RAID 10, 16× 15K HDD — PostgreSQL 16")
    hdd.workload = plan.workload
    second = store_run(
        store, hdd.name, sweep_events(vus[:5], 10, 30, noise=0.1, seed=5, stop_in_step=4), hdd
    )

    window = MainWindow(store)
    fit_to_screen(window)
    window.show()
    start = window.frameGeometry()
    print(f"screen {size}, available {screen.availableGeometry().getRect()}")  # noqa: T201

    def settle() -> None:
        for _ in range(30):
            app.processEvents()

    def shot(name: str) -> None:
        settle()
        screen.grabWindow(0).save(str(out / f"{size}-screen-{name}.png"))
        geometry = window.frameGeometry()
        grown = geometry.width() > start.width() or geometry.height() > start.height()
        print(  # noqa: T201
            f"{name:22} window {geometry.width()}x{geometry.height()}"
            f" at {geometry.x()},{geometry.y()}{'  GREW' if grown else ''}"
        )

    for name in PAGES:
        window.show_page(name)
        shot(name.lower())

    window.show_page("Sessions")
    window.sessions_page.open_run(first)
    shot("sessions-open")
    window.show_page("Compare")
    window.compare_page.set_checked([first, second])
    window.compare_page.set_baseline(first)
    window.compare_page.compare()
    shot("compare-done")

    events = sweep_events(vus, 10, 30, noise=0.06, seed=11)
    live = window.live_page
    live.begin_run(plan)
    window.show_page("Live")
    for event in events[: len(events) // 2]:
        live.handle_event(event)
    live.refresh()
    shot("live-running")

    window.close()
    store.close()
    print(f"screenshots in {out}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "artifacts"))
