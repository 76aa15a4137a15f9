"""What a run streams: its events, samples, step results, histograms and log, stored and read.

:class:`RunStream` is mixed into :class:`~bench_gui.store.sessions.SessionStore` and works
through its transactions (:class:`~bench_gui.store.store_core.StoreCore`). Each event from the
agent is committed as it arrives, once: its seq is the key that makes a replay after a
reconnect harmless.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, Final

from bench_gui.core.crosscheck import nopm_doubt
from bench_gui.store.dialect import DbConnection
from bench_gui.store.errors import StoreError
from bench_gui.store.records import LogLine, Sample, StepResult
from bench_gui.store.row_values import _dict, _dumps, _int, _iso, _loads, _num
from bench_gui.store.store_core import StoreCore
from bench_gui.wire.protocol import Event

# The agent's ``done`` status -> the session status. Anything else: "incomplete" (never claim a
# success the agent did not report, never throw away what was measured).
DONE_STATUSES: Final = {"ok": "complete", "stopped": "incomplete", "failed": "failed"}

# Sample fields with a column of their own; the rest of the event goes to ``extra``.
_SAMPLE_COLUMNS: Final = frozenset(
    {"step", "vus", "phase", "elapsed", "nopm_driver", "tpm_driver", "nopm_db", "tpm_db"}
    | {"counts", "errors", "latency_ms"}
)


class RunStream(StoreCore):
    """The agent's events of a run and the desktop's log lines: written as they come, read back."""

    def add_event(self, run_id: int, event: Event) -> bool:
        """Store one event from the agent, committed at once; False if its seq was already stored.

        Replays after a reconnect are therefore harmless: an event is stored once, ever.
        """
        data = event.data
        own_table = event.kind in ("sample", "log", "error") or (
            event.kind == "step" and data.get("phase") == "end"
        )
        with self.transaction() as conn:
            self._require(conn, run_id)
            cur = conn.execute(
                "INSERT OR IGNORE INTO events (run_id, seq, kind, t, data) VALUES (?, ?, ?, ?, ?)",
                (run_id, event.seq, event.kind, event.t, None if own_table else _dumps(data)),
            )
            if cur.rowcount == 0:
                return False
            handler = self._handlers.get(event.kind)
            if handler is not None:
                handler(conn, run_id, event)
        return True

    def _on_sample(self, conn: DbConnection, run_id: int, event: Event) -> None:
        d = event.data
        extra = {k: v for k, v in d.items() if k not in _SAMPLE_COLUMNS}
        conn.execute(
            "INSERT INTO samples (run_id, seq, t, step, vus, phase, elapsed, nopm_driver,"
            " tpm_driver, nopm_db, tpm_db, counts, errors, latency_ms, extra)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                event.seq,
                event.t,
                _int(d.get("step")),
                _int(d.get("vus")),
                str(d.get("phase") or ""),
                _num(d.get("elapsed")),
                _num(d.get("nopm_driver")),
                _num(d.get("tpm_driver")),
                _num(d.get("nopm_db")),
                _num(d.get("tpm_db")),
                _dumps(_dict(d.get("counts"))),
                _dumps(_dict(d.get("errors"))),
                _dumps(_dict(d.get("latency_ms"))),
                _dumps(extra),
            ),
        )

    def _on_step(self, conn: DbConnection, run_id: int, event: Event) -> None:
        if event.data.get("phase") != "end":
            return
        summary = _dict(event.data.get("summary"))
        step = _int(summary.get("step", event.data.get("step")))
        vus = _int(summary.get("vus", event.data.get("vus")))
        histograms = _dict(summary.get("histograms"))
        rest = {k: v for k, v in summary.items() if k != "histograms"}
        # A step reported twice (agent restarted the step): the later report wins, whole.
        conn.execute("DELETE FROM histograms WHERE run_id = ? AND step = ?", (run_id, step))
        conn.execute(
            "INSERT INTO steps (run_id, step, seq, t, vus, nopm, tpm, nopm_driver,"
            " window_s, complete, latency, counts, errors, summary)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (run_id, step) DO UPDATE SET seq = excluded.seq, t = excluded.t,"
            " vus = excluded.vus, nopm = excluded.nopm, tpm = excluded.tpm,"
            " nopm_driver = excluded.nopm_driver, window_s = excluded.window_s,"
            " complete = excluded.complete, latency = excluded.latency,"
            " counts = excluded.counts, errors = excluded.errors, summary = excluded.summary",
            (
                run_id,
                step,
                event.seq,
                event.t,
                vus,
                _num(summary.get("nopm")),
                _num(summary.get("tpm")),
                _num(summary.get("nopm_driver")),
                _num(summary.get("window_s")),
                1 if summary.get("complete", True) else 0,
                _dumps(_dict(summary.get("latency_ms"))),
                _dumps(_dict(summary.get("counts"))),
                _dumps(_dict(summary.get("errors"))),
                _dumps(rest),
            ),
        )
        conn.executemany(
            "INSERT INTO histograms (run_id, step, tx, hdr) VALUES (?, ?, ?, ?)",
            [(run_id, step, tx, hdr) for tx, hdr in histograms.items() if isinstance(hdr, str)],
        )

    def _on_hello(self, conn: DbConnection, run_id: int, event: Event) -> None:
        d = event.data
        # Records as the agent builds them; anything else kept as text (an older agent).
        settings = {
            str(k): v if isinstance(v, dict) else str(v)
            for k, v in _dict(d.get("settings")).items()
        }
        agent = {k: v for k, v in d.items() if k not in ("server", "settings")}
        server = d.get("server")
        conn.execute(
            "UPDATE runs SET server_version = ?, settings = ?, agent = ? WHERE id = ?",
            (None if server is None else str(server), _dumps(settings), _dumps(agent), run_id),
        )

    def _on_progress(self, conn: DbConnection, run_id: int, event: Event) -> None:
        """A random-read run's raw-IOPS result joins the run's record of the study
        (``agent["random_read"]["raw_iops"]``), where the session's other figures are."""
        record = event.data.get("raw_iops")
        if event.data.get("task") != "raw_iops" or not isinstance(record, dict):
            return
        row = conn.execute("SELECT agent FROM runs WHERE id = ?", (run_id,)).fetchone()
        agent = _dict(_loads(row[0] if row else None, {}))
        agent["random_read"] = {**_dict(agent.get("random_read")), "raw_iops": record}
        conn.execute("UPDATE runs SET agent = ? WHERE id = ?", (_dumps(agent), run_id))

    def _on_log(self, conn: DbConnection, run_id: int, event: Event) -> None:
        level = str(event.data.get("level") or "info")
        self._insert_log(conn, run_id, event.seq, event.t, level, str(event.get("message", "")))

    def _on_error(self, conn: DbConnection, run_id: int, event: Event) -> None:
        message = str(event.get("message", ""))
        if event.get("code"):
            message = f"{event.get('code')}: {message}"
        level = "fatal" if event.get("fatal") else "error"
        self._insert_log(conn, run_id, event.seq, event.t, level, message)

    def _on_done(self, conn: DbConnection, run_id: int, event: Event) -> None:
        status = DONE_STATUSES.get(str(event.get("status")), "incomplete")
        conn.execute(
            "UPDATE runs SET status = ?, finished_at = ?, message = ? WHERE id = ?",
            (status, _iso(event.t), str(event.get("message") or ""), run_id),
        )

    @staticmethod
    def _insert_log(
        conn: DbConnection, run_id: int, seq: int | None, t: float, level: str, message: str
    ) -> None:
        conn.execute(
            "INSERT INTO run_log (run_id, seq, t, level, message) VALUES (?, ?, ?, ?, ?)",
            (run_id, seq, t, level, message),
        )

    def add_log(self, run_id: int, level: str, message: str, t: float | None = None) -> None:
        """Add a desktop-side line to a run's log (commands run on the target, reconnects...)."""
        when = datetime.now(UTC).timestamp() if t is None else t
        with self.transaction() as conn:
            self._require(conn, run_id)
            self._insert_log(conn, run_id, None, when, level, message)

    def last_seq(self, run_id: int) -> int:
        """The highest event seq stored for a run (0 if none): where to resume the stream."""
        rows = self._rows(run_id, "SELECT MAX(seq) FROM events WHERE run_id = ?", (run_id,))
        return int(rows[0][0] or 0)

    def stored_seqs(self, run_id: int) -> frozenset[int]:
        """Every event seq stored for a run: what a re-attach passes over in the spool."""
        rows = self._rows(run_id, "SELECT seq FROM events WHERE run_id = ?", (run_id,))
        return frozenset(int(row[0]) for row in rows)

    def samples(self, run_id: int, since_seq: int = 0) -> list[Sample]:
        """Samples in seq order; ``since_seq`` fetches only newer ones (live charts, re-attach)."""
        rows = self._rows(
            run_id,
            "SELECT * FROM samples WHERE run_id = ? AND seq > ? ORDER BY seq",
            (run_id, since_seq),
        )
        return [
            Sample(
                seq=row["seq"],
                t=row["t"],
                step=row["step"] or 0,
                vus=row["vus"] or 0,
                phase=row["phase"] or "",
                elapsed=row["elapsed"] or 0.0,
                nopm_driver=row["nopm_driver"],
                tpm_driver=row["tpm_driver"],
                nopm_db=row["nopm_db"],
                tpm_db=row["tpm_db"],
                counts=self._json(row["counts"], run_id, f"sample {row['seq']}'s counts"),
                errors=self._json(row["errors"], run_id, f"sample {row['seq']}'s errors"),
                latency_ms=self._json(
                    row["latency_ms"], run_id, f"sample {row['seq']}'s latency_ms"
                ),
                extra=self._json(row["extra"], run_id, f"sample {row['seq']}'s extra"),
            )
            for row in rows
        ]

    def _json(self, text: str, run_id: int, what: str) -> Any:
        """A JSON column of a session's row; a StoreError naming it when it is not JSON (a
        team store's row anyone could have written)."""
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise StoreError(
                self.where,
                f"read session {run_id}",
                f"its {what} is not valid JSON: the record is damaged (delete it, or import it"
                " again from a file)",
            ) from None

    def steps(self, run_id: int) -> list[StepResult]:
        """Step results in step order: the rows of the comparison tables."""
        rows = self._rows(run_id, "SELECT * FROM steps WHERE run_id = ? ORDER BY step", (run_id,))
        return [
            StepResult(
                step=row["step"],
                vus=row["vus"],
                nopm=row["nopm"],
                tpm=row["tpm"],
                nopm_driver=row["nopm_driver"],
                window_s=row["window_s"],
                complete=bool(row["complete"]),
                latency_ms=self._json(row["latency"], run_id, f"step {row['step']}'s latency"),
                counts=self._json(row["counts"], run_id, f"step {row['step']}'s counts"),
                errors=self._json(row["errors"], run_id, f"step {row['step']}'s errors"),
                summary=self._json(row["summary"], run_id, f"step {row['step']}'s summary"),
                seq=row["seq"],
                t=row["t"],
                nopm_flag=nopm_doubt(row["nopm"], row["nopm_driver"], row["window_s"], row["vus"]),
            )
            for row in rows
        ]

    def histograms(self, run_id: int, step: int) -> dict[str, str]:
        """{tx: base64 HDR histogram (microseconds)} of one step, for merging and percentiles."""
        rows = self._rows(
            run_id,
            "SELECT tx, hdr FROM histograms WHERE run_id = ? AND step = ? ORDER BY tx",
            (run_id, step),
        )
        return {row["tx"]: row["hdr"] for row in rows}

    def log(self, run_id: int) -> list[LogLine]:
        """The run's log in arrival order, agent and desktop lines interleaved."""
        rows = self._rows(
            run_id,
            "SELECT seq, t, level, message FROM run_log WHERE run_id = ? ORDER BY id",
            (run_id,),
        )
        return [LogLine(row["seq"], row["t"], row["level"], row["message"]) for row in rows]
