"""The session a run records into, shared by everything that runs it (the controller, the
hosts of a run on several): its id once created, its log, and its end."""

from __future__ import annotations

from bench_gui.remote.connection import CommandLogEntry
from bench_gui.services.run_events import shown
from bench_gui.store import SessionStore
from bench_gui.wire.protocol import Event


class RunSession:
    """A run's stored session; nothing is stored before :attr:`id` is set."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self.id: int | None = None

    @property
    def sid(self) -> int:
        """The id, once the session exists (a run's later stages need it)."""
        assert self.id is not None
        return self.id

    def log(self, level: str, message: str) -> Event:
        """A line of the runner's own: kept in the session log, and shown (not numbered)."""
        if self.id is not None:
            self.store.add_log(self.id, level, message)
        return shown(level, message)

    def command(self, entry: CommandLogEntry) -> None:
        """Every command run on a target is kept with the session (secrets redacted)."""
        if self.id is not None:
            self.store.add_log(self.id, "command", entry.format())

    def link(self, state: str, detail: str) -> None:
        """A driver link that dropped or came back."""
        if self.id is not None:
            self.store.add_log(self.id, "link", f"{state}: {detail}")

    def finish(self, status: str, message: str) -> None:
        if self.id is not None:
            self.store.finish_run(self.id, status, message)

    def status(self) -> str:
        """The stored session's status ("running" until it is finished)."""
        return self.store.get_run(self.sid).status

    def has_steps(self) -> bool:
        """Whether the session stored a measured step."""
        return bool(self.store.steps(self.sid))
