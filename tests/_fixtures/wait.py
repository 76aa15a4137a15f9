"""Waiting for a condition instead of sleeping for a guessed time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import pytest

T = TypeVar("T")


def wait_until(
    predicate: Callable[[], T], timeout: float = 10.0, what: str = "", interval: float = 0.02
) -> T:
    """Call ``predicate`` until it returns something true and return that; fail the test,
    naming ``what`` is awaited, when ``timeout`` seconds pass first.

    An exception raised by ``predicate`` is not caught: a process that died while it was
    awaited is a failure at once, not after the timeout.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            pytest.fail(f"gave up after {timeout:g} s waiting for {what or predicate!r}")
        time.sleep(interval)
