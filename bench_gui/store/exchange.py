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

Someone else wrote the file: it is opened only if it is a regular file (a FIFO would block for
ever), its JSON is counted before it is parsed (bytes, and tables, lists and values: a small
file of tiny values would otherwise take gigabytes once parsed), and the session is checked by
the one check a team store's pull uses too (:mod:`bench_gui.store.session_check`: the plan as a
plan file is checked, figures in range, texts of a sensible length), then written by
:mod:`bench_gui.store.session_write`. A session the store has already (the same UUID) comes in
as a copy: a UUID of its own and the original's as its origin (the same measurement).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import stat
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, Final, Protocol

from bench_gui import __version__
from bench_gui.store.session_check import (
    RecordError,
    check_structure,
    check_values,
    short,
)
from bench_gui.store.session_write import write_session
from bench_gui.store.sessions import SessionStore, StoreError

FORMAT: Final = "bench-gui-session-file"
VERSION: Final = 1
SUFFIX: Final = ".bgsession.json"
# The most JSON a session file may hold once decompressed. A sample a second with host metrics
# is about 3.3 KB as exported, so this is some 22 hours of samples; parsed, JSON takes three to
# four times its size in memory (and far more for a file made of tiny values), so a bigger file
# is refused before it is parsed. A compressed file is measured first, inflated in chunks and
# thrown away: a gzip bomb costs time, never memory.
MAX_JSON_BYTES: Final = 256 * 1024**2
# What a session file may hold once parsed, counted in the bytes before they are parsed (an
# upper bound: a comma or bracket inside a text counts too). JSON's parser makes an object of
# every value, so a file of tiny values ("{},{},...") takes twenty times its size in memory:
# bytes alone do not bound it. A real session has one container ({ or [) per 60 bytes or so
# and one value per 12 (a sample a second is about 3.3 KB with some 250 values and 50 tables).
MAX_CONTAINERS: Final = 4_000_000
MAX_VALUES: Final = 24_000_000
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


def _open_regular(path: Path) -> BinaryIO:
    """The file, opened for reading only if it is a regular file: a FIFO, a device or a
    socket is refused by name instead of read for ever (opened without blocking, then
    looked at, so nothing can be swapped in between)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _fail(path, f"the file cannot be read ({exc.strerror or exc})") from exc
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = (
                "a named pipe (FIFO)" if stat.S_ISFIFO(mode)
                else "a folder" if stat.S_ISDIR(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                else "a socket" if stat.S_ISSOCK(mode)
                else "not a regular file"
            )  # fmt: skip
            raise _fail(path, f"it is {kind}, not a session file: give a regular file")
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_bytes(path: Path, max_bytes: int) -> bytearray:
    """The file's JSON bytes, never more than ``max_bytes`` of them: a plain file by its size,
    a gzip-compressed one inflated twice, in chunks: once to count (nothing kept, so a small
    file that inflates to gigabytes costs no memory), then, when it fits, to keep."""
    file = _open_regular(path)
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
    """The stream's bytes (``keep``) or none (only counted), refused past ``max_bytes`` or
    when they hold more tables, lists or values than a session (:data:`MAX_CONTAINERS`,
    :data:`MAX_VALUES`): what the parser would make of them is bounded before it runs."""
    data = bytearray()
    total = containers = values = 0
    while chunk := stream.read(_CHUNK):
        total += len(chunk)
        if total > max_bytes:
            raise _too_large(path, max_bytes)
        containers += chunk.count(b"{") + chunk.count(b"[")
        values += chunk.count(b",") + chunk.count(b":")
        if containers > MAX_CONTAINERS or values > MAX_VALUES:
            raise _fail(
                path,
                "its JSON holds more tables, lists or values than a session file may (at most"
                f" {MAX_CONTAINERS:,} tables and lists, {MAX_VALUES:,} values; refused before"
                " it is parsed)",
            )
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
        raise _fail(path, f"the file format version is missing or invalid ({short(version)})")
    if version > VERSION:
        raise _fail(
            path,
            f"the file was written by a newer bench-gui (file format version"
            f" {short(version)}, this one reads up to {VERSION}); update bench-gui to import it",
        )
    if version < 1:
        raise _fail(path, f"unknown file format version {short(version)}")
    session = document.get("session")
    expected = document.get("sha256")
    if not isinstance(session, dict) or not isinstance(expected, str):
        raise _fail(path, "the file is damaged: the session or its checksum is missing")
    try:
        check_values(session)
    except RecordError as exc:
        raise _fail(path, f"the file is damaged: {exc.what}") from None
    try:
        actual = checksum(session)
    except ValueError as exc:  # a lone surrogate
        raise _fail(path, f"the file is damaged ({exc})") from exc
    if actual != expected.lower():
        raise _fail(
            path,
            "the file is damaged or was edited: its checksum does not match its content"
            f" (expected {short(expected[:12])}..., got {actual[:12]}...)",
        )
    try:
        check_structure(session)
    except RecordError as exc:
        raise _fail(
            path, f"the session in the file is incomplete or malformed: {exc.what}"
        ) from None
    return document


# ---- writing ------------------------------------------------------------------------------------


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
        log_line = (
            f"imported from {path.name} (exported {_header(document, 'exported_at')} by"
            f" bench-gui {_header(document, 'app_version')})"
        )
        run_id = write_session(store, document["session"], log_line, copy_if_known=True)
        assert run_id is not None  # a copy is made when the store has the session
        return run_id
    except StoreError as exc:
        if "constraint" in exc.reason.lower():
            # Validated, yet inconsistent (two steps with one number...): nothing was written.
            raise _fail(path, f"the session in the file is inconsistent ({exc.reason})") from exc
        raise
    except ValueError as exc:  # the store's own checks (tags, the array): nothing was written
        raise _fail(path, f"the session in the file is inconsistent ({exc})") from exc
