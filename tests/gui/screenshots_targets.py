r"""Screenshots of the Targets page and the host-key dialogs (not a test: run it by hand).

    xvfb-run -a -s "-screen 0 1920x1080x24" \
        .venv/bin/python -m tests.gui.screenshots_targets artifacts

Builds the real main window over a temporary data directory with three saved targets, shows a
connection report with a problem, the inventory of a scripted two-socket database server (the
tests collect real ones over SSH), a failed login with a form error, the unknown-host-key
question and the changed-key refusal, and the Workload page's driver host.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

GIB = 1024**3


def _disk(name: str, model: str, serial: str, size_gib: float, tran: str, rev: str, **more: Any):
    return {
        "name": name,
        "path": f"/dev/{name}",
        "type": "disk",
        "size_bytes": int(size_gib * GIB),
        "model": model,
        "serial": serial,
        "rotational": more.pop("rotational", False),
        "transport": tran,
        "firmware": rev,
        "fstype": more.pop("fstype", None),
        "mountpoints": more.pop("mountpoints", []),
        **more,
    }


def server_inventory() -> dict[str, Any]:
    """What ``collect_inventory`` returns for a two-socket database server (scripted)."""
    raid = {
        "name": "md0",
        "path": "/dev/md0",
        "type": "raid10",
        "size_bytes": int(3576 * GIB),
        "rotational": False,
        "fstype": "xfs",
        "mountpoints": ["/var/lib/postgresql"],
    }
    nvme = [
        _disk(f"nvme{i}n1", "SAMSUNG MZQL21T9HCJR-00A07", f"S64GNE0R80{i}12{i}", 1788, "nvme",
              "GDC5602Q", fstype="linux_raid_member", children=[raid])
        for i in range(4)
    ]  # fmt: skip
    boot = _disk(
        "sda",
        "MTFDDAK480TDS",
        "2140325A9F1C",
        447.1,
        "sata",
        "J004",
        children=[
            {"name": "sda1", "path": "/dev/sda1", "type": "part", "size_bytes": 512 * 1024**2,
             "fstype": "vfat", "mountpoints": ["/boot/efi"]},
            {"name": "sda2", "path": "/dev/sda2", "type": "part", "size_bytes": int(446.6 * GIB),
             "fstype": "ext4", "mountpoints": ["/"]},
        ],
    )  # fmt: skip
    hdd = _disk("sdb", "ST16000NM001G-2KK103", "ZL2C4XQ1", 14902, "sas", "SN03", rotational=True)
    return {
        "collected_at": "2026-11-21T14:02:37Z",
        "host": "db1.lab.example.com",
        "hostname": "db1",
        "notes": [],
        "cpu": {"model": "Intel(R) Xeon(R) Gold 6342 CPU @ 2.80GHz", "sockets": 2,
                "cores": 48, "threads": 96},
        "memory": {"total_bytes": 512 * GIB, "available_bytes": int(471.3 * GIB)},
        "kernel": {"release": "6.1.0-27-amd64", "machine": "x86_64"},
        "os": {"pretty_name": "Debian GNU/Linux 12 (bookworm)"},
        "block_devices": [boot, hdd, *nvme],
        "filesystems": [
            {"target": "/", "source": "/dev/sda2", "fstype": "ext4", "size_bytes": int(438 * GIB),
             "used_bytes": int(21.4 * GIB), "avail_bytes": int(394.3 * GIB)},
            {"target": "/boot/efi", "source": "/dev/sda1", "fstype": "vfat",
             "size_bytes": 511 * 1024**2, "used_bytes": 6 * 1024**2,
             "avail_bytes": 505 * 1024**2},
            {"target": "/var/lib/postgresql", "source": "/dev/md0", "fstype": "xfs",
             "size_bytes": int(3575 * GIB), "used_bytes": int(842.6 * GIB),
             "avail_bytes": int(2732.4 * GIB), "options": "rw,noatime,logbufs=8"},
        ],
    }  # fmt: skip


def main(out_dir: str, width: int = 1920, height: int = 1080) -> int:
    os.environ.setdefault("BENCH_GUI_DATA_DIR", tempfile.mkdtemp(prefix="bench-gui-shots-"))
    from PySide6.QtWidgets import QApplication

    from bench_gui.gui.app import APP_NAME, build_main_window
    from bench_gui.gui.dialogs import HostKeyDialog
    from bench_gui.remote.errors import ChangedHostKey, UnknownHostKey
    from bench_gui.remote.hostkeys import APP_KNOWN_HOSTS
    from bench_gui.remote.ssh_transport import TargetReport
    from bench_gui.remote.targets import TARGETS_FILE, SSHTarget, add_target
    from bench_gui.store import SessionStore
    from bench_gui.store.paths import data_dir

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = data_dir() / TARGETS_FILE
    add_target(
        SSHTarget(
            "db-server-1",
            "db1.lab.example.com",
            22,
            "bench",
            "key",
            "~/.ssh/id_ed25519",
            "passwordless",
        ),
        path,
    )
    add_target(SSHTarget("loadgen", "loadgen"), path)
    add_target(
        SSHTarget("raid10-ssd", "10.0.4.17", 2222, "root", "password", python="python3.11"),
        path,
    )

    QApplication.setApplicationName(APP_NAME)
    app = QApplication(sys.argv[:1])
    store = SessionStore()
    window = build_main_window(store)
    window.resize(width, height)
    window.show()
    window.show_page("Targets")
    page = window.targets_page

    def settle() -> None:
        for _ in range(30):
            app.processEvents()

    page.select_target("db-server-1")
    settle()
    window.grab().save(str(out / "targets-empty.png"))

    report = TargetReport("db-server-1")
    report.connected = True
    report.login = "bench@db1.lab.example.com:22"
    report._good("connected to bench@db1.lab.example.com:22")
    report._good(
        "python3 is Python cpython 3.11.2 on linux-x86_64, glibc 2.36; lacks"
        " psycopg/hdrhistogram (the app will copy its own)"
    )
    report._good("sudo works without a password")
    report.database_ok = False
    report._bad(
        "the database is not reachable from db1.lab.example.com: connection to server at"
        ' "10.0.4.20", port 5432 failed: Connection refused (checked with psycopg)'
    )
    page.checks.show_report(report)
    page.inventory.show_inventory(server_inventory(), "db-server-1")
    settle()
    window.grab().save(str(out / "targets.png"))

    page.select_target("raid10-ssd")
    failed = TargetReport("raid10-ssd")
    failed._bad(
        "authentication failed for root@10.0.4.17:2222: the server refused the password from"
        " the keyring (Authentication failed.)"
    )
    page.checks.show_report(failed)
    page.form.port_spin.setValue(2222)
    page.form.name_edit.setText("raid 10")
    page.form.form_target()
    settle()
    window.grab().save(str(out / "targets-errors.png"))

    fingerprint = "SHA256:3xKp0m4Jb0wS5mZc2m7Jw1y0C8d9fHq3VvC5tQmE2sY"
    unknown = HostKeyDialog(
        UnknownHostKey("[10.0.4.17]:2222", "ED25519", fingerprint),
        "raid10-ssd",
        data_dir() / APP_KNOWN_HOSTS,
        window,
    )
    unknown.show()
    settle()
    unknown.grab().save(str(out / "hostkey-unknown.png"))
    unknown.close()
    changed = HostKeyDialog(
        ChangedHostKey(
            "[10.0.4.17]:2222",
            "ED25519",
            fingerprint,
            str(data_dir() / APP_KNOWN_HOSTS),
            3,
            "ED25519",
            "SHA256:q9v1Ylj7mO0o8iZrL2kX3bS8cF4nH6tW0aD5eR7uJ1g",
        ),
        "raid10-ssd",
        None,
        window,
    )
    changed.show()
    settle()
    changed.grab().save(str(out / "hostkey-changed.png"))
    changed.close()

    window.show_page("Workload")
    window.workload_page.pg_radio.setChecked(True)
    combo = window.workload_page.driver_combo
    combo.setCurrentIndex(combo.findData("loadgen"))
    settle()
    window.grab().save(str(out / "workload-driver.png"))

    window.close()
    window.shutdown()
    store.close()
    print(f"screenshots in {out}")  # noqa: T201
    return 0


if __name__ == "__main__":
    size = [int(v) for v in sys.argv[2:4]] if len(sys.argv) > 3 else [1920, 1080]
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "artifacts", *size))
