"""The Database page: tune the target's PostgreSQL, and its host's kernel, with a diff before
anything changes.

Tabs under one header and one banner: :class:`PostgresPanel` (connect to the current plan's
server; PgTune or a preset; the diff; apply, roll back; the target's history), the same for
MariaDB/MySQL (:class:`MariaDbPanel`, the InnoDB rules) and SQL Server (:class:`MssqlPanel`,
seed 003's settings; not verified against a live server, as the tab says), and
:class:`OsKnobsPanel` (the database host's sysctls, read-ahead, I/O scheduler, huge pages).
Each tab runs its server work in a task runner of its own, so the page never blocks the event
loop; the work is :mod:`bench_gui.services.tuning`'s, the same code ``bench-gui tune`` runs.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabWidget, QWidget

from bench_gui.core.plan import Plan, PlanError
from bench_gui.gui.pages.database.common import PlanProvider, plan_of
from bench_gui.gui.pages.database.mariadb import MariaDbPanel
from bench_gui.gui.pages.database.mssql import MssqlPanel
from bench_gui.gui.pages.database.os_knobs import OsKnobsPanel
from bench_gui.gui.pages.database.postgresql import ConnectFactory, PostgresPanel
from bench_gui.gui.widgets.page_parts import Banner, PageHeader, page_layout, scrolled
from bench_gui.remote.pg_tuner import DiffRow, HostFacts
from bench_gui.services.tuning import Connection

SUBTITLE = (
    "PostgreSQL, InnoDB and SQL Server settings and the host's OS knobs: a diff before"
    " anything changes, apply, roll back."
)


class DatabasePage(QWidget):
    """Tune the target's PostgreSQL and its host's OS knobs.

    The PostgreSQL tab (``postgresql``) is also reachable through the names this page has
    always offered (``connect_target``, ``table``, ``ram_edit`` ...), which the main window,
    the screenshot script and the tests use; the OS knobs tab is ``os_panel``.

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

        self.postgresql = PostgresPanel(store, plan_provider, connect_factory)
        self.postgresql.message.connect(self.show_message)
        self.postgresql.status.connect(self.status)
        self.postgresql.busy_changed.connect(self.busy_changed)
        self.mariadb = MariaDbPanel(store, plan_provider)
        self.mariadb.message.connect(self.show_message)
        self.mariadb.status.connect(self.status)
        self.mariadb.busy_changed.connect(self.busy_changed)
        self.mssql = MssqlPanel(store, plan_provider)
        self.mssql.message.connect(self.show_message)
        self.mssql.status.connect(self.status)
        self.mssql.busy_changed.connect(self.busy_changed)
        self.os_panel = OsKnobsPanel(store, self.current_plan_quiet)
        self.os_panel.message.connect(self.show_message)
        self.os_panel.busy_changed.connect(self.busy_changed)
        self.postgresql.local_data_directory.connect(self.os_panel.hosts.suggest_data_dir)

        # Each tab scrolls when the window is short, so its groups never overlap.
        self.tabs = QTabWidget()
        self.tabs.addTab(scrolled(self.postgresql), "PostgreSQL")
        self.mariadb_scroll = scrolled(self.mariadb)
        self.tabs.addTab(self.mariadb_scroll, "MariaDB / MySQL")
        self.mssql_scroll = scrolled(self.mssql)
        self.tabs.addTab(self.mssql_scroll, "SQL Server")
        self.os_scroll = scrolled(self.os_panel)
        self.tabs.addTab(self.os_scroll, "OS knobs")
        self.tabs.currentChanged.connect(self._tab_changed)
        outer.addWidget(self.tabs, 1)
        plan = self.current_plan_quiet()
        if plan is not None and plan.target.kind in ("mariadb", "mysql"):
            self.tabs.setCurrentWidget(self.mariadb_scroll)
        elif plan is not None and plan.target.kind == "mssql":
            self.tabs.setCurrentWidget(self.mssql_scroll)

        pg = self.postgresql
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
            return plan_of(self.postgresql.plan_provider)
        except PlanError:
            return None

    def _tab_changed(self, index: int) -> None:
        if self.tabs.widget(index) is self.os_scroll and not self.os_panel.busy:
            self.os_panel.hosts.reload_hosts()

    @property
    def busy(self) -> bool:
        return self.postgresql.busy or self.mariadb.busy or self.mssql.busy or self.os_panel.busy

    def shutdown(self, timeout_s: float = 60.0) -> bool:
        """Join every tab's tasks; close the server connection's SSH links."""
        done = self.postgresql.shutdown(timeout_s)
        done = self.mariadb.shutdown(timeout_s) and done
        done = self.mssql.shutdown(timeout_s) and done
        return self.os_panel.shutdown(timeout_s) and done

    def show_message(self, text: str, tone: str) -> None:
        self.banner.show_text(tone, text)
        # The status bar gets one short line (a long one would widen the window).
        line = text.split("; ")[0]
        self.status.emit(line if len(line) <= 120 else line[:117] + "…")

    def message(self) -> str:
        return self.banner.text()

    # ---- the PostgreSQL tab, under the page's names ----------------------------------------

    @property
    def connect_factory(self) -> ConnectFactory:
        return self.postgresql.connect_factory

    @connect_factory.setter
    def connect_factory(self, factory: ConnectFactory) -> None:
        self.postgresql.connect_factory = factory

    @property
    def conn(self) -> Connection | None:
        return self.postgresql.conn

    @property
    def host_facts(self) -> HostFacts | None:
        return self.postgresql.host_facts

    @property
    def rows(self) -> list[DiffRow]:
        return self.postgresql.diff.rows

    def connect_target(self) -> None:
        self.postgresql.connect_target()

    def apply_selected(self) -> None:
        self.postgresql.apply_selected()

    def rollback_last(self) -> None:
        self.postgresql.rollback_last()

    def select_profile(self, name: str) -> None:
        self.postgresql.form.select_profile(name)

    def save_preset(self, name: str) -> bool:
        return self.postgresql.save_preset(name)

    def checked_names(self) -> list[str]:
        return self.postgresql.diff.checked_names()

    def set_checked(self, name: str, checked: bool) -> None:
        self.postgresql.diff.set_checked(name, checked)
