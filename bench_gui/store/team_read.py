"""A team store's session read as a record to check, not as rows to copy.

Anyone with a login can write to a team store, so what a pull reads is untrusted: each column
is read by name (a column more or less in the team's tables changes nothing), every JSON text
is parsed only when its size and shape are bounded, and a session with more rows than a run
makes is refused before its rows are read. What comes out is the record
:func:`bench_gui.store.session_check.check_session` checks and
:func:`bench_gui.store.session_write.write_session` writes, as for a file import.
"""

from __future__ import annotations

import json
from typing import Any, Final

from bench_gui.store.dialect import DbConnection
from bench_gui.store.schema import SCHEMA_VERSION
from bench_gui.store.session_check import MAX_TEXT, RecordError
from bench_gui.store.sessions import SessionStore

# The most rows of one kind a session may have: a sample a second for some 55 hours, an event
# for each of those and a few more, a log line a second.
MAX_ROWS: Final = {
    "samples": 200_000,
    "events": 400_000,
    "run_log": 200_000,
    "steps": 10_000,
    "histograms": 200_000,
    "run_tags": 1_000,
    "run_note_history": 10_000,
}
# A JSON text in a column: a table of a few hundred values (a sample's latencies) up to an
# inventory; one container for every 8 characters or a value for every 2 is not a record.
_DENSITY: Final = (8, 2)

_RUN_TEXT: Final = (
    "name", "kind", "status", "created_at", "finished_at", "engine", "app_version",
    "plan_toml", "server_version", "message", "uuid", "author", "host",
)  # fmt: skip
_RUN_JSON: Final = ("plan", "target", "settings", "inventory", "agent")
_RUN_ROLE: Final = ("origin", "pushed_by")


def parse_json(text: Any, at: str, default: Any = None) -> Any:
    """A JSON column's value, parsed only when bounded: RecordError naming ``at`` otherwise."""
    if text is None:
        return default
    if not isinstance(text, str):
        raise RecordError(f"{at} is not JSON text")
    if len(text) > MAX_TEXT:
        raise RecordError(f"{at} is a text of {len(text):,} characters (at most {MAX_TEXT:,})")
    containers = text.count("{") + text.count("[")
    values = text.count(",") + text.count(":")
    if containers * _DENSITY[0] > max(len(text), 64) or values * _DENSITY[1] > max(len(text), 64):
        raise RecordError(f"{at} holds more tables or values than its size allows")
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise RecordError(f"{at} nests too deeply") from None
    except ValueError as exc:  # JSONDecodeError, NaN, a number of thousands of digits
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)[:80]
        raise RecordError(f"{at} is not valid JSON ({reason})") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _count(conn: DbConnection, table: str, run_id: int) -> None:
    found = int(
        conn.execute(f"SELECT COUNT(*) FROM {table} WHERE run_id = ?", (run_id,)).fetchone()[0]
    )
    if found > MAX_ROWS[table]:
        raise RecordError(
            f"it has {found:,} rows of {table}, more than a run makes (at most {MAX_ROWS[table]:,})"
        )


