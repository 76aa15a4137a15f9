"""The Targets page: SSH hosts the app works on, their test and their inventory.

Targets are kept in ``<data dir>/targets.toml`` through :mod:`bench_gui.remote.targets`, which
holds no secret: a password, key passphrase or sudo password typed here goes to the OS keyring
(:mod:`bench_gui.remote.secrets`) when the target is saved
(:func:`bench_gui.services.targets.save_target`), and the fields are emptied.

"Test connection" and "Collect inventory" act on the target in the form, saved or not (so a
target can be tried before it is saved), in the background (:mod:`.remote_work`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QMessageBox, QSplitter, QVBoxLayout, QWidget

from bench_gui.core.plan_model import Plan
from bench_gui.gui.dialogs import HostKeyPrompt
from bench_gui.gui.pages.targets.connection_test import ConnectionTestPanel
from bench_gui.gui.pages.targets.form import TargetForm
from bench_gui.gui.pages.targets.inventory_view import InventoryPanel
from bench_gui.gui.pages.targets.remote_work import RemoteWork, Request
from bench_gui.gui.pages.targets.target_list import TargetList
from bench_gui.gui.widgets.page_parts import ErrorLine, PageHeader, page_layout, scrolled
from bench_gui.services.errors import SecretStoreError, SSHError, TargetError
from bench_gui.services.hosts import (
    APP_KNOWN_HOSTS,
    SECRET_KINDS,
    TARGETS_FILE,
    SSHTarget,
    data_dir,
    get_secret,
    load_targets,
)
from bench_gui.services.targets import (
    NameTaken,
    SecretsRequest,
    database_check,
    remove_saved_target,
    save_target,
)

SECRET_LABELS = {
    "password": "login password",
    "passphrase": "key passphrase",
    "sudo_password": "sudo password",
}

PlanSource = Callable[[], Plan | None]


def _column(top: QWidget, bottom: QWidget, left: bool) -> QWidget:
    """A column of the page's splitter: on the left the list and the form, kept at the top;
    on the right the test and the inventory, which takes the room left."""
    column = QWidget()
    layout = QVBoxLayout(column)
    layout.setContentsMargins(0 if left else 8, 0, 8 if left else 0, 0)
    layout.setSpacing(6)
    layout.addWidget(top)
    layout.addWidget(bottom, 0 if left else 1)
    if left:
        layout.addStretch(1)
    return column


class TargetsPage(QWidget):
    """Saved SSH targets: list, form, test, inventory.

    ``folder`` is the data directory (default: :func:`bench_gui.store.paths.data_dir`);
    ``plan_source`` returns the current plan, whose database the connection test tries to
    reach from the target. The parts: ``header``, ``saved`` (the list), ``form``, ``checks``
    (the connection test), ``inventory``, ``host_keys`` (the host-key prompt) and ``work``
    (the remote work, one at a time).

    Signals:
        targets_changed(list): the saved target names, after a save or a removal.
        status(str): a short line for the window's status bar.
    """

    targets_changed = Signal(list)
    status = Signal(str)

    def __init__(
        self,
        folder: Path | None = None,
        plan_source: PlanSource | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.folder = folder if folder is not None else data_dir()
        self.targets_path = self.folder / TARGETS_FILE
        self.known_hosts_path = self.folder / APP_KNOWN_HOSTS
        self.plan_source = plan_source
        self.targets: dict[str, SSHTarget] = {}
        self.editing: str | None = None  # the saved target shown in the form (None: new)
        self.confirm_box: QMessageBox | None = None
        self._shown_name = ""
        self._build_ui()
        self.host_keys = HostKeyPrompt(self, self.known_hosts_path)
        self.work = RemoteWork(self.checks, self.inventory, self.host_keys, self.known_hosts_path)
        self.work.setParent(self)
        for source in (self.work, self.checks, self.inventory):
            source.status.connect(self.status)
        self.reload()
        self.new_target()

    def _build_ui(self) -> None:
        outer = page_layout(self)
        self.header = PageHeader("Targets")
        self.new_button = self.header.add_action("New target")
        self.new_button.clicked.connect(self.new_target)
        outer.addWidget(self.header)
        self.page_error = ErrorLine()
        outer.addWidget(self.page_error)

        self.saved = TargetList()
        self.saved.picked.connect(self._on_picked)
        self.form = TargetForm()
        self.form.remove_button.clicked.connect(self.ask_remove)
        self.form.revert_button.clicked.connect(self._on_revert)
        self.form.save_button.clicked.connect(self.save)
        self.checks = ConnectionTestPanel()
        self.checks.button.clicked.connect(self.test_connection)
        self.inventory = InventoryPanel()
        self.inventory.button.clicked.connect(self.collect_inventory)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(scrolled(_column(self.saved, self.form, left=True)))
        splitter.addWidget(scrolled(_column(self.checks, self.inventory, left=False)))
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 6)
        splitter.setSizes([680, 1040])
        outer.addWidget(splitter, 1)

    # ---- the list ------------------------------------------------------------------------

    def target_names(self) -> list[str]:
        return sorted(self.targets)

    def reload(self) -> None:
        """Read targets.toml again and show it (a broken file is reported, never rewritten)."""
        try:
            self.targets = load_targets(self.targets_path)
        except TargetError as exc:
            self.targets = {}
            self.page_error.show_error(f"Cannot use the saved targets: {exc}")
        else:
            self.page_error.clear_error()
        self.saved.show_targets(self.targets, self.editing)
        count = len(self.targets)
        noun = "1 target" if count == 1 else f"{count} targets"
        self.header.set_subtitle(
            f"SSH hosts for the agent and the database  ·  {noun} in {self.targets_path}"
        )

    def _on_picked(self, name: str) -> None:
        if name in self.targets:
            self.edit_target(name)

    def select_target(self, name: str) -> None:
        """Select a saved target in the list and show it in the form."""
        self.saved.select(name)
        self.edit_target(name)

    # ---- the form ------------------------------------------------------------------------

    def new_target(self) -> None:
        """An empty form for a new target."""
        self.editing = None
        self.saved.select(None)
        self._show_target(SSHTarget(name="", host=""))
        self.form.setTitle("New target")
        self.form.remove_button.setEnabled(False)
        self.form.name_edit.setFocus()

    def edit_target(self, name: str) -> None:
        target = self.targets[name]
        self.editing = name
        self._show_target(target)
        self.form.setTitle(f"Target “{name}”")
        self.form.remove_button.setEnabled(True)

    def clear_results(self) -> None:
        """Forget the test and inventory shown (another target is in the form)."""
        if self.busy:
            return
        self.checks.clear()
        self.inventory.clear()

    def _show_target(self, target: SSHTarget) -> None:
        if target.name != self._shown_name:
            self.clear_results()
        self._shown_name = target.name
        self.form.show_target(target, self._stored_secrets())

    def _stored_secrets(self) -> set[str]:
        """The secret kinds the keyring holds for the saved target in the form."""
        if self.editing is None:
            return set()
        stored = set()
        for kind in SECRET_KINDS:
            try:
                if get_secret(self.editing, kind):
                    stored.add(kind)
            except SecretStoreError:
                pass  # shown as not stored: saving asks the keyring again and says why
        return stored

    def _on_revert(self) -> None:
        if self.editing is not None and self.editing in self.targets:
            self.edit_target(self.editing)
        else:
            self.new_target()

    # ---- save and remove -----------------------------------------------------------------

    def save(self) -> bool:
        """Save the form: the target to targets.toml, its typed secrets to the keyring."""
        target = self.form.form_target()
        if target is None:
            return False
        typed = self.form.typed_secrets()
        try:
            save_target(target, self.targets_path, self.editing, typed)
        except NameTaken as exc:
            self.form.show_field_error("name", str(exc))
            return False
        except (SSHError, OSError) as exc:
            self.form.form_error.show_error(f"Not saved: {exc}")
            return False
        self.editing = target.name
        self._shown_name = target.name  # a test made before saving stays on show
        self.reload()
        self.edit_target(target.name)
        stored = ", ".join(SECRET_LABELS[k] for k in typed)
        note = f" ({stored} in the OS keyring)" if stored else ""
        self.status.emit(f"Target {target.name!r} saved{note}.")
        self.targets_changed.emit(self.target_names())
        return True

    def ask_remove(self) -> None:
        """Ask before removing the target in the form (the answer arrives in a slot)."""
        name = self.editing
        if name is None:
            return
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("Remove target")
        box.setText(f"Remove the target “{name}”?")
        box.setInformativeText(
            "Its entry in targets.toml and its password, key passphrase and sudo password in"
            " the OS keyring are deleted. Nothing changes on the host itself, and stored"
            " sessions are kept."
        )
        self.confirm_remove_button = box.addButton("Remove", QMessageBox.ButtonRole.DestructiveRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        box.buttonClicked.connect(lambda button: self._on_remove_answer(name, button))
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.confirm_box = box
        box.open()

    def _on_remove_answer(self, name: str, button: Any) -> None:
        self.confirm_box = None
        if button is self.confirm_remove_button:
            self.remove(name)

    def remove(self, name: str) -> bool:
        """Remove a saved target and forget its secrets (no question asked)."""
        try:
            forgotten = remove_saved_target(name, self.targets_path)
        except (SSHError, OSError) as exc:
            self.form.form_error.show_error(f"Not removed: {exc}")
            return False
        self.editing = None
        self.reload()
        self.new_target()
        also = f"; {len(forgotten)} secret(s) forgotten" if forgotten else ""
        self.status.emit(f"Target {name!r} removed{also}.")
        self.targets_changed.emit(self.target_names())
        return True

    # ---- remote work ---------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.work.busy

    def _secrets_request(self) -> SecretsRequest:
        typed = tuple(sorted(self.form.typed_secrets().items()))
        return SecretsRequest(typed=typed, stored_as=self.editing or "")

    def test_connection(self) -> bool:
        """Test the target in the form (in a thread); False if the form is not valid."""
        target = self.form.form_target()
        if target is None or self.busy:
            return False
        plan = self.plan_source() if self.plan_source is not None else None
        database, skipped = database_check(plan)
        self.checks.begin()
        request = Request("test", target, self._secrets_request(), database, skipped)
        return self.work.start(request)

    def collect_inventory(self) -> bool:
        """Collect the inventory of the target in the form (in a thread)."""
        target = self.form.form_target()
        if target is None or self.busy:
            return False
        self.inventory.banner.clear()
        return self.work.start(Request("inventory", target, self._secrets_request()))

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Cancel and join the remote work, if any; close the page's dialogs."""
        if self.confirm_box is not None:
            self.confirm_box.reject()
        return self.work.shutdown(timeout_s)
