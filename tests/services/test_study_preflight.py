"""``study check`` looks past the file: each system still to measure meets its real server,
tuning preset and storage devices before anything runs, and the prices the brief will use are
looked at. Real PostgreSQL, a port nobody listens on, real loop devices (one mounted), the
Storage page's real discovery; nothing is changed by the check."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import tomli_w

from bench_gui.core.study import load_study
from bench_gui.services.study_preflight import NOTE, PROBLEM, Finding, preflight
from bench_gui.store import SessionStore
from tests._fixtures.layout_file import write_layout
from tests._fixtures.loop import LoopDevices
from tests._fixtures.ssh import free_port

pytestmark = pytest.mark.integration


def by_path(found: list[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for finding in found:
        out.setdefault(finding.path, []).append(finding)
    return out


def test_servers_presets_and_prices_are_checked_before_running(
    pg_server: Any, tmp_path: Path
) -> None:
    nobody = free_port()
    study = {
        "name": "Preflight",
        "workload": {"warehouses": 1, "virtual_users": [1], "rampup_s": 1, "duration_s": 2},
        "prices": {
            "device": [
                {"device": "Test SSD", "unit_price": 90, "currency": "USD"},
                # A slip of the unit: accepted by the file's checks, doubted here.
                {"device": "Test HDD", "unit_price": 0.000001, "currency": "EUR"},
            ]
        },
        "systems": {
            "up": {
                "name": "Server that answers",
                "target": {"kind": "postgresql", "host": pg_server.socket_dir,
                           "database": "preflight_db"},
                "storage": {"devices": "Test SSD", "count": 2},
                "tuning": {"profile": "no-such-preset", "restart": False},
            },
            "down": {
                "name": "Server that is off",
                "target": {"kind": "postgresql", "host": "127.0.0.1", "port": nobody},
                "storage": {"devices": "Test HDD", "count": 4},
            },
            "unpriced": {
                "name": "Server with no price",
                "target": {"kind": "postgresql", "host": pg_server.socket_dir,
                           "database": "preflight_db"},
                "storage": {"devices": "Unlisted NVMe"},
            },
        },
    }  # fmt: skip
    path = tmp_path / "study.toml"
    path.write_text(tomli_w.dumps(study))
    loaded = load_study(path)  # the file itself is valid: the plan checks find nothing
    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        found = by_path(preflight(loaded, tmp_path, store))
        (down,) = found["systems.down.target"]
        assert down.level == PROBLEM
        assert str(nobody) in down.text
        (preset,) = found["systems.up.tuning.profile"]
        assert preset.level == PROBLEM
        assert "no-such-preset" in preset.text
        # The server that answers, with no preset, has nothing found about its target.
        assert "systems.up.target" not in found
        assert "systems.unpriced.target" not in found
        assert [f.level for f in found["systems.unpriced.storage.devices"]] == [NOTE]
        assert "Unlisted NVMe" in found["systems.unpriced.storage.devices"][0].text
        assert [f.level for f in found["systems.unpriced.storage.count"]] == [NOTE]
        assert "below 0.01" in found["prices.device[1]"][0].text
        assert "different currencies (up USD, down EUR)" in found["prices"][0].text
        assert store.list_runs() == []  # nothing was run

        # A system already measured is skipped by the run: only its prices are looked at.
        again = by_path(preflight(loaded, tmp_path, store, lambda s: s.key in ("up", "down")))
        assert "systems.down.target" not in again
        assert "systems.up.tuning.profile" not in again
        assert "prices" in again


def test_a_layout_on_a_device_in_use_is_a_problem_before_anything_is_built(
    loops: LoopDevices, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCH_GUI_DATA_DIR", str(tmp_path / "data"))
    free, used = loops.make(64), loops.make(64)
    subprocess.run(["mkfs.ext4", "-q", used], check=True, capture_output=True)
    (tmp_path / "held").mkdir()
    subprocess.run(["mount", used, str(tmp_path / "held")], check=True)
    systems: dict[str, Any] = {}
    for key, device in (("free", free), ("used", used)):
        write_layout(tmp_path / f"{key}.toml", device, tmp_path / f"{key}-mnt")
        systems[key] = {
            "name": f"{key} device",
            "storage": {"layout": f"{key}.toml", "confirm": [Path(device).name],
                        "accept_unreadable_processes": True},
        }  # fmt: skip
    path = tmp_path / "study.toml"
    path.write_text(
        tomli_w.dumps(
            {
                "name": "Layouts checked first",
                "workload": {
                    "kind": "random_read",
                    "dataset_sizes": ["8MiB"],
                    "memory_limit": "64MiB",
                    "warmup_s": 1,
                    "measure_s": 1,
                },
                "systems": systems,
            }
        )  # fmt: skip
    )
    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        found = by_path(preflight(load_study(path), tmp_path, store))
    (used_found,) = found["systems.used.storage.layout"]
    assert used_found.level == PROBLEM
    assert f"{used} is in use" in used_found.text
    assert "systems.free.storage.layout" not in found
    # Nothing was built or changed: the free device has no filesystem, the used one is still
    # mounted where it was.
    blkid = subprocess.run(["blkid", "-p", free], capture_output=True, text=True)
    assert blkid.returncode != 0, blkid.stdout
    assert not (tmp_path / "free-mnt").exists() or not any((tmp_path / "free-mnt").iterdir())
    mounted = subprocess.run(["findmnt", "-n", "-o", "SOURCE", str(tmp_path / "held")],
                             capture_output=True, text=True).stdout.strip()  # fmt: skip
    assert mounted == used


def test_a_preset_larger_than_the_server_s_ram_is_a_problem_before_it_is_applied(
    pg_server: Any, tmp_path: Path
) -> None:
    # Seed 000's Table 7 sets shared_buffers = 30GB for a 128 GB server: on a smaller one the
    # server does not start, which the run found only by restarting it and rolling back.
    (tmp_path / "big.toml").write_text(
        'name = "big"\ntitle = "a larger machine\'s memory"\n[settings]\n'
        'shared_buffers = "4TB"\neffective_cache_size = "6TB"\nrandom_page_cost = "1.1"\n'
    )
    (tmp_path / "fits.toml").write_text(
        'name = "fits"\ntitle = "this machine\'s"\n[settings]\nshared_buffers = "64MB"\n'
    )
    target = {"kind": "postgresql", "host": pg_server.socket_dir, "database": "preflight_db"}
    study = {
        "name": "Memory",
        "workload": {"warehouses": 1, "virtual_users": [1], "rampup_s": 1, "duration_s": 2},
        "systems": {
            "big": {"name": "Big preset", "target": target,
                    "tuning": {"profile": "big.toml", "restart": True}},
            "fits": {"name": "Preset that fits", "target": target,
                     "tuning": {"profile": "fits.toml", "restart": True}},
        },
    }  # fmt: skip
    path = tmp_path / "study.toml"
    path.write_text(tomli_w.dumps(study))
    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        found = by_path(preflight(load_study(path), tmp_path, store))
    big = found["systems.big.tuning.profile"]
    assert [f.level for f in big] == [PROBLEM, NOTE]
    assert big[0].text.startswith("big.toml: shared_buffers 4TB is more than the machine's ")
    assert "it may not start (for this machine: profile = 'pgtune'" in big[0].text
    assert big[1].text.startswith("big.toml: effective_cache_size 6TB is more than")
    assert "systems.fits.tuning.profile" not in found
