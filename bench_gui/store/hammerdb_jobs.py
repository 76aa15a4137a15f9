"""HammerDB's results as plain data: its SQLite job store, or the text log it writes.

HammerDB 4 and later keep every job in a SQLite file (``hammer.DB``): ``JOBMAIN`` (job id,
database, benchmark, start time and the configuration as a Tcl dict), ``JOBOUTPUT`` (every line
each virtual user printed: vu 0 the console, vu 1 the monitor with the ``TEST RESULT`` line,
vu 2 and up the active users), ``JOBTIMING`` (response times per transaction type when the time
profile was on; ``summary = 1`` rows are over all users), ``JOBSYSTEM`` (the host, when
recorded). Its log file (``hammerdb.log``) holds the same output, one
``Hammerdb Log @ <date>`` section per run, each line ``Vuser N:<text>``.

:func:`read_hammerdb` reads either into :class:`HammerJob` records; nothing here writes. Jobs
that failed (an error in a user, every transaction failing, no result line) are read too, with
the reason, so the importer can say what it did with each one. Passwords in the configuration
(``pg_pass``, ``pg_superuserpass``...) are removed as the job is read.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any, Final

SQLITE_MAGIC: Final = b"SQLite format 3\x00"
LOG_HEADER: Final = "Hammerdb Log @"
# HammerDB's procedure names (JOBTIMING.procname) -> bench-gui's transaction keys.
PROC_KEYS: Final = {
    "NEWORD": "new_order",
    "PAYMENT": "payment",
    "DELIVERY": "delivery",
    "SLEV": "stock_level",
    "OSTAT": "order_status",
}
_RESULT: Final = re.compile(r"TEST RESULT : System achieved (\d+) NOPM from (\d+) (.+?) TPM")
# HammerDB 3: "System achieved 114282 PostgreSQL TPM at 49669 NOPM".
_RESULT_V3: Final = re.compile(r"TEST RESULT : System achieved (\d+) (.+?) TPM at (\d+) NOPM")
_ACTIVE: Final = re.compile(r"^(\d+) Active Virtual Users configured")
_RAMPUP: Final = re.compile(r"^Beginning rampup time of ([\d.]+) minutes")
_TIMED: Final = re.compile(r"^Timing test period of ([\d.]+) in minutes")
_LOG_LINE: Final = re.compile(r"^Vuser (\d+):(.*)$")
_SECRET: Final = re.compile(r"pass|secret|token", re.IGNORECASE)


class HammerDBError(ValueError):
    """A file that is not a HammerDB job store or log; the message names the file and why."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: cannot import from HammerDB: {reason}")


