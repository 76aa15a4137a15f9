"""The main window on a laptop screen, and from the keyboard.

Every page fits 1280 x 720 and the window never grows by itself (pages shown, a run's events,
a session opened, a comparison made); the window's first size follows its screen; the side
panel narrows on a narrow window; each page keeps its own status message; the title names the
page once. The shortcuts (Ctrl+1…7, Ctrl+Enter, Esc, Ctrl+E, F11) and the side panel's focus
are pressed as a user would, with a real sweep on a real PostgreSQL for Ctrl+Enter and Esc.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsView,
    QLabel,
    QMessageBox,
    QScrollArea,
    QWidget,
)
from pytestqt.qtbot import QtBot

from bench_gui.core.plan import plan_from_dict
from bench_gui.core.plan_model import Plan
from bench_gui.gui.app import build_main_window
from bench_gui.gui.main_window import MainWindow
from bench_gui.gui.nav_panel import COMPACT_BELOW
from bench_gui.gui.window_face import APP_TITLE, READY
from bench_gui.gui.window_fit import PREFERRED, fit_to_screen, fitted_size
from bench_gui.gui.window_pages import PAGES
from bench_gui.remote.demo import stop_demo
from tests._fixtures.pg import Clone
from tests._fixtures.scripted import sweep_events
from tests.gui.conftest import OFFSCREEN_NOISE

pytestmark = pytest.mark.gui

LAPTOP = QSize(1280, 720)
RUN_MS = 240_000


def settle(qtbot: QtBot) -> None:
    QApplication.processEvents()
    qtbot.wait(20)


def stored_run(store: Any, name: str, vus: list[int], seed: int) -> int:
    """A sweep stored as the runner stores one (create, every event, finish)."""
    plan = Plan(name=name)
    plan.workload.virtual_users = vus
    run_id = int(
        store.create_run(
            name=name,
            plan=plan.to_dict(),
            plan_toml=plan.to_toml(),
            target={"kind": "demo"},
            engine="postgresql",
        )
    )
    for event in sweep_events(vus, 3, 5, noise=0.05, seed=seed):
        store.add_event(run_id, event)
    store.finish_run(run_id, "complete", "sweep complete")
    return run_id


@pytest.fixture
def laptop(qtbot: QtBot, main_window: MainWindow) -> MainWindow:
    """The main window at 1280 x 720, shown and active (shortcuts need an active window)."""
    main_window.resize(LAPTOP)
    main_window.show()
    qtbot.waitExposed(main_window)
    main_window.activateWindow()
    qtbot.waitActive(main_window)
    return main_window


def grew(window: MainWindow) -> bool:
    return window.width() > LAPTOP.width() or window.height() > LAPTOP.height()


def assert_fits(window: MainWindow, name: str) -> None:
    """The page shown whole in its frame (nothing to scroll to), the window not grown."""
    assert not grew(window), f"the window grew to {window.size().toTuple()} on {name}"
    hint = window.centralWidget().minimumSizeHint()
    assert hint.width() <= LAPTOP.width(), (name, hint)
    assert hint.height() <= LAPTOP.height(), (name, hint)
    frame = window.stack.currentWidget()
    page = window.page(name)
    room = frame.viewport().size()  # type: ignore[attr-defined]
    need = page.minimumSizeHint()
    assert need.width() <= room.width(), f"{name} needs {need.width()} px, has {room.width()}"
    assert need.height() <= room.height(), f"{name} needs {need.height()} px, has {room.height()}"
    # What the frame does with it: a page is laid out at its preferred height for its width,
    # so a page whose minimum fits could still scroll (the Sessions page did, 338 px).
    scroll = frame.verticalScrollBar().maximum()  # type: ignore[attr-defined]
    assert scroll == 0, f"{name} is {page.height()} px tall in {room.height()}: scrolls {scroll}"


# ---- size --------------------------------------------------------------------------------------


def test_the_first_size_follows_the_screen_s_free_area() -> None:
    assert fitted_size(QRect(0, 0, 1920, 1040)) == (PREFERRED, False)
    assert fitted_size(QRect(0, 0, 1366, 728)) == (QSize(1366, 728), True)
    assert fitted_size(QRect(0, 32, 1280, 688)) == (QSize(1280, 688), True)
    assert fitted_size(QRect(0, 0, 1700, 900)) == (QSize(1600, 900), True)


def test_the_window_opens_within_its_screen(qtbot: QtBot, main_window: MainWindow) -> None:
    screen = QGuiApplication.primaryScreen()
    assert screen is not None
    free = screen.availableGeometry()
    size = fit_to_screen(main_window)
    assert size.width() <= free.width()
    assert size.height() <= free.height()
    assert free.contains(main_window.geometry().topLeft())
    maximized = bool(main_window.windowState() & Qt.WindowState.WindowMaximized)
    assert maximized == (size != PREFERRED)


def test_every_page_fits_a_1280_by_720_window_and_it_never_grows(
    qtbot: QtBot, laptop: MainWindow, store: Any
) -> None:
    first = stored_run(store, "RAID 10, 4× SAS SSD — PostgreSQL 16", [8, 16, 24, 32], 3)
    second = stored_run(store, "RAID 10, 16× 15K HDD — PostgreSQL 16", [8, 16, 24], 5)
    for name in PAGES:
        laptop.show_page(name)
        settle(qtbot)
        if name != "Live":  # the Live page's layout is its own module's (tested there)
            assert_fits(laptop, name)
        assert not grew(laptop), name

    laptop.show_page("Sessions")
    assert laptop.sessions_page.open_run(first)
    settle(qtbot)
    assert_fits(laptop, "Sessions")

    laptop.show_page("Compare")
    laptop.compare_page.set_checked([first, second])
    laptop.compare_page.set_baseline(first)
    assert laptop.compare_page.compare(), laptop.compare_page.error_label.text()
    settle(qtbot)
    assert_fits(laptop, "Compare")

    # A run's events fill the Live page: the window keeps its size.
    plan = Plan(name="a long name for a run " * 4)
    live = laptop.live_page
    live.begin_run(plan)
    laptop.show_page("Live")
    for event in sweep_events([8, 16, 24, 32], 3, 5, noise=0.06, seed=11):
        live.handle_event(event)
    live.refresh()
    settle(qtbot)
    assert not grew(laptop)
    hint = laptop.minimumSizeHint()
    assert hint.width() <= LAPTOP.width(), hint
    assert hint.height() <= LAPTOP.height(), hint


@pytest.mark.parametrize("width", [1280, 1366])
def test_the_live_page_shows_a_run_s_whole_name_on_a_laptop(
    qtbot: QtBot, laptop: MainWindow, width: int
) -> None:
    """At 1280 x 720 the header squeezed the name between the phase chip, the step and three
    buttons: "RAID 10, …". A name of a usual length reads whole, mid-run and after it."""
    name = "RAID 10, 4× SAS SSD — PostgreSQL 16"
    laptop.resize(width, 720)
    plan = Plan(name=name)
    plan.workload.virtual_users = [8, 16, 24, 32]
    live = laptop.live_page
    live.begin_run(plan)
    laptop.show_page("Live")
    events = sweep_events([8, 16, 24, 32], 3, 5, noise=0.06, seed=11)
    for event in events[: len(events) // 2]:
        live.handle_event(event)
    live.refresh()
    settle(qtbot)
    assert live.step_label.text().startswith("Step ")
    assert live.run_name.displayed_text() == name  # type: ignore[attr-defined]
    for event in events[len(events) // 2 :]:
        live.handle_event(event)
    live.run_finished("ok")
    settle(qtbot)
    assert live.run_name.displayed_text() == name  # type: ignore[attr-defined]
    assert not grew(laptop) or width > LAPTOP.width()


def test_the_side_panel_narrows_on_a_narrow_window(qtbot: QtBot, main_window: MainWindow) -> None:
    main_window.resize(COMPACT_BELOW + 100, 900)
    main_window.show()
    settle(qtbot)
    panel = main_window.nav_panel
    assert not panel.compact
    assert panel.brand.isVisible()
    full = panel.width()
    main_window.resize(LAPTOP)
    settle(qtbot)
    assert panel.compact
    assert not panel.brand.isVisible()
    assert panel.width() < full
    assert main_window.nav.isVisible()  # every page still one click away
    main_window.resize(COMPACT_BELOW + 100, 900)
    settle(qtbot)
    assert not panel.compact


def test_pages_are_built_the_first_time_they_are_shown(main_window: MainWindow) -> None:
    assert main_window.built_pages() == ["Workload"]
    main_window.show_page("Storage")
    assert main_window.built_pages() == ["Workload", "Storage"]
    assert main_window.stack.indexOf(main_window.stack.currentWidget()) == 1
    main_window.show_page("Sessions")
    # The stack keeps the navigation's order, whatever order the pages were built in.
    assert main_window.built_pages() == ["Workload", "Sessions", "Storage"]
    assert main_window.current_page_name() == "Sessions"
    with pytest.raises(KeyError, match="no page named 'Nope'"):
        main_window.show_page("Nope")


# ---- status bar and title ----------------------------------------------------------------------


def test_a_page_s_status_message_stays_with_its_page(laptop: MainWindow) -> None:
    laptop.show_page("Compare")
    said: list[str] = []
    laptop.compare_page.status.connect(said.append)
    laptop.compare_page.status.emit("Compared 2 sessions")
    assert laptop.face.status_label.text() == "Compared 2 sessions"
    laptop.show_page("Database")
    assert laptop.face.status_label.text() == READY
    laptop.database_page.status.emit("Connected to lab")
    assert laptop.face.status_label.text() == "Connected to lab"
    laptop.compare_page.status.emit("Exported /tmp/report.pdf")  # Compare is not on screen
    assert laptop.face.status_label.text() == "Connected to lab"
    laptop.show_page("Compare")
    assert laptop.face.status_label.text() == said[-1]  # its last word (it may say more on show)
    assert "Exported /tmp/report.pdf" in said
    laptop.face.set_status("Looking for runs left on lab…")  # the window's own: the page on screen
    laptop.show_page("Workload")
    assert laptop.face.status_label.text() == READY
    laptop.show_page("Compare")
    assert laptop.face.status_label.text() in ("Looking for runs left on lab…", said[-1])


def test_the_title_names_the_page_and_the_app_once(laptop: MainWindow) -> None:
    for name in PAGES:
        laptop.show_page(name)
        title = laptop.windowTitle()
        assert title == f"{name} — {APP_TITLE}"
        assert title.count(APP_TITLE) == 1


# ---- keyboard ----------------------------------------------------------------------------------


def test_ctrl_and_a_number_shows_that_page(qtbot: QtBot, laptop: MainWindow) -> None:
    for number, name in reversed(list(enumerate(PAGES, start=1))):
        qtbot.keyClick(laptop, Qt.Key(Qt.Key.Key_0 + number), Qt.KeyboardModifier.ControlModifier)
        assert laptop.current_page_name() == name


def test_the_side_panel_takes_the_focus_and_arrows_switch_pages(
    qtbot: QtBot, laptop: MainWindow
) -> None:
    nav = laptop.nav
    assert nav.focusPolicy() & Qt.FocusPolicy.TabFocus
    field = laptop.workload_page.name_edit
    field.setFocus()
    # Shift+Tab from the page's first fields reaches the panel (it is in the Tab chain).
    for _ in range(40):
        if nav.hasFocus():
            break
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Backtab)
    assert nav.hasFocus()
    qtbot.keyClick(nav, Qt.Key.Key_Down)
    assert laptop.current_page_name() == "Live"
    qtbot.keyClick(nav, Qt.Key.Key_Down)
    assert laptop.current_page_name() == "Sessions"
    qtbot.keyClick(nav, Qt.Key.Key_Up)
    assert laptop.current_page_name() == "Live"


def test_charts_are_not_tab_stops(qtbot: QtBot, laptop: MainWindow, store: Any) -> None:
    run = stored_run(store, "charted", [4, 8], 2)
    laptop.show_page("Sessions")
    assert laptop.sessions_page.open_run(run)
    laptop.live_page.begin_run(Plan())
    laptop.show_page("Live")
    for name in ("Sessions", "Live"):
        views = laptop.page(name).findChildren(QGraphicsView)
        assert views, f"the {name} page has charts"
        assert all(v.focusPolicy() == Qt.FocusPolicy.NoFocus for v in views), name


def test_ctrl_enter_with_a_bad_plan_shows_the_errors_on_the_workload_page(
    qtbot: QtBot, laptop: MainWindow
) -> None:
    laptop.workload_page.warehouses_spin.setValue(0)
    laptop.show_page("Sessions")
    qtbot.keyClick(laptop, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert laptop.run_control.worker is None
    assert laptop.current_page_name() == "Workload"
    assert laptop.workload_page.field_error("workload.warehouses")


def test_esc_without_a_task_does_nothing(qtbot: QtBot, laptop: MainWindow) -> None:
    assert not laptop.shortcuts.stop.isEnabled()
    qtbot.keyClick(laptop, Qt.Key.Key_Escape)
    assert laptop.shortcuts.stop_box is None
    assert not laptop.isFullScreen()


@pytest.mark.integration
def test_ctrl_enter_starts_a_sweep_and_esc_stops_it_after_asking(
    qtbot: QtBot, laptop: MainWindow, pg_server: Any, tpcc_db: Clone
) -> None:
    page = laptop.workload_page
    page.pg_radio.setChecked(True)
    page.host_edit.setText(pg_server.socket_dir)
    page.user_edit.setText("postgres")
    page.database_edit.setText(tpcc_db("gui_keys"))
    page.warehouses_spin.setValue(1)
    page.vus_edit.setText("1")
    page.rampup_spin.setValue(1)
    page.duration_spin.setValue(600)
    laptop.show_page("Storage")
    try:
        sweep_and_stop(qtbot, laptop)
    finally:
        # Whatever failed: no run left for the window's close to ask about (it would wait).
        assert laptop.shutdown(60)
    run = laptop.store.get_run(laptop.run_control.last_session_id)
    assert run.status == "incomplete", run.message


def sweep_and_stop(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.keyClick(window, Qt.Key.Key_Enter, Qt.KeyboardModifier.ControlModifier)
    assert window.run_control.busy
    assert window.current_page_name() == "Live"
    live = window.live_page
    qtbot.waitUntil(lambda: live.model.phase in ("rampup", "measure"), timeout=RUN_MS)

    qtbot.keyClick(window, Qt.Key.Key_Escape)
    box = live.stop_confirm
    assert box is not None
    assert box.isVisible()
    box.done(QMessageBox.StandardButton.No)  # "Keep running"
    window.activateWindow()  # the window a closed dialog gives the keyboard back to
    qtbot.waitActive(window)
    qtbot.wait(300)
    assert window.run_control.busy
    window.show_page("Workload")
    qtbot.keyClick(window, Qt.Key.Key_Escape)  # from any page: it shows the run's question
    assert window.current_page_name() == "Live"
    assert box.isVisible()
    box.done(QMessageBox.StandardButton.Yes)  # "Stop run"
    qtbot.waitUntil(lambda: window.run_control.worker is None, timeout=RUN_MS)
    assert not window.shortcuts.stop.isEnabled()


# Qt's offscreen platform says it cannot raise a menu or grab the keyboard for it (this
# marker replaces the folder's, which ignores the size-hints warning).
@pytest.mark.qt_log_ignore(
    "does not support raise", "does not support grabbing the keyboard", *OFFSCREEN_NOISE
)
def test_ctrl_e_exports_the_comparison_from_any_page(
    qtbot: QtBot, laptop: MainWindow, store: Any
) -> None:
    qtbot.keyClick(laptop, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert "Nothing to export" in laptop.face.status_label.text()

    first = stored_run(store, "first", [4, 8], 1)
    second = stored_run(store, "second", [4, 8], 2)
    laptop.show_page("Compare")
    page = laptop.compare_page
    page.set_checked([first, second])
    page.set_baseline(first)
    assert page.compare(), page.error_label.text()
    laptop.show_page("Database")
    qtbot.keyClick(laptop, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert laptop.current_page_name() == "Compare"
    menu = page.export_button.menu()
    qtbot.waitUntil(menu.isVisible)
    assert "Report as PDF…" in [a.text() for a in menu.actions()]
    menu.close()


def test_f11_presents_full_screen_and_back(qtbot: QtBot, laptop: MainWindow) -> None:
    laptop.show_page("Sessions")
    qtbot.keyClick(laptop, Qt.Key.Key_F11)
    assert laptop.presenting
    qtbot.waitUntil(lambda: bool(laptop.windowState() & Qt.WindowState.WindowFullScreen))
    assert not laptop.nav_panel.isVisible()
    assert not laptop.statusBar().isVisible()
    assert laptop.current_page_name() == "Sessions"
    assert laptop.shortcuts.stop.isEnabled()  # Esc leaves full screen
    qtbot.keyClick(laptop, Qt.Key.Key_Escape)
    assert not laptop.presenting
    qtbot.waitUntil(lambda: not laptop.windowState() & Qt.WindowState.WindowFullScreen)
    assert laptop.nav_panel.isVisible()
    assert laptop.statusBar().isVisible()
    assert not laptop.shortcuts.stop.isEnabled()


def test_the_present_factory_s_view_is_what_f11_shows(qtbot: QtBot, laptop: MainWindow) -> None:
    made: list[QWidget] = []

    def present(window: MainWindow) -> QWidget:
        view = QLabel(f"presenting {window.current_page_name()}")
        made.append(view)
        return view

    laptop.present_factory = present
    laptop.show_page("Compare")
    laptop.toggle_present()
    assert laptop.stack.currentWidget() is made[0]
    laptop.toggle_present()
    assert laptop.current_page_name() == "Compare"
    frame = laptop.stack.currentWidget()
    assert frame.widget() is laptop.page("Compare")  # type: ignore[attr-defined]
    laptop.toggle_present()
    assert len(made) == 1  # made once, shown again
    assert laptop.stack.currentWidget() is made[0]
    laptop.toggle_present()


def test_f11_on_a_random_read_study_fills_the_screen_with_its_own_view(
    qtbot: QtBot, laptop: MainWindow
) -> None:
    """The booth view speaks of new orders: a study's F11 shows its own Live view instead."""
    made: list[QWidget] = []

    def booth(_window: MainWindow) -> QWidget:
        made.append(QLabel("booth"))
        return made[-1]

    laptop.present_factory = booth
    study = plan_from_dict({"workload": {"kind": "random_read", "dataset_sizes": ["8MiB"]}})
    laptop.live_page.begin_run(study)
    laptop.show_page("Sessions")
    laptop.toggle_present()
    assert laptop.presenting
    assert made == []
    frame = laptop.stack.currentWidget()
    assert frame.widget() is laptop.live_page  # type: ignore[attr-defined]
    laptop.toggle_present()
    assert laptop.current_page_name() == "Sessions"
    laptop.live_page.begin_run(Plan())  # a TPROC-C sweep: the booth view again
    laptop.toggle_present()
    assert laptop.stack.currentWidget() is made[0]
    laptop.toggle_present()


