"""The Live page's header: the run's name and where it runs, its phase, the countdown, the
step and its users, and the Present, Charts… and Stop buttons.

On a wide page it is one row: the name over where it runs, then the phase, the countdown and
the step, then the buttons. When that row leaves the name too little room (a laptop's 1280 px
cut "RAID 10, 4× SAS SSD — PostgreSQL 16" to "RAID 10, …"), it takes two lines: the name and
the buttons, then where it runs with the phase, countdown and step at the right.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from bench_gui.gui.widgets.charts import format_duration
from bench_gui.gui.widgets.page_parts import PageHeader, set_prop
from bench_gui.services.live_model import LiveModel
from bench_gui.services.session_view import COLLECTING, short_server, user_count

STOP_TEXT = "■  Stop run"
SPACING = 12


class LiveHeader(PageHeader):
    """A :class:`PageHeader` whose title is the run's name; the name gets the room it needs
    (see the module), and only a name longer than the whole row ends in "…" (its tooltip
    says it whole), as do long server strings."""

    def __init__(self) -> None:
        super().__init__("No run yet", "Start a sweep from the Workload page.", elide=True)
        self.detail = ""  # what the plan says of the run, before the server is known
        self.status = QWidget()  # the phase, the countdown, the step: moved as one
        status = QHBoxLayout(self.status)
        status.setContentsMargins(0, 0, 0, 0)
        status.setSpacing(SPACING)
        self.phase_pill = QLabel("IDLE")
        self.phase_pill.setObjectName("phasePill")
        self.phase_pill.setAlignment(Qt.AlignmentFlag.AlignCenter)
        status.addWidget(self.phase_pill, 0, Qt.AlignmentFlag.AlignVCenter)
        self.countdown = QLabel("")
        self.countdown.setObjectName("countdown")
        self.countdown.setMinimumWidth(110)
        self.countdown.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        status.addWidget(self.countdown, 0, Qt.AlignmentFlag.AlignVCenter)
        self.step_label = QLabel("")
        self.step_label.setObjectName("stepLabel")
        self.step_label.setMinimumWidth(230)
        status.addWidget(self.step_label, 0, Qt.AlignmentFlag.AlignVCenter)
        self.add_widget(self.status)
        self.button_row = QWidget()  # the buttons: moved as one
        buttons = QHBoxLayout(self.button_row)
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.setSpacing(SPACING)
        self.present_button = QPushButton("Present")
        self.present_button.setToolTip(
            "Full screen for a booth screen: the name, huge tiles, one chart (F11; Esc leaves)"
        )
        self.charts_button = QPushButton("Charts…")
        self.charts_button.setToolTip("Choose and arrange the charts, and the devices they draw")
        self.stop_button = QPushButton(STOP_TEXT)
        self.stop_button.setProperty("role", "danger")
        self.stop_button.setEnabled(False)
        for button in (self.present_button, self.charts_button, self.stop_button):
            buttons.addWidget(button)
        self.add_widget(self.button_row)
        # Two lines when stacked: the name and the buttons, then where it runs and the status.
        self.first_line = QHBoxLayout()
        self.first_line.setSpacing(SPACING)
        self.second_line = QHBoxLayout()
        self.second_line.setSpacing(SPACING)
        self.titles.removeWidget(self.title)
        self.titles.removeWidget(self.subtitle)
        self.first_line.addWidget(self.title, 1)
        self.second_line.addWidget(self.subtitle, 1)
        self.titles.addLayout(self.first_line)
        self.titles.addLayout(self.second_line)
        self.stacked = False
        self.set_pill("idle")

    def begin(self, name: str, detail: str) -> None:
        """A new run: its name, what the plan says of it, the Stop button armed."""
        self.title.setText(name)
        self.title.setToolTip(name)
        self.detail = detail
        self.subtitle.setText(detail)
        self.subtitle.setToolTip(detail)
        self.arm_stop(True)
        self.arrange()

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
            text = ""
        elif measuring and seconds < 0.5:
            text = COLLECTING.capitalize()
        else:
            text = format_duration(seconds)
        if text != self.countdown.text():
            self.countdown.setText(text)
            self.arrange()

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
        self.arrange()

    # ---- layout ----------------------------------------------------------------------------

    def arrange(self) -> None:
        """One row when the name fits there whole beside the status and the buttons, else two
        lines (see the module)."""
        title = self.title
        need = title.fontMetrics().horizontalAdvance(title.text()) + 4
        beside = self.button_row.sizeHint().width() + self.status.sizeHint().width() + 2 * SPACING
        stacked = need > self.width() - beside
        if stacked == self.stacked:
            return
        self.stacked = stacked
        set_prop(self.countdown, "compact", stacked)
        # Stacked, the countdown and step are as wide as their text: the subtitle keeps the rest.
        self.countdown.setMinimumWidth(0 if stacked else 110)
        self.step_label.setMinimumWidth(0 if stacked else 230)
        center = Qt.AlignmentFlag.AlignVCenter
        for widget in (self.status, self.button_row):
            self._row.removeWidget(widget)
            self.first_line.removeWidget(widget)
            self.second_line.removeWidget(widget)
        if stacked:
            self.first_line.addWidget(self.button_row, 0, center)
            self.second_line.addWidget(self.status, 0, center)
        else:
            self._row.addWidget(self.status, 0, center)
            self._row.addWidget(self.button_row, 0, center)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        self.arrange()
