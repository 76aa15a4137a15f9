"""The PDF reports a reviewer looks at page by page (not a test: run it by hand).

    .venv/bin/python -m tests.report.render_reports DIR

(from the repository's root, so that the test helpers import as the ``tests`` package).

Stores, in a data directory of its own (removed after), six TPROC-C sessions
(tests/report/fleet.py: seed 000's arrays and four unlike configurations) and seed 004's
random-read study (tests/_fixtures/random_read_sessions.py) with a RAM price; writes their
reports through ``bench-gui compare ... --report X.pdf --paper P`` as a user would, renders
every page with ``pdftoppm -png -r 60`` into DIR/<report>/ and prints each page's fill (how
far down its body the text reaches, tests/report/page_fill.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.report.page_fill import page_fills

ROOT = Path(__file__).resolve().parents[2]
BENCH_GUI = ROOT / ".venv" / "bin" / "bench-gui"


def stored_sessions(data: Path) -> tuple[list[int], list[int]]:
    """The six TPROC-C sessions and the two random-read ones, in a store under ``data``."""
    os.environ["BENCH_GUI_DATA_DIR"] = str(data)
    from bench_gui.core.economics import DevicePrice
    from bench_gui.store import SessionStore
    from tests._fixtures.random_read_sessions import seed004
    from tests.report.fleet import fleet

    with SessionStore() as store:
        six = fleet(store, 6)
        hdd, ssd = seed004(store)
        store.add_device_price(DevicePrice("DDR3 8GB DIMM", 80.0, "USD", "2014-07-01", "web shop"))
    return six, [hdd, ssd]


def render(ids: list[int], name: str, paper: str, out: Path, data: Path) -> list[float]:
    """Write one report through the command line, render its pages; its pages' fills."""
    pdf = out / f"{name}-{paper}.pdf"
    env = {**os.environ, "BENCH_GUI_DATA_DIR": str(data), "QT_QPA_PLATFORM": "offscreen"}
    command = [str(BENCH_GUI), "compare", *map(str, ids), "--report", str(pdf), "--paper", paper]
    subprocess.run(command, check=True, env=env, capture_output=True, text=True)
    pages = out / f"{name}-{paper}"
    shutil.rmtree(pages, ignore_errors=True)
    pages.mkdir()
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(pdf), str(pages / "p")], check=True)
    return page_fills(pdf)


def main(out_dir: str) -> int:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = Path(tempfile.mkdtemp(prefix="bench-gui-reports-"))
    try:
        six, study = stored_sessions(data)
        jobs = [
            (six, "tproc-c-6", "letter"),
            (six, "tproc-c-6", "a4"),
            (six[:2], "tproc-c-2", "letter"),
            (six[:4], "tproc-c-4", "letter"),
            (study, "random-read", "letter"),
            (study, "random-read", "a4"),
        ]
        for ids, name, paper in jobs:
            fills = render(ids, name, paper, out, data)
            shown = "  ".join(f"{i + 1}:{fill:.2f}" for i, fill in enumerate(fills))
            print(f"{name} {paper}: {len(fills)} pages, fill {shown}")  # noqa: T201
    finally:
        shutil.rmtree(data, ignore_errors=True)
    print(f"pages in {out}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "artifacts"))
