"""The Present view's phase line: where the run is, in one large line.

A coloured chip with the phase (Ramp-up, Measuring, Finished...) and after it the step, the
users and the countdown: "Step 6 of 8 · 48 users · 0:18 left". While the database does not
answer, that first ("Database not answering for 45 s"), on an amber chip: a booth whose server
died must not read "collecting the step's figures" over a zero until the run gives up. After
the run: how many steps were measured and which one the tiles show; after a failure: why.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from bench_gui.core.plan_model import Plan
from bench_gui.gui.widgets.charts import format_duration
from bench_gui.gui.widgets.elided import ElidedLabel
from bench_gui.gui.widgets.page_parts import set_prop
from bench_gui.services.live_model import LiveModel
from bench_gui.services.session_view import COLLECTING, user_count

SEPARATOR = "  ·  "
COUNTDOWN_DONE_S = 0.5  # under this, the countdown would read 0:00
STALLED_CHIP = "Waiting"  # the chip while the database does not answer


def starting_text(plan: Plan) -> str:
    """What a run does before its first event: a first start of the demo database (initdb)
    takes a while, and a chip saying "Starting" alone reads as a hang."""
    if plan.target.kind == "demo":
        return "starting the demo database"
    return f"connecting to {plan.target.host}" if plan.target.host else ""


def phase_text(model: LiveModel, countdown: float | None, starting: str = "") -> str:
    """The words after the chip (``countdown``: seconds left in the phase, or None;
    ``starting``: what the run does before its first event)."""
    if model.phase == "failed":
        return model.status_message or "the run could not go on"
    if model.phase == "starting" and model.build is not None:
        return model.build.text
    if model.phase == "starting" and not (model.engine or model.server):
        return starting  # the agent has not said hello yet
    if model.ended:
        # Steps with a figure, as the tiles count them (a step cut short has none).
        n = sum(1 for point in model.points if point.nopm is not None)
        if not n:
            return "no step was measured"
        parts = [f"{n} step{'s' if n != 1 else ''} measured"]
        best = model.best_point()
        if best is not None:
            users = "user" if best.vus == 1 else "users"
            parts.append(f"result: the best step, {best.vus} {users}")
        return SEPARATOR.join(parts)
    parts = []
    warning = model.db_warning  # first: the line is elided at its end on a small screen
    if warning:
        parts.append(f"{warning[0].upper()}{warning[1:]}")
    if model.step_number is not None:
        of = f" of {model.step_count}" if model.step_count else ""
        parts.append(f"Step {model.step_number}{of}")
    if model.vus:
        parts.append(user_count(model.vus))
    if countdown is not None and not warning:
        if model.phase == "rampup":
            parts.append(f"measuring in {format_duration(countdown)}")
        elif model.phase == "measure":
            # The window is over; the step's end (its figures) is on its way.
            done = countdown < COUNTDOWN_DONE_S
            parts.append(COLLECTING if done else f"{format_duration(countdown)} left")
        elif model.phase == "baseline":
            parts.append(f"{format_duration(countdown)} of idle power left")
    return SEPARATOR.join(parts)


def chip_phase(model: LiveModel) -> str:
    """The chip's colour (the style sheet selects on it)."""
    if model.phase in ("rampup", "measure") and model.db_warning:
        return "stalled"
    if model.phase in ("rampup", "measure", "failed"):
        return model.phase
    if model.phase == "starting" and model.build is not None:
        return "building"
    return "ended" if model.ended else "idle"


class PhaseLine(QWidget):
    """The chip and the line after it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(24)
        self.chip = QLabel("Waiting")
        self.chip.setObjectName("phaseChip")
        self.chip.setAlignment(Qt.AlignmentFlag.AlignCenter)
        row.addWidget(self.chip, 0, Qt.AlignmentFlag.AlignVCenter)
        self.text = ElidedLabel("")
        self.text.setObjectName("phaseText")
        row.addWidget(self.text, 1)
        set_prop(self.chip, "phase", "idle")

    def show_model(self, model: LiveModel, countdown: float | None, starting: str = "") -> None:
        phase = chip_phase(model)
        self.chip.setText(STALLED_CHIP if phase == "stalled" else model.phase_label)
        set_prop(self.chip, "phase", phase)
        text = phase_text(model, countdown, starting)
        if text != self.text.text():
            self.text.setText(text)
            self.text.setToolTip(text)

    @property
    def line(self) -> str:
        """The whole line as read (chip and text), for tests and logs."""
        return f"{self.chip.text()}{SEPARATOR}{self.text.text()}".strip(" ·")
