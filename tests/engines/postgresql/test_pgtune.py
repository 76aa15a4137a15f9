"""The PgTune calculator against PgTune's published outputs and hand-derived expectations.

Where the expected numbers come from:

- PgTune's own tests (le0pard/pgtune, ``src/features/configuration/__tests__/
  configurationSlice.test.js``) publish exact outputs for a set of inputs; those are marked
  "published" below and use the same inputs (RAM in GB, kB results).
- The full proposals are derived by hand from the formulas of
  ``shared/reference/workload-spec.md`` section 2, with the arithmetic in the comments. RAM is
  in kB (1 GB = 1048576 kB) and every division is floored, as PgTune does; values print as GB
  or MB only when they divide exactly.
"""

from __future__ import annotations

import pytest

from bench_gui.engines.postgresql.pgtune import (
    PgVersion,
    TuneInput,
    calculate,
    format_kb,
    format_setting,
    normalize_value,
    same_value,
    settings_differences,
    to_base_units,
)
from bench_gui.engines.tuning_terms import TuneInputError, parse_size

GB = 1024**3


def tune(
    ram_gb: float,
    *,
    cpus: int | None = None,
    connections: int | None = None,
    storage: str = "ssd",
    db_type: str = "web",
    version: str = "18",
    os_type: str = "linux",
    edition: str = "current",
) -> dict[str, str]:
    proposal = calculate(
        TuneInput(
            ram_bytes=int(ram_gb * GB),
            cpus=cpus,
            connections=connections,
            storage=storage,
            db_type=db_type,
            version=PgVersion.parse(version),
            os_type=os_type,
            edition=edition,
        )
    )
    return proposal.values()


# -- full proposals, derived by hand ----------------------------------------------------------


def test_oltp_128gb_24_cpus_100_connections_ssd_pg16() -> None:
    """The issue's example: --ram 128GiB --cpus 24 --connections 100 --storage ssd --type oltp.

    RAM = 128 × 1048576 = 134217728 kB
    shared_buffers = RAM/4 = 33554432 kB = 32GB
    effective_cache_size = 3·RAM/4 = 100663296 kB = 96GB
    maintenance_work_mem = RAM/16 = 8388608 kB = 8GB, at the 8GB cap (current rules)
    wal_buffers = 3% of 33554432 = 1006632 kB > 16MB -> 16MB
    work_mem = (134217728 - 33554432) / ((100 + 24) × 3) = 100663296 / 372 = 270600.26
               -> 270600 kB (not a whole MB: printed in kB)
    huge_pages = try (shared_buffers 32GB ≥ 2GB)
    parallel: max_worker_processes 24, per gather ⌈24/2⌉ = 12 capped at 4, workers 24,
              maintenance 4
    jit off (oltp, ≥ 12), wal_compression lz4 (≥ 15), autovacuum_max_workers 4 (≥ 16 CPUs),
    autovacuum_work_mem 2GB (maintenance_work_mem ≥ 2GB); min/max_wal_size 2GB/8GB (oltp).
    """
    proposal = calculate(
        TuneInput(
            ram_bytes=parse_size("128GiB"),
            cpus=24,
            connections=100,
            storage="ssd",
            db_type="oltp",
            version=PgVersion.parse("16"),
        )
    )
    assert proposal.values() == {
        "max_connections": "100",
        "shared_buffers": "32GB",
        "effective_cache_size": "96GB",
        "maintenance_work_mem": "8GB",
        "checkpoint_completion_target": "0.9",
        "wal_buffers": "16MB",
        "default_statistics_target": "100",
        "random_page_cost": "1.1",
        "effective_io_concurrency": "200",
        "work_mem": "270600kB",
        "huge_pages": "try",
        "jit": "off",
        "wal_compression": "lz4",
        "autovacuum_max_workers": "4",
        "autovacuum_work_mem": "2GB",
        "min_wal_size": "2GB",
        "max_wal_size": "8GB",
        "max_worker_processes": "24",
        "max_parallel_workers_per_gather": "4",
        "max_parallel_workers": "24",
        "max_parallel_maintenance_workers": "4",
    }
    # More than 100 GB of RAM: PgTune's warning.
    assert proposal.warnings == ["WARNING: this tool is not optimal for very high memory systems"]
    # Every value carries the rule that produced it, with the arithmetic.
    work_mem = proposal.get("work_mem")
    assert work_mem is not None
    assert "(134217728 - 33554432)kB / 372 = 270600kB" in work_mem.rule
    shared = proposal.get("shared_buffers")
    assert shared is not None
    assert shared.rule == "RAM/4 = 128GB/4 = 32GB"


