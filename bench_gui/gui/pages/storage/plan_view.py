"""The plan and the run of the Storage page: the exact commands of a dry run with the check
against the last scan, then the typed confirmation, Apply / Tear down, the progress and the
live log."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.storage import Layout, normalize_device
from bench_gui.core.storage_plan import StoragePlan, build_plan, build_teardown
from bench_gui.gui.pages.storage.evidence import muted_html, ok_html, refusals_html
from bench_gui.gui.widgets.page_parts import form_label, min_text_height, mono_font
from bench_gui.services.storage import (
    Discovery,
    Refusal,
    check_layout,
    not_recorded_refusal,
    signed_refusal,
)

PROGRESS_STEPS = 1000  # the run's progress bar counts in thousandths


def plan_text(plan: StoragePlan) -> str:
    """A plan as a shell-like listing: each step's title as a comment, then its command."""
    layout = plan.layout
    lines = [f"# {plan.action} of {layout.name!r} on {layout.target}: nothing runs yet", ""]
    for i, step in enumerate(plan.steps, 1):
        lines.append(f"# {i}. {step.title}")
        lines.append(step.display())
    if plan.notes:
        lines.append("")
        lines += [f"# note: {n}" for n in plan.notes]
    return "\n".join(lines)


class PlanView(QGroupBox):
    """The dry run: the commands that build (or tear down) the layout, and the check.

    Signals:
        mode_changed(): the user switched between building and tearing down.
    """

    mode_changed = Signal()

    def __init__(self) -> None:
        super().__init__("Plan — dry run")
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        mode = QHBoxLayout()
        self.plan_mode = QComboBox()
        self.plan_mode.addItem("Build the layout", "apply")
        self.plan_mode.addItem("Tear it down", "teardown")
        self.plan_mode.currentIndexChanged.connect(lambda _i: self.mode_changed.emit())
        mode.addWidget(form_label("Show", top=True))
        mode.addWidget(self.plan_mode, 1)
        layout.addLayout(mode)
        self.plan_text = QPlainTextEdit()
        self.plan_text.setReadOnly(True)
        self.plan_text.setFont(mono_font())
        self.plan_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        min_text_height(self.plan_text, 300)
        layout.addWidget(self.plan_text)
        self.check_label = QLabel("")
        self.check_label.setWordWrap(True)
        self.check_label.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.check_label)

    @property
    def teardown(self) -> bool:
        return bool(self.plan_mode.currentData() == "teardown")

    def show_mode(self, teardown: bool) -> None:
        self.plan_mode.setCurrentIndex(1 if teardown else 0)

    def show_no_plan(self, problems: list[tuple[str, str]], has_devices: bool) -> None:
        """No valid layout: say why instead of a plan."""
        lines = [
            "# No plan yet: the layout has errors."
            if has_devices
            else "# No plan yet: tick the devices to build on."
        ]
        lines += [
            f"#   {name}: {reason}" for name, reason in problems if has_devices or name != "devices"
        ]
        self.plan_text.setPlainText("\n".join(lines))
        self.check_label.setText("")

    def show_plan(self, layout: Layout) -> StoragePlan:
        """Show the plan of the chosen mode for ``layout``, and return it."""
        plan = build_teardown(layout) if self.teardown else build_plan(layout)
        self.plan_text.setPlainText(plan_text(plan))
        return plan

    def show_unchecked(self) -> None:
        self.check_label.setText(muted_html("Scan the target to check the devices before running."))

    def show_check(self, refusals: list[Refusal], host: str) -> None:
        """The outcome of checking the plan against a scan of ``host``."""
        if refusals:
            self.check_label.setText(refusals_html(refusals, host))
            return
        self.check_label.setText(
            ok_html(
                f"✓ Checked against the scan of {host}: no device is in use. The devices are"
                " checked again, with an exclusive open, right before the first command."
            )
        )


