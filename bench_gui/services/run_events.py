"""The checks every agent event of a run passes before it is stored, printed or charted, the
runner's own log lines, and how a run's final status is stored. One copy for a run on one
driver host or several (a host's name prefixes what is said of its output).
"""

from __future__ import annotations

from typing import Final

from bench_gui.core.events import BadEvent, check_event, scrubbed
from bench_gui.remote.transport import BadLine
from bench_gui.wire.protocol import Event, decode_line, encode_event

# How a run's final agent status maps onto a stored session's status.
FINAL_STATUS: Final = {"ok": "complete", "stopped": "incomplete", "failed": "failed"}


def stored_status(status: str, has_steps: bool) -> str:
    """The session status of a run that ended with the agent status ``status``: a failed run
    that measured steps is incomplete, so its finished steps stay visible as a partial result."""
    stored = FINAL_STATUS.get(status, "failed")
    return "incomplete" if stored == "failed" and has_steps else stored


def shown(level: str, message: str) -> Event:
    """A log line of the runner's own, as the event the reader sees (not numbered)."""
    return decode_line(encode_event("log", 0, level=level, message=message))


def vetted(item: Event | BadLine, prefix: str = "") -> tuple[Event | None, list[str]]:
    """An agent's output checked: the event to keep (None to skip it) and the warnings to say
    (an unreadable line, an unusable event, fields dropped); ``prefix`` names the host."""
    if isinstance(item, BadLine):
        text = scrubbed(item.text[:200])
        return None, [f"{prefix}unreadable agent output ({item.error}): {text}"]
    try:
        checked = check_event(item)
    except BadEvent as exc:
        return None, [f"{prefix}unusable agent event, skipped: {exc}"]
    warnings = [f"{prefix}{checked.warning()}"] if checked.dropped else []
    return checked.event, warnings
