"""The desktop application's entry point (``bench-gui-desktop``)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import Any

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QMessageBox

from bench_gui.gui.compat import BAD_BINDING_HELP, binding_drops_references
from bench_gui.gui.errors import ExceptHooks, notifier
from bench_gui.gui.main_window import ControllerFactory, MainWindow
from bench_gui.gui.resources import app_icon, load_theme

APP_NAME = "bench-gui"
_THEMED = "bench_gui_themed"


def apply_theme(app: QApplication) -> None:
    """Fusion style, the dark style sheet, a large base font, the window icon (once per app)."""
    if app.property(_THEMED):
        return
    app.setStyle("Fusion")
    font = QFont(app.font())
    font.setPixelSize(15)
    app.setFont(font)
    app.setStyleSheet(load_theme())
    app.setWindowIcon(app_icon())
    app.setProperty(_THEMED, True)


def build_main_window(
    store: Any, controller_factory: ControllerFactory | None = None
) -> MainWindow:
    """The themed main window over ``store`` (needs a QApplication; used by main and tests)."""
    app = QApplication.instance()
    if isinstance(app, QApplication):
        apply_theme(app)
    return MainWindow(store, controller_factory=controller_factory)


def start_up(store: Any, controller_factory: ControllerFactory | None = None) -> MainWindow:
    """What main does between opening the store and ``app.exec()`` (tests call it as is).

    Runs a closed or crashed app left "running" are closed as incomplete, except those on an
    SSH driver host: they may still be going on there. The window opens at once; the driver
    hosts are asked in the background, and a dialog offers to re-attach to what was found
    (see :mod:`bench_gui.gui.reattach`). Raises StoreError if the store cannot be read.
    """
    from bench_gui.gui.reattach import find_candidates

    candidates = find_candidates(store, at_start=True)
    store.mark_stale_running(keep=[c.session_id for c in candidates if c.status == "running"])
    window = build_main_window(store, controller_factory)
    window.show()
    window.offer_reattach(candidates)
    return window


def main(argv: Sequence[str] | None = None) -> int:
    """Run the desktop app; returns the process exit status."""
    args = list(sys.argv if argv is None else argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    QApplication.setApplicationName(APP_NAME)
    QApplication.setApplicationDisplayName(APP_NAME)
    QApplication.setDesktopFileName(APP_NAME)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(args)
    if binding_drops_references():
        logging.getLogger(__name__).critical(BAD_BINDING_HELP)
        QMessageBox.critical(None, APP_NAME, BAD_BINDING_HELP)
        return 2
    apply_theme(app)

    hooks = ExceptHooks(notifier())
    hooks.install()
    try:
        from bench_gui.store import SessionStore, StoreError

        try:
            store = SessionStore()
        except StoreError as exc:
            QMessageBox.critical(None, APP_NAME, f"Cannot open the session store.\n\n{exc}")
            return 1
        try:
            try:
                window = start_up(store)
            except StoreError as exc:
                QMessageBox.critical(None, APP_NAME, f"Cannot read the session store.\n\n{exc}")
                return 1
            status = app.exec()
            window.shutdown()
        finally:
            store.close()
        return int(status)
    finally:
        hooks.uninstall()


if __name__ == "__main__":
    raise SystemExit(main())
