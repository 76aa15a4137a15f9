"""Writing a checked session into a store: what an import (a file) and a pull (a team store)
share, so both write the same columns from the same record and neither copies a source's
columns blindly (a store with a column more or less still takes the session).

The session is the record :mod:`bench_gui.store.session_check` has passed; it is written in one
transaction with all its steps, samples, histograms, log, events, tags, note (and, from a pull,
its note history and storage description), or not at all.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from bench_gui.core.economics import ArrayInput
from bench_gui.store.dialect import DbConnection
from bench_gui.store.session_check import is_int
from bench_gui.store.sessions import SessionStore
from bench_gui.store.team_edits import add_note_history
from bench_gui.wire.setting_units import upgrade_settings


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), default=str)


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


def write_session(
    store: SessionStore, session: dict[str, Any], log_line: str, *, copy_if_known: bool
) -> int | None:
    """Write ``session`` as a new session of ``store``; its id. It keeps its UUID unless the
    store has that UUID already: then ``copy_if_known`` makes it a copy of its own (a new UUID,
    the original's as its origin: the same measurement, never a repeat of it), else nothing
    is written and None is returned (a pull of a session this store has)."""
    run = session["run"]
    status = run["status"]
    message = run.get("message") or ""
    if status == "running":
        # A snapshot of a run that was still going on: it will never finish here.
        status = "incomplete"
        message = "exported while the run was still going on"
    with store.transaction() as conn:
        # The session keeps the UUID it has everywhere, unless this store has it already (the
        # file imported twice): the copy is then a session of its own, the same measurement.
        known = str(uuid.UUID(run["uuid"])) if run.get("uuid") else ""
        taken = known and conn.execute("SELECT 1 FROM runs WHERE uuid = ?", (known,)).fetchone()
        origin = str(uuid.UUID(run["origin"])) if run.get("origin") else ""
        if taken:
            if not copy_if_known:
                return None
            origin = origin or known
        cur = conn.execute(
            "INSERT INTO runs (kind, name, status, created_at, finished_at, engine, app_version,"
            " plan, plan_toml, target, server_version, settings, inventory, agent, message,"
            " uuid, author, host, origin, pushed_by)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                origin,
                # The role that pushed it, as the team store says (a pull); a file says
                # nothing the store vouches for.
                str(run.get("pushed_by") or "") if not copy_if_known else "",
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
            if is_int(seq):
                kind = "error" if line.get("level") in ("error", "fatal") else "log"
                events.setdefault(seq, (kind, float(line.get("t") or 0.0), None))
        conn.executemany(
            "INSERT INTO events (run_id, seq, kind, t, data) VALUES (?, ?, ?, ?, ?)",
            [(run_id, seq, kind, t, data) for seq, (kind, t, data) in sorted(events.items())],
        )
        store.set_tags(run_id, session.get("tags", []))
        _write_note(conn, store, run_id, session)
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
        storage = session.get("storage")
        if isinstance(storage, dict):
            conn.execute(
                "INSERT INTO run_storage (run_id, devices, count, raid, filesystem, note,"
                " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (run_id, storage.get("devices") or "", storage.get("count"),
                 storage.get("raid") or "", storage.get("filesystem") or "",
                 storage.get("note") or "", storage.get("updated_at") or ""),
            )  # fmt: skip
        store.add_log(run_id, "info", log_line)
    return run_id


def _write_note(
    conn: DbConnection, store: SessionStore, run_id: int, session: dict[str, Any]
) -> None:
    """The note as the source had it: with who wrote it and when, and the texts it replaced
    (a pull), or as written now by whoever imports it (a file, which carries the text only)."""
    text = str(session.get("note") or "").strip()
    if session.get("note_at") is None:
        store.set_note(run_id, text)
    elif text:
        conn.execute(
            "INSERT INTO run_notes (run_id, text, updated_at, author, pushed_by)"
            " VALUES (?, ?, ?, ?, ?)",
            (run_id, text, session["note_at"], str(session.get("note_author") or ""),
             str(session.get("note_pushed_by") or "")),
        )  # fmt: skip
    add_note_history(conn, run_id, session.get("note_history", []))
