"""Agent events entering the desktop: checked here, once, before anything stores, prints or
charts them. Pure: no I/O, nothing but :mod:`bench_gui.wire.protocol`.

A line that parses (:func:`~bench_gui.wire.protocol.decode_line` checks the header: kind,
``seq``, ``t``) can still be wrong in two ways, and each has its rule here:

**Its place in the stream** (:class:`SeqGuard`, used by the transports' followers). The agent
numbers its events 1, 2, 3... An event with the next number passes at once. One that repeats or
goes back (``seq`` at or below the last one) is a bad line. One that jumps ahead is *held* until
the next event says which it was: if the next goes on from it (``seq + 1``, or a little later
when the lines between are corrupt too), the stream really moved on (the agent failed to write
some lines to its spool) and both pass; if the next goes on from before it (at or below the
jump), the jump was a corrupt line and is reported as one bad line. A jump the stream goes on
from must still be plausible, judged against the last *accepted* seq and the stream's own rate
(:meth:`SeqGuard.plausible_gap`: what the agent writes between the two events' times), so a
forged pair of far-future seqs (the second "going on" from the first) costs its two lines too.
So a single ``seq`` of 999999999 costs exactly that line, never the rest of the run, and the
high-water mark the store resumes from is never poisoned. At the end of the stream a held event
passes when its jump is plausible, else it is a bad line. Events the reader has (``have``, or
all at or below the point a re-attach resumes from, ``resume_after``) are passed over silently.

**Its payload** (:func:`check_event`, called by the run controller on every event). Each kind's
fields have a type and a range (see ``_KINDS``); numbers must be finite and fit 64 bits, strings
must be valid Unicode, nesting is at most :data:`MAX_DEPTH` deep. The rule for a bad field:

- a field that says *what the event is* (a step's ``phase``, ``step`` and ``vus``; a sample's
  ``step`` and ``vus``; a log line's ``message``) makes the whole event a bad line: stored or
  charted with a made-up value, it would put numbers in the wrong step;
- any other bad field is dropped, with one warning naming each dropped field, and the rest of
  the event is kept: a sample with one NaN latency still carries that second's counts and NOPM,
  a step summary with a broken power figure still carries the step's NOPM a comparison needs.
  Lone surrogates in a string are replaced by U+FFFD (the text is kept), and a step summary whose
  ``complete`` is not true/false is taken as incomplete (never claim what was not reported).

Unknown fields are kept (newer agents add some), scrubbed by the same number/string/depth rules.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from bench_gui.core.echo import echoed, listed
from bench_gui.wire.protocol import (
    CPU_FIELDS,
    DISK_FIELDS,
    EVENT_KINDS,
    INT64_MAX,
    INT64_MIN,
    LATENCY_FIELDS,
    MAX_TIMESTAMP,
    MEMORY_FIELDS,
    Event,
    ProtocolError,
    decode_line,
    show_value,
)

# Deepest nesting a payload may have (the deepest the agent writes is about 6: a summary's
# steps[i].host.disks.<device>.<field>).
MAX_DEPTH: Final = 16
# Sweep steps and virtual users: the live model sizes lists by the step index.
MAX_STEP: Final = 10_000
MAX_VUS: Final = 1_000_000
# The farthest a real jump of seq goes: a held jump the next event lands within this far past
# is real; one farther is the stray; at the end of a stream, a held jump this far or less
# passes.
MAX_SEQ_GAP: Final = 100_000
# A jump is also judged against the last accepted seq and the stream's own rate: it may skip
# JUMP_SLACK lines (a corrupt run of them) plus RATE_MARGIN times what the stream writes (at its
# rate so far, at least MIN_RATE a second) between the last accepted event's time and its own.
JUMP_SLACK: Final = 100
RATE_MARGIN: Final = 4.0
MIN_RATE: Final = 10.0
# A warning lists this many dropped fields, then says how many more.
_LISTED: Final = 6


class BadEvent(ProtocolError):
    """An event whose payload cannot be used as it is (a field that places it is bad)."""


# -- payload ------------------------------------------------------------------------------------

_DROP: Final = object()  # a spec's answer for a value that cannot be kept
Spec = Callable[[Any, str, list[str], int], Any]


def _path(parent: str, key: str) -> str:
    return f"{parent}.{key}" if parent else key


def _text_value(value: str, path: str, problems: list[str]) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        problems.append(f"{path}: lone surrogates replaced by U+FFFD")
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    return value


def _number(value: Any, path: str, problems: list[str]) -> Any:
    """The value if it is a finite number that fits 64 bits, else _DROP (bool is no number)."""
    kind = type(value)
    if kind is float:
        if math.isfinite(value):
            return value
        problems.append(f"{path}: {show_value(value)} is not a finite number")
        return _DROP
    if kind is int:
        if INT64_MIN <= value <= INT64_MAX:
            return value
        problems.append(f"{path}: {show_value(value)} does not fit 64 bits")
        return _DROP
    problems.append(f"{path}: {show_value(value)} is not a number")
    return _DROP


def _clean(value: Any, path: str, problems: list[str], depth: int) -> Any:
    """Any JSON value, scrubbed: non-finite or oversized numbers and too-deep parts dropped,
    strings repaired. The spec of fields whose type is not known."""
    if value is None or type(value) is bool:
        return value
    if type(value) in (int, float):
        return _number(value, path, problems)
    if isinstance(value, str):
        return _text_value(value, path, problems)
    if isinstance(value, list | tuple | dict) and depth >= MAX_DEPTH:
        problems.append(f"{path}: nested deeper than {MAX_DEPTH} levels")
        return _DROP
    if isinstance(value, list | tuple):
        items = (_clean(v, f"{path}[{i}]", problems, depth + 1) for i, v in enumerate(value))
        return [v for v in items if v is not _DROP]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            name = _text_value(str(key), _path(path, "(key)"), problems)
            kept = _clean(item, _path(path, name), problems, depth + 1)
            if kept is not _DROP:
                out[name] = kept
        return out
    problems.append(f"{path}: {show_value(value)} is not JSON data")
    return _DROP


def _num(value: Any, path: str, problems: list[str], depth: int) -> Any:
    return _number(value, path, problems)


def _count(value: Any, path: str, problems: list[str], depth: int) -> Any:
    """A number that counts something (transactions, rollbacks, errors, orders a minute): never
    below zero."""
    kept = _number(value, path, problems)
    if kept is not _DROP and kept < 0:
        problems.append(f"{path}: {show_value(value)} is below zero (a count)")
        return _DROP
    return kept


def _text(value: Any, path: str, problems: list[str], depth: int) -> Any:
    if isinstance(value, str):
        return _text_value(value, path, problems)
    problems.append(f"{path}: {show_value(value)} is not text")
    return _DROP


def _flag(value: Any, path: str, problems: list[str], depth: int) -> Any:
    if type(value) is bool:
        return value
    problems.append(f"{path}: {show_value(value)} is not true or false")
    return _DROP


def _complete(value: Any, path: str, problems: list[str], depth: int) -> Any:
    if type(value) is bool:
        return value
    problems.append(f"{path}: {show_value(value)} is not true or false, taken as false")
    return False


def _optional(spec: Spec) -> Spec:
    def check(value: Any, path: str, problems: list[str], depth: int) -> Any:
        return None if value is None else spec(value, path, problems, depth)

    return check


def _index(limit: int) -> Spec:
    def check(value: Any, path: str, problems: list[str], depth: int) -> Any:
        if type(value) is int and 0 <= value <= limit:
            return value
        problems.append(f"{path}: {show_value(value)} is not a whole number from 0 to {limit:,}")
        return _DROP

    return check


def _choice(*allowed: str) -> Spec:
    def check(value: Any, path: str, problems: list[str], depth: int) -> Any:
        if isinstance(value, str) and value in allowed:
            return value
        problems.append(f"{path}: {show_value(value)} is not one of {', '.join(allowed)}")
        return _DROP

    return check


def _container(value: Any, path: str, problems: list[str], depth: int, kind: type) -> bool:
    if not isinstance(value, kind):
        word = "an object" if kind is dict else "a list"
        problems.append(f"{path}: {show_value(value)} where {word} belongs")
        return False
    if depth >= MAX_DEPTH:
        problems.append(f"{path}: nested deeper than {MAX_DEPTH} levels")
        return False
    return True


def _object(
    value: Any, path: str, problems: list[str], depth: int, spec_of: Callable[[str], Spec]
) -> Any:
    if not _container(value, path, problems, depth, dict):
        return _DROP
    out = {}
    for key, item in value.items():
        name = _text_value(str(key), _path(path, "(key)"), problems)
        kept = spec_of(name)(item, _path(path, name), problems, depth + 1)
        if kept is not _DROP:
            out[name] = kept
    return out


def _record(fields: Mapping[str, Spec]) -> Spec:
    """An object whose known fields have a spec each; other fields are kept, scrubbed."""

    def check(value: Any, path: str, problems: list[str], depth: int) -> Any:
        return _object(value, path, problems, depth, lambda name: fields.get(name, _clean))

    return check


def _map(spec: Spec) -> Spec:
    """An object with free keys (transaction types, devices...) and one spec for every value."""

    def check(value: Any, path: str, problems: list[str], depth: int) -> Any:
        return _object(value, path, problems, depth, lambda name: spec)

    return check


def _list(spec: Spec) -> Spec:
    def check(value: Any, path: str, problems: list[str], depth: int) -> Any:
        if not _container(value, path, problems, depth, list):
            return _DROP
        items = (spec(v, f"{path}[{i}]", problems, depth + 1) for i, v in enumerate(value))
        return [v for v in items if v is not _DROP]

    return check


_opt_num = _optional(_num)
_opt_count = _optional(_count)
_opt_text = _optional(_text)
_COUNTS = _map(_count)
_LATENCY = _map(_record(dict.fromkeys(LATENCY_FIELDS, _num)))
_CPU_SHARES = dict.fromkeys(CPU_FIELDS, _num)
_DISK = _record(dict.fromkeys(DISK_FIELDS, _num))
_HOST = _record(
    {
        "cpu": _record({**_CPU_SHARES, "sockets": _map(_record(_CPU_SHARES))}),
        "disks": _map(_DISK),
        "disk_total": _DISK,
        "mem": _record(dict.fromkeys(MEMORY_FIELDS, _num)),
    }
)
_POWER = _record({"watts": _opt_num, "error": _opt_text})
_opt_flag = _optional(_flag)
# The random-read workload (bench_gui.workloads.random_read.agent: its package docstring lists
# every field).
_RAW_IOPS = _record(
    {
        "iops": _opt_num,
        "mbs": _opt_num,
        "seconds": _opt_num,
        "latency_ms": _record(dict.fromkeys(LATENCY_FIELDS, _num)),
        "block_size": _opt_num,
        "direct": _opt_flag,
        "method": _opt_text,
    }
)
_RANDOM_READ = _record(
    {
        "file": _opt_text,
        "file_bytes": _opt_num,
        "device": _opt_text,
        "points": _list(_record({"bytes": _num, "label": _opt_text, "multiple": _opt_num})),
        "memory": _record(
            {
                "bytes": _num,
                "source": _choice("machine", "agent_cgroup", "cgroup_limit"),
                "label": _opt_text,
                "machine_bytes": _opt_num,
                "cgroup_version": _opt_num,
            }
        ),
        "caches_dropped": _flag,
        "block_size": _opt_num,
        "jobs": _opt_num,
        "ioengine": _opt_text,
        "direct": _opt_flag,
        "zipf_theta": _opt_num,
        "warmup_s": _opt_num,
        "measure_s": _opt_num,
        "raw_iops_s": _opt_num,
        "raw_method": _opt_text,
        "fio_command": _list(_text),
    }
)
_RANDOM_READ_STEP: Final[dict[str, Spec]] = {
    "workload": _opt_text,
    "dataset_bytes": _opt_num,
    "dataset_label": _opt_text,
    "ram_ratio": _opt_num,
}
# The test schema (bench_gui.engines.postgresql.agent.schema_facts): on the first step's summary as
# it found the
# database, under ``after_run`` on the last step's as the run left it.
_SCHEMA_FACTS: Final[dict[str, Spec]] = {
    "database_size_bytes": _optional(_index(INT64_MAX)),
    "table_rows": _map(_index(INT64_MAX)),
    "table_rows_method": _map(_choice("exact", "estimate")),
    "schema_facts_error": _opt_text,
}
_STEP_SUMMARY = _record(
    {
        "step": _index(MAX_STEP),
        "vus": _index(MAX_VUS),
        "nopm": _opt_count,
        "tpm": _opt_count,
        "nopm_driver": _opt_count,
        "window_s": _opt_num,
        "rampup_s": _opt_num,
        "counts": _COUNTS,
        "rollbacks": _count,
        "errors": _COUNTS,
        "latency_ms": _LATENCY,
        "histograms": _map(_text),
        "complete": _complete,
        "window_t0": _opt_num,
        "window_t1": _opt_num,
        "host": _HOST,
        "power_w": _opt_num,
        "energy_j": _opt_num,
        "mw_per_nopm": _opt_num,
        "j_per_new_order": _opt_num,
        "idle_power_w": _opt_num,
        "power_meter": _opt_text,
        "power_scope": _opt_text,
        "power_label": _opt_text,
        "power_readings": _opt_count,
        "power_error": _opt_text,
        "problems": _list(_text),
        **_SCHEMA_FACTS,
        "after_run": _record(_SCHEMA_FACTS),
        # random_read
        **_RANDOM_READ_STEP,
        "ram_multiple": _opt_num,
        "memory_bytes": _opt_num,
        "memory_source": _opt_text,
        "caches_dropped": _opt_flag,
        "ops_s": _opt_num,
        "mbs": _opt_num,
        "major_faults": _opt_count,
        "major_faults_s": _opt_num,
        "fio_cpu": _record({"usr": _num, "sys": _num}),
        "raw_iops": _opt_num,
        "multiplier": _opt_num,
        "memory_peak_bytes": _opt_num,
    }
)


@dataclass(frozen=True)
class _Kind:
    fields: Mapping[str, Spec]
    required: frozenset[str] = frozenset()


_KINDS: Final[Mapping[str, _Kind]] = {
    "hello": _Kind(
        {
            "agent_version": _opt_text,
            "engine": _opt_text,
            "server": _opt_text,
            "settings": _record({}),
            "config": _record({}),
            "os_knobs": _record({}),
            "pid": _optional(_index(INT64_MAX)),
            "workload": _opt_text,
            "fio_version": _opt_text,
            "random_read": _RANDOM_READ,
        }
    ),
    "progress": _Kind(
        {
            "task": _opt_text,
            "stage": _opt_text,
            "done": _opt_num,
            "total": _opt_num,
            "unit": _opt_text,
            "rate": _opt_num,
            "message": _opt_text,
            "host": _HOST,
            "power": _POWER,
            "raw_iops": _RAW_IOPS,
        }
    ),
    "sample": _Kind(
        {
            "step": _index(MAX_STEP),
            "vus": _index(MAX_VUS),
            "phase": _text,
            "elapsed": _num,
            "remaining": _num,
            "counts": _COUNTS,
            "rollbacks": _count,
            "errors": _COUNTS,
            "latency_ms": _LATENCY,
            "nopm_driver": _opt_count,
            "tpm_driver": _opt_count,
            "nopm_db": _opt_count,
            "tpm_db": _opt_count,
            "db_not_answering_s": _opt_count,
            "host": _HOST,
            "power": _POWER,
            # random_read
            "workload": _opt_text,
            "ops_s": _opt_num,
            "mbs": _opt_num,
            "major_faults_s": _opt_num,
            "dataset_bytes": _opt_num,
            "memory_used_bytes": _opt_num,
        },
        frozenset({"step", "vus"}),
    ),
    "step": _Kind(
        {
            "phase": _choice("start", "end"),
            "step": _index(MAX_STEP),
            "vus": _index(MAX_VUS),
            "rampup_s": _opt_num,
            "duration_s": _opt_num,
            "processes": _opt_num,
            "summary": _STEP_SUMMARY,
            **_RANDOM_READ_STEP,
        },
        frozenset({"phase", "step", "vus"}),
    ),
    "summary": _Kind(
        {
            "steps": _list(_STEP_SUMMARY),
            "status": _opt_text,
            "checks": _list(_record({"name": _text, "ok": _flag, "detail": _opt_text})),
            "schema": _record({"state": _text, "warehouses": _num, "problems": _list(_text)}),
            "workload": _opt_text,
            "raw_iops": _optional(_RAW_IOPS),
        }
    ),
    "log": _Kind({"level": _opt_text, "message": _text}, frozenset({"message"})),
    "error": _Kind(
        {"message": _opt_text, "fatal": _flag, "code": _opt_text, "traceback": _opt_text}
    ),
    "done": _Kind({"status": _opt_text, "message": _opt_text}),
}


@dataclass(frozen=True)
class CheckedEvent:
    """An event fit for the store, the printer and the live model, and what was dropped."""

    event: Event
    dropped: tuple[str, ...] = ()

    def warning(self) -> str:
        """One line naming every dropped or repaired field ("" when nothing was)."""
        if not self.dropped:
            return ""
        dropped = listed([echoed(text) for text in self.dropped], _LISTED)
        return (
            f"agent event {self.event.kind} #{self.event.seq} kept; bad fields left out or"
            f" repaired: {dropped}"
        )


def _label(kind: Any, seq: Any) -> str:
    if isinstance(kind, str) and kind in EVENT_KINDS and type(seq) is int:
        return f"{kind} #{seq}"
    return "event"


def check_event(event: Event) -> CheckedEvent:
    """``event`` with every field of the right type and range (a new event: the input is left
    as it is); raise :class:`BadEvent` when a field that places it is bad, naming that field."""
    kind, seq, t = event.kind, event.seq, event.t
    label = _label(kind, seq)
    if not isinstance(kind, str) or kind not in _KINDS:
        raise BadEvent(f"unknown event kind {show_value(kind)}")
    if type(seq) is not int or not 0 <= seq <= INT64_MAX:
        raise BadEvent(f"{kind} event: bad sequence number {show_value(seq)}")
    if type(t) not in (int, float) or not 0.0 <= t <= MAX_TIMESTAMP:
        raise BadEvent(f"{label}: bad timestamp {show_value(t)}")
    if not isinstance(event.data, dict):
        raise BadEvent(f"{label}: payload {show_value(event.data)} is not an object")
    schema = _KINDS[kind]
    problems: list[str] = []
    data: dict[str, Any] = {}
    for key, value in event.data.items():
        name = _text_value(str(key), "(key)", problems)
        before = len(problems)
        kept = schema.fields.get(name, _clean)(value, name, problems, 1)
        if kept is _DROP and name in schema.required:
            raise BadEvent(
                f"{label}: {echoed(problems[before] if len(problems) > before else name)}"
            )
        if kept is not _DROP:
            data[name] = kept
    missing = sorted(schema.required - data.keys())
    if missing:
        raise BadEvent(f"{label}: no {', '.join(missing)}")
    return CheckedEvent(Event(kind, seq, float(t), data), tuple(problems))


# -- place in the stream ----------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What :class:`SeqGuard` says of one event: pass it on (``problem`` None) or report its
    line as a bad line (``problem`` says why)."""

    event: Event
    line: str
    problem: str | None = None


