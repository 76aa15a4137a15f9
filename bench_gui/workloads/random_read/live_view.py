"""The Live page's view of a random-read run (seed 004): its own board instead of the sweep's
tiles and charts (:mod:`.live_board`, fed by a :class:`~.live_model.RandomReadLive`): ops/s,
latency, the dataset size and the point, in that workload's words. A stored or re-attached
session whose plan did not say gets it from its agent's ``hello``. The chart chooser and the
Present view are the sweep's: not offered here."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QWidget

from bench_gui.core.plan_model import Plan
from bench_gui.wire.protocol import Event
from bench_gui.workloads.live_view import LiveParts
from bench_gui.workloads.random_read.live_board import (
    RandomReadBoard,
    banner_text,
    header_state,
    plan_detail,
    status_text,
    study_detail,
)
from bench_gui.workloads.random_read.live_model import RandomReadLive, is_random_read


class RandomReadLiveView:
    """The random-read board, drawn from its own model (the page's run model keeps the phase
    and the end)."""

    chart_chooser = False
    present = False
    step_word = "point"
    steps_word = "dataset sizes"

    def __init__(self, parts: LiveParts) -> None:
        self.parts = parts
        self.model = RandomReadLive()
        self.board = RandomReadBoard(self.model)

    def widgets(self) -> Sequence[tuple[QWidget, int]]:
        return ((self.board, 1),)

    def set_shown(self, shown: bool) -> None:
        self.board.setVisible(shown)

    def claims(self, hello: Event) -> bool:
        return is_random_read(hello)

    # ---- a run -----------------------------------------------------------------------------

    def begin(self, plan: Plan) -> str:
        wl = plan.workload
        self.parts.model.begin([], wl.warmup_s, wl.measure_s, plan.name)
        self.model.begin(plan.name, wl.warmup_s, wl.measure_s, wl.raw_iops_s)
        self.board.reset()
        return plan_detail(plan)

    def adopt(self, name: str, hello: Event) -> str:
        self.model.begin(name, 0.0, 0.0)
        self.board.reset()
        self.model.feed(hello)
        return study_detail(self.model)

    def feed(self, event: Event) -> None:
        self.model.feed(event)

    def status_text(self, event: Event) -> str:
        return status_text(self.model, event)

    def finish(self, status: str) -> None:
        if not self.model.ended:
            self.model.finish(status)

    def fail(self, message: str) -> None:
        self.model.finish("failed", message)

    def banner_text(self, tone: str) -> str:
        return banner_text(self.model, tone)

    def say_what_is_missing(self, tone: str) -> None:
        self.board.say_what_is_missing(tone)

    def phase_remaining(self) -> float | None:
        return self.model.phase_remaining()

    def measuring(self) -> bool:
        return False  # its countdown never says "collecting"

    # ---- drawing ---------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return self.model.version

    def queue_all(self) -> None:
        self.board.queue_all()

    def draw_next(self) -> bool:
        if not self.board.stale:
            return False
        self.board.draw(self.board.next_stale())
        return True

    def paint(self) -> None:
        """The random-read tiles and the header in that workload's words."""
        model, header = self.model, self.parts.header
        self.board.tiles.show_model(model)
        pill, tone, line = header_state(model)
        header.phase_pill.setText(pill)
        header.set_pill(tone)
        header.step_label.setText(line)
        if model.fio_version:
            header.subtitle.setText(f"{header.detail}  ·  {model.fio_version}")

    def choose_charts(self) -> None:
        pass  # no chart chooser: its four charts are fixed
