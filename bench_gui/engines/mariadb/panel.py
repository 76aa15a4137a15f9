"""The Database page's MariaDB / MySQL tab: connect to the plan's server, propose InnoDB
settings (buffer pool, redo log, flush method, I/O capacity, durability, connections), diff
them against ``SHOW GLOBAL VARIABLES``, apply the ticked rows, roll back the last apply, and
show the history of this target.

The option file the static variables go into is chosen on the tab (``Option file``): empty
means our own include file (:data:`~bench_gui.engines.mariadb.tuner.DEFAULT_CONFIG_FILE`); a
DBA's file is edited in place, keeping everything else in it.

Built on :class:`~.tuning_tab.TuningTab` (what the engine tabs share) with the InnoDB form
(:mod:`.innodb_form`); the work is :mod:`bench_gui.services.tuning`'s, the same code
``bench-gui tune`` runs on a MariaDB plan.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QWidget

from bench_gui.engines.mariadb.innodb import FLAVOUR_LABELS, DbVersion, InnoDbProposal
from bench_gui.engines.mariadb.innodb_form import InnoDbForm
from bench_gui.engines.mariadb.kit import KIT
from bench_gui.engines.mariadb.tuner import DEFAULT_CONFIG_FILE
from bench_gui.engines.tuning_terms import TunedSetting
from bench_gui.gui.pages.database.common import ODBC_ERRORS, sentences
from bench_gui.gui.pages.database.tuning_tab import TuningTab, edited_settings
from bench_gui.remote.db_tuner import HostFacts, TuningError
from bench_gui.remote.errors import SSHError
from bench_gui.services import tuning
from bench_gui.services.tuning_parts import Connection


class MariaDbPanel(TuningTab):
    """Tune the plan's MariaDB or MySQL server's InnoDB.

    Signals: as :class:`~bench_gui.gui.pages.database.tuning_tab.TuningTab`'s
    (message(str, str), status(str), busy_changed(bool)).
    """

    ERRORS = ODBC_ERRORS
    DIFF_TITLE = "Diff: SHOW GLOBAL VARIABLES against the proposal"
    KIT = KIT
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

    # ---- the option file --------------------------------------------------------------------

    def _top_widgets(self) -> list[QWidget]:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Option file"))
        self.option_file = QLineEdit()
        self.option_file.setPlaceholderText(f"{DEFAULT_CONFIG_FILE} (an include file of ours)")
        self.option_file.setToolTip(
            "Where static variables are written on the server's machine. Empty: a file of our"
            " own. A file of yours (e.g. /etc/mysql/my.cnf) is edited in place: comments,"
            " flags and other sections stay; a rollback restores it byte for byte."
        )
        self.option_file.editingFinished.connect(self._option_file_changed)
        layout.addWidget(self.option_file, 1)
        return [row]

    def chosen_option_file(self) -> str | None:
        """The file typed on the tab (None: the connection's own); ValueError when it is not
        an absolute path."""
        return _checked_option_file(self.option_file.text())

    def _use_option_file(self, conn: Connection) -> None:
        chosen = self.chosen_option_file()
        if chosen is not None:
            conn.tuner.config_file = chosen

    def _option_file_changed(self) -> None:
        try:
            chosen = self.chosen_option_file()
        except ValueError as exc:
            self.message.emit(f"{str(exc)[0].upper()}{str(exc)[1:]}.", "failed")
            return
        if self.conn is not None and chosen is not None and not self.busy:
            self.conn.tuner.config_file = chosen
            self.server.control_label.setText(self._where(self.conn))

    @staticmethod
    def _where(conn: Connection) -> str:
        tuner = conn.tuner
        where = (
            f"Writes static variables to {tuner.config_file} on {conn.host.label}"
            if conn.host is not None
            else "The server's machine is out of reach: dynamic variables only (SET GLOBAL)"
        )
        return where + (f"; restarts with {tuner.control.label}" if tuner.control else "")

    # ---- the proposal ----------------------------------------------------------------------

    def _build_proposal(self) -> InnoDbProposal | None:
        return self.form.build_proposal(self.version, self.flavour)

    def _edited_proposal(self, p: InnoDbProposal, name: str, value: str) -> InnoDbProposal:
        edited = edited_settings(p.settings, name, value)
        return InnoDbProposal(p.title, edited, p.version, p.flavour, p.inputs)

    # ---- connecting, applying ----------------------------------------------------------------

    def _show_connection(self, conn: Connection, facts: dict[str, Any], machine: HostFacts) -> None:
        self.version = DbVersion.parse(str(facts["version"]))
        self.flavour = str(facts["flavour"])
        privileges = set(facts.get("privileges", []))
        may = bool(privileges & {"ALL PRIVILEGES", "SUPER", "SYSTEM_VARIABLES_ADMIN"})
        role = "may change variables" if may else "no SUPER privilege: read-only"
        label = FLAVOUR_LABELS.get(self.flavour, self.flavour)
        try:
            self._use_option_file(conn)
            if self.chosen_option_file() is None:  # empty: the file this connection writes
                self.option_file.setPlaceholderText(conn.tuner.config_file)
        except ValueError as exc:
            self.message.emit(f"{str(exc)[0].upper()}{str(exc)[1:]}.", "failed")
        self.server.show_server(
            conn.target.label,
            f"{label} {facts['server']}  ·  user {facts['user']} ({role})",
            facts.get("data_directory"),
            machine,
            self._where(conn),
        )
        self.form.use_machine(machine, conn.planned_users)

    def _apply_work(
        self, conn: Connection, proposal: InnoDbProposal, items: list[TunedSetting]
    ) -> Callable[[], Any]:
        store, title = self.store, proposal.title
        typed = self.option_file.text()

        def work() -> Any:
            chosen = _checked_option_file(typed)  # ValueError: in the banner, nothing applied
            if chosen is not None:
                conn.tuner.config_file = chosen
            return tuning.apply_profile(store, conn, items, profile=title, skip_invalid=True)[0]

        return work

    def _notes(self, result: Any) -> str:
        return sentences(result.messages)


def _checked_option_file(text: str) -> str | None:
    """A typed option file: None when empty, ValueError unless an absolute path."""
    text = text.strip()
    if not text:
        return None
    if not posixpath.isabs(text):
        raise ValueError(f"the option file {text!r} is not an absolute path")
    return text
