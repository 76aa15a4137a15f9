"""How far a driver host's clock is from this machine's, measured over its SSH connection.

Several driver hosts start each step at one instant (the agents' start barrier): the desktop
names that instant in each host's own clock, so it must know each clock's offset, and a host
whose clock is far off is refused before the run (issue 18).

The measure: one small process on the host answers each line it reads with its clock
(``time.time()``); the desktop notes its own clock when it sends the line and the time the
answer took. Over several round trips the one with the smallest round trip is kept (the least
delayed by the network and the scheduler): the host read its clock somewhere inside that
round trip, so ``offset = remote - midpoint`` with an uncertainty of half the round trip.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass
from typing import Any, Final

import paramiko

from bench_gui.remote.connection import SSHConnection
from bench_gui.remote.errors import ConnectError, SSHError

# What runs on the host: one line of its clock for each line it reads, until stdin ends.
CLOCK_SCRIPT: Final = (
    "import sys, time\n"
    "for _ in sys.stdin:\n"
    "    sys.stdout.write(repr(time.time()) + '\\n')\n"
    "    sys.stdout.flush()\n"
)
DEFAULT_ROUNDS: Final = 8
MAX_ROUNDS: Final = 1000
# An answer is a float's repr: a line longer than this is not one.
_MAX_LINE: Final = 64


class ClockError(SSHError):
    """The host's clock could not be read (no Python, a wrong answer, a dropped link)."""


class ClockRefused(SSHError):
    """One or more hosts' clocks are further from this machine's than the plan allows."""


@dataclass(frozen=True)
class ClockReading:
    """A host's clock against this machine's: ``offset_ms`` is the host's clock less this
    machine's (positive: the host is ahead), true to within ``uncertainty_ms``."""

    host: str  # the saved SSH target's name
    address: str  # user@host:port
    offset_ms: float
    uncertainty_ms: float
    rtt_ms: float  # the smallest round trip, the one the offset comes from
    rounds: int
    measured_at: float  # this machine's epoch seconds

    def to_dict(self) -> dict[str, Any]:
        """As a session stores it with the run's hosts."""
        return {
            "host": self.host,
            "address": self.address,
            "offset_ms": round(self.offset_ms, 3),
            "uncertainty_ms": round(self.uncertainty_ms, 3),
            "rtt_ms": round(self.rtt_ms, 3),
            "rounds": self.rounds,
            "measured_at": self.measured_at,
        }

    def to_host(self, instant: float) -> float:
        """An instant of this machine's clock (epoch s) in the host's clock: what a go file of
        the agents' start barrier holds (:func:`bench_gui.wire.go_file.go_text`)."""
        return instant + self.offset_ms / 1000.0

    def describe(self) -> str:
        """The offset in words: '12.3 ms ahead of this machine (±0.2 ms)'."""
        side = "ahead of" if self.offset_ms >= 0 else "behind"
        return (
            f"{abs(self.offset_ms):,.1f} ms {side} this machine's (±{self.uncertainty_ms:,.1f} ms)"
        )


def clock_argv(python: str = "python3") -> list[str]:
    """The host's side of the measure, run with the target's Python."""
    return [python, "-u", "-c", CLOCK_SCRIPT]


def measure_clock(
    conn: SSHConnection,
    argv: list[str] | None = None,
    rounds: int = DEFAULT_ROUNDS,
    timeout: float = 10.0,
    python: str = "python3",
) -> ClockReading:
    """The offset of the host's clock from this machine's (see the module docstring).

    ``argv``: the host's clock command (default :func:`clock_argv` with ``python``); it must
    answer each line of stdin with one line holding its clock in epoch seconds. Raises
    :class:`ClockError` naming the host when no reading can be had within ``timeout`` seconds
    per answer.
    """
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"rounds must be from 1 to {MAX_ROUNDS}, got {rounds}")
    command = shlex.join(argv or clock_argv(python))
    host = f"{conn.target.name!r} ({conn.label})"
    started = time.time()
    t0 = time.monotonic()
    chan = conn.exec_channel(command, timeout=timeout)
    best: tuple[float, float] | None = None  # (round trip s, offset s)
    status: int | None = None
    reader = _LineReader(chan, host)
    try:
        chan.settimeout(timeout)
        # One more round than asked: the first answer waits for the process to start.
        for _ in range(rounds + 1):
            sent_wall = time.time()
            sent = time.perf_counter()
            chan.sendall(b"t\n")
            line = reader.line()
            rtt = time.perf_counter() - sent
            remote = _epoch(line, host)
            offset = remote - (sent_wall + rtt / 2.0)
            if best is None or rtt < best[0]:
                best = (rtt, offset)
        chan.shutdown_write()
        status = 0
    except (paramiko.SSHException, OSError, EOFError) as exc:
        if chan.exit_status_ready():  # the command ended: say what it said
            raise ClockError(f"{host} did not tell its clock: {reader.stderr()}") from None
        raise ConnectError(f"the link to {host} failed while reading its clock: {exc}") from None
    finally:
        chan.close()
        conn.log_command(command, status, time.monotonic() - t0, started)
    assert best is not None
    rtt, offset = best
    return ClockReading(
        host=conn.target.name,
        address=conn.label,
        offset_ms=offset * 1000.0,
        uncertainty_ms=rtt * 1000.0 / 2.0,
        rtt_ms=rtt * 1000.0,
        rounds=rounds,
        measured_at=started,
    )