@dataclass
class HammerJob:
    """One HammerDB job (one ``vurun``: one virtual-user count), as read."""

    job_id: str
    database: str  # HammerDB's name of it: PostgreSQL, MySQL, MSSQLServer...
    benchmark: str  # TPC-C (TPROC-C) or TPC-H
    started: datetime  # aware
    config: dict[str, Any]  # the job's dict, secrets removed
    lines: list[tuple[int, str]]  # (virtual user, text) in the order HammerDB stored them
    timings: list[dict[str, Any]] = field(default_factory=list)  # JOBTIMING rows
    system: dict[str, Any] = field(default_factory=dict)  # JOBSYSTEM row

    # -- what the output says ------------------------------------------------------------------

    def _monitor(self) -> list[str]:
        return [text for vu, text in self.lines if vu <= 1]

    @property
    def result(self) -> tuple[float, float] | None:
        """(NOPM, TPM) of the ``TEST RESULT`` line, or None."""
        for text in self._monitor():
            match = _RESULT.search(text)
            if match:
                return float(match.group(1)), float(match.group(2))
            match = _RESULT_V3.search(text)
            if match:
                return float(match.group(3)), float(match.group(1))
        return None

    @property
    def server_version(self) -> str | None:
        """``PostgreSQL 15.20 (Debian 15.20-0+deb12u1)`` from the ``DBVersion:`` line."""
        for text in self._monitor():
            if text.startswith("DBVersion:"):
                version = text.partition(":")[2].strip()
                return f"{self.database} {version}" if version else None
        return None

    @property
    def kind(self) -> str:
        """``run`` (a timed or test driver run), ``build`` (a schema build) or ``other``."""
        monitor = self._monitor()
        if any("SCHEMA" in t and t.startswith(("CREATING", "TPCC SCHEMA")) for t in monitor):
            return "build"
        markers = ("Beginning rampup", "Timing test period", "TEST RESULT", "DBVersion:")
        if any(t.startswith(markers) or "TEST RESULT" in t for t in monitor):
            return "run"
        return "other"

    @property
    def vus(self) -> int | None:
        """Active virtual users: HammerDB's own line, else the users started (less the
        monitor), else the configuration's count."""
        for text in self._monitor():
            match = _ACTIVE.match(text)
            if match:
                return int(match.group(1))
        # No such line (a failed job): what was configured, or the users that printed more.
        started = len({vu for vu, _text in self.lines if vu >= 2})
        configured = _int(self.setting("_num_vu")) or 0
        return max(started, configured) or None

    def _minutes(self, pattern: re.Pattern[str], suffix: str) -> float | None:
        for text in self._monitor():
            match = pattern.match(text)
            if match:
                return float(match.group(1))
        number = _int(self.setting(suffix))
        return None if number is None else float(number)

    @property
    def rampup_min(self) -> float | None:
        return self._minutes(_RAMPUP, "_rampup")

    @property
    def duration_min(self) -> float | None:
        return self._minutes(_TIMED, "_duration")

    @property
    def warehouses(self) -> int | None:
        return _int(self.setting("_count_ware"))

    @property
    def failure(self) -> str:
        """Why a job has no result (or its result is partial); "" when nothing went wrong."""
        first_error = next(
            (t for _vu, t in self.lines if t.startswith("Error in Virtual User")), ""
        )
        procedure = sum(1 for _vu, t in self.lines if "Procedure Error" in t)
        if self.result is not None:
            if not first_error:
                return ""
            if self.setting("_timeprofile") == "true" and not self.timings:
                return f"time profile on, but its timings were not stored: {first_error}"
            return f"after the result: {first_error}"
        if first_error:
            return first_error
        if procedure:
            return f"every transaction failed ({procedure} procedure errors) and no result"
        if self.kind == "build":
            done = any("SCHEMA COMPLETE" in t for t in self._monitor())
            return "" if done else "the schema build did not complete"
        return "no TEST RESULT line: the job ended without a result"

    # -- configuration ------------------------------------------------------------------------

    def setting(self, suffix: str) -> str | None:
        """The benchmark section's value of the key ending in ``suffix`` (``_count_ware``:
        ``pg_count_ware``, ``mysql_count_ware``...), or the connection section's."""
        for section in ("tpcc", "tpch", "connection"):
            values = self.config.get(section)
            if isinstance(values, dict):
                for key, value in values.items():
                    if key.endswith(suffix) and isinstance(value, str):
                        return value
        return None

    def comparable_config(self) -> dict[str, Any]:
        """The configuration without the user count: jobs of one sweep share it."""
        out: dict[str, Any] = {"database": self.database, "benchmark": self.benchmark}
        for section, values in self.config.items():
            if isinstance(values, dict):
                out[section] = {k: v for k, v in values.items() if not k.endswith("_num_vu")}
            else:
                out[section] = values
        return out

    def latency_ms(self) -> dict[str, dict[str, float]]:
        """Response times per transaction type (and ``all``) from JOBTIMING, in bench-gui's
        shape: the summary rows over all users, else the users' rows merged (mean weighted
        by calls, highest max; percentiles only from summary rows or a single user)."""
        rows = [r for r in self.timings if str(r.get("procname") or "").upper() in PROC_KEYS]
        summary = [r for r in rows if r.get("summary") == 1]
        chosen = summary or rows
        by_key: dict[str, list[dict[str, Any]]] = {}
        for row in chosen:
            by_key.setdefault(PROC_KEYS[str(row["procname"]).upper()], []).append(row)
        out: dict[str, dict[str, float]] = {}
        total_calls = 0.0
        weighted = 0.0
        top = 0.0
        for key, items in by_key.items():
            calls = sum(_num(r.get("calls")) or 0.0 for r in items)
            times: dict[str, float] = {}
            if calls:
                mean = sum((_num(r.get("avg_ms")) or 0.0) * (_num(r.get("calls")) or 0.0)
                           for r in items) / calls  # fmt: skip
                times["avg"] = round(mean, 3)
                total_calls += calls
                weighted += mean * calls
            highest = max((_num(r.get("max_ms")) or 0.0) for r in items)
            times["max"] = round(highest, 3)
            top = max(top, highest)
            if len(items) == 1:
                for name, column in (("p50", "p50_ms"), ("p95", "p95_ms"), ("p99", "p99_ms")):
                    value = _num(items[0].get(column))
                    if value is not None:
                        times[name] = round(value, 3)
            out[key] = times
        if total_calls:
            out["all"] = {"avg": round(weighted / total_calls, 3), "max": round(top, 3)}
        return out

    def calls(self) -> dict[str, int]:
        """Calls per transaction type the time profile counted (summary rows, else summed)."""
        rows = [r for r in self.timings if str(r.get("procname") or "").upper() in PROC_KEYS]
        chosen = [r for r in rows if r.get("summary") == 1] or rows
        out: dict[str, int] = {}
        for row in chosen:
            key = PROC_KEYS[str(row["procname"]).upper()]
            out[key] = out.get(key, 0) + int(_num(row.get("calls")) or 0)
        return out


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


