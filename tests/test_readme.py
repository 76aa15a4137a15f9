"""The README a newcomer reads lists every command and points at nothing outside the
repository (issue 33: ``bench-gui storage`` and ``bench-gui gui`` were missing, and the design
was named at ``../shared/DESIGN.md``, which a clone does not have)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from bench_gui.cli.main import build_parser

REPO = Path(__file__).resolve().parents[1]


def commands() -> list[str]:
    """The top-level commands of ``bench-gui``, from its own parser."""
    (sub,) = (
        a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    )  # fmt: skip
    return sorted(sub.choices)


def test_the_readme_lists_every_command() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = commands()
    assert {"gui", "storage", "demo", "run"} <= set(found)
    missing = [c for c in found if not re.search(rf"^bench-gui {re.escape(c)}\b", text, re.M)]
    assert missing == []


def test_the_docs_name_no_file_outside_the_repository() -> None:
    for doc in ("README.md", "ARCHITECTURE.md"):
        text = (REPO / doc).read_text(encoding="utf-8")
        assert "../shared" not in text, doc
        assert "/work/" not in text, doc
