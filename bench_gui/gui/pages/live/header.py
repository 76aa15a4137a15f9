"""The Live page's header: the run's name and where it runs, its phase, the countdown, the
step and its users, and the Charts… and Stop buttons."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton

from bench_gui.gui.widgets.charts import format_duration
from bench_gui.gui.widgets.page_parts import PageHeader, set_prop
from bench_gui.services.live_model import LiveModel
from bench_gui.services.session_view import COLLECTING, short_server, user_count

STOP_TEXT = "■  Stop run"


class LiveHeader(PageHeader):
    """A :class:`PageHeader` whose title is the run's name; long names and server strings end
    in "…" instead of widening the window."""

    def __init__(self) -> None:
        super().__init__("No run yet", "Start a sweep from the Workload page.", elide=True)
        self.detail = ""  # what the plan says of the run, before the server is known
        self.phase_pill = QLabel("IDLE")
        self.phase_pill.setObjectName("phasePill")
        self.phase_pill.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.add_widget(self.phase_pill)
        self.countdown = QLabel("")
        self.countdown.setObjectName("countdown")
        self.countdown.setMinimumWidth(110)
        self.countdown.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.add_widget(self.countdown)
        self.step_label = QLabel("")
        self.step_label.setObjectName("stepLabel")
        self.step_label.setMinimumWidth(230)
        self.add_widget(self.step_label)
        self.present_button = self.add_action("Present")
        self.present_button.setToolTip(
            "Full screen for a booth screen: the name, huge tiles, one chart (F11; Esc leaves)"
        )
        self.charts_button = self.add_action("Charts…")
        self.charts_button.setToolTip("Choose and arrange the charts, and the devices they draw")
        self.stop_button = QPushButton(STOP_TEXT)
        self.stop_button.setProperty("role", "danger")
        self.stop_button.setEnabled(False)
        self.add_widget(self.stop_button)
        self.set_pill("idle")

    def begin(self, name: str, detail: str) -> None:
        """A new run: its name, what the plan says of it, the Stop button armed."""
        self.title.setText(name)
        self.detail = detail
        self.subtitle.setText(detail)
        self.subtitle.setToolTip(detail)
        self.arm_stop(True)

    def arm_stop(self, enabled: bool) -> None:
        self.stop_button.setEnabled(enabled)
        self.stop_button.setText(STOP_TEXT)

    def set_pill(self, phase: str) -> None:
        """The pill's colour (the theme selects on its ``phase``)."""
        set_prop(self.phase_pill, "phase", phase)

    def set_countdown(self, seconds: float | None, measuring: bool = False) -> None:
        """The time left in the phase; at the end of a measured window (``measuring``), what
        the run does until the step's end comes instead of a 0:00 that stays up."""
        if seconds is None:
            self.countdown.setText("")
        elif measuring and seconds < 0.5:
            self.countdown.setText(COLLECTING.capitalize())
        else:
            self.countdown.setText(format_duration(seconds))

    def show_model(self, model: LiveModel) -> None:
        """The run's phase, step and users, and the server once the agent has said it."""
        phase = model.phase
        self.phase_pill.setText(model.phase_label.upper())
        if phase in ("rampup", "measure", "failed"):
            self.set_pill(phase)
        else:
            self.set_pill("ended" if model.ended else "idle")
        number, count = model.step_number, model.step_count
        if number is None:
            self.step_label.setText("")
        else:
            of = f" of {count}" if count else ""
            users = f"  ·  {user_count(model.vus)}" if model.vus else ""
            self.step_label.setText(f"Step {number}{of}{users}")
        if model.server or model.engine:
            server = short_server(model.server) or model.engine
            self.subtitle.setText(f"{self.detail}  ·  {server}")
            self.subtitle.setToolTip(f"{self.detail}\n{model.server}")
