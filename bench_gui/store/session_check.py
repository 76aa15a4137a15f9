"""One check for every session that comes from elsewhere: a file (``sessions import``) or a
team store (``sessions pull``).

Data someone else wrote is untrusted. Whichever way a session arrives, it is checked here, once,
before anything of it is written: every number fits the store and is finite, nothing nests or
runs on past what a session holds, texts shown on one line (names, notes, log lines) have a
sensible length, the figures a report prints are in range, and the plan it was run with passes
the checks a plan file passes (:func:`bench_gui.core.plan.plan_from_toml`,
:func:`~bench_gui.core.plan.plan_from_dict`). A failure is a :class:`RecordError` naming the
field; the caller names the file or the session.

The session is the JSON of :meth:`SessionStore.run_to_json` plus ``tags``, ``note`` and
``array`` (what :mod:`bench_gui.store.exchange` writes into a file); a pull may add
``note_author``, ``note_at``, ``note_history`` and ``storage`` (:mod:`bench_gui.store.team_pull`).
"""

from __future__ import annotations

import math
import uuid
from datetime import datetime
from typing import Any, Final

from bench_gui.core.events import BadEvent, check_event
from bench_gui.core.plan import plan_from_dict, plan_from_toml
from bench_gui.core.plan_model import MAX_PLAN_BYTES, PlanError
from bench_gui.store.annotations import clean_tags
from bench_gui.store.schema import RUN_STATUSES
from bench_gui.wire.protocol import EVENT_KINDS, Event

# Records nest a few levels (an inventory's storage layout the deepest): more is not a session.
MAX_DEPTH: Final = 32
# Integers must fit SQLite's INTEGER (and a float, for the charts).
INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1
# The longest text anywhere in a session (an HDR histogram, a plan, an inventory's listing).
MAX_TEXT: Final = 4 * 1024**2
# Texts shown on one line or in a list: a session's name, who and where, a tag, a log line.
MAX_NAME: Final = 200
MAX_LINE: Final = 8 * 1024
MAX_NOTE: Final = 64 * 1024
# A rate (NOPM, TPM) no machine comes near: a figure past it is damage or forgery.
MAX_RATE: Final = 1e10
# Sections a stored plan may carry that a plan file does not: the storage layout recorded
# with it by older versions (compare_input reads it).
SESSION_ONLY_PLAN_KEYS: Final = ("storage",)


class RecordError(ValueError):
    """A session that cannot be taken in; ``what`` names the field and the reason."""

    def __init__(self, what: str) -> None:
        self.what = what
        super().__init__(what)


def need(ok: bool, what: str) -> None:
    if not ok:
        raise RecordError(what)


