"""What the database tuners share: their errors, diff rows, results, and the steps of their flow.

PostgreSQL (:mod:`~bench_gui.engines.postgresql.tuner`), MariaDB/MySQL
(:mod:`~bench_gui.engines.mariadb.tuner`) and SQL Server (:mod:`~bench_gui.engines.mssql.tuner`)
change settings in their own ways, but each one connects, reads facts, diffs a proposal,
applies what differs, verifies it and rolls back a snapshot; the CLI, the services and the
Database page read every engine's rows, results and errors as the same types, defined here
once. Each engine keeps its own statements, snapshot and restart handling.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, Generic, Protocol, TypeVar

from bench_gui.core.plan_model import Target
from bench_gui.engines.tuning_terms import TunedSetting
from bench_gui.remote.errors import SecretStoreError
from bench_gui.remote.secrets import database_password

if TYPE_CHECKING:
    from bench_gui.core.engine import Engine

# -- errors ---------------------------------------------------------------------------------------


class TuningError(RuntimeError):
    """Tuning failed; the message is meant for the user."""


class NotEnoughPrivileges(TuningError):
    """The database user may not change (or read) server settings."""


class RejectedSettings(TuningError):
    """Values the server does not accept, by setting name; nothing was changed."""

    def __init__(self, rejected: Mapping[str, str], prefix: str = "") -> None:
        self.rejected = dict(rejected)
        lines = "; ".join(f"{name}: {reason}" for name, reason in self.rejected.items())
        super().__init__(
            (prefix or "the server does not accept these values, nothing was changed")
            + f": {lines}"
        )


class NoServerControl(TuningError):
    """A restart is needed and there is no way to restart this server."""


# -- records --------------------------------------------------------------------------------------


@dataclass
class DiffRow:
    """A proposed setting against the server's current value.

    ``action``: ``same`` (nothing to do), ``reload`` (in effect without a restart),
    ``restart``, ``invalid`` (the server would refuse the value: see ``problem``) or
    ``unknown`` (no such setting on this server).
    """

    name: str
    proposed: str
    rule: str
    current: str | None
    action: str
    problem: str = ""
    context: str = ""
    source: str = ""
    pending_restart: bool = False

    @property
    def changes(self) -> bool:
        return self.action in ("reload", "restart")


class TunerSnapshot(Protocol):
    """An engine's state before an apply, kept in the tuning history to undo it."""

    def to_dict(self) -> dict[str, Any]: ...


@dataclass
class ApplyResult:
    """What an apply or a rollback did."""

    action: str  # "apply" or "rollback"
    changed: list[str] = field(default_factory=list)  # set on the server
    unchanged: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # invalid or unknown, left out
    reloaded: bool = False
    restarted: bool = False
    pending_restart: list[str] = field(default_factory=list)  # need a restart not done
    mismatches: dict[str, str] = field(default_factory=dict)  # name -> what the server shows
    verified: dict[str, str] = field(default_factory=dict)  # name -> value now in effect
    auto_conf_restored: bool | None = None  # rollback: the file is byte for byte the old one
    messages: list[str] = field(default_factory=list)
    snapshot: TunerSnapshot | None = None

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def summary(self) -> str:
        verb = "applied" if self.action == "apply" else "restored"
        parts = [f"{len(self.changed)} setting(s) {verb}" if self.changed else "nothing to change"]
        if self.restarted:
            parts.append("server restarted")
        elif self.reloaded:
            parts.append("configuration reloaded")
        if self.pending_restart:
            parts.append(f"restart needed for {', '.join(self.pending_restart)}")
        if self.skipped:
            parts.append(f"skipped {', '.join(self.skipped)}")
        if self.mismatches:
            parts.append(
                "NOT in effect: "
                + ", ".join(f"{n} (server shows {v})" for n, v in self.mismatches.items())
            )
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["ok"] = self.ok
        data["summary"] = self.summary()
        data.pop("snapshot", None)
        return data


