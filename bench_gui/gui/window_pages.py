"""The main window's pages: :data:`PAGES`, the table of every page in the navigation's order
with how it is built, the first time it is shown (or asked for).

Each page's module is imported here, in its maker, so the window opens without the modules
of the pages nobody has opened yet. A maker connects the page to the window and to the pages
it works with (the Targets page's saved hosts are the Workload page's driver hosts, the
Database page proposes for the Workload page's plan...).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from bench_gui.gui.window_shape import Window


def workload(window: Window) -> QWidget:
    from bench_gui.gui.pages.workload.page import WorkloadPage

    page = WorkloadPage()
    run = window.run_control
    page.start_requested.connect(run.start_run)
    page.build_requested.connect(lambda plan: run.start_task("build", plan))
    page.check_requested.connect(lambda plan: run.start_task("check", plan))
    page.cancel_requested.connect(run.stop_task)
    targets = window.built("Targets")
    if targets is not None:
        page.set_driver_targets(targets.target_names())  # type: ignore[attr-defined]
    return page


def live(window: Window) -> QWidget:
    from bench_gui.gui.pages.live.page import LivePage

    page = LivePage()
    page.stop_requested.connect(window.run_control.stop_task)
    page.open_session_requested.connect(window.open_last_session)
    page.present_requested.connect(window.toggle_present)
    return page


def sessions(window: Window) -> QWidget:
    from bench_gui.gui.pages.sessions.page import SessionsPage

    return SessionsPage(window.store)


def compare(window: Window) -> QWidget:
    from bench_gui.gui.pages.compare.page import ComparePage

    page = ComparePage(window.store)
    page.status.connect(window.face.page_status("Compare"))
    return page


def database(window: Window) -> QWidget:
    from bench_gui.gui.pages.database.page import DatabasePage

    page = DatabasePage(window.store, plan_provider=lambda: window.workload_page.plan_data())
    page.status.connect(window.face.page_status("Database"))
    return page


def targets(window: Window) -> QWidget:
    from bench_gui.gui.pages.targets.page import TargetsPage

    page = TargetsPage(plan_source=lambda: window.workload_page.current_plan())
    page.status.connect(window.face.page_status("Targets"))
    page.targets_changed.connect(window.workload_page.set_driver_targets)
    page.targets_changed.connect(lambda _names: reload_storage_targets(window))
    window.workload_page.set_driver_targets(page.target_names())
    return page


def storage(window: Window) -> QWidget:
    from bench_gui.gui.pages.storage import StoragePage

    page = StoragePage()
    page.status.connect(window.face.page_status("Storage"))
    return page


def study(window: Window) -> QWidget:
    from bench_gui.gui.pages.study.page import StudyPage

    page = StudyPage(window.store)
    page.status.connect(window.face.page_status("Study"))
    return page


def reload_storage_targets(window: Window) -> None:
    """The Storage page lists the saved targets too: it reads them again (if it is built)."""
    page = window.built("Storage")
    if page is not None:
        page.reload_targets()  # type: ignore[attr-defined]


# Every page, in the navigation's order: its name and what builds it for a window.
PAGES: Final[dict[str, Callable[[Window], QWidget]]] = {
    "Workload": workload,
    "Live": live,
    "Sessions": sessions,
    "Compare": compare,
    "Database": database,
    "Targets": targets,
    "Storage": storage,
    "Study": study,
}


def make(window: Window, name: str) -> QWidget:
    """Build the page ``name`` for ``window`` (KeyError for a name no maker knows)."""
    try:
        maker = PAGES[name]
    except KeyError:
        raise KeyError(f"no page named {name!r} (the pages: {', '.join(PAGES)})") from None
    return maker(window)
