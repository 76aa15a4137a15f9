"""The Database page's MariaDB / MySQL tab: connect to the plan's server, propose InnoDB
settings (buffer pool, redo log, flush method, I/O capacity, durability, connections), diff
them against ``SHOW GLOBAL VARIABLES``, apply the ticked rows, roll back the last apply, and
show the history of this target.

Built on :class:`~.tuning_tab.TuningTab` (what the engine tabs share) with the InnoDB form
(:mod:`.innodb_form`); the work is :mod:`bench_gui.services.tuning`'s, the same code
``bench-gui tune`` runs on a MariaDB plan.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench_gui.core.tuning.innodb import FLAVOUR_LABELS, DbVersion, InnoDbProposal
from bench_gui.core.tuning.pgtune import TunedSetting
from bench_gui.gui.pages.database.common import ODBC_ERRORS
from bench_gui.gui.pages.database.innodb_form import InnoDbForm
from bench_gui.gui.pages.database.tuning_tab import TuningTab, edited_settings
from bench_gui.remote.errors import SSHError
from bench_gui.remote.pg_tuner import HostFacts, TuningError
from bench_gui.services import tuning


class MariaDbPanel(TuningTab):
    """Tune the plan's MariaDB or MySQL server's InnoDB.

    Signals: as :class:`~bench_gui.gui.pages.database.tuning_tab.TuningTab`'s
    (message(str, str), status(str), busy_changed(bool)).
    """

    ERRORS = ODBC_ERRORS
    DIFF_TITLE = "Diff: SHOW GLOBAL VARIABLES against the proposal"
    FORM = InnoDbForm
    RELOAD_WORD = "at once"
    RESTART_NOTE = "Static variables go into the option file and take effect at the next restart."
    WRONG_KIND = (
        "The plan's target is {kind}, not MariaDB or MySQL: set"
        ' [target] kind = "mariadb" on the Workload page, or use the PostgreSQL tab.'
    )
    MACHINE_ERRORS = (TuningError, SSHError, OSError)
    # Read from the server at connect (the form's defaults until then).
    version: DbVersion | None = None
    flavour = "mariadb"

    form: InnoDbForm
    proposal: InnoDbProposal | None

    # ---- the form, the actions -------------------------------------------------------------

    # ---- the proposal ----------------------------------------------------------------------

    def _build_proposal(self) -> InnoDbProposal | None:
        return self.form.build_proposal(self.version, self.flavour)

    def _edited_proposal(self, p: InnoDbProposal, name: str, value: str) -> InnoDbProposal:
        edited = edited_settings(p.settings, name, value)
        return InnoDbProposal(p.title, edited, p.version, p.flavour, p.inputs)

    # ---- connecting, applying ----------------------------------------------------------------

    def _takes(self, kind: str) -> bool:
        return kind in tuning.MARIADB_KINDS

    def _show_connection(
        self, conn: tuning.Connection, facts: dict[str, Any], machine: HostFacts
    ) -> None:
        self.version = DbVersion.parse(str(facts["version"]))
        self.flavour = str(facts["flavour"])
        privileges = set(facts.get("privileges", []))
        may = bool(privileges & {"ALL PRIVILEGES", "SUPER", "SYSTEM_VARIABLES_ADMIN"})
        role = "may change variables" if may else "no SUPER privilege: read-only"
        label = FLAVOUR_LABELS.get(self.flavour, self.flavour)
        tuner = conn.tuner
        where = (
            f"Writes static variables to {tuner.config_file} on {conn.host.label}"
            if conn.host is not None
            else "The server's machine is out of reach: dynamic variables only (SET GLOBAL)"
        )
        restarts = f"; restarts with {tuner.control.label}" if tuner.control else ""
        self.server.show_server(
            conn.target.label,
            f"{label} {facts['server']}  ·  user {facts['user']} ({role})",
            facts.get("data_directory"),
            machine,
            where + restarts,
        )
        self.form.use_machine(machine, conn.planned_users)

    def _apply_work(
        self, conn: tuning.Connection, proposal: InnoDbProposal, items: list[TunedSetting]
    ) -> Callable[[], Any]:
        store, title = self.store, proposal.title

        def work() -> Any:
            return tuning.apply_profile(store, conn, items, profile=title, skip_invalid=True)[0]

        return work