@dataclass
class DbTarget:
    """What every engine's target starts with; each engine's adds how to log in and restart."""

    key: str  # stable name in the tuning history ("demo", "postgresql://user@host:port")
    label: str
    conninfo: str


@dataclass
class HostFacts:
    """What the calculator needs to know about the server's machine, and where it came from."""

    ram_bytes: int | None = None
    cpus: int | None = None
    storage: str | None = None  # hdd, ssd or nvme
    device: str | None = None
    notes: list[str] = field(default_factory=list)


def engine_login(target: Target) -> tuple[Engine, str | None]:
    """The engine of a plan's ``[target]`` and its database password; TuningError saying why
    not (an engine not installed, a password the secret store does not give)."""
    from bench_gui.core.engine import EngineNotFound, get_engine

    try:
        return get_engine(target.kind), database_password(target).value
    except (EngineNotFound, SecretStoreError) as exc:
        raise TuningError(str(exc)) from exc


# -- steps of the flow ----------------------------------------------------------------------------


def taken_at() -> str:
    """A snapshot's time stamp (UTC, to the second)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def first_line(text: str, exc: BaseException) -> str:
    """The first line of an error's text, or its type's name when it has none."""
    text = text.strip()
    return text.splitlines()[0] if text else type(exc).__name__


def unknown_row(name: str, item: TunedSetting, what: str) -> DiffRow:
    """The diff row of a proposed ``what`` (setting, variable, option) the server lacks."""
    return DiffRow(
        name, item.value, item.rule, None, "unknown", f"this server has no {what} of that name"
    )


def out_of_range(value: object, low: object, high: object) -> str:
    """A diff row's problem for a number the server does not take, worded alike everywhere."""
    return f"{value} is out of range: it must be between {low} and {high}"


def not_accepted(value: str, choices: list[str]) -> str:
    """A diff row's problem for a choice the server does not offer."""
    return f"{value!r} is not accepted by this server (it takes {', '.join(choices)})"


NumT = TypeVar("NumT", int, float)


def outside(
    number: float, low: str | None, high: str | None, parse: Callable[[str], NumT]
) -> tuple[NumT | None, NumT | None] | None:
    """The server's limits, read by ``parse``, when ``number`` is beyond one of them; None when
    it is within them, or a limit is no number (the server then decides alone)."""
    try:
        lowest = parse(low) if low is not None else None
        highest = parse(high) if high is not None else None
    except ValueError:
        return None
    if (lowest is not None and number < lowest) or (highest is not None and number > highest):
        return lowest, highest
    return None


RowT = TypeVar("RowT")


def diff_rows(
    items: list[TunedSetting],
    current: Mapping[str, RowT],
    what: str,
    judge: Callable[[str, TunedSetting, RowT], DiffRow],
) -> list[DiffRow]:
    """Each proposed item against the server's row of its name (names compared in lower
    case): ``unknown`` when the server has no such ``what``, else the row ``judge`` makes."""
    rows: list[DiffRow] = []
    for item in items:
        name = item.name.lower()
        row = current.get(name)
        rows.append(unknown_row(name, item, what) if row is None else judge(name, item, row))
    return rows


def pick(
    items: list[TunedSetting], only: set[str] | None, fold: Callable[[str], str] = str.lower
) -> list[TunedSetting]:
    """The proposal's settings named in ``only`` (all of them when it is None); names are
    compared after ``fold``."""
    if only is None:
        return items
    wanted = {fold(n) for n in only}
    return [s for s in items if fold(s.name) in wanted]


def triage(rows: list[DiffRow], result: ApplyResult, skip_invalid: bool) -> list[DiffRow]:
    """The rows an apply changes. Values the server would refuse raise
    :class:`RejectedSettings` before anything changes, unless ``skip_invalid`` leaves them out
    (``result.skipped``); the rows already in effect go to ``result.unchanged``."""
    bad = {r.name: r.problem for r in rows if r.action in ("invalid", "unknown")}
    if bad and not skip_invalid:
        raise RejectedSettings(bad)
    result.skipped = bad
    result.unchanged = [r.name for r in rows if r.action == "same"]
    return [r for r in rows if r.changes]


