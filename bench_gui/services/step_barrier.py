"""The step barrier of a run on several driver hosts: when every host is ready for step N, one
start instant a lead time ahead of this machine's clock is written, in each host's own clock,
to each host's go file; each host's real start is kept, and the hosts' spread measured.

After a re-attach, a step whose start the lost desktop gave already (read back from the go
files) is not given again.
"""

from __future__ import annotations

import json
import time
from typing import Any, Final

import paramiko

from bench_gui.remote.connection import SSHConnection
from bench_gui.remote.errors import SSHError
from bench_gui.services.host_links import Host
from bench_gui.services.run_errors import RunError
from bench_gui.wire.go_file import go_text
from bench_gui.wire.protocol import Event

# The start instant of a step: this far ahead of the moment every host was ready (their users
# are connected by then: the lead covers writing the go files and the hosts reading them).
LEAD_S: Final = 1.5
# A step whose hosts began further apart than this (measured: each agent's actual start, in
# this machine's clock) is flagged: its hosts' windows did not cover one span.
START_SPREAD_LIMIT_S: Final = 0.2
# How long a host may wait at a step's barrier: its other hosts' step and ramp-up, at most.
BARRIER_TIMEOUT_S: Final = 600.0
# A host's agent waiting at a barrier ends the run once this desktop has not probed it for the
# plan's max_outage_s and this much more: noticing a cut (an idle probe and its timeout, 10 s),
# the reconnect attempt past the outage (up to 10 s) and the first probe after a restored link
# (5 s of quiet) fit in it, so an agent never gives up on a desktop that has not given up on it.
DESKTOP_SLACK_S: Final = 45.0


def desktop_timeout_s(max_outage_s: float | None) -> float:
    """The agents' ``--desktop-timeout`` for a run whose links may be down ``max_outage_s``
    (None: reconnected for ever, so the desktop is never given up on: 0)."""
    return 0.0 if max_outage_s is None else max_outage_s + DESKTOP_SLACK_S


def write_go(session: SSHConnection, go_file: str, step: int, start_at: float) -> None:
    """Write a step's go file on a host: a temporary name, renamed over it (never read half)."""
    temporary = f"{go_file}.tmp"
    session.put_bytes(go_text(step, start_at).encode(), temporary, 0o600)
    try:
        session.sftp().posix_rename(temporary, go_file)
    except (OSError, paramiko.SSHException, EOFError) as exc:
        raise SSHError(f"cannot write the go file {go_file} on {session.label}: {exc}") from None


def start_spread(step: int, starts: dict[str, tuple[float, float]]) -> dict[str, Any]:
    """How far apart the hosts really began ``step``: ``starts`` is each host's (measured start
    in this machine's clock, through its measured offset; how late past the barrier's instant),
    from its agent's ``go`` event. A ``flag`` when past :data:`START_SPREAD_LIMIT_S`."""
    times = [t for t, _ in starts.values()]
    spread = max(times) - min(times)
    record: dict[str, Any] = {
        "spread_s": round(spread, 4),
        "late_s": {name: round(late, 4) for name, (_, late) in starts.items()},
        "limit_s": START_SPREAD_LIMIT_S,
    }
    if spread > START_SPREAD_LIMIT_S:
        last = max(starts, key=lambda n: starts[n][0])
        record["flag"] = (
            f"step {step + 1}: the driver hosts began {spread:.3f} s apart (more than"
            f" {START_SPREAD_LIMIT_S:g} s; {last!r} last): their windows did not cover one span"
        )
    return record