# ---- Tcl dicts ----------------------------------------------------------------------------------


def tcl_words(text: str) -> list[str]:
    """The words of a Tcl list: ``{a b} c "d e"`` -> ``["a b", "c", "d e"]``; a ValueError
    for an unbalanced brace or quote."""
    words: list[str] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        if text[i] == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                if text[j] == "\\":
                    j += 2
                    continue
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            if depth:
                raise ValueError("unbalanced braces")
            words.append(text[i + 1 : j - 1])
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise ValueError("unbalanced quotes")
            words.append(text[i + 1 : j])
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace():
                j += 1
            words.append(text[i:j])
            i = j
    return words


def parse_jobdict(text: str) -> dict[str, Any]:
    """HammerDB's job dict (``connection {pg_host ...} tpcc {pg_count_ware 8 ...}``) as
    ``{section: {key: value}}``, with every key that holds a password left out."""
    words = tcl_words(text)
    if len(words) % 2:
        raise ValueError("an odd number of words: not a dict")
    out: dict[str, Any] = {}
    for section, body in zip(words[::2], words[1::2], strict=True):
        inner = tcl_words(body)
        if len(inner) % 2 == 0 and inner:
            out[section] = {
                k: v for k, v in zip(inner[::2], inner[1::2], strict=True) if not _SECRET.search(k)
            }
        elif not _SECRET.search(section):
            out[section] = body
    return out


# ---- reading ------------------------------------------------------------------------------------


def _when(text: str, zone: tzinfo) -> datetime:
    """JOBMAIN's ``2026-11-23 15:29:55`` (the HammerDB host's local time) as an aware time."""
    return datetime.fromisoformat(text.strip()).replace(tzinfo=zone)


