"""Screenshots of the Compare page showing seed 004's random-read study (not a test: run it by
hand), and its PDF report.

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python \\
        -m tests.gui.compare_screenshots_random_read DIR [WIDTHxHEIGHT]

(from the repository's root, so that the test helpers import as the ``tests`` package).

Builds the real main window over a real session store in a temporary data directory, stores
the seed 004 sessions (tests/_fixtures/random_read_sessions.py) and a RAM price, compares them
on the Compare page, saves a PNG of every tab (the ops/s chart on both scales), of a mix of
workloads refused, and writes the comparison as DIR/random-read.pdf; prints how far the page
scrolls as a whole at that size (0: it fits).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from tests._fixtures.random_read_sessions import seed004
from tests._fixtures.seed_sessions import build_seed000


def main(out_dir: str, size: str = "1920x1080") -> int:
    made = ""
    if not os.environ.get("BENCH_GUI_DATA_DIR"):  # a data directory of its own, removed after
        made = os.environ["BENCH_GUI_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-gui-rr-")
    from PySide6.QtWidgets import QApplication, QScrollArea

    from bench_gui.core.economics import DevicePrice
    from bench_gui.gui.app import APP_NAME, build_main_window
    from bench_gui.store import SessionStore
    from bench_gui.workloads.random_read.compare_results import RandomReadView

    width, height = (int(v) for v in size.split("x"))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    QApplication.setApplicationName(APP_NAME)
    app = QApplication(sys.argv[:1])
    store = SessionStore()
    hdd, ssd = seed004(store)
    store.add_device_price(DevicePrice("DDR4 RDIMM 64GB", 240.0, "USD", "2026-11-01", "vendor"))
    tproc_c, _other = build_seed000(store)

    window = build_main_window(store)
    window.resize(width, height)
    window.show()

    def settle() -> None:
        for _ in range(30):
            app.processEvents()

    def shot(name: str) -> None:
        settle()
        window.grab().save(str(out / f"rr-{width}x{height}-{name}.png"))

    def measure(what: str) -> None:
        settle()
        frame = window.stack.currentWidget()  # the page's scroll area (page_frame)
        assert isinstance(frame, QScrollArea)
        print(  # noqa: T201
            f"{what} at {width}x{height}: page {page.height()} px tall in a {frame.height()} px"
            f" frame, scrolls {frame.verticalScrollBar().maximum()} px;"
            f" fact cards {view.tiles[0].height()} px"
        )

    window.show_page("Compare")
    settle()
    page = window.compare_page
    view = page.compare_views["random_read"]
    assert isinstance(view, RandomReadView)
    page.set_checked([hdd, ssd])
    page.set_baseline(hdd)
    shot("ticked")
    assert page.compare(), page.error_label.text()
    measure("seed 004")
    for i in range(view.tabs.count()):
        view.tabs.setCurrentIndex(i)
        name = view.tabs.tabText(i).lower().replace(" ", "-").replace("/", "")
        shot(name)
    view.tabs.setCurrentIndex(0)
    view.set_log_scale(False)
    shot("ops-linear")
    view.set_log_scale(True)
    view.tabs.setCurrentIndex(3)
    view.ram_question.set_question(150_000, "1 TiB")
    shot("economics-1tib")
    assert page.export_report(out / "random-read.pdf"), page.error_label.text()

    page.set_checked([tproc_c, hdd])
    page.compare()
    shot("mixed")

    window.close()
    store.close()
    if made:
        shutil.rmtree(made, ignore_errors=True)
    print(f"screenshots in {out}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*(sys.argv[1:] or ["artifacts"])))
