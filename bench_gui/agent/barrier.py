"""Several driver hosts for one run, the agent's side: the start barrier and the counters role.

With several driver hosts (issue 18) the desktop starts one agent on each, every one with its
part of each step's users. Two things differ from a run on one host:

- **The start barrier** (``--barrier``): before each step the agent writes a ``progress`` event
  of task ``barrier``, stage ``ready`` (with the go file's path), and waits for its go file:
  ``<spool>.go``, holding ``{"step": N, "start_at": T}`` with T in this host's own clock
  (epoch seconds; the desktop measured the offset, :mod:`bench_gui.remote.clock`). The
  step's users are connected before the ready event (ready means connected; they wait idle),
  so T need leave no time for connecting; at T exactly they begin and the step's ramp-up
  starts (a ``progress`` event of stage ``go`` says when it did and how late, ``late_s``,
  which the desktop turns into each step's measured start spread across the hosts), so every
  host's ramp-up and measured window open and close at the same instant. A go file of
  another step (the previous one) is not this step's; a half-written one is read again. No go
  file within the timeout ends the run cleanly: a fatal ``error`` of code ``barrier_timeout``
  naming the step and the file, the finished steps kept. A primary that builds the schema
  first keeps the others waiting (the desktop starts them once it is ready for step 1).
  With ``--desktop-timeout S`` the agent also watches the desktop's heartbeat file
  (``<spool>.beat``, :func:`bench_gui.wire.go_file.beat_path`: the desktop touches it each
  time it probes the run) while it waits: unchanged for S seconds of the wait, the desktop is
  gone (closed, crashed, or its link to this host down longer than the run allows), and the
  run ends the same way with code ``desktop_lost`` instead of holding its users and the run
  lock for the whole barrier timeout.
- **The counters role** (``--role``): only the ``primary`` reads the database's counters
  (NOPM and TPM are the database's, never summed across hosts); a ``secondary`` reports only
  its driver's own counts (its samples carry no ``nopm_db``/``tpm_db``, its step summaries
  null ``nopm``/``tpm``), and leaves the schema to the primary (no build, no facts).

Without either option the agent runs exactly as on one host. Stdlib only: the go file's format
is the contract's (:mod:`bench_gui.wire.go_file`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from bench_gui.agent.engines import Snapshot
from bench_gui.wire.engine_errors import EngineError
from bench_gui.wire.go_file import GO_SUFFIX, beat_path, go_path, read_go

ROLES: Final = ("primary", "secondary")
DEFAULT_TIMEOUT_S: Final = 600.0
# How often the go file is looked for (the start instant itself is waited for exactly).
POLL_S: Final = 0.05


class BarrierTimeout(EngineError):
    """No start signal came for a step within the barrier's timeout."""

    code = "barrier_timeout"


class DesktopLost(BarrierTimeout):
    """The desktop stopped probing the run while this host waited at a step's barrier."""

    code = "desktop_lost"


