"""The event protocol shared by the agent (driver host) and the desktop side.

This is the one module both ends import: it must stay stdlib-only so the agent can be shipped
to a driver host on its own. Events are JSON lines; every event carries the protocol version,
a sequence number (strictly increasing per run, so a reader that resumes after a dropped link
can skip what it already has) and a wall-clock timestamp.

Event kinds and their payload fields:

- ``hello``: ``agent_version``, ``engine``, ``server`` (version string), ``settings``
  (non-default server settings), ``config`` (the run configuration, secrets removed), ``pid``.
- ``progress``: ``task`` (e.g. ``"build"``), ``done``, ``total``, ``unit``, ``rate``, ``message``.
  Task ``idle`` is the idle power baseline before the first step: one a second, with ``host``
  and ``power`` as in a sample.
- ``sample``: one a second while a step runs: ``step``, ``vus``, ``phase`` (``rampup`` or
  ``measure``), ``elapsed`` (s since the step began), ``remaining`` (s left in the step),
  ``counts`` {tx: n}, ``rollbacks`` (New-Order 1% rollbacks), ``errors`` {kind: n},
  ``latency_ms`` {tx: {avg, p50, p95, p99, p999, max}} for that second, ``nopm_driver`` and
  ``tpm_driver`` (the second's driver rate, per minute), ``nopm_db`` and ``tpm_db`` (the
  rate of the database counters over the last second, when the monitor read them).
  With host metrics on, ``host`` (:data:`HOST_FIELDS`): ``cpu`` {user, system, iowait, idle,
  steal} in percent of the second (``sockets`` {id: {...}} on multi-socket hosts), ``disks``
  {device: {r_iops, w_iops, r_mbs, w_mbs, r_await, w_await, await, aqu_sz, util}} (MB are
  10^6 bytes, awaits in ms), ``disk_total`` (the same, each I/O counted once: never a partition
  plus its disk, nor an array plus its members), ``mem`` {used_mb, cache_mb, dirty_mb,
  writeback_mb, total_mb}. With a power meter, ``power`` {``watts`` (the latest reading, null
  when stale), ``error`` (the meter's last failure, if any)}.
- ``step``: ``phase`` (``start`` or ``end``), ``step``, ``vus``; on ``end`` a ``summary``
  (see :data:`STEP_SUMMARY_FIELDS`).
- ``summary``: ``steps`` (list of step summaries), ``status``.
- ``log``: ``level``, ``message``.
- ``error``: ``message``, ``fatal`` (bool), optionally ``code``.
- ``done``: ``status`` (``ok``, ``stopped``, ``failed``), ``message``.
"""

from __future__ import annotations

import json
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Final

PROTOCOL_VERSION: Final = 1

EVENT_KINDS: Final = frozenset(
    {"hello", "progress", "sample", "step", "summary", "log", "error", "done"}
)


@dataclass(frozen=True)
class TxType:
    """One TPROC-C transaction type: key, display label, and its share of HammerDB's U[1,23]."""

    key: str
    label: str
    weight: int


# The one table of transaction types. Order is display order; weights follow HammerDB's
# draw U[1,23]: 1-10 New-Order, 11-20 Payment, 21 Delivery, 22 Stock-Level, 23 Order-Status.
TX_TYPES: Final[tuple[TxType, ...]] = (
    TxType("new_order", "New-Order", 10),
    TxType("payment", "Payment", 10),
    TxType("delivery", "Delivery", 1),
    TxType("stock_level", "Stock-Level", 1),
    TxType("order_status", "Order-Status", 1),
)
TX_KEYS: Final[tuple[str, ...]] = tuple(t.key for t in TX_TYPES)
TX_LABELS: Final[dict[str, str]] = {t.key: t.label for t in TX_TYPES}
TX_WEIGHT_TOTAL: Final = sum(t.weight for t in TX_TYPES)

# Latency statistics reported for every transaction type (milliseconds).
LATENCY_FIELDS: Final = ("avg", "p50", "p95", "p99", "p999", "max")
# Percentiles behind the p-fields above.
PERCENTILES: Final = {"p50": 50.0, "p95": 95.0, "p99": 99.0, "p999": 99.9}

# Fields of a step summary (``step`` end events and the ``summary`` event).
STEP_SUMMARY_FIELDS: Final = (
    "step",  # index in the sweep, from 0
    "vus",  # virtual users
    "nopm",  # from the database's district counters (HammerDB's way)
    "tpm",  # from the database's commit + rollback counters
    "nopm_driver",  # the driver's own count of committed New-Orders, per minute
    "window_s",  # the real measured window, seconds
    "rampup_s",
    "counts",  # {tx: committed transactions in the window}
    "rollbacks",  # New-Order rollbacks (the 1%), not counted as new orders
    "errors",  # {kind: n}
    "latency_ms",  # {tx: {avg,...}, "all": {...}}
    "histograms",  # {tx: base64 HDR histogram (microseconds)} for later merging
    "complete",  # False when the step was stopped before its window ended
    # With host metrics or a power meter (absent otherwise):
    "window_t0",  # wall-clock time (epoch s) the measured window opened...
    "window_t1",  # ...and closed: a power log imported later is integrated between them
    "host",  # host metrics over exactly the window (same shape as a sample's ``host``)
    "power_w",  # average power over exactly the window, integrated (null: not covered)
    "energy_j",  # energy of the window: power_w x window_s
    "mw_per_nopm",  # 1000 x power_w / nopm
    "j_per_new_order",  # 60 x power_w / nopm
    "idle_power_w",  # the idle baseline measured before the first step
    "power_meter",  # ipmi, redfish, rapl, csv...
    "power_scope",  # "wall" (the whole system) or "cpu" (RAPL: CPU package + DRAM only)
    "power_label",  # what was measured, in words
    "power_readings",  # meter readings inside the window
    "power_error",  # why power_w is null
)

