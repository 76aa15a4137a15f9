"""The Live page's big numbers: NOPM, power, mW per NOPM, TPM, latency, users, errors.

The two power tiles show only for a run with a meter (or once readings arrive anyway). The
tiles wrap onto more rows when the window is narrow (:class:`~bench_gui.gui.widgets.tiles.
TileFlow`). During a step's ramp-up the figures are dimmed and say so (they do not count);
once the run has ended the tiles show its result, the best step's figures, not the last
second's.
"""

from __future__ import annotations

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget

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
from bench_gui.gui.widgets.page_parts import set_prop
from bench_gui.gui.widgets.tiles import Tile, TileFlow
from bench_gui.services.live_model import LiveModel, Tiles

RAMPUP_NOTE = "ramp-up · not counted"
BEST_STEP = "best step"
NOTHING_MEASURED = "no step was measured"
ROLLBACKS_TIP = (
    "TPROC-C rolls back 1% of New-Order transactions on purpose (an unused item number), as"
    " the TPC-C specification requires: they are part of the workload, not errors."
)


def rollbacks_text(rollbacks: int) -> str:
    """The rollbacks under the error count, on two lines (a narrow tile): they are the
    workload's, not errors."""
    return f"{rollbacks:,} rollbacks\n(1% by design)"


class TileRow(QWidget):
    """The tiles, in as many rows as the width needs; :meth:`show_model` gives them their
    values."""

    def __init__(self) -> None:
        super().__init__()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.flow = TileFlow(10)
        column.addWidget(self.flow)
        self.nopm = Tile("NOPM", "new orders/min", NOPM_COLOR, hero=True)
        self.power = Tile("Power", "W", POWER_COLOR)
        self.mw = Tile("mW / NOPM", "", EFFICIENCY_COLOR)
        self.tpm = Tile("TPM", "tx/min", TPM_COLOR)
        self.latency = Tile("Avg latency", "ms", LATENCY_COLORS["avg"])
        self.p999 = Tile("p99.9 latency", "ms", LATENCY_COLORS["p999"])
        self.vus = Tile("Users", "virtual", "#be95ff")
        self.errors = Tile("Errors", "", "#93a0b8")
        self.errors.setToolTip(ROLLBACKS_TIP)
        self.errors.widest_detail = "88,888 rollbacks"
        widest = ("888,888", "8,888", "88.88", "888,888", "888.8", "8,888", "888", "8,888")
        for tile, text in zip(self.tiles(), widest, strict=True):
            tile.widest = text
            self.flow.add(tile)
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

    def measured_tiles(self) -> tuple[Tile, ...]:
        """The tiles whose figures a ramp-up does not count."""
        return (self.nopm, self.power, self.mw, self.tpm, self.latency, self.p999)

    def reset(self, power: bool) -> None:
        """Empty every tile for a new run; the power tiles show if the plan has a meter."""
        for tile in self.tiles():
            tile.set_value(None, "")
            tile.set_state("")
        self.show_power(power)

    def show_power(self, shown: bool) -> None:
        self.power.setVisible(shown)
        self.mw.setVisible(shown)
        self.fit(self.width())
        self.flow.arrange()

    @property
    def compact(self) -> bool:
        return bool(self.nopm.value_label.property("compact"))

    def fit(self, room: int) -> None:
        """Smaller figures when the shown tiles at full size would need more than one row of
        ``room`` pixels (a laptop's 1280 or 1366): one row leaves the charts their height."""
        shown = [t for t in self.tiles() if not t.isHidden()]
        if not shown or room <= 0:
            return
        self._set_compact(False)
        need = sum(t.needed_width() for t in shown) + self.flow.spacing * (len(shown) - 1)
        self._set_compact(need > room)

    def _set_compact(self, on: bool) -> None:
        for tile in self.tiles():
            set_prop(tile.value_label, "compact", on)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt override)
        if event.size().width() != event.oldSize().width():
            self.fit(event.size().width())
        super().resizeEvent(event)

    def set_power_scope(self, cpu_only: bool, label: str) -> None:
        """Say whether the watts are the whole system's or only the CPU's (RAPL)."""
        self.power.title_label.setText("CPU power" if cpu_only else "Power")
        self.power.setToolTip(label)

    def show_model(self, model: LiveModel) -> None:
        """The model's latest figures (the last second, or the smoothing window); the run's
        result once it has ended."""
        if model.ended:
            self.show_result(model)
            return
        rampup = model.phase == "rampup"
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
        self._show_errors(tiles)
        for tile in self.measured_tiles():
            tile.set_state("rampup" if rampup else "")
            if rampup and tile.value_text != "—":
                tile.detail_label.setText(RAMPUP_NOTE)
        self.vus.set_state("")

    def show_result(self, model: LiveModel) -> None:
        """The run's result: the best step's figures (the most NOPM), each tile saying so; the
        errors and rollbacks of the whole run."""
        result = model.result_tiles()
        for tile in self.tiles():
            tile.set_state("" if result is None else "result")
        if result is None:
            for tile in (*self.measured_tiles(), self.vus):
                tile.set_value(None, NOTHING_MEASURED)
            self._show_errors(model.tiles())
            return
        users = "user" if result.vus == 1 else "users"
        at = f"{BEST_STEP} · {result.vus} {users}"
        driver = "" if result.nopm_driver is None else f"  ·  driver {result.nopm_driver:,.0f}"
        flag = "⚑ NOPM doubtful  ·  " if result.nopm_flag else ""
        self.nopm.set_value(fmt_int(result.nopm), f"{flag}{at}{driver}")
        self.nopm.setToolTip(result.nopm_flag or "")
        self.tpm.set_value(fmt_int(result.tpm), BEST_STEP)
        self.latency.set_value(fmt_ms(result.latency_avg_ms), f"{BEST_STEP}, all transactions")
        self.p999.set_value(fmt_ms(result.latency_p999_ms), BEST_STEP)
        max_vus = max(model.planned_vus) if model.planned_vus else None
        sweep = "" if max_vus is None else f" (sweep up to {max_vus})"
        self.vus.set_value(None if result.vus is None else str(result.vus), BEST_STEP + sweep)
        if self.power.isVisibleTo(self):
            idle = "" if result.idle_power_w is None else f"  ·  idle {result.idle_power_w:,.0f} W"
            self.power.set_value(fmt_watts(result.power_w), BEST_STEP + idle)
            lowest = min(
                (p for p in model.points if p.mw_per_nopm is not None and p.complete),
                key=lambda p: p.mw_per_nopm or 0.0,
                default=None,
            )
            note = BEST_STEP
            if lowest is not None and lowest.vus != result.vus:
                note += f"  ·  lowest {fmt_ratio(lowest.mw_per_nopm)} at {lowest.vus} VU"
            self.mw.set_value(fmt_ratio(result.mw_per_nopm), note)
        self._show_errors(result)

    def _show_errors(self, tiles: Tiles) -> None:
        self.errors.set_value(str(tiles.errors), rollbacks_text(tiles.rollbacks))
        self.errors.set_state("")
