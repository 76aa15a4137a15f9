"""How much of the data file sits in the page cache: the RAM the study actually gave the data.

A memory cgroup's limit is not the data's cache: fio's own memory (its job structures in
shared memory, its heap, the program and its libraries) is charged to the same group, so with
a 256 MiB limit the data file keeps only what is left. Counting the file's resident pages
(``mincore`` through util-linux ``fincore``, which maps the file without reading it) when a
point that is larger than the cache ends gives that figure directly. Read outside the
measured cgroup, after fio has exited, so it costs the measurement nothing.
"""

from __future__ import annotations

import shutil
import subprocess


def cached_bytes(path: str) -> int | None:
    """Bytes of ``path`` resident in the page cache now; None when it cannot be told (no
    ``fincore`` on this host, or it failed)."""
    fincore = shutil.which("fincore")
    if fincore is None:
        return None
    try:
        done = subprocess.run(
            [fincore, "--bytes", "--raw", "--noheadings", "--output", "RES", path],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = done.stdout.strip()
    if done.returncode != 0 or not text.isdigit():
        return None
    return int(text)


__all__ = ["cached_bytes"]