# Sections of a sample's ``host`` field.
HOST_FIELDS: Final = ("cpu", "disks", "disk_total", "mem")
CPU_FIELDS: Final = ("user", "system", "iowait", "idle", "steal")
DISK_FIELDS: Final = (
    "r_iops",
    "w_iops",
    "r_mbs",
    "w_mbs",
    "r_await",
    "w_await",
    "await",
    "aqu_sz",
    "util",
)
MEMORY_FIELDS: Final = ("used_mb", "cache_mb", "dirty_mb", "writeback_mb", "total_mb")


# The longest line a reader takes (a summary with every step's histograms stays far below);
# a longer one is reported as a bad line without being parsed.
MAX_LINE_BYTES: Final = 16 * 1024 * 1024
# Sequence numbers and integer fields must fit a signed 64-bit integer (SQLite's INTEGER).
INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1
# Timestamps are epoch seconds up to the end of year 9999 (what datetime can show).
MAX_TIMESTAMP: Final = 253402300799.0


class ProtocolError(ValueError):
    """A line that is not a valid event of this protocol."""


def show_value(value: Any) -> str:
    """A short description of a bad value for an error message: never a huge or deep repr."""
    if value is None or isinstance(value, bool | float):
        return repr(value)
    if isinstance(value, int):
        if -(10**30) < value < 10**30:
            return repr(value)
        return f"an integer of about {int((value.bit_length() - 1) * 0.30102999566) + 1} digits"
    if isinstance(value, str):
        return repr(value[:40] + "…") if len(value) > 40 else repr(value)
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


@dataclass
class Event:
    """One decoded event: the common header plus its kind-specific payload."""

    kind: str
    seq: int
    t: float
    data: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def to_line(self) -> str:
        return encode_event(self.kind, self.seq, self.t, **self.data)


def encode_event(kind: str, seq: int, t: float | None = None, **data: Any) -> str:
    """Serialise one event as a single JSON line (without the trailing newline)."""
    if kind not in EVENT_KINDS:
        raise ProtocolError(f"unknown event kind {kind!r}")
    body: dict[str, Any] = {"v": PROTOCOL_VERSION, "seq": seq, "t": time.time() if t is None else t}
    body["kind"] = kind
    body.update(data)
    return json.dumps(body, separators=(",", ":"), allow_nan=False)


def decode_line(line: str | bytes) -> Event:
    """Parse one JSON line into an :class:`Event`; raise :class:`ProtocolError` if it is not one.

    Total: whatever the line holds (deep nesting, numbers of thousands of digits, a huge line),
    the only exception is :class:`ProtocolError`. Only the header is checked here (``seq`` an
    integer of 64 bits, ``t`` a finite time); the payload is the reader's to check.
    """
    if len(line) > MAX_LINE_BYTES:
        raise ProtocolError(f"line of {len(line):,} bytes, longer than {MAX_LINE_BYTES:,}")
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"not UTF-8: {exc}") from exc
    text = line.strip()
    if not text:
        raise ProtocolError("empty line")
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProtocolError(f"not JSON: {exc.msg} at column {exc.colno}") from exc
    except RecursionError:
        raise ProtocolError("not an event: nested too deeply") from None
    except ValueError as exc:  # an integer past Python's digit limit for int(str)
        raise ProtocolError(f"not JSON this reader takes: {exc}") from None
    if not isinstance(body, dict):
        raise ProtocolError("not a JSON object")
    version = body.pop("v", None)
    if type(version) is not int or version != PROTOCOL_VERSION:
        raise ProtocolError(f"protocol version {show_value(version)}, expected {PROTOCOL_VERSION}")
    kind = body.pop("kind", None)
    if not isinstance(kind, str) or kind not in EVENT_KINDS:
        raise ProtocolError(f"unknown event kind {show_value(kind)}")
    seq = body.pop("seq", None)
    if type(seq) is not int or not 0 <= seq <= INT64_MAX:
        raise ProtocolError(f"bad sequence number {show_value(seq)}")
    t = body.pop("t", None)
    if type(t) not in (int, float) or not (0.0 <= t <= MAX_TIMESTAMP):  # NaN fails too
        raise ProtocolError(f"bad timestamp {show_value(t)}")
    return Event(kind=kind, seq=seq, t=float(t), data=body)


class EventWriter:
    """Numbers events and writes each as a line to every sink (stdout, a spool file...).

    Each write is flushed at once: the reader on the other end follows the stream live, and a
    crash of the agent must not lose what it already measured.
    """

    def __init__(self, *sinks: Any, start_seq: int = 1) -> None:
        self._sinks = list(sinks)
        self._seq = start_seq

    @property
    def next_seq(self) -> int:
        return self._seq

    def emit(self, kind: str, **data: Any) -> int:
        seq = self._seq
        line = encode_event(kind, seq, **data) + "\n"
        for sink in self._sinks:
            try:
                sink.write(line)
                sink.flush()
            except (BrokenPipeError, ValueError, OSError):
                # A reader that went away (closed pipe) must not stop the run: the spool file
                # still has every event.
                continue
        self._seq += 1
        return seq

    def crash(self, exc: BaseException) -> int:
        """An agent's top level ending on an error nobody expected: a fatal error event with
        the traceback, then ``done`` failed. Returns the agent's exit status for it (3)."""
        self.emit(
            "error",
            message=f"{type(exc).__name__}: {exc}",
            fatal=True,
            traceback=traceback.format_exc(),
        )
        self.emit("done", status="failed", message=str(exc))
        return 3
