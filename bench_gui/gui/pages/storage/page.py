"""The Storage page: the target's disks, a layout over them, its plan, and the database on it.

Left: the block devices of the chosen target ("This machine" or a saved SSH target) with what
uses each one and the evidence for it (:mod:`.devices`), then the layout editor (array,
filesystem, mount, and per device the erase method the device supports, its scheduler and
read-ahead: :mod:`.layout_form`). Right: the plan as the exact commands (a dry run, checked
against the last scan: a device in use is refused here already, with its evidence), the
confirmation (the device names, typed), Apply and Tear down with a live log and progress
(:mod:`.plan_view`), and the database placement with its undo (:mod:`.database_form`).

All remote work runs in the page's task runner, one task at a time (:mod:`.jobs`): the page
never waits for a disk or the network, and is only touched in the GUI thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFileDialog, QLabel, QSplitter, QVBoxLayout, QWidget

from bench_gui.core.echo import problems_text
from bench_gui.core.storage import Layout, LayoutError, layout_from_dict, load_layout
from bench_gui.gui.pages.storage.database_form import DatabaseForm
from bench_gui.gui.pages.storage.devices import DevicesPanel
from bench_gui.gui.pages.storage.jobs import PLACEMENT_KINDS, StorageJobs
from bench_gui.gui.pages.storage.layout_form import LayoutForm
from bench_gui.gui.pages.storage.plan_view import PlanView, RunPanel, check_run
from bench_gui.gui.tasks import Task
from bench_gui.gui.widgets.page_parts import Banner, PageHeader, page_layout, scrolled
from bench_gui.services.errors import SSHError
from bench_gui.services.hosts import (
    LOCAL_TARGET,
    data_dir,
    saved_target_names,
)
from bench_gui.services.storage import Discovery, Refusal

# Check boxes inside the device table, drawn like the theme's QCheckBox.
_PAGE_STYLE = """
QTableView::indicator { width: 16px; height: 16px; border: 2px solid #4a5570;
                        border-radius: 4px; background: #1a1f29; }
QTableView::indicator:checked { background: #33b1ff; border-color: #33b1ff; }
QTableView::indicator:disabled { border-color: #2a3140; background: #161a22; }
"""


def _column(widgets: list[QWidget], margins: tuple[int, int, int, int]) -> QWidget:
    column = QWidget()
    layout = QVBoxLayout(column)
    layout.setContentsMargins(*margins)
    layout.setSpacing(6)
    for widget in widgets:
        layout.addWidget(widget)
    layout.addStretch(1)
    return column


class StoragePage(QWidget):
    """Block devices, a layout, its plan, apply/teardown and database placement.

    Signals:
        status(str): a short line for the window's status bar.
        layout_applied(dict): the description of a layout just built (for sessions).
    """

    status = Signal(str)
    layout_applied = Signal(dict)

    def __init__(self, folder: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder = folder if folder is not None else data_dir()
        self.state_dir = self.folder / "storage"
        self.current_layout: Layout | None = None
        self.layout_problems: list[tuple[str, str]] = []
        self.refusals: list[Refusal] = []
        self._banner_refusal = ""  # the teardown refusal the banner shows, if any
        self._filling = False
        self.setStyleSheet(_PAGE_STYLE)
        self.header = PageHeader(
            "Storage",
            "Erase, RAID, filesystem and mount on the target's disks — then the database on them.",
        )
        self.target_combo = QComboBox()
        self.banner = Banner()
        self.devices = DevicesPanel()
        self.form = LayoutForm()
        self.plan = PlanView()
        self.run = RunPanel()
        self.database = DatabaseForm()
        self.jobs = StorageJobs(self, self)
        self._build_ui()
        # The widgets a user drives, under the page's own names (tests and scripts use them).
        self.device_table = self.devices.table
        self.evidence_label = self.devices.evidence_label
        self.name_edit, self.level_combo = self.form.name_edit, self.form.level_combo
        self.backend_combo, self.fs_combo = self.form.backend_combo, self.form.fs_combo
        self.point_edit, self.owner_edit = self.form.point_edit, self.form.owner_edit
        self.layout_errors = self.form.errors
        self.plan_mode, self.plan_text = self.plan.plan_mode, self.plan.plan_text
        self.check_label, self.confirm_edit = self.plan.check_label, self.run.confirm_edit
        self.apply_button, self.teardown_button = self.run.apply_button, self.run.teardown_button
        self.progress_bar, self.log_view = self.run.progress_bar, self.run.log_view
        self.reload_targets()
        self._refresh()

    def _build_ui(self) -> None:
        outer = page_layout(self)
        target_label = QLabel("Target")
        target_label.setObjectName("formLabel")
        self.header.add_widget(target_label)
        self.target_combo.setMinimumWidth(240)
        self.target_combo.currentIndexChanged.connect(self._on_target_changed)
        self.header.add_widget(self.target_combo)
        self.scan_button = self.header.add_action("Scan devices", primary=True)
        self.scan_button.clicked.connect(lambda: self.scan())
        outer.addWidget(self.header)
        outer.addWidget(self.banner)

        self.devices.ticked.connect(self._on_ticked)
        self.form.changed.connect(self._refresh)
        self.form.open_button.clicked.connect(self._on_open)
        self.form.save_button.clicked.connect(self._on_save)
        self.plan.mode_changed.connect(self._refresh)
        self.run.confirm_edit.textChanged.connect(self.update_buttons)
        self.run.overrides_changed.connect(self._refresh)
        self.run.apply_button.clicked.connect(self.apply)
        self.run.teardown_button.clicked.connect(self.teardown)
        self.run.cancel_button.clicked.connect(self.jobs.cancel)
        self.database.changed.connect(self._refresh)
        move, restore = PLACEMENT_KINDS
        self.database.move_button.clicked.connect(lambda: self.jobs.place_database(move))
        self.database.restore_button.clicked.connect(lambda: self.jobs.place_database(restore))

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(scrolled(_column([self.devices, self.form], (0, 0, 8, 0))))
        splitter.addWidget(scrolled(_column([self.plan, self.run, self.database], (8, 0, 0, 0))))
        splitter.setStretchFactor(0, 11)
        splitter.setStretchFactor(1, 9)
        splitter.setSizes([930, 770])
        outer.addWidget(splitter, 1)

    # ---- targets and devices -------------------------------------------------------------

    def reload_targets(self) -> None:
        current = self.target_name()
        self.target_combo.blockSignals(True)
        self.target_combo.clear()
        self.target_combo.addItem("This machine (local)", LOCAL_TARGET)
        try:
            names = saved_target_names(self.folder)
        except SSHError:
            names = []
        for name in names:
            self.target_combo.addItem(name, name)
        index = self.target_combo.findData(current)
        self.target_combo.setCurrentIndex(max(0, index))
        self.target_combo.blockSignals(False)

    def target_name(self) -> str:
        return str(self.target_combo.currentData() or LOCAL_TARGET)

    def set_target(self, name: str) -> None:
        index = self.target_combo.findData(name)
        if index < 0:
            self.target_combo.addItem(name, name)
            index = self.target_combo.count() - 1
        self.target_combo.setCurrentIndex(index)

    def _on_target_changed(self) -> None:
        self.form.members.members.clear()
        self.form.show_members(self.devices.device)
        self.show_devices(None)

    def show_devices(self, disc: Discovery | None) -> None:
        """Fill the device table from a discovery (None empties it)."""
        self.devices.show_devices(disc, set(self.form.members.members))
        self._refresh()

    def tick(self, path: str, on: bool = True) -> None:
        """Tick (or untick) a device row, as a click would."""
        self.devices.tick(path, on)

    def _on_ticked(self, path: str, on: bool) -> None:
        if on:
            self.form.members.add(path, self.devices.device(path))
        else:
            self.form.members.remove(path)
        self.form.show_members(self.devices.device)
        self._refresh()

    # ---- the layout ----------------------------------------------------------------------

    def layout_data(self) -> dict[str, Any]:
        """The form as a layout document (what Save writes)."""
        return {**self.form.data(self.target_name()), "database": self.database.data()}

    def set_layout(self, layout: Layout) -> None:
        """Show a layout (opened from a file) in the form."""
        self._filling = True
        try:
            self.set_target(layout.target)
            self.form.show_layout(layout)
            self.database.show_spec(layout.database)
        finally:
            self._filling = False
        if self.devices.discovery is not None:
            self.devices.show_devices(self.devices.discovery, set(self.form.members.members))
        self.form.show_members(self.devices.device)
        self._refresh()

    def _refresh(self) -> None:
        """Validate the form, show the plan and the checks, enable what can run."""
        if self._filling:
            return
        self.form.enable_array_fields()
        try:
            self.current_layout = layout_from_dict(self.layout_data())
            self.layout_problems = []
        except LayoutError as exc:
            self.current_layout = None
            self.layout_problems = exc.problems
        self.form.show_problems(self.layout_problems)
        self._show_plan()
        self.update_buttons()

    def _show_plan(self) -> None:
        layout = self.current_layout
        self.refusals = []
        if layout is None:
            self.plan.show_no_plan(self.layout_problems, bool(self.form.members.members))
            self.run.ask_for(None)
            self._show_banner_refusal(None)
            return
        plan = self.plan.show_plan(layout)
        self.run.ask_for(plan)
        disc = self.devices.discovery
        refusals, not_built = check_run(layout, plan.action, disc, self.state_dir, self.run)
        self._show_banner_refusal(not_built)
        if refusals is None:
            self.plan.show_unchecked()
            return
        self.refusals = refusals
        self.plan.show_check(refusals, disc.host if disc is not None else "")

    def _show_banner_refusal(self, refusal: Refusal | None) -> None:
        """The teardown refusal in the banner; taken away again once it no longer holds."""
        text = f"Refused: nothing will run. {refusal.reason}" if refusal is not None else ""
        if text and text != self.banner.text():
            self.banner.show_text("failed", text)
        elif not text and self._banner_refusal and self.banner.text() == self._banner_refusal:
            self.banner.clear()
        self._banner_refusal = text

    def confirmed(self) -> bool:
        """True when the typed device names are exactly those of the layout."""
        return self.run.confirmed(self.current_layout)

    def update_buttons(self) -> None:
        """Enable what can run now: nothing while a task runs, Apply only once confirmed."""
        idle = self.jobs.runner.busy is None
        layout = self.current_layout
        ready = idle and layout is not None and self.confirmed() and not self.refusals
        teardown = self.plan.teardown
        self.run.apply_button.setEnabled(ready and not teardown)
        self.run.teardown_button.setEnabled(ready and teardown)
        self.scan_button.setEnabled(idle)
        self.target_combo.setEnabled(idle)
        self.run.cancel_button.setEnabled(not idle and self.jobs.cancel_event is not None)
        self.database.move_button.setEnabled(
            idle and layout is not None and layout.database.placement != "none"
        )
        self.database.restore_button.setEnabled(idle and layout is not None)

    # ---- files ---------------------------------------------------------------------------

    def _on_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a storage layout", "", "Layouts (*.toml)")
        if path:
            self.open_layout(Path(path))

    def open_layout(self, path: Path) -> bool:
        try:
            layout = load_layout(path)
        except LayoutError as exc:
            self.banner.show_text("failed", f"{path.name}: " + problems_text(exc.problems))
            return False
        self.set_layout(layout)
        self.banner.show_text("ok", f"Opened {path}.")
        return True

    def _on_save(self) -> None:
        if self.current_layout is None:
            self.banner.show_text("failed", "The layout has errors: fix them before saving.")
            return
        path, _ = QFileDialog.getSaveFileName(
            self, "Save the storage layout", "layout.toml", "Layouts (*.toml)"
        )
        if not path:
            return
        try:
            self.current_layout.save(Path(path))
        except OSError as exc:
            self.banner.show_text("failed", f"Could not save {path}: {exc.strerror or exc}")
            return
        self.banner.show_text("ok", f"Saved {path}.")

    # ---- running -------------------------------------------------------------------------

    @property
    def task(self) -> Task | None:
        """The running task, or None when the page is idle."""
        return self.jobs.runner.task

    @property
    def busy(self) -> bool:
        return self.task is not None

    def scan(self, accept: str | None = None) -> bool:
        """Discover the target's devices (in a worker)."""
        return self.jobs.scan(accept)

    def apply(self) -> bool:
        return self.jobs.run_layout("apply")

    def teardown(self) -> bool:
        return self.jobs.run_layout("teardown")

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Stop after the running step and join the task, if any."""
        return self.jobs.shutdown(timeout_s)
