"""Screenshots of the report choices, the author's notes before export, a session's storage
description and a HammerDB import (not a test: run it by hand).

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python -m tests.gui.screenshots_export DIR
    xvfb-run -a -s "-screen 0 1366x768x24" .venv/bin/python -m tests.gui.screenshots_export DIR

Opens the main window sized to its screen over a real session store holding the report
fleet's five sessions (tests/report/fleet.py) and HammerDB's real job store
(tests/_fixtures/hammerdb/hammer.DB), and saves what the screen shows
(``SIZE-export-*.png``, dialogs included). Prints the size of every page's minimum against the
screen's.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tests._fixtures.hammerdb import HAMMER_DB
from tests.report.fleet import fleet


def main(out_dir: str) -> int:
    os.environ.setdefault("BENCH_GUI_DATA_DIR", tempfile.mkdtemp(prefix="bench-gui-export-"))
    from PySide6.QtCore import QEvent, QSettings
    from PySide6.QtWidgets import QApplication, QScrollArea

    from bench_gui.gui.app import APP_NAME, apply_theme
    from bench_gui.gui.main_window import MainWindow
    from bench_gui.gui.window_fit import fit_to_screen
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
    ids = fleet(store, 5)

    window = MainWindow(store)
    fit_to_screen(window)
    window.show()

    def settle() -> None:
        for _ in range(40):
            app.processEvents()
            # Widgets replaced on the page go when the event loop runs; this script has none.
            app.sendPostedEvents(None, QEvent.Type.DeferredDelete)

    def shot(name: str) -> None:
        settle()
        screen.grabWindow(0).save(str(out / f"{size}-export-{name}.png"))
        frame = window.stack.currentWidget()
        need = frame.widget().minimumSizeHint()
        room = frame.viewport().size()
        fits = need.width() <= room.width() and need.height() <= room.height()
        print(f"{name}: page needs {need.toTuple()}, has {room.toTuple()}, fits: {fits}")  # noqa: T201

    # Compare: five sessions, the report choices in view.
    window.show_page("Compare")
    page = window.compare_page
    page.refresh()
    page.set_checked(ids)
    page.set_baseline(ids[0])
    assert page.compare(), page.error_label.text()
    box = page.report_box
    box.set_cover("Acme Storage Labs", "", "2026-11-24")
    scroll = box.parentWidget()
    while scroll is not None and not isinstance(scroll, QScrollArea):
        scroll = scroll.parentWidget()
    if scroll is not None:
        settle()
        bar = scroll.verticalScrollBar()
        bar.setValue(bar.maximum())  # the Report box is the column's last
    shot("compare-options")
    # The author's notes, before export.
    dialog = page.export_gate.request(Path(tempfile.mkdtemp()) / "fleet.pdf")
    assert dialog is not None
    shot("author-notes")
    dialog.reject()
    # One session alone: its chart marks the load it never saturated at.
    page.set_checked([ids[2]])
    page.set_baseline(ids[2])
    assert page.compare(), page.error_label.text()
    shot("single-session")

    # Sessions: a described storage, then a HammerDB import.
    window.show_page("Sessions")
    sessions = window.sessions_page
    sessions.refresh()
    assert sessions.open_run(ids[4])
    sessions.tabs.setCurrentIndex(3)
    panel = sessions.storage_panel
    panel.devices_edit.setText("Amazon EBS gp3 volume")
    panel.count_spin.setValue(1)
    panel.raid_combo.setCurrentText("none")
    panel.fs_combo.setCurrentText("xfs")
    panel.note_edit.setPlainText("3000 IOPS, 125 MB/s provisioned; instance r6i.4xlarge")
    assert panel.save(), panel.error_label.text()
    shot("storage-entered")
    assert sessions.open_run(ids[2])
    shot("storage-built")

    copy = Path(tempfile.mkdtemp()) / "hammer.DB"
    copy.write_bytes(HAMMER_DB.read_bytes())
    task = sessions.hammerdb.start(copy)
    assert task is not None
    while sessions.hammerdb.task is not None:
        app.processEvents()
    sessions.tabs.setCurrentIndex(0)
    shot("hammerdb-import")
    sessions.hammerdb.details_button.click()
    shot("hammerdb-import-sessions")
    bad = copy.with_name("notes.txt")
    bad.write_text("not HammerDB\n")
    sessions.hammerdb.start(bad)
    while sessions.hammerdb.task is not None:
        app.processEvents()
    shot("hammerdb-error")

    window.shutdown(30)
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "screenshots"))
