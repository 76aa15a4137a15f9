"""The Live page's row of big numbers: NOPM, power, mW per NOPM, TPM, latency, users, errors.

The two power tiles show only for a run with a meter (or once readings arrive anyway).
"""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QWidget

from bench_gui.core.crosscheck import ANOTHER_LOAD
from bench_gui.gui.pages.live.numbers import fmt_int, fmt_ms, fmt_ratio, fmt_watts
from bench_gui.gui.widgets.charts import (
    EFFICIENCY_COLOR,
    LATENCY_COLORS,
    NOPM_COLOR,
    POWER_COLOR,
    TPM_COLOR,
    format_count,
)
from bench_gui.gui.widgets.tiles import Tile
from bench_gui.services.live_model import LiveModel


class TileRow(QWidget):
    """The tiles, each as wide as its stretch; :meth:`show_model` gives them their values."""

    def __init__(self) -> None:
        super().__init__()
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(12)
        self.nopm = Tile("NOPM", "new orders/min", NOPM_COLOR, hero=True)
        self.power = Tile("Power", "W", POWER_COLOR)
        self.mw = Tile("mW / NOPM", "", EFFICIENCY_COLOR)
        self.tpm = Tile("TPM", "tx/min", TPM_COLOR)
        self.latency = Tile("Avg latency", "ms", LATENCY_COLORS["avg"])
        self.p999 = Tile("p99.9 latency", "ms", LATENCY_COLORS["p999"])
        self.vus = Tile("Users", "virtual", "#be95ff")
        self.errors = Tile("Errors", "", "#93a0b8")
        for tile, stretch in zip(self.tiles(), (5, 3, 3, 4, 3, 3, 3, 3), strict=True):
            row.addWidget(tile, stretch)
        self.show_power(False)

    def tiles(self) -> tuple[Tile, ...]:
        """Every tile, left to right."""
        return (
            self.nopm,
            self.power,
            self.mw,
            self.tpm,
            self.latency,
            self.p999,
            self.vus,
            self.errors,
        )

    def reset(self, power: bool) -> None:
        """Empty every tile for a new run; the power tiles show if the plan has a meter."""
        for tile in self.tiles():
            tile.set_value(None, "")
        self.show_power(power)

    def show_power(self, shown: bool) -> None:
        self.power.setVisible(shown)
        self.mw.setVisible(shown)

    def set_power_scope(self, cpu_only: bool, label: str) -> None:
        """Say whether the watts are the whole system's or only the CPU's (RAPL)."""
        self.power.title_label.setText("CPU POWER" if cpu_only else "POWER")
        self.power.setToolTip(label)

    def show_model(self, model: LiveModel) -> None:
        """The model's latest figures (the last second, or the smoothing window)."""
        tiles = model.tiles()
        if self.power.isVisibleTo(self):
            idle = "" if tiles.idle_power_w is None else f"idle {tiles.idle_power_w:,.0f} W"
            detail = "  ·  ".join(p for p in (idle, model.power_error) if p)
            self.power.set_value(fmt_watts(tiles.power_w), detail)
            best_mw = min(
                (p.mw_per_nopm for p in model.points if p.mw_per_nopm is not None and p.complete),
                default=None,
            )
            self.mw.set_value(
                fmt_ratio(tiles.mw_per_nopm),
                "lower is better" if best_mw is None else f"best step {fmt_ratio(best_mw)}",
            )
        best = model.best_point()
        nopm_detail = "" if tiles.nopm_driver is None else f"driver {tiles.nopm_driver:,.0f}"
        if best is not None and best.nopm is not None:
            nopm_detail += f"  ·  best {format_count(best.nopm)} @ {best.vus} VU"
        if tiles.nopm_flag:  # the database counts more (or fewer) New-Orders than the driver
            reason = ANOTHER_LOAD if tiles.nopm_flag.endswith(ANOTHER_LOAD) else "NOPM doubtful"
            nopm_detail = f"⚑ {reason}  ·  {nopm_detail}"
        self.nopm.set_value(fmt_int(tiles.nopm), nopm_detail.strip(" ·"))
        self.nopm.setToolTip(tiles.nopm_flag or "")
        self.tpm.set_value(fmt_int(tiles.tpm), f"{model.smoothing} s average")
        self.latency.set_value(fmt_ms(tiles.latency_avg_ms), "all transactions")
        self.p999.set_value(fmt_ms(tiles.latency_p999_ms), "last second")
        max_vus = max(model.planned_vus) if model.planned_vus else None
        self.vus.set_value(
            None if tiles.vus is None else str(tiles.vus),
            "" if max_vus is None else f"sweep up to {max_vus}",
        )
        self.errors.set_value(str(tiles.errors), f"{tiles.rollbacks:,} rollbacks")
