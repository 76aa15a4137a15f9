"""The figures of a booth's result card: what a finished run achieved, read from the store.

Between the runs of a booth loop the screen shows one card: the best NOPM, the p99 latency
at that step, how many times the rival session (the other storage) it did at that step, and
the array's cost per new order when its price is stored (as the comparison prices it:
:func:`bench_gui.store.compare_input.array_input` and :mod:`bench_gui.core.economics`).
Every figure that cannot be given says why in its note, so the card never shows a bare dash.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bench_gui.core.compare import format_ratio
from bench_gui.core.economics import (
    EconomicsError,
    array_cost,
    cost_per_new_order,
    format_money,
)
from bench_gui.services.race import Rival
from bench_gui.store.compare_input import array_input, step_power
from bench_gui.store.records import StepResult
from bench_gui.store.sessions import SessionNotFound, SessionStore


class ResultError(ValueError):
    """The session to summarise is not there."""


@dataclass(frozen=True)
class ResultFigures:
    """One finished run in four figures, each with a line saying where it comes from."""

    session_id: int
    name: str
    status: str
    best_nopm: float | None
    best_vus: int | None
    p99_ms: float | None  # all transactions, at the best step
    times_text: str | None  # "29X" (live NOPM / rival NOPM), None when there is no rival step
    times_note: str  # "vs HDD RAID 10 at 48 users", or why there is no figure
    cost_text: str | None  # "$0.06" per new order
    cost_note: str  # "$5,048 / 86,654 NOPM", or why it is not priced
    power_w: float | None = None  # average watts over the best step, when a meter measured
    tpm: float | None = None  # the best step's transactions per minute

    @property
    def nopm_per_watt(self) -> float | None:
        if self.power_w is None or self.power_w <= 0 or self.best_nopm is None:
            return None
        return self.best_nopm / self.power_w

    @property
    def best_note(self) -> str:
        if self.best_vus is None:
            return "no step was measured"
        return f"at {self.best_vus} {'user' if self.best_vus == 1 else 'users'}"


def best_step(steps: list[StepResult]) -> StepResult | None:
    """The step with the most NOPM: among complete steps, else among all (as the store)."""
    scored = [s for s in steps if s.nopm is not None and math.isfinite(s.nopm)]
    pool = [s for s in scored if s.complete] or scored
    return max(pool, key=lambda s: s.nopm or 0.0) if pool else None


def _p99(step: StepResult) -> float | None:
    latency = step.latency_ms.get("all")
    value = latency.get("p99") if isinstance(latency, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _times(best: StepResult, rival: Rival | None) -> tuple[str | None, str]:
    if rival is None:
        return None, "no session to race against was chosen"
    aligned = rival.align(best.step, best.vus)
    if aligned is None:
        return None, f"{rival.label} has no step to set against {best.vus} users"
    stored = aligned.stored.nopm
    if stored is None or stored <= 0 or best.nopm is None:
        return None, f"{rival.label} has no NOPM stored {aligned.note}"
    return format_ratio(best.nopm / stored), f"vs {rival.label} {aligned.note}"


def _cost(store: SessionStore, session_id: int, nopm: float | None) -> tuple[str | None, str]:
    if nopm is None or nopm <= 0:
        return None, "no NOPM to price"
    spec = array_input(store, store.get_run(session_id))
    try:
        cost = array_cost(spec, store.device_prices())
    except EconomicsError as exc:
        if spec.device is None and spec.hand_cost is None:
            return None, "not priced: the session stores no array to price"
        return None, f"not priced: {exc}"
    per_order = cost_per_new_order(cost.cost, nopm)
    note = f"{format_money(cost.cost, cost.currency)} / {nopm:,.0f} NOPM"
    return format_money(per_order, cost.currency), note


def result_figures(store: SessionStore, session_id: int, rival: Rival | None) -> ResultFigures:
    """The card's figures for a stored session, raced against ``rival`` (None: no race)."""
    try:
        detail = store.get_run(session_id)
    except SessionNotFound:
        raise ResultError(f"no stored session with id {session_id}") from None
    best = best_step(store.steps(session_id))
    if best is None:
        return ResultFigures(
            session_id,
            detail.name,
            detail.status,
            None,
            None,
            None,
            None,
            "no step was measured",
            None,
            "no step was measured",
        )
    times_text, times_note = _times(best, rival)
    cost_text, cost_note = _cost(store, session_id, best.nopm)
    return ResultFigures(
        session_id=session_id,
        name=detail.name,
        status=detail.status,
        best_nopm=best.nopm,
        best_vus=best.vus,
        p99_ms=_p99(best),
        times_text=times_text,
        times_note=times_note,
        cost_text=cost_text,
        cost_note=cost_note,
        power_w=step_power(best, store.samples(session_id)),
        tpm=best.tpm,
    )


__all__ = ["ResultError", "ResultFigures", "best_step", "result_figures"]
