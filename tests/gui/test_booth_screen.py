"""The screen belongs to the booth: in present mode only Esc and F11 act; the keyboard focus
comes back after presenting and after a stop dialog; the wheel scrolls a form without
changing the fields it passes over."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QScrollArea, QWidget
from pytestqt.qtbot import QtBot

from bench_gui.gui.app import apply_theme
from bench_gui.gui.main_window import MainWindow
from bench_gui.gui.pages.workload.page import WorkloadPage
from bench_gui.gui.present.window import follow_main_window
from tests._fixtures.scripted import scripted_plan

pytestmark = pytest.mark.gui


@pytest.fixture
def laptop(qtbot: QtBot, main_window: MainWindow) -> MainWindow:
    """The main window at 1280 x 720, shown and active (shortcuts need an active window)."""
    main_window.resize(1280, 720)
    main_window.show()
    qtbot.waitExposed(main_window)
    main_window.activateWindow()
    qtbot.waitActive(main_window)
    return main_window


def test_in_present_mode_only_esc_and_f11_act(qtbot: QtBot, laptop: MainWindow) -> None:
    laptop.present_factory = follow_main_window
    laptop.show_page("Live")
    qtbot.keyClick(laptop, Qt.Key.Key_F11)
    assert laptop.presenting
    view = laptop.present_view
    assert laptop.stack.currentWidget() is view
    for number in range(1, 8):  # no admin page on the booth screen
        qtbot.keyClick(laptop, Qt.Key(Qt.Key.Key_0 + number), Qt.KeyboardModifier.ControlModifier)
        assert laptop.stack.currentWidget() is view
        assert laptop.current_page_name() == "Live"
    qtbot.keyClick(laptop, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)  # no export menu
    qtbot.keyClick(laptop, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)  # no sweep
    assert not laptop.run_control.busy
    assert QApplication.activePopupWidget() is None
    assert laptop.stack.currentWidget() is view
    assert laptop.presenting
    qtbot.keyClick(laptop, Qt.Key.Key_Escape)
    assert not laptop.presenting
    # Out of present mode, the keys act again.
    qtbot.keyClick(laptop, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert laptop.current_page_name() == "Sessions"
    qtbot.keyClick(laptop, Qt.Key.Key_F11)
    assert laptop.presenting
    qtbot.keyClick(laptop, Qt.Key.Key_F11)  # F11 leaves as well
    assert not laptop.presenting


def test_the_focus_comes_back_after_present_mode(qtbot: QtBot, laptop: MainWindow) -> None:
    nav = laptop.nav
    nav.setFocus()
    qtbot.waitUntil(nav.hasFocus)
    laptop.toggle_present()
    laptop.toggle_present()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is nav)
    qtbot.keyClick(nav, Qt.Key.Key_Down)  # Down works at once: the next page
    assert laptop.current_page_name() == "Live"
    # A field had the focus: it gets it back.
    laptop.show_page("Workload")
    field = laptop.workload_page.name_edit
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    laptop.present_factory = follow_main_window
    laptop.toggle_present()
    assert not field.hasFocus()
    laptop.toggle_present()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)


def test_the_focus_comes_back_after_the_stop_dialog(qtbot: QtBot, laptop: MainWindow) -> None:
    laptop.show_page("Live")
    live = laptop.live_page
    live.begin_run(scripted_plan("focus", [2], "none"))
    stop = live.stop_button
    assert stop.isEnabled()
    stop.setFocus()
    qtbot.waitUntil(stop.hasFocus)
    live.ask_stop()
    box = live.stop_confirm
    assert box is not None
    qtbot.waitUntil(box.isVisible)
    box.done(QMessageBox.StandardButton.No)  # "Keep running": back on the Stop button
    qtbot.waitUntil(lambda: QApplication.focusWidget() is stop)
    live.ask_stop()
    qtbot.waitUntil(box.isVisible)
    box.done(QMessageBox.StandardButton.Yes)  # "Stop run": the button is disabled now
    assert not stop.isEnabled()

    def focused_in_live() -> bool:
        widget = QApplication.focusWidget()
        return widget is not None and widget.isEnabled() and live.isAncestorOf(widget)

    qtbot.waitUntil(focused_in_live)
    live.run_finished("stopped")


def _wheel(widget: QWidget, steps: int = -3) -> None:
    """A wheel turn over the middle of ``widget`` (negative: towards the user, scrolls down)."""
    pos = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(
        pos,
        QPointF(widget.mapToGlobal(pos.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_the_wheel_scrolls_the_workload_form_and_changes_no_field(qtbot: QtBot) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app)
    page = WorkloadPage()
    qtbot.addWidget(page)
    page.resize(900, 400)  # the form is longer than the window: it scrolls
    page.show()
    qtbot.waitExposed(page)
    combo, spin = page.workload_kind_combo, page.warehouses_spin
    form = next(a for a in page.findChildren(QScrollArea) if a.isAncestorOf(combo))
    bar = form.verticalScrollBar()
    assert bar.maximum() > 0
    before = (combo.currentIndex(), spin.value())
    for field in (combo, spin):
        start = bar.value()
        _wheel(field)
        assert (combo.currentIndex(), spin.value()) == before  # nothing chosen: no change
        assert bar.value() > start  # the form scrolled instead
        assert not field.hasFocus()  # and the wheel did not choose the field either
    # A field chosen (clicked or tabbed to) takes the wheel.
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus)
    _wheel(spin, 1)
    assert spin.value() != before[1]


def test_the_live_page_at_1280_keeps_its_tiles_on_one_row_and_readable_charts(
    qtbot: QtBot, laptop: MainWindow
) -> None:
    """A laptop: the tiles take smaller figures rather than a second row, the charts keep a
    readable height, and a y-axis title shows whole or not at all (the card's title says it)."""
    from PySide6.QtGui import QFontMetrics

    from bench_gui.gui.widgets.charts import LABEL_PX, _font
    from tests._fixtures.scripted import sweep_events

    laptop.show_page("Live")
    live = laptop.live_page
    live.begin_run(scripted_plan("laptop", [8, 16, 24], "none"))
    events = sweep_events([8, 16, 24], 3, 5)
    for event in events[: len(events) // 2]:
        live.handle_event(event)
    live.refresh()
    qtbot.waitUntil(lambda: len(live.view.tiles.flow.rows) == 1)
    assert live.view.tiles.compact
    for tile in live.view.tiles.flow.shown():
        assert tile.value_label.width() >= tile.value_label.sizeHint().width()
    for chart in live.view.charts.values():
        assert chart.plot_widget.height() >= 120
        axis = chart.plot.getAxis("left")
        if axis.labelText and axis.label.isVisible():
            wide = QFontMetrics(_font(LABEL_PX)).horizontalAdvance(axis.labelText)
            assert wide <= axis.geometry().height(), axis.labelText
    live.run_finished("ok")
    # A wide screen: the figures at full size.
    laptop.resize(1920, 1080)
    qtbot.waitUntil(lambda: not live.view.tiles.compact)


def test_the_live_countdown_says_the_step_s_figures_are_coming_instead_of_0_00(
    qtbot: QtBot,
) -> None:
    from bench_gui.gui.pages.live.header import LiveHeader

    header = LiveHeader()
    qtbot.addWidget(header)
    header.set_countdown(12.0, measuring=True)
    assert header.countdown.text() == "0:12"
    header.set_countdown(0.0, measuring=True)  # the window is over, the step's end not yet in
    assert header.countdown.text() == "Collecting the step's figures"
    header.set_countdown(0.0)  # a ramp-up's end: measuring starts
    assert header.countdown.text() == "0:00"
    header.set_countdown(None)
    assert header.countdown.text() == ""


def test_at_1366_the_database_and_storage_forms_show_their_choices_whole(
    qtbot: QtBot, main_window: MainWindow
) -> None:
    """The Database proposal's and the Storage layout's combo boxes are as wide as their
    longest choice at 1366 x 768 ("Online transaction processing (OLTP)", "Wait for the
    initial resync"): a combo box cannot elide, so the layout gives them the room."""
    from PySide6.QtWidgets import QComboBox

    main_window.resize(1366, 768)
    main_window.show()
    qtbot.waitExposed(main_window)
    for name in ("Database", "Storage"):
        main_window.show_page(name)
        page = main_window.page(name)
        QApplication.processEvents()
        if name == "Database":
            form = page.demo_tab.form  # type: ignore[attr-defined]
        else:
            form = page.form  # type: ignore[attr-defined]
        combos = [c for c in form.findChildren(QComboBox) if c.isVisibleTo(form)]
        assert combos
        for combo in combos:
            text = combo.currentText()
            wide = combo.fontMetrics().horizontalAdvance(text)
            assert wide + 24 <= combo.width(), f"{name}: {text!r} is cut"
