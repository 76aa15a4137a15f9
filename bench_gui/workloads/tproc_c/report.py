"""The TPROC-C report's builder as the kit contract calls it (one signature for every kit)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bench_gui.core.economics import DevicePrice
from bench_gui.core.saturation import StopConditions
from bench_gui.report.model import Report, build_report
from bench_gui.report.options import ReportOptions


def build(
    store: Any,
    session_ids: Sequence[int],
    baseline_id: int,
    *,
    conditions: StopConditions | None = None,
    title: str | None = None,
    options: ReportOptions | None = None,
    target_ops_s: float | None = None,
    dataset_bytes: int | None = None,
    prices: Sequence[DevicePrice] | None = None,
) -> Report:
    """The sweeps' report; the random-read question (``target_ops_s``, ``dataset_bytes``) is
    not one a sweep answers, and its prices are the store's."""
    return build_report(store, session_ids, baseline_id, conditions, title=title, options=options)
