"""A session as one file, to share with a colleague: export, and an import that trusts nothing.

The file is JSON (gzip-compressed when its name ends in ``.gz``)::

    {"format": "bench-gui-session-file", "version": 1, "exported_at": ..., "app_version": ...,
     "sha256": "<hex digest of the canonical JSON of session>", "session": {...}}

``session`` is :meth:`SessionStore.run_to_json` (run, steps with histograms, samples, log,
events) plus tags, note and the hand-entered array. The checksum covers the canonical text of
``session`` (sorted keys, no spaces), so any change to a figure - a damaged download, an edit
by hand - is caught. An import checks the marker, the version, the checksum and the structure
before it writes anything, then writes the whole session in one transaction: a bad file changes
nothing, and the message says what is wrong with it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import uuid
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Protocol

from bench_gui import __version__
from bench_gui.agent.pg.setting_units import upgrade_settings
from bench_gui.agent.protocol import EVENT_KINDS, Event
from bench_gui.core.economics import ArrayInput
from bench_gui.core.events import BadEvent, check_event
from bench_gui.store.annotations import clean_tags
from bench_gui.store.sessions import RUN_STATUSES, SessionStore, StoreError

FORMAT: Final = "bench-gui-session-file"
VERSION: Final = 1
SUFFIX: Final = ".bgsession.json"
# The most JSON a session file may hold once decompressed. A sample a second with host metrics
# is about 3.3 KB as exported, so this is some 22 hours of samples; parsed, JSON takes three to
# four times its size in memory (and far more for a file made of tiny values), so a bigger file
# is refused before it is parsed. A compressed file is measured first, inflated in chunks and
# thrown away: a gzip bomb costs time, never memory.
MAX_JSON_BYTES: Final = 256 * 1024**2
# Records nest a few levels (an inventory's storage layout the deepest): more is not a session.
MAX_DEPTH: Final = 32
# Integers must fit SQLite's INTEGER (and a float, for the charts).
INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1
_CHUNK: Final = 1024 * 1024


class SessionFileError(ValueError):
    """A session file that cannot be imported; the message names the file and the reason."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: cannot import: {reason}")


def canonical(value: Any) -> bytes:
    """The bytes the checksum is computed over."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def checksum(session: Any) -> str:
    return hashlib.sha256(canonical(session)).hexdigest()


def export_document(store: SessionStore, run_id: int) -> dict[str, Any]:
    """The file's content as a dict (raises SessionNotFound for an unknown id)."""
    session = store.run_to_json(run_id)
    session["tags"] = store.tags(run_id)
    session["note"] = store.note(run_id)
    array = store.run_array(run_id)
    session["array"] = (
        None
        if array is None
        else {
            "device": array.device,
            "count": array.count,
            "hand_cost": array.hand_cost,
            "currency": array.currency,
            "note": array.note,
        }
    )
    # Round-trip through JSON so the checksum is over exactly what the file will hold.
    session = json.loads(json.dumps(session, default=str))
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "app_version": __version__,
        "sha256": checksum(session),
        "session": session,
    }


def export_session(store: SessionStore, run_id: int, path: Path) -> Path:
    """Write one session to ``path`` (gzip when it ends in .gz); written whole or not at all."""
    document = export_document(store, run_id)
    data = json.dumps(document, ensure_ascii=False, indent=1).encode("utf-8")
    if path.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    tmp = path.with_name(path.name + ".part")
    try:
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OSError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return path


# ---- reading and validation ---------------------------------------------------------------------


def _fail(path: Path, reason: str) -> SessionFileError:
    return SessionFileError(path, reason)


