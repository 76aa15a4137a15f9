"""The Targets page's remote work: the connection test and the inventory, one at a time.

Each runs in the page's :class:`~bench_gui.gui.tasks.TaskRunner` (the page never waits for the
network) and shows its outcome on its panel. An unknown host key is asked about through the
page's :class:`~bench_gui.gui.dialogs.HostKeyPrompt`; if the user accepts the fingerprint, the
same work is started again with ``accept_fingerprint``, which records the key in the app's
known-hosts file. A changed key is refused, with the warning, and never offered for acceptance.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from bench_gui.gui.dialogs import HostKeyPrompt, not_accepted_text
from bench_gui.gui.pages.targets.connection_test import ConnectionTestPanel
from bench_gui.gui.pages.targets.inventory_view import InventoryPanel
from bench_gui.gui.tasks import TaskRunner
from bench_gui.gui.widgets.page_parts import Banner
from bench_gui.services.errors import ChangedHostKey, HostKeyError, SSHError, UnknownHostKey
from bench_gui.services.hosts import SSHTarget
from bench_gui.services.targets import (
    DatabaseCheck,
    SecretsRequest,
    check_connection,
    inventory,
)


@dataclass(frozen=True)
class Request:
    """One piece of remote work: ``kind`` "test" or "inventory", for the target in the form."""

    kind: str
    target: SSHTarget
    secrets: SecretsRequest
    database: DatabaseCheck | None = None
    skipped: str = ""  # why the database is not checked

    def body(self, known_hosts: Path, accept: str | None) -> Callable[[], Any]:
        """The blocking call, for a worker thread. A host key the user has to decide on is
        its outcome, not a failure: it is returned, to be asked about."""

        def work() -> Any:
            try:
                if self.kind == "test":
                    return check_connection(
                        self.target, known_hosts, self.secrets, self.database, accept
                    )
                return inventory(self.target, known_hosts, self.secrets, accept)
            except HostKeyError as exc:
                return exc

        return work


class RemoteWork(QObject):
    """Runs a :class:`Request` and shows what came of it on the test or inventory panel.

    Signals:
        status(str): a short line for the window's status bar.
    """

    status = Signal(str)

    def __init__(
        self,
        checks: ConnectionTestPanel,
        inventory_panel: InventoryPanel,
        host_keys: HostKeyPrompt,
        known_hosts: Path,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.checks = checks
        self.inventory = inventory_panel
        self.host_keys = host_keys
        self.known_hosts = known_hosts
        self.closing = False
        # OSError: the known-hosts file could not be written, a key file not read.
        self.runner = TaskRunner(self, expected=(SSHError, OSError), where="the Targets page")
        self.runner.busy_changed.connect(lambda _busy: self._show_busy(self.runner.busy))

    @property
    def busy(self) -> bool:
        return self.runner.busy is not None

    def start(self, request: Request, accept: str | None = None) -> bool:
        """Start ``request`` (``accept``: a host-key fingerprint the user accepted)."""
        if self.closing:
            return False
        started = self.runner.start(
            request.kind,
            request.body(self.known_hosts, accept),
            then=lambda result: self._done(request, result),
            failed=lambda _what, message, _details: self._failed(request, message),
        )
        if not started:
            return False
        target = request.target
        where = target.host + (f":{target.port}" if target.port else "")
        verb = "Testing" if request.kind == "test" else "Collecting the inventory of"
        self._banner(request.kind).show_text("", f"{verb} {target.name} ({where})…")
        self.status.emit(f"{verb} {target.name}…")
        return True

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Cancel and join the running work, if any; close an open host-key dialog."""
        self.closing = True
        self.host_keys.close()
        ended = self.runner.shutdown(timeout_s)
        if ended:
            self._show_busy(None)
        return ended

    # ---- outcome -------------------------------------------------------------------------

    def _banner(self, kind: str) -> Banner:
        return self.checks.banner if kind == "test" else self.inventory.banner

    def _show_busy(self, kind: str | None) -> None:
        idle = kind is None
        self.checks.button.setEnabled(idle)
        self.inventory.button.setEnabled(idle)
        self.checks.busy_bar.setVisible(kind == "test")
        self.inventory.busy_bar.setVisible(kind == "inventory")

    def _done(self, request: Request, result: Any) -> None:
        if self.closing:
            return
        if isinstance(result, UnknownHostKey):
            self._banner(request.kind).show_text(
                "stopped", f"Waiting for you to check the host key of {result.host}…"
            )
            self.host_keys.ask(
                result, request.target.name, lambda answer: self._answered(request, result, answer)
            )
        elif isinstance(result, HostKeyError):
            self._refused(request, result)
        elif request.kind == "test":
            self.checks.show_report(result, request.skipped)
        else:
            self.inventory.show_inventory(result, request.target.name)

    def _failed(self, request: Request, message: str) -> None:
        if self.closing:
            return
        what = "Test" if request.kind == "test" else "Inventory"
        name = request.target.name
        self._banner(request.kind).show_text("failed", f"{what} of {name} failed: {message}")
        self.status.emit(f"{what} of {name} failed.")

    def _answered(self, request: Request, error: UnknownHostKey, fingerprint: str | None) -> None:
        if self.closing:
            return
        banner = self._banner(request.kind)
        if fingerprint is None:
            banner.show_text("stopped", not_accepted_text(error.host))
            self.status.emit("Host key not accepted.")
        elif self.busy:
            banner.show_text("stopped", "Another test is running: try again when it ends.")
        else:
            self.start(request, accept=fingerprint)

    def _refused(self, request: Request, error: HostKeyError) -> None:
        banner = self._banner(request.kind)
        if isinstance(error, ChangedHostKey):
            banner.show_text("failed", f"Connection refused — {error}")
        else:
            banner.show_text("failed", f"Connection refused: {error}")
        self.status.emit(f"The host key of {request.target.name} was refused.")
        self.host_keys.refuse(error, request.target.name)
