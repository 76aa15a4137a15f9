"""The Storage page's and `bench-gui storage`'s view of a host's block devices: discovery, the
guards that refuse a device in use, a layout's plan and its guarded steps, the database moved
onto a volume and back. A façade over ``remote.storage`` for the GUI and the command line (the
import contract "The GUI and the command line reach hosts and stores through the services" keeps
it so); each name is imported from its own module when first used
(:mod:`bench_gui.services.facade`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from bench_gui.services.facade import lazy_names

if TYPE_CHECKING:
    from bench_gui.remote.db_placement import PlacementResult, place_database, restore_database
    from bench_gui.remote.storage import (
        NOT_RECORDED_FIELD,
        SIGNED_FIELD,
        UNREADABLE_FIELD,
        ApplyResult,
        BlockDevice,
        Discovery,
        Progress,
        Refusal,
        Runner,
        StepFailed,
        StorageError,
        StorageRefused,
        apply_layout,
        check_layout,
        describe_line,
        discover,
        not_recorded_refusal,
        open_runner,
        recorded_layouts,
        signed_refusal,
        teardown_layout,
    )

# Each name and the module that defines it.
WHERE: Final = {
    "place_database": "bench_gui.remote.db_placement",
    "PlacementResult": "bench_gui.remote.db_placement",
    "restore_database": "bench_gui.remote.db_placement",
    "apply_layout": "bench_gui.remote.storage",
    "ApplyResult": "bench_gui.remote.storage",
    "BlockDevice": "bench_gui.remote.storage",
    "check_layout": "bench_gui.remote.storage",
    "describe_line": "bench_gui.remote.storage",
    "discover": "bench_gui.remote.storage",
    "Discovery": "bench_gui.remote.storage",
    "NOT_RECORDED_FIELD": "bench_gui.remote.storage",
    "not_recorded_refusal": "bench_gui.remote.storage",
    "open_runner": "bench_gui.remote.storage",
    "Progress": "bench_gui.remote.storage",
    "recorded_layouts": "bench_gui.remote.storage",
    "Refusal": "bench_gui.remote.storage",
    "Runner": "bench_gui.remote.storage",
    "SIGNED_FIELD": "bench_gui.remote.storage",
    "signed_refusal": "bench_gui.remote.storage",
    "StepFailed": "bench_gui.remote.storage",
    "StorageError": "bench_gui.remote.storage",
    "StorageRefused": "bench_gui.remote.storage",
    "teardown_layout": "bench_gui.remote.storage",
    "UNREADABLE_FIELD": "bench_gui.remote.storage",
}

__all__ = [
    "ApplyResult",
    "BlockDevice",
    "Discovery",
    "NOT_RECORDED_FIELD",
    "PlacementResult",
    "Progress",
    "Refusal",
    "Runner",
    "SIGNED_FIELD",
    "StepFailed",
    "StorageError",
    "StorageRefused",
    "UNREADABLE_FIELD",
    "apply_layout",
    "check_layout",
    "describe_line",
    "discover",
    "not_recorded_refusal",
    "open_runner",
    "place_database",
    "recorded_layouts",
    "restore_database",
    "signed_refusal",
    "teardown_layout",
]

__getattr__ = lazy_names(__name__, WHERE)
