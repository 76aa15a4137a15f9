"""Screenshots of the Workload page (not a test: run it by hand).

    xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python -m tests.gui.screenshots_workload DIR
    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python -m tests.gui.screenshots_workload DIR

Opens the main window as the app does (sized to the screen), with one engine plugin that fails
to load (a dist-info folder on the path, as in tests/core/test_engine_catalog.py), and saves
what the screen shows (``SIZE-workload-NAME.png``): a MariaDB target, a SQL Server target, a
random-read study (top and scrolled to its end), a run on two driver hosts whose OS knobs name
no host (the error beside the field).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

BROKEN = "[bench_gui.engines]\noracle = bench_gui_no_such_module_here:OracleEngine\n"
MARIADB = """name = "MariaDB 11, RAID 10 of 4 SSDs"
[target]
kind = "mariadb"
host = "db1.lab"
user = "bench"
odbc_driver = "MariaDB Unicode"
tls = "verify"
authentication = "password"
password_env = "BENCH_GUI_DB1"
[workload]
warehouses = 100
virtual_users = "8-64/8"
"""
MSSQL = """name = "SQL Server 2017 on Linux (seed 003)"
[target]
kind = "mssql"
host = "sql1.lab"
tls = "on"
authentication = "sql"
[workload]
warehouses = 100
virtual_users = "8-64/8"
"""
RANDOM_READ = """name = "It's RAM, not disk: SSD"
[driver]
target = "storage1"
[workload]
kind = "random_read"
dataset_sizes = [0.25, 0.5, 1, 1.5, 2, 4]
memory_limit = "8GiB"
file = "/mnt/ssd/fio.dat"
"""
SEVERAL_HOSTS = """name = "Two driver hosts, PostgreSQL 16"
[target]
kind = "postgresql"
host = "db1.lab"
[workload]
warehouses = 100
virtual_users = "16-128/16"
[driver]
targets = ["storage1", "db-driver"]
share = [2, 1]
[os]
preset = "micron-9300-linux"
"""


def main(out_dir: str) -> int:
    folder = tempfile.mkdtemp(prefix="bench-gui-workload-shots-")
    os.environ["BENCH_GUI_DATA_DIR"] = folder
    dist = Path(folder) / "site" / "broken_engines-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-engines\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(BROKEN)
    sys.path.insert(0, str(dist.parent))
    try:
        return shoot(Path(out_dir), Path(folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def shoot(out: Path, folder: Path) -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication, QScrollArea

    from bench_gui.core.plan import plan_from_toml
    from bench_gui.gui.app import APP_NAME, apply_theme
    from bench_gui.gui.main_window import MainWindow
    from bench_gui.gui.window_fit import fit_to_screen
    from bench_gui.store import SessionStore

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    out.mkdir(parents=True, exist_ok=True)
    QApplication.setApplicationName(APP_NAME)
    app = QApplication(sys.argv[:1])
    apply_theme(app)
    screen = app.primaryScreen()
    size = f"{screen.size().width()}x{screen.size().height()}"
    store = SessionStore()
    window = MainWindow(store)
    fit_to_screen(window)
    window.show()
    page = window.workload_page
    page.set_driver_targets(["storage1", "db-driver"])
    page.target.load_engines()  # what the page shows a moment after the window opens
    window.show_page("Workload")
    scroll = page.findChild(QScrollArea)
    assert scroll is not None

    def shot(name: str) -> None:
        for _ in range(30):
            app.processEvents()
        screen.grabWindow(0).save(str(out / f"{size}-workload-{name}.png"))
        down, across = scroll.verticalScrollBar(), scroll.horizontalScrollBar()
        print(  # noqa: T201
            f"{name:22} scrolls {down.maximum()} px down, {across.maximum()} px across"
            f"{'  (A HORIZONTAL SCROLL BAR)' if across.maximum() else ''}"
        )

    plans = (("demo", ""), ("mariadb", MARIADB), ("mssql", MSSQL), ("random-read", RANDOM_READ))
    for name, text in plans:
        page.set_plan(plan_from_toml(text))
        scroll.verticalScrollBar().setValue(0)
        shot(name)
        if name == "mssql":
            scroll.ensureWidgetVisible(page.target.password_edit)
            shot("mssql-lower")
    scroll.verticalScrollBar().setValue(scroll.verticalScrollBar().maximum())
    shot("random-read-end")
    page.set_plan(plan_from_toml(MARIADB))
    page.port_spin.setValue(0)
    page.target.odbc.dsn_edit.setText("bad;dsn")
    page.validated_plan()
    scroll.verticalScrollBar().setValue(0)
    shot("mariadb-errors")
    page.set_plan(plan_from_toml(SEVERAL_HOSTS.replace('preset = "', '# preset = "')))
    page.os_section.preset_combo.setCurrentIndex(1)  # knobs, and no host named for them
    page.validated_plan()
    scroll.verticalScrollBar().setValue(0)
    shot("several-hosts")
    scroll.ensureWidgetVisible(page.os_section.host_edit)
    shot("several-hosts-os")

    window.close()
    store.close()
    print(f"screenshots in {out}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "artifacts"))
