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
from typing import Any

from bench_gui.agent.protocol import Event, ProtocolError, decode_line
from bench_gui.remote.transport import AgentRun, BadLine, Transport


class LocalAgentRun(AgentRun):
    def __init__(self, run_dir: Path, config: dict[str, Any], env: dict[str, str]) -> None:
        self.run_dir = run_dir
        run_dir.mkdir(parents=True, exist_ok=True)
        self.config_path = run_dir / "config.json"
        self.config_path.write_text(json.dumps(config, indent=1), encoding="utf-8")
        self.spool_path = run_dir / "events.jsonl"
        self.stderr_path = run_dir / "agent.stderr"
        child_env = dict(os.environ)
        child_env.update(env)
        child_env.setdefault("PYTHONUNBUFFERED", "1")
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
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=child_env,
                start_new_session=True,
            )

    def events(self) -> Iterator[Event | BadLine]:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            text = raw.decode("utf-8", errors="replace").rstrip("\n")
            if not text.strip():
                continue
            try:
                yield decode_line(text)
            except ProtocolError as exc:
                yield BadLine(text, exc)
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
