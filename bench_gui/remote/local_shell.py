"""This machine as a target: commands with the interface of :class:`SSHConnection`, run here.

Storage preparation and database placement work on "local" (the target named ``local``) the way
they work over SSH: :meth:`LocalShell.run` takes an argument list (never a shell string),
wraps it for root with ``sudo -n`` when this process is not root, and records every command in
the same redacted command log as an SSH session. Output goes through temporary files, not
pipes: a server started by a command (``pg_ctl start``) keeps the descriptors it inherited, and
a pipe would never see end-of-file.
"""

from __future__ import annotations

import getpass
import os
import shlex
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Final

from bench_gui.remote.connection import CommandLogEntry, CommandLogging, CommandResult, Redactor
from bench_gui.remote.errors import CommandTimeout, NoSudo, SSHError

LOCAL_TARGET: Final = "local"


class LocalShell(CommandLogging):
    """Runs commands on this machine; same ``run`` contract and command log as SSHConnection."""

    def __init__(self, on_command: Callable[[CommandLogEntry], None] | None = None) -> None:
        self.on_command = on_command
        self.command_log: list[CommandLogEntry] = []
        self.redact = Redactor()
        self.user = getpass.getuser()
        self.host = socket.gethostname()
        self.label = f"{self.user}@{self.host} (this machine)"

    def __enter__(self) -> LocalShell:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing to close; here for the session interface."""

    def is_active(self) -> bool:
        return True

    def sudo_argv(self, argv: list[str]) -> list[str]:
        if os.geteuid() == 0:
            return list(argv)
        return ["sudo", "-n", "--", *argv]

    def run(
        self,
        argv: list[str],
        sudo: bool = False,
        timeout: float = 60.0,
        input: str | bytes | None = None,
        check: bool = False,
    ) -> CommandResult:
        """Run a command here and wait for it; ``check`` raises :class:`SSHError` on failure."""
        if not argv:
            raise ValueError("empty command")
        full = self.sudo_argv(list(argv)) if sudo else list(argv)
        command = shlex.join(full)
        data = input.encode() if isinstance(input, str) else input
        started = time.time()
        t0 = time.monotonic()
        status: int | None = None
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                proc = subprocess.Popen(
                    full,
                    stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    cwd="/",
                    start_new_session=True,
                )
            except FileNotFoundError as exc:
                self.log_command(command, 127, time.monotonic() - t0, started)
                return CommandResult(list(argv), 127, "", f"{full[0]}: {exc.strerror}", 0.0)
            try:
                proc.communicate(data, timeout=timeout)
                status = proc.returncode
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    proc.kill()
                proc.wait()
                raise CommandTimeout(
                    f"{self.redact(shlex.join(argv))[:200]} did not finish within {timeout:g} s"
                    " on this machine"
                ) from None
            finally:
                duration = time.monotonic() - t0
                self.log_command(command, status, duration, started)
            out.seek(0)
            err.seek(0)
            result = CommandResult(
                argv=list(argv),
                exit_status=proc.returncode,
                stdout=out.read().decode("utf-8", errors="replace"),
                stderr=err.read().decode("utf-8", errors="replace"),
                duration=duration,
            )
        if sudo and os.geteuid() != 0 and result.exit_status != 0 and "sudo:" in result.stderr:
            raise NoSudo(
                f"sudo refused on this machine for {self.user}: {result.first_error_line()}"
            )
        if check and result.exit_status != 0:
            raise SSHError(
                f"{self.redact(shlex.join(argv))[:200]} failed on this machine"
                f" (exit {result.exit_status}): {self.redact(result.first_error_line())}"
            )
        return result

    def read_bytes(self, path: str, offset: int = 0, limit: int | None = None) -> bytes:
        """Read (part of) a file; not logged (reads change nothing)."""
        with open(path, "rb") as fh:
            if offset:
                fh.seek(offset)
            return fh.read(limit) if limit is not None else fh.read()
