"""What the Database page and `bench-gui tune` show of a server's tuning: the settings'
differences, the machine's facts, the OS knobs, and the tuning history. A
façade over ``remote`` and ``store`` for the GUI and the command line (the import contract "The
GUI and the command line reach hosts and stores through the services" keeps it so); each name is
imported from its own module when first used (:mod:`bench_gui.services.facade`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from bench_gui.services.facade import lazy_names

if TYPE_CHECKING:
    from bench_gui.remote.db_tuner import DiffRow, HostFacts
    from bench_gui.remote.osknobs import (
        SYSCTL_FILE,
        Knob,
        OsResult,
        block_devices,
        data_devices,
        default_keys,
        expand_changes,
        persist_sysctls,
        read_knobs,
    )
    from bench_gui.store.tuning_history import TuningEntry, TuningHistory

# Each name and the module that defines it.
WHERE: Final = {
    "DiffRow": "bench_gui.remote.db_tuner",
    "HostFacts": "bench_gui.remote.db_tuner",
    "block_devices": "bench_gui.remote.osknobs",
    "data_devices": "bench_gui.remote.osknobs",
    "default_keys": "bench_gui.remote.osknobs",
    "expand_changes": "bench_gui.remote.osknobs",
    "Knob": "bench_gui.remote.osknobs",
    "OsResult": "bench_gui.remote.osknobs",
    "persist_sysctls": "bench_gui.remote.osknobs",
    "read_knobs": "bench_gui.remote.osknobs",
    "SYSCTL_FILE": "bench_gui.remote.osknobs",
    "TuningEntry": "bench_gui.store.tuning_history",
    "TuningHistory": "bench_gui.store.tuning_history",
}

__all__ = [
    "DiffRow",
    "HostFacts",
    "Knob",
    "OsResult",
    "SYSCTL_FILE",
    "TuningEntry",
    "TuningHistory",
    "block_devices",
    "data_devices",
    "default_keys",
    "expand_changes",
    "persist_sysctls",
    "read_knobs",
]

__getattr__ = lazy_names(__name__, WHERE)
