"""The layout editor of the Storage page: array, filesystem and mount over the ticked devices,
each device's settings, the errors of the form, and Open / Save of a layout file."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from bench_gui.core.storage import Layout
from bench_gui.gui.pages.storage.fields import combo, edit, words
from bench_gui.gui.pages.storage.members import MemberTable
from bench_gui.gui.widgets.page_parts import ErrorLine, compact_combo, form_label
from bench_gui.services.storage import BlockDevice

LEVELS = (("single", "Single device"), ("0", "RAID 0"), ("1", "RAID 1"), ("10", "RAID 10"))
BACKENDS = (("mdadm", "mdadm (md array)"), ("btrfs", "btrfs multi-device"))
FILESYSTEMS = (("xfs", "XFS"), ("ext4", "ext4"), ("btrfs", "btrfs"))
RESYNC = (("wait", "Wait for the initial resync"), ("skip", "Skip it (after a full discard)"))
CHUNKS = (64, 128, 256, 512, 1024)


class LayoutForm(QGroupBox):
    """The volume to build: its name, array, filesystem, mount and the per-device settings.

    ``members`` (the :class:`MemberTable`) holds the ticked devices. Open and Save are the
    page's to handle (``open_button``, ``save_button``).

    Signals:
        changed(): any field or device setting was edited.
    """

    changed = Signal()

    def __init__(self) -> None:
        super().__init__("Layout")
        changed = self.changed.emit
        self.name_edit = edit(changed, "bench volume", "bench volume")
        self.level_combo = combo(LEVELS, changed)
        self.backend_combo = combo(BACKENDS, changed)
        self.chunk_combo = compact_combo(QComboBox(), 8)
        for kib in CHUNKS:
            self.chunk_combo.addItem(f"{kib} KiB chunk", kib)
        self.chunk_combo.setCurrentIndex(CHUNKS.index(512))
        self.chunk_combo.currentIndexChanged.connect(lambda _i: changed())
        self.md_edit = edit(changed, "/dev/md0", "/dev/md0")
        self.resync_combo = combo(RESYNC, changed)
        self.fs_combo = combo(FILESYSTEMS, changed)
        self.align_check = QCheckBox("Stripe alignment")
        self.align_check.setChecked(True)
        self.align_check.toggled.connect(lambda _on: changed())
        self.label_edit = edit(changed, "label (optional)")
        self.point_edit = edit(changed, "/mnt/bench", "/mnt/bench")
        self.options_edit = edit(changed, "noatime", "noatime")
        self.owner_edit = edit(changed, "postgres", "postgres")
        self.members = MemberTable()
        self.members.changed.connect(changed)
        self.no_members = QLabel("No device ticked yet.")
        self.no_members.setObjectName("muted")
        self.errors = ErrorLine()
        self.open_button = QPushButton("Open layout…")
        self.save_button = QPushButton("Save layout…")
        self._build()

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setSpacing(10)
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(8)
        rows: list[tuple[str, list[QWidget]]] = [
            ("Name", [self.name_edit]),
            ("Array", [self.level_combo, self.backend_combo]),
            # Two lines: three fields on one were cut at 1366 ("512 KiB chunl", "Wait for the ir").
            ("RAID", [self.chunk_combo, self.md_edit]),
            ("", [self.resync_combo]),
            ("Filesystem", [self.fs_combo, self.label_edit, self.align_check]),
            ("Mount point", [self.point_edit]),
            ("Mount options", [self.options_edit]),
            ("Owner", [self.owner_edit]),
        ]
        for row, (text, widgets) in enumerate(rows):
            grid.addWidget(form_label(text, top=True), row, 0)
            line = QHBoxLayout()
            line.setSpacing(8)
            for widget in widgets:
                line.addWidget(widget, 1)
            grid.addLayout(line, row, 1)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)

        members_title = QLabel(
            "Per device: erase method (from what the device supports), I/O scheduler and read-ahead"
        )
        members_title.setObjectName("fieldHint")
        members_title.setWordWrap(True)
        layout.addWidget(members_title)
        layout.addWidget(self.members)
        layout.addWidget(self.no_members)
        layout.addWidget(self.errors)

        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.save_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)

    def show_members(self, find: Callable[[str], BlockDevice | None]) -> None:
        """Refill the per-device table (``find(path)``: the scanned device, or None)."""
        self.members.fill(find)
        self.no_members.setVisible(not self.members.members)

    def enable_array_fields(self) -> None:
        """The backend only matters for an array, chunk, md device and resync only for md."""
        array = self.level_combo.currentData() != "single"
        md = array and self.backend_combo.currentData() == "mdadm"
        self.backend_combo.setEnabled(array)
        for widget in (self.chunk_combo, self.md_edit, self.resync_combo, self.align_check):
            widget.setEnabled(md)

    def show_problems(self, problems: list[tuple[str, str]]) -> None:
        self.errors.show_error("\n".join(f"{name}: {reason}" for name, reason in problems))

    def data(self, target: str) -> dict[str, Any]:
        """The form as the parts of a layout document, all but ``database``."""
        return {
            "name": self.name_edit.text().strip() or "bench volume",
            "target": target,
            "devices": self.members.entries(),
            "array": {
                "level": self.level_combo.currentData(),
                "backend": self.backend_combo.currentData(),
                "chunk_kib": self.chunk_combo.currentData(),
                "device": self.md_edit.text().strip() or "/dev/md0",
                "resync": self.resync_combo.currentData(),
            },
            "filesystem": {
                "type": self.fs_combo.currentData(),
                "label": self.label_edit.text().strip(),
                "stripe_align": self.align_check.isChecked(),
            },
            "mount": {
                "point": self.point_edit.text().strip(),
                "options": words(self.options_edit.text()),
                "owner": self.owner_edit.text().strip(),
            },
        }

    def show_layout(self, layout: Layout) -> None:
        """Show a layout's name, devices, array, filesystem and mount in the form."""
        self.name_edit.setText(layout.name)
        self.members.set_devices(layout.devices)
        for box, value in (
            (self.level_combo, layout.array.level),
            (self.backend_combo, layout.array.backend),
            (self.chunk_combo, layout.array.chunk_kib),
            (self.resync_combo, layout.array.resync),
            (self.fs_combo, layout.filesystem.type),
        ):
            index = box.findData(value)
            if index < 0 and box is self.chunk_combo:
                box.addItem(f"{value} KiB chunk", value)
                index = box.count() - 1
            box.setCurrentIndex(max(0, index))
        self.md_edit.setText(layout.array.device)
        self.label_edit.setText(layout.filesystem.label)
        self.align_check.setChecked(layout.filesystem.stripe_align)
        self.point_edit.setText(layout.mount.point)
        self.options_edit.setText(",".join(layout.mount.options))
        self.owner_edit.setText(layout.mount.owner)
