"""Running fio: its version, its engines, and one fio process read as it goes.

fio runs in a session of its own (a Ctrl-C at the agent's terminal reaches the agent, which
decides), with its JSON on stdout read without blocking, so the caller can emit a sample the
moment a status object arrives and stop fio at any time: SIGINT makes fio end its jobs and
still print its final result, so what was measured until then is kept.
"""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Iterator
from typing import Any, Final

from bench_gui.workloads.random_read.agent.status import JsonObjects

# After SIGINT fio has this long to end and print its result before it is killed.
STOP_GRACE_S: Final = 15.0


class FioError(RuntimeError):
    """fio is missing, refused its options or failed; the message carries fio's own words."""


def fio_path(name: str = "fio") -> str:
    """The fio program's path, or :class:`FioError` saying how to install it."""
    found = shutil.which(name)
    if found is None:
        raise FioError(
            f"fio is not installed on this host ({name!r} is not on PATH): install it"
            " (Debian/Ubuntu: apt-get install fio; Fedora/RHEL: dnf install fio)"
        )
    return found


def fio_version(fio: str) -> str:
    """``fio --version`` (``fio-3.33``)."""
    try:
        done = subprocess.run(
            [fio, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FioError(f"{fio} --version failed: {exc}") from exc
    text = done.stdout.strip() or done.stderr.strip()
    if done.returncode != 0 or not text.startswith("fio"):
        raise FioError(f"{fio} --version did not answer as fio does: {text[:200]!r}")
    return text.splitlines()[0]


def fio_engines(fio: str) -> set[str]:
    """The I/O engines this fio was built with (``fio --enghelp``)."""
    try:
        done = subprocess.run(
            [fio, "--enghelp"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FioError(f"{fio} --enghelp failed: {exc}") from exc
    return {line.strip() for line in done.stdout.splitlines()[1:] if line.strip()}


class FioProcess:
    """One fio process: started, its JSON objects yielded as they come, stopped on request."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.stream = JsonObjects()
        self._stderr: deque[str] = deque(maxlen=50)
        self._interrupted = False
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise FioError(f"cannot start {argv[0]}: {exc.strerror}") from exc
        self.started = time.monotonic()
        self._stderr_thread = threading.Thread(
            target=self._drain_stderr, name="fio-stderr", daemon=True
        )
        self._stderr_thread.start()

    def _drain_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip()
            if line:
                self._stderr.append(line)

    @property
    def stderr_lines(self) -> list[str]:
        return list(self._stderr)

    @property
    def interrupted(self) -> bool:
        return self._interrupted

    def interrupt(self) -> None:
        """Ask fio to end now (it still prints its result)."""
        if self.proc.poll() is None and not self._interrupted:
            self._interrupted = True
            try:
                os.killpg(self.proc.pid, signal.SIGINT)
            except OSError:
                pass

    def objects(
        self, stop: threading.Event, deadline: float | None = None, tick_s: float = 0.25
    ) -> Iterator[dict[str, Any] | None]:
        """fio's objects as they arrive, and None every ``tick_s`` without one (so the caller
        can keep time); ends when fio has exited. ``stop`` or a passed ``deadline``
        (monotonic) interrupt fio; one that does not end within :data:`STOP_GRACE_S` is
        killed."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        os.set_blocking(fd, False)
        selector = selectors.DefaultSelector()
        selector.register(fd, selectors.EVENT_READ)
        killed_at: float | None = None
        try:
            while True:
                now = time.monotonic()
                if not self._interrupted and (
                    stop.is_set() or (deadline is not None and now > deadline)
                ):
                    self.interrupt()
                if self._interrupted and killed_at is None:
                    killed_at = now + STOP_GRACE_S
                if killed_at is not None and now > killed_at and self.proc.poll() is None:
                    self.kill()
                if not selector.select(tick_s):
                    yield None
                    continue
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    break
                found = self.stream.feed(chunk.decode("utf-8", "replace"))
                yield from found
                if not found:
                    yield None
            yield from self.stream.close()
        finally:
            selector.close()
        self.wait()

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass

    def wait(self, timeout: float = 60.0) -> int:
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.wait()
        self._stderr_thread.join(5)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()
        return code

    def failure(self, what: str) -> FioError:
        """A :class:`FioError` for ``what`` with fio's last words."""
        detail = "; ".join(self.stderr_lines[-5:]) or "no message"
        return FioError(f"{what}: fio exited with status {self.proc.returncode}: {detail}")


__all__ = ["STOP_GRACE_S", "FioError", "FioProcess", "fio_engines", "fio_path", "fio_version"]
