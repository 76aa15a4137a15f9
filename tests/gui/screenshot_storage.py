"""Screenshots of the Storage page on real loop devices of this machine (run it by hand, as root).

    xvfb-run -a -s "-screen 0 1920x1080x24" \
        .venv/bin/python -m tests.gui.screenshot_storage artifacts

Makes five loop devices from sparse files (one of them mounted, to show the evidence), scans
this machine, lays out a btrfs RAID 10 over four of them, saves: the plan with the typed
confirmation, the page after a real apply (live log), a refused device, and the teardown.
Every loop device is detached and every file removed at the end, whatever happened.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main(out_dir: str) -> int:
    if os.geteuid() != 0:
        sys.stderr.write("run as root: loop devices need it\n")
        return 2
    work = Path(tempfile.mkdtemp(prefix="bench-gui-storage-shots-"))
    os.environ.setdefault("BENCH_GUI_DATA_DIR", str(work / "data"))
    from PySide6.QtWidgets import QApplication

    from bench_gui.gui.app import APP_NAME, build_main_window
    from bench_gui.store import SessionStore

    loops: list[str] = []
    mounted = work / "busy"
    mounted.mkdir()
    try:
        for i in range(5):
            image = work / f"ssd{i}.img"
            with open(image, "wb") as fh:
                fh.truncate(2 << 30)
            out = subprocess.run(
                ["losetup", "-f", "--show", str(image)], capture_output=True, text=True, check=True
            )
            loops.append(out.stdout.strip())
        subprocess.run(["mkfs.ext4", "-q", loops[4]], check=True)
        subprocess.run(["mount", loops[4], str(mounted)], check=True)

        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        QApplication.setApplicationName(APP_NAME)
        app = QApplication(sys.argv[:1])
        store = SessionStore()
        window = build_main_window(store)
        window.resize(1920, 1080)
        window.show()
        window.show_page("Storage")
        page = window.storage_page

        def settle(wait_task: bool = False) -> None:
            deadline = time.monotonic() + 120
            while True:
                for _ in range(20):
                    app.processEvents()
                if not wait_task or (page.task is None) or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            for _ in range(20):
                app.processEvents()

        page.scan()
        settle(True)
        window.grab().save(str(out / "storage-devices.png"))

        page.name_edit.setText("4x SSD RAID 10")
        page.level_combo.setCurrentIndex(page.level_combo.findData("10"))
        page.backend_combo.setCurrentIndex(page.backend_combo.findData("btrfs"))
        page.fs_combo.setCurrentIndex(page.fs_combo.findData("btrfs"))
        page.point_edit.setText(str(work / "bench"))
        page.owner_edit.setText("")
        for dev in loops[:4]:
            page.tick(dev)
        page.confirm_edit.setText(", ".join(Path(d).name for d in loops[:4]))
        settle()
        row = next(
            r
            for r in range(page.device_table.rowCount())
            if page.device_table.item(r, 1).text() == loops[4]
        )
        page.device_table.selectRow(row)
        settle()
        window.grab().save(str(out / "storage-plan.png"))

        page.apply()
        settle(True)
        window.grab().save(str(out / "storage-applied.png"))

        # The mdadm path on a kernel without md: refused in the plan, with the reason.
        page.plan_mode.setCurrentIndex(0)
        page.backend_combo.setCurrentIndex(page.backend_combo.findData("mdadm"))
        page.fs_combo.setCurrentIndex(page.fs_combo.findData("xfs"))
        page.tick(loops[3], False)
        page.tick(loops[4])
        settle()
        window.grab().save(str(out / "storage-refused.png"))

        page.tick(loops[4], False)
        page.tick(loops[3])
        page.backend_combo.setCurrentIndex(page.backend_combo.findData("btrfs"))
        page.fs_combo.setCurrentIndex(page.fs_combo.findData("btrfs"))
        page.plan_mode.setCurrentIndex(1)
        page.confirm_edit.setText(", ".join(loops[:4]))
        settle()
        page.teardown()
        settle(True)
        window.grab().save(str(out / "storage-teardown.png"))
        window.shutdown(30)
        window.close()
        store.close()
    finally:
        subprocess.run(["umount", "-l", str(mounted)], check=False)
        subprocess.run(["umount", "-l", str(work / "bench")], capture_output=True, check=False)
        if loops:
            subprocess.run(
                ["btrfs", "device", "scan", "--forget", *loops], capture_output=True, check=False
            )
        for dev in loops:
            subprocess.run(["losetup", "-d", dev], check=False)
        for image in work.glob("*.img"):
            image.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "artifacts"))