def set_each(
    rows: list[DiffRow],
    set_one: Callable[[DiffRow], str],
    done: list[str],
    undo: Callable[[], object],
) -> None:
    """Set each row's proposed value (``set_one`` says '' or the server's reason to refuse it),
    the names set going to ``done``. Should the server refuse any, what was done is undone and
    :class:`RejectedSettings` names each refusal."""
    rejected: dict[str, str] = {}
    for row in rows:
        reason = set_one(row)
        if reason:
            rejected[row.name] = reason
        else:
            done.append(row.name)
    if rejected:
        undo()
        raise RejectedSettings(rejected, "the server rejected these values")


def check_same_server(now: str | None, then: str | None, what: str = "") -> None:
    """Refuse a rollback on another server than the snapshot's (when both identities are
    known); ``what`` words the identity (``its system identifier is``)."""
    if then and now and now != then:
        said = f"{what} " if what else ""
        raise TuningError(
            f"this is not the server the snapshot was taken on ({said}{now}, the snapshot's"
            f" {then}); nothing was changed"
        )


class _Closing(Protocol):
    def close(self) -> None: ...


ConnT = TypeVar("ConnT", bound=_Closing)
StateT = TypeVar("StateT")
SnapT = TypeVar("SnapT", bound=TunerSnapshot)

NOTHING_TO_CHANGE: Final = "every setting already has the proposed value"