def test_the_seed_briefs_machine_on_9_4_with_classic_rules() -> None:
    """Seeds 000/001: 128 GB, 2 × 12 cores, PostgreSQL 9.4, tuned "using PgTune" (classic).

    maintenance_work_mem = RAM/16 = 8GB, capped at 2GB by the classic rules: the brief's 2GB.
    connections: PgTune's default for oltp, 300.
    work_mem = (134217728 - 33554432) / ((300 + 24) × 3) = 100663296 / 972 = 103563.06
               -> 103563 kB
    huge_pages = try (classic: RAM ≥ 32GB).
    9.4: checkpoint_segments 64 for oltp instead of min/max_wal_size; max_worker_processes
    exists (9.4) but the parallel query settings do not (9.6, 10, 11).
    hdd: random_page_cost 4, effective_io_concurrency 2.
    """
    proposal = calculate(
        TuneInput(
            ram_bytes=128 * GB,
            cpus=24,
            storage="hdd",
            db_type="oltp",
            version=PgVersion(9, 4),
            edition="classic",
        )
    )
    assert proposal.values() == {
        "max_connections": "300",
        "shared_buffers": "32GB",
        "effective_cache_size": "96GB",
        "maintenance_work_mem": "2GB",
        "checkpoint_completion_target": "0.9",
        "wal_buffers": "16MB",
        "default_statistics_target": "100",
        "random_page_cost": "4",
        "effective_io_concurrency": "2",
        "work_mem": "103563kB",
        "huge_pages": "try",
        "checkpoint_segments": "64",
        "max_worker_processes": "24",
    }
    assert proposal.notes == [
        "max_parallel_workers_per_gather: not in PostgreSQL 9.4 (since 9.6)",
        "max_parallel_workers: not in PostgreSQL 9.4 (since 10)",
        "max_parallel_maintenance_workers: not in PostgreSQL 9.4 (since 11)",
    ]


def test_desktop_8gb_2_cpus_hdd_pg12() -> None:
    """RAM = 8388608 kB; desktop divides by 16 and 4.

    shared_buffers = 8388608/16 = 524288 kB = 512MB
    effective_cache_size = 8388608/4 = 2097152 kB = 2GB
    maintenance_work_mem = 8388608/16 = 512MB
    wal_buffers = 3% of 524288 = 15728 kB: between 14MB and 16MB -> rounded up to 16MB
    2 CPUs (< 4): no parallel settings; work_mem counts PostgreSQL's 8 worker processes:
    work_mem = (8388608 - 524288) / ((20 + 8) × 3 × 6) = 7864320 / 504 = 15603.8 -> 15603 kB
    huge_pages off (shared_buffers < 2GB); wal_compression on (10 to 14); no jit (desktop);
    min/max_wal_size 100MB/2GB; wal_level minimal with max_wal_senders 0.
    """
    assert tune(8, cpus=2, storage="hdd", db_type="desktop", version="12") == {
        "max_connections": "20",
        "shared_buffers": "512MB",
        "effective_cache_size": "2GB",
        "maintenance_work_mem": "512MB",
        "checkpoint_completion_target": "0.9",
        "wal_buffers": "16MB",
        "default_statistics_target": "100",
        "random_page_cost": "4",
        "effective_io_concurrency": "2",
        "work_mem": "15603kB",
        "huge_pages": "off",
        "wal_compression": "on",
        "min_wal_size": "100MB",
        "max_wal_size": "2GB",
        "wal_level": "minimal",
        "max_wal_senders": "0",
    }