def _read_bytes(path: Path, max_bytes: int) -> bytearray:
    """The file's JSON bytes, never more than ``max_bytes`` of them: a plain file by its size,
    a gzip-compressed one inflated twice, in chunks: once to count (nothing kept, so a small
    file that inflates to gigabytes costs no memory), then, when it fits, to keep."""
    try:
        file = path.open("rb")
    except OSError as exc:
        raise _fail(path, f"the file cannot be read ({exc.strerror or exc})") from exc
    with file:
        try:
            compressed = file.read(2) == b"\x1f\x8b"
            file.seek(0)
        except OSError as exc:
            raise _fail(path, f"the file cannot be read ({exc.strerror or exc})") from exc
        if not compressed:
            try:
                if os.fstat(file.fileno()).st_size > max_bytes:
                    raise _too_large(path, max_bytes)
                return _read_limited(path, file, max_bytes, keep=True)
            except OSError as exc:
                raise _fail(path, f"the file cannot be read ({exc.strerror or exc})") from exc
        try:
            for keep in (False, True):
                file.seek(0)
                with gzip.GzipFile(fileobj=file, mode="rb") as inflated:
                    data = _read_limited(path, inflated, max_bytes, keep)
            return data
        except (OSError, EOFError, zlib.error) as exc:
            raise _fail(path, f"the compressed file is damaged ({exc})") from exc


def _too_large(path: Path, max_bytes: int) -> SessionFileError:
    return _fail(
        path,
        f"its content is larger than {max_bytes / 1024**2:,.0f} MiB of JSON, more than a session"
        " file may hold (refused before it is read whole)",
    )


class _Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


def _read_limited(path: Path, stream: _Readable, max_bytes: int, keep: bool) -> bytearray:
    """The stream's bytes (``keep``) or none (only counted), refused past ``max_bytes``."""
    data = bytearray()
    total = 0
    while chunk := stream.read(_CHUNK):
        total += len(chunk)
        if total > max_bytes:
            raise _too_large(path, max_bytes)
        if keep:
            data += chunk
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def read_document(path: Path, max_bytes: int = MAX_JSON_BYTES) -> dict[str, Any]:
    """Read and check a session file without touching any store.

    Everything is checked before anything is written: the size (``max_bytes`` of JSON, after
    decompression), the text, the marker, the version, every number (64-bit integers, finite
    floats) and the nesting, the checksum, then the structure of each record.
    """
    raw = _read_bytes(path, max_bytes)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _fail(path, "this is not a bench-gui session file (not text)") from None
    del raw
    try:
        document = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise _fail(
            path,
            f"this is not a bench-gui session file, or it is damaged (not valid JSON:"
            f" {exc.msg} at line {exc.lineno})",
        ) from None
    except RecursionError:
        raise _fail(path, "the file is damaged: its JSON is nested too deeply") from None
    except ValueError as exc:  # NaN, Infinity, an integer of thousands of digits
        reason = "a number has thousands of digits" if "digits" in str(exc) else str(exc)
        raise _fail(path, f"the file is damaged: {reason}") from None
    del text
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise _fail(path, f"this is not a bench-gui session file (no {FORMAT!r} marker)")
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise _fail(path, f"the file format version is missing or invalid ({_short(version)})")
    if version > VERSION:
        raise _fail(
            path,
            f"the file was written by a newer bench-gui (file format version"
            f" {_short(version)}, this one reads up to {VERSION}); update bench-gui to import it",
        )
    if version < 1:
        raise _fail(path, f"unknown file format version {_short(version)}")
    session = document.get("session")
    expected = document.get("sha256")
    if not isinstance(session, dict) or not isinstance(expected, str):
        raise _fail(path, "the file is damaged: the session or its checksum is missing")
    _check_values(path, session)
    try:
        actual = checksum(session)
    except ValueError as exc:  # a lone surrogate
        raise _fail(path, f"the file is damaged ({exc})") from exc
    if actual != expected.lower():
        raise _fail(
            path,
            "the file is damaged or was edited: its checksum does not match its content"
            f" (expected {_short(expected[:12])}..., got {actual[:12]}...)",
        )
    _Validator(path).session(session)
    return document