@dataclass
class SeqGuard:
    """Places each decoded event of one stream by its ``seq`` (the rule is in the module doc).

    ``resume_after``: the last seq the reader already has (a re-attach reading the spool from its
    start); events up to it are passed over silently, and so are bad lines before it (they were
    reported when first read). ``have``: the seqs the reader has (the store's events); when one
    of them proves a stray jump, the reader's top was poisoned (by an older reader), so the point
    to resume from falls back to where the stream really is, and only ``have`` is passed over
    beyond it: every real event the reader is missing comes from the spool.
    """

    resume_after: int = 0
    max_gap: int = MAX_SEQ_GAP
    have: frozenset[int] | None = None
    last: int = 0  # the last seq placed in the stream (passed on, or passed over as replayed)
    _held: tuple[Event, str] | None = field(default=None, repr=False)
    _first: tuple[int, float] | None = field(default=None, repr=False)
    _last_t: float = field(default=0.0, repr=False)

    @property
    def replaying(self) -> bool:
        """Still before the point the reader resumes from (bad lines there are not news)."""
        return self.last < self.resume_after

    @property
    def holding(self) -> bool:
        return self._held is not None

    def plausible_gap(self, event: Event) -> int:
        """How far past the last accepted seq ``event`` may be and still be a real jump: a few
        lines for a corrupt run of them, plus what the stream writes, at its own rate, in the
        time between the last accepted event and this one (lines its agent failed to write)."""
        if self._first is None:
            return min(self.max_gap, JUMP_SLACK)
        first_seq, first_t = self._first
        span = self._last_t - first_t
        rate = (self.last - first_seq) / span if span > 0 else 0.0
        elapsed = max(0.0, float(event.t) - self._last_t)
        allowed = JUMP_SLACK + RATE_MARGIN * max(rate, MIN_RATE) * elapsed
        return int(min(self.max_gap, allowed))

    def push(self, event: Event, line: str) -> list[Verdict]:
        """The verdicts this event settles: none (held, or replayed), one, or two."""
        out: list[Verdict] = []
        item = (event, line)
        seq = event.seq
        held = self._held
        if held is None:
            if seq == self.last + 1:
                self._accept(item, out)
            elif seq <= self.last:
                self._reject(item, self._backwards(seq), out)
            else:
                self._held = item
            return out
        jump = held[0].seq
        if seq <= self.last:  # this one goes back; the jump still waits
            self._reject(item, self._backwards(seq), out)
            return out
        if seq == self.last + 1 or seq <= jump:  # the stream goes on without the jump
            self._held = None
            self._reject(held, self._stray(jump), out)
            if seq == self.last + 1:
                self._accept(item, out)
            else:
                self._held = item
            return out
        if seq - jump > self.max_gap:  # farther still: of two jumps, the farther is the stray
            self._reject(item, self._stray(seq), out)
            return out
        self._held = None
        if jump - self.last > self.plausible_gap(held[0]):
            # Goes on from the jump, but the jump is farther than this stream could have gone
            # (a forged pair): the jump is a stray, and this one is judged on its own.
            self._reject(held, self._too_far(held[0]), out)
            self._held = item
            return out
        # The stream goes on from the jump (the next seq, or later: lines after it are missing
        # too, as when several lines in a row are corrupt): the jump was real.
        self._accept(held, out)
        if seq == self.last + 1:
            self._accept(item, out)
        else:
            self._held = item
        return out

    def flush(self) -> list[Verdict]:
        """The end of the stream: settle a held event (a plausible jump passes)."""
        out: list[Verdict] = []
        held, self._held = self._held, None
        if held is not None:
            if held[0].seq - self.last <= self.plausible_gap(held[0]):
                self._accept(held, out)
            else:
                self._reject(held, self._too_far(held[0]), out)
        return out

    def _backwards(self, seq: int) -> str:
        return f"seq {seq} is not after {self.last} (repeated or out of order): skipped"

    def _stray(self, seq: int) -> str:
        return (
            f"seq {seq} jumps ahead of {self.last + 1} and the stream does not go on from it:"
            " skipped"
        )

    def _too_far(self, event: Event) -> str:
        return (
            f"seq {event.seq} jumps ahead of {self.last + 1}, farther than this stream goes in"
            f" that time (at most {self.plausible_gap(event):,} events): skipped"
        )

    def _known(self, seq: int) -> bool:
        return seq <= self.resume_after or (self.have is not None and seq in self.have)

    def _accept(self, item: tuple[Event, str], out: list[Verdict]) -> None:
        event, line = item
        self.last = event.seq
        t = float(event.t)
        if self._first is None:
            self._first = (event.seq, t)
        self._last_t = max(self._last_t, t)
        if not self._known(event.seq):
            out.append(Verdict(event, line))

    def _reject(self, item: tuple[Event, str], problem: str, out: list[Verdict]) -> None:
        if self.have is not None and item[0].seq in self.have and item[0].seq > self.last:
            # The reader has it, yet the spool read again says it was never the stream's:
            # what the reader has beyond here is no point to resume from.
            self.resume_after = min(self.resume_after, self.last)
        if not self.replaying:
            out.append(Verdict(item[0], item[1], problem))


def scrubbed(value: Any) -> Any:
    """Any JSON-like value by the payload's rules (finite 64-bit numbers, valid Unicode, at most
    :data:`MAX_DEPTH` deep), for text that did not come as an event (a run's meta.json, a bad
    line shown in a message); None when nothing of it can be kept."""
    kept = _clean(value, "", [], 0)
    return None if kept is _DROP else kept


def read_line(line: str | bytes) -> CheckedEvent:
    """One line in, a checked event out: :func:`decode_line` then :func:`check_event` (for
    readers of stored or imported events); raises :class:`ProtocolError`."""
    return check_event(decode_line(line))


__all__ = [
    "MAX_DEPTH",
    "JUMP_SLACK",
    "MAX_SEQ_GAP",
    "MAX_STEP",
    "MAX_VUS",
    "BadEvent",
    "CheckedEvent",
    "SeqGuard",
    "Verdict",
    "check_event",
    "read_line",
    "scrubbed",
]