def test_data_warehouse_64gb_16_cpus_san_pg18() -> None:
    """RAM = 67108864 kB.

    shared_buffers 16GB, effective_cache_size 48GB;
    maintenance_work_mem = RAM/8 (dw) = 8388608 kB = 8GB, the cap;
    parallel: per gather ⌈16/2⌉ = 8, not capped for dw; maintenance min(8, 4) = 4;
    work_mem = (67108864 - 16777216) / ((40 + 16) × 3 × 2) = 50331648 / 336 = 149796.6
               -> 149796 kB
    default_statistics_target 500; san: 1.1 and 300;
    PostgreSQL 18: io_method io_uring (Linux), io_workers ⌊16/4⌋ = 4 (> 3, so set);
    no jit for dw; autovacuum_max_workers 4 (16 CPUs); min/max_wal_size 4GB/16GB.
    """
    assert tune(64, cpus=16, storage="san", db_type="dw", version="18") == {
        "max_connections": "40",
        "shared_buffers": "16GB",
        "effective_cache_size": "48GB",
        "maintenance_work_mem": "8GB",
        "checkpoint_completion_target": "0.9",
        "wal_buffers": "16MB",
        "default_statistics_target": "500",
        "random_page_cost": "1.1",
        "effective_io_concurrency": "300",
        "work_mem": "149796kB",
        "huge_pages": "try",
        "wal_compression": "lz4",
        "autovacuum_max_workers": "4",
        "autovacuum_work_mem": "2GB",
        "io_method": "io_uring",
        "io_workers": "4",
        "min_wal_size": "4GB",
        "max_wal_size": "16GB",
        "max_worker_processes": "16",
        "max_parallel_workers_per_gather": "8",
        "max_parallel_workers": "16",
        "max_parallel_maintenance_workers": "4",
    }


def test_small_web_server_on_nvme_and_the_work_mem_floors() -> None:
    """2 GB, 4 CPUs, web (200 connections), NVMe, PostgreSQL 17.

    shared_buffers 512MB, effective_cache_size 1536MB, maintenance_work_mem 128MB;
    work_mem = (2097152 - 524288) / ((200 + 4) × 3) = 1572864 / 612 = 2570.0 -> 2570 kB,
    below the current 4MB floor -> 4MB; the classic floor is 64 kB -> 2570kB.
    nvme: random_page_cost 1.1, effective_io_concurrency 1000.
    """
    current = tune(2, cpus=4, storage="nvme", db_type="web", version="17")
    assert current["work_mem"] == "4MB"
    assert current["effective_io_concurrency"] == "1000"
    assert current["random_page_cost"] == "1.1"
    assert current["effective_cache_size"] == "1536MB"
    assert current["maintenance_work_mem"] == "128MB"
    assert current["max_parallel_workers_per_gather"] == "2"  # ⌈4/2⌉
    assert current["max_parallel_maintenance_workers"] == "2"
    assert "io_method" not in current  # 17
    classic = tune(2, cpus=4, storage="ssd", db_type="web", version="17", edition="classic")
    assert classic["work_mem"] == "2570kB"
    assert "jit" not in classic
    assert "wal_compression" not in classic


