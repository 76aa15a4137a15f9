"""One entry for a report of any workload: the sessions' workload kit builds it.

The kit's ``report`` face (TPROC-C's :func:`bench_gui.report.model.build_report`, random
read's :func:`bench_gui.workloads.random_read.report.build_random_read_report`) is called with
every option; a mix is refused with an error naming a session of each
(:func:`bench_gui.workloads.mix.workload_of`). Every kit's report keeps
:class:`bench_gui.report.written.WrittenReport`, all the writers ask of it; :data:`AnyReport`
is what the Compare page and the CLI also read of the built-in ones (their comparison, options).
"""

from __future__ import annotations

from collections.abc import Sequence

from bench_gui.core.economics import DevicePrice
from bench_gui.core.saturation import StopConditions
from bench_gui.report.model import Report
from bench_gui.report.options import ReportOptions
from bench_gui.store.sessions import SessionStore
from bench_gui.workloads.base import kit_for
from bench_gui.workloads.mix import workload_of
from bench_gui.workloads.random_read.report import RandomReadReport

AnyReport = Report | RandomReadReport


def build_any_report(
    store: SessionStore,
    session_ids: Sequence[int],
    baseline_id: int,
    conditions: StopConditions | None = None,
    title: str | None = None,
    options: ReportOptions | None = None,
    target_ops_s: float | None = None,
    dataset_bytes: int | None = None,
    prices: Sequence[DevicePrice] | None = None,
) -> AnyReport:
    """The report of the sessions' workload. ``conditions`` are the TPROC-C stop conditions;
    ``target_ops_s`` and ``dataset_bytes`` the random-read RAM question (both ignored by the
    other workload); ``prices`` the random-read price list (default: the store's). Raises
    CompareError (a mix of workloads included) or SessionNotFound."""
    build = kit_for(workload_of(store, session_ids)).face("report")
    report: AnyReport = build(
        store,
        session_ids,
        baseline_id,
        conditions=conditions,
        title=title,
        options=options,
        target_ops_s=target_ops_s,
        dataset_bytes=dataset_bytes,
        prices=prices,
    )
    return report
