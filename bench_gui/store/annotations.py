"""What people add to sessions after the fact: tags, notes, prices and array descriptions.

Kept apart from the measured data (runs, samples, steps) in tables of their own (schema
migration 2), so editing a note can never touch a measurement. :class:`SessionExtras` is mixed
into :class:`~bench_gui.store.sessions.SessionStore`; its methods use the store's transactions.
Edits of a session's tags, note, array and storage description are operations
(:mod:`bench_gui.store.team_edits`): the same on both backends, queued in a local file when the
session is also in a team store.

Prices are the inputs of the economics (seed 000): a device price list (unit price, currency,
date, source note), power prices per kWh, and per session what its array is made of (device
and count, taken from the stored storage layout or entered by hand) and a cost entered by hand.

A storage description (schema migration 3) is what the user says about a session's storage
where bench-gui did not build the layout: devices, count, RAID level, filesystem, a note.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from bench_gui.core.economics import ArrayInput, DevicePrice, PowerPrice
from bench_gui.store.dialect import DbConnection
from bench_gui.store.records import RunInfo
from bench_gui.store.team_edits import apply_edit, delete_price, note_edit, queue_edits

if TYPE_CHECKING:
    from bench_gui.store.team_store import TeamStoreConfig

MAX_TAG_LENGTH: Final = 40

# Migration 2 of the session store (see sessions.MIGRATIONS).
EXTRAS_MIGRATION: Final[tuple[str, ...]] = (
    """CREATE TABLE run_tags (
        run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        tag TEXT NOT NULL COLLATE NOCASE,
        PRIMARY KEY (run_id, tag)
    ) WITHOUT ROWID""",
    "CREATE INDEX run_tags_by_tag ON run_tags (tag)",
    """CREATE TABLE run_notes (
        run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    """CREATE TABLE device_prices (
        id INTEGER PRIMARY KEY,
        device TEXT NOT NULL,
        unit_price REAL NOT NULL CHECK (unit_price >= 0),
        currency TEXT NOT NULL,
        price_date TEXT NOT NULL DEFAULT '',
        source TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE power_prices (
        id INTEGER PRIMARY KEY,
        per_kwh REAL NOT NULL CHECK (per_kwh >= 0),
        currency TEXT NOT NULL,
        price_date TEXT NOT NULL DEFAULT '',
        source TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE run_arrays (
        run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
        device TEXT,
        count INTEGER CHECK (count IS NULL OR count > 0),
        hand_cost REAL CHECK (hand_cost IS NULL OR hand_cost >= 0),
        currency TEXT,
        note TEXT NOT NULL DEFAULT ''
    )""",
)


# Part of migration 3 (bench_gui.store.settings_migration): the storage the user describes.
STORAGE_DESCRIPTION_DDL: Final[tuple[str, ...]] = (
    """CREATE TABLE run_storage (
        run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
        devices TEXT NOT NULL DEFAULT '',
        count INTEGER CHECK (count IS NULL OR count > 0),
        raid TEXT NOT NULL DEFAULT '',
        filesystem TEXT NOT NULL DEFAULT '',
        note TEXT NOT NULL DEFAULT '',
        updated_at TEXT NOT NULL
    )""",
)
MAX_DESCRIPTION_FIELD: Final = 200
_RAID_WORDS: Final = {"none": "none", "no": "none", "jbod": "jbod", "single": "none"}
_RAID_NUMBERS: Final = frozenset({"0", "1", "2", "3", "4", "5", "6", "10", "50", "60", "100"})


@dataclass(frozen=True)
class NoteVersion:
    """A note text that was replaced or removed: who wrote it, who replaced it and whether
    they had seen it (``unseen``: two people at once, or an edit made offline)."""

    text: str
    author: str
    written_at: str
    replaced_by: str
    replaced_at: str
    unseen: bool


@dataclass(frozen=True)
class PriceEntry:
    """A stored device price with its id (to delete or replace it)."""

    id: int
    price: DevicePrice
    created_at: str


