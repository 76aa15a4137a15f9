"""A user's clone has nothing beside it: no test, benchmark or script reaches for a folder outside
the repository (the fixtures the tests need are in tests/_fixtures)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTSIDE = re.compile(r"""/work/|\.\./shared|["']shared["']\s*/|parents\[\d\]\s*/\s*["']shared""")


def test_nothing_reaches_outside_the_repository() -> None:
    checkers = {Path(__file__).resolve(), ROOT / "tests" / "test_readme.py"}  # they name them
    offenders = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for folder in ("tests", "benchmarks", "scripts", "bench_gui", ".ci")
        for path in sorted((ROOT / folder).rglob("*"))
        if path.is_file() and path.suffix in {".py", ".sh", ""} and path.resolve() not in checkers
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert not offenders, "paths outside the repository:\n" + "\n".join(offenders)
