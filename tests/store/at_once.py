"""Work started on several threads at the same instant, for the tests of two desktops writing
one team store at once."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def at_once(work: Callable[[T], R], items: Sequence[T]) -> tuple[list[R], list[BaseException]]:
    """``work(item)`` for every item, each on its own thread, all released together by a
    barrier; (what they returned, in the order they ended; what they raised)."""
    barrier = threading.Barrier(len(items))
    results: list[R] = []
    failures: list[BaseException] = []

    def run(item: T) -> None:
        try:
            barrier.wait(timeout=30)
            results.append(work(item))
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(item,)) for item in items]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, failures
