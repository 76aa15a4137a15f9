"""The go file of the start barrier: the desktop writes it, each driver host's agent reads it.

With several driver hosts, an agent waits before each step for ``<spool>.go`` holding
``{"step": N, "start_at": T}`` (T in that host's own clock, epoch seconds); the barrier itself
is :mod:`bench_gui.agent.barrier`. Beside it, ``<spool>.beat`` is the desktop's heartbeat: the
desktop touches it each time it probes the followed run (every few seconds while the run is
quiet, as at a barrier), so an agent waiting at a barrier tells a desktop that is gone (closed,
crashed, its link to the host down) from one still waiting for another host. Stdlib only.
"""

from __future__ import annotations

import json
from typing import Final

GO_SUFFIX: Final = ".go"
BEAT_SUFFIX: Final = ".beat"
# A go file is one small JSON object; a bigger file is not one.
_MAX_GO_BYTES: Final = 4096


def go_path(spool: str) -> str:
    """The go file of the agent whose spool is ``spool`` (beside it, in its folder)."""
    return spool + GO_SUFFIX


def beat_path(spool: str) -> str:
    """The desktop's heartbeat file of the agent whose spool is ``spool`` (beside it)."""
    return spool + BEAT_SUFFIX


def go_text(step: int, start_at: float) -> str:
    """What a go file holds: start step ``step`` (from 0) at ``start_at`` (the host's epoch s).
    Write it to a temporary name and rename it over the go file, so it is never read half."""
    return json.dumps({"step": step, "start_at": start_at}) + "\n"


def read_go(path: str, step: int) -> tuple[float | None, str]:
    """The start instant a go file gives this step: (instant, "") when it is there; (None, why)
    when it is not, or not this step's, or not readable yet ("" when there is no file)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(_MAX_GO_BYTES + 1)
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        return None, f"cannot read it: {exc.strerror}"
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None, f"it holds {raw[:60]!r}, not a start signal"
    if not isinstance(data, dict):
        return None, "it holds no start signal"
    got, start_at = data.get("step"), data.get("start_at")
    if (
        type(got) is not int
        or isinstance(start_at, bool)
        or not isinstance(start_at, int | float)
        or not 0 < start_at < float("inf")
    ):
        return None, f"it holds {json.dumps(data)[:80]}, not a step and its start time"
    if got != step:
        return None, f"it is the start signal of step {got + 1}, not of step {step + 1}"
    return float(start_at), ""
