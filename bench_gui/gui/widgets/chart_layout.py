"""Which charts the Live page shows, in what order, how many per row, for which devices.

The choice is the user's and is remembered per user in :class:`QSettings` (an INI file in the
user's configuration folder; tests point QSettings at a folder of their own with
``QSettings.setPath``). :class:`ChartLayoutDialog` edits it: tick charts, drag them (or use the
arrows) into order, pick the block devices the disk charts draw and the number of columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)


@dataclass(frozen=True)
class ChartInfo:
    """One chart the Live page can show."""

    key: str
    title: str
    description: str
    per_device: bool = False


CHARTS: tuple[ChartInfo, ...] = (
    ChartInfo("throughput", "Throughput", "NOPM and TPM"),
    ChartInfo("scaling", "NOPM by virtual users", "a bar per step"),
    ChartInfo("latency", "Latency", "avg, p95, p99, p99.9"),
    ChartInfo("power", "Power", "watts, idle baseline"),
    ChartInfo("mw_per_nopm", "mW per NOPM", "live, measured windows"),
    ChartInfo("efficiency", "mW per NOPM by users", "a bar per step"),
    ChartInfo("cpu", "CPU", "user, system, iowait, sockets"),
    ChartInfo("memory", "Memory", "used, page cache, dirty"),
    ChartInfo("disk_iops", "Disk IOPS", "read and write, per device", True),
    ChartInfo("disk_mbs", "Disk MB/s", "read and write, per device", True),
    ChartInfo("disk_latency", "Disk latency", "read and write await, per device", True),
    ChartInfo("disk_queue", "Disk queue depth", "requests in queue, per device", True),
)
CHART_KEYS = tuple(c.key for c in CHARTS)
CHART_INFO = {c.key: c for c in CHARTS}
DEFAULT_CHARTS = ("throughput", "scaling", "power", "latency", "cpu", "disk_iops")
DEFAULT_COLUMNS = 3
MAX_COLUMNS = 4


def live_settings() -> QSettings:
    """The user's settings file of the app (``bench-gui/bench-gui.ini``)."""
    return QSettings(
        QSettings.Format.IniFormat, QSettings.Scope.UserScope, "bench-gui", "bench-gui"
    )


def _string_list(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v for v in value.split(",") if v] if value else []
    if isinstance(value, list | tuple):
        return [str(v) for v in value if str(v)]
    return []


@dataclass
class LiveLayout:
    """Charts in display order, the number of columns, the devices drawn (empty: all)."""

    charts: list[str] = field(default_factory=lambda: list(DEFAULT_CHARTS))
    columns: int = DEFAULT_COLUMNS
    devices: list[str] = field(default_factory=list)

    def normalised(self) -> LiveLayout:
        charts = [c for c in dict.fromkeys(self.charts) if c in CHART_INFO]
        return LiveLayout(
            charts=charts or ["throughput"],
            columns=max(1, min(MAX_COLUMNS, int(self.columns))),
            devices=list(dict.fromkeys(self.devices)),
        )

    def shows_device(self, name: str) -> bool:
        return not self.devices or name in self.devices

    @classmethod
    def load(cls, settings: QSettings) -> LiveLayout:
        if not settings.contains("live/charts"):
            return cls()
        charts = _string_list(settings.value("live/charts"))
        try:
            columns = int(str(settings.value("live/columns", DEFAULT_COLUMNS)))
        except ValueError:
            columns = DEFAULT_COLUMNS
        devices = _string_list(settings.value("live/devices"))
        return cls(charts, columns, devices).normalised()

    def save(self, settings: QSettings) -> None:
        layout = self.normalised()
        # Comma-joined text: QSettings' INI lists of one item come back as a plain string.
        settings.setValue("live/charts", ",".join(layout.charts))
        settings.setValue("live/columns", layout.columns)
        settings.setValue("live/devices", ",".join(layout.devices))
        settings.sync()


