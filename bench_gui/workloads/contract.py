"""The workload kit contract: what a page asks a session's workload for.

A workload (TPROC-C, random read) is one folder under :mod:`bench_gui.workloads` holding a
:class:`WorkloadKit`: its name and label, the words only its figures use, and its *faces*, one
per place a session appears (the Sessions list and detail, Live, Compare, the CLI's printers,
the report). Faces are named by ``"module:attribute"`` and imported when first asked for. A
third-party kit registers itself through the ``bench_gui.workloads`` entry point group (the
entry point loads its :class:`WorkloadKit`; the registry is :mod:`.base`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

# Every face a kit provides, with the call each place makes of it.
FACES: Final[Mapping[str, str]] = {
    # services: (store, row: RunRow) -> None; fills a Sessions-list row's workload cells
    "list_row": "the Sessions list's cells of one of its sessions",
    # services: (header: RunHeader) -> list[str]; the facts after engine and server
    "facts": "the Sessions detail's one line of facts",
    # gui: a QWidget class; .show_session(store, header), .clear()
    "sessions_overview": "the Sessions detail's Overview tab",
    # gui: a QWidget class keeping compare_view.CompareView (compare, show_report, clear,
    # status_text; changed and problem signals); the Compare page's results of its sessions
    "compare_view": "the Compare page's results",
    # gui: a class of live_view.LiveView, made once by the page with its LiveParts
    "live_view": "the Live page's view of a run in progress",
    # core: (workload: Workload) -> int; the steps (points) a plan runs
    "step_count": "a plan's steps, for a study's progress",
    # core: (workload: Workload, from_step: int = 0) -> float; their measured windows, s
    "plan_seconds": "a plan's time, for a study's time left",
    # cli: (data: dict) -> None; prints `sessions show` of a session (run_to_json)
    "cli_session": "the CLI's `sessions show`",
    # cli: (steps: list[dict]) -> None; prints the steps `run` measured
    "cli_steps": "the CLI's table after `run`",
    # report: (store, ids, baseline_id, **options) -> a report the writers render: it keeps
    # bench_gui.report.written.WrittenReport (its templates, footer notice and JSON)
    "report": "the HTML/PDF report's builder",
    # core: tuple[str, ...]; the plan's [workload] fields only this workload reads
    "plan_fields": "the plan fields it owns (another kind's plan may not set them)",
    # services: (plan, action, password | None) -> (config, env); the agent's configuration
    "agent_config": "the agent's configuration and secret environment for a plan",
    # services: (plan, config) -> dict; what a session records as its target
    "session_target": "the stored session's target",
    # services: (controller: RunController) -> list[dict]; the steps a run measured, as JSON
    "step_results": "the steps a run measured, in the CLI's JSON shape",
    # gui: a QWidget class with .fields (PlanFields), .set_plan(plan), .fill(data: dict),
    # .problems() -> [(field, reason)]; its own section of the Workload page's form
    "plan_form": "the Workload page's section of its own fields",
    # core: (problems: list, plan: Plan, data: dict) -> None; its plan's own checks
    "plan_checks": "the plan reader's checks of its fields",
    # core: (problems: list, options: dict) -> dict; checks a plan's [workload.options] table
    # (its own fields: Workload.options), each problem named "workload.options.<name>", and
    # returns the options the plan keeps (options.check_options does it from a declaration).
    # Optional: a kit without it has no options, and the plan reader refuses any.
    "plan_options": "the plan reader's checks of its own options",
    # store: (target: dict) -> str; the Sessions list's label of a target of its own kind
    # (a workload that reads no database records itself as the target: "fio on HOST: FILE")
    "target_summary": "a session's target in a few words",
}


# The faces a kit may go without (see each in FACES for what its absence means).
OPTIONAL_FACES: Final = frozenset({"plan_options"})

# The Compare page's inputs a workload may use.
COMPARE_INPUTS: Final = frozenset(
    {"stop_conditions", "response_scope", "array_prices", "power_price", "ram_price"}
)


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
    # The study file's [report] options only its brief reads ("target_ops", "dataset").
    report_options: frozenset[str] = frozenset()
    # The brief's sections a study may put in its own order (``report.order``): the keys of
    # its report's sections; the configuration always closes the brief with How we tested.
    brief_sections: tuple[str, ...] = ()
    # What the plan reader says when a plan of another kind ({kind}) sets one of its fields.
    foreign_field_note: str = 'only for kind = "{name}"'
    # The Workload page: what its plan is ("TPROC-C sweep plan"), its start button's words,
    # and whether its plan_form is wide (under both columns) rather than in the sweep's column.
    plan_title: str = ""
    default_name: str = ""  # a plan's name when its file names none ("": the plan's own)
    start_words: str = "Start run"
    # The Workload page's words for the host and the data a run of it uses: whose host
    # (the OS knobs' and RAPL's), the OS knobs' data directory, the block devices' placeholder
    # and hint (a database's by default; fio's file for a random-read study).
    host_noun: str = "the database host"
    data_dir_words: str = "the data directory, to find its disks"
    devices_words: str = "where the database lives"
    devices_hint: str = (
        "e.g. md0, nvme0n1 — empty: the devices of the database's data directory"
        " (when the agent runs on its host), else every disk and array."
    )
    # The Workload page's kind list: what it offers ("TPROC-C (OLTP on a database)"; "": label).
    choice_label: str = ""
    form_wide: bool = False

    def foreign_field(self, kind: str) -> str:
        """The plan reader's problem for one of this kit's fields in a ``kind`` plan."""
        return self.foreign_field_note.format(kind=kind, name=self.name)

    def has_face(self, name: str) -> bool:
        """Whether the kit provides the face ``name`` (an optional one may be absent)."""
        return name in self.faces

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
