"""SIGTERM stops the agent even when it arrives while the main thread holds the stop flag's
lock (inside ``stop.wait()``): the handler must not take that lock. Run in a child process,
since handlers and the relay thread belong to a process's main thread and lifetime."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

CHILD = textwrap.dedent(
    """
    import signal, sys, threading
    from bench_gui.agent.signals import stop_on_signals

    stop = threading.Event()
    stop_on_signals(stop)
    handler = signal.getsignal(signal.SIGTERM)
    # The moment the agent hung at: a signal taken while the main thread is inside
    # stop.wait() with the Event's lock held. The handler must return at once.
    with stop._cond:
        handler(signal.SIGTERM, None)
        print("handler returned", flush=True)
    print("stopped" if stop.wait(30) else "not stopped", flush=True)
    # And a real signal, from outside, on a fresh flag.
    stop2 = threading.Event()
    stop_on_signals(stop2)
    print("ready", flush=True)
    print("stopped again" if stop2.wait(30) else "not stopped", flush=True)
    """
)


def test_a_stop_signal_taken_while_the_flags_lock_is_held_still_stops() -> None:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True, env=env
    )
    watchdog = threading.Timer(60, child.kill)  # a hung child ends, and the reads with it
    watchdog.start()
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "handler returned"
        assert child.stdout.readline().strip() == "stopped"
        assert child.stdout.readline().strip() == "ready"
        child.send_signal(signal.SIGTERM)
        assert child.stdout.readline().strip() == "stopped again"
        assert child.wait(timeout=30) == 0
    finally:
        watchdog.cancel()
        watchdog.join()
        if child.poll() is None:
            child.kill()
            child.wait()
            pytest.fail("the agent's signal handling hung")
