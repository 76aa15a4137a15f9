"""The Database page's SQL Server tab: connect to the plan's SQL Server, diff seed 003's settings
(MAXDOP, recovery model, target recovery time, max server memory from the RAM) or a preset
file against sys.configurations and the database's options, apply the ticked rows, roll back
the last apply, and show the history of this target.

Built on :class:`~.tuning_tab.TuningTab` (what the engine tabs share) with :mod:`.mssql_form`;
the work is :mod:`bench_gui.services.tuning`'s, the same code ``bench-gui tune`` runs on a SQL
Server plan. The tab says plainly, at its top, that this engine has not been verified
against a live server here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QWidget

from bench_gui.engines.mssql.form import MssqlForm
from bench_gui.engines.mssql.kit import KIT, NOT_VERIFIED
from bench_gui.engines.mssql.proposal import MssqlProposal
from bench_gui.engines.tuning_terms import PresetError, TunedSetting
from bench_gui.gui.pages.database.common import ODBC_ERRORS, sentences
from bench_gui.gui.pages.database.tuning_tab import TuningTab
from bench_gui.gui.widgets.page_parts import Banner
from bench_gui.remote.db_tuner import HostFacts, TuningError
from bench_gui.services import tuning
from bench_gui.services.tuning_parts import Connection

UNVERIFIED_NOTE = (
    f"⚠ {NOT_VERIFIED} (no SQL Server runs where bench-gui is tested). Read the diff before"
    " you apply, and check the server afterwards."
)


class MssqlPanel(TuningTab):
    """Tune the plan's SQL Server with seed 003's settings or a preset file.

    Signals: as :class:`~bench_gui.gui.pages.database.tuning_tab.TuningTab`'s
    (message(str, str), status(str), busy_changed(bool)).
    """

    ERRORS = ODBC_ERRORS
    DIFF_TITLE = "Diff: sys.configurations and the database's options"
    HISTORY_KIND = "mssql"
    ROLLBACK_RESTARTS = False  # bench-gui never restarts SQL Server
    KIT = KIT
    FORM = MssqlForm
    RELOAD_WORD = "at once"
    RESTART_NOTE = (
        "Options that are not dynamic take effect when the SQL Server service restarts;"
        " bench-gui never restarts it."
    )
    WRONG_KIND = (
        "The plan's target is {kind}, not SQL Server: set [target]"
        ' kind = "mssql" on the Workload page, or use the tab of its engine.'
    )
    MACHINE_ERRORS = (TuningError, OSError)
    version = ""  # the server's, read at connect

    form: MssqlForm
    proposal: MssqlProposal | None

    # ---- the banner, the form, the actions -----------------------------------------------

    def _top_widgets(self) -> list[QWidget]:
        # Said on the tab itself, always: the banner of the page is for outcomes.
        self.unverified = Banner()
        self.unverified.show_text("stopped", UNVERIFIED_NOTE)
        return [self.unverified]

    # ---- the proposal ----------------------------------------------------------------------

    def _build_proposal(self) -> MssqlProposal | None:
        return self.form.build_proposal(self.version)

    def _edited_proposal(self, proposal: MssqlProposal, name: str, value: str) -> MssqlProposal:
        try:
            return proposal.edited(name, value)
        except PresetError as exc:
            self.message.emit(str(exc), "failed")
            return proposal

    # ---- connecting, applying ----------------------------------------------------------------

    def _machine(self, conn: Connection) -> HostFacts:
        machine: HostFacts = conn.tuner.host_facts()  # the RAM is only a default
        return machine

    def _show_connection(self, conn: Connection, facts: dict[str, Any], machine: HostFacts) -> None:
        self.version = str(facts.get("version") or "")
        self.server.show_server(
            conn.target.label,
            f"{facts['server']}  ·  login {facts['user']} ({facts['rights']})",
            facts.get("data_directory"),
            machine,
            "Never restarted from here: options that are not dynamic wait for a restart of the"
            " SQL Server service.",
        )
        self.form.use_machine(machine)

    def _setting_key(self, name: str) -> str:
        return name  # the table ticks SQL Server's names as they are

    def _apply_work(
        self, conn: Connection, proposal: MssqlProposal, items: list[TunedSetting]
    ) -> Callable[[], Any]:
        store = self.store
        profile = self.form.profile if self.form.profile != "file" else proposal.title

        def work() -> Any:
            return tuning.apply_profile(store, conn, items, profile=profile, skip_invalid=True)[0]

        return work

    def _notes(self, result: Any) -> str:
        return sentences(result.messages)
