"""What the session store's topic mixins use of its core, declared so each type-checks alone.

:class:`~bench_gui.store.sessions.SessionStore` is composed of mixins named for what they hold
(:mod:`~bench_gui.store.run_rows`, :mod:`~bench_gui.store.run_stream`,
:mod:`~bench_gui.store.power_import`); they work through the core's connections and
transactions, which :mod:`bench_gui.store.sessions` defines. :class:`StoreCore` only declares
those for the type checker: at run time it adds nothing, so the core's own definitions are the
ones used.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench_gui.store.dialect import DbConnection
    from bench_gui.store.run_claims import RunClaims
    from bench_gui.store.team_store import TeamStoreConfig
    from bench_gui.wire.protocol import Event


class StoreCore:
    """The base of the store's mixins: the attributes and methods of the core they use."""

    # Which runs a live process is writing (this one's: those it created or re-attached).
    claims: RunClaims
    # The team store this is, or None for a local file.
    _team: TeamStoreConfig | None
    # Event kind -> what stores it beyond the events table (set up by the core's __init__).
    _handlers: dict[str, Callable[[DbConnection, int, Event], None]]

    if TYPE_CHECKING:

        @property
        def where(self) -> str: ...

        def transaction(self) -> AbstractContextManager[DbConnection]: ...

        def _snapshot(self) -> AbstractContextManager[DbConnection]: ...

        @staticmethod
        def _require(conn: DbConnection, run_id: int) -> None: ...

        def _rows(self, run_id: int, sql: str, params: tuple[Any, ...]) -> list[Any]: ...

        # Defined by RunStream, used by the power import as well.
        @staticmethod
        def _insert_log(
            conn: DbConnection, run_id: int, seq: int | None, t: float, level: str, message: str
        ) -> None: ...
