"""The links to a run's driver hosts: the SSH transport of each (one host, or one of several
with its role and barrier options), the host as the run follows it (one host is this machine or
an SSH target), and each host's inventory over its own connection.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from bench_gui.remote.clock import ClockReading
from bench_gui.remote.connection import CommandLogEntry
from bench_gui.remote.deploy import Deployment
from bench_gui.remote.errors import SSHError
from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
from bench_gui.remote.inventory import Shell, collect_inventory
from bench_gui.remote.ssh_transport import SSHTransport
from bench_gui.remote.targets import TARGETS_FILE, get_target
from bench_gui.remote.transport import AgentRun, Transport
from bench_gui.services.run_errors import RunError
from bench_gui.store.paths import data_dir
from bench_gui.wire.protocol import Event


def ssh_transport(
    name: str,
    accept_fingerprint: str | None = None,
    on_link_state: Callable[[str, str], None] | None = None,
    on_command: Callable[[CommandLogEntry], None] | None = None,
) -> SSHTransport:
    """The transport to a saved SSH target, with the app's own known-hosts file."""
    try:
        target = get_target(name, data_dir() / TARGETS_FILE)
    except SSHError as exc:
        raise RunError(str(exc)) from exc
    return SSHTransport(
        target,
        accept_fingerprint=accept_fingerprint,
        known_hosts=data_dir() / APP_KNOWN_HOSTS,
        on_link_state=on_link_state,
        on_command=on_command,
    )


@dataclass(frozen=True)
class _RoleDeployment(Deployment):
    """The deployed agent, started with this host's role and barrier options."""

    extra: tuple[str, ...] = ()

    def command(self, *args: str) -> list[str]:
        return super().command(*args, *self.extra)


class HostTransport(SSHTransport):
    """The SSH transport of one of several driver hosts: its agent gets ``agent_args`` (role,
    barrier) after the usual ones."""

    def __init__(self, *args: Any, agent_args: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.agent_args = tuple(agent_args)

    def deploy(self) -> Deployment:
        base = super().deploy()
        values = {f.name: getattr(base, f.name) for f in fields(base)}
        self.deployment = _RoleDeployment(**values, extra=self.agent_args)
        return self.deployment


def unreadable(inventory: dict[str, Any]) -> str:
    """Why an inventory tells nothing of its host ("" when it does): none of the CPU, the
    memory or the kernel could be read (each command failed; its notes say why)."""
    if any(inventory.get(part) for part in ("cpu", "memory", "kernel")):
        return ""
    notes = [str(n) for n in inventory.get("notes") or []]
    return "; ".join(notes[:3]) or "no CPU, memory or kernel could be read"


def host_inventory(shell: Shell, name: str, role: str) -> tuple[dict[str, Any] | None, str]:
    """A driver host's inventory over its own ``shell`` (the single-host collector), marked
    with the host's name and role: ``(inventory, "")``, or ``(None, a warning naming the
    host)`` when it cannot be read (an SSH failure, or nothing of the host readable)."""
    try:
        inventory = collect_inventory(shell)
    except (SSHError, OSError) as exc:
        return None, f"driver host {name!r}: no inventory: {exc}"
    why = unreadable(inventory)
    if why:
        return None, f"driver host {name!r}: no inventory: {why}"
    inventory["collected_on"] = name
    inventory["role"] = role
    return inventory, ""


@dataclass
class Host:
    """One driver host of the run, as the run follows it (a run on one host has one, which
    may be this machine)."""

    name: str
    index: int
    role: str
    transport: Transport
    config: dict[str, Any]
    said: str = ""  # what names the host in what is said of it ("" on a run on one host)
    clock: ClockReading | None = None
    agent: AgentRun | None = None
    thread: threading.Thread | None = None
    ended: bool = False
    final: Event | None = None
    lost: str = ""  # why the host was lost ("" while it is not)
    why: str = ""  # why following the host ended before its agent did ("" if it did not)
    error: Exception | None = None  # what ended following it early (None if nothing did)
    go_file: str = ""
    ready: set[int] = field(default_factory=set)
    go: dict[int, float] = field(default_factory=dict)  # step -> start_at, the host's clock
    # step -> (when the host's users really began, this machine's clock; how late, s)
    started: dict[int, tuple[float, float]] = field(default_factory=dict)

    @property
    def ssh(self) -> SSHTransport:
        """The host's SSH transport (a run's barrier, clocks and inventory need one)."""
        if not isinstance(self.transport, SSHTransport):
            raise RunError(f"{self.said or 'the driver host: '}not an SSH target")
        return self.transport
