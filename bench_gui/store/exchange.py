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
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from bench_gui import __version__
from bench_gui.core.economics import ArrayInput
from bench_gui.store.sessions import RUN_STATUSES, SessionStore, StoreError

FORMAT: Final = "bench-gui-session-file"
VERSION: Final = 1
SUFFIX: Final = ".bgsession.json"
MAX_FILE_BYTES: Final = 2 * 1024**3


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


def read_document(path: Path) -> dict[str, Any]:
    """Read and check a session file without touching any store."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise _fail(path, f"the file is too large ({size:,} bytes) to be a session file")
        raw = path.read_bytes()
    except OSError as exc:
        raise _fail(path, f"the file cannot be read ({exc.strerror or exc})") from exc
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise _fail(path, f"the compressed file is damaged ({exc})") from exc
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise _fail(path, "this is not a bench-gui session file (not text)") from None
    except json.JSONDecodeError as exc:
        raise _fail(
            path,
            f"this is not a bench-gui session file, or it is damaged (not valid JSON:"
            f" {exc.msg} at line {exc.lineno})",
        ) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise _fail(path, f"this is not a bench-gui session file (no {FORMAT!r} marker)")
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise _fail(path, f"the file format version is missing or invalid ({version!r})")
    if version > VERSION:
        raise _fail(
            path,
            f"the file was written by a newer bench-gui (file format version {version}, this"
            f" one reads up to {VERSION}); update bench-gui to import it",
        )
    if version < 1:
        raise _fail(path, f"unknown file format version {version}")
    session = document.get("session")
    expected = document.get("sha256")
    if not isinstance(session, dict) or not isinstance(expected, str):
        raise _fail(path, "the file is damaged: the session or its checksum is missing")
    try:
        actual = checksum(session)
    except ValueError as exc:
        raise _fail(path, f"the file is damaged ({exc})") from exc
    if actual != expected.lower():
        raise _fail(
            path,
            "the file is damaged or was edited: its checksum does not match its content"
            f" (expected {expected[:12]}..., got {actual[:12]}...)",
        )
    _validate(path, session)
    return document


def _need(path: Path, ok: bool, what: str) -> None:
    if not ok:
        raise _fail(path, f"the session in the file is incomplete or malformed: {what}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_num(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def _validate(path: Path, session: dict[str, Any]) -> None:
    run = session.get("run")
    _need(path, isinstance(run, dict), "no run record")
    assert isinstance(run, dict)
    for key in ("name", "kind", "status", "created_at", "engine", "plan_toml"):
        _need(path, isinstance(run.get(key), str), f"run.{key} is missing or not text")
    _need(path, run["status"] in RUN_STATUSES, f"run.status {run['status']!r} is unknown")
    for key in ("plan", "target"):
        _need(path, isinstance(run.get(key), dict), f"run.{key} is missing")
    for key in ("steps", "samples", "log", "events"):
        _need(path, isinstance(session.get(key), list), f"{key} is missing")
    for i, step in enumerate(session["steps"]):
        _need(path, isinstance(step, dict), f"steps[{i}] is not a record")
        for key in ("step", "vus", "seq"):
            _need(path, _is_int(step.get(key)), f"steps[{i}].{key} is not a whole number")
        for key in ("nopm", "tpm", "nopm_driver", "window_s", "t"):
            _need(path, _is_num(step.get(key)), f"steps[{i}].{key} is not a number")
        for key in ("latency_ms", "counts", "errors", "summary", "histograms"):
            _need(path, isinstance(step.get(key), dict), f"steps[{i}].{key} is missing")
    for i, sample in enumerate(session["samples"]):
        _need(path, isinstance(sample, dict), f"samples[{i}] is not a record")
        _need(path, _is_int(sample.get("seq")), f"samples[{i}].seq is not a whole number")
        _need(path, _is_num(sample.get("t")) and sample.get("t") is not None, f"samples[{i}].t")
    for i, line in enumerate(session["log"]):
        _need(path, isinstance(line, dict) and isinstance(line.get("message"), str), f"log[{i}]")
    for i, event in enumerate(session["events"]):
        ok = isinstance(event, dict) and _is_int(event.get("seq"))
        _need(path, ok and isinstance(event.get("kind"), str), f"events[{i}]")
    tags = session.get("tags", [])
    _need(path, isinstance(tags, list) and all(isinstance(t, str) for t in tags), "tags")
    _need(path, isinstance(session.get("note", ""), str), "note")
    _need(path, session.get("array") is None or isinstance(session.get("array"), dict), "array")


# ---- writing ------------------------------------------------------------------------------------


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=str)


def import_session(store: SessionStore, path: Path) -> int:
    """Import a session file as a new session; return its id. A bad file changes nothing."""
    document = read_document(path)
    try:
        return _write(store, path, document)
    except StoreError as exc:
        if "constraint" in exc.reason.lower():
            # Validated, yet inconsistent (two steps with one number...): nothing was written.
            raise _fail(path, f"the session in the file is inconsistent ({exc.reason})") from exc
        raise


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
        cur = conn.execute(
            "INSERT INTO runs (kind, name, status, created_at, finished_at, engine, app_version,"
            " plan, plan_toml, target, server_version, settings, inventory, agent, message)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                _dumps(run.get("settings") or {}),
                None if run.get("inventory") is None else _dumps(run["inventory"]),
                _dumps(run.get("agent") or {}),
                message,
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
            f"imported from {path.name} (exported {document.get('exported_at', '?')} by"
            f" bench-gui {document.get('app_version', '?')})",
        )
    return run_id
