"""The system under test side by side (issue 14): one column per session, a shared value once
across the columns, a difference highlighted, settings in their real units, the storage as
built or as the author described it, only the OS knobs that matter."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

from bench_gui.report import build_report, write_report
from bench_gui.report.config_table import gather, schema_rows
from bench_gui.report.model import Report
from bench_gui.report.options import ReportOptions
from bench_gui.report.parts import Cell, Table
from bench_gui.store import SessionStore
from bench_gui.store.compare_input import setting_text, with_unit
from bench_gui.store.hammerdb import import_hammerdb
from tests._fixtures.hammerdb import HAMMER_DB
from tests._fixtures.seed_sessions import INVENTORY, build_seed000, store_session, sweep
from tests.report.fleet import PG16, fleet, points


def rows_of(table: Table) -> dict[str, list[Cell]]:
    return {row[0].text: row[1:] for row in table.rows if row[0].tone != "section"}


def test_common_values_once_differences_highlighted(store: SessionStore) -> None:
    hdd, ssd = build_seed000(store)
    r = build_report(store, [hdd, ssd], hdd)
    platform = r.tables["config_platform"]
    assert platform.columns == ["Item", "HDD RAID 10", "S650DC RAID 10"]
    assert [row[0].text for row in platform.rows if row[0].tone == "section"] == [
        "Hardware",
        "Storage",
    ]
    software = r.tables["config_software"]
    assert [row[0].text for row in software.rows if row[0].tone == "section"] == [
        "Operating system",
        "Database",
        "Workload",
    ]
    rows = rows_of(platform) | rows_of(software)
    cpu = rows["CPU"]
    assert (cpu[0].span, cpu[0].text, cpu[1].covered) == (
        2,
        "2 x Intel Xeon E5-2690 v3 (24 cores, 48 threads)",
        True,
    )
    assert rows["Memory"][0].text == "128 GiB"
    devices = rows["Devices"]
    assert [(c.text, c.tone, c.span) for c in devices] == [
        ("16 x SAS 15K RPM HDD 300GB (SAS, HDD, FW ES64)", "diff", 1),
        ("4 x Micron S650DC 800GB (SAS, SSD, FW M012)", "diff", 1),
    ]
    assert rows["Array"][0].text == "RAID 10 (mdadm, 512 KiB chunk)"
    assert rows["Filesystem"][0].text == "xfs on /dbtest (noatime)"
    assert rows["Storage"][0].text == "built by bench-gui"
    assert rows["Server"][0].text == "PostgreSQL 9.4.5"
    assert rows["Warehouses"][0].text == "7,500"
    assert rows["Ramp-up"][0].text == rows["Measured window"][0].text == "15 min"
    assert rows["Reset between steps"][0].text == "yes (a fresh copy of the built database)"
    settings = rows_of(r.tables["config_settings"])
    assert [c.text for c in settings["random_page_cost"]] == ["4.0", "2.0"]
    assert settings["random_page_cost"][0].tone == "diff"
    assert (settings["shared_buffers"][0].text, settings["shared_buffers"][0].span) == ("30GB", 2)
    schema = rows_of(r.tables["config_schema"])
    assert schema["order_line"][0].text == "2,250,000,000"  # seed 000's Table 8
    assert schema["new_order"][0].text == "67,500,000"
    assert schema["item"][0].text == "100,000"
    assert "Database size" not in schema
    assert any("database size was not recorded" in n for n in r.tables["config_schema"].notes)


def test_settings_in_real_units_and_only_those_not_at_their_defaults(store: SessionStore) -> None:
    assert with_unit(16384, "8kB") == "128MB"  # stored as "163848kB" before issue 14
    assert with_unit("3932160", "8kB") == "30GB"  # seed 000's shared_buffers
    assert with_unit(900, "s") == "15min"
    assert with_unit(-1, "kB") == "-1"
    assert with_unit(2.5, "ms") == "2.5ms"
    assert setting_text({"setting": "16384", "unit": "8kB", "display": "128MB"}) == "128MB"
    assert setting_text("30GB") == "30GB"
    ids = fleet(store, 3)
    r = build_report(store, ids, ids[0])
    settings = rows_of(r.tables["config_settings"])
    nvme = 2  # the third column
    assert settings["shared_buffers"][nvme].text == "128MB"
    assert settings["effective_cache_size"][nvme].text == "30GB"
    assert settings["checkpoint_timeout"][nvme].text == "15min"
    assert settings["work_mem"][nvme].text == "64MB"
    assert settings["bgwriter_delay"][nvme].text == "default"
    assert "max_connections" not in settings  # at its default in the record: left out
    assert "DateStyle" not in settings  # locale: not a tuning setting


def test_storage_the_author_described_is_marked_as_such(store: SessionStore) -> None:
    hdd, _ = build_seed000(store)
    cloud = store_session(
        store, "Cloud gp3", sweep(PG16, {}, points([(4, 1000, 2, 9), (8, 1500, 3, 12)]))
    )
    described = store.set_storage_description(
        cloud, devices="AWS gp3 3000 IOPS", count=1, raid="none", filesystem="ext4"
    )
    assert described["source"] == "user"
    r = build_report(store, [hdd, cloud], hdd)
    rows = rows_of(r.tables["config_platform"])
    assert rows["Storage"][1].text == (
        "described by the author: 1 x AWS gp3 3000 IOPS, no RAID, ext4"
    )
    assert rows["CPU"][1].text == "not recorded"
    assert not any("neither built by bench-gui nor described" in n for n in r.notes)
    assert any(f"session {cloud} (Cloud gp3): no hardware inventory" in n for n in r.notes)


def test_storage_found_under_the_data_directory(store: SessionStore) -> None:
    hdd, _ = build_seed000(store)
    placed = store_session(
        store,
        "Local NVMe",
        sweep(PG16, {}, points([(4, 1000, 2, 9), (8, 1500, 3, 12)])),
        inventory={
            **INVENTORY,
            "database": {
                "data_directory": "/var/lib/postgresql/16/main",
                "device": "/dev/nvme0n1p2",
                "device_type": "part",
                "filesystem": "ext4",
                "mount": "/",
                "mount_options": "rw,relatime",
                "disks": [
                    {
                        "path": "/dev/nvme0n1",
                        "model": "Samsung SSD 980 PRO 1TB",
                        "rotational": False,
                        "transport": "nvme",
                        "scheduler": "none",
                        "read_ahead_kib": 128,
                    }
                ],
            },
        },
    )
    r = build_report(store, [hdd, placed], hdd)
    rows = rows_of(r.tables["config_platform"])
    assert rows["Storage"][1].text == "as found under the data directory"
    assert rows["Data directory on"][1].text == "/dev/nvme0n1p2 (part)"
    assert rows["Its filesystem"][1].text == "ext4 on / (rw,relatime)"
    assert rows["Disks under it"][1].text == "1 x Samsung SSD 980 PRO 1TB (NVME, SSD)"
    assert rows["Read-ahead"][1].text == "128 KiB"
    software = rows_of(r.tables["config_software"])
    assert software["Data directory"][1].text == "/var/lib/postgresql/16/main"


def test_only_the_os_knobs_the_plan_set_or_that_differ(store: SessionStore) -> None:
    hdd, _ = build_seed000(store)
    tuned = store_session(
        store,
        "Tuned",
        sweep(PG16, {}, points([(4, 1000, 2, 9), (8, 1500, 3, 12)])),
        plan_extra={"os": {"preset": "", "knobs": {"vm.swappiness": "1"}}},
        inventory={**INVENTORY, "os_knobs": {"vm.dirty_ratio": "20", "kernel.pid_max": "4194304"}},
    )
    store.update_inventory(hdd, {"os_knobs": {"vm.dirty_ratio": "10", "kernel.pid_max": "4194304"}})
    r = build_report(store, [hdd, tuned], hdd)
    rows = rows_of(r.tables["config_software"])
    assert [c.text for c in rows["vm.swappiness"]] == ["not set", "1 (set for the run)"]
    assert [c.text for c in rows["vm.dirty_ratio"]] == ["10", "20"]
    assert "kernel.pid_max" not in rows  # the same on both, and no plan set it


def test_notes_and_the_printed_tables(store: SessionStore, tmp_path: Path) -> None:
    ids = fleet(store, 6)
    r: Report = build_report(store, ids, ids[0], options=ReportOptions(session_notes="include"))
    how = {h.heading: h for h in r.how_we_tested}
    notes = dict(how["Notes recorded with the sessions"].rows)
    assert notes["4 x Micron 7450 NVMe RAID 10: plan"].startswith("Tuned for NVMe")
    assert notes["Cloud volume gp3 3000 IOPS: session"].startswith("Provisioned 3000 IOPS")
    assert len(r.tables["config_platform"].columns) == 7
    pdf = write_report(r, tmp_path / "six.pdf", page_size="a4")
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    for expected in ("System under test", "Database settings not at their defaults", "Test schema"):
        assert expected in text
    assert "Provisioned 3000 IOPS" in text


def test_sessions_imported_from_hammerdb(store: SessionStore) -> None:
    """HammerDB 6.0 job output of real runs (tests/_fixtures/hammerdb)."""
    import_hammerdb(store, HAMMER_DB, utc_offset_h=0)
    runs = [r.id for r in store.list_runs() if r.status == "complete" and r.steps]
    assert len(runs) >= 2
    r = build_report(store, runs[:2], runs[0])
    rows = rows_of(r.tables["config_software"])
    assert rows["Driver"][0].text == "HammerDB (imported)"
    assert "Driver processes" not in rows  # a bench-gui setting: HammerDB's is not known
    assert rows["Warehouses"][0].text == "8"
    assert rows_of(r.tables["config_schema"])["stock"][0].text == "800,000"


def test_schema_sizes_and_estimated_rows_are_said_as_such(store: SessionStore) -> None:
    hdd, _ssd = build_seed000(store)
    facts = gather(store, hdd)
    facts = replace(
        facts,
        step_facts={
            "database_size_bytes": 142_382_783,
            "table_rows": {"order_line": 299_643, "stock": 100_000},
            "table_rows_method": {"order_line": "estimate", "stock": "exact"},
        },
        end_facts={"database_size_bytes": 3 * 1024**3},
    )
    rows, counted = schema_rows(facts)
    assert counted
    assert rows["order_line"] == "≈ 299,643"
    assert rows["stock"] == "100,000"
    assert rows["Database size"] == "136 MiB"
    assert rows["Database size after the run"] == "3.0 GiB"
    bare, _ = schema_rows(replace(facts, step_facts={}, end_facts={}))
    assert "Database size" not in bare
    assert "Database size after the run" not in bare


def test_a_run_on_several_driver_hosts_says_so(store: SessionStore) -> None:
    """A session run on two driver hosts: its hosts in the workload rows (a one-host session
    beside it reads "1"), how the load was made in "How we tested", and a reader's note where
    a driver host was over 80% busy (the drivers, not the storage, may have set that figure)."""
    hdd, _ssd = build_seed000(store)
    points = [
        {"vus": 8, "nopm": 40_000, "avg": 2.0, "p999": 10.0},
        {"vus": 16, "nopm": 52_000, "avg": 3.0, "p999": 14.0},
    ]
    events = sweep(PG16, {}, points)
    for event in events:
        if event.kind == "step" and event.get("phase") == "end":
            busy = 93.4 if event.get("vus") == 16 else 41.0
            event.data["summary"]["driver_hosts"] = [
                {"host": "alpha", "role": "primary", "vus": 4, "cpu_busy_pct": 55.0},
                {"host": "beta", "role": "secondary", "vus": 4, "cpu_busy_pct": busy},
            ]
            # The hosts' measured start: 4 ms apart at 8 users, 310 ms (flagged) at 16.
            spread = 0.31 if event.get("vus") == 16 else 0.004
            event.data["summary"]["start"] = {"spread_s": spread, "limit_s": 0.2}
            if spread > 0.2:
                event.data["summary"]["start_flag"] = "step 2: the driver hosts began 0.310 s apart"
    target = {
        "kind": "postgresql",
        "host": "db1",
        "driver": "alpha",
        "driver_hosts": [
            {"host": "alpha", "role": "primary", "clock": {"offset_ms": 0.12}},
            {"host": "beta", "role": "secondary", "clock": {"offset_ms": -0.38}},
        ],
    }
    plan = {"name": "two hosts", "target": target, "driver": {"targets": ["alpha", "beta"]}}
    run_id = store.create_run("two hosts", plan, 'name = "two hosts"\n', target, "postgresql")
    for event in events:
        store.add_event(run_id, event)
    per_host = {
        "alpha": {**INVENTORY, "cpu": {"threads": 16}},
        "beta": {**INVENTORY, "cpu": {"threads": 8}},
    }
    store.set_server_info(run_id, PG16, {}, {**INVENTORY, "driver_hosts": per_host})
    store.finish_run(run_id, "complete")

    r = build_report(store, [hdd, run_id], hdd)
    hosts = rows_of(r.tables["config_software"])["Driver hosts"]
    assert [c.text for c in hosts] == [
        "1",
        "2: alpha (primary, 16 threads), beta (8 threads); clocks within 0.4 ms of the desktop's",
    ]
    how = " ".join(p for section in r.how_we_tested for p in section.paragraphs)
    assert "the load came from 2 driver hosts (alpha, beta)" in how
    # What was measured, not a promise of one instant.
    assert "one instant" not in how
    assert "measured, they began each step at most 310 ms apart (at 16 users; 2 steps)" in how
    assert "flagged: step 2: the driver hosts began 0.310 s apart" in how
    (note,) = [n for n in r.reader_notes if "driver hosts were over 80% busy" in n]
    assert "(at 16 users 'beta' 93%)" in note
    assert "at 8 users" not in note