class DbTuner(Generic[ConnT, StateT, SnapT]):
    """Connect, diff, apply and roll back, written once for every engine's tuner.

    The flow is the same everywhere: a connection per step, always closed after it; the
    proposal's items (``only`` some of them) diffed against what the server holds; values the
    server would refuse reported before anything changes (:func:`triage`); the engine's
    checks (privileges, a restart it cannot do); a snapshot; the changes (undone should the
    server refuse one); then, the connection closed, reload or restart and a verification.
    A rollback checks it is on the snapshot's server, restores it and verifies the same way.

    An engine gives the steps that are its own: :meth:`_open` (raising :class:`TuningError`
    with a message for the user when it cannot), :meth:`_items`, :meth:`_facts`,
    :meth:`_state` (its facts and current values: ``StateT``), :meth:`_diff`,
    :meth:`_may_apply`, :meth:`_take_snapshot`, :meth:`_change`, :meth:`_settle`, and for a
    rollback :meth:`_identity`, :meth:`_snapshot_names`, :meth:`_may_restore`,
    :meth:`_restore_all`, :meth:`_settle_rollback`; and a ``control`` that restarts the
    server (None: none).
    """

    control: Any = None
    # How a refused rollback words the server's identity ("its system identifier is").
    identity_words: str = ""

    # ---- the flow -------------------------------------------------------------------------------

    @contextmanager
    def connect(self) -> Iterator[ConnT]:
        conn = self._open()
        try:
            yield conn
        finally:
            conn.close()

    def facts(self) -> dict[str, Any]:
        """The server's version, user, rights and identity, as the engine words them."""
        with self.connect() as conn:
            return self._facts(conn)

    def diff(self, proposal: Any) -> list[DiffRow]:
        """Each proposed item against the server's current value (nothing changes)."""
        items = self._items(proposal)
        with self.connect() as conn:
            return self._diff(items, self._state(conn, [s.name for s in items]))

    def apply(
        self,
        proposal: Any,
        *,
        restart: bool = False,
        skip_invalid: bool = False,
        only: set[str] | None = None,
    ) -> ApplyResult:
        """Apply the items that differ, keeping a snapshot to roll them back, and verify them.

        ``restart``: restart the server when an item needs it and the engine can (else it is
        reported in ``pending_restart``). ``skip_invalid``: leave out values the server would
        refuse instead of refusing the whole proposal. ``only``: apply just these names.
        """
        items = pick(self._items(proposal), only, self._fold)
        result = ApplyResult("apply")
        with self.connect() as conn:
            state = self._state(conn, [s.name for s in items])
            todo = triage(self._diff(items, state), result, skip_invalid)
            if not todo:
                result.messages.append(NOTHING_TO_CHANGE)
                return result
            self._may_apply(conn, state, todo, restart)
            snapshot = self._take_snapshot(conn, state, todo)
            result.snapshot = snapshot
            result.changed = self._change(conn, state, todo, snapshot, result)
        self._settle(result, todo, snapshot, restart)
        return result

    def rollback(self, snapshot: SnapT, *, restart: bool = True) -> ApplyResult:
        """Restore the state of ``snapshot`` on the server it was taken on, and verify it."""
        result = ApplyResult("rollback", snapshot=snapshot)
        with self.connect() as conn:
            state = self._state(conn, self._snapshot_names(snapshot))
            now, then = self._identity(state, snapshot)
            check_same_server(now, then, self.identity_words)
            self._may_restore(conn, state, snapshot, restart)
            self._restore_all(conn, state, snapshot, result)
        self._settle_rollback(result, state, snapshot, restart)
        return result

    # ---- the engine's part ----------------------------------------------------------------------

    def _open(self) -> ConnT:
        raise NotImplementedError

    def _items(self, proposal: Any) -> list[TunedSetting]:
        """The proposal's items (a proposal object of the engine's, or a list of them)."""
        settings = getattr(proposal, "settings", proposal)
        return list(settings)

    def _fold(self, name: str) -> str:
        """A name as the proposal's and ``only``'s are compared."""
        return name.lower()

    def _facts(self, conn: ConnT) -> dict[str, Any]:
        raise NotImplementedError

    def _state(self, conn: ConnT, names: list[str]) -> StateT:
        """The facts and the current values of ``names`` that the steps read."""
        raise NotImplementedError

    def _diff(self, items: list[TunedSetting], state: StateT) -> list[DiffRow]:
        raise NotImplementedError

    def _may_apply(self, conn: ConnT, state: StateT, todo: list[DiffRow], restart: bool) -> None:
        """Refuse before anything changes: missing privileges, a restart that cannot be done."""

    def _take_snapshot(self, conn: ConnT, state: StateT, todo: list[DiffRow]) -> SnapT:
        raise NotImplementedError

    def _change(
        self, conn: ConnT, state: StateT, todo: list[DiffRow], snapshot: SnapT, result: ApplyResult
    ) -> list[str]:
        """Set ``todo``; the names set. A refusal undoes what was done and raises."""
        raise NotImplementedError

    def _settle(
        self, result: ApplyResult, todo: list[DiffRow], snapshot: SnapT, restart: bool
    ) -> None:
        """After the changes: reload or restart, what waits for a restart, and verify."""
        raise NotImplementedError

    def _snapshot_names(self, snapshot: SnapT) -> list[str]:
        raise NotImplementedError

    def _identity(self, state: StateT, snapshot: SnapT) -> tuple[str | None, str | None]:
        """The server's identity now and the snapshot's (None: unknown, not compared)."""
        raise NotImplementedError

    def _may_restore(self, conn: ConnT, state: StateT, snapshot: SnapT, restart: bool) -> None:
        """Refuse a rollback before anything changes."""

    def _restore_all(
        self, conn: ConnT, state: StateT, snapshot: SnapT, result: ApplyResult
    ) -> None:
        """Put the snapshot's values back (``result.changed``, ``result.skipped``)."""
        raise NotImplementedError

    def _settle_rollback(
        self, result: ApplyResult, state: StateT, snapshot: SnapT, restart: bool
    ) -> None:
        """After the restore: reload or restart, what waits for a restart, and verify."""
        raise NotImplementedError
