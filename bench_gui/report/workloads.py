"""One entry for a report of either workload: the sessions' workload picks the builder.

TPROC-C sweeps go to :func:`bench_gui.report.model.build_report`, random-read studies to
:func:`bench_gui.report.random_read_report.build_random_read_report`; a mix is refused with an
error naming a session of each (:func:`bench_gui.report.random_read_input.workload_of`).
"""

from __future__ import annotations

from collections.abc import Sequence

from bench_gui.core.economics import DevicePrice
from bench_gui.core.saturation import StopConditions
from bench_gui.report.model import Report, build_report
from bench_gui.report.options import ReportOptions
from bench_gui.report.random_read_input import workload_of
from bench_gui.report.random_read_report import RandomReadReport, build_random_read_report
from bench_gui.store.sessions import SessionStore

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
    if workload_of(store, session_ids) == "random_read":
        return build_random_read_report(
            store, session_ids, baseline_id, title, options, target_ops_s, dataset_bytes, prices
        )
    return build_report(store, session_ids, baseline_id, conditions, title=title, options=options)