def test_windows_before_10_mixed_9_6_classic() -> None:
    """16 GB, 8 CPUs, mixed, Windows, PostgreSQL 9.6, classic rules.

    shared_buffers = RAM/4 = 4GB, limited to 512MB on Windows before 10;
    maintenance_work_mem = RAM/16 = 1GB (below the cap);
    work_mem = (16777216 - 524288) / ((100 + 8) × 3 × 2) = 16252928 / 648 = 25081.7
               -> 25081 kB (mixed divides by 2)
    wal_buffers = 3% of 524288 = 15728 kB -> 16MB; no effective_io_concurrency off Linux;
    huge_pages off (classic: RAM < 32GB); 9.6: max_wal_size 4GB, per gather 4, but no
    max_parallel_workers (10) nor maintenance workers (11).
    """
    values = tune(16, cpus=8, connections=100, db_type="mixed", version="9.6",
                  os_type="windows", edition="classic")  # fmt: skip
    assert values["shared_buffers"] == "512MB"
    assert values["maintenance_work_mem"] == "1GB"
    assert values["work_mem"] == "25081kB"
    assert values["wal_buffers"] == "16MB"
    assert values["huge_pages"] == "off"
    assert values["max_wal_size"] == "4GB"
    assert values["max_parallel_workers_per_gather"] == "4"
    assert "effective_io_concurrency" not in values
    assert "max_parallel_workers" not in values
    assert "max_parallel_maintenance_workers" not in values


def test_wal_buffers_minimum_and_low_memory_warning() -> None:
    """128 MB: shared_buffers = 131072/4 = 32768 kB = 32MB; wal_buffers = 3% = 983 kB."""
    proposal = calculate(TuneInput(ram_bytes=128 * 1024**2, db_type="web"))
    assert proposal.values()["shared_buffers"] == "32MB"
    assert proposal.values()["wal_buffers"] == "983kB"
    assert proposal.warnings == ["WARNING: this tool is not optimal for low memory systems"]
    # 1 MB of RAM: 3% of 256 kB is 7 kB, raised to the 32 kB minimum.
    tiny = calculate(TuneInput(ram_bytes=1024**2, db_type="web"))
    assert tiny.values()["wal_buffers"] == "32kB"


# -- PgTune's published outputs ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("db_type", "connections"),
    [("web", "200"), ("oltp", "300"), ("dw", "40"), ("desktop", "20"), ("mixed", "100")],
)
def test_published_default_connections(db_type: str, connections: str) -> None:
    assert tune(4, db_type=db_type)["max_connections"] == connections


@pytest.mark.parametrize(
    ("storage", "cost", "concurrency"),
    [("hdd", "4", "2"), ("ssd", "1.1", "200"), ("san", "1.1", "300"), ("nvme", "1.1", "1000")],
)
def test_published_storage_settings(storage: str, cost: str, concurrency: str) -> None:
    values = tune(4, storage=storage)
    assert values["random_page_cost"] == cost
    assert values["effective_io_concurrency"] == concurrency
    assert "effective_io_concurrency" not in tune(4, storage=storage, os_type="windows")


def test_published_parallel_settings() -> None:
    assert "max_worker_processes" not in tune(4, cpus=1, version="14")
    v13 = tune(4, cpus=12, version="13")
    assert [v13[k] for k in ("max_worker_processes", "max_parallel_workers_per_gather",
            "max_parallel_workers", "max_parallel_maintenance_workers")] == [
        "12", "4", "12", "4"]  # fmt: skip
    v10 = tune(4, cpus=12, version="10")
    assert "max_parallel_maintenance_workers" not in v10
    assert v10["max_parallel_workers_per_gather"] == "4"
    v10_31 = tune(4, cpus=31, version="10")
    assert (v10_31["max_worker_processes"], v10_31["max_parallel_workers_per_gather"]) == (
        "31",
        "4",
    )
    dw = tune(4, cpus=31, version="12", db_type="dw")
    assert dw["max_parallel_workers_per_gather"] == "16"  # ⌈31/2⌉, uncapped for dw
    assert dw["max_parallel_maintenance_workers"] == "4"


def test_published_maintenance_work_mem_caps() -> None:
    assert tune(256, version="17")["maintenance_work_mem"] == format_kb(8388608) == "8GB"
    win17 = tune(256, version="17", os_type="windows")["maintenance_work_mem"]
    assert win17 == format_kb(2096128) == "2047MB"  # 2GB - 1MB
    assert tune(256, version="18", os_type="windows")["maintenance_work_mem"] == "8GB"
    assert tune(16, version="15")["maintenance_work_mem"] == "1GB"  # 16GB/16, below the cap


