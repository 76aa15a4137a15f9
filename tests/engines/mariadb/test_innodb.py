"""The InnoDB rules for a few machines, derived by hand from the rules in the module docstring
(RAM share by role, 128M chunks, redo = pool/4 within 512M..8G, io capacity by storage)."""

from __future__ import annotations

import pytest

from bench_gui.engines.mariadb.innodb import (
    DbVersion,
    InnoDbInput,
    InnoDbValueError,
    calculate,
    display,
    flavour_of,
    same_value,
    sql_value,
    to_number,
)
from bench_gui.engines.tuning_terms import TuneInputError

GIB = 1024**3
MARIADB_1011 = DbVersion(10, 11, 6)


def values(**kw: object) -> dict[str, str]:
    return calculate(InnoDbInput(**kw)).values()  # type: ignore[arg-type]


def test_a_dedicated_128g_nvme_mariadb() -> None:
    proposal = calculate(
        InnoDbInput(128 * GIB, cpus=32, connections=64, storage="nvme", version=MARIADB_1011,
                    server="dedicated")
    )  # fmt: skip
    assert proposal.values() == {
        "innodb_buffer_pool_size": "96G",  # 128G × 3/4
        "innodb_log_file_size": "8G",  # 96G/4 = 24G, capped at 8G
        "innodb_flush_method": "O_DIRECT",
        "innodb_io_capacity": "10000",
        "innodb_io_capacity_max": "20000",
        "innodb_flush_log_at_trx_commit": "1",
        "max_connections": "151",  # 64 + ⌈6.4⌉ + 10 = 81, below the default 151
    }
    assert all(s.rule for s in proposal.settings)
    assert "durability" in proposal.get("innodb_flush_log_at_trx_commit").rule  # type: ignore[union-attr]
    assert any("single buffer pool" in n for n in proposal.notes)


def test_a_shared_small_hdd_mysql_57_and_old_names() -> None:
    got = values(
        ram_bytes=6 * GIB, cpus=2, storage="hdd", flavour="mysql", version=DbVersion(5, 7, 44),
        server="shared",
    )  # fmt: skip
    # RAM/4 = 1.5G = 1536M: 12 chunks; 1 instance per GiB (1), capped by nothing else.
    assert got["innodb_buffer_pool_size"] == "1536M"
    assert got["innodb_buffer_pool_instances"] == "1"
    # redo 1536M/4 = 384M -> raised to 512M, in 2 files of 256M.
    assert got["innodb_log_file_size"] == "256M"
    assert "innodb_redo_log_capacity" not in got
    assert (got["innodb_io_capacity"], got["innodb_io_capacity_max"]) == ("200", "2000")
    assert "max_connections" not in got


def test_mysql_8_0_30_uses_the_redo_log_capacity_and_rounds_to_instances() -> None:
    got = values(ram_bytes=10 * GIB, cpus=64, flavour="mysql", version=DbVersion(8, 0, 36),
                 server="dedicated")  # fmt: skip
    # 10G × 3/4 = 7.5G = 60 chunks; 7 instances (7 GiB) -> a multiple of 7 × 128M: 56 chunks.
    assert got["innodb_buffer_pool_instances"] == "7"
    assert got["innodb_buffer_pool_size"] == "7G"
    assert got["innodb_redo_log_capacity"] == "1792M"  # 7G / 4
    assert "innodb_log_file_size" not in got
    older = values(ram_bytes=10 * GIB, flavour="mysql", version=DbVersion(8, 0, 29),
                   server="dedicated")  # fmt: skip
    assert "innodb_redo_log_capacity" not in older
    assert "innodb_log_file_size" in older


def test_relaxed_durability_is_said() -> None:
    proposal = calculate(InnoDbInput(8 * GIB, durability="relaxed", version=MARIADB_1011))
    setting = proposal.get("innodb_flush_log_at_trx_commit")
    assert setting is not None
    assert setting.value == "2"
    assert "relaxed" in setting.rule
    assert "lose" in setting.rule


def test_small_machines_and_other_systems() -> None:
    got = values(ram_bytes=512 * 1024**2, version=MARIADB_1011)
    assert got["innodb_buffer_pool_size"] == "128M"
    windows = calculate(InnoDbInput(8 * GIB, os_type="windows", version=MARIADB_1011))
    assert "innodb_flush_method" not in windows.values()
    assert any("innodb_flush_method" in n for n in windows.notes)
    three = values(ram_bytes=3 * GIB, version=MARIADB_1011, server="dedicated")
    assert three["innodb_buffer_pool_size"] == "1536M"  # RAM/2 up to 4 GiB


def test_a_host_not_declared_dedicated_gets_a_quarter_of_its_ram() -> None:
    """Issue 26: an 18 GB "dedicated" pool on a 24 GB shared host when nobody said so."""
    proposal = calculate(InnoDbInput(24 * GIB, connections=8, version=MARIADB_1011))
    pool = proposal.get("innodb_buffer_pool_size")
    assert pool is not None
    assert pool.value == "6G"
    assert "not declared dedicated" in pool.rule
    declared = values(ram_bytes=24 * GIB, version=MARIADB_1011, server="dedicated")
    assert declared["innodb_buffer_pool_size"] == "18G"


def test_max_connections_is_never_proposed_below_the_servers_default() -> None:
    """Issue 26: 151 lowered to 19 for a plan of 8 users."""
    proposal = calculate(InnoDbInput(8 * GIB, connections=8, version=MARIADB_1011))
    setting = proposal.get("max_connections")
    assert setting is not None
    assert setting.value == "151"
    assert "= 19, raised to the default 151: never lowered" in setting.rule
    assert (
        values(ram_bytes=8 * GIB, connections=200, version=MARIADB_1011)["max_connections"] == "230"
    )  # 200 + 20 + 10


def test_bad_inputs_are_named() -> None:
    with pytest.raises(TuneInputError) as err:
        calculate(InnoDbInput(1024, cpus=0, storage="tape", flavour="oracle", server="cloud"))
    fields = [name for name, _ in err.value.problems]
    assert fields == ["ram", "cpus", "storage", "flavour", "server"]


def test_values_and_versions() -> None:
    assert DbVersion.parse("10.11.19-MariaDB-0+deb12u1") == DbVersion(10, 11, 19)
    assert DbVersion.parse("5.5.5-10.6.3-MariaDB") == DbVersion(10, 6, 3)
    assert flavour_of("10.11.19-MariaDB-0+deb12u1") == "mariadb"
    assert flavour_of("8.0.36") == "mysql"
    with pytest.raises(InnoDbValueError):
        DbVersion.parse("eleven")
    assert to_number("innodb_buffer_pool_size", "512M") == 512 * 1024**2
    assert same_value("innodb_buffer_pool_size", "4G", str(4 * GIB))
    assert same_value("innodb_flush_method", "o_direct", "O_DIRECT")
    assert not same_value("innodb_io_capacity", "200", "2000")
    assert sql_value("innodb_log_file_size", "1G") == str(GIB)
    assert sql_value("innodb_flush_method", "O_DIRECT") == "'O_DIRECT'"
    with pytest.raises(InnoDbValueError, match="innodb_io_capacity"):
        to_number("innodb_io_capacity", "2K")
    with pytest.raises(InnoDbValueError, match="plain word"):
        sql_value("innodb_flush_method", "x'; DROP")
    assert display("innodb_buffer_pool_size", str(256 * 1024**2)) == "256M"
