"""The stored sessions as the GUI and the command line use them: the session store, a session's
file (export, import), a HammerDB job store's import, what a comparison reads of a session's
storage, and the team store (its settings, push, pull, sync, roles). A façade over ``store``
(the import contract "The GUI and the command line reach hosts and stores through the services"
keeps it so); each name is imported from its own module when first used
(:mod:`bench_gui.services.facade`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from bench_gui.services.facade import lazy_names

if TYPE_CHECKING:
    from bench_gui.store.compare_input import (
        array_from_layout,
        array_input,
        layout_summary,
        recorded_storage,
        storage_layout,
    )
    from bench_gui.store.exchange import export_session, import_session
    from bench_gui.store.hammerdb import HammerDBImport, ImportedSession, import_hammerdb
    from bench_gui.store.pg_connection import pg_reason
    from bench_gui.store.records import RunInfo
    from bench_gui.store.sessions import STALE_MESSAGE, SessionStore
    from bench_gui.store.team_roles import init_roles, roles_sql
    from bench_gui.store.team_store import (
        TeamStoreConfig,
        delete_store_password,
        set_store_password,
    )
    from bench_gui.store.team_sync import SyncResult, pull, push, sync, waiting_edits

# Each name and the module that defines it.
WHERE: Final = {
    "array_from_layout": "bench_gui.store.compare_input",
    "array_input": "bench_gui.store.compare_input",
    "layout_summary": "bench_gui.store.compare_input",
    "recorded_storage": "bench_gui.store.compare_input",
    "storage_layout": "bench_gui.store.compare_input",
    "export_session": "bench_gui.store.exchange",
    "import_session": "bench_gui.store.exchange",
    "HammerDBImport": "bench_gui.store.hammerdb",
    "import_hammerdb": "bench_gui.store.hammerdb",
    "ImportedSession": "bench_gui.store.hammerdb",
    "pg_reason": "bench_gui.store.pg_connection",
    "RunInfo": "bench_gui.store.records",
    "SessionStore": "bench_gui.store.sessions",
    "STALE_MESSAGE": "bench_gui.store.sessions",
    "init_roles": "bench_gui.store.team_roles",
    "roles_sql": "bench_gui.store.team_roles",
    "delete_store_password": "bench_gui.store.team_store",
    "set_store_password": "bench_gui.store.team_store",
    "TeamStoreConfig": "bench_gui.store.team_store",
    "pull": "bench_gui.store.team_sync",
    "push": "bench_gui.store.team_sync",
    "sync": "bench_gui.store.team_sync",
    "SyncResult": "bench_gui.store.team_sync",
    "waiting_edits": "bench_gui.store.team_sync",
}

__all__ = [
    "HammerDBImport",
    "ImportedSession",
    "RunInfo",
    "STALE_MESSAGE",
    "SessionStore",
    "SyncResult",
    "TeamStoreConfig",
    "array_from_layout",
    "array_input",
    "delete_store_password",
    "export_session",
    "import_hammerdb",
    "import_session",
    "init_roles",
    "layout_summary",
    "pg_reason",
    "pull",
    "push",
    "recorded_storage",
    "roles_sql",
    "set_store_password",
    "storage_layout",
    "sync",
    "waiting_edits",
]

__getattr__ = lazy_names(__name__, WHERE)