class ChartLayoutDialog(QDialog):
    """Choose and arrange the Live page's charts and the devices of the disk charts."""

    def __init__(
        self, layout: LiveLayout, devices: Sequence[str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._devices: list[str] = list(devices)
        self.setWindowTitle("Live charts")
        self.setModal(True)
        outer = QVBoxLayout(self)
        outer.setSpacing(12)
        intro = QLabel(
            "Tick the charts to show and drag them into order (left to right, then down)."
        )
        intro.setWordWrap(True)
        outer.addWidget(intro)

        grid = QGridLayout()
        grid.setHorizontalSpacing(18)
        charts_title = QLabel("Charts")
        charts_title.setObjectName("sectionTitle")
        grid.addWidget(charts_title, 0, 0)
        devices_title = QLabel("Devices of the disk charts")
        devices_title.setObjectName("sectionTitle")
        grid.addWidget(devices_title, 0, 2)

        self.chart_list = QListWidget()
        self.chart_list.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.chart_list.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.chart_list.setMinimumWidth(440)
        self.chart_list.setMinimumHeight(360)
        grid.addWidget(self.chart_list, 1, 0)

        arrows = QVBoxLayout()
        self.up_button = QPushButton("▲")
        self.up_button.setToolTip("Move up")
        self.up_button.clicked.connect(lambda: self._move(-1))
        self.down_button = QPushButton("▼")
        self.down_button.setToolTip("Move down")
        self.down_button.clicked.connect(lambda: self._move(1))
        arrows.addWidget(self.up_button)
        arrows.addWidget(self.down_button)
        arrows.addStretch(1)
        grid.addLayout(arrows, 1, 1)

        right = QVBoxLayout()
        self.all_devices = QCheckBox("All devices")
        self.all_devices.toggled.connect(self._all_toggled)
        right.addWidget(self.all_devices)
        self.device_list = QListWidget()
        self.device_list.setMinimumWidth(220)
        right.addWidget(self.device_list, 1)
        columns_row = QHBoxLayout()
        columns_row.addWidget(QLabel("Charts per row, at most"))
        self.columns_spin = QSpinBox()
        self.columns_spin.setToolTip(
            "The charts are spread evenly over the rows this needs, so every row is full"
        )
        self.columns_spin.setRange(1, MAX_COLUMNS)
        columns_row.addWidget(self.columns_spin)
        columns_row.addStretch(1)
        right.addLayout(columns_row)
        grid.addLayout(right, 1, 2)
        outer.addLayout(grid, 1)

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        restore = buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults)
        restore.clicked.connect(lambda: self.set_layout(LiveLayout(), self._devices))
        outer.addWidget(buttons)
        self.set_layout(layout, devices)

    def set_layout(self, layout: LiveLayout, devices: Sequence[str]) -> None:
        layout = layout.normalised()
        self._devices = list(devices)
        self.chart_list.clear()
        order = layout.charts + [k for k in CHART_KEYS if k not in layout.charts]
        for key in order:
            info = CHART_INFO[key]
            item = QListWidgetItem(f"{info.title}  —  {info.description}")
            item.setData(Qt.ItemDataRole.UserRole, key)
            item.setFlags(
                Qt.ItemFlag.ItemIsEnabled
                | Qt.ItemFlag.ItemIsSelectable
                | Qt.ItemFlag.ItemIsUserCheckable
                | Qt.ItemFlag.ItemIsDragEnabled
            )
            shown = key in layout.charts
            item.setCheckState(Qt.CheckState.Checked if shown else Qt.CheckState.Unchecked)
            self.chart_list.addItem(item)
        self.device_list.clear()
        names = list(dict.fromkeys([*devices, *layout.devices]))
        for name in names:
            item = QListWidgetItem(name)
            item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            chosen = layout.shows_device(name)
            item.setCheckState(Qt.CheckState.Checked if chosen else Qt.CheckState.Unchecked)
            self.device_list.addItem(item)
        if not names:
            placeholder = QListWidgetItem("(devices appear with the first samples)")
            placeholder.setFlags(Qt.ItemFlag.NoItemFlags)
            self.device_list.addItem(placeholder)
        self.all_devices.setChecked(not layout.devices)
        self.columns_spin.setValue(layout.columns)

    def _all_toggled(self, checked: bool) -> None:
        self.device_list.setEnabled(not checked)

    def _move(self, delta: int) -> None:
        row = self.chart_list.currentRow()
        target = row + delta
        if row < 0 or not 0 <= target < self.chart_list.count():
            return
        item = self.chart_list.takeItem(row)
        self.chart_list.insertItem(target, item)
        self.chart_list.setCurrentRow(target)

    def layout_choice(self) -> LiveLayout:
        """What the dialog shows now."""
        charts = []
        for i in range(self.chart_list.count()):
            item = self.chart_list.item(i)
            if item.checkState() == Qt.CheckState.Checked:
                charts.append(str(item.data(Qt.ItemDataRole.UserRole)))
        devices: list[str] = []
        if not self.all_devices.isChecked():
            for i in range(self.device_list.count()):
                item = self.device_list.item(i)
                if item.flags() & Qt.ItemFlag.ItemIsUserCheckable and (
                    item.checkState() == Qt.CheckState.Checked
                ):
                    devices.append(item.text())
        return LiveLayout(charts, self.columns_spin.value(), devices).normalised()
