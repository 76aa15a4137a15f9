"""The workload kit contract and its registry: what a page asks a session's workload for.

A workload (TPROC-C, random read) is one folder under :mod:`bench_gui.workloads` holding a
:class:`WorkloadKit`: its name and label, the words only its figures use, and its *faces*, one
per place a session appears (the Sessions list and detail, Live, Compare, the CLI's printers,
the report). A page looks the session's kit up (:func:`kit_for`, :func:`kit_of_record`) and asks
it for its face; it never branches on the workload's name.

Faces are named by ``"module:attribute"`` and imported when first asked for: the registry is
imported by the core and the services, so it must not import a kit's Qt views with it. A
third-party kit registers itself through the ``bench_gui.workloads`` entry point group (the
entry point loads its :class:`WorkloadKit`), and passes ``tests/workloads/test_conformance.py``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, is_dataclass
from importlib.metadata import entry_points
from typing import Any, Final

ENTRY_POINT_GROUP: Final = "bench_gui.workloads"

# Every face a kit provides, with the call each place makes of it.
FACES: Final[Mapping[str, str]] = {
    # services: (store, row: RunRow) -> None; fills a Sessions-list row's workload cells
    "list_row": "the Sessions list's cells of one of its sessions",
    # services: (header: RunHeader) -> list[str]; the facts after engine and server
    "facts": "the Sessions detail's one line of facts",
    # gui: a QWidget class; .show_session(store, header), .clear()
    "sessions_overview": "the Sessions detail's Overview tab",
    # gui: a QWidget class; the Compare page's results of its sessions
    "compare_view": "the Compare page's results",
    # core: (workload: Workload) -> int; the steps (points) a plan runs
    "step_count": "a plan's steps, for a study's progress",
    # core: (workload: Workload, from_step: int = 0) -> float; their measured windows, s
    "plan_seconds": "a plan's time, for a study's time left",
    # cli: (data: dict) -> None; prints `sessions show` of a session (run_to_json)
    "cli_session": "the CLI's `sessions show`",
    # cli: (steps: list[dict]) -> None; prints the steps `run` measured
    "cli_steps": "the CLI's table after `run`",
    # report: (store, ids, baseline_id, **options) -> a report html/pdf can render
    "report": "the HTML/PDF report's builder",
}


# The Compare page's inputs a workload may use.
COMPARE_INPUTS: Final = frozenset(
    {"stop_conditions", "response_scope", "array_prices", "power_price", "ram_price"}
)


class UnknownWorkload(LookupError):
    """A workload no registered kit provides; the message names the known ones."""


@dataclass(frozen=True)
class WorkloadKit:
    """One workload's entry: what it is called and where each of its faces lives."""

    name: str  # the plan's ``workload.kind`` and the stored session's workload
    label: str  # what a person reads: "TPROC-C", "Random read"
    one_session: str  # one of its sessions in a sentence: "a TPROC-C sweep"
    sessions: str  # several: "TPROC-C sweeps"
    words: tuple[str, ...]  # words only this workload's views use ("NOPM"): never another's
    step_noun: str  # what one stored step of it is: "step", "dataset size"
    search_words: tuple[str, ...]  # what a filter finds its sessions by: "tpcc", "fio"
    uses_database: bool  # whether a run connects to a database (a demo target serves one)
    # Why a run of it takes one driver host ("runs fio on one host"); "" when it takes several.
    one_host_why: str = ""
    engine: str = ""  # the engine its sessions record when it has its own ("fio"), else ""
    # What the Compare page asks of its sessions: of COMPARE_INPUTS, the ones this workload's
    # comparison and report use (the others are hidden while its sessions are ticked).
    compare_inputs: frozenset[str] = frozenset()
    faces: Mapping[str, str] = field(default_factory=dict)

    def face(self, name: str) -> Any:
        """The face ``name`` (see :data:`FACES`), imported on first use."""
        if name not in FACES:
            raise KeyError(f"no workload face {name!r}: the faces are {', '.join(FACES)}")
        try:
            where = self.faces[name]
        except KeyError:
            raise KeyError(f"the {self.label} workload kit has no {name!r} face") from None
        module, _, attribute = where.partition(":")
        return getattr(importlib.import_module(module), attribute)


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
