"""The database password on the driver host: ``env.json`` never outlives an agent that died
before reading it (the loopback sshd and a host Python that fails to start the agent), and a
real local sweep's agent and virtual-user processes never carry it in their environment."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench_gui.agent.secrets import conninfo_with_password
from bench_gui.core.plan_model import Plan, Target
from bench_gui.remote.ssh_transport import _ENV_JANITOR, SSHTransport
from bench_gui.services.run import RunController
from bench_gui.store import SessionStore
from bench_gui.wire.run_config import Workload
from tests._fixtures.pg import Clone
from tests._fixtures.wait import wait_until

pytestmark = pytest.mark.integration

SECRET = "vu-s3cret-pass"

# The host's "python": runs everything but the agent, which dies at once (an import error, a
# kill): before reading its env.json.
DYING_PYTHON = """#!/bin/sh
case "$*" in
  *bench_gui.agent*--env-file*) exit 3;;
esac
exec {python} "$@"
"""


def test_env_json_is_removed_when_the_agent_dies_before_reading_it(
    sshd: Any, tmp_path: Path
) -> None:
    python = tmp_path / "dying-python"
    python.write_text(DYING_PYTHON.format(python=shlex.quote(sys.executable)))
    python.chmod(0o755)
    sshd.trust()
    target = sshd.target()
    target.python = str(python)
    transport = SSHTransport(target, remote_root=str(tmp_path / "cache"))
    try:
        run = transport.start_agent({"action": "run", "session_id": 1}, {"PGPASSWORD": SECRET})
        env_file = Path(run.run_dir, "env.json")
        wait_until(lambda: not env_file.exists(), 30, "the janitor to remove env.json")
        assert run.wait(10) is not None
    finally:
        transport.close()
    for name in os.listdir(run.run_dir):
        assert SECRET not in Path(run.run_dir, name).read_text(errors="replace"), name


def test_the_janitor_keeps_env_json_while_the_agent_lives(tmp_path: Path) -> None:
    """Whatever the agent's command line shows meanwhile (empty, or setsid's, nohup's, env's
    in its exec chain): while its pid lives, env.json waits for it to read it; once it is
    gone, the file goes. (A janitor that judged by the command line removed it under an agent
    that had not started reading yet: that agent ran with no password and no lock holder.)"""
    env_file = tmp_path / "env.json"
    env_file.write_text("{}")
    agent = subprocess.Popen(["sleep", "30"])  # an agent whose command line names nothing
    janitor = subprocess.Popen(
        ["sh", "-c", _ENV_JANITOR, "sh", str(agent.pid), "600"], cwd=tmp_path
    )
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            janitor.wait(1.5)  # still waiting for the agent
        assert env_file.exists()
        agent.kill()
        agent.wait()
        assert janitor.wait(30) == 0
        assert not env_file.exists()
    finally:
        agent.kill()
        janitor.kill()
        agent.wait()
        janitor.wait()


def children_of(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def environ_of(pid: int) -> list[bytes]:
    return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")


def test_the_virtual_users_never_carry_the_password_in_their_environment(
    pg_server: Any, tpcc_db: Clone, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCH_GUI_TEST_VU_PASSWORD", SECRET)
    target = Target(kind="postgresql", host=pg_server.socket_dir, database=tpcc_db("vu_env", 1))
    target.password_env = "BENCH_GUI_TEST_VU_PASSWORD"
    plan = Plan(
        name="vu env",
        target=target,
        workload=Workload(warehouses=1, virtual_users=[2], rampup_s=1, duration_s=2, processes=2),
    )
    seen: dict[int, list[bytes]] = {}
    with SessionStore(tmp_path / "s.sqlite3") as store:
        controller = RunController(plan, store)
        agent = 0
        for event in controller.events():
            if event.kind == "hello":
                agent = int(event.get("pid"))
            if event.kind == "sample" and agent and len(seen) < 3:
                seen[agent] = environ_of(agent)
                for child in children_of(agent):
                    seen.setdefault(child, environ_of(child))
        assert controller.final is not None
        assert controller.final.get("status") == "ok", controller.final
    assert len(seen) >= 3, seen.keys()  # the agent and its two users' processes
    for pid, env in seen.items():
        assert not [v for v in env if v.startswith((b"PGPASSWORD=", b"BENCH_GUI_DB_PASSWORD="))]
        assert not [v for v in env if SECRET.encode() in v], pid


def test_the_password_goes_into_the_connection_string_in_memory() -> None:
    assert "password=" in conninfo_with_password("postgresql", "host=/tmp dbname=x", SECRET)
    assert conninfo_with_password("postgresql", "dbname=x password=own", SECRET).endswith("own")
    assert "PWD=" in conninfo_with_password("mariadb", "SERVER=h;DATABASE=d", SECRET)
    assert conninfo_with_password("mssql", "SERVER=h", SECRET) == "SERVER=h"
