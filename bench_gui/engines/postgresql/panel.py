"""The Database page's PostgreSQL tab: connect to the plan's server, propose settings (PgTune
or a preset), diff them against the server, apply the ticked rows, roll back the last apply,
and show the history of what was applied to this target.

What every engine tab shares (the connect flow, the diff, apply and rollback through the tab's
one task runner, the history) is :class:`~.tuning_tab.TuningTab`'s; this module holds only the
PgTune / preset form, the memory warnings, the restart choice and saving a preset.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QInputDialog, QPushButton

from bench_gui.engines.postgresql.kit import KIT
from bench_gui.engines.postgresql.pgtune import PgVersion, Proposal, memory_warnings
from bench_gui.engines.postgresql.presets import preset_from_proposal
from bench_gui.engines.postgresql.proposal_form import ProposalForm
from bench_gui.engines.tuning_terms import PresetError, TunedSetting
from bench_gui.gui.pages.database.tuning_tab import (
    TuningTab,
    edited_settings,
)
from bench_gui.remote.db_tuner import DiffRow, HostFacts, TuningError
from bench_gui.remote.errors import SSHError
from bench_gui.services import tuning
from bench_gui.services.tuning_parts import Connection
from bench_gui.store.user_presets import save_preset

__all__ = ["PostgresPanel"]


class PostgresPanel(TuningTab):
    """Tune the plan's PostgreSQL server (it emits ``local_data_directory`` when the server is
    on this machine: see :class:`~bench_gui.gui.pages.database.tuning_tab.TuningTab`)."""

    DIFF_TITLE = "Diff: the server's values against the proposal"
    HISTORY_KIND = "postgresql"
    KIT = KIT
    FORM = ProposalForm
    WRONG_KIND = "The plan's target is {kind}: its settings are on the tab of its engine."
    MACHINE_ERRORS = (TuningError, psycopg.Error, SSHError, OSError)
    # Read from the server at connect (the form's defaults until then).
    host_facts: HostFacts | None = None
    version: PgVersion | None = None

    form: ProposalForm
    proposal: Proposal | None

    # ---- the form, the actions -------------------------------------------------------------

    def _add_actions(self, actions: QHBoxLayout) -> None:
        self.restart_check = QCheckBox("Restart the server when a setting needs it")
        self.restart_check.toggled.connect(self._update_actions)
        actions.addWidget(self.restart_check)
        actions.addStretch(1)
        self.save_button = QPushButton("Save as preset…")
        self.save_button.clicked.connect(self._on_save_clicked)
        actions.addWidget(self.save_button)

    def _update_more(self, idle: bool) -> None:
        self.save_button.setEnabled(idle and self.proposal is not None)

    # ---- the proposal ----------------------------------------------------------------------

    def _build_proposal(self) -> Proposal | None:
        return self.form.build_proposal(self.version or PgVersion(18))

    def _edited_proposal(self, p: Proposal, name: str, value: str) -> Proposal:
        return Proposal(p.title, edited_settings(p.settings, name, value), p.version, p.inputs)

    def _warnings(self, rows: list[DiffRow]) -> dict[str, str]:
        if self.host_facts is None or not self.host_facts.ram_bytes:
            return {}
        values = {r.name: r.proposed for r in rows}
        return memory_warnings(values, self.host_facts.ram_bytes)

    # ---- connecting, applying ----------------------------------------------------------------

    def _show_connection(self, conn: Connection, facts: dict[str, Any], machine: HostFacts) -> None:
        self.host_facts = machine
        self.version = PgVersion.parse(int(facts["server_version_num"]))
        self.server.show_connection(conn, facts, machine)
        self.form.use_machine(machine)
        if conn.host is not None and conn.host.is_local and facts.get("data_directory"):
            self.local_data_directory.emit(str(facts["data_directory"]))

    def _apply_work(
        self, conn: Connection, proposal: Proposal, items: list[TunedSetting]
    ) -> Callable[[], Any]:
        restart, profile, store = self.restart_check.isChecked(), self.form.profile(), self.store

        def work() -> Any:
            return tuning.apply_profile(
                store, conn, items, profile=profile, restart=restart, skip_invalid=True
            )[0]

        return work

    # ---- presets -------------------------------------------------------------------------

    def _on_save_clicked(self) -> None:
        name, ok = QInputDialog.getText(
            self, "Save as preset", "Preset name (lower-case letters, digits, . _ -):"
        )
        if ok and name.strip():
            self.save_preset(name.strip())

    def save_preset(self, name: str) -> bool:
        """Keep the ticked rows' proposed values as a user preset."""
        if self.proposal is None:
            return False
        settings = self.proposal.settings
        picked = set(self.diff.checked_names()) or {s.name.lower() for s in settings}
        chosen = [s for s in settings if s.name.lower() in picked]
        subset = Proposal(self.proposal.title, chosen, self.proposal.version)
        try:
            save_preset(preset_from_proposal(name, subset, title=name))
        except (PresetError, OSError) as exc:
            self.message.emit(f"Cannot save the preset: {exc}", "failed")
            return False
        self.form.fill_profiles(select=self.form.profile())
        self.message.emit(f"Saved {len(chosen)} settings as preset {name!r}.", "ok")
        return True
