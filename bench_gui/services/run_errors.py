"""The errors a run of a plan raises (on one driver host or several): their messages are meant
for the user, and the GUI and the CLI catch these rather than the layers below."""

from __future__ import annotations

from bench_gui.remote.errors import UnknownHostKey


class RunError(RuntimeError):
    """A run that could not start or ended in failure; the message is meant for the user."""


class HostKeyUnknown(RunError):
    """The driver host's key is not known yet: show its fingerprint, let the user accept it."""

    def __init__(self, error: UnknownHostKey) -> None:
        super().__init__(str(error))
        self.host = error.host
        self.key_type = error.key_type
        self.fingerprint = error.fingerprint_sha256