class RunPanel(QGroupBox):
    """The typed confirmation, Apply / Tear down / Stop, the step, the progress and the log.

    The page connects the buttons (``apply_button``, ``teardown_button``, ``cancel_button``)
    and ``confirm_edit``'s edits. Two overrides, each its own explicit word and shown only
    when it applies: ``unreadable_check`` (the process scan could not read every process)
    and ``not_built_check`` with ``not_built_edit`` (tear down a layout bench-gui has no
    record of building: the device names typed once more), and ``signed_check`` with
    ``signed_edit`` (apply over devices that carry a signature: those names typed once more).

    Signals:
        overrides_changed(): an override was ticked, unticked or typed.
    """

    overrides_changed = Signal()

    def __init__(self) -> None:
        super().__init__("Run")
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        self.confirm_hint = QLabel("")
        self.confirm_hint.setObjectName("fieldHint")
        self.confirm_hint.setWordWrap(True)
        layout.addWidget(self.confirm_hint)
        self.confirm_edit = QLineEdit()
        self.confirm_edit.setPlaceholderText("type the device names to confirm")
        layout.addWidget(self.confirm_edit)
        self.unreadable_check = QCheckBox(
            "Go on although some processes of the target could not be read"
        )
        self.unreadable_check.setToolTip(
            "The process scan could not read every process's open files (not root, or"
            " processes even root may not read): one of them may hold a device open."
        )
        self.unreadable_check.hide()
        self.unreadable_check.toggled.connect(lambda _on: self.overrides_changed.emit())
        layout.addWidget(self.unreadable_check)
        self.not_built_box = QWidget()
        not_built = QVBoxLayout(self.not_built_box)
        not_built.setContentsMargins(0, 0, 0, 0)
        not_built.setSpacing(4)
        self.not_built_check = QCheckBox(
            "This layout was not built by bench-gui: tear it down anyway"
        )
        self.not_built_edit = QLineEdit()
        self.not_built_edit.setPlaceholderText("type the device names once more")
        self.not_built_edit.setEnabled(False)
        self.not_built_check.toggled.connect(self._on_not_built_toggled)
        self.not_built_edit.textChanged.connect(lambda _t: self.overrides_changed.emit())
        not_built.addWidget(self.not_built_check)
        not_built.addWidget(self.not_built_edit)
        self.not_built_box.hide()
        layout.addWidget(self.not_built_box)
        self.signed_box = QWidget()
        signed = QVBoxLayout(self.signed_box)
        signed.setContentsMargins(0, 0, 0, 0)
        signed.setSpacing(4)
        self.signed_check = QCheckBox(
            "Some devices carry a signature (a filesystem, a partition table, a RAID or LVM"
            " member): erase them and what they hold"
        )
        self.signed_edit = QLineEdit()
        self.signed_edit.setPlaceholderText("type the names of those devices once more")
        self.signed_edit.setEnabled(False)
        self.signed_check.toggled.connect(self._on_signed_toggled)
        self.signed_edit.textChanged.connect(lambda _t: self.overrides_changed.emit())
        signed.addWidget(self.signed_check)
        signed.addWidget(self.signed_edit)
        self.signed_box.hide()
        layout.addWidget(self.signed_box)
        buttons = QHBoxLayout()
        self.apply_button = QPushButton("Apply layout")
        self.apply_button.setProperty("role", "danger")
        self.teardown_button = QPushButton("Tear down")
        self.teardown_button.setProperty("role", "danger")
        self.cancel_button = QPushButton("Stop after this step")
        self.cancel_button.setEnabled(False)
        buttons.addWidget(self.apply_button)
        buttons.addWidget(self.teardown_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        # The step and its Stop button share a row (the buttons' row fits a narrow column).
        step = QHBoxLayout()
        self.step_label = QLabel("")
        self.step_label.setObjectName("muted")
        self.step_label.setWordWrap(True)
        step.addWidget(self.step_label, 1)
        step.addWidget(self.cancel_button)
        layout.addLayout(step)
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, PROGRESS_STEPS)
        self.progress_bar.setTextVisible(False)
        self.progress_bar.setMaximumHeight(10)
        self.progress_bar.hide()
        layout.addWidget(self.progress_bar)
        self.log_view = QPlainTextEdit()
        self.log_view.setReadOnly(True)
        self.log_view.setFont(mono_font())
        self.log_view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        min_text_height(self.log_view, 200)
        self.log_view.setPlaceholderText("The live log of a run appears here.")
        layout.addWidget(self.log_view)

    # ---- the typed confirmation ----------------------------------------------------------

    def ask_for(self, plan: StoragePlan | None) -> None:
        """Say which device names must be typed to run ``plan`` (None: nothing to run)."""
        if plan is None:
            self.confirm_hint.setText("")
            return
        names = ", ".join(plan.confirm_devices)
        self.confirm_hint.setText(
            f"To run it, type every device it destroys: {names} (short names such as sdb work too)."
        )

    def typed(self) -> list[str]:
        """The device names as typed (commas or spaces between them)."""
        return [p for p in self.confirm_edit.text().replace(",", " ").split() if p.strip()]

    def confirmed(self, layout: Layout | None) -> bool:
        """True when the typed names are exactly the devices of ``layout``."""
        if layout is None:
            return False
        return {normalize_device(p) for p in self.typed()} == set(layout.device_paths)

    # ---- the overrides -------------------------------------------------------------------

    def _on_not_built_toggled(self, on: bool) -> None:
        self.not_built_edit.setEnabled(on)
        self.overrides_changed.emit()

    def _on_signed_toggled(self, on: bool) -> None:
        self.signed_edit.setEnabled(on)
        self.overrides_changed.emit()

    def offer_overrides(self, unreadable: bool, not_built: bool, signed: bool = False) -> None:
        """Show the overrides that apply now; one that goes away is reset, never kept."""
        widgets = (
            self.unreadable_check,
            self.not_built_check,
            self.not_built_edit,
            self.signed_check,
            self.signed_edit,
        )
        for widget in widgets:
            widget.blockSignals(True)
        if not unreadable:
            self.unreadable_check.setChecked(False)
        for shown, check, edit in (
            (not_built, self.not_built_check, self.not_built_edit),
            (signed, self.signed_check, self.signed_edit),
        ):
            if not shown:
                check.setChecked(False)
                edit.clear()
                edit.setEnabled(False)
        for widget in widgets:
            widget.blockSignals(False)
        self.unreadable_check.setVisible(unreadable)
        self.not_built_box.setVisible(not_built)
        self.signed_box.setVisible(signed)

    def accept_unreadable(self) -> bool:
        """The user's word to go on although the process scan was incomplete."""
        return not self.unreadable_check.isHidden() and self.unreadable_check.isChecked()

    def not_built_typed(self) -> list[str] | None:
        """The device names typed for "not built by bench-gui" (None: not ticked)."""
        if self.not_built_box.isHidden() or not self.not_built_check.isChecked():
            return None
        return [p for p in self.not_built_edit.text().replace(",", " ").split() if p.strip()]

    def signed_typed(self) -> list[str] | None:
        """The device names typed to erase devices that carry a signature (None: not ticked)."""
        if self.signed_box.isHidden() or not self.signed_check.isChecked():
            return None
        return [p for p in self.signed_edit.text().replace(",", " ").split() if p.strip()]

    # ---- the run -------------------------------------------------------------------------

    def begin(self, text: str, steps_known: bool) -> None:
        """A run starts: clear the log, show ``text`` and the progress (busy if unknown)."""
        self.log_view.clear()
        if steps_known:
            self.progress_bar.setValue(0)
        else:
            self.progress_bar.setRange(0, 0)
        self.progress_bar.show()
        self.step_label.setText(text)

    def show_progress(self, fraction: float, text: str) -> None:
        self.progress_bar.setRange(0, PROGRESS_STEPS)
        self.progress_bar.setValue(int(fraction * PROGRESS_STEPS))
        if text:
            self.step_label.setText(text)

    def end(self, ran: bool, ok: bool) -> None:
        """A task ended: the progress bar stays full after a run that worked (``ran``: it
        was a run with progress, not a scan), and hides after a failure."""
        self.progress_bar.setRange(0, PROGRESS_STEPS)
        if ran:
            self.progress_bar.setValue(PROGRESS_STEPS if ok else self.progress_bar.value())
            self.progress_bar.setVisible(ok)

    def append_log(self, line: str) -> None:
        self.log_view.appendPlainText(line)
        bar = self.log_view.verticalScrollBar()
        bar.setValue(bar.maximum())


def check_run(
    layout: Layout, action: str, disc: Discovery | None, state_dir: Path, run: RunPanel
) -> tuple[list[Refusal] | None, Refusal | None]:
    """The refusals of running ``layout`` now (None: no scan to check against yet), and the
    refusal of tearing down a layout bench-gui did not build (for the page's banner).

    Offers on ``run`` the overrides that apply (an incomplete process scan; a teardown of an
    unrecorded layout; an apply over devices that carry a signature) and takes into account
    those the user gave.
    """
    teardown = action == "teardown"
    unrecorded = teardown and not_recorded_refusal(layout, state_dir) is not None
    incomplete = disc is not None and disc.handles is not None and not disc.handles.complete
    signed = not teardown and disc is not None and signed_refusal(layout, disc) is not None
    run.offer_overrides(unreadable=incomplete, not_built=unrecorded, signed=signed)
    not_built = not_recorded_refusal(layout, state_dir, run.not_built_typed()) if teardown else None
    head = [not_built] if not_built is not None else []
    if disc is None:
        return (head or None), not_built
    accept = run.accept_unreadable()
    refusals = check_layout(
        layout, disc, action, accept_unreadable=accept, wipe_signed=run.signed_typed()
    )
    return head + refusals, not_built
