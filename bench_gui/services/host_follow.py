"""Following a run's driver hosts: each host's transport (one host: this machine or its SSH
target; several: each with its role, barrier options and bounded outage), and each host's agent
followed on its own thread into the run's inbox.

The SSH transport reconnects a cut link by itself and keeps probing the agent (the desktop's
heartbeat: an agent of a run on several hosts no desktop has probed for the plan's
``driver.max_outage_s`` ends the run at its next barrier). A host of several whose link cannot
be restored within ``driver.max_outage_s`` ends its follower with the reason, and the run
decides (:mod:`bench_gui.services.run_policy`) whether that fails the run naming the host.
"""

from __future__ import annotations

import logging
import queue
import threading
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from bench_gui.core.multi_driver import first_users
from bench_gui.core.plan_driver_checks import check_driver_hosts_saved
from bench_gui.core.plan_model import Plan, PlanError
from bench_gui.remote.clock import ClockReading, ClockRefused, check_clocks, measure_clock
from bench_gui.remote.connection import CommandLogEntry
from bench_gui.remote.errors import SSHError, UnknownHostKey
from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
from bench_gui.remote.link_retry import over_cuts
from bench_gui.remote.ssh_transport import desktop_identity
from bench_gui.remote.targets import TARGETS_FILE, load_targets
from bench_gui.remote.transport import BadLine, Transport
from bench_gui.services.host_links import Host, HostTransport
from bench_gui.services.run_dirs import session_run
from bench_gui.services.run_errors import HostKeyUnknown, RunError
from bench_gui.services.step_barrier import desktop_timeout_s
from bench_gui.store.paths import data_dir
from bench_gui.wire.protocol import Event

log = logging.getLogger(__name__)
_T = TypeVar("_T")

# What a host's follower puts in the run's inbox: an event or an unreadable line, None at the end.
Inbox = queue.Queue[tuple[Host, Event | BadLine | None]]


def one_host(plan: Plan, transport: Transport, config: dict[str, Any]) -> Host:
    """The one host of a run on one driver host (or this machine)."""
    return Host(plan.driver.target or "local", 0, "primary", transport, config)


def several_hosts(
    plan: Plan,
    config: dict[str, Any],
    accept_fingerprint: str | None,
    link_state: Callable[[str], Callable[[str, str], None]],
    on_command: Callable[[CommandLogEntry], None],
    barrier_timeout_s: float,
    transport_options: dict[str, Any] | None = None,
) -> tuple[list[Host], list[list[int]]]:
    """The hosts of a run over the plan's ``[driver] targets``, and each step's users split
    across them. Unknown target names are one :class:`RunError` naming them all.
    ``link_state(name)``: the host's link-state callback; ``transport_options``: more keyword
    arguments for every host's :class:`HostTransport` (``max_outage`` is the plan's
    ``driver.max_outage_s`` unless given)."""
    names = list(plan.driver.targets)
    try:
        saved = load_targets(data_dir() / TARGETS_FILE)
        check_driver_hosts_saved(plan, list(saved))
    except (PlanError, SSHError) as exc:
        raise RunError(str(exc)) from exc
    try:
        splits = plan.driver.step_splits(list(plan.workload.virtual_users))
    except ValueError as exc:
        raise RunError(str(exc)) from exc
    # Every host's agent holds the database server's run lock in its host's shared folder; the
    # agents of this run on one machine share it by this token.
    config = {**config, "run_token": config.get("run_token") or uuid.uuid4().hex}
    hosts: list[Host] = []
    for index, name in enumerate(names):
        role = "primary" if index == 0 else "secondary"
        options: dict[str, Any] = dict(transport_options or {})
        # A host unreachable for longer fails the run naming it (never reconnects for ever).
        options.setdefault("max_outage", plan.driver.max_outage_s)
        args: tuple[str, ...] = ("--role", role, "--barrier")
        args += ("--barrier-timeout", f"{barrier_timeout_s:g}")
        # ... and an agent whose desktop is gone that long ends the run at its barrier.
        args += ("--desktop-timeout", f"{desktop_timeout_s(options['max_outage']):g}")
        transport = HostTransport(
            saved[name],
            agent_args=args,
            accept_fingerprint=accept_fingerprint,
            known_hosts=data_dir() / APP_KNOWN_HOSTS,
            on_link_state=link_state(name),
            on_command=on_command,
            **options,
        )
        host_config = dict(config)
        host_config["virtual_users"] = [row[index] for row in splits]
        host_config["first_user"] = [first_users(row)[index] for row in splits]
        host_config["total_users"] = list(plan.workload.virtual_users)
        said = f"driver host {name!r}: "
        hosts.append(Host(name, index, role, transport, host_config, said=said))
    return hosts, splits


def named(host: Host, action: Callable[[], _T]) -> _T:
    """``action()``; an SSH failure is said with the host's name (a host key still unknown is
    left as it is: the caller asks about it)."""
    try:
        return action()
    except UnknownHostKey:
        raise
    except SSHError as exc:
        raise RunError(f"{host.said}{exc}") from exc


def follow(host: Host, inbox: Inbox) -> threading.Thread:
    """Follow the host's started agent on a thread of its own: its events into ``inbox``,
    then None. Why following ended early is kept on the host (``why``, ``error``)."""

    def run() -> None:
        assert host.agent is not None
        try:
            for item in host.agent.events():
                inbox.put((host, item))
        except SSHError as exc:
            host.why, host.error = f"its link could not be restored: {exc}", exc
        except Exception as exc:  # said as the host's loss, never silent
            log.exception("following driver host %s", host.name)
            host.why, host.error = f"following it failed: {exc}", exc
        inbox.put((host, None))

    thread = threading.Thread(target=run, name=f"run-host-{host.name}", daemon=True)
    host.thread = thread
    thread.start()
    return thread


def measure_clocks(hosts: list[Host], max_offset_ms: float) -> tuple[list[ClockReading], list[str]]:
    """Every host's clock against this machine's (kept on each host), and the warnings of
    those near the limit; a :class:`RunError` past ``max_offset_ms``."""
    readings = []
    for host in hosts:
        try:
            ssh = host.ssh
            host.clock = measure_clock(ssh.session(), python=ssh.target.python)
        except UnknownHostKey as exc:
            raise HostKeyUnknown(exc) from exc
        except SSHError as exc:
            raise RunError(f"{host.said}{exc}") from exc
        readings.append(host.clock)
    try:
        return readings, check_clocks(readings, max_offset_ms)
    except ClockRefused as exc:
        raise RunError(str(exc)) from exc


def host_run_dirs(
    hosts: list[Host],
    session_id: int,
    created_at: str,
    by_name: bool,
    cancel: threading.Event,
) -> dict[str, str]:
    """Each host's run directory of the session (its newest, of this desktop); ``by_name``:
    only a run started through the host's saved target (several hosts may share a machine).
    A host without one is a :class:`RunError` naming it."""
    me = desktop_identity()
    found: dict[str, str] = {}
    for host in hosts:
        ssh = host.ssh
        try:
            runs = over_cuts(ssh, ssh.list_runs, cancel=cancel)
        except SSHError as exc:
            raise RunError(f"{host.said}{exc}") from exc
        match = session_run(runs, session_id, created_at, me, target=host.name if by_name else "")
        if match is None:
            if not host.said:
                raise RunError(f"no run of session {session_id} on {host.name}")
            raise RunError(
                f"{host.said}no run of session {session_id} there (its run directory is gone):"
                " the run cannot be followed again"
            )
        found[host.name] = match.run_dir
    return found
