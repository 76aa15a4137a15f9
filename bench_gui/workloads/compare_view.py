"""The Compare page's contract with a workload: the view of a comparison.

Each kit's ``compare_view`` face is a QWidget class keeping :class:`CompareView`; the Compare
page builds one of each kit's once, stacks them, and shows the one of the ticked sessions'
workload (``kit_for(workload_of(store, ids))``). The page keeps what every comparison has (the
sessions and the baseline, the prices, the stop conditions, the title and the report's options,
Export) and hands them to the view as :class:`CompareInputs`; the view builds its report from
them and from inputs of its own (random read's "SSDs replace RAM" question), shows it, and says
when its own inputs change (``changed``: the page compares again) or are wrong (``problem``:
the page shows the message, the comparison on show stays). Export writes the report
:meth:`CompareView.compare` returned (``report.write_report``, ``report.write_charts``; the
page puts the author's notes and cover on it), so that report carries ``title``, ``charts``,
``options``, ``author_notes`` and ``comparison.sessions``. The page never names a workload;
its types are only named here for the checker.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from bench_gui.core.economics import ArrayInput, DevicePrice, PowerPrice
    from bench_gui.core.saturation import StopConditions
    from bench_gui.report.options import ReportOptions


@dataclass(frozen=True)
class CompareInputs:
    """What the Compare page asks of every comparison: the stop conditions, the title (None:
    the report's own), the report's options, and the prices as edited on the page (each
    session's array, the price list with the page's unit prices on top, the power price). A
    view takes the ones its workload uses (its kit's ``compare_inputs``)."""

    conditions: StopConditions
    title: str | None
    options: ReportOptions
    arrays: Mapping[int, ArrayInput]
    prices: Sequence[DevicePrice]
    power_price: PowerPrice | None


R = TypeVar("R")


@runtime_checkable
class CompareView(Protocol[R]):
    """What the Compare page asks of a workload's view of a comparison (a QWidget)."""

    @property
    def changed(self) -> SignalInstance:
        """Emitted when an input of the view's own changed while a report is shown: the page
        compares again."""
        ...

    @property
    def problem(self) -> SignalInstance:
        """Emitted with a message naming an input of the view's own that is wrong."""
        ...

    def compare(
        self, store: Any, session_ids: Sequence[int], baseline_id: int, inputs: CompareInputs
    ) -> R:
        """The report of the stored sessions (of its workload) against ``baseline_id``; raise
        ValueError (CompareError, a bad input) or StoreError/SessionNotFound with a message
        saying why not. Nothing is shown yet."""
        ...

    def show_report(self, report: R) -> None:
        """Show ``report`` (one :meth:`compare` returned)."""
        ...

    def clear(self) -> None:
        """Back to the empty state (what to do to get a comparison)."""
        ...

    def status_text(self, report: R) -> str:
        """The status bar's line once ``report`` is shown, in the workload's words."""
        ...
