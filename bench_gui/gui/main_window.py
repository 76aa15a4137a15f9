"""The main window: navigation on the left, the pages in a stack, a status bar. It arranges
the pages; the rest is elsewhere:

- the one task that may run at a time (a sweep, a schema build or a check, a run re-attached on
  a driver host) is :class:`~bench_gui.gui.run_control.RunControl`'s (``window.run_control``),
  which runs the services' controller and routes its events to the page that shows them;
- the title, the status bar's chips and the error dialog are
  :class:`~bench_gui.gui.window_face.WindowFace`'s (``window.face``): each page has its own
  status message, and the status bar shows the one of the page on screen;
- the pages are the table :data:`bench_gui.gui.window_pages.PAGES`: a page is built the first
  time it is shown (or asked for), and its module imported only then, so the window opens with
  the Workload page alone, before the charts, SSH, database and report code load;
- the shortcuts are in :mod:`bench_gui.gui.window_keys`.

Each page sits in a scroll area of its own (:func:`bench_gui.gui.window_fit.page_frame`), so no
page can make the window larger than the screen.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QCloseEvent, QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QStackedWidget,
    QWidget,
)

from bench_gui.gui import tasks, window_fit, window_keys, window_pages
from bench_gui.gui.errors import ErrorNotifier, notifier
from bench_gui.gui.focus import focus_now, restore_focus
from bench_gui.gui.nav_panel import NavPanel
from bench_gui.gui.run_control import ControllerFactory, RunControl
from bench_gui.gui.window_face import WindowFace
from bench_gui.gui.window_pages import PAGES
from bench_gui.services.hosts import saved_target_names

if TYPE_CHECKING:
    from bench_gui.gui.pages.compare.page import ComparePage
    from bench_gui.gui.pages.database.page import DatabasePage
    from bench_gui.gui.pages.live.page import LivePage
    from bench_gui.gui.pages.sessions.page import SessionsPage
    from bench_gui.gui.pages.storage import StoragePage
    from bench_gui.gui.pages.targets.page import TargetsPage
    from bench_gui.gui.pages.workload.page import WorkloadPage

# The Present view: window -> the widget shown full screen (F11, the Live page's Present).
PresentFactory = Callable[["MainWindow"], QWidget]


def present_live_run(window: MainWindow) -> QWidget:
    """The Present view over the Live page's model (imported when first presented: it pulls
    in the chart library, which the window does not need to open)."""
    from bench_gui.gui.present.window import follow_main_window

    return follow_main_window(window)


log = logging.getLogger(__name__)


class MainWindow(QMainWindow):
    """The application window; ``shutdown()`` stops and joins any task still running."""

    def __init__(
        self,
        store: Any,
        controller_factory: ControllerFactory | None = None,
        errors: ErrorNotifier | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.errors = errors or notifier()
        self.present_factory: PresentFactory | None = present_live_run
        self.present_view: QWidget | None = None
        self.presenting = False
        self._focus_before_present: QWidget | None = None
        self._pages: dict[str, QWidget] = {}
        self._frames: dict[str, QScrollArea] = {}
        self._targets_task: tasks.TaskRunner | None = None
        self.face = WindowFace(self, self.current_page_name)
        self.run_control = RunControl(self, store, controller_factory)
        self._build_ui()
        self.errors.error.connect(self.face.show_error)
        self.shortcuts = window_keys.install(self)
        self.run_control.task_changed.connect(self.shortcuts.task_changed)
        self.run_control.sessions_changed.connect(self._refresh_sessions)
        self.resize(window_fit.PREFERRED)  # the app fits it to its screen (window_fit)

    # ---- construction --------------------------------------------------------------------

    def _build_ui(self) -> None:
        central = QWidget()
        row = QHBoxLayout(central)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        self.nav_panel = NavPanel(tuple(PAGES))
        self.nav = self.nav_panel.nav
        self.reattach_button = self.nav_panel.reattach_button
        self.nav_panel.reattach_requested.connect(lambda: self.run_control.offer_reattach())
        row.addWidget(self.nav_panel)
        self.stack = QStackedWidget()
        row.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.nav.currentRowChanged.connect(self._on_row_changed)
        self.nav.setCurrentRow(0)

    def _on_row_changed(self, row: int) -> None:
        names = tuple(PAGES)
        if not 0 <= row < len(names):
            return
        name = names[row]
        page = self.page(name)
        window_fit.no_focus_on_charts(page)  # charts a page made since it was last shown
        self.stack.setCurrentWidget(self._frames[name])
        self.face.page_shown(name)

    # ---- pages, built on first use -------------------------------------------------------

    def page(self, name: str) -> QWidget:
        """The page called ``name``, built (and its module imported) on the first call."""
        built = self._pages.get(name)
        if built is not None:
            return built
        if name not in PAGES:
            raise KeyError(f"no page named {name!r} (the pages: {', '.join(PAGES)})")
        page = window_pages.make(self, name)
        self._pages[name] = page
        frame = window_fit.page_frame(page)
        self._frames[name] = frame
        # In the stack at the page's place in the navigation, whatever order they are built in.
        names = tuple(PAGES)
        index = sum(1 for other in names[: names.index(name)] if other in self._frames)
        self.stack.insertWidget(index, frame)
        return page

    def built(self, name: str) -> QWidget | None:
        """The page if it has been built (None otherwise: nothing to refresh or stop)."""
        return self._pages.get(name)

    def built_pages(self) -> list[str]:
        """The pages built so far, in the navigation's order."""
        return [name for name in PAGES if name in self._pages]

    def load_driver_targets(self) -> None:
        """The saved SSH targets for the Workload page's driver list, read in the background
        (reading them loads the SSH library): the app calls it once the window is up."""
        if self._targets_task is None:
            from bench_gui.services.errors import TargetError

            self._targets_task = tasks.TaskRunner(
                self, expected=(TargetError, OSError), where="saved targets"
            )
        self._targets_task.start("targets", saved_target_names, self._got_driver_targets, _quiet)

    def _got_driver_targets(self, names: list[str]) -> None:
        if self.built("Targets") is None:  # once built, the Targets page says what is saved
            self.workload_page.set_driver_targets(names)

    @property
    def workload_page(self) -> WorkloadPage:
        return self.page("Workload")  # type: ignore[return-value]

    @property
    def live_page(self) -> LivePage:
        return self.page("Live")  # type: ignore[return-value]

    @property
    def sessions_page(self) -> SessionsPage:
        return self.page("Sessions")  # type: ignore[return-value]

    @property
    def compare_page(self) -> ComparePage:
        return self.page("Compare")  # type: ignore[return-value]

    @property
    def database_page(self) -> DatabasePage:
        return self.page("Database")  # type: ignore[return-value]

    @property
    def targets_page(self) -> TargetsPage:
        return self.page("Targets")  # type: ignore[return-value]

    @property
    def storage_page(self) -> StoragePage:
        return self.page("Storage")  # type: ignore[return-value]

    # ---- navigation ----------------------------------------------------------------------

    def show_page(self, name: str) -> None:
        if name not in PAGES:
            raise KeyError(f"no page named {name!r} (the pages: {', '.join(PAGES)})")
        self.nav.setCurrentRow(list(PAGES).index(name))

    def current_page_name(self) -> str:
        return list(PAGES)[self.nav.currentRow()]

    def open_last_session(self) -> None:
        self.show_page("Sessions")
        last = self.run_control.last_session_id
        if last is not None:
            self.sessions_page.open_run(last)

    def _refresh_sessions(self) -> None:
        sessions = self.built("Sessions")
        if sessions is not None:
            sessions.refresh()  # type: ignore[attr-defined]

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop the running task, if any, and join its thread."""
        for name in ("Database", "Targets", "Storage", "Study"):
            page = self.built(name)
            if page is not None:
                page.shutdown(timeout_s)  # type: ignore[attr-defined]
        ok = self.run_control.shutdown(timeout_s)
        # Whatever else runs in the background (a power-log import...) ends before the store
        # it writes to is closed.
        return tasks.shutdown_all(timeout_s) and ok

    # ---- presenting ----------------------------------------------------------------------

    def toggle_present(self) -> None:
        """Full screen without the side panel and the status bar (F11), and back.

        With ``present_factory`` set, the widget it makes (once) is what the screen shows; the
        page that was on screen comes back when presenting ends. A run whose Live view has no
        Present view (a random-read study: the booth speaks of new orders) fills the screen
        with that view."""
        self.presenting = not self.presenting
        if self.presenting:
            self._focus_before_present = focus_now()
        self.nav_panel.setVisible(not self.presenting)
        self.statusBar().setVisible(not self.presenting)
        live = self.built("Live")
        study = not getattr(live, "presents", True)
        if self.presenting:
            if study:
                self.stack.setCurrentWidget(self._frames["Live"])
            elif self.present_factory is not None:
                if self.present_view is None:
                    self.present_view = self.present_factory(self)
                    self.stack.addWidget(self.present_view)
                self.stack.setCurrentWidget(self.present_view)
            self.showFullScreen()
        else:
            self.stack.setCurrentWidget(self._frames[self.current_page_name()])
            self.showNormal()
            window_fit.fit_to_screen(self)
            # The key that was last used still works: Down, Tab, Space act where they did.
            before, self._focus_before_present = self._focus_before_present, None
            restore_focus(before, self.nav)
        self.shortcuts.update()

    # ---- Qt overrides --------------------------------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self.nav_panel.fit_width(event.size().width())

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        question = self.run_control.quit_question()
        if question:
            answer = QMessageBox.question(self, "Quit bench-gui?", question)
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
            self.shutdown()
        super().closeEvent(event)


def _quiet(_what: str, _message: str, _details: str) -> None:
    """A targets file that cannot be read: the Targets page says why when it is opened."""
