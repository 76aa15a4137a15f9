"""The PDF reports a reviewer looks at page by page (not a test: run it by hand).

    python -m tests.report.render_reports DIR [NAME ...]

(from the repository's root, so that the test helpers import as the ``tests`` package; with
NAMEs, only the briefs whose names start with one of them).

Each brief's sessions are stored in a data directory of their own (removed after):
TPROC-C sessions with seed-like names at 1, 2, 4, 6 and 12 sessions (tests/report/fleet.py:
seed 000's arrays and unlike configurations), seed 000 with a described array that disagrees
with its price list, seed 000's baseline with a repeat of it, a HammerDB job-store import
(tests/_fixtures/hammerdb) and seed 004's random-read study with a RAM price. Each report is
written through ``bench-gui compare ... --report X.pdf --paper P`` as a user would, every
page rendered with ``pdftoppm -png -r 60`` into DIR/<brief>-<paper>/, and each brief's pages,
page fills (tests/report/page_fill.py) and margin ink (tests/report/margins.py) printed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench_gui.store import SessionStore
from tests.report.margins import margin_ink
from tests.report.page_fill import page_fills

PAPERS = ("a4", "letter")


def _seed_like(count: int) -> Callable[[SessionStore], list[int]]:
    def make(store: SessionStore) -> list[int]:
        from tests.report.fleet import seed_like_fleet

        return seed_like_fleet(store, count)

    return make


def _described(store: SessionStore) -> list[int]:
    from tests._fixtures.seed_sessions import build_seed000

    hdd, ssd = build_seed000(store)
    store.set_storage_description(ssd, devices="1 x Micron 7450 PRO 3.84TB NVMe", count=1)
    return [hdd, ssd]


def _repeat(store: SessionStore) -> list[int]:
    from tests._fixtures.seed_sessions import build_seed000
    from tests.report.fleet import hdd_repeat

    hdd, ssd = build_seed000(store)
    return [hdd, ssd, hdd_repeat(store, 1.02)]


def _hammerdb(store: SessionStore) -> list[int]:
    from bench_gui.store.hammerdb import import_hammerdb
    from tests._fixtures.hammerdb import HAMMER_DB

    copy = Path(store.path).parent / "hammer.DB"
    shutil.copyfile(HAMMER_DB, copy)
    import_hammerdb(store, copy, utc_offset_h=0)
    return [r.id for r in store.list_runs() if r.status == "complete" and r.steps][::-1]


def _random_read(store: SessionStore) -> list[int]:
    from bench_gui.core.economics import DevicePrice
    from tests._fixtures.random_read_sessions import seed004

    hdd, ssd = seed004(store)
    store.add_device_price(DevicePrice("DDR3 8GB DIMM", 80.0, "USD", "2014-07-01", "web shop"))
    return [hdd, ssd]


BRIEFS: dict[str, Callable[[SessionStore], list[int]]] = {
    **{f"tproc-c-{n}": _seed_like(n) for n in (1, 2, 4, 6, 12)},
    "described-array": _described,
    "baseline-repeat": _repeat,
    "hammerdb-import": _hammerdb,
    "random-read": _random_read,
}


def render(ids: list[int], name: str, paper: str, out: Path, data: Path) -> Path:
    """Write one report through the command line and render its pages; the PDF."""
    pdf = out / f"{name}-{paper}.pdf"
    env = {**os.environ, "BENCH_GUI_DATA_DIR": str(data), "QT_QPA_PLATFORM": "offscreen"}
    command = [sys.executable, "-m", "bench_gui", "compare", *map(str, ids)]
    command += ["--report", str(pdf), "--paper", paper]
    subprocess.run(command, check=True, env=env, capture_output=True, text=True)
    pages = out / f"{name}-{paper}"
    shutil.rmtree(pages, ignore_errors=True)
    pages.mkdir()
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(pdf), str(pages / "p")], check=True)
    return pdf


def main(out_dir: str, only: list[str]) -> int:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, make in BRIEFS.items():
        if only and not any(name.startswith(o) for o in only):
            continue
        data = Path(tempfile.mkdtemp(prefix="bench-gui-reports-"))
        try:
            os.environ["BENCH_GUI_DATA_DIR"] = str(data)
            with SessionStore() as store:
                ids = make(store)
            for paper in PAPERS:
                pdf = render(ids, name, paper, out, data)
                fills = page_fills(pdf)
                shown = " ".join(f"{fill:.2f}" for fill in fills)
                ink = margin_ink(pdf)
                print(f"{name} {paper}: {len(fills)} pages, margin ink {ink}, fill {shown}")  # noqa: T201
        finally:
            shutil.rmtree(data, ignore_errors=True)
    print(f"pages in {out}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "artifacts", sys.argv[2:]))