def test_published_huge_pages() -> None:
    assert tune(4, version="15")["huge_pages"] == "off"  # shared_buffers 1GB
    assert tune(16, version="15")["huge_pages"] == "try"  # shared_buffers 4GB
    assert tune(128, version="15", os_type="mac")["huge_pages"] == "off"


def test_published_work_mem() -> None:
    # 9999 connections on 4 GB: far below the floor -> 4096 kB.
    assert tune(4, version="15", connections=9999, cpus=4)["work_mem"] == "4MB"
    # Windows, PostgreSQL 17: capped at 2GB - 1MB = 2096128 kB.
    win17 = tune(256, version="17", os_type="windows", connections=20, cpus=4)
    assert win17["work_mem"] == format_kb(2096128)
    # PostgreSQL 18 on Windows: no cap; PgTune's test says it "evaluates to 2796202":
    # (268435456 - 67108864) / ((20 + 4) × 3) = 201326592 / 72 = 2796202.67 -> 2796202 kB.
    win18 = tune(256, version="18", os_type="windows", connections=20, cpus=4)
    assert win18["work_mem"] == "2796202kB"


def test_published_newer_settings() -> None:
    assert tune(4, version="12", db_type="web")["jit"] == "off"
    assert tune(4, version="15", db_type="oltp")["jit"] == "off"
    assert "jit" not in tune(4, version="15", db_type="dw")
    assert "jit" not in tune(4, version="11", db_type="web")
    assert tune(4, version="10")["wal_compression"] == "on"
    assert tune(4, version="14")["wal_compression"] == "on"
    assert tune(4, version="15")["wal_compression"] == "lz4"
    assert tune(4, version="17")["wal_compression"] == "lz4"
    assert tune(4, cpus=32)["autovacuum_max_workers"] == "5"
    assert tune(4, cpus=16)["autovacuum_max_workers"] == "4"
    assert "autovacuum_max_workers" not in tune(4, cpus=8)
    assert "autovacuum_work_mem" not in tune(4, version="15")
    assert tune(256, version="15")["autovacuum_work_mem"] == "2GB"
    assert "autovacuum_work_mem" not in tune(256, version="17", os_type="windows")
    assert tune(256, version="18", os_type="windows")["autovacuum_work_mem"] == "2GB"


def test_published_desktop_wal_level() -> None:
    values = tune(4, db_type="desktop")
    assert (values["wal_level"], values["max_wal_senders"]) == ("minimal", "0")
    assert "wal_level" not in tune(4, db_type="web")


# -- versions ------------------------------------------------------------------------------------


def test_checkpoint_segments_before_9_5_and_wal_sizes_after() -> None:
    for db_type, segments in (("web", 32), ("oltp", 64), ("dw", 128), ("desktop", 3)):
        old = tune(8, db_type=db_type, version="9.4")
        assert old["checkpoint_segments"] == str(segments)
        assert "max_wal_size" not in old
    new = tune(8, db_type="oltp", version="9.5")
    assert (new["min_wal_size"], new["max_wal_size"]) == ("2GB", "8GB")
    assert "checkpoint_segments" not in new
    assert "huge_pages" not in tune(8, version="9.3")  # since 9.4


def test_versions_parse() -> None:
    assert PgVersion.parse("9.4") == PgVersion(9, 4)
    assert PgVersion.parse("16") == PgVersion(16)
    assert PgVersion.parse("16.4") == PgVersion(16)
    assert PgVersion.parse(160004) == PgVersion(16)
    assert PgVersion.parse(90406) == PgVersion(9, 4)
    assert PgVersion.parse(9.6) == PgVersion(9, 6)
    assert str(PgVersion(9, 4)) == "9.4"
    assert str(PgVersion(18)) == "18"
    assert PgVersion(9, 4) < PgVersion(9, 5) < PgVersion(10)
    with pytest.raises(ValueError, match="not a PostgreSQL version"):
        PgVersion.parse("sixteen")