def test_the_app_builds_the_same_window(qtbot: QtBot, store: Any) -> None:
    window = build_main_window(store)
    qtbot.addWidget(window)
    assert window.built_pages() == ["Workload"]
    assert window.windowTitle() == f"Workload — {APP_TITLE}"
    assert window.shutdown(30)


# ---- the demo target, made ready as the window opens ---------------------------------------


@pytest.fixture
def demo_released() -> Iterator[None]:
    """The embedded demo server this test starts is stopped at its end (its data folder is
    the test's)."""
    yield
    stop_demo()


@pytest.mark.integration
def test_a_sweep_started_while_the_demo_is_prepared_waits_for_it(
    qtbot: QtBot, laptop: MainWindow, demo_released: None
) -> None:
    page = laptop.workload_page
    page.database_edit.setText("gui_warm")
    page.warehouses_spin.setValue(1)
    page.vus_edit.setText("1")
    page.rampup_spin.setValue(1)
    page.duration_spin.setValue(600)
    assert laptop.run_control.prepare_demo()
    demo = laptop.run_control.demo
    assert demo is not None
    assert demo.busy
    assert not laptop.run_control.prepare_demo()  # once at a time
    try:
        qtbot.keyClick(laptop, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        assert laptop.run_control.worker is None  # waiting, not refused
        assert "starts when it is ready" in laptop.face.status_label.text()
        assert not page.start_button.isEnabled()
        qtbot.waitUntil(lambda: laptop.run_control.worker is not None, timeout=RUN_MS)
        assert demo.result is not None, demo.error
        assert demo.result.state == "built", demo.result.message
        assert laptop.current_page_name() == "Live"
        live = laptop.live_page
        qtbot.waitUntil(lambda: live.model.phase in ("rampup", "measure"), timeout=RUN_MS)
        laptop.run_control.stop_task()
        qtbot.waitUntil(lambda: laptop.run_control.worker is None, timeout=RUN_MS)
    finally:
        assert laptop.shutdown(60)
    run = laptop.store.get_run(laptop.run_control.last_session_id)
    assert run.status == "incomplete", run.message
    assert "building" not in " ".join(line.message for line in laptop.store.log(run.id)).lower()


def test_a_task_waiting_for_the_demo_can_be_called_off(
    qtbot: QtBot, laptop: MainWindow, demo_released: None
) -> None:
    laptop.workload_page.warehouses_spin.setValue(1)
    laptop.workload_page.database_edit.setText("gui_warm_off")
    assert laptop.run_control.prepare_demo()
    try:
        qtbot.mouseClick(laptop.workload_page.build_button, Qt.MouseButton.LeftButton)
        assert laptop.run_control.worker is None
        # One task (waiting or running) at once.
        assert not laptop.run_control.start_task("check", Plan())
        qtbot.mouseClick(laptop.workload_page.cancel_button, Qt.MouseButton.LeftButton)
        assert laptop.face.status_label.text() == "Schema build not started."
        assert laptop.workload_page.build_button.isEnabled()
    finally:
        assert laptop.shutdown(60)
    assert laptop.run_control.worker is None


def test_a_random_read_study_does_not_wait_for_the_demo_database(
    qtbot: QtBot, laptop: MainWindow, demo_released: None
) -> None:
    """fio reads a file: the demo database being made ready is nothing a study waits for."""
    study = plan_from_dict({"workload": {"kind": "random_read", "dataset_sizes": ["8MiB"]}})
    assert study.target.kind == "demo"
    assert laptop.run_control.prepare_demo()
    try:
        assert laptop.run_control.demo is not None
        assert laptop.run_control.demo.busy
        assert not laptop.run_control.waits_for_demo("run", study)
        assert laptop.run_control.waits_for_demo("run", Plan())  # a TPROC-C sweep on the demo waits
    finally:
        laptop.run_control.stop_task()
        assert laptop.shutdown(60)


def test_the_sessions_list_shows_several_sessions_under_a_window_manager(
    qtbot: QtBot, main_window: MainWindow, store: Any
) -> None:
    """At 1280 x 720 under a window manager (a 701 px tall window) the list showed two of 14
    sessions, above a detail that made the page scroll. The list has a third of the room."""
    ids = [stored_run(store, f"RAID 10, {n} x NVMe", [8, 16], n) for n in range(1, 15)]
    main_window.resize(1280, 701)
    main_window.show()
    qtbot.waitExposed(main_window)
    main_window.show_page("Sessions")
    page = main_window.sessions_page
    assert page.open_run(ids[0])
    settle(qtbot)
    table = page.table
    rows_in_sight = table.viewport().height() // table.rowHeight(0)
    assert rows_in_sight >= 3, (table.height(), table.rowHeight(0))
    assert main_window.stack.currentWidget().verticalScrollBar().maximum() == 0


@pytest.mark.parametrize("width", [1280, 1366, 1920])
def test_the_workload_form_never_scrolls_sideways(
    qtbot: QtBot, laptop: MainWindow, width: int
) -> None:
    """At 1280 and 1366 the Workload form's two columns needed 1,216 px and the form scrolled
    sideways, the right column's fields cut at the edge: on a laptop they stand one under the
    other, on a wide screen side by side."""
    laptop.resize(width, 720 if width < 1920 else 1040)
    laptop.show_page("Workload")
    settle(qtbot)
    page = laptop.page("Workload")
    columns = page.columns  # type: ignore[attr-defined]
    form = next(s for s in page.findChildren(QScrollArea) if s.widget().isAncestorOf(columns))
    assert form.horizontalScrollBar().maximum() == 0, (width, form.widget().minimumSizeHint())
    assert columns.stacked == (columns.row_width() > form.viewport().width())
    if width >= 1920:
        assert not columns.stacked