class StepBarrier:
    """The go files of a run's hosts: who is ready for which step, when each step starts."""

    def __init__(self, hosts: list[Host], lead_s: float = LEAD_S) -> None:
        self.hosts = hosts
        self.lead_s = lead_s
        self.go_instants: dict[int, float] = {}  # step -> this machine's start instant
        self.reattached = False

    def went(self, host: Host, event: Event) -> None:
        """A host's ``go`` (stage of a barrier progress event): when it was told to start and
        when its users really began, in this machine's clock."""
        step = event.get("step")
        if not isinstance(step, int):
            return
        start_at = event.get("start_at")
        if isinstance(start_at, int | float):
            host.go[step] = float(start_at)
        started, late = event.get("started_at"), event.get("late_s")
        if isinstance(started, int | float) and isinstance(late, int | float):
            offset = host.clock.offset_ms / 1000.0 if host.clock is not None else 0.0
            host.started[step] = (float(started) - offset, float(late))

    def ready(self, host: Host, step: int, go_file: str) -> bool:
        """A host is ready for ``step``; whether every host is now."""
        host.ready.add(step)
        host.go_file = go_file or host.go_file
        return all(step in h.ready for h in self.hosts)

    def go(self, step: int) -> str:
        """Give ``step``'s start to every host (unless a lost desktop gave it already); the line
        the run's log says it with."""
        if self.reattached:
            given = self._given(step)
            if given is not None:
                return given
        instant = time.time() + self.lead_s
        self.go_instants[step] = instant
        for host in self.hosts:
            assert host.clock is not None
            self._write_go(host, step, host.clock.to_host(instant))
        return (
            f"step {step + 1}: every driver host ready, start at {instant:.3f}"
            f" ({', '.join(f'{h.name}: {h.clock.describe()}' for h in self.hosts if h.clock)})"
        )

    def _given(self, step: int) -> str | None:
        """On a re-attached run, the start of ``step`` if the lost desktop gave it already (read
        back from the hosts' go files): it is not given again. A host it had not reached yet
        gets the same instant."""
        # Each host's go file: (the step it gives, its start instant in the host's clock).
        read = {h.name: read_go(h) or (-1, 0.0) for h in self.hosts}
        have = [h for h in self.hosts if read[h.name][0] >= step]
        if not have:
            return None
        exact = [h for h in have if read[h.name][0] == step]
        if exact:
            first = exact[0]
            assert first.clock is not None
            instant = read[first.name][1] - first.clock.offset_ms / 1000.0
            self.go_instants[step] = instant
        else:  # every host that has one is past it: the others cannot still wait for it
            instant = time.time() + self.lead_s
        late = [h for h in self.hosts if h not in have]
        for host in late:
            assert host.clock is not None
            self._write_go(host, step, host.clock.to_host(instant))
        sent = f"; sent now to {', '.join(repr(h.name) for h in late)}" if late else ""
        return f"step {step + 1}: started before the re-attach{sent}"

    @staticmethod
    def _write_go(host: Host, step: int, start_at: float) -> None:
        """The go file on one host; a link that was cut is reopened once (a host whose link
        cannot be had is lost: a :class:`RunError` naming it, out of the loop)."""
        try:
            write_go(host.ssh.session(), host.go_file, step, start_at)
        except SSHError:
            host.ssh.close()  # a session the cut left for dead: a new one
            try:
                write_go(host.ssh.session(), host.go_file, step, start_at)
            except SSHError as exc:
                raise RunError(
                    f"driver host {host.name!r} was lost at the start of step {step + 1}: its"
                    f" start signal could not be written: {exc}"
                ) from exc

    def spread(self, step: int) -> dict[str, Any] | None:
        """How the hosts really began ``step`` (:func:`start_spread`); None unless every host
        said."""
        starts = {h.name: h.started[step] for h in self.hosts if step in h.started}
        if len(starts) < len(self.hosts):
            return None
        return start_spread(step, starts)


def read_go(host: Host) -> tuple[int, float] | None:
    """The step and start instant (the host's clock) in a host's go file; None if none."""
    if not host.go_file:
        return None
    try:
        raw = host.ssh.session().read_bytes(host.go_file)
        data = json.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        return None
    except (ValueError, UnicodeDecodeError):
        return None  # never half a file (it is renamed over), so not a go file at all
    if not isinstance(data, dict):
        return None
    step, start_at = data.get("step"), data.get("start_at")
    if isinstance(step, int) and isinstance(start_at, int | float):
        return step, float(start_at)
    return None
