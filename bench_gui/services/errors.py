"""The errors the GUI and the command line catch, in one place: what the services and the
layers under them (SSH and hosts, the session store, tuning, storage) raise when a user's input,
host or data is wrong. A page or command imports them from here, never from ``remote`` or
``store``, so it speaks to the services alone (the import contract "The GUI and the command
line reach hosts and stores through the services" keeps it so).

Each error's module is imported when the error is first asked for: the window opens without the
store's and the storage code's modules, as it did when it imported its errors where they are."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from bench_gui.services.facade import lazy_names

if TYPE_CHECKING:
    from bench_gui.remote.db_placement import PlacementError
    from bench_gui.remote.db_tuner import TuningError
    from bench_gui.remote.demo import DemoUnavailable
    from bench_gui.remote.errors import (
        ChangedHostKey,
        HostKeyError,
        SecretStoreError,
        SSHError,
        TargetError,
        UnknownHostKey,
    )
    from bench_gui.remote.osknobs import OsKnobError
    from bench_gui.store.errors import SessionNotFound, StoreError
    from bench_gui.store.exchange import SessionFileError
    from bench_gui.store.hammerdb_jobs import HammerDBError
    from bench_gui.store.team_store import TeamStoreError

# Each error and the module that defines it.
WHERE: Final = {
    "ChangedHostKey": "bench_gui.remote.errors",
    "DemoUnavailable": "bench_gui.remote.demo",
    "HammerDBError": "bench_gui.store.hammerdb_jobs",
    "HostKeyError": "bench_gui.remote.errors",
    "OsKnobError": "bench_gui.remote.osknobs",
    "PlacementError": "bench_gui.remote.db_placement",
    "SecretStoreError": "bench_gui.remote.errors",
    "SessionFileError": "bench_gui.store.exchange",
    "SessionNotFound": "bench_gui.store.errors",
    "SSHError": "bench_gui.remote.errors",
    "StoreError": "bench_gui.store.errors",
    "TargetError": "bench_gui.remote.errors",
    "TeamStoreError": "bench_gui.store.team_store",
    "TuningError": "bench_gui.remote.db_tuner",
    "UnknownHostKey": "bench_gui.remote.errors",
}

__all__ = [
    "ChangedHostKey",
    "DemoUnavailable",
    "HammerDBError",
    "HostKeyError",
    "OsKnobError",
    "PlacementError",
    "SecretStoreError",
    "SessionFileError",
    "SessionNotFound",
    "SSHError",
    "StoreError",
    "TargetError",
    "TeamStoreError",
    "TuningError",
    "UnknownHostKey",
]


__getattr__ = lazy_names(__name__, WHERE)
