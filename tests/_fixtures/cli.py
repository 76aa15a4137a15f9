"""Running the bench-gui command line as a user does, in a subprocess of this tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def bench(
    *args: str,
    db: Path,
    timeout: float = 300,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """``bench-gui --db DB ARGS``: this environment plus ``env``; never raises on exit status."""
    return subprocess.run(
        [sys.executable, "-m", "bench_gui", "--db", str(db), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        input=stdin,
        check=False,
    )


def last_json(stdout: str) -> Any:
    """The JSON document a --json command prints on its last line."""
    return json.loads(stdout.strip().splitlines()[-1])