class _LineReader:
    """Lines of a channel's stdout, each within the channel's timeout."""

    def __init__(self, chan: paramiko.Channel, host: str) -> None:
        self.chan = chan
        self.host = host
        self.buffer = b""

    def line(self) -> str:
        while b"\n" not in self.buffer:
            if len(self.buffer) > _MAX_LINE:
                raise ClockError(
                    f"{self.host} answered {self.buffer[:_MAX_LINE]!r}... instead of its clock"
                )
            try:
                data = self.chan.recv(4096)
            except TimeoutError:
                raise ClockError(
                    f"{self.host} did not tell its clock within {self.chan.gettimeout():g} s"
                ) from None
            if not data:
                raise ClockError(f"{self.host} did not tell its clock: {self.stderr()}")
            self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace").strip()

    def stderr(self) -> str:
        """What the command said before it ended (its first line), or its exit status."""
        text = b""
        try:
            while self.chan.recv_stderr_ready():
                text += self.chan.recv_stderr(4096)
        except (paramiko.SSHException, OSError, EOFError):
            pass
        lines = [ln.strip() for ln in text.decode("utf-8", errors="replace").splitlines()]
        lines = [ln for ln in lines if ln]
        if lines:
            return lines[-1][:300]
        if self.chan.exit_status_ready():
            return f"the clock command ended with exit status {self.chan.recv_exit_status()}"
        return "the clock command ended without a word"


def _epoch(line: str, host: str) -> float:
    try:
        value = float(line)
    except ValueError:
        raise ClockError(f"{host} answered {line[:40]!r} instead of its clock") from None
    if not 0.0 < value < 253402300799.0:  # NaN and inf too
        raise ClockError(f"{host} answered {line[:40]!r}, not a time")
    return value


def clock_problem(reading: ClockReading, limit_ms: float) -> str | None:
    """Why the host's clock is refused for a run with several driver hosts, or None.

    Refused when the measured offset is further than ``limit_ms`` from this machine's (the
    plan's ``driver.max_clock_offset_ms``).
    """
    if abs(reading.offset_ms) <= limit_ms:
        return None
    return (
        f"the clock of driver host {reading.host!r} ({reading.address}) is {reading.describe()},"
        " more than the"
        f" plan's limit of {limit_ms:g} ms (driver.max_clock_offset_ms): synchronise it (chrony"
        " or ntpd) or raise the limit"
    )


def clock_doubt(reading: ClockReading, limit_ms: float) -> str | None:
    """A warning when the measure cannot tell the offset within the limit (a slow link: half
    its best round trip is more than ``limit_ms``), or None."""
    if reading.uncertainty_ms <= limit_ms:
        return None
    return (
        f"the clock of driver host {reading.host!r} ({reading.address}) is only known to ±"
        f"{reading.uncertainty_ms:,.1f} ms (its best round trip took {reading.rtt_ms:,.1f} ms),"
        f" more than the limit of {limit_ms:g} ms: the steps may not start together"
    )


def check_clocks(readings: list[ClockReading], limit_ms: float) -> list[str]:
    """Refuse (:class:`ClockRefused`, naming every host too far off) or pass; returns the
    warnings of hosts whose offset cannot be told within the limit."""
    refused = [p for r in readings if (p := clock_problem(r, limit_ms)) is not None]
    if refused:
        raise ClockRefused("; ".join(refused))
    return [d for r in readings if (d := clock_doubt(r, limit_ms)) is not None]
