"""Running a plan's steps on a host one by one: a live log, a progress callback (the md
resync from ``/proc/mdstat``, an NVMe sanitize) and the outcome of every step.

:class:`StepFailed` is here, not with the other errors, because it carries the
:class:`ApplyResult` done up to the failure.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Final, NoReturn

from bench_gui.core.mdstat import parse_mdstat
from bench_gui.core.storage_plan import Step
from bench_gui.remote.errors import SSHError
from bench_gui.remote.storage.errors import StorageError
from bench_gui.remote.storage.runner import Runner

RESYNC_POLL_S: Final = 1.0


class StepFailed(StorageError):
    """A step of a running plan failed; ``result`` holds what was done up to there."""

    def __init__(self, message: str, result: ApplyResult) -> None:
        super().__init__(message)
        self.result = result


@dataclass
class Progress:
    """Where a running plan is: step ``index`` of ``count``, and how far within it."""

    index: int
    count: int
    title: str
    fraction: float | None = None  # within the step, when known (resync)
    detail: str = ""

    @property
    def overall(self) -> float:
        within = self.fraction if self.fraction is not None else 0.0
        return min(1.0, (self.index + within) / max(1, self.count))


@dataclass
class StepOutcome:
    index: int
    phase: str
    title: str
    command: str
    status: str  # ok, failed, skipped, warning
    exit_status: int | None = None
    duration_s: float = 0.0
    output: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ApplyResult:
    """What an apply (or a teardown) did, step by step."""

    action: str
    layout: str
    target: str
    host: str
    steps: list[StepOutcome] = field(default_factory=list)
    ok: bool = False
    error: str = ""
    resync: dict[str, Any] | None = None
    description: dict[str, Any] | None = None
    started_at: str = ""
    finished_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "layout": self.layout,
            "target": self.target,
            "host": self.host,
            "ok": self.ok,
            "error": self.error,
            "resync": self.resync,
            "steps": [s.to_dict() for s in self.steps],
            "description": self.description,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
        }


LogFn = Callable[[str], None]
ProgressFn = Callable[[Progress], None]


def _tail(text: str, lines: int = 40) -> str:
    rows = [r for r in text.splitlines() if r.strip()]
    return "\n".join(rows[-lines:])


class StepExecutor:
    """Runs steps on a runner, reporting as it goes."""

    def __init__(
        self,
        runner: Runner,
        result: ApplyResult,
        on_log: LogFn | None,
        on_progress: ProgressFn | None,
        cancel: threading.Event | None,
    ) -> None:
        self.runner = runner
        self.result = result
        self.on_log = on_log
        self.on_progress = on_progress
        self.cancel = cancel

    def log(self, text: str) -> None:
        if self.on_log is not None:
            for line in text.splitlines() or [""]:
                self.on_log(line)

    def progress(self, p: Progress) -> None:
        if self.on_progress is not None:
            self.on_progress(p)

    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def run_steps(self, steps: list[Step], skip: dict[int, str] | None = None) -> None:
        skip = skip or {}
        count = len(steps)
        for i, step in enumerate(steps):
            if self.cancelled():
                self.result.error = "cancelled before step " + str(i + 1)
                raise StepFailed(f"cancelled before step {i + 1} ({step.title})", self.result)
            self.progress(Progress(i, count, step.title))
            if i in skip:
                self.log(f"[{i + 1}/{count}] {step.title}: skipped ({skip[i]})")
                self.result.steps.append(
                    StepOutcome(
                        i, step.phase, step.title, step.display(), "skipped", output=skip[i]
                    )
                )
                continue
            self.log(f"[{i + 1}/{count}] {step.title}")
            if step.wait.startswith("resync:"):
                self._wait_resync(i, count, step)
                continue
            self.log(f"$ {step.display()}")
            t0 = time.monotonic()
            try:
                res = self.runner.run(
                    list(step.argv), sudo=True, timeout=step.timeout_s, input=step.input
                )
            except SSHError as exc:
                self._fail(i, step, None, time.monotonic() - t0, str(exc))
            output = res.stdout + ("\n" if res.stdout and res.stderr else "") + res.stderr
            shown = _tail(output, 200)
            if shown and not (step.input is not None and shown.strip() == step.input.strip()):
                self.log(shown)
            ok = res.ok
            reason = res.first_error_line() if not ok else ""
            if ok and step.expect and not re.search(step.expect, output):
                ok = False
                reason = f"the output does not show {step.expect!r}"
            if not ok and step.optional:
                self.log(f"  (optional step failed: {reason}; going on)")
                self.result.steps.append(
                    StepOutcome(
                        i,
                        step.phase,
                        step.title,
                        step.display(),
                        "warning",
                        res.exit_status,
                        res.duration,
                        _tail(output),
                    )
                )
                continue
            if not ok:
                self._fail(i, step, res.exit_status, res.duration, reason, _tail(output))
            self.result.steps.append(
                StepOutcome(
                    i,
                    step.phase,
                    step.title,
                    step.display(),
                    "ok",
                    res.exit_status,
                    res.duration,
                    _tail(output),
                )
            )
            if step.wait.startswith("sanitize:"):
                self._wait_sanitize(i, count, step)
        self.progress(Progress(count, count, "done", 1.0))

    def _fail(
        self,
        i: int,
        step: Step,
        exit_status: int | None,
        duration: float,
        reason: str,
        output: str = "",
    ) -> NoReturn:
        self.result.steps.append(
            StepOutcome(
                i,
                step.phase,
                step.title,
                step.display(),
                "failed",
                exit_status,
                duration,
                output or reason,
            )
        )
        message = f"step {i + 1} ({step.title}) failed: {reason}"
        self.result.error = message
        self.log(f"FAILED: {message}")
        raise StepFailed(message, self.result)

    def _read(self, path: str) -> str:
        try:
            return self.runner.read_bytes(path).decode("utf-8", errors="replace")
        except (OSError, SSHError):
            res = self.runner.run(["cat", "--", path], timeout=30)
            return res.stdout

    def _wait_resync(self, i: int, count: int, step: Step) -> None:
        md = step.wait.partition(":")[2]
        name = md
        if md.startswith("/dev/md/"):  # a named array: its kernel name is md127 or so
            real = self.runner.run(["readlink", "-f", "--", md], timeout=30)
            name = real.stdout.strip() if real.ok and real.stdout.strip() else md
        name = name.removeprefix("/dev/")
        started = time.time()
        t0 = time.monotonic()
        last_logged = -10.0
        while True:
            text = self._read("/proc/mdstat")
            arrays = parse_mdstat(text)
            array = arrays.get(name)
            if array is None:
                self._fail(i, step, None, time.monotonic() - t0, f"{md} is not in /proc/mdstat")
            if not array.syncing:
                break
            pct = array.percent
            detail = (
                f"{array.action or 'resync'} {pct:.1f} %" if pct is not None else "resync pending"
            )
            if array.finish:
                detail += f", about {array.finish} left at {array.speed}"
            self.progress(Progress(i, count, step.title, (pct or 0.0) / 100, detail))
            if pct is not None and pct - last_logged >= 10:
                self.log(f"  {detail}")
                last_logged = pct
            if self.cancelled():
                seconds = time.monotonic() - t0
                self.result.resync = {
                    "policy": "wait",
                    "done": False,
                    "seconds": round(seconds, 1),
                    "text": f"the wait for the initial resync was cancelled at {detail}: the"
                    " array is still resyncing, measurements would compete with it",
                }
                self.runner.log_command("wait for the resync (cancelled)", None, seconds, started)
                self._fail(i, step, None, seconds, "cancelled while waiting for the resync")
            time.sleep(RESYNC_POLL_S)
        seconds = time.monotonic() - t0
        text = f"waited {seconds:.0f} s for the initial resync to finish before measuring"
        self.result.resync = {
            "policy": "wait",
            "done": True,
            "seconds": round(seconds, 1),
            "text": text,
        }
        self.log(f"  {text}")
        self.runner.log_command(f"wait until /proc/mdstat shows {md} in sync", 0, seconds, started)
        self.result.steps.append(
            StepOutcome(i, step.phase, step.title, "wait for /proc/mdstat", "ok", 0, seconds, text)
        )

    def _wait_sanitize(self, i: int, count: int, step: Step) -> None:
        ctrl = step.wait.partition(":")[2]
        t0 = time.monotonic()
        while True:
            res = self.runner.run(["nvme", "sanitize-log", ctrl], sudo=True, timeout=60)
            m = re.search(r"\(SPROG\)\s*:\s*(\d+)", res.stdout)
            if not res.ok or m is None:
                self._fail(
                    i,
                    step,
                    res.exit_status,
                    time.monotonic() - t0,
                    f"cannot read the sanitize progress: {res.first_error_line()}",
                )
            sprog = int(m.group(1))
            if sprog >= 65535:
                break
            self.progress(
                Progress(i, count, step.title, sprog / 65536, f"sanitize {sprog / 655.36:.1f} %")
            )
            time.sleep(5)
