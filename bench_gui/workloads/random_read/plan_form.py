"""The Workload page's random-read study (seed 004 with fio): one sweep point per dataset size,
each a warm-up and a measured window of random reads, with the page cache dropped between
points, and the device's raw IOPS measured before the sweep.

Every field is a ``[workload]`` field of a ``kind = "random_read"`` plan
(:data:`bench_gui.wire.fio_sizes.RANDOM_READ_FIELDS`), checked by the plan model; the hint
under the sizes says how many points they make and how long the study takes.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from bench_gui.core.plan_checks import parse_dataset_sizes
from bench_gui.core.plan_model import RANDOM_READ_ENGINES, Plan
from bench_gui.gui.pages.workload.sections import duration_words, seconds_spin
from bench_gui.gui.widgets.page_parts import compact_combo
from bench_gui.gui.widgets.plan_fields import PlanFields, add_row, style_form
from bench_gui.wire.fio_sizes import format_multiple

SIZES_HINT = "RAM multiples (1 = the RAM below) and/or sizes like 512MiB: one point each."
IOENGINE_LABELS = {
    "mmap": "mmap: through the page cache (seed 004)",
    "psync": "psync: pread, buffered or direct",
    "libaio": "libaio: asynchronous, direct I/O only",
}
BLOCK_SIZES = ("512", "1k", "4k", "8k", "16k", "64k", "128k")
MACHINE_RAM, LIMITED_RAM = "machine", "limit"
NO_LIMIT_SIZE = "choose a size for the memory limit (e.g. 256MiB), or the machine's RAM"


def sizes_text(sizes: list[float | int | str]) -> str:
    """A plan's dataset sizes as the field shows them (``1.0`` stays ``1.0``, so a plan saves
    back as it was loaded)."""
    return ", ".join(str(size) for size in sizes)


def size_label(size: float | int | str) -> str:
    return size if isinstance(size, str) else format_multiple(size)


class RandomReadSection(QGroupBox):
    """The fields of a random-read plan; ``fields`` holds them by plan field name."""

    def __init__(self) -> None:
        super().__init__("Random read (fio)")
        self.fields = PlanFields()
        outer = QHBoxLayout(self)
        outer.setSpacing(24)
        left = QFormLayout()
        style_form(left)
        right = QFormLayout()
        style_form(right)
        self._sweep_rows(left)
        self._read_rows(right)
        outer.addLayout(left, 1)
        outer.addLayout(right, 1)

    def _sweep_rows(self, form: QFormLayout) -> None:
        self.sizes_edit = QLineEdit()
        self.sizes_edit.setPlaceholderText("0.25, 0.5, 1, 1.5, 2, 4  or  512MiB, 2GiB")
        self.sizes_edit.textChanged.connect(self._check_sizes)
        cell = self.fields.cell("workload.dataset_sizes", self.sizes_edit, SIZES_HINT)
        add_row(form, "Dataset sizes", cell)
        self.sizes_hint = self.fields.hints["workload.dataset_sizes"]
        self.warmup_spin = seconds_spin()
        self.warmup_spin.valueChanged.connect(self._update_sizes_hint)
        hint = "Per point, before the measured window."
        add_row(form, "Warm-up", self.fields.cell("workload.warmup_s", self.warmup_spin, hint))
        self.measure_spin = seconds_spin()
        self.measure_spin.valueChanged.connect(self._update_sizes_hint)
        add_row(form, "Measured window", self.fields.cell("workload.measure_s", self.measure_spin))
        self.raw_iops_spin = seconds_spin()
        self.raw_iops_spin.setRange(0, 3600)
        self.raw_iops_spin.valueChanged.connect(self._update_sizes_hint)
        hint = "Direct 4 KiB random reads of the device before the sweep; 0: none (no multipliers)."
        cell = self.fields.cell("workload.raw_iops_s", self.raw_iops_spin, hint)
        add_row(form, "Raw-IOPS pass", cell)
        self.memory_box = QWidget()
        row = QHBoxLayout(self.memory_box)
        row.setContentsMargins(0, 0, 0, 0)
        self.memory_combo = QComboBox()
        self.memory_combo.addItem("The machine's", MACHINE_RAM)
        self.memory_combo.addItem("A limit of", LIMITED_RAM)
        self.memory_combo.currentIndexChanged.connect(self._memory_changed)
        self.memory_edit = QLineEdit()
        self.memory_edit.setPlaceholderText("256MiB")
        row.addWidget(self.memory_combo)
        row.addWidget(self.memory_edit, 1)
        hint = "A memory limit on fio (a cgroup, v1 or v2) studies a large server at small scale."
        add_row(form, "RAM", self.fields.cell("workload.memory_limit", self.memory_box, hint))
        self.drop_check = QCheckBox("Drop the page cache between points (needs root)")
        form.addRow("", self.fields.cell("workload.drop_caches", self.drop_check))

    def _read_rows(self, form: QFormLayout) -> None:
        self.block_combo = QComboBox()
        self.block_combo.setEditable(True)
        self.block_combo.addItems(BLOCK_SIZES)
        hint = "A power of two, 512 B to 1 MiB (seed 004: 1k)."
        add_row(form, "Block size", self.fields.cell("workload.block_size", self.block_combo, hint))
        self.jobs_spin = QSpinBox()
        self.jobs_spin.setRange(0, 256)  # 0 too, so the plan can say why it is wrong
        hint = "Threads reading at once (seed 004: 8)."
        add_row(form, "Jobs", self.fields.cell("workload.jobs", self.jobs_spin, hint))
        self.theta_spin = QDoubleSpinBox()
        self.theta_spin.setRange(0, 100)
        self.theta_spin.setDecimals(3)
        self.theta_spin.setSingleStep(0.01)
        hint = "Skew of the scrambled-Zipfian reads (0.99; 1 is not allowed)."
        add_row(form, "Zipf theta", self.fields.cell("workload.zipf_theta", self.theta_spin, hint))
        self.ioengine_combo = compact_combo(QComboBox())
        for engine in RANDOM_READ_ENGINES:
            self.ioengine_combo.addItem(IOENGINE_LABELS.get(engine, engine), engine)
        self.ioengine_combo.currentIndexChanged.connect(self._ioengine_changed)
        add_row(form, "I/O engine", self.fields.cell("workload.ioengine", self.ioengine_combo))
        self.direct_check = QCheckBox("Direct I/O (O_DIRECT, past the page cache)")
        self._direct_wanted = False  # the user's choice, kept while mmap or libaio decides
        self.direct_check.toggled.connect(self._direct_toggled)
        form.addRow("", self.fields.cell("workload.direct", self.direct_check))
        self.file_edit = QLineEdit()
        self.file_edit.setPlaceholderText("on the storage prepared on the host")
        hint = "An absolute path on the host; empty: the Storage page's mount point."
        add_row(form, "Data file", self.fields.cell("workload.file", self.file_edit, hint))

    # ---- the fields that depend on each other ---------------------------------------------

    def _memory_changed(self) -> None:
        limited = self.memory_combo.currentData() == LIMITED_RAM
        self.memory_edit.setEnabled(limited)

    def _direct_toggled(self, checked: bool) -> None:
        if self.direct_check.isEnabled():
            self._direct_wanted = checked

    def _ioengine_changed(self) -> None:
        """mmap reads through the page cache and libaio needs direct I/O: only psync leaves
        the choice to the user (kept for when psync comes back)."""
        engine = self.ioengine_combo.currentData()
        fixed = {"mmap": False, "libaio": True}.get(str(engine))
        self.direct_check.setEnabled(fixed is None)
        self.direct_check.blockSignals(True)
        self.direct_check.setChecked(self._direct_wanted if fixed is None else fixed)
        self.direct_check.blockSignals(False)

    def _check_sizes(self, text: str) -> None:
        """The sizes are checked as they are typed."""
        try:
            parse_dataset_sizes(text)
        except ValueError as exc:
            self.fields.set_error("workload.dataset_sizes", f"Dataset sizes {exc}")
        else:
            self.fields.set_error("workload.dataset_sizes", "")
        self._update_sizes_hint()

    def _update_sizes_hint(self) -> None:
        """Under the sizes: the points they make and how long the study will take."""
        try:
            sizes = parse_dataset_sizes(self.sizes_edit.text())
        except ValueError:
            self.sizes_hint.setText(SIZES_HINT)
            return
        shown = ", ".join(size_label(s) for s in sizes[:8]) + (" …" if len(sizes) > 8 else "")
        points = "1 point" if len(sizes) == 1 else f"{len(sizes)} points"
        total = len(sizes) * (self.warmup_spin.value() + self.measure_spin.value())
        total += self.raw_iops_spin.value()
        about = duration_words(total).replace(" ", "\u00a0")
        self.sizes_hint.setText(f"{points}: {shown}  ·  about\u00a0{about} of reads")

    # ---- plan <-> fields -----------------------------------------------------------------

    def set_plan(self, plan: Plan) -> None:
        wl = plan.workload
        self.sizes_edit.setText(sizes_text(wl.dataset_sizes))
        self.warmup_spin.setValue(wl.warmup_s)
        self.measure_spin.setValue(wl.measure_s)
        self.raw_iops_spin.setValue(wl.raw_iops_s)
        self.memory_combo.setCurrentIndex(1 if wl.memory_limit else 0)
        self.memory_edit.setText(wl.memory_limit)
        self._memory_changed()
        self.drop_check.setChecked(wl.drop_caches)
        self.block_combo.setCurrentText(wl.block_size)
        self.jobs_spin.setValue(wl.jobs)
        self.theta_spin.setValue(wl.zipf_theta)
        self._direct_wanted = wl.direct
        self.ioengine_combo.setCurrentIndex(max(0, self.ioengine_combo.findData(wl.ioengine)))
        self._ioengine_changed()
        self.file_edit.setText(wl.file)
        self._update_sizes_hint()

    def problems(self) -> list[tuple[str, str]]:
        """What the plan model cannot see: a memory limit chosen without a size."""
        if self.memory_combo.currentData() == LIMITED_RAM and not self.memory_edit.text().strip():
            return [("workload.memory_limit", NO_LIMIT_SIZE)]
        return []

    def fill(self, data: dict[str, Any]) -> None:
        """Write the random-read fields into ``data["workload"]``."""
        wl = data.setdefault("workload", {})
        limited = self.memory_combo.currentData() == LIMITED_RAM
        values: dict[str, Any] = {
            "dataset_sizes": self.sizes_edit.text(),
            "block_size": self.block_combo.currentText().strip(),
            "jobs": self.jobs_spin.value(),
            "ioengine": str(self.ioengine_combo.currentData()),
            "direct": self.direct_check.isChecked(),
            "zipf_theta": self.theta_spin.value(),
            "warmup_s": self.warmup_spin.value(),
            "measure_s": self.measure_spin.value(),
            "file": self.file_edit.text().strip(),
            "drop_caches": self.drop_check.isChecked(),
            "memory_limit": self.memory_edit.text().strip() if limited else "",
            "raw_iops_s": self.raw_iops_spin.value(),
        }
        wl.update(values)
