"""The workload kits' registry: the built-in kits and those of the ``bench_gui.workloads`` entry
point group, looked up by a plan's workload or a stored session (:func:`kit_for`,
:func:`kit_of_record`). A page asks the session's kit (:mod:`.contract`) for its face; it never
branches on the workload's name. The registry is imported by the core and the services, so it
must not import a kit's Qt views with it; a third-party kit passes
``tests/workloads/test_conformance.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, is_dataclass
from importlib.metadata import entry_points
from typing import Any, Final

from bench_gui.workloads.contract import WorkloadKit

ENTRY_POINT_GROUP: Final = "bench_gui.workloads"


class UnknownWorkload(LookupError):
    """A workload no registered kit provides; the message names the known ones."""


_KITS: dict[str, WorkloadKit] = {}


def register(kit: WorkloadKit) -> WorkloadKit:
    """Add ``kit`` to the registry (the last one of a name wins, as a plugin overriding it)."""
    _KITS[kit.name] = kit
    return kit


def _load() -> dict[str, WorkloadKit]:
    if not _KITS:
        from bench_gui.workloads.random_read.kit import KIT as RANDOM_READ
        from bench_gui.workloads.tproc_c.kit import KIT as TPROC_C

        register(TPROC_C)
        register(RANDOM_READ)
        for point in entry_points(group=ENTRY_POINT_GROUP):
            register(point.load())
    return _KITS


def kits() -> list[WorkloadKit]:
    """Every registered kit, TPROC-C (the default workload) first."""
    return list(_load().values())


def kit_for(name: str) -> WorkloadKit:
    """The kit of the workload ``name``; :class:`UnknownWorkload` if none provides it."""
    registry = _load()
    try:
        return registry[name]
    except KeyError:
        known = ", ".join(sorted(registry))
        raise UnknownWorkload(f"unknown workload {name!r}: the known ones are {known}") from None


DEFAULT_WORKLOAD: Final = "tproc_c"


def uses_database(workload: str) -> bool:
    """Whether a run of ``workload`` connects to a database (a demo target then serves one);
    an unknown workload, which the plan's checks refuse by name, is taken to."""
    try:
        return kit_for(workload).uses_database
    except UnknownWorkload:
        return True


def one_host_why(workload: str) -> str:
    """Why a run of ``workload`` takes one driver host, or "" when it may take several."""
    try:
        return kit_for(workload).one_host_why
    except UnknownWorkload:
        return ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def run_record(detail: Any) -> dict[str, Any]:
    """A stored run (a ``RunDetail`` or its record) as the plain record this module reads."""
    if isinstance(detail, Mapping):
        return dict(detail)
    return asdict(detail) if is_dataclass(detail) and not isinstance(detail, type) else {}


def workload_of_record(run: Mapping[str, Any]) -> str:
    """The workload of a stored run record (``RunDetail`` as a dict, or ``run_to_json()["run"]``):
    the one its target, its agent's hello or its plan names, else TPROC-C (sessions stored
    before a second workload existed say nothing)."""
    registry = _load()
    named = (
        _dict(run.get("target")).get("kind"),
        _dict(run.get("agent")).get("workload"),
        _dict(_dict(run.get("plan")).get("workload")).get("kind"),
    )
    for name in named:
        if isinstance(name, str) and name in registry and name != DEFAULT_WORKLOAD:
            return name
    return DEFAULT_WORKLOAD


def kit_of_record(run: Mapping[str, Any]) -> WorkloadKit:
    """The kit of a stored run record (see :func:`workload_of_record`)."""
    return kit_for(workload_of_record(run))