@dataclass(frozen=True)
class PowerPriceEntry:
    """A stored power price with its id."""

    id: int
    price: PowerPrice
    created_at: str


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def storable_text(text: str, what: str) -> str:
    """``text`` if SQLite can store it; a ValueError naming ``what`` otherwise.

    A lone surrogate (what undecodable bytes on a command line become) has no UTF-8 form:
    refused here with a message instead of failing deep in the driver.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start : exc.end].encode("unicode_escape").decode("ascii")
        raise ValueError(
            f"the {what} has a character that is not valid text ({bad}, at position"
            f" {exc.start + 1}): type it again in UTF-8"
        ) from None
    return text


def clean_tags(tags: Iterable[str]) -> list[str]:
    """Tags trimmed, without empties or duplicates (case-insensitive), in the given order."""
    out: list[str] = []
    seen: set[str] = set()
    for tag in tags:
        text = storable_text(" ".join(str(tag).split()), "tag")
        if not text:
            continue
        if len(text) > MAX_TAG_LENGTH:
            raise ValueError(f"a tag is at most {MAX_TAG_LENGTH} characters: {text!r}")
        if "," in text:
            raise ValueError(f"a tag cannot contain a comma: {text!r}")
        if text.lower() not in seen:
            seen.add(text.lower())
            out.append(text)
    return out


def raid_level(text: str) -> str:
    """A RAID level as stored: ``10`` for "RAID 10", "raid10" or "10"; ``none``, ``jbod``, or
    a ZFS/mdadm word (``raidz2``, ``mirror``); a ValueError names anything else."""
    raw = " ".join(text.split()).lower()
    if not raw:
        return ""
    if raw in _RAID_WORDS:
        return _RAID_WORDS[raw]
    match = re.fullmatch(r"(?:raid[\s-]?)?(\d{1,3})", raw)
    if match and str(int(match.group(1))) in _RAID_NUMBERS:
        return str(int(match.group(1)))
    if re.fullmatch(r"raidz[1-3]?|mirror|stripe|draid[1-3]?", raw):
        return raw
    raise ValueError(
        f"a RAID level is like 0, 1, 5, 6, 10, none, jbod, raidz2 or mirror, got {text!r}"
    )


def raid_text(level: str) -> str:
    """A stored RAID level for a reader: ``RAID 10``, ``no RAID``, ``JBOD``, ``raidz2``."""
    if level.isdigit():
        return f"RAID {level}"
    return {"none": "no RAID", "jbod": "JBOD"}.get(level, level)


def _field(text: str | None, what: str) -> str:
    value = storable_text(" ".join((text or "").split()), what)
    if len(value) > MAX_DESCRIPTION_FIELD:
        raise ValueError(f"the {what} is at most {MAX_DESCRIPTION_FIELD} characters")
    return value


def description_text(devices: str, count: int | None, raid: str, filesystem: str) -> str:
    """``4 x Seagate Exos X18 16TB, RAID 10, ext4``: a description on one line."""
    parts = []
    counted = re.match(r"\s*(\d+)\s*[x×]\s", devices)
    if devices and count and counted:
        # "1 x Micron 7450" with a count of 1 is not "1 x 1 x Micron 7450".
        same = int(counted.group(1)) == count
        parts.append(devices if same else f"{devices} ({count} devices)")
    elif devices and count:
        parts.append(f"{count} x {devices}")
    elif devices:
        parts.append(devices)
    elif count:
        parts.append(f"{count} devices")
    if raid:
        parts.append(raid_text(raid))
    if filesystem:
        parts.append(filesystem)
    return ", ".join(parts)


def _currency(code: str) -> str:
    text = code.strip().upper()
    if not (text.isalpha() and 2 <= len(text) <= 4):
        raise ValueError(f"a currency is a code like USD or EUR, got {code!r}")
    return text


def _price(value: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{what} must be a number, got {value!r}")
    if value < 0:
        raise ValueError(f"{what} cannot be negative, got {value:g}")
    return float(value)


def _date(text: str) -> str:
    text = text.strip()
    if text:
        try:
            datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(f"a price date is YYYY-MM-DD, got {text!r}") from None
    return text


class SessionExtras:
    """Tags, notes, prices and arrays; mixed into the SessionStore."""

    if TYPE_CHECKING:

        def transaction(self) -> AbstractContextManager[DbConnection]: ...

        def _snapshot(self) -> AbstractContextManager[DbConnection]: ...

        @staticmethod
        def _require(conn: DbConnection, run_id: int) -> None: ...

        def list_runs(self, kind: str | None = "run") -> list[RunInfo]: ...

        @property
        def team(self) -> TeamStoreConfig | None: ...

    def _edit(self, conn: DbConnection, run_id: int, edits: Sequence[tuple[str, Any]]) -> None:
        """Carry out edits of a session; in a local file, also queue them for the team stores
        the session is in (:mod:`bench_gui.store.team_edits`)."""
        for kind, data in edits:
            apply_edit(conn, run_id, kind, data)
        if self.team is None and edits:
            queue_edits(conn, run_id, edits)

    # -- tags -----------------------------------------------------------------------------------

    def tags(self, run_id: int) -> list[str]:
        """A run's tags, alphabetical."""
        with self._snapshot() as conn:
            self._require(conn, run_id)
            rows = conn.execute(
                "SELECT tag FROM run_tags WHERE run_id = ? ORDER BY tag", (run_id,)
            ).fetchall()
        return [row[0] for row in rows]

    def set_tags(
        self, run_id: int, tags: Iterable[str], seen: Iterable[str] | None = None
    ) -> list[str]:
        """Make a run's tags ``tags``; return them all, cleaned. ``seen``: the tags the editor
        started from (the Sessions page's field); only what differs from them is changed, so
        a tag a colleague added meanwhile stays. Without it, the run's tags now."""
        cleaned = clean_tags(tags)
        with self.transaction() as conn:
            self._require(conn, run_id)
            if seen is None:
                rows = conn.execute("SELECT tag FROM run_tags WHERE run_id = ?", (run_id,))
                base = [str(row[0]) for row in rows]
            else:
                base = clean_tags(seen)
            want = {t.lower() for t in cleaned}
            had = {t.lower() for t in base}
            edits = [("tag_remove", t) for t in base if t.lower() not in want]
            edits += [("tag_add", t) for t in cleaned if t.lower() not in had]
            self._edit(conn, run_id, edits)
        return self.tags(run_id)

    def add_tags(self, run_id: int, tags: Iterable[str]) -> list[str]:
        """Add tags (those already there are kept once); return all of the run's tags."""
        cleaned = clean_tags(tags)
        with self.transaction() as conn:
            self._require(conn, run_id)
            self._edit(conn, run_id, [("tag_add", t) for t in cleaned])
        return self.tags(run_id)

    def remove_tags(self, run_id: int, tags: Iterable[str]) -> list[str]:
        """Remove tags (case-insensitive); return the run's remaining tags."""
        cleaned = clean_tags(tags)
        with self.transaction() as conn:
            self._require(conn, run_id)
            self._edit(conn, run_id, [("tag_remove", t) for t in cleaned])
        return self.tags(run_id)

    def all_tags(self) -> list[tuple[str, int]]:
        """Every tag in use with the number of runs carrying it (for completion and filters)."""
        # Counted here, not grouped in SQL: the spelling shown is that of the session tagged
        # first, the same on SQLite and PostgreSQL (whose case-insensitive MIN differ).
        counts: dict[str, list[Any]] = {}
        with self._snapshot() as conn:
            for row in conn.execute("SELECT tag FROM run_tags ORDER BY run_id, tag"):
                entry = counts.setdefault(str(row[0]).lower(), [str(row[0]), 0])
                entry[1] += 1
        return sorted(((tag, n) for tag, n in counts.values()), key=lambda r: r[0].lower())

    # -- notes ----------------------------------------------------------------------------------

    def note(self, run_id: int) -> str:
        """A run's note ("" when none)."""
        with self._snapshot() as conn:
            self._require(conn, run_id)
            row = conn.execute("SELECT text FROM run_notes WHERE run_id = ?", (run_id,)).fetchone()
        return str(row[0]) if row else ""

    def set_note(self, run_id: int, text: str, seen: str | None = None) -> NoteVersion | None:
        """Set (or, with blank text, remove) a run's note. ``seen``: the note the editor
        started from; when the note is no longer that (a colleague wrote meanwhile), the text
        replaced is kept in the note history marked unseen, and returned. Without ``seen``,
        the note as it is now is the one replaced knowingly."""
        text = storable_text(text.strip(), "note")
        with self.transaction() as conn:
            self._require(conn, run_id)
            row = conn.execute(
                "SELECT text, author, updated_at FROM run_notes WHERE run_id = ?", (run_id,)
            ).fetchone()
            current = str(row[0]) if row else ""
            if text == current:
                return None
            before = current if seen is None else seen.strip()
            edit = note_edit(text, before)
            self._edit(conn, run_id, [("note", edit)])
        if row is None or before == current:
            return None
        return NoteVersion(current, row[1], row[2], edit["author"], edit["at"], True)

    def note_history(self, run_id: int) -> list[NoteVersion]:
        """The texts a run's note had before, in the order they were replaced."""
        with self._snapshot() as conn:
            self._require(conn, run_id)
            rows = conn.execute(
                "SELECT * FROM run_note_history WHERE run_id = ? ORDER BY id",
                (run_id,),
            ).fetchall()
        return [
            NoteVersion(
                row["text"],
                row["author"],
                row["written_at"],
                row["replaced_by"],
                row["replaced_at"],
                bool(row["unseen"]),
            )
            for row in rows
        ]

    def annotations(self) -> dict[int, tuple[list[str], str]]:
        """{run id: (tags, note)} of every annotated run, in one read (for the session list)."""
        out: dict[int, tuple[list[str], str]] = {}
        with self._snapshot() as conn:
            for run_id, tag in conn.execute("SELECT run_id, tag FROM run_tags ORDER BY tag"):
                out.setdefault(run_id, ([], ""))[0].append(tag)
            for run_id, text in conn.execute("SELECT run_id, text FROM run_notes"):
                tags = out.get(run_id, ([], ""))[0]
                out[run_id] = (tags, text)
        return out

    def find_runs(
        self, text: str = "", tag: str | None = None, kind: str | None = "run"
    ) -> list[RunInfo]:
        """Runs whose name, engine, target, tags or note contain ``text`` (any case; ``#12``
        finds session 12), and that carry ``tag`` when given; newest first."""
        notes = self.annotations()
        needle = text.strip().lower()
        found = []
        for info in self.list_runs(kind):
            tags, note = notes.get(info.id, ([], ""))
            if tag and tag.lower() not in (t.lower() for t in tags):
                continue
            haystack = " ".join([info.name, info.engine, info.target_summary, note, *tags])
            if needle.startswith("#") and needle[1:].isdigit():
                if int(needle[1:]) != info.id:
                    continue
            elif needle and needle not in haystack.lower():
                continue
            found.append(info)
        return found

    # -- device prices --------------------------------------------------------------------------

    def add_device_price(self, price: DevicePrice) -> int:
        """Add a device price; several prices of one device are kept (the latest date wins)."""
        device = price.device.strip()
        if not device:
            raise ValueError("a device price needs the device's name (its model)")
        with self.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO device_prices (device, unit_price, currency, price_date, source,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    device,
                    _price(price.unit_price, "the unit price"),
                    _currency(price.currency),
                    _date(price.date),
                    price.source.strip(),
                    _now(),
                ),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    def device_price_entries(self) -> list[PriceEntry]:
        """The device price list, by device then date."""
        with self._snapshot() as conn:
            rows = conn.execute(
                "SELECT * FROM device_prices ORDER BY device COLLATE NOCASE, price_date, id"
            ).fetchall()
        return [
            PriceEntry(
                row["id"],
                DevicePrice(
                    row["device"],
                    row["unit_price"],
                    row["currency"],
                    row["price_date"],
                    row["source"],
                ),
                row["created_at"],
            )
            for row in rows
        ]

    def device_prices(self) -> list[DevicePrice]:
        return [entry.price for entry in self.device_price_entries()]

    def delete_device_price(self, price_id: int) -> None:
        with self.transaction() as conn:
            if not delete_price(conn, "device_prices", price_id):
                raise KeyError(f"no device price with id {price_id}")

    # -- power prices ---------------------------------------------------------------------------

    def add_power_price(self, price: PowerPrice) -> int:
        """Add a power price per kWh; the one with the latest date is the current one."""
        with self.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO power_prices (per_kwh, currency, price_date, source, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (
                    _price(price.per_kwh, "the price per kWh"),
                    _currency(price.currency),
                    _date(price.date),
                    price.source.strip(),
                    _now(),
                ),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    def power_price_entries(self) -> list[PowerPriceEntry]:
        with self._snapshot() as conn:
            rows = conn.execute("SELECT * FROM power_prices ORDER BY price_date, id").fetchall()
        return [
            PowerPriceEntry(
                row["id"],
                PowerPrice(row["per_kwh"], row["currency"], row["price_date"], row["source"]),
                row["created_at"],
            )
            for row in rows
        ]

    def power_price(self) -> PowerPrice | None:
        """The current power price (latest date, then latest entered), or None."""
        entries = self.power_price_entries()
        return entries[-1].price if entries else None

    def delete_power_price(self, price_id: int) -> None:
        with self.transaction() as conn:
            if not delete_price(conn, "power_prices", price_id):
                raise KeyError(f"no power price with id {price_id}")

    # -- arrays ---------------------------------------------------------------------------------

    def run_array(self, run_id: int) -> ArrayInput | None:
        """What the user entered about a run's array (None: nothing; the layout decides)."""
        with self._snapshot() as conn:
            self._require(conn, run_id)
            row = conn.execute("SELECT * FROM run_arrays WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            return None
        return ArrayInput(
            device=row["device"],
            count=row["count"],
            hand_cost=row["hand_cost"],
            currency=row["currency"],
            origin="hand",
            note=row["note"],
        )

    def set_run_array(self, run_id: int, array: ArrayInput | None) -> None:
        """Record a run's array by hand (device, count and/or cost); None removes it."""
        data: dict[str, Any] | None = None
        if array is not None:
            if array.count is not None and array.count < 1:
                raise ValueError(f"the device count must be at least 1, got {array.count}")
            cost = None if array.hand_cost is None else _price(array.hand_cost, "the array cost")
            data = {
                "device": (array.device or "").strip() or None,
                "count": array.count,
                "hand_cost": cost,
                "currency": _currency(array.currency) if array.currency else None,
                "note": array.note.strip(),
            }
        with self.transaction() as conn:
            self._require(conn, run_id)
            self._edit(conn, run_id, [("array", data)])

    def all_run_arrays(self) -> dict[int, ArrayInput]:
        """Every session's array entered by hand, by session id."""
        with self._snapshot() as conn:
            rows = conn.execute("SELECT * FROM run_arrays ORDER BY run_id").fetchall()
        return {
            row["run_id"]: ArrayInput(
                device=row["device"],
                count=row["count"],
                hand_cost=row["hand_cost"],
                currency=row["currency"],
                origin="hand",
                note=row["note"],
            )
            for row in rows
        }

    def run_arrays(self, run_ids: Sequence[int]) -> dict[int, ArrayInput]:
        """Hand-entered arrays of several runs (runs without one are left out)."""
        out = {}
        for run_id in run_ids:
            array = self.run_array(run_id)
            if array is not None:
                out[run_id] = array
        return out

    # -- storage described by the user ------------------------------------------------------------

    def set_storage_description(
        self,
        run_id: int,
        *,
        devices: str = "",
        count: int | None = None,
        raid: str = "",
        filesystem: str = "",
        note: str = "",
    ) -> dict[str, Any]:
        """Record what the user says a session's storage was (replacing what was said before);
        return it as :meth:`storage_description` does. Every field is optional, not all."""
        if count is not None and (isinstance(count, bool) or count < 1):
            raise ValueError(f"the device count must be at least 1, got {count}")
        fields = (
            _field(devices, "device description"),
            count,
            raid_level(raid),
            _field(filesystem, "filesystem"),
            storable_text(note.strip(), "storage note"),
        )
        if not any(fields):
            raise ValueError(
                "describe the storage: its devices, count, RAID level, filesystem or a note"
            )
        names = ("devices", "count", "raid", "filesystem", "note")
        data = {**dict(zip(names, fields, strict=True)), "updated_at": _now()}
        with self.transaction() as conn:
            self._require(conn, run_id)
            self._edit(conn, run_id, [("storage", data)])
        found = self.storage_description(run_id)
        assert found is not None
        return found

    def storage_description(self, run_id: int) -> dict[str, Any] | None:
        """What the user entered about a session's storage, or None. The record:
        ``devices``, ``count``, ``raid`` (``10``, ``none``, ``jbod``, ``raidz2``...),
        ``raid_text`` (``RAID 10``), ``filesystem``, ``note``, ``text`` (all on one line),
        ``source`` (always ``user``: entered by hand, not measured) and ``updated_at``."""
        with self._snapshot() as conn:
            self._require(conn, run_id)
            row = conn.execute("SELECT * FROM run_storage WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            return None
        return {
            "devices": row["devices"],
            "count": row["count"],
            "raid": row["raid"],
            "raid_text": raid_text(row["raid"]) if row["raid"] else "",
            "filesystem": row["filesystem"],
            "note": row["note"],
            "text": description_text(row["devices"], row["count"], row["raid"], row["filesystem"])
            or row["note"],
            "source": "user",
            "updated_at": row["updated_at"],
        }

    def clear_storage_description(self, run_id: int) -> bool:
        """Remove what the user entered about a session's storage; False if there was none."""
        with self.transaction() as conn:
            self._require(conn, run_id)
            found = conn.execute("SELECT 1 FROM run_storage WHERE run_id = ?", (run_id,))
            if found.fetchone() is None:
                return False
            self._edit(conn, run_id, [("storage", None)])
        return True
