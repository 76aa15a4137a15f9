"""The Database page: tune the target's PostgreSQL, and its host's kernel, with a diff before
anything changes.

Tabs under one header and one banner: each engine kit's (:mod:`bench_gui.engines`) tab, its
``panel`` face: PostgreSQL's (connect to the current plan's server; PgTune or a preset; the
diff; apply, roll back; the target's history), the same for MariaDB/MySQL (the InnoDB rules)
and SQL Server (seed 003's settings; not verified against a live server, as the tab says), and
:class:`OsKnobsPanel` (the database host's sysctls, read-ahead, I/O scheduler, huge pages).
Each tab runs its server work in a task runner of its own, so the page never blocks the event
loop; the work is :mod:`bench_gui.services.tuning`'s, the same code ``bench-gui tune`` runs.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabWidget, QWidget

from bench_gui.core.plan_model import Plan, PlanError
from bench_gui.engines.registry import UnknownEngine, kit_for, kits
from bench_gui.gui.pages.database.common import PlanProvider, plan_of
from bench_gui.gui.pages.database.os_knobs import OsKnobsPanel
from bench_gui.gui.pages.database.tuning_tab import ConnectFactory, TuningTab
from bench_gui.gui.widgets.page_parts import Banner, PageHeader, page_layout, scrolled
from bench_gui.services.tuning_parts import Connection
from bench_gui.services.tuning_view import DiffRow, HostFacts

SUBTITLE = (
    "PostgreSQL, InnoDB and SQL Server settings and the host's OS knobs: a diff before"
    " anything changes, apply, roll back."
)


class DatabasePage(QWidget):
    """Tune the target's PostgreSQL and its host's OS knobs.

    The tab of the embedded demo's engine (``demo_tab``, PostgreSQL's) is also reachable
    through the names this page has always offered (``connect_target``, ``table``,
    ``ram_edit`` ...), which the main window, the screenshot script and the tests use; the OS
    knobs tab is ``os_panel``.

    Signals:
        busy_changed(bool): a task of either tab started (True) or ended (False).
        status(str): a line for the status bar.
    """

    busy_changed = Signal(bool)
    status = Signal(str)

    def __init__(
        self,
        store: Any,
        plan_provider: PlanProvider | None = None,
        connect_factory: ConnectFactory | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        outer = page_layout(self)
        self.header = PageHeader("Database", SUBTITLE)
        outer.addWidget(self.header)
        self.banner = Banner()
        outer.addWidget(self.banner)

        # One tab per engine kit, in the registry's order (PostgreSQL, the demo's, first).
        self.panels: dict[str, TuningTab] = {}
        self.scrolls: dict[str, QWidget] = {}
        self.tabs = QTabWidget()
        for kit in kits():
            panel: TuningTab = kit.face("panel")(store, plan_provider)
            panel.message.connect(self.show_message)
            panel.status.connect(self.status)
            panel.busy_changed.connect(self.busy_changed)
            self.panels[kit.name] = panel
            # Each tab scrolls when the window is short, so its groups never overlap.
            self.scrolls[kit.name] = scrolled(panel)
            self.tabs.addTab(self.scrolls[kit.name], kit.label)
        # The tab tuning the embedded demo's engine: the page's own names below are its.
        self.demo_tab: TuningTab = self.panels[kit_for("demo").name]
        if connect_factory is not None:
            self.demo_tab.connect_factory = connect_factory
        self.plan_provider = plan_provider
        self.os_panel = OsKnobsPanel(store, self.current_plan_quiet)
        self.os_panel.message.connect(self.show_message)
        self.os_panel.busy_changed.connect(self.busy_changed)
        for panel in self.panels.values():  # a server on this machine: its data directory
            panel.local_data_directory.connect(self.os_panel.hosts.suggest_data_dir)
        self.os_scroll = scrolled(self.os_panel)
        self.tabs.addTab(self.os_scroll, "OS knobs")
        self.tabs.currentChanged.connect(self._tab_changed)
        outer.addWidget(self.tabs, 1)
        plan = self.current_plan_quiet()
        if plan is not None:
            try:
                self.tabs.setCurrentWidget(self.scrolls[kit_for(plan.target.kind).name])
            except UnknownEngine:
                pass  # no tab tunes it: the first one says so when asked to connect

        pg: Any = self.demo_tab  # its own widgets too (restart_check ...)
        self.connect_button = pg.server.connect_button
        self.server_label = pg.server.server_label
        self.machine_label = pg.server.machine_label
        self.control_label = pg.server.control_label
        self.profile_combo = pg.form.profile_combo
        self.ram_edit = pg.form.ram_edit
        self.cpus_spin = pg.form.cpus_spin
        self.type_combo = pg.form.type_combo
        self.inputs_error = pg.form.inputs_error
        self.proposal_note = pg.form.proposal_note
        self.table = pg.diff
        self.summary_label = pg.summary_label
        self.restart_check = pg.restart_check
        self.apply_button = pg.apply_button
        self.rollback_button = pg.rollback_button
        self.history_table = pg.history_table

    def current_plan_quiet(self) -> Plan | None:
        """The current plan, or None if it is not valid (nothing shown)."""
        try:
            return plan_of(self.plan_provider)
        except PlanError:
            return None

    def _tab_changed(self, index: int) -> None:
        if self.tabs.widget(index) is self.os_scroll and not self.os_panel.busy:
            self.os_panel.hosts.reload_hosts()

    @property
    def busy(self) -> bool:
        return any(p.busy for p in self.panels.values()) or self.os_panel.busy

    def shutdown(self, timeout_s: float = 60.0) -> bool:
        """Join every tab's tasks; close the server connection's SSH links."""
        done = True
        for panel in self.panels.values():
            done = panel.shutdown(timeout_s) and done
        return self.os_panel.shutdown(timeout_s) and done

    def show_message(self, text: str, tone: str) -> None:
        self.banner.show_text(tone, text)
        # The status bar gets one short line (a long one would widen the window).
        line = text.split("; ")[0]
        self.status.emit(line if len(line) <= 120 else line[:117] + "…")

    def message(self) -> str:
        return self.banner.text()

    # ---- the demo engine's tab, under the page's names -------------------------------------

    @property
    def connect_factory(self) -> ConnectFactory:
        return self.demo_tab.connect_factory

    @connect_factory.setter
    def connect_factory(self, factory: ConnectFactory) -> None:
        self.demo_tab.connect_factory = factory

    @property
    def conn(self) -> Connection | None:
        return self.demo_tab.conn

    @property
    def host_facts(self) -> HostFacts | None:
        facts: HostFacts | None = getattr(self.demo_tab, "host_facts", None)
        return facts

    @property
    def rows(self) -> list[DiffRow]:
        return self.demo_tab.diff.rows

    def connect_target(self) -> None:
        self.demo_tab.connect_target()

    def apply_selected(self) -> None:
        self.demo_tab.apply_selected()

    def rollback_last(self) -> None:
        self.demo_tab.rollback_last()

    def select_profile(self, name: str) -> None:
        self.demo_tab.form.select_profile(name)

    def save_preset(self, name: str) -> bool:
        tab: Any = self.demo_tab  # PostgreSQL's tab saves presets
        return bool(tab.save_preset(name))

    def checked_names(self) -> list[str]:
        return self.demo_tab.diff.checked_names()

    def set_checked(self, name: str, checked: bool) -> None:
        self.demo_tab.diff.set_checked(name, checked)