def _short(value: Any) -> str:
    """A value in a message: short, and never a number of thousands of digits."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "a number too large to store"
    if isinstance(value, str) and len(value) > 40:
        return repr(value[:40] + "…")
    if isinstance(value, dict | list):
        return "a table" if isinstance(value, dict) else "a list"
    return repr(value)


def _where(parent: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    name = key if len(key) <= 40 else key[:40] + "…"
    return f"{parent}.{name}" if parent else name


def _check_values(path: Path, session: dict[str, Any]) -> None:
    """Every number fits the store (64-bit integers, finite floats) and nothing nests deeper
    than :data:`MAX_DEPTH`: walked without recursion, whatever the file holds."""
    stack: list[tuple[Any, int, str]] = [(session, 0, "")]
    while stack:
        value, depth, where = stack.pop()
        if depth > MAX_DEPTH:
            raise _fail(path, f"the file is damaged: {where} is nested deeper than {MAX_DEPTH}")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(item, dict | list):
                stack.append((item, depth + 1, _where(where, key)))
            elif isinstance(item, int) and not isinstance(item, bool):
                if not INT64_MIN <= item <= INT64_MAX:
                    raise _fail(
                        path,
                        f"the file is damaged: {_where(where, key)} is a whole number too large"
                        " to store (64 bits at most)",
                    )
            elif isinstance(item, float) and not math.isfinite(item):
                raise _fail(path, f"the file is damaged: {_where(where, key)} is not finite")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_num(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _is_time(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


# A plan's sections, when present, are tables (the session list and re-attach read them).
_PLAN_SECTIONS: Final = ("target", "workload", "driver", "power", "monitor", "os")


class _Validator:
    """The structure of a session, record by record: what the store writes and what
    ``sessions show``, the Sessions page, compare and re-attach read back."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def need(self, ok: bool, what: str) -> None:
        if not ok:
            raise _fail(self.path, f"the session in the file is incomplete or malformed: {what}")

    def numbers(self, value: Any, where: str, nested: bool = False) -> None:
        """{name: number} (``nested``: {name: {name: number}}, as latencies are)."""
        self.need(isinstance(value, dict), f"{where} is missing or not a table")
        for key, item in value.items():
            if nested:
                self.numbers(item, _where(where, key))
            else:
                self.need(_is_num(item), f"{_where(where, key)} is not a number")

    def session(self, session: dict[str, Any]) -> None:
        self.run(session.get("run"))
        for key in ("steps", "samples", "log", "events"):
            self.need(isinstance(session.get(key), list), f"{key} is missing")
        for i, step in enumerate(session["steps"]):
            self.step(step, f"steps[{i}]")
        for i, sample in enumerate(session["samples"]):
            self.sample(sample, f"samples[{i}]")
        for i, line in enumerate(session["log"]):
            where = f"log[{i}]"
            self.need(isinstance(line, dict), f"{where} is not a record")
            self.need(isinstance(line.get("message"), str), f"{where}.message is not text")
            self.need(line.get("level") is None or isinstance(line["level"], str), f"{where}.level")
            self.need(_is_num(line.get("t")), f"{where}.t is not a number")
            seq = line.get("seq")
            self.need(seq is None or (_is_int(seq) and seq >= 0), f"{where}.seq")
        for i, event in enumerate(session["events"]):
            self.event(event, f"events[{i}]")
        tags = session.get("tags", [])
        self.need(isinstance(tags, list) and all(isinstance(t, str) for t in tags), "tags")
        try:
            clean_tags(tags)
        except ValueError as exc:
            self.need(False, f"tags: {exc}")
        self.need(isinstance(session.get("note", ""), str), "note is not text")
        self.array(session.get("array"))

    def run(self, run: Any) -> None:
        self.need(isinstance(run, dict), "no run record")
        for key in ("name", "kind", "status", "created_at", "engine", "plan_toml"):
            self.need(isinstance(run.get(key), str), f"run.{key} is missing or not text")
        self.need(run["status"] in RUN_STATUSES, f"run.status {_short(run['status'])} is unknown")
        self.need(_is_time(run["created_at"]), "run.created_at is not a date and time")
        finished = run.get("finished_at")
        self.need(finished is None or _is_time(finished), "run.finished_at is not a date and time")
        for key in ("app_version", "server_version", "message", "author", "host", "uuid"):
            value = run.get(key)
            self.need(value is None or isinstance(value, str), f"run.{key} is not text")
        self.need(not run.get("uuid") or _is_uuid(run["uuid"]), "run.uuid is not a UUID")
        for key in ("plan", "target"):
            self.need(isinstance(run.get(key), dict), f"run.{key} is missing")
        for key in _PLAN_SECTIONS:
            section = run["plan"].get(key)
            self.need(
                section is None or isinstance(section, dict), f"run.plan.{key} is not a table"
            )
        driver = (run["plan"].get("driver") or {}).get("target")
        self.need(driver is None or isinstance(driver, str), "run.plan.driver.target is not text")
        for key, value in run["target"].items():
            scalar = value is None or isinstance(value, str | int | float)
            self.need(scalar, f"{_where('run.target', key)} is not a text or a number")
        settings = run.get("settings") or {}
        self.need(isinstance(settings, dict), "run.settings is not a table")
        for key, value in settings.items():
            # Text (files written before settings had units) or a setting record.
            where = _where("run.settings", key)
            self.need(isinstance(value, str | dict), f"{where} is not text or a setting record")
            if isinstance(value, dict):
                self.need(isinstance(value.get("setting"), str), f"{where}.setting is not text")
        for key in ("inventory", "agent"):
            value = run.get(key)
            self.need(value is None or isinstance(value, dict), f"run.{key} is not a table")

    def step(self, step: Any, where: str) -> None:
        self.need(isinstance(step, dict), f"{where} is not a record")
        for key in ("step", "vus", "seq"):
            value = step.get(key)
            self.need(_is_int(value) and value >= 0, f"{where}.{key} is not a whole number")
        for key in ("nopm", "tpm", "nopm_driver", "window_s", "t"):
            self.need(_is_num(step.get(key)), f"{where}.{key} is not a number")
        self.need(isinstance(step.get("complete", True), bool), f"{where}.complete")
        self.numbers(step.get("latency_ms"), f"{where}.latency_ms", nested=True)
        self.numbers(step.get("counts"), f"{where}.counts")
        self.numbers(step.get("errors"), f"{where}.errors")
        self.need(isinstance(step.get("summary"), dict), f"{where}.summary is missing")
        histograms = step.get("histograms")
        self.need(isinstance(histograms, dict), f"{where}.histograms is missing")
        for tx, hdr in histograms.items():
            self.need(isinstance(hdr, str), f"{_where(where + '.histograms', tx)} is not text")

    def sample(self, sample: Any, where: str) -> None:
        self.need(isinstance(sample, dict), f"{where} is not a record")
        seq = sample.get("seq")
        self.need(_is_int(seq) and seq >= 0, f"{where}.seq is not a whole number")
        t = sample.get("t")
        self.need(_is_num(t) and t is not None, f"{where}.t is not a number")
        for key in ("step", "vus"):
            value = sample.get(key)
            self.need(value is None or (_is_int(value) and value >= 0), f"{where}.{key}")
        phase = sample.get("phase")
        self.need(phase is None or isinstance(phase, str), f"{where}.phase is not text")
        for key in ("elapsed", "nopm_driver", "tpm_driver", "nopm_db", "tpm_db"):
            self.need(_is_num(sample.get(key)), f"{where}.{key} is not a number")
        for key in ("counts", "errors"):
            self.numbers(sample.get(key) or {}, f"{where}.{key}")
        self.numbers(sample.get("latency_ms") or {}, f"{where}.latency_ms", nested=True)
        extra = sample.get("extra") or {}
        self.need(isinstance(extra, dict), f"{where}.extra is not a table")

    def event(self, event: Any, where: str) -> None:
        """An event as the store keeps it: its fields as the agent's events are checked when
        they arrive (:func:`bench_gui.core.events.check_event`), nothing left out."""
        self.need(isinstance(event, dict), f"{where} is not a record")
        seq, kind, data = event.get("seq"), event.get("kind"), event.get("data")
        self.need(_is_int(seq) and seq >= 0, f"{where}.seq is not a whole number")
        self.need(kind in EVENT_KINDS, f"{where}.kind {_short(kind)} is not an event kind")
        t = event.get("t")
        self.need(_is_num(t) and t is not None, f"{where}.t is not a number")
        self.need(data is None or isinstance(data, dict), f"{where}.data is not a table")
        try:
            checked = check_event(Event(kind, seq, t, dict(data or {})))
        except BadEvent as exc:
            self.need(False, f"{where}: {exc}")
        else:
            self.need(not checked.dropped, f"{where}: {'; '.join(checked.dropped[:3])}")

    def array(self, array: Any) -> None:
        if array is None:
            return
        self.need(isinstance(array, dict), "array is not a table")
        for key in ("device", "currency", "note"):
            value = array.get(key)
            self.need(value is None or isinstance(value, str), f"array.{key} is not text")
        count = array.get("count")
        self.need(count is None or (_is_int(count) and count >= 1), "array.count")
        cost = array.get("hand_cost")
        self.need(_is_num(cost) and (cost is None or cost >= 0), "array.hand_cost")
        currency = array.get("currency")
        if currency:
            code = currency.strip()
            ok = code.isascii() and code.isalpha() and 2 <= len(code) <= 4
            self.need(ok, f"array.currency {_short(currency)} is not a code like USD")


