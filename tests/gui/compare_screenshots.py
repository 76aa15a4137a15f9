"""Screenshots of the Compare and Sessions pages (not a test: run it by hand).

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python -m tests.gui.compare_screenshots \\
        DIR [WIDTHxHEIGHT]

(from the repository's root, so that the test helpers import as the ``tests`` package).

Builds the real main window over a real session store in a temporary data directory, stores
the seed 000 and seed 003 sessions in it (tests/_fixtures/seed_sessions.py), compares them on
the Compare page and saves a PNG of every tab (named with the window's size), and prints how
far the page scrolls as a whole at that size (0: it fits).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from tests._fixtures.seed_sessions import POWER_PRICE, build_seed000, build_seed003


def main(out_dir: str, size: str = "1920x1080") -> int:
    made = ""
    if not os.environ.get("BENCH_GUI_DATA_DIR"):  # a data directory of its own, removed after
        made = os.environ["BENCH_GUI_DATA_DIR"] = tempfile.mkdtemp(prefix="bench-gui-compare-")
    from PySide6.QtWidgets import QApplication, QScrollArea

    from bench_gui.gui.app import APP_NAME, build_main_window
    from bench_gui.store import SessionStore

    width, height = (int(v) for v in size.split("x"))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    QApplication.setApplicationName(APP_NAME)
    app = QApplication(sys.argv[:1])
    store = SessionStore()
    hdd, ssd = build_seed000(store)
    base, scaled = build_seed003(store)
    store.add_power_price(POWER_PRICE)
    store.add_tags(hdd, ["legacy", "raid10"])
    store.set_note(ssd, "Drives secure-erased before the array was built.")

    window = build_main_window(store)
    window.resize(width, height)
    window.show()

    def settle() -> None:
        for _ in range(30):
            app.processEvents()

    def save(name: str) -> None:
        window.grab().save(str(out / f"{width}x{height}-{name}.png"))

    def measure(what: str) -> None:
        frame = window.stack.currentWidget()  # the page's scroll area (page_frame)
        assert isinstance(frame, QScrollArea)
        print(  # noqa: T201
            f"{what} at {width}x{height}: page {page.height()} px tall in a {frame.height()} px"
            f" frame, scrolls {frame.verticalScrollBar().maximum()} px;"
            f" fact cards {page.results.tiles[0].height()} px"
        )

    window.show_page("Compare")
    settle()
    page = window.compare_page
    save("compare-empty")
    page.set_checked([hdd, ssd])
    page.set_baseline(hdd)
    settle()
    assert page.compare(), page.error_label.text()
    settle()
    measure("seed 000")
    for i in range(page.tabs.count()):
        page.tabs.setCurrentIndex(i)
        settle()
        name = page.tabs.tabText(i).lower().replace(" ", "-")
        save(f"compare-seed000-{name}")

    page.set_checked([base, scaled])
    page.set_baseline(base)
    settle()
    assert page.compare(), page.error_label.text()
    page.tabs.setCurrentIndex(0)
    settle()
    save("compare-seed003-throughput")
    measure("seed 003")
    for i in range(page.tabs.count()):
        if page.tabs.tabText(i) in ("Power", "Saturation"):
            page.tabs.setCurrentIndex(i)
            settle()
            name = page.tabs.tabText(i).lower()
            save(f"compare-seed003-{name}")

    page.set_checked([hdd])
    page.compare()
    settle()
    save("compare-error")

    window.show_page("Sessions")
    settle()
    window.sessions_page.open_run(hdd)
    settle()
    save("sessions")

    window.close()
    store.close()
    if made:
        shutil.rmtree(made, ignore_errors=True)
    print(f"screenshots in {out}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*(sys.argv[1:] or ["artifacts"])))
