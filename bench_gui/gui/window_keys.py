"""The main window's keyboard shortcuts.

=============  ========================================================================
Ctrl+1 … 8     show the page at that place in the side panel
Ctrl+Enter     start a sweep of the Workload page's plan (its fields' errors shown there)
Esc            ask whether to stop the running task (a sweep, a build, a check); when
               presenting, leave full screen instead
Ctrl+E         the page's export (its Export button); on a page without one, the Compare
               page's export of the comparison on screen
F11            full screen without the side panel and the status bar, and back
=============  ========================================================================

While presenting, the screen belongs to the booth: only Esc and F11 act (leave full screen);
the page keys, Ctrl+Enter and Ctrl+E do nothing, so a passer-by cannot bring an admin page,
a sweep or the export menu onto the booth screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from bench_gui.gui.focus import focus_now, restore_focus_later
from bench_gui.gui.run_control import ACTION_WORDS

if TYPE_CHECKING:
    from bench_gui.gui.window_shape import Window

START_KEYS = ("Ctrl+Return", "Ctrl+Enter")
STOP_KEY = "Esc"
EXPORT_KEY = "Ctrl+E"
PRESENT_KEY = "F11"


class WindowKeys:
    """The shortcuts of one main window. Esc is live only while a task runs or while
    presenting, so that it never takes the key from a field or a dialog otherwise."""

    def __init__(self, window: Window) -> None:
        self.window = window
        self.stop_box: QMessageBox | None = None
        self._focus_before: QWidget | None = None  # given back when the stop box closes
        self.pages = [
            self._key(f"Ctrl+{number}", lambda n=name: window.show_page(n))
            for number, name in enumerate(page_names(), start=1)
        ]
        self.start = [self._key(key, lambda: start_sweep(window)) for key in START_KEYS]
        self.stop = self._key(STOP_KEY, self.escape)
        self.export = self._key(EXPORT_KEY, lambda: export_current(window))
        self.present = self._key(PRESENT_KEY, window.toggle_present)
        self.update()

    def _key(self, key: str, slot: object) -> QShortcut:
        shortcut = QShortcut(QKeySequence(key), self.window.window())
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(slot)
        return shortcut

    def task_changed(self, _running: bool) -> None:
        self.update()

    def update(self) -> None:
        presenting = self.window.presenting
        self.stop.setEnabled(self.window.run_control.busy or presenting)
        for shortcut in (*self.pages, *self.start, self.export):
            shortcut.setEnabled(not presenting)

    def escape(self) -> None:
        window = self.window
        if window.presenting:
            window.toggle_present()
        elif window.run_control.busy:
            self.ask_stop()

    def ask_stop(self) -> None:
        """The run's own confirmation on the Live page; for a build or a check, one here."""
        window = self.window
        worker = window.run_control.worker
        if worker is None:
            return
        if worker.action == "run":
            window.show_page("Live")
            window.live_page.ask_stop()
            return
        words = ACTION_WORDS.get(worker.action, "task").lower()
        if self.stop_box is None:
            parent = window.window()
            box = QMessageBox(parent)
            box.setIcon(QMessageBox.Icon.Question)
            box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
            box.setDefaultButton(QMessageBox.StandardButton.No)
            box.finished.connect(self._stop_answered)
            box.finished.connect(lambda _r: restore_focus_later(self._focus_before, parent))
            self.stop_box = box
        self.stop_box.setWindowTitle(f"Stop the {words}?")
        self.stop_box.setText(f"Stop the {words} now?")
        self._focus_before = focus_now()
        self.stop_box.open()

    def _stop_answered(self, result: int) -> None:
        if result == QMessageBox.StandardButton.Yes:
            self.window.run_control.stop_task()


def page_names() -> tuple[str, ...]:
    from bench_gui.gui.window_pages import PAGES

    return tuple(PAGES)


def install(window: Window) -> WindowKeys:
    return WindowKeys(window)


def start_sweep(window: Window) -> bool:
    """What the Workload page's Start button does, from any page: a plan with errors shows
    the Workload page with the errors next to their fields."""
    if window.run_control.busy:
        window.face.set_status("A task is running: stop it first (Esc).")
        return False
    page = window.workload_page
    if not page.start_button.isEnabled():
        window.face.set_status("The sweep waits for the demo target to be ready.")
        return False
    plan = page.validated_plan()
    if plan is None:
        window.show_page("Workload")
        return False
    return window.run_control.start_run(plan)


def export_button(page: QWidget | None) -> QPushButton | None:
    """A page's Export button, if it has one that can be used now."""
    if page is None:
        return None
    button = getattr(page, "export_button", None)
    if isinstance(button, QPushButton) and button.isEnabled() and button.isVisibleTo(page):
        return button
    return None


def press(button: QPushButton) -> None:
    """Click a button, or open its menu (without waiting for the menu to close)."""
    menu = button.menu()
    if menu is None:
        button.click()
        return
    menu.popup(button.mapToGlobal(QPoint(0, button.height())))


def export_current(window: Window) -> bool:
    """Ctrl+E: the page's export, or the comparison's; False (and why, in the status bar) if
    there is nothing to export yet."""
    name = window.current_page_name()
    button = export_button(window.built(name))
    if button is None and name != "Compare":
        compare = window.built("Compare")
        button = export_button(compare)
        if button is not None:
            window.show_page("Compare")
    if button is None:
        window.face.set_status("Nothing to export here yet: compare sessions, then Ctrl+E exports.")
        return False
    press(button)
    return True
