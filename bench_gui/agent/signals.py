"""SIGTERM and SIGINT ask the agent to stop, without the handler touching a lock.

A Python signal handler runs in the main thread between two bytecodes, which may be inside
``stop.wait()`` with the Event's (non-reentrant) lock held: calling ``stop.set()`` there waits
for that lock forever, and the agent hangs instead of stopping (seen: a stop asked 3 s into a
step left the agent silent with its users running). So the handler only writes a byte to a
pipe (no lock), and a thread of its own reads it and sets the flag.
"""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def stop_on_signals(stop: threading.Event) -> None:
    """From now on, SIGTERM and SIGINT set ``stop`` (from a relay thread, not the handler)."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)

    def relay() -> None:
        while os.read(read_fd, 1):
            stop.set()

    threading.Thread(target=relay, name="bench-gui-signals", daemon=True).start()

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        try:
            os.write(write_fd, b"s")
        except BlockingIOError:
            pass  # the pipe is full of stop requests already: this one adds nothing

    for sig in STOP_SIGNALS:
        signal.signal(sig, on_signal)
