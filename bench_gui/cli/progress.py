"""A run's events as progress lines on a terminal: one line a step, the database's silence and
its users' reconnections, and power when a meter measured it. Shared by `run`, `demo` and
`study run`."""

from __future__ import annotations

import math
from typing import Any, TextIO

from bench_gui.cli.terminal import DOUBT_MARK, safe
from bench_gui.cli.terminal import number as _fmt
from bench_gui.core.crosscheck import nopm_doubt
from bench_gui.wire.protocol import Event
from bench_gui.workloads.random_read.cli import is_random_read, progress_line


def per_unit(value: Any, digits: int = 4) -> str:
    """A per-unit power figure to ``digits`` significant digits in fixed notation: 0.0365 J per
    new order is not printed as 0.036 (a 1% error) nor 112.4 mW/NOPM as 112.400."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "-"
    if value == 0 or not math.isfinite(value):
        return f"{value:,.0f}" if math.isfinite(value) else "-"
    places = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:,.{places}f}"


def power_text(summary: dict[str, Any]) -> str:
    """The power part of a finished step's line: average W, mW/NOPM and J per new order when
    the step was measured with a meter (nothing without one; the reason when it failed)."""
    watts = summary.get("power_w")
    if isinstance(watts, int | float) and not isinstance(watts, bool):
        text = f"  power {watts:,.1f} W"
        mw, joules = summary.get("mw_per_nopm"), summary.get("j_per_new_order")
        if isinstance(mw, int | float):
            text += f"  {per_unit(mw)} mW/NOPM"
        if isinstance(joules, int | float):
            text += f"  {per_unit(joules)} J/new order"
        if summary.get("power_scope") == "cpu":
            text += " (CPU power)"
        return text
    if summary.get("power_meter") not in (None, "", "none"):
        return f"  power - ({summary.get('power_error') or 'no reading'})"
    return ""


class ProgressPrinter:
    """Human-readable progress on stderr, so stdout stays clean for ``--json``.

    What the Live page knows, it says: a database that does not answer (and why), users whose
    connection broke, the reset between steps, the link to the driver host, and why a step
    does not count. Every line is printed through :func:`~bench_gui.cli.terminal.safe`: the
    agent's and the database's text (an error message, a server's version, a log line) could
    hold escape sequences, bidirectional overrides or NUL bytes.
    """

    def __init__(self, stream: TextIO, quiet: bool = False) -> None:
        self.stream = stream
        self.quiet = quiet
        self._last_progress = ""

    def __call__(self, event: Event) -> None:
        if self.quiet:
            return
        kind = event.kind
        if is_random_read(event):
            line = progress_line(event)
            if line is not None:
                self._line(line)
            return
        if kind == "hello":
            self._line(f"connected: {event.get('server', '')}")
        elif kind == "progress" and event.get("task") == "reset":
            self._line(
                f"  {event.get('message', 'resetting')}: {_fmt(event.get('done'))} s"
                + _database_text(event)
            )
        elif kind == "progress":
            done, total = event.get("done", 0), event.get("total", 0)
            text = f"{event.get('stage', event.get('task', ''))}: {done}/{total}"
            if event.get("rate"):
                text += f" ({_fmt(event.get('rate'))} rows/s)"
            if text != self._last_progress:
                self._last_progress = text
                self._line(text)
        elif kind == "step" and event.get("phase") == "start":
            self._line(
                f"step {_step_number(event.get('step'))}: {event.get('vus')} virtual users,"
                f" ramp-up {event.get('rampup_s')} s, measuring {event.get('duration_s')} s"
            )
        elif kind == "sample":
            lat = (event.get("latency_ms") or {}).get("all") or {}
            self._line(
                f"  {str(event.get('phase') or ''):7} {_fmt(event.get('elapsed')):>6} s"
                f"  NOPM {_fmt(event.get('nopm_db'))}  TPM {_fmt(event.get('tpm_db'))}"
                f"  avg {_fmt(lat.get('avg'), 2)} ms" + _database_text(event)
            )
        elif kind == "step" and event.get("phase") == "end":
            s = event.get("summary") or {}
            lat = (s.get("latency_ms") or {}).get("all") or {}
            self._line(
                f"step {_step_number(s.get('step'))} done: {s.get('vus')} VU  NOPM"
                f" {_fmt(s.get('nopm'))}  TPM {_fmt(s.get('tpm'))}  driver NOPM"
                f" {_fmt(s.get('nopm_driver'))}  avg {_fmt(lat.get('avg'), 2)} ms"
                f"  p99.9 {_fmt(lat.get('p999'), 2)} ms"
                + power_text(s)
                + ("" if s.get("complete") else "  (incomplete)")
            )
            problems = s.get("problems")
            for problem in problems if isinstance(problems, list) else []:
                self._line(f"  not counted: {problem}")
            doubt = nopm_doubt(s.get("nopm"), s.get("nopm_driver"), s.get("window_s"), s.get("vus"))
            if doubt:
                self._line(f"  {DOUBT_MARK} {doubt}")
        elif kind == "log":
            self._line(f"[{event.get('level', 'info')}] {event.get('message', '')}")
        elif kind == "error":
            self._line(f"error: {event.get('message', '')}")

    def notice(self, state: str, detail: str) -> None:
        """The link to a driver host dropped, is being reopened, came back or was given up
        (from the follower's thread; on several hosts the detail names the host). Said even
        with ``--quiet``: a silent run could be one waiting for a host that is gone."""
        self._line(f"link {state}: {detail}")

    def _line(self, text: str) -> None:
        print(safe(text), file=self.stream, flush=True)


def _step_number(index: Any) -> str:
    """A step's number as people count (1 for index 0); "?" for a missing one."""
    return str(index + 1) if isinstance(index, int) and not isinstance(index, bool) else "?"


def _database_text(event: Event) -> str:
    """What a sample or a reset's progress says about the database: not answering (for how
    long, the last error) and users whose connection broke; "" when all is well."""
    text = ""
    silent = event.get("db_not_answering_s")
    if silent is not None:
        text += f"  database not answering for {_fmt(silent, 1)} s"
        if event.get("db_error"):
            text += f" ({event.get('db_error')})"
    down = event.get("vus_down")
    if isinstance(down, int) and not isinstance(down, bool) and down > 0:
        text += f"  {down} user{'' if down == 1 else 's'} reconnecting"
    return text