def read_session(store: SessionStore, run_id: int) -> dict[str, Any]:
    """Session ``run_id`` of ``store`` as a record to check; RecordError when it cannot even
    be read as one (bad JSON, too many rows)."""
    with store._snapshot() as conn:
        for table in MAX_ROWS:
            _count(conn, table, run_id)
        row = conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise RecordError("it is no longer in the team store")
        have: list[str] = row.keys()  # a Row's own ``in`` looks at its values
        run: dict[str, Any] = {c: row[c] for c in (*_RUN_TEXT, *_RUN_ROLE) if c in have}
        for column in _RUN_JSON:
            default: Any = None if column == "inventory" else {}
            run[column] = parse_json(
                row[column] if column in have else None, f"run.{column}", default
            )
        histograms: dict[int, dict[str, Any]] = {}
        for step, tx, hdr in conn.execute(
            "SELECT step, tx, hdr FROM histograms WHERE run_id = ?", (run_id,)
        ):
            histograms.setdefault(step, {})[tx] = hdr
        steps = []
        for i, r in enumerate(
            conn.execute(
                "SELECT step, seq, t, vus, nopm, tpm, nopm_driver, window_s, complete, latency,"
                " counts, errors, summary FROM steps WHERE run_id = ? ORDER BY step",
                (run_id,),
            )
        ):
            at = f"steps[{i}]"
            steps.append(
                {
                    "step": r["step"], "seq": r["seq"], "t": r["t"], "vus": r["vus"],
                    "nopm": r["nopm"], "tpm": r["tpm"], "nopm_driver": r["nopm_driver"],
                    "window_s": r["window_s"], "complete": bool(r["complete"]),
                    "latency_ms": parse_json(r["latency"], f"{at}.latency_ms", {}),
                    "counts": parse_json(r["counts"], f"{at}.counts", {}),
                    "errors": parse_json(r["errors"], f"{at}.errors", {}),
                    "summary": parse_json(r["summary"], f"{at}.summary", {}),
                    "histograms": histograms.get(r["step"], {}),
                }
            )  # fmt: skip
        samples = []
        for i, r in enumerate(
            conn.execute(
                "SELECT seq, t, step, vus, phase, elapsed, nopm_driver, tpm_driver, nopm_db,"
                " tpm_db, counts, errors, latency_ms, extra FROM samples WHERE run_id = ?"
                " ORDER BY seq",
                (run_id,),
            )
        ):
            at = f"samples[{i}]"
            sample = {k: r[k] for k in ("seq", "t", "step", "vus", "phase", "elapsed")}
            for key in ("nopm_driver", "tpm_driver", "nopm_db", "tpm_db"):
                sample[key] = r[key]
            for key in ("counts", "errors", "latency_ms", "extra"):
                sample[key] = parse_json(r[key], f"{at}.{key}", {})
            samples.append(sample)
        log = [
            {"seq": r["seq"], "t": r["t"], "level": r["level"], "message": r["message"]}
            for r in conn.execute(
                "SELECT seq, t, level, message FROM run_log WHERE run_id = ? ORDER BY id",
                (run_id,),
            )
        ]
        events = [
            {
                "seq": r["seq"],
                "kind": r["kind"],
                "t": r["t"],
                "data": parse_json(r["data"], f"events[{i}].data"),
            }
            for i, r in enumerate(
                conn.execute(
                    "SELECT seq, kind, t, data FROM events"
                    " WHERE run_id = ? AND data IS NOT NULL ORDER BY seq",
                    (run_id,),
                )
            )
        ]
        session: dict[str, Any] = {
            "format": "bench-gui-session",
            "schema_version": SCHEMA_VERSION,
            "run": run,
            "steps": steps,
            "samples": samples,
            "log": log,
            "events": events,
            "tags": [
                r[0]
                for r in conn.execute(
                    "SELECT tag FROM run_tags WHERE run_id = ? ORDER BY tag", (run_id,)
                )
            ],
        }
        read_annotations(conn, run_id, session)
    return session


def read_annotations(conn: DbConnection, run_id: int, session: dict[str, Any]) -> None:
    """The note (with who wrote it, when), the texts it replaced, the array and the storage
    described by hand."""
    note = conn.execute(
        "SELECT text, author, updated_at, pushed_by FROM run_notes WHERE run_id = ?", (run_id,)
    ).fetchone()
    session["note"] = "" if note is None else note[0]
    if note is not None:
        session["note_author"], session["note_at"] = note[1], note[2]
        session["note_pushed_by"] = note[3]
    session["note_history"] = [
        {
            "text": r["text"], "author": r["author"], "written_at": r["written_at"],
            "replaced_by": r["replaced_by"], "replaced_at": r["replaced_at"],
            "unseen": r["unseen"], "pushed_by": r["pushed_by"],
        }
        for r in conn.execute(
            "SELECT text, author, written_at, replaced_by, replaced_at, unseen, pushed_by"
            " FROM run_note_history WHERE run_id = ? ORDER BY id",
            (run_id,),
        )
    ]  # fmt: skip
    array = conn.execute(
        "SELECT device, count, hand_cost, currency, note FROM run_arrays WHERE run_id = ?",
        (run_id,),
    ).fetchone()
    session["array"] = (
        None
        if array is None
        else {k: array[k] for k in ("device", "count", "hand_cost", "currency", "note")}
    )
    storage = conn.execute(
        "SELECT devices, count, raid, filesystem, note, updated_at FROM run_storage"
        " WHERE run_id = ?",
        (run_id,),
    ).fetchone()
    session["storage"] = (
        None
        if storage is None
        else {
            k: storage[k] for k in ("devices", "count", "raid", "filesystem", "note", "updated_at")
        }
    )