def short(value: Any) -> str:
    """A value in a message: short, and never a number of thousands of digits."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "a number too large to store"
    if isinstance(value, str) and len(value) > 40:
        return repr(value[:40] + "…")
    if isinstance(value, dict | list):
        return "a table" if isinstance(value, dict) else "a list"
    return repr(value)


def where(parent: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    name = key if len(key) <= 40 else key[:40] + "…"
    return f"{parent}.{name}" if parent else name


def check_values(session: dict[str, Any]) -> None:
    """Every number fits the store (64-bit integers, finite floats), no text is longer than
    :data:`MAX_TEXT` and nothing nests deeper than :data:`MAX_DEPTH`: walked without
    recursion, whatever the session holds."""
    stack: list[tuple[Any, int, str]] = [(session, 0, "")]
    while stack:
        value, depth, at = stack.pop()
        if depth > MAX_DEPTH:
            raise RecordError(f"{at} is nested deeper than {MAX_DEPTH}")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(key, str) and len(key) > MAX_LINE:
                raise RecordError(f"{at or 'the session'} has a key of {len(key):,} characters")
            if isinstance(item, dict | list):
                stack.append((item, depth + 1, where(at, key)))
            elif isinstance(item, str):
                if len(item) > MAX_TEXT:
                    raise RecordError(
                        f"{where(at, key)} is a text of {len(item):,} characters (at most"
                        f" {MAX_TEXT:,})"
                    )
            elif isinstance(item, int) and not isinstance(item, bool):
                if not INT64_MIN <= item <= INT64_MAX:
                    raise RecordError(
                        f"{where(at, key)} is a whole number too large to store (64 bits at most)"
                    )
            elif isinstance(item, float) and not math.isfinite(item):
                raise RecordError(f"{where(at, key)} is not finite")


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_num(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _is_time(value: Any) -> bool:
    if not isinstance(value, str) or len(value) > 64:
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _text(value: Any, at: str, limit: int, optional: bool = True) -> None:
    if value is None and optional:
        return
    need(isinstance(value, str), f"{at} is not text")
    need(
        len(value) <= limit,
        f"{at} is a text of {len(value):,} characters (at most {limit:,})",
    )


def _rate(value: Any, at: str) -> None:
    need(is_num(value), f"{at} is not a number")
    need(
        value is None or 0 <= value <= MAX_RATE,
        f"{at} is {short(value)}, not a rate a run can have (0 to {MAX_RATE:g})",
    )


# A plan's sections, when present, are tables (the session list and re-attach read them).
_PLAN_SECTIONS: Final = ("target", "workload", "driver", "power", "monitor", "os")


def check_plan(run: dict[str, Any]) -> None:
    """The run's plan, as text and as the table the store keeps, passes what a plan file must
    pass (unknown fields, ranges, the password's variable name...); the first problems named."""
    text = run["plan_toml"]
    need(
        len(text.encode("utf-8", "surrogatepass")) <= MAX_PLAN_BYTES,
        f"run.plan_toml is larger than {MAX_PLAN_BYTES // 1024} KiB: not a plan",
    )
    try:
        plan_from_toml(text, "run.plan_toml")
    except PlanError as exc:
        raise RecordError(_plan_problems("run.plan_toml", exc)) from None
    plan = {k: v for k, v in run["plan"].items() if k not in SESSION_ONLY_PLAN_KEYS}
    for key in SESSION_ONLY_PLAN_KEYS:
        value = run["plan"].get(key)
        need(value is None or isinstance(value, dict), f"run.plan.{key} is not a table")
    try:
        plan_from_dict(plan)
    except PlanError as exc:
        raise RecordError(_plan_problems("run.plan", exc)) from None


def _plan_problems(at: str, exc: PlanError) -> str:
    shown = "; ".join(f"{name[:80]}: {reason[:200]}" for name, reason in exc.problems[:3])
    more = len(exc.problems) - 3
    return f"{at} is not a valid plan ({shown}{f'; and {more} more' if more > 0 else ''})"


def check_session(session: Any) -> None:
    """Check a whole session (see the module's docstring); :class:`RecordError` if bad."""
    need(isinstance(session, dict), "the session is not a table")
    check_values(session)
    check_structure(session)


def check_structure(session: dict[str, Any]) -> None:
    """The records of a session whose values :func:`check_values` has passed."""
    _Checker().session(session)


def check_annotations(record: dict[str, Any]) -> None:
    """What people add to a session (tags, note and its history, array, storage), as a team
    store holds them for a session both sides have."""
    check_values(record)
    _Checker().annotations(record)


class _Checker:
    """The structure of a session, record by record: what the store writes and what
    ``sessions show``, the Sessions page, compare and re-attach read back."""

    def numbers(self, value: Any, at: str, nested: bool = False) -> None:
        """{name: number} (``nested``: {name: {name: number}}, as latencies are)."""
        need(isinstance(value, dict), f"{at} is missing or not a table")
        for key, item in value.items():
            if nested:
                self.numbers(item, where(at, key))
            else:
                need(is_num(item), f"{where(at, key)} is not a number")

    def counts(self, value: Any, at: str) -> None:
        """{name: a count}: whole numbers (or numbers) never below zero."""
        self.numbers(value, at)
        for key, item in value.items():
            need(item is None or item >= 0, f"{where(at, key)} is {short(item)}, below zero")

    def session(self, session: dict[str, Any]) -> None:
        self.run(session.get("run"))
        for key in ("steps", "samples", "log", "events"):
            need(isinstance(session.get(key), list), f"{key} is missing")
        for i, step in enumerate(session["steps"]):
            self.step(step, f"steps[{i}]")
        for i, sample in enumerate(session["samples"]):
            self.sample(sample, f"samples[{i}]")
        for i, line in enumerate(session["log"]):
            at = f"log[{i}]"
            need(isinstance(line, dict), f"{at} is not a record")
            _text(line.get("message"), f"{at}.message", MAX_LINE, optional=False)
            _text(line.get("level"), f"{at}.level", 40)
            need(is_num(line.get("t")), f"{at}.t is not a number")
            seq = line.get("seq")
            need(seq is None or (is_int(seq) and seq >= 0), f"{at}.seq")
        for i, event in enumerate(session["events"]):
            self.event(event, f"events[{i}]")
        self.annotations(session)

    def annotations(self, session: dict[str, Any]) -> None:
        tags = session.get("tags", [])
        need(isinstance(tags, list) and all(isinstance(t, str) for t in tags), "tags")
        try:
            clean_tags(tags)
        except ValueError as exc:
            raise RecordError(f"tags: {exc}") from None
        _text(session.get("note", ""), "note", MAX_NOTE, optional=False)
        _text(session.get("note_author"), "note_author", MAX_NAME)
        _text(session.get("note_pushed_by"), "note_pushed_by", MAX_NAME)
        note_at = session.get("note_at")
        need(note_at is None or _is_time(note_at), "note_at is not a date and time")
        self.note_history(session.get("note_history", []))
        self.array(session.get("array"))
        self.storage(session.get("storage"))

    def run(self, run: Any) -> None:
        need(isinstance(run, dict), "no run record")
        for key in ("name", "kind", "status", "created_at", "engine", "plan_toml"):
            need(isinstance(run.get(key), str), f"run.{key} is missing or not text")
        _text(run["name"], "run.name", MAX_NAME)
        need(bool(run["name"].strip()), "run.name is empty")
        for key in ("kind", "engine"):
            _text(run[key], f"run.{key}", 40)
        need(run["status"] in RUN_STATUSES, f"run.status {short(run['status'])} is unknown")
        need(_is_time(run["created_at"]), "run.created_at is not a date and time")
        finished = run.get("finished_at")
        need(finished is None or _is_time(finished), "run.finished_at is not a date and time")
        for key in ("app_version", "server_version", "author", "host", "pushed_by"):
            _text(run.get(key), f"run.{key}", MAX_NAME)
        _text(run.get("message"), "run.message", MAX_LINE)
        for key in ("uuid", "origin"):
            value = run.get(key)
            need(value is None or isinstance(value, str), f"run.{key} is not text")
            need(not value or _is_uuid(value), f"run.{key} is not a UUID")
        for key in ("plan", "target"):
            need(isinstance(run.get(key), dict), f"run.{key} is missing")
        for key in _PLAN_SECTIONS:
            section = run["plan"].get(key)
            need(section is None or isinstance(section, dict), f"run.plan.{key} is not a table")
        driver = (run["plan"].get("driver") or {}).get("target")
        need(driver is None or isinstance(driver, str), "run.plan.driver.target is not text")
        self.target(run["target"])
        settings = run.get("settings") or {}
        need(isinstance(settings, dict), "run.settings is not a table")
        for key, value in settings.items():
            # Text (files written before settings had units) or a setting record.
            at = where("run.settings", key)
            need(isinstance(value, str | dict), f"{at} is not text or a setting record")
            if isinstance(value, dict):
                need(isinstance(value.get("setting"), str), f"{at}.setting is not text")
        for key in ("inventory", "agent"):
            value = run.get(key)
            need(value is None or isinstance(value, dict), f"run.{key} is not a table")
        check_plan(run)

    def target(self, target: dict[str, Any]) -> None:
        """Where the run went: texts and numbers, and for a run on several driver hosts their
        list (``driver_hosts``: host, role, clock reading)."""
        for key, value in target.items():
            at = where("run.target", key)
            if key == "driver_hosts":
                self.driver_hosts(value, at)
                continue
            scalar = value is None or isinstance(value, str | int | float)
            need(scalar, f"{at} is not a text or a number")
            if isinstance(value, str):
                _text(value, at, MAX_LINE)

    def driver_hosts(self, hosts: Any, at: str) -> None:
        need(isinstance(hosts, list), f"{at} is not a list")
        for i, host in enumerate(hosts):
            here = f"{at}[{i}]"
            need(isinstance(host, dict), f"{here} is not a record")
            _text(host.get("host"), f"{here}.host", MAX_NAME, optional=False)
            _text(host.get("role"), f"{here}.role", 40)
            clock = host.get("clock")
            need(clock is None or isinstance(clock, dict), f"{here}.clock is not a table")
            if isinstance(clock, dict):
                for key, value in clock.items():
                    ok = value is None or isinstance(value, str | int | float)
                    need(ok, f"{where(here + '.clock', key)} is not a text or a number")

    def step(self, step: Any, at: str) -> None:
        need(isinstance(step, dict), f"{at} is not a record")
        for key in ("step", "vus", "seq"):
            value = step.get(key)
            need(is_int(value) and value >= 0, f"{at}.{key} is not a whole number")
        for key in ("nopm", "tpm", "nopm_driver"):
            _rate(step.get(key), f"{at}.{key}")
        for key in ("window_s", "t"):
            value = step.get(key)
            need(is_num(value), f"{at}.{key} is not a number")
            need(value is None or value >= 0, f"{at}.{key} is {short(value)}, below zero")
        need(isinstance(step.get("complete", True), bool), f"{at}.complete")
        self.numbers(step.get("latency_ms"), f"{at}.latency_ms", nested=True)
        self.counts(step.get("counts"), f"{at}.counts")
        self.counts(step.get("errors"), f"{at}.errors")
        need(isinstance(step.get("summary"), dict), f"{at}.summary is missing")
        histograms = step.get("histograms")
        need(isinstance(histograms, dict), f"{at}.histograms is missing")
        for tx, hdr in histograms.items():
            need(isinstance(hdr, str), f"{where(at + '.histograms', tx)} is not text")

    def sample(self, sample: Any, at: str) -> None:
        need(isinstance(sample, dict), f"{at} is not a record")
        seq = sample.get("seq")
        need(is_int(seq) and seq >= 0, f"{at}.seq is not a whole number")
        t = sample.get("t")
        need(is_num(t) and t is not None, f"{at}.t is not a number")
        for key in ("step", "vus"):
            value = sample.get(key)
            need(value is None or (is_int(value) and value >= 0), f"{at}.{key}")
        phase = sample.get("phase")
        _text(phase, f"{at}.phase", 40)
        need(is_num(sample.get("elapsed")), f"{at}.elapsed is not a number")
        for key in ("nopm_driver", "tpm_driver", "nopm_db", "tpm_db"):
            _rate(sample.get(key), f"{at}.{key}")
        for key in ("counts", "errors"):
            self.counts(sample.get(key) or {}, f"{at}.{key}")
        self.numbers(sample.get("latency_ms") or {}, f"{at}.latency_ms", nested=True)
        extra = sample.get("extra") or {}
        need(isinstance(extra, dict), f"{at}.extra is not a table")

    def event(self, event: Any, at: str) -> None:
        """An event as the store keeps it: its fields as the agent's events are checked when
        they arrive (:func:`bench_gui.core.events.check_event`), nothing left out."""
        need(isinstance(event, dict), f"{at} is not a record")
        seq, kind, data = event.get("seq"), event.get("kind"), event.get("data")
        need(is_int(seq) and seq >= 0, f"{at}.seq is not a whole number")
        need(kind in EVENT_KINDS, f"{at}.kind {short(kind)} is not an event kind")
        t = event.get("t")
        need(is_num(t) and t is not None, f"{at}.t is not a number")
        need(data is None or isinstance(data, dict), f"{at}.data is not a table")
        try:
            checked = check_event(Event(kind, seq, t, dict(data or {})))
        except BadEvent as exc:
            raise RecordError(f"{at}: {exc}") from None
        need(not checked.dropped, f"{at}: {'; '.join(checked.dropped[:3])}")

    def note_history(self, history: Any) -> None:
        need(isinstance(history, list), "note_history is not a list")
        for i, entry in enumerate(history):
            at = f"note_history[{i}]"
            need(isinstance(entry, dict), f"{at} is not a record")
            _text(entry.get("text"), f"{at}.text", MAX_NOTE, optional=False)
            for key in ("author", "replaced_by", "pushed_by"):
                _text(entry.get(key), f"{at}.{key}", MAX_NAME)
            for key in ("written_at", "replaced_at"):
                need(_is_time(entry.get(key)), f"{at}.{key} is not a date and time")
            need(entry.get("unseen", 0) in (0, 1, True, False), f"{at}.unseen")

    def array(self, array: Any) -> None:
        if array is None:
            return
        need(isinstance(array, dict), "array is not a table")
        for key in ("device", "currency", "note"):
            _text(array.get(key), f"array.{key}", MAX_LINE)
        count = array.get("count")
        need(count is None or (is_int(count) and count >= 1), "array.count")
        cost = array.get("hand_cost")
        need(is_num(cost) and (cost is None or cost >= 0), "array.hand_cost")
        currency = array.get("currency")
        if currency:
            code = currency.strip()
            ok = code.isascii() and code.isalpha() and 2 <= len(code) <= 4
            need(ok, f"array.currency {short(currency)} is not a code like USD")

    def storage(self, storage: Any) -> None:
        if storage is None:
            return
        need(isinstance(storage, dict), "storage is not a table")
        for key in ("devices", "raid", "filesystem", "note"):
            _text(storage.get(key), f"storage.{key}", MAX_LINE)
        count = storage.get("count")
        need(count is None or (is_int(count) and count >= 1), "storage.count")
        at = storage.get("updated_at")
        need(at is None or _is_time(at), "storage.updated_at is not a date and time")
