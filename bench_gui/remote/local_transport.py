"""Local transport: the agent runs as a subprocess on this machine.

The agent gets its own session (process group), so Stop can reach every worker process it
started, and a crash of the desktop side does not take a run's bookkeeping down with it: the
agent also writes every event to a spool file in the run's directory.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from bench_gui.core.events import SeqGuard, Verdict
from bench_gui.remote.transport import (
    LOCK_HOLDER_ENV,
    AgentRun,
    BadLine,
    Transport,
    desktop_identity,
)
from bench_gui.wire.protocol import MAX_LINE_BYTES, Event, ProtocolError, decode_line


def _lines(stream: IO[bytes], limit: int) -> Iterator[tuple[bytes, int]]:
    """The lines of a byte stream (without their newline) and their lengths; a line longer
    than ``limit`` is read in pieces and comes as its first 200 bytes with its real length."""
    skipped, head = 0, b""
    while raw := stream.readline(limit + 1):
        body = raw[:-1] if raw.endswith(b"\n") else raw
        if skipped or len(body) > limit:
            head = head or body[:200]
            skipped += len(body)
            if len(body) < len(raw):  # its newline: the long line is over
                yield head, skipped
                skipped, head = 0, b""
            continue
        yield body, len(body)
    if skipped:
        yield head, skipped


def _passed(verdict: Verdict) -> Event | BadLine:
    if verdict.problem is None:
        return verdict.event
    return BadLine(verdict.line, ProtocolError(verdict.problem))


class LocalAgentRun(AgentRun):
    # A longer line of output is skipped as it is read, then reported as one bad line.
    max_line_bytes = MAX_LINE_BYTES

    def __init__(self, run_dir: Path, config: dict[str, Any], env: dict[str, str]) -> None:
        self.run_dir = run_dir
        run_dir.mkdir(parents=True, exist_ok=True)
        self.config_path = run_dir / "config.json"
        self.config_path.write_text(json.dumps(config, indent=1), encoding="utf-8")
        self.spool_path = run_dir / "events.jsonl"
        self.stderr_path = run_dir / "agent.stderr"
        child_env = dict(os.environ)
        # The database password is the one the run resolved and said (``env``), never the
        # desktop's own PGPASSWORD, which libpq would send to whatever host the plan names
        # (nor its BENCH_GUI_DB_PASSWORD, the ODBC engines' equivalent).
        child_env.pop("PGPASSWORD", None)
        child_env.pop("BENCH_GUI_DB_PASSWORD", None)
        # Nor the desktop's variable the plan took it from (password_env): the agent and its
        # users' processes get it through a pipe only.
        secrets = {value for value in env.values() if value}
        child_env = {k: v for k, v in child_env.items() if v not in secrets}
        child_env.setdefault("PYTHONUNBUFFERED", "1")
        # The agent takes its server's run lock in the host's shared lock folder, as an agent
        # started over SSH does; this says who started it.
        child_env[LOCK_HOLDER_ENV] = desktop_identity()
        with open(self.stderr_path, "wb") as stderr:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "bench_gui.agent",
                    "--config",
                    str(self.config_path),
                    "--spool",
                    str(self.spool_path),
                    "--env-stdin",
                ],
                # The secrets (``env``) through a pipe: never in its environment nor on disk.
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=child_env,
                start_new_session=True,
            )
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(env).encode() + b"\n")
            self.proc.stdin.close()
        except BrokenPipeError:
            pass  # the agent ended at once: its stderr says why

    def events(self) -> Iterator[Event | BadLine]:
        """The agent's stdout as events. Never raises on what it holds: a line that is not an
        event, repeats or jumps its seq, or is longer than :attr:`max_line_bytes` (read in
        pieces, never whole) is one :class:`BadLine`."""
        stdout = self.proc.stdout
        assert stdout is not None
        guard = SeqGuard()
        for raw, size in _lines(stdout, self.max_line_bytes):
            if size > self.max_line_bytes:
                problem = f"line of {size:,} bytes, longer than {self.max_line_bytes:,}: skipped"
                yield BadLine(raw.decode("utf-8", errors="replace") + "…", ProtocolError(problem))
                continue
            text = raw.decode("utf-8", errors="replace")
            if not text.strip():
                continue
            try:
                event = decode_line(text)
            except ProtocolError as exc:
                yield BadLine(text, exc)
                continue
            for verdict in guard.push(event, text):
                yield _passed(verdict)
        for verdict in guard.flush():
            yield _passed(verdict)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()

    def wait(self, timeout: float | None = None) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def diagnostics(self) -> str:
        try:
            text = self.stderr_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return text[-4000:]


class LocalTransport(Transport):
    """Runs the agent on this machine, with run directories under ``runs_dir``."""

    name = "local"

    def __init__(self, runs_dir: Path) -> None:
        self.runs_dir = runs_dir

    def start_agent(self, config: dict[str, Any], env: dict[str, str]) -> LocalAgentRun:
        run_dir = self.runs_dir / uuid.uuid4().hex[:12]
        return LocalAgentRun(run_dir, config, env)