def test_sizes_parse_as_binary_units() -> None:
    assert parse_size("128GiB") == parse_size("128GB") == parse_size("128") == 128 * GB
    assert parse_size("512 MB") == 512 * 1024**2
    assert parse_size("1.5g") == int(1.5 * GB)
    with pytest.raises(ValueError, match="unknown unit"):
        parse_size("12 parsecs")
    with pytest.raises(ValueError, match="not a size"):
        parse_size("lots")


def test_bad_inputs_are_named() -> None:
    with pytest.raises(TuneInputError) as info:
        calculate(TuneInput(ram_bytes=100, cpus=0, connections=0, storage="tape", db_type="batch"))
    names = [name for name, _reason in info.value.problems]
    assert names == ["ram", "cpus", "connections", "type", "storage"]
    # The classic rules predate the nvme storage type.
    with pytest.raises(TuneInputError, match="storage"):
        calculate(TuneInput(ram_bytes=GB, storage="nvme", edition="classic"))


def test_output_formats() -> None:
    proposal = calculate(TuneInput(ram_bytes=4 * GB, cpus=4, db_type="oltp"))
    conf = proposal.to_conf()
    assert "# DB Type: oltp" in conf
    assert "shared_buffers = 1GB" in conf
    assert "# RAM/4 = 4GB/4 = 1GB" in conf
    assert "ALTER SYSTEM SET shared_buffers = '1GB';" in proposal.to_alter_system()
    data = proposal.to_dict()
    assert data["inputs"]["ram_bytes"] == 4 * GB
    assert data["settings"][1] == {
        "name": "shared_buffers",
        "value": "1GB",
        "rule": "RAM/4 = 4GB/4 = 1GB",
        "source": "pgtune",
    }


# -- how PostgreSQL reads values -----------------------------------------------------------------


def test_units_are_compared_as_the_server_reads_them() -> None:
    # shared_buffers is counted in 8kB pages: 128MB = 16384 pages.
    assert same_value("128MB", "16384", "8kB", "integer")
    assert not same_value("256MB", "16384", "8kB", "integer")
    assert same_value("1GB", "1024", "MB", "integer")  # max_wal_size in MB
    assert same_value("5min", "300", "s", "integer")  # checkpoint_timeout in s
    assert same_value("15ms", "15", "ms", "integer")  # bgwriter_delay
    assert same_value("15", "15", "ms", "integer")  # no unit: the base unit
    assert same_value("270600kB", "270600", "kB", "integer")
    assert same_value("0.9", "0.9", "", "real")
    assert same_value("1.10", "1.1", "", "real")
    assert same_value("on", "true", "", "bool")
    assert same_value("off", "0", "", "bool")
    assert same_value("TRY", "try", "", "enum", ["off", "on", "try"])
    assert same_value("true", "on", "", "enum", ["off", "on", "try"])
    assert to_base_units("2GB", "8kB") == 262144
    with pytest.raises(ValueError, match="valid units"):
        to_base_units("5min", "8kB")
    with pytest.raises(ValueError, match="not on or off"):
        normalize_value("maybe", vartype="bool")


def test_settings_are_shown_in_the_largest_exact_unit() -> None:
    assert format_setting("16384", "8kB") == "128MB"
    assert format_setting("524288", "8kB") == "4GB"
    assert format_setting("4096", "kB") == "4MB"
    assert format_setting("300", "s") == "5min"
    assert format_setting("200", "ms") == "200ms"
    assert format_setting("-1", "kB") == "-1"
    assert format_setting("0.9", "", "real") == "0.9"


def test_settings_differences_flatten_nested_knobs() -> None:
    a = {"work_mem": "4MB", "os": {"sysctl": {"vm.dirty_ratio": "20"}}}
    b = {"work_mem": "64MB", "os": {"sysctl": {"vm.dirty_ratio": "20", "vm.swappiness": "1"}}}
    assert settings_differences(a, b) == [
        ("os.sysctl.vm.swappiness", None, "1"),
        ("work_mem", "4MB", "64MB"),
    ]