def read_job_store(path: Path, zone: tzinfo = UTC) -> list[HammerJob]:
    """Every job of a HammerDB SQLite job store, oldest first (``zone``: the time zone of the
    host HammerDB ran on, whose local time the store keeps)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise HammerDBError(path, f"cannot open it ({exc})") from exc
    try:
        conn.row_factory = sqlite3.Row
        tables = {r[0].upper() for r in conn.execute("SELECT name FROM sqlite_master")}
        missing = {"JOBMAIN", "JOBOUTPUT"} - tables
        if missing:
            raise HammerDBError(
                path,
                f"a SQLite file, but not HammerDB's job store (no {', '.join(sorted(missing))})",
            )
        outputs: dict[str, list[tuple[int, str]]] = {}
        for row in conn.execute("SELECT jobid, vu, output FROM JOBOUTPUT ORDER BY rowid"):
            outputs.setdefault(str(row[0]), []).append((int(row[1] or 0), str(row[2] or "")))
        timings: dict[str, list[dict[str, Any]]] = {}
        if "JOBTIMING" in tables:
            for row in conn.execute("SELECT * FROM JOBTIMING ORDER BY rowid"):
                timings.setdefault(str(row["jobid"]), []).append(dict(row))
        systems: dict[str, dict[str, Any]] = {}
        if "JOBSYSTEM" in tables:
            for row in conn.execute("SELECT * FROM JOBSYSTEM"):
                record = dict(row)
                systems[str(record.pop("jobid"))] = record
        jobs = []
        for row in conn.execute(
            "SELECT jobid, db, bm, jobdict, timestamp FROM JOBMAIN ORDER BY timestamp, jobid"
        ):
            job_id = str(row["jobid"])
            try:
                config = parse_jobdict(str(row["jobdict"] or ""))
                started = _when(str(row["timestamp"]), zone)
            except ValueError as exc:
                raise HammerDBError(path, f"job {job_id} cannot be read: {exc}") from exc
            jobs.append(
                HammerJob(
                    job_id=job_id,
                    database=str(row["db"] or ""),
                    benchmark=str(row["bm"] or ""),
                    started=started,
                    config=config,
                    lines=outputs.get(job_id, []),
                    timings=timings.get(job_id, []),
                    system=systems.get(job_id, {}),
                )
            )
        return jobs
    except sqlite3.Error as exc:
        raise HammerDBError(path, f"it cannot be read as a job store ({exc})") from exc
    finally:
        conn.close()


_ZONES: Final = {"UTC": UTC, "GMT": UTC}


def _log_date(text: str, zone: tzinfo) -> datetime:
    """``Mon Nov 23 15:44:34 UTC 2026`` (Tcl's clock format) as an aware time."""
    parts = text.split()
    if len(parts) != 6:
        raise ValueError(f"the date {text!r} is not like 'Mon Nov 23 15:44:34 UTC 2026'")
    when = datetime.strptime(" ".join(parts[:4] + parts[5:]), "%a %b %d %H:%M:%S %Y")
    return when.replace(tzinfo=_ZONES.get(parts[4], zone))


def read_log(path: Path, zone: tzinfo = UTC, text: str | None = None) -> list[HammerJob]:
    """Every run of a HammerDB log file (one ``Hammerdb Log @`` section each). A log does not
    name its jobs: each gets ``log-`` and a digest of its own text, so an import of the same
    log again finds it."""
    if text is None:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise HammerDBError(path, exc.strerror or str(exc)) from exc
    jobs: list[HammerJob] = []
    current: list[str] | None = None
    sections: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith(LOG_HEADER):
            current = []
            sections.append((line[len(LOG_HEADER) :].strip(), current))
        elif current is not None:
            current.append(line)
    if not sections:
        raise HammerDBError(path, f"neither a HammerDB job store nor a log ('{LOG_HEADER}')")
    for date, body in sections:
        lines: list[tuple[int, str]] = []
        for raw in body:
            match = _LOG_LINE.match(raw)
            if match:
                lines.append((int(match.group(1)), match.group(2)))
        try:
            started = _log_date(date, zone)
        except ValueError as exc:
            raise HammerDBError(path, str(exc)) from exc
        digest = hashlib.sha256("\n".join([date, *body]).encode()).hexdigest()[:16]
        database = next(
            (m.group(3) for _vu, t in lines if (m := _RESULT.search(t))),
            next((m.group(2) for _vu, t in lines if (m := _RESULT_V3.search(t))), ""),
        )
        jobs.append(
            HammerJob(
                job_id=f"log-{digest}",
                database=database,
                benchmark="TPC-C" if lines else "",
                started=started,
                config={},
                lines=lines,
            )
        )
    return jobs


def read_hammerdb(path: Path, utc_offset_h: float | None = None) -> list[HammerJob]:
    """The jobs of a HammerDB job store or log file; a :class:`HammerDBError` names the file
    and what is wrong with it. ``utc_offset_h``: the HammerDB host's offset from UTC, in
    hours (default: this machine's own zone)."""
    zone: tzinfo
    if utc_offset_h is None:
        zone = datetime.now().astimezone().tzinfo or UTC
    else:
        if not -14 <= utc_offset_h <= 14:
            raise ValueError(f"a UTC offset is between -14 and 14 hours, got {utc_offset_h:g}")
        zone = timezone(timedelta(hours=utc_offset_h))
    if path.is_dir():
        raise HammerDBError(path, "a folder: give HammerDB's hammer.DB or its log file")
    try:
        with path.open("rb") as fh:
            head = fh.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise HammerDBError(path, exc.strerror or str(exc)) from exc
    if head == SQLITE_MAGIC:
        jobs = read_job_store(path, zone)
    else:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise HammerDBError(path, exc.strerror or str(exc)) from exc
        if b"\x00" in raw[:4096]:
            raise HammerDBError(path, "neither a HammerDB job store (SQLite) nor a text log")
        jobs = read_log(path, zone, raw.decode("utf-8", errors="replace"))
    if not jobs:
        raise HammerDBError(path, "it holds no HammerDB jobs")
    return jobs