# ---- writing ------------------------------------------------------------------------------------


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=str)


def _header(document: dict[str, Any], key: str) -> str:
    """A header field of the file as text for the log (outside the checksum: anything)."""
    value = document.get(key)
    return value[:64] if isinstance(value, str) else "?"


def import_session(store: SessionStore, path: Path, max_bytes: int = MAX_JSON_BYTES) -> int:
    """Import a session file as a new session; return its id. A bad file changes nothing.

    Raises :class:`SessionFileError` for anything wrong with the file, :class:`StoreError`
    when the store itself fails.
    """
    document = read_document(path, max_bytes)
    try:
        return _write(store, path, document)
    except StoreError as exc:
        if "constraint" in exc.reason.lower():
            # Validated, yet inconsistent (two steps with one number...): nothing was written.
            raise _fail(path, f"the session in the file is inconsistent ({exc.reason})") from exc
        raise
    except ValueError as exc:  # the store's own checks (tags, the array): nothing was written
        raise _fail(path, f"the session in the file is inconsistent ({exc})") from exc


def _settings(session: dict[str, Any]) -> dict[str, Any]:
    """A file's settings as the store keeps them: a file written before settings had units
    (schema version < 3) gets its texts ("163848kB") made records, as the store's migration
    did; a newer file's are kept as they are."""
    run = session["run"]
    settings: dict[str, Any] = run.get("settings") or {}
    written = session.get("schema_version")
    if isinstance(written, int) and not isinstance(written, bool) and written >= 3:
        return settings
    version = (run.get("agent") or {}).get("server_version_num")
    number = version if isinstance(version, int) and not isinstance(version, bool) else 0
    return upgrade_settings(settings, number)[0]


