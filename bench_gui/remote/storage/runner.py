"""What storage work needs of a session (:class:`Runner`) and how one is opened.

An SSH connection and :class:`LocalShell` (this machine) both are a runner, so discovery and
the steps of a plan run the same way on either, each command landing in the command log.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from bench_gui.remote.connection import DEFAULT_TIMEOUT, CommandLogEntry, CommandResult
from bench_gui.remote.local_shell import LOCAL_TARGET, LocalShell


class Runner(Protocol):
    """What storage work needs of a session: SSHConnection and LocalShell both are one."""

    @property
    def label(self) -> str: ...

    @property
    def host(self) -> str: ...

    @property
    def user(self) -> str: ...

    command_log: list[CommandLogEntry]

    def run(
        self,
        argv: list[str],
        sudo: bool = False,
        timeout: float = 60.0,
        input: str | bytes | None = None,
        check: bool = False,
    ) -> CommandResult: ...

    def read_bytes(self, path: str, offset: int = 0, limit: int | None = None) -> bytes: ...

    def close(self) -> None: ...

    def log_command(
        self, command: str, exit_status: int | None, duration: float, started: float
    ) -> CommandLogEntry: ...


def open_runner(
    target: str,
    *,
    targets_file: Path,
    known_hosts: Path | None = None,
    accept_fingerprint: str | None = None,
    on_command: Callable[[CommandLogEntry], None] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> Runner:
    """A session to ``target``: "local" is this machine, anything else a saved SSH target."""
    if target == LOCAL_TARGET:
        return LocalShell(on_command=on_command)
    from bench_gui.remote.connection import connect
    from bench_gui.remote.targets import get_target

    ssh_target = get_target(target, targets_file)
    return connect(
        ssh_target, accept_fingerprint, timeout, known_hosts=known_hosts, on_command=on_command
    )
