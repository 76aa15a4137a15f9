"""The transport seam: how the desktop side starts an agent and follows its event stream.

A transport starts ``python -m bench_gui.agent`` somewhere (this machine now; a driver host
over SSH next) and yields its events in order. Lines that are not valid events are reported,
never fatal.
"""

from __future__ import annotations

import getpass
import socket
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from bench_gui.wire.protocol import Event, ProtocolError

# The environment variable that tells the agent who started it, for its run lock's "held by".
LOCK_HOLDER_ENV: Final = "BENCH_GUI_LOCK_HOLDER"


def desktop_identity() -> str:
    """``user@host`` of this desktop: who started a run, as its lock and run folder say."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no login name and no passwd entry for this uid
        user = "?"
    return f"{user}@{socket.gethostname()}"


@dataclass
class BadLine:
    """A line of agent output that is not a protocol event, kept for the user to see."""

    text: str
    error: ProtocolError


class AgentRun(ABC):
    """One running agent."""

    @abstractmethod
    def events(self) -> Iterator[Event | BadLine]:
        """Events as they arrive, until the agent's stream ends."""

    @abstractmethod
    def stop(self) -> None:
        """Ask the agent to end cleanly (it still emits its summary and ``done``)."""

    @abstractmethod
    def kill(self) -> None:
        """End the agent and all its processes now."""

    @abstractmethod
    def wait(self, timeout: float | None = None) -> int | None:
        """Exit status, or None if still running after ``timeout``."""

    @abstractmethod
    def diagnostics(self) -> str:
        """What the agent wrote besides events (stderr), for error messages."""


class Transport(ABC):
    """Starts agents on one host."""

    name: str = "transport"

    @abstractmethod
    def start_agent(self, config: dict[str, Any], env: dict[str, str]) -> AgentRun:
        """Start an agent with this run configuration and extra environment (secrets)."""