def _write(store: SessionStore, path: Path, document: dict[str, Any]) -> int:
    session = document["session"]
    run = session["run"]
    status = run["status"]
    message = run.get("message") or ""
    if status == "running":
        # A snapshot of a run that was still going on: it will never finish here.
        status = "incomplete"
        message = "exported while the run was still going on"
    with store.transaction() as conn:
        # The session keeps the UUID it has everywhere, unless this store has it already (the
        # file imported twice): the copy is then a session of its own.
        known = str(uuid.UUID(run["uuid"])) if run.get("uuid") else ""
        taken = known and conn.execute("SELECT 1 FROM runs WHERE uuid = ?", (known,)).fetchone()
        cur = conn.execute(
            "INSERT INTO runs (kind, name, status, created_at, finished_at, engine, app_version,"
            " plan, plan_toml, target, server_version, settings, inventory, agent, message,"
            " uuid, author, host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run["kind"],
                run["name"],
                status,
                run["created_at"],
                run.get("finished_at"),
                run["engine"],
                str(run.get("app_version") or ""),
                _dumps(run["plan"]),
                run["plan_toml"],
                _dumps(run["target"]),
                run.get("server_version"),
                _dumps(_settings(session)),
                None if run.get("inventory") is None else _dumps(run["inventory"]),
                _dumps(run.get("agent") or {}),
                message,
                str(uuid.uuid4()) if not known or taken else known,
                # Who recorded it and where, when the file says (older files do not).
                str(run.get("author") or ""),
                str(run.get("host") or ""),
            ),
        )
        run_id = cur.lastrowid
        assert run_id is not None
        events: dict[int, tuple[str, float, str | None]] = {}
        for event in session["events"]:
            events[event["seq"]] = (event["kind"], float(event["t"]), _dumps(event.get("data")))
        for sample in session["samples"]:
            conn.execute(
                "INSERT INTO samples (run_id, seq, t, step, vus, phase, elapsed, nopm_driver,"
                " tpm_driver, nopm_db, tpm_db, counts, errors, latency_ms, extra)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    sample["seq"],
                    sample["t"],
                    sample.get("step"),
                    sample.get("vus"),
                    sample.get("phase"),
                    sample.get("elapsed"),
                    sample.get("nopm_driver"),
                    sample.get("tpm_driver"),
                    sample.get("nopm_db"),
                    sample.get("tpm_db"),
                    _dumps(sample.get("counts") or {}),
                    _dumps(sample.get("errors") or {}),
                    _dumps(sample.get("latency_ms") or {}),
                    _dumps(sample.get("extra") or {}),
                ),
            )
            events.setdefault(sample["seq"], ("sample", float(sample["t"]), None))
        for step in session["steps"]:
            conn.execute(
                "INSERT INTO steps (run_id, step, seq, t, vus, nopm, tpm, nopm_driver,"
                " window_s, complete, latency, counts, errors, summary)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    step["step"],
                    step["seq"],
                    step.get("t") or 0.0,
                    step["vus"],
                    step.get("nopm"),
                    step.get("tpm"),
                    step.get("nopm_driver"),
                    step.get("window_s"),
                    1 if step.get("complete", True) else 0,
                    _dumps(step["latency_ms"]),
                    _dumps(step["counts"]),
                    _dumps(step["errors"]),
                    _dumps(step["summary"]),
                ),
            )
            conn.executemany(
                "INSERT INTO histograms (run_id, step, tx, hdr) VALUES (?, ?, ?, ?)",
                [
                    (run_id, step["step"], tx, hdr)
                    for tx, hdr in step["histograms"].items()
                    if isinstance(hdr, str)
                ],
            )
            events.setdefault(step["seq"], ("step", float(step.get("t") or 0.0), None))
        for line in session["log"]:
            seq = line.get("seq")
            conn.execute(
                "INSERT INTO run_log (run_id, seq, t, level, message) VALUES (?, ?, ?, ?, ?)",
                (
                    run_id,
                    seq,
                    line.get("t") or 0.0,
                    str(line.get("level") or "info"),
                    line["message"],
                ),
            )
            if _is_int(seq):
                kind = "error" if line.get("level") in ("error", "fatal") else "log"
                events.setdefault(seq, (kind, float(line.get("t") or 0.0), None))
        conn.executemany(
            "INSERT INTO events (run_id, seq, kind, t, data) VALUES (?, ?, ?, ?, ?)",
            [(run_id, seq, kind, t, data) for seq, (kind, t, data) in sorted(events.items())],
        )
        store.set_tags(run_id, session.get("tags", []))
        store.set_note(run_id, session.get("note", ""))
        array = session.get("array")
        if isinstance(array, dict):
            store.set_run_array(
                run_id,
                ArrayInput(
                    device=array.get("device"),
                    count=array.get("count"),
                    hand_cost=array.get("hand_cost"),
                    currency=array.get("currency"),
                    origin="hand",
                    note=str(array.get("note") or ""),
                ),
            )
        store.add_log(
            run_id,
            "info",
            f"imported from {path.name} (exported {_header(document, 'exported_at')} by"
            f" bench-gui {_header(document, 'app_version')})",
        )
    return run_id
