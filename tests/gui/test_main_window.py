"""The main window: pages, one error path, and real runs that fail (an unreachable server).

The runs here use the real RunController and agent against a port where nothing listens, so
they fail fast with the message a user would see; successful end-to-end runs are covered by
the integration tests.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from bench_gui.gui.app import build_main_window
from bench_gui.gui.errors import ExceptHooks, notifier
from bench_gui.gui.main_window import MainWindow
from bench_gui.gui.resources import ICON_PNG, app_icon, resource_path
from bench_gui.gui.window_pages import PAGES

pytestmark = pytest.mark.gui

WAIT_MS = 60_000


def _unreachable_server(window: MainWindow) -> None:
    page = window.workload_page
    page.pg_radio.setChecked(True)
    page.host_edit.setText("127.0.0.1")
    page.port_spin.setValue(1)  # nothing listens there
    page.vus_edit.setText("2")
    page.rampup_spin.setValue(0)
    page.duration_spin.setValue(2)


def test_navigation_has_the_pages(qtbot: QtBot, main_window: MainWindow) -> None:
    nav = main_window.nav
    assert [nav.item(i).text() for i in range(nav.count())] == list(PAGES)
    assert list(PAGES)[:3] == ["Workload", "Live", "Sessions"]
    assert "Database" in PAGES
    assert "Targets" in PAGES
    assert "Storage" in PAGES
    assert main_window.current_page_name() == "Workload"
    main_window.show()
    for name in ("Sessions", "Database", "Targets", "Storage", "Live", "Workload"):
        row = list(PAGES).index(name)
        rect = nav.visualItemRect(nav.item(row))
        qtbot.mouseClick(nav.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        assert main_window.current_page_name() == name
    assert main_window.statusBar().isVisible()


def test_theme_and_icon_are_applied(main_window: MainWindow) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    assert "QPushButton" in app.styleSheet()
    assert not app_icon().isNull()
    image = QImage(str(resource_path(ICON_PNG)))
    assert (image.width(), image.height()) == (256, 256)


def test_an_invalid_plan_starts_nothing(qtbot: QtBot, main_window: MainWindow) -> None:
    main_window.workload_page.warehouses_spin.setValue(0)
    qtbot.mouseClick(main_window.workload_page.start_button, Qt.MouseButton.LeftButton)
    assert main_window.run_control.worker is None
    assert main_window.current_page_name() == "Workload"
    assert main_window.workload_page.field_error("workload.warehouses")


def test_a_run_against_an_unreachable_server_fails_clearly(
    qtbot: QtBot, main_window: MainWindow
) -> None:
    _unreachable_server(main_window)
    main_window.show()
    qtbot.mouseClick(main_window.workload_page.start_button, Qt.MouseButton.LeftButton)
    assert main_window.current_page_name() == "Live"
    assert main_window.run_control.busy
    assert not main_window.workload_page.start_button.isEnabled()
    # A second task is refused while one runs.
    plan = main_window.workload_page.validated_plan()
    assert plan is not None
    assert not main_window.run_control.start_task("check", plan)

    qtbot.waitUntil(lambda: main_window.run_control.worker is None, timeout=WAIT_MS)
    live = main_window.live_page
    assert live.banner.isVisible()
    assert live.banner.property("tone") == "failed"
    assert "Connection refused" in live.banner_label.text()
    assert "failed" in main_window.face.status_label.text()
    assert main_window.workload_page.start_button.isEnabled()
    assert main_window.face.error_box is None  # an expected failure: banner, no crash dialog

    # The failed run is a session, listed on the Sessions page.
    assert main_window.run_control.last_session_id is not None
    main_window.show_page("Sessions")
    rows = main_window.sessions_page.row_texts()
    assert len(rows) == 1
    assert rows[0][2] == "✘ failed"


def test_a_check_against_an_unreachable_server_reports_on_the_workload_page(
    qtbot: QtBot, main_window: MainWindow
) -> None:
    _unreachable_server(main_window)
    qtbot.mouseClick(main_window.workload_page.check_button, Qt.MouseButton.LeftButton)
    assert main_window.current_page_name() == "Workload"
    qtbot.waitUntil(lambda: main_window.run_control.worker is None, timeout=WAIT_MS)
    status = main_window.workload_page.task_status.text()
    assert status.startswith("Checking consistency failed:")
    assert "Connection refused" in status


def test_an_unexpected_worker_exception_reaches_the_error_dialog(qtbot: QtBot, store: Any) -> None:
    from bench_gui.services.run import RunController

    # A real controller asked for an action it does not know: a bug, not a user error.
    window = build_main_window(
        store, controller_factory=lambda plan, st, action: RunController(plan, st, "bogus")
    )
    qtbot.addWidget(window)
    with qtbot.waitSignal(notifier().error, timeout=WAIT_MS) as blocker:
        window.workload_page.start_button.click()
    assert "failed unexpectedly" in blocker.args[0]
    assert "unknown action 'bogus'" in blocker.args[1]
    qtbot.waitUntil(lambda: window.run_control.worker is None, timeout=WAIT_MS)
    assert window.face.error_box is not None
    assert window.live_page.banner.property("tone") == "failed"


def test_excepthooks_route_every_uncaught_exception_to_one_signal(
    qtbot: QtBot, main_window: MainWindow
) -> None:
    hooks = ExceptHooks(notifier())
    hooks.install()
    try:
        with qtbot.waitSignal(notifier().error, timeout=2000) as blocker:
            try:
                raise ValueError("boom in a slot")
            except ValueError:
                sys.excepthook(*sys.exc_info())  # what Qt does with an exception in a slot
        assert "ValueError" in blocker.args[0]
        assert "boom in a slot" in blocker.args[1]

        def fail() -> None:
            raise RuntimeError("boom in a thread")

        with qtbot.waitSignal(notifier().error, timeout=5000) as blocker:
            thread = threading.Thread(target=fail, name="worker-x")
            thread.start()
            thread.join()
        assert "worker-x" in blocker.args[0]
        assert "boom in a thread" in blocker.args[1]
    finally:
        hooks.uninstall()
    assert sys.excepthook is sys.__excepthook__ or sys.excepthook is not hooks._sys_hook

    box = main_window.face.error_box
    assert isinstance(box, QMessageBox)
    assert box.isVisible()
    assert box.text().startswith("Unexpected error in worker-x")


class _LinkCutRun:
    """A run controller (the worker's Controller protocol) whose run plays a real two-host
    run's start, then reports a link cut and its repair on one host through ``on_notice``,
    as RunController does from its thread."""

    def __init__(self, events: list[Any]) -> None:
        self.session_id: int | None = None
        self.on_notice: Any = None
        self._events = events

    def events(self) -> Any:
        for event in self._events:
            yield event
            if event.kind == "sample":
                self.on_notice("lost", "driver host 'beta': the SSH link dropped")
                self.on_notice("restored", "driver host 'beta': reconnected, resuming")
                break

    def stop(self) -> None:
        pass


def test_a_driver_hosts_link_notice_reaches_its_card_on_the_live_page(
    qtbot: QtBot, store: Any
) -> None:
    from tests.services.test_live_hosts import two_host_events

    events = two_host_events({"alpha": 40.0, "beta": 50.0})
    window = build_main_window(store, controller_factory=lambda p, s, a: _LinkCutRun(events))
    qtbot.addWidget(window)
    window.workload_page.start_button.click()
    qtbot.waitUntil(lambda: window.run_control.worker is None, timeout=WAIT_MS)
    card = window.live_page.hosts.card("beta")
    assert card.link == "restored"
    assert "reconnected" in card.link_detail
    assert window.live_page.hosts.card("alpha").link != "lost"
    assert window.shutdown(30)
