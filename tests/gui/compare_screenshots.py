"""Screenshots of the Compare and Sessions pages (not a test: run it by hand).

    xvfb-run -a -s "-screen 0 1920x1080x24" .venv/bin/python -m tests.gui.compare_screenshots DIR

(from the repository's root, so that the test helpers import as the ``tests`` package).

Builds the real main window over a real session store in a temporary data directory, stores
the seed 000 and seed 003 sessions in it (tests/_fixtures/seed_sessions.py), compares them on
the Compare page and saves a PNG of every tab.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tests._fixtures.seed_sessions import POWER_PRICE, build_seed000, build_seed003


def main(out_dir: str) -> int:
    os.environ.setdefault("BENCH_GUI_DATA_DIR", tempfile.mkdtemp(prefix="bench-gui-compare-"))
    from PySide6.QtWidgets import QApplication

    from bench_gui.gui.app import APP_NAME, build_main_window
    from bench_gui.store import SessionStore

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
    window.resize(1920, 1080)
    window.show()

    def settle() -> None:
        for _ in range(30):
            app.processEvents()

    window.show_page("Compare")
    settle()
    page = window.compare_page
    window.grab().save(str(out / "compare-empty.png"))
    page.set_checked([hdd, ssd])
    page.set_baseline(hdd)
    settle()
    assert page.compare(), page.error_label.text()
    settle()
    for i in range(page.tabs.count()):
        page.tabs.setCurrentIndex(i)
        settle()
        name = page.tabs.tabText(i).lower().replace(" ", "-")
        window.grab().save(str(out / f"compare-seed000-{name}.png"))

    page.set_checked([base, scaled])
    page.set_baseline(base)
    settle()
    assert page.compare(), page.error_label.text()
    page.tabs.setCurrentIndex(0)
    settle()
    window.grab().save(str(out / "compare-seed003-throughput.png"))
    for i in range(page.tabs.count()):
        if page.tabs.tabText(i) in ("Power", "Saturation"):
            page.tabs.setCurrentIndex(i)
            settle()
            name = page.tabs.tabText(i).lower()
            window.grab().save(str(out / f"compare-seed003-{name}.png"))

    page.set_checked([hdd])
    page.compare()
    settle()
    window.grab().save(str(out / "compare-error.png"))

    window.show_page("Sessions")
    settle()
    window.sessions_page.open_run(hdd)
    settle()
    window.grab().save(str(out / "sessions.png"))

    window.close()
    store.close()
    print(f"screenshots in {out}")  # noqa: T201
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "artifacts"))
