"""The Live page's contract with a workload: the view of a run in progress.

Each kit's ``live_view`` face is a class the Live page builds once, with the :class:`LiveParts`
it shares (the run's model, the header, the banner, the driver hosts); the page shows the view of
the plan's workload, or of the kit that claims a session's ``hello`` when the plan did not say.
The page keeps what every run has (the header's clock, the stop box, the banner, the redraw
timer) and asks the view, through :class:`LiveView`, for everything in its workload's words; it
never names a workload. The page's own types are only named here for the checker, so this
module imports nothing of the page when it runs (a kit's view imports the page's parts).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from bench_gui.core.plan_model import Plan
    from bench_gui.gui.pages.live.header import LiveHeader
    from bench_gui.gui.pages.live.hosts_strip import HostsStrip
    from bench_gui.gui.widgets.page_parts import Banner
    from bench_gui.services.live_hosts import LiveHosts
    from bench_gui.services.live_model import LiveModel
    from bench_gui.wire.protocol import Event


@dataclass(frozen=True)
class LiveParts:
    """What the Live page shares with every view: the run's model (fed every event by the
    page, for its phase and end), the header, the banner, the driver hosts with their strip
    (reset by the page for every run) and the page's redraw (after a choice of charts)."""

    model: LiveModel
    header: LiveHeader
    banner: Banner
    hosts: LiveHosts
    hosts_strip: HostsStrip
    refresh: Callable[[], None]


@runtime_checkable
class LiveView(Protocol):
    """What the Live page asks of a workload's view of a run in progress."""

    # Whether the header offers the chart chooser, and the full-screen Present view with its
    # booth race (F11); a view without them fills the screen itself.
    chart_chooser: bool
    present: bool
    # What one step of a run is called, and several, in the stop box ("point", "dataset sizes").
    step_word: str
    steps_word: str

    def widgets(self) -> Sequence[tuple[QWidget, int]]:
        """Its widgets, top to bottom, with their stretch, for the page's column."""
        ...

    def set_shown(self, shown: bool) -> None:
        """Show its widgets (the run is of its workload) or hide them."""
        ...

    def claims(self, hello: Event) -> bool:
        """Whether a ``hello`` says the run is of its workload (a stored or re-attached session
        whose plan did not say)."""
        ...

    def begin(self, plan: Plan) -> str:
        """Clear everything for a run of ``plan`` (the run's model too); the header's line."""
        ...

    def adopt(self, name: str, hello: Event) -> str:
        """Take over the run ``name`` from its claimed ``hello``; the header's line."""
        ...

    def feed(self, event: Event) -> None:
        """Take one event (before the page's model does; no drawing)."""
        ...

    def status_text(self, event: Event) -> str:
        """The window's status line after ``event`` ("" when it changes nothing worth saying)."""
        ...

    def finish(self, status: str) -> None:
        """The run ended with ``status`` (the page's model has its phase)."""
        ...

    def fail(self, message: str) -> None:
        """The run failed with ``message``."""
        ...

    def banner_text(self, tone: str) -> str:
        """The banner's line when the run ends in ``tone``."""
        ...

    def say_what_is_missing(self, tone: str) -> None:
        """Charts still empty at the end say why."""
        ...

    def phase_remaining(self) -> float | None:
        """Seconds left in the phase as of the last sample, or None."""
        ...

    def measuring(self) -> bool:
        """In a measured window whose end the countdown says ("collecting" at 0:00)."""
        ...

    @property
    def version(self) -> int:
        """Changes whenever what it draws changes."""
        ...

    def queue_all(self) -> None:
        """Queue every chart it shows for its redraw."""
        ...

    def paint(self) -> None:
        """Paint the tiles and the header from its model."""
        ...

    def draw_next(self) -> bool:
        """Redraw the next queued chart; False when none is queued."""
        ...

    def choose_charts(self) -> None:
        """Open the chart chooser (a view without one does nothing)."""
        ...
