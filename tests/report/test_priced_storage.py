"""The storage a report prices is the storage it measured (issue 28): an array priced that is
not the one described, laid out or found is flagged as the $3,184 cost is; a virtual or loop
disk is never called an HDD or SSD on the kernel's word; prices that look wrong are said when
they are typed."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from bench_gui.cli.main import main
from bench_gui.core.economics import ArrayInput
from bench_gui.core.priced_storage import device_kind
from bench_gui.gui.pages.compare.prices import PriceBox
from bench_gui.remote.inventory import data_directory_storage
from bench_gui.remote.local_shell import LocalShell
from bench_gui.report import build_report
from bench_gui.report.config_table import gather, storage
from bench_gui.store import SessionStore
from bench_gui.store.compare_input import describe_devices
from tests._fixtures.loop import needs_root
from tests._fixtures.seed_sessions import (
    INVENTORY,
    build_seed000,
    seed000_points,
    store_session,
    sweep,
)

PG15 = "PostgreSQL 15.8 on x86_64-pc-linux-gnu"


def _flag_lines(report: object) -> list[str]:
    return [n for n in report.reader_notes if "is not the storage recorded" in n]  # type: ignore[attr-defined]


def test_an_array_priced_unlike_the_one_described_is_flagged(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    store.set_storage_description(ssd, devices="1 x Micron 7450 PRO 3.84TB NVMe", count=1)
    report = build_report(store, [hdd, ssd], hdd)
    array = report.economics.arrays[ssd]
    assert array.storage_flag is not None
    assert "4 devices are priced, 1 recorded" in array.storage_flag
    assert "the priced device holds 800 GB, the recorded one 3.84 TB" in array.storage_flag
    assert "the author's description" in array.storage_flag
    (note,) = _flag_lines(report)
    assert note.startswith("⚑ The S650DC RAID 10 array: the array priced (4 x Micron S650DC 800GB)")
    cost = report.tables["array_cost"].rows[1][4]
    assert cost.tone == "flag"
    assert cost.text.endswith("⚑")
    assert any("is not the storage recorded" in m for m in report.economics.messages)
    # The HDD side agrees with its layout: no flag.
    assert report.economics.arrays[hdd].storage_flag is None


def test_a_hand_priced_array_unlike_the_layout_is_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        hdd, ssd = build_seed000(store)
    db = ["--db", str(path)]
    assert main([*db, "prices", "device", "add", "Seagate ST300MP0006 300GB HDD", "199"]) == 0
    capsys.readouterr()
    assert (
        main(
            [*db, "prices", "array", str(ssd), "--device", "Seagate ST300MP0006 300GB HDD"]
            + ["--count", "16"]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "16 devices are priced, 4 recorded" in err
    assert "the priced device is an HDD, the recorded one an SSD" in err
    assert "the priced device holds 300 GB, the recorded one 800 GB" in err
    with SessionStore(path) as store:
        report = build_report(store, [hdd, ssd], hdd)
    assert _flag_lines(report)


def test_what_a_device_is_where_the_kernel_cannot_know() -> None:
    vda = {"path": "/dev/vda", "size_bytes": 275 * 10**9, "rotational": True}
    assert describe_devices([vda]) == ["1 x /dev/vda 275 GB (virtual disk)"]
    assert device_kind({"path": "/dev/sda", "model": "QEMU HARDDISK", "rotational": True}) == (
        "virtual disk"
    )
    assert device_kind({"path": "/dev/xvdb", "rotational": False}) == "virtual disk"
    assert device_kind({"path": "/dev/sdb", "rotational": True}) == "HDD"
    assert device_kind({"path": "/dev/nvme0n1", "rotational": False}) == "SSD"


@needs_root
def test_a_loop_device_is_said_to_be_one(loop_disk: tuple[str, Path], store: SessionStore) -> None:
    name, mount = loop_disk
    found = data_directory_storage(LocalShell(), str(mount))
    (disk,) = found["disks"]
    assert disk["backing_file"].endswith("disk.img")
    lines = describe_devices([disk])
    assert lines[0].endswith(f"(loop device on {disk['backing_file']})"), lines
    assert "HDD" not in lines[0]
    assert "SSD" not in lines[0]
    # In the report's system table; the author's description is printed first.
    run = store_session(
        store,
        "loop",
        sweep(PG15, {}, seed000_points(1)[:2]),
        inventory={**INVENTORY, "database": found},
    )
    facts = storage(gather(store, run))
    assert facts["Disks under it"] == lines[0]
    store.set_storage_description(run, devices="HDD RAID 10 (150 IOPS throttle)", count=1)
    facts = storage(gather(store, run))
    assert facts["Storage"] == "described by the author: 1 x HDD RAID 10 (150 IOPS throttle)"


def test_doubtful_prices_are_said_at_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sessions.sqlite3"
    with SessionStore(path) as store:
        hdd, _ssd = build_seed000(store)
    db = ["--db", str(path)]
    for price, said in (
        ("0", "the unit price is 0"),
        ("1e-9", "is below 0.01"),
        ("1e30", "is above 10,000,000"),
    ):
        assert main([*db, "prices", "device", "add", "X", price]) == 0
        assert said in capsys.readouterr().err
    assert main([*db, "prices", "device", "add", "X", "100", "--currency", "XYZ"]) == 0
    assert "XYZ is not an ISO 4217 currency code" in capsys.readouterr().err
    assert main([*db, "prices", "power", "add", "0.12", "--currency", "EUR"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main([*db, "prices", "array", str(hdd), "--cost", "0"]) == 0
    assert "the array cost is 0" in capsys.readouterr().err


@pytest.mark.gui
def test_the_price_calculator_says_doubtful_prices(qtbot: QtBot, store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    box = PriceBox()
    qtbot.addWidget(box)
    box.fill_arrays(store, [hdd, ssd], {hdd: "HDD", ssd: "SSD"})
    box.set_array(ssd, unit_price=1e30)
    box.currency_combo.setCurrentText("XYZ")
    box.price_inputs(store.device_prices())
    assert any("above 10,000,000" in d for d in box.doubts)
    assert any("XYZ is not an ISO 4217" in d for d in box.doubts)
    assert box.price_hint.text().startswith("⚠")
    box.set_array(ssd, unit_price=1262)
    box.currency_combo.setCurrentText("USD")
    box.price_inputs(store.device_prices())
    assert box.doubts == []
    assert box.price_hint.text().startswith("Edits apply")


def test_a_described_array_agreeing_with_its_price_is_not_flagged(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    store.set_storage_description(ssd, devices="4 x Micron S650DC 800GB SAS SSD", count=4)
    store.set_run_array(hdd, ArrayInput(hand_cost=3440.0, currency="USD"))
    report = build_report(store, [hdd, ssd], hdd)
    assert not _flag_lines(report)