class Heartbeat:
    """The desktop's heartbeat file, watched while waiting: how long it has not changed.

    Only a change counts (its time, size or inode), never its time against this host's clock,
    so the desktop's clock offset plays no part; a file that is missing or unchanged since the
    watch began is silence from that moment."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._seen = self._stamp()
        self._since = time.monotonic()

    def _stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size, st.st_ino

    def silent_s(self) -> float:
        """Seconds since the file last changed (or since the watch began)."""
        now = time.monotonic()
        stamp = self._stamp()
        if stamp != self._seen:
            self._seen, self._since = stamp, now
        return now - self._since


def wait_until(instant: float, stop: threading.Event) -> bool:
    """Sleep until this host's clock reads ``instant`` (epoch s); False when stopped first.

    Returns only once ``time.time() >= instant``: a step never starts before its instant."""
    while True:
        left = instant - time.time()
        if left <= 0:
            return True
        if stop.wait(min(left, 1.0)):
            return False


@dataclass(frozen=True)
class Coordination:
    """How this agent runs beside others: its role and its barrier ("" and off: one host)."""

    role: str = ""  # "" (one host), "primary" or "secondary"
    go_file: str = ""  # the barrier's go file; "" no barrier
    timeout_s: float = DEFAULT_TIMEOUT_S
    # How long the desktop's heartbeat may stay unchanged while waiting; 0: not watched.
    desktop_timeout_s: float = 0.0

    def __post_init__(self) -> None:
        if self.role not in ("", *ROLES):
            raise ValueError(f"role must be one of {', '.join(ROLES)}, got {self.role!r}")
        if not 0 < self.timeout_s < float("inf"):
            raise ValueError(f"the barrier's timeout must be positive, got {self.timeout_s!r}")
        if not 0 <= self.desktop_timeout_s < float("inf"):
            raise ValueError(
                f"the desktop's timeout must be 0 (not watched) or positive,"
                f" got {self.desktop_timeout_s!r}"
            )

    @property
    def beat_file(self) -> str:
        """The desktop's heartbeat file beside the go file ("" when not watched)."""
        if not self.go_file or not self.desktop_timeout_s:
            return ""
        return beat_path(self.go_file.removesuffix(GO_SUFFIX))

    @property
    def reads_counters(self) -> bool:
        """Whether this agent reads the database's counters (every agent but a secondary)."""
        return self.role != "secondary"

    @property
    def barrier(self) -> bool:
        return bool(self.go_file)

    def hello_fields(self) -> dict[str, Any]:
        """What the ``hello`` says of the role and barrier (nothing on one host)."""
        out: dict[str, Any] = {}
        if self.role:
            out["role"] = self.role
        if self.go_file:
            out["barrier"] = {"go_file": self.go_file, "timeout_s": self.timeout_s}
            if self.beat_file:
                out["barrier"].update(
                    beat_file=self.beat_file, desktop_timeout_s=self.desktop_timeout_s
                )
        return out

    def wait_for_go(
        self,
        index: int,
        vus: int,
        emit: Callable[..., Any],
        stop: threading.Event,
        connect_s: float = 0.0,
    ) -> float | None:
        """Say this host is ready for step ``index`` (its users connected, in ``connect_s``)
        and wait for its go file: the start instant (this host's epoch s), or None when
        stopped. Raises :class:`BarrierTimeout`."""
        emit(
            "progress",
            task="barrier",
            stage="ready",
            step=index,
            vus=vus,
            connected=vus,
            connect_s=round(connect_s, 3),
            go_file=self.go_file,
            timeout_s=self.timeout_s,
            message=f"step {index + 1}: ready, waiting for the start signal",
        )
        deadline = time.monotonic() + self.timeout_s
        heartbeat = Heartbeat(self.beat_file) if self.beat_file else None
        why = ""
        while not stop.is_set():
            start_at, problem = read_go(self.go_file, index)
            if start_at is not None:
                return start_at
            why = problem or why
            silent = heartbeat.silent_s() if heartbeat is not None else 0.0
            if silent >= self.desktop_timeout_s > 0:
                raise DesktopLost(
                    f"step {index + 1} ({vus} VU): the desktop has not probed this run for"
                    f" {silent:.0f} s while it waited for the start signal ({self.beat_file}"
                    " unchanged): it was closed, crashed or lost its link to this host"
                )
            if time.monotonic() >= deadline:
                detail = f" (the go file was there but {why})" if why else ""
                raise BarrierTimeout(
                    f"step {index + 1} ({vus} VU): no start signal within {self.timeout_s:g} s"
                    f" in {self.go_file}{detail}: the other driver hosts did not all get ready,"
                    " or the desktop lost this host"
                )
            stop.wait(POLL_S)
        return None

    def went(
        self, index: int, start_at: float, emit: Callable[..., Any], connect_s: float
    ) -> float:
        """Report the step's start (stage ``go``): when it was due, when it began (this host's
        epoch s, never before it was due) and how long connecting its users took (``late_s``
        past 0: the go file's instant left too little time for that); returns the start."""
        started = time.time()
        emit(
            "progress",
            task="barrier",
            stage="go",
            step=index,
            start_at=start_at,
            started_at=started,
            late_s=round(started - start_at, 6),
            connect_s=round(connect_s, 3),
            message=f"step {index + 1}: started",
        )
        return started


class NoCounters:
    """The counters of a secondary host: it reads no database, so its window opens and closes
    by its own clock, at once (the same interface as the engines' counter readers)."""

    error = ""

    def read(self, wait: float = 0.0) -> Snapshot:
        return Snapshot(t=time.monotonic(), new_orders=0, transactions=0)

    def not_answering_s(self, now: float | None = None) -> float:
        return 0.0

    def close(self) -> None:
        pass


def coordination_from_args(
    role: str | None,
    barrier: bool,
    timeout_s: float,
    spool: str | None,
    desktop_timeout_s: float = 0.0,
) -> Coordination:
    """The agent's options as a :class:`Coordination`; ValueError names a bad one."""
    if barrier and not spool:
        raise ValueError("--barrier needs --spool: the go file is the spool's, beside it")
    if desktop_timeout_s and not barrier:
        raise ValueError("--desktop-timeout is the barrier's: it needs --barrier")
    go_file = go_path(os.path.abspath(spool)) if barrier and spool else ""
    return Coordination(
        role=role or "", go_file=go_file, timeout_s=timeout_s, desktop_timeout_s=desktop_timeout_s
    )
